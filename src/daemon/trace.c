/* trace.c - a trace's session on the control thread (trace.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl_json.h"
#include "log.h"
#include "pkt.h"
#include "reinject.h"
#include "trace.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int64_t mono_to_real_ns(void)
{
	struct timespec rt;
	uint64_t m = mono_ns();

	clock_gettime(CLOCK_REALTIME, &rt);
	return (int64_t)((uint64_t)rt.tv_sec * 1000000000ull +
			 (uint64_t)rt.tv_nsec) - (int64_t)m;
}

static json_t *error_doc(uint16_t *status, uint16_t code, const char *fmt,
			 ...) __attribute__((format(printf, 3, 4)));

/* {"error": message} with *status code. */
static json_t *error_doc(uint16_t *status, uint16_t code, const char *fmt,
			 ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	*status = code;
	return json_pack("{s:s}", "error", msg);
}

/* ---- records ---------------------------------------------------------- */

static const char *verdict_name(enum pkt_verdict v)
{
	switch (v) {
	case PKT_ACCEPT:
		return "accept";
	case PKT_NEW_BYTES:
		return "new-bytes";
	case PKT_DROP:
		return "drop";
	case PKT_REPEAT:
		return "repeat";
	case PKT_PUNT:
		return "punt";
	default:
		return "unknown";
	}
}

/* o["src"], o["dst"] from the IP header in rec's bytes, when they hold
 * one. */
static void addrs_set(json_t *o, const struct pkt_trace_record *rec)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	unsigned v = rec->caplen ? rec->data[0] >> 4 : 0;

	if (v == 6 && rec->caplen >= 40) {
		inet_ntop(AF_INET6, rec->data + 8, a, sizeof(a));
		inet_ntop(AF_INET6, rec->data + 24, b, sizeof(b));
	} else if (v == 4 && rec->caplen >= 20) {
		inet_ntop(AF_INET, rec->data + 12, a, sizeof(a));
		inet_ntop(AF_INET, rec->data + 16, b, sizeof(b));
	} else {
		return;
	}
	json_object_set_new(o, "src", json_string(a));
	json_object_set_new(o, "dst", json_string(b));
}

/* o["sid"] and "behavior", or "policy" and "table", or "kernel_policy". */
static void who_set(json_t *o, const struct pkt_trace_record *rec)
{
	char a[INET6_ADDRSTRLEN], p[INET6_ADDRSTRLEN + 8];

	if (rec->kind == PKT_TRACE_KPOLICY) {
		json_object_set_new(o, "kernel_policy", json_true());
		return;
	}
	if (rec->kind != PKT_TRACE_SID && rec->kind != PKT_TRACE_POLICY)
		return;
	inet_ntop(rec->family, rec->prefix, a, sizeof(a));
	snprintf(p, sizeof(p), "%s/%u", a, rec->plen);
	if (rec->kind == PKT_TRACE_SID) {
		json_object_set_new(o, "sid", json_string(p));
		json_object_set_new(o, "behavior",
				    json_string(behavior_name(rec->behavior)));
	} else {
		json_object_set_new(o, "policy", json_string(p));
		json_object_set_new(o, "table", json_integer(rec->table));
	}
}

static json_t *hex_json(const uint8_t *b, unsigned n)
{
	static const char digits[] = "0123456789abcdef";
	char buf[2 * PKT_TRACE_SNAP + 1];

	for (unsigned i = 0; i < n && i < PKT_TRACE_SNAP; i++) {
		buf[2 * i] = digits[b[i] >> 4];
		buf[2 * i + 1] = digits[b[i] & 15];
	}
	buf[2 * (n < PKT_TRACE_SNAP ? n : PKT_TRACE_SNAP)] = '\0';
	return json_string(buf);
}

json_t *trace_record_json(const struct pkt_trace_record *rec,
			  int64_t mono_to_real, bool with_bytes)
{
	json_t *o = json_object();
	int64_t real_ns = (int64_t)rec->mono_ns + mono_to_real;

	if (!o)
		return NULL;
	json_object_set_new(o, "time_us", json_integer(real_ns / 1000));
	json_object_set_new(o, "queue", json_integer(rec->queue));
	addrs_set(o, rec);
	json_object_set_new(o, "len", json_integer(rec->orig_len));
	who_set(o, rec);
	json_object_set_new(o, "verdict", json_string(verdict_name(rec->verdict)));
	json_object_set_new(o, "way", json_string(reinject_action_name(
		(enum reinject_action)rec->action)));
	json_object_set_new(o, "outcome", json_string(worker_outcome_name(
		(enum worker_outcome)rec->outcome)));
	if (rec->outcome == WORKER_OUT_DROPPED)
		json_object_set_new(o, "reason", json_string(drop_reason_name(
			(enum drop_reason)rec->reason)));
	if (rec->outcome == WORKER_OUT_DROPPED &&
	    rec->pkt_outcome == PKT_OUT_ICMP)
		json_object_set_new(o, "answer", json_string("icmp"));
	else if (rec->outcome == WORKER_OUT_DROPPED &&
		 rec->pkt_outcome == PKT_OUT_HANDOFF)
		json_object_set_new(o, "answer", json_string("kernel"));
	if (rec->failed)
		json_object_set_new(o, "failed", json_true());
	if (rec->set_mark)
		json_object_set_new(o, "mark", json_integer(rec->mark));
	if (with_bytes)
		json_object_set_new(o, "data", hex_json(rec->data, rec->caplen));
	if (json_object_size(o) < 6) {	/* a set_new that failed */
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- start ------------------------------------------------------------ */

/* The words of a start request into f (and *bytes).  Returns NULL, or
 * the error document with *status set. */
static json_t *start_parse(struct engine *e, char *text,
			   struct pkt_trace_filter *f, bool *bytes,
			   uint16_t *status)
{
	const struct config *cfg = engine_config(e);
	char *save = NULL, *w;

	memset(f, 0, sizeof(*f));
	f->budget = TRACE_DEFAULT_COUNT;
	*bytes = false;
	strtok_r(text, " ", &save);	/* "start" */
	while ((w = strtok_r(NULL, " ", &save))) {
		if (!strcmp(w, "drops")) {
			f->drops_only = true;
		} else if (!strcmp(w, "bytes")) {
			*bytes = true;
		} else if (!strcmp(w, "count")) {
			char *n = strtok_r(NULL, " ", &save), *end;
			unsigned long v;

			errno = 0;
			v = n ? strtoul(n, &end, 10) : 0;
			if (!n || *n < '0' || *n > '9' || *end || errno ||
			    v < 1 || v > TRACE_MAX_COUNT)
				return error_doc(status, CTL_ERR_INVALID,
						 "trace: count: expected a "
						 "number from 1 to %u",
						 TRACE_MAX_COUNT);
			f->budget = (uint32_t)v;
		} else if (!strcmp(w, "sid") || !strcmp(w, "policy")) {
			char *arg = strtok_r(NULL, " ", &save);
			bool sid = w[0] == 's';
			unsigned plen = 0;
			int i, family;

			if (f->kind != PKT_TRACE_NONE)
				return error_doc(status, CTL_ERR_INVALID,
						 "trace: one sid or one policy, "
						 "not two");
			if (!arg)
				return error_doc(status, CTL_ERR_INVALID,
						 "trace: %s: missing argument",
						 w);
			if (sid) {
				i = ctl_sid_lookup(cfg, arg);
				if (i >= 0) {
					memcpy(f->prefix, &cfg->sids[i].prefix,
					       16);
					f->plen = cfg->sids[i].plen;
					f->family = AF_INET6;
				}
			} else {
				i = ctl_policy_lookup(cfg, arg, &family,
						      f->prefix, &plen);
				f->family = family;
				f->plen = (uint8_t)plen;
			}
			if (i == -2)
				return error_doc(status, CTL_ERR_INVALID, sid ?
						 "trace: sid: '%.64s' is not a "
						 "SID or an IPv6 address" :
						 "trace: policy: '%.64s' is not a "
						 "prefix/length", arg);
			if (i < 0)
				return error_doc(status, CTL_ERR_NOT_FOUND, sid ?
						 "trace: no such SID: %.64s" :
						 "trace: no policy of srv6d.conf "
						 "with prefix %.64s", arg);
			f->kind = sid ? PKT_TRACE_SID : PKT_TRACE_POLICY;
		} else {
			return error_doc(status, CTL_ERR_INVALID,
					 "trace: unexpected '%.64s' (expected "
					 "count N, drops, bytes, sid SID or "
					 "policy PREFIX/LEN)", w);
		}
	}
	return NULL;
}

static json_t *trace_start(struct trace_session *s, struct engine *e,
			   const struct ctl_request *req, char *text,
			   uint16_t *status)
{
	struct pkt_trace_filter f;
	json_t *err;
	bool bytes;

	if (s->active) {
		return error_doc(status, CTL_ERR_FAILED, "trace: one is "
				 "running already (started by pid %d)",
				 (int)s->pid);
	}
	err = start_parse(e, text, &f, &bytes, status);
	if (err)
		return err;
	if (!s->buf) {
		s->buf = calloc(TRACE_READ_MAX, sizeof(*s->buf));
		if (!s->buf)
			return NULL;
	}
	engine_trace_start(e, &f);
	*s = (struct trace_session){
		.active = true, .bytes = bytes, .want = f.budget,
		.pid = req->pid, .buf = s->buf,
		.deadline_ms = mono_ns() / 1000000 + TRACE_IDLE_MS,
	};
	log_msg(LOG_INFO, "trace started by pid %d (uid %u): %u packets%s",
		(int)req->pid, (unsigned)req->uid, f.budget,
		f.drops_only ? ", drops only" : "");
	return json_pack("{s:b,s:I}", "started", 1, "count",
			 (json_int_t)f.budget);
}

/* ---- read, stop -------------------------------------------------------- */

static void trace_off(struct trace_session *s, struct engine *e,
		      const char *why)
{
	engine_trace_stop(e);
	s->active = false;
	log_msg(LOG_INFO, "trace stopped: %s (%u packets)", why, s->got);
}

static json_t *trace_read(struct trace_session *s, struct engine *e,
			  uint16_t *status)
{
	int64_t off = mono_to_real_ns();
	json_t *doc, *a = json_array();
	uint64_t overflow;
	unsigned n;
	bool ok = a != NULL;

	if (!ok)
		return NULL;
	n = engine_trace_drain(e, s->buf, TRACE_READ_MAX, &overflow);
	for (unsigned i = 0; ok && i < n && s->got < s->want; i++, s->got++) {
		json_t *r = trace_record_json(&s->buf[i], off, s->bytes);

		ok = r && json_array_append_new(a, r) == 0;
	}
	if (!ok) {
		json_decref(a);
		return NULL;
	}
	s->deadline_ms = mono_ns() / 1000000 + TRACE_IDLE_MS;
	if (s->got >= s->want)
		trace_off(s, e, "count reached");
	doc = json_pack("{s:o,s:b,s:I,s:I}", "records", a, "done", !s->active,
			"count", (json_int_t)s->got, "overflow",
			(json_int_t)overflow);
	*status = CTL_OK;
	return doc;
}

json_t *trace_request(struct trace_session *s, struct engine *e,
		      const struct ctl_request *req, uint16_t *status)
{
	char text[512], *verb, *save = NULL, copy[512];
	const char *payload = req->payload ? req->payload : "";

	*status = CTL_OK;
	if (req->length >= sizeof(text) || strlen(payload) != req->length)
		return error_doc(status, CTL_ERR_INVALID, "trace: malformed "
				 "request (too long, or a NUL in it)");
	snprintf(text, sizeof(text), "%s", payload);
	snprintf(copy, sizeof(copy), "%s", payload);
	verb = strtok_r(copy, " ", &save);
	if (verb && !strcmp(verb, "start"))
		return trace_start(s, e, req, text, status);
	if (verb && (!strcmp(verb, "read") || !strcmp(verb, "stop")) &&
	    !strtok_r(NULL, " ", &save)) {
		if (!s->active && verb[0] == 's')
			return error_doc(status, CTL_ERR_NOT_FOUND,
					 "trace: no trace is running");
		if (!s->active)
			return json_pack("{s:[],s:b,s:I,s:I}", "records",
					 "done", 1, "count", (json_int_t)s->got,
					 "overflow", (json_int_t)0);
		if (verb[0] == 'r')
			return trace_read(s, e, status);
		trace_off(s, e, "asked");
		return json_pack("{s:b,s:I}", "stopped", 1, "count",
				 (json_int_t)s->got);
	}
	return error_doc(status, CTL_ERR_INVALID, "trace: expected start "
			 "[count N] [drops] [bytes] [sid SID | policy PREFIX/LEN], "
			 "read or stop");
}

void trace_tick(struct trace_session *s, struct engine *e)
{
	if (s->active && mono_ns() / 1000000 >= s->deadline_ms)
		trace_off(s, e, "not read for 10 s");
}

void trace_session_end(struct trace_session *s, struct engine *e)
{
	if (s->active)
		trace_off(s, e, "srv6d stops");
	free(s->buf);
	s->buf = NULL;
}
