/* srv6ctl.c - look at a running srv6d over its control socket. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "ctl_proto.h"
#include "config.h"
#include "pcapng.h"
#include "stats.h"

/* Exit status (srv6ctl(8) EXIT STATUS). */
#define EXIT_DAEMON_ERROR	1	/* error reply, or no usable reply */
#define EXIT_USAGE		2
#define EXIT_NO_DAEMON		3	/* cannot connect */
#define EXIT_PERMISSION		4	/* not allowed (socket or daemon) */
#define EXIT_BUSY		5	/* refused: too many clients; try again */

#define CALL_TIMEOUT_MS		30000	/* a reload of a big file takes time */
#define TRACE_POLL_MS		100	/* between a trace's reads */
#define TRACE_DEFAULT_N		10	/* trace.h TRACE_DEFAULT_COUNT */
#define TRACE_MAX_N		100000	/* trace.h TRACE_MAX_COUNT */
#define CAPTURE_SNAP		256	/* pkt_trace.h PKT_TRACE_SNAP */
#define TABLE_MAX_COLS		12

static void usage(FILE *f)
{
	fprintf(f,
		"usage: srv6ctl [-hjV] [-s socket] command [argument]\n"
		"  -s socket  control socket (default %s)\n"
		"  -j         print the daemon's JSON document\n"
		"  -V         print srv6ctl's version and exit\n"
		"  -h         print this help and exit\n"
		"commands:\n"
		"  status            version, uptime, config, queues, totals\n"
		"  sid [show [SID]]  SIDs, their attributes and counters\n"
		"  policy [show [PREFIX/LEN]]\n"
		"                    steering policies and their counters\n"
		"  stats             every counter and drop reason, and the\n"
		"                    kernel's view of each queue\n"
		"  reload            re-read the configuration (root only)\n"
		"  clear             count from zero from now on (root only)\n"
		"  trace [N] [sid SID | policy PREFIX/LEN]\n"
		"                    what srv6d decides for the next N packets\n"
		"                    (default 10; root only)\n"
		"  capture FILE [N]  the next N dropped packets into a pcapng\n"
		"                    file, each with its reason (root only)\n"
		"  route [table N]   the route mirror: routes per table\n"
		"  route get ADDR [table N]\n"
		"                    the mirror's route to ADDR, as ip route get\n"
		"  version           the daemon's version\n",
		CTL_DEFAULT_PATH);
}

/* ---- reading the document ------------------------------------------- */

static uint64_t jnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "-";
}

/* Sum of a "drops" object's values. */
static uint64_t drops_sum(const json_t *o)
{
	const json_t *drops = json_object_get(o, "drops");
	const char *k;
	json_t *v;
	uint64_t n = 0;

	json_object_foreach((json_t *)drops, k, v)
		if (json_is_integer(v))
			n += (uint64_t)json_integer_value(v);
	return n;
}

/* "a,b,c" from an array of strings. */
static void join_strings(const json_t *a, char *buf, size_t len)
{
	size_t off = 0;
	size_t i;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach((json_t *)a, i, v) {
		const char *s = json_string_value(v);

		if (!s || off >= len)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? "," : "", s);
	}
	if (!buf[0] && len > 1)
		snprintf(buf, len, "-");
}

/* ---- aligned tables (like ip -s) ------------------------------------- */

struct table {
	unsigned ncols;
	char spec[512];
	const char *head[TABLE_MAX_COLS];
	bool right[TABLE_MAX_COLS];	/* numbers are right-aligned */
	char **cells;			/* rows * ncols strings */
	unsigned nrows, cap;
};

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (!q) {
		perror("srv6ctl");
		exit(EXIT_DAEMON_ERROR);
	}
	return q;
}

/* spec: "name<" left-aligned or "name>" right-aligned, '|' between. */
static void table_init(struct table *t, const char *spec)
{
	char *save, *tok;

	memset(t, 0, sizeof(*t));
	snprintf(t->spec, sizeof(t->spec), "%s", spec);
	for (tok = strtok_r(t->spec, "|", &save);
	     tok && t->ncols < TABLE_MAX_COLS;
	     tok = strtok_r(NULL, "|", &save)) {
		size_t n = strlen(tok);

		t->right[t->ncols] = n && tok[n - 1] == '>';
		if (n)
			tok[n - 1] = '\0';
		t->head[t->ncols++] = tok;
	}
}

/* Add a row of t->ncols strings (copied). */
static void table_row(struct table *t, ...)
{
	va_list ap;

	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->cells = xrealloc(t->cells,
				    (size_t)t->cap * t->ncols * sizeof(char *));
	}
	va_start(ap, t);
	for (unsigned c = 0; c < t->ncols; c++) {
		const char *v = va_arg(ap, const char *);
		char *s = strdup(v ? v : "-");

		if (!s) {
			perror("srv6ctl");
			exit(EXIT_DAEMON_ERROR);
		}
		t->cells[t->nrows * t->ncols + c] = s;
	}
	va_end(ap);
	t->nrows++;
}

/* Print with every column as wide as its widest cell, then free. */
static void table_print(struct table *t)
{
	size_t w[TABLE_MAX_COLS];

	for (unsigned c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->head[c]);
		for (unsigned r = 0; r < t->nrows; r++) {
			size_t n = strlen(t->cells[r * t->ncols + c]);

			if (n > w[c])
				w[c] = n;
		}
	}
	for (unsigned r = 0; r <= t->nrows; r++) {
		for (unsigned c = 0; c < t->ncols; c++) {
			const char *s = r ? t->cells[(r - 1) * t->ncols + c]
					  : t->head[c];
			bool last = c + 1 == t->ncols;

			if (t->right[c])
				printf("%*s%s", (int)w[c], s, last ? "" : "  ");
			else if (last)
				printf("%s", s);
			else
				printf("%-*s  ", (int)w[c], s);
		}
		putchar('\n');
	}
	for (unsigned i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}

/* Counters as strings, for table_row(). */
#define NUMBUF 24
static const char *num(char buf[NUMBUF], uint64_t v)
{
	snprintf(buf, NUMBUF, "%" PRIu64, v);
	return buf;
}

/* ---- status --------------------------------------------------------- */

static void print_uptime(uint64_t s)
{
	if (s >= 86400)
		printf("%" PRIu64 "d", s / 86400);
	if (s >= 3600)
		printf("%" PRIu64 "h", s / 3600 % 24);
	if (s >= 60)
		printf("%" PRIu64 "m", s / 60 % 60);
	printf("%" PRIu64 "s", s % 60);
}

/* "2026-11-30 07:21:30" in local time, or "-". */
static const char *timestamp(char *buf, size_t len, int64_t when)
{
	time_t t = (time_t)when;
	struct tm tm;

	if (when <= 0 || !localtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "-");
	return buf;
}

/* A row of the status table: label, queue, rx, then o's outcomes
 * (stats.h: every packet received is in exactly one, so that they add up
 * to rx packets) and unmatched (of accepted). */
static void queue_row(struct table *t, const char *label, const char *queue,
		      const json_t *o)
{
	char rx[2][NUMBUF], out[WORKER_OUT__COUNT][NUMBUF], unm[NUMBUF];

	_Static_assert(WORKER_OUT__COUNT == 5, "a column for each outcome");
	num(rx[0], jnum(o, "rx_packets"));
	num(rx[1], jnum(o, "rx_bytes"));
	for (unsigned i = 0; i < WORKER_OUT__COUNT; i++)
		num(out[i], jnum(o, worker_outcome_name(i)));
	num(unm, jnum(o, "unmatched"));
	table_row(t, label, queue, rx[0], rx[1], out[0], out[1], out[2],
		  out[3], out[4], unm);
}

static void print_queues(const json_t *doc)
{
	const json_t *workers = json_object_get(doc, "workers");
	char w_no[NUMBUF], q_no[NUMBUF], spec[256];
	struct table t;
	size_t i, off;
	json_t *w;

	off = (size_t)snprintf(spec, sizeof(spec),
			       "worker<|queue<|rx packets>|rx bytes>");
	for (unsigned o = 0; o < WORKER_OUT__COUNT; o++)
		off += (size_t)snprintf(spec + off, sizeof(spec) - off, "|%s>",
					worker_outcome_name(o));
	snprintf(spec + off, sizeof(spec) - off, "|unmatched>");
	table_init(&t, spec);
	json_array_foreach((json_t *)workers, i, w)
		queue_row(&t, num(w_no, i), num(q_no, jnum(w, "queue")), w);
	queue_row(&t, "total", "", json_object_get(doc, "totals"));
	table_print(&t);
}

/* The route mirror's state, one or two lines. */
static void print_mirror(const json_t *m)
{
	const char *state;

	if (!json_is_object(m))
		return;
	state = json_is_true(json_object_get(m, "stale")) ? "stale" :
		json_is_true(json_object_get(m, "synced")) ? "synced" :
		"not synced";
	printf("route mirror %s: %" PRIu64 " routes, %" PRIu64 " resyncs, %"
	       PRIu64 " events applied, %" PRIu64 " enobufs, last error %s\n",
	       state, jnum(m, "routes"), jnum(m, "resyncs"), jnum(m, "events"),
	       jnum(m, "enobufs"), jstr(m, "last_error"));
}

/* "reinject auto: keep-chain payloads (kernel 7.2.0 >= 7.2 ...)". */
static void print_reinject(const json_t *r)
{
	const char *payload;

	if (!json_is_object(r))
		return;
	payload = jstr(r, "payload");
	printf("reinject %s: %s payloads (%s); %s\n", jstr(r, "mode"), payload,
	       jstr(r, "why"), !strcmp(payload, "any") ?
	       "results of the other family by srv6d's devices" :
	       !strcmp(payload, "keep-chain") ?
	       "other results by srv6d's devices" :
	       "every result by srv6d's devices");
}

/* "kernel-encap auto: super-packet encapsulations go to the kernel
 * (2 encapsulations, ...); 123 so, 4 cut". */
static void print_kencap(const json_t *k, const json_t *totals)
{
	const json_t *fb = json_object_get(totals, "kencap_fallbacks");
	const char *name;
	const json_t *v;
	uint64_t cut = 0;

	if (!json_is_object(k))
		return;
	json_object_foreach((json_t *)fb, name, v)
		cut += json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
	if (json_is_true(json_object_get(k, "held"))) {
		printf("kernel-encap %s: super-packet encapsulations are cut by "
		       "srv6d (the kernel's tunsrc changed under srv6d to %s, "
		       "not %s); %" PRIu64 " by the kernel, %" PRIu64 " cut by "
		       "srv6d\n", jstr(k, "mode"), jstr(k, "kernel_tunsrc"),
		       jstr(k, "tunsrc"), jnum(totals, "kencap"), cut);
		return;
	}
	printf("kernel-encap %s: super-packet encapsulations %s (%s); %" PRIu64
	       " by the kernel, %" PRIu64 " cut by srv6d\n", jstr(k, "mode"),
	       json_is_true(json_object_get(k, "active")) ? "go to the kernel" :
	       "are cut by srv6d", jstr(k, "why"), jnum(totals, "kencap"), cut);
}

/* "kernel-end auto: the kernel's End rewrites plain End super-packets
 * (1 End SIDs); 123 by the kernel". */
/* The mark probe (markprobe.h): "mark probe kept: srv6d's marks reach
 * routing (40 kept, 9 carried, 0 zeroed, 0 lost of 50 sent; 0
 * losses)", and what its fallback does. */
static void print_probe(const json_t *m)
{
	static const struct {
		const char *state, *what;
	} says[] = {
		{ "off", "no steering guard to judge it" },
		{ "pending", "no answer yet" },
		{ "kept", "srv6d's marks reach routing" },
		{ "carried", "a rule rewrites the mark, the priority carries "
			     "it" },
		{ "zeroed", "a rule clears mark and priority: marked results "
			    "go by the reinjection device, kernel-end's get "
			    "their mark back" },
		{ "lost", "a rule rewrites mark and priority: marked results "
			  "and encapsulations go by the reinjection device, "
			  "kernel-end held" },
		{ "unanswered", "no probe reaches the steering guard" },
	};
	const char *st, *what = "";

	if (!json_is_object(m))
		return;
	st = jstr(m, "state");
	for (size_t i = 0; i < sizeof(says) / sizeof(says[0]); i++)
		if (!strcmp(st, says[i].state))
			what = says[i].what;
	printf("mark probe %s: %s (%" PRIu64 " kept, %" PRIu64 " carried, %"
	       PRIu64 " zeroed, %" PRIu64 " lost of %" PRIu64 " sent; %"
	       PRIu64 " losses)%s\n",
	       st, what, jnum(m, "kept"), jnum(m, "carried"),
	       jnum(m, "zeroed"), jnum(m, "lost"), jnum(m, "sent"),
	       jnum(m, "losses"),
	       json_is_true(json_object_get(m, "fallback")) &&
	       strcmp(st, "lost") && strcmp(st, "zeroed") ?
	       "; still falling back" : "");
}

static void print_kend(const json_t *k, const json_t *totals,
		       const json_t *probe)
{
	if (!json_is_object(k))
		return;
	if (json_is_true(json_object_get(k, "held")) &&
	    json_is_true(json_object_get(probe, "foreign"))) {
		printf("kernel-end %s: held: the mark probe finds srv6d's "
		       "marks lost, srv6d makes the End until they survive; "
		       "%" PRIu64 " by the kernel\n", jstr(k, "mode"),
		       jnum(totals, "kend"));
		return;
	}
	if (json_is_true(json_object_get(k, "held"))) {
		printf("kernel-end %s: held: packets for its SIDs reached "
		       "routing without srv6d's mark (%" PRIu64 " caught), "
		       "srv6d makes the End until the marks survive; %" PRIu64
		       " by the kernel\n", jstr(k, "mode"), jnum(k, "caught"),
		       jnum(totals, "kend"));
		return;
	}
	printf("kernel-end %s: the kernel's End %s (%s); %" PRIu64
	       " by the kernel",
	       jstr(k, "mode"), json_is_true(json_object_get(k, "active")) ?
	       "rewrites plain End super-packets" : "is not used",
	       jstr(k, "why"), jnum(totals, "kend"));
	if (jnum(k, "restored"))
		printf(", %" PRIu64 " of them given their mark back by the "
		       "steering guard", jnum(k, "restored"));
	putchar('\n');
}

/* "header queues 4-5 (copy 2112 bytes): 120 cut short, 3 bounced with
 * mark 0x5d6f0000" ("header queue 4" for one). */
static void print_hqueue(const json_t *h, const json_t *totals)
{
	uint64_t first, last;

	if (!json_is_object(h))
		return;
	first = jnum(h, "first");
	last = jnum(h, "last");
	if (first == last)
		printf("header queue %" PRIu64, first);
	else
		printf("header queues %" PRIu64 "-%" PRIu64, first, last);
	printf(" (copy %" PRIu64 " bytes): %" PRIu64 " cut short, %" PRIu64
	       " bounced with mark 0x%" PRIx64 "\n", jnum(h, "copy"),
	       jnum(totals, "hq_truncated"), jnum(totals, "bounced"),
	       jnum(h, "bounce_mark"));
}

/* kernel-routes yes: what became of the kernel's SRv6 routes. */
static void print_kroutes(const json_t *k)
{
	if (!json_is_object(k) || !json_is_true(json_object_get(k, "enabled")))
		return;
	printf("kernel routes: %" PRIu64 " seg6 policies (%" PRIu64
	       " unsupported); %" PRIu64 " seg6local routes, %" PRIu64
	       " applied, %" PRIu64 " shadowed, %" PRIu64 " refused, %" PRIu64
	       " unsupported, %" PRIu64 " outside main (%" PRIu64
	       " rebuilds, %" PRIu64 " failed)\n", jnum(k, "policies"),
	       jnum(k, "policies_unsupported"), jnum(k, "routes"),
	       jnum(k, "applied"), jnum(k, "shadowed"), jnum(k, "refused"),
	       jnum(k, "unsupported"), jnum(k, "other_table"),
	       jnum(k, "rebuilds"), jnum(k, "rebuild_failures"));
}

/* "steering auto: installed (xt-NFQUEUE), 12 rules, 5 batches, 2
 * repairs", or "steering no: the operator's rules". */
static void print_steering(const json_t *s)
{
	const char *err;

	if (!json_is_object(s))
		return;
	if (strcmp(jstr(s, "mode"), "auto")) {
		printf("steering no: the operator's rules\n");
		return;
	}
	printf("steering auto: %s (%s), %" PRIu64 " rules, %" PRIu64
	       " batches, %" PRIu64 " repairs", jstr(s, "state"),
	       jstr(s, "backend"), jnum(s, "rules"), jnum(s, "batches"),
	       jnum(s, "repairs"));
	if (jnum(s, "sets"))
		printf(", %" PRIu64 " kernel route sets of %" PRIu64
		       " elements (%" PRIu64 " batches)", jnum(s, "sets"),
		       jnum(s, "set_elements"), jnum(s, "set_batches"));
	err = jstr(s, "error");
	printf(*err ? ": %s\n" : "\n", err);
}

/* srv6d's rules, routes and devices made again after they went away. */
static void print_repairs(const json_t *r)
{
	if (!json_is_object(r))
		return;
	printf("repairs: %" PRIu64 " rules, %" PRIu64 " routes, %" PRIu64
	       " kernel-encap routes, %" PRIu64 " kernel-end routes, %" PRIu64
	       " devices (%" PRIu64 " failed, the last in %" PRIu64 " us)\n",
	       jnum(r, "rule"), jnum(r, "route"), jnum(r, "kernel_encap_route"),
	       jnum(r, "kernel_end_route"), jnum(r, "device"),
	       jnum(r, "failures"), jnum(r, "last_us"));
}

static void print_status(const json_t *doc)
{
	char when[64];

	printf("srv6d %s, pid %" PRIu64 ", up ", jstr(doc, "version"),
	       jnum(doc, "pid"));
	print_uptime(jnum(doc, "uptime"));
	printf("\nconfig %s, loaded %s (%" PRIu64 " reloads, %" PRIu64
	       " refused)\n", jstr(doc, "config"),
	       timestamp(when, sizeof(when),
			 (int64_t)jnum(doc, "config_loaded")),
	       jnum(doc, "reloads"), jnum(doc, "reload_failures"));
	if (jnum(doc, "counters_cleared"))
		printf("counters cleared %s\n", timestamp(when, sizeof(when),
		       (int64_t)jnum(doc, "counters_cleared")));
	print_reinject(json_object_get(doc, "reinject"));
	print_steering(json_object_get(doc, "steering"));
	print_kencap(json_object_get(doc, "kernel_encap"),
		     json_object_get(doc, "totals"));
	print_probe(json_object_get(doc, "mark_probe"));
	print_kend(json_object_get(doc, "kernel_end"),
		   json_object_get(doc, "totals"),
		   json_object_get(doc, "mark_probe"));
	print_hqueue(json_object_get(doc, "header_queue"),
		     json_object_get(doc, "totals"));
	printf("%zu SIDs, %" PRIu64 " policies\n",
	       json_array_size(json_object_get(doc, "sids")),
	       (uint64_t)json_array_size(json_object_get(doc, "policies")) +
	       jnum(doc, "policies_unlisted"));
	print_mirror(json_object_get(doc, "mirror"));
	print_kroutes(json_object_get(doc, "kernel_routes"));
	print_repairs(json_object_get(doc, "repairs"));
	putchar('\n');
	print_queues(doc);
}

/* ---- sid -------------------------------------------------------------- */

/* A policy's segment lists: "a,b" for one list of weight 1, else
 * "a,b weight 3; c weight 1". */
static void lists_text(const json_t *lists, char *buf, size_t len)
{
	size_t n = json_array_size(lists), off = 0, i;
	json_t *l;

	buf[0] = '\0';
	json_array_foreach((json_t *)lists, i, l) {
		char segs[SRV6_MAX_SEGS * 48];

		if (off >= len)
			break;
		join_strings(json_object_get(l, "segs"), segs, sizeof(segs));
		if (n == 1 && jnum(l, "weight") == 1)
			off += (size_t)snprintf(buf + off, len - off, "%s", segs);
		else
			off += (size_t)snprintf(buf + off, len - off,
						"%s%s weight %" PRIu64,
						i ? "; " : "", segs,
						jnum(l, "weight"));
	}
	if (!buf[0])
		snprintf(buf, len, "-");
}

/* "nh6 fc00::2 oif eth1 table 100 ..." from a SID's attributes. */
static void sid_attrs(const json_t *s, char *buf, size_t len)
{
	static const char *const keys[] = {
		"nh6", "nh4", "oif", "table", "vrftable", "lblen", "nflen",
		"mob_plen", "encoding", "v4src_position",	/* RFC 9433 */
		"iif", "source",
	};
	const json_t *pol = json_object_get(s, "policy");
	size_t off = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		const json_t *v = json_object_get(s, keys[k]);
		char val[64];

		if (!v || off >= len)
			continue;
		if (json_is_string(v))
			snprintf(val, sizeof(val), "%s", json_string_value(v));
		else
			snprintf(val, sizeof(val), "%" PRIu64,
				 (uint64_t)json_integer_value(v));
		off += (size_t)snprintf(buf + off, len - off, "%s%s %s",
					off ? " " : "", keys[k], val);
	}
	if (json_is_array(json_object_get(s, "segs")) && off < len) {
		char segs[SRV6_MAX_SEGS * 48];

		join_strings(json_object_get(s, "segs"), segs, sizeof(segs));
		off += (size_t)snprintf(buf + off, len - off, "%ssegs %s",
					off ? " " : "", segs);
	}
	if (json_is_object(pol) && off < len) {
		char lists[SRV6_MAX_SEGS * 48 * 2];

		lists_text(json_object_get(pol, "lists"), lists, sizeof(lists));
		off += (size_t)snprintf(buf + off, len - off, "%smode %s segs %s",
					off ? " " : "", jstr(pol, "mode"),
					lists);
		if (json_object_get(pol, "hmac") && off < len)
			snprintf(buf + off, len - off, " hmac %" PRIu64,
				 jnum(pol, "hmac"));
	}
	if (!buf[0])
		snprintf(buf, len, "-");
}

/* Where a SID or policy comes from: "line N" (srv6d.conf) or "kernel
 * table T" (kernel-routes yes). */
static const char *origin_text(const json_t *o, char *buf, size_t len)
{
	if (!strcmp(jstr(o, "origin"), "kernel"))
		snprintf(buf, len, "kernel table %" PRIu64,
			 jnum(o, "kernel_table"));
	else
		snprintf(buf, len, "line %" PRIu64, jnum(o, "line"));
	return buf;
}

/* The non-zero drop reasons of o, "reason n" on one line each. */
static void print_drop_lines(const json_t *o, const char *indent)
{
	const json_t *drops = json_object_get(o, "drops");
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)drops, k, v)
		if (json_integer_value(v))
			printf("%s%-16s %" PRIu64 "\n", indent, k,
			       (uint64_t)json_integer_value(v));
}

static void print_sid_table(const json_t *sids)
{
	char b[4][NUMBUF], flv[128], attrs[2048], from[48];
	struct table t;
	size_t i;
	json_t *s;

	table_init(&t, "sid<|behavior<|flavors<|packets>|bytes>|errors>|"
		   "drops>|from<|attributes<");
	json_array_foreach((json_t *)sids, i, s) {
		join_strings(json_object_get(s, "flavors"), flv, sizeof(flv));
		sid_attrs(s, attrs, sizeof(attrs));
		table_row(&t, jstr(s, "sid"), jstr(s, "behavior"), flv,
			  num(b[0], jnum(s, "packets")),
			  num(b[1], jnum(s, "bytes")),
			  num(b[2], jnum(s, "errors")),
			  num(b[3], drops_sum(s)),
			  origin_text(s, from, sizeof(from)), attrs);
	}
	table_print(&t);
}

/* One SID in detail. */
static void print_sid_detail(const json_t *s)
{
	char flv[128], attrs[2048], from[48];

	join_strings(json_object_get(s, "flavors"), flv, sizeof(flv));
	sid_attrs(s, attrs, sizeof(attrs));
	printf("sid %s behavior %s flavors %s (%s)\n",
	       jstr(s, "sid"), jstr(s, "behavior"), flv,
	       origin_text(s, from, sizeof(from)));
	printf("    %s\n", attrs);
	printf("    packets %" PRIu64 " bytes %" PRIu64 " errors %" PRIu64
	       " drops %" PRIu64 "\n", jnum(s, "packets"), jnum(s, "bytes"),
	       jnum(s, "errors"), drops_sum(s));
	if (json_object_get(s, "oam_copies"))
		printf("    oam copies %" PRIu64 " uncopied %" PRIu64 "\n",
		       jnum(s, "oam_copies"), jnum(s, "oam_uncopied"));
	print_drop_lines(s, "    drop ");
}

static void print_sids(const json_t *doc)
{
	const json_t *sids = json_object_get(doc, "sids");

	if (!json_array_size(sids))
		printf("no SIDs\n");
	else if (json_array_size(sids) == 1)
		print_sid_detail(json_array_get(sids, 0));
	else
		print_sid_table(sids);
}

/* ---- policy ------------------------------------------------------------ */

/* The interfaces whose packets another table's policies steer. */
static void print_iif_tables(const json_t *ifs)
{
	char b[3][NUMBUF];
	struct table t;
	size_t i;
	json_t *l;

	if (!json_array_size(ifs))
		return;
	printf("\npackets from these interfaces are steered by their table's "
	       "policies (others: main's):\n");
	table_init(&t, "interface<|ifindex>|ipv4>|ipv6>");
	json_array_foreach((json_t *)ifs, i, l)
		table_row(&t, jstr(l, "interface"), num(b[0], jnum(l, "ifindex")),
			  num(b[1], jnum(l, "ipv4")), num(b[2], jnum(l, "ipv6")));
	table_print(&t);
}

static void print_policies(const json_t *doc)
{
	const json_t *pols = json_object_get(doc, "policies");
	char b[6][NUMBUF], segs[SRV6_MAX_SEGS * 48 * 2], from[48];
	struct table t;
	size_t i;
	json_t *p;

	if (!json_array_size(pols)) {
		printf("no policies\n");
		return;
	}
	table_init(&t, "prefix<|table>|mode<|packets>|bytes>|errors>|drops>|"
		   "hmac>|from<|segs<");
	json_array_foreach((json_t *)pols, i, p) {
		lists_text(json_object_get(p, "lists"), segs, sizeof(segs));
		table_row(&t, jstr(p, "prefix"), num(b[5], jnum(p, "table")),
			  jstr(p, "mode"),
			  num(b[0], jnum(p, "packets")),
			  num(b[1], jnum(p, "bytes")),
			  num(b[2], jnum(p, "errors")),
			  num(b[3], drops_sum(p)),
			  json_object_get(p, "hmac") ?
			  num(b[4], jnum(p, "hmac")) : "-",
			  origin_text(p, from, sizeof(from)), segs);
	}
	table_print(&t);
	if (json_object_get(doc, "policies_unlisted"))
		printf("and %" PRIu64 " more kernel policies, not listed (policy "
		       "show PREFIX/LEN, route get ADDR table T)\n",
		       jnum(doc, "policies_unlisted"));
	print_iif_tables(json_object_get(doc, "interfaces"));
}

/* ---- stats ------------------------------------------------------------- */

/* The counters of `stats`, by JSON name, with their column heads. */
static const char *const counter_keys[10] = {
	"rx_packets", "verdicts", "dropped", "injected", "icmp_sent",
	"enobufs", "recv_errors", "send_errors", "nl_errors", "bad_messages",
};

/* A row: label, then counter_keys[] of o. */
static void counter_row(struct table *t, const char *label, const json_t *o)
{
	char b[10][NUMBUF];

	for (size_t i = 0; i < 10; i++)
		num(b[i], jnum(o, counter_keys[i]));
	table_row(t, label, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
		  b[8], b[9]);
}

static void print_counter_table(const json_t *doc)
{
	const json_t *workers = json_object_get(doc, "workers");
	char q[NUMBUF];
	struct table t;
	size_t i;
	json_t *w;

	table_init(&t, "queue<|rx packets>|verdicts>|dropped>|injected>|icmp>|"
		   "enobufs>|recv errors>|send errors>|nl errors>|bad msgs>");
	json_array_foreach((json_t *)workers, i, w)
		counter_row(&t, num(q, jnum(w, "queue")), w);
	counter_row(&t, "total", json_object_get(doc, "totals"));
	table_print(&t);
}

/* A row of the kernel's view: the queue's label and its line k (not an
 * object: the kernel has no such queue bound). */
static void kernel_row(struct table *t, const char *label, const json_t *k)
{
	char b[5][NUMBUF];

	if (!json_is_object(k)) {
		table_row(t, label, "-", "-", "-", "-", "-");
		return;
	}
	table_row(t, label, num(b[0], jnum(k, "portid")),
		  num(b[1], jnum(k, "waiting")),
		  num(b[2], jnum(k, "queue_dropped")),
		  num(b[3], jnum(k, "user_dropped")),
		  num(b[4], jnum(k, "id_sequence")));
}

/* Each worker's queue, then its header queue ("4 (header)") if any. */
static void print_kernel_table(const json_t *doc)
{
	const json_t *workers = json_object_get(doc, "workers");
	char label[NUMBUF + 16];
	struct table t;
	size_t i;
	json_t *w;

	table_init(&t, "queue<|portid>|waiting>|queue dropped>|"
		   "user dropped>|id sequence>");
	json_array_foreach((json_t *)workers, i, w) {
		snprintf(label, sizeof(label), "%" PRIu64, jnum(w, "queue"));
		kernel_row(&t, label, json_object_get(w, "kernel"));
	}
	json_array_foreach((json_t *)workers, i, w) {
		if (!json_object_get(w, "header_queue"))
			continue;
		snprintf(label, sizeof(label), "%" PRIu64 " (header)",
			 jnum(w, "header_queue"));
		kernel_row(&t, label, json_object_get(w, "kernel_header"));
	}
	table_print(&t);
}

/* Every drop reason, per queue and in total. */
static void print_drop_table(const json_t *doc)
{
	const json_t *workers = json_object_get(doc, "workers");
	const json_t *tdrops = json_object_get(json_object_get(doc, "totals"),
					       "drops");
	size_t nw = json_array_size(workers);
	char spec[512], b[TABLE_MAX_COLS][NUMBUF];
	const char *cells[TABLE_MAX_COLS];
	size_t off, ncols;
	struct table t;
	const char *k;
	json_t *v;

	/* Per-queue columns while they fit; the total always. */
	ncols = nw + 2 <= TABLE_MAX_COLS ? nw : 0;
	off = (size_t)snprintf(spec, sizeof(spec), "drop reason<");
	for (size_t q = 0; q < ncols; q++)
		off += (size_t)snprintf(spec + off, sizeof(spec) - off,
					"|q%" PRIu64 ">",
					jnum(json_array_get(workers, q),
					     "queue"));
	snprintf(spec + off, sizeof(spec) - off, "|total>");
	table_init(&t, spec);
	json_object_foreach((json_t *)tdrops, k, v) {
		cells[0] = k;
		for (size_t q = 0; q < ncols; q++)
			cells[1 + q] = num(b[q], jnum(json_object_get(
				json_array_get(workers, q), "drops"), k));
		cells[1 + ncols] = num(b[TABLE_MAX_COLS - 1],
				       (uint64_t)json_integer_value(v));
		for (size_t c = ncols + 2; c < TABLE_MAX_COLS; c++)
			cells[c] = "";
		table_row(&t, cells[0], cells[1], cells[2], cells[3], cells[4],
			  cells[5], cells[6], cells[7], cells[8], cells[9],
			  cells[10], cells[11]);
	}
	table_print(&t);
}

static void print_stats(const json_t *doc)
{
	print_counter_table(doc);
	printf("\nkernel (%s):\n", CTL_NFQ_PROC);
	print_kernel_table(doc);
	putchar('\n');
	print_drop_table(doc);
}

/* ---- route ------------------------------------------------------------- */

static void print_routes(const json_t *doc)
{
	const json_t *tables = json_object_get(doc, "tables");
	struct table t;
	size_t i;
	json_t *e;

	print_mirror(json_object_get(doc, "mirror"));
	putchar('\n');
	table_init(&t, "table>|ipv4>|ipv6>");
	json_array_foreach((json_t *)tables, i, e) {
		char b[3][24];

		table_row(&t, num(b[0], jnum(e, "table")),
			  num(b[1], jnum(e, "ipv4")), num(b[2], jnum(e, "ipv6")));
	}
	table_print(&t);
}

/* As `ip route get`: "[TYPE ]ADDR [via GW ]dev DEV table T src S mtu M". */
/* " encap seg6 mode M segs A,B[ segs C...]": a kernel seg6 route's
 * policy as srv6d applies it, in iproute2's words. */
static void print_route_policy(const json_t *pol)
{
	const json_t *lists = json_object_get(pol, "lists"), *l, *seg;
	size_t i, j;

	printf(" encap seg6 mode %s", jstr(pol, "mode"));
	json_array_foreach((json_t *)lists, i, l) {
		printf(" segs ");
		json_array_foreach(json_object_get(l, "segs"), j, seg)
			printf("%s%s", j ? "," : "", json_string_value(seg));
	}
	if (json_object_get(pol, "hmac"))
		printf(" hmac %" PRIu64, jnum(pol, "hmac"));
}

static void print_route_get(const json_t *doc)
{
	const char *type = jstr(doc, "type");
	const json_t *pol = json_object_get(doc, "policy");

	if (strcmp(type, "unicast"))
		printf("%s ", type);
	printf("%s", jstr(doc, "dst"));
	if (pol)
		print_route_policy(pol);
	if (json_object_get(doc, "gateway"))
		printf(" via %s", jstr(doc, "gateway"));
	if (json_object_get(doc, "dev"))
		printf(" dev %s", jstr(doc, "dev"));
	printf(" table %" PRIu64, jnum(doc, "table"));
	if (json_object_get(doc, "src"))
		printf(" src %s", jstr(doc, "src"));
	printf(" metric %" PRIu64, jnum(doc, "metric"));
	if (json_object_get(doc, "mtu"))
		printf(" mtu %" PRIu64, jnum(doc, "mtu"));
	printf(" (%s)\n", jstr(doc, "prefix"));
}

/* ---- reload, version ---------------------------------------------------- */

static void print_reload(const json_t *doc)
{
	char when[64];

	printf("reloaded %s at %s: %" PRIu64 " SIDs, %" PRIu64 " policies\n",
	       jstr(doc, "config"),
	       timestamp(when, sizeof(when), (int64_t)jnum(doc, "loaded")),
	       jnum(doc, "sids"), jnum(doc, "policies"));
}

static void print_clear(const json_t *doc)
{
	char when[64];

	printf("counters cleared %s\n", timestamp(when, sizeof(when),
	       (int64_t)jnum(doc, "cleared")));
}

static void print_version(const json_t *doc)
{
	printf("srv6ctl %s\nsrv6d %s (control protocol %" PRIu64 ")\n",
	       SRV6D_VERSION, jstr(doc, "version"), jnum(doc, "protocol"));
}

/* ---- trace, capture ----------------------------------------------------- */

static int report_error(uint16_t status, const json_t *doc);

static volatile sig_atomic_t trace_interrupted;

static void trace_signal(int sig)
{
	(void)sig;
	trace_interrupted = 1;
}

/* SIGINT, SIGTERM and SIGHUP end a trace (its stop is sent). */
static void trace_signals(void)
{
	struct sigaction sa = { .sa_handler = trace_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* "03:04:05.123456" of a time in microseconds since the Epoch. */
static const char *time_us_text(char *buf, size_t len, uint64_t us)
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%H:%M:%S", &tm))
		snprintf(buf, len, "-");
	else
		snprintf(buf + strlen(buf), len - strlen(buf), ".%06u",
			 (unsigned)(us % 1000000));
	return buf;
}

/* "sid P (End)", "policy P table T", "kernel policy", or "no SID or
 * policy". */
static void trace_who(const json_t *r, char *buf, size_t len)
{
	if (json_object_get(r, "sid"))
		snprintf(buf, len, "sid %s (%s)", jstr(r, "sid"),
			 jstr(r, "behavior"));
	else if (json_object_get(r, "policy"))
		snprintf(buf, len, "policy %s table %" PRIu64, jstr(r, "policy"),
			 jnum(r, "table"));
	else if (json_is_true(json_object_get(r, "kernel_policy")))
		snprintf(buf, len, "kernel policy");
	else
		snprintf(buf, len, "no SID or policy");
}

/* "dropped hop_limit, ICMP error sent" or "forwarded", then the way and
 * the verdict. */
static void trace_what(const json_t *r, char *buf, size_t len)
{
	const char *answer = json_string_value(json_object_get(r, "answer"));
	int n = snprintf(buf, len, "%s%s%s%s (way %s%s, verdict %s",
			 jstr(r, "outcome"), json_object_get(r, "reason") ?
			 " " : "", json_object_get(r, "reason") ?
			 jstr(r, "reason") : "", !answer ? "" :
			 !strcmp(answer, "icmp") ? ", ICMP error sent" :
			 ", handed to the kernel", jstr(r, "way"),
			 json_is_true(json_object_get(r, "failed")) ?
			 " failed" : "", jstr(r, "verdict"));

	if (n > 0 && (size_t)n < len && json_object_get(r, "mark"))
		n += snprintf(buf + n, len - (size_t)n, ", mark 0x%" PRIx64,
			      jnum(r, "mark"));
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ")");
}

/* One record as a line: time, queue, addresses, length, who, what. */
static void trace_print(const json_t *r)
{
	char when[32], who[128], what[256];

	trace_who(r, who, sizeof(who));
	trace_what(r, what, sizeof(what));
	printf("%s queue %" PRIu64 " %s > %s len %" PRIu64 ": %s: %s\n",
	       time_us_text(when, sizeof(when), jnum(r, "time_us")),
	       jnum(r, "queue"), jstr(r, "src"), jstr(r, "dst"),
	       jnum(r, "len"), who, what);
}

/* Bytes of the hex string s into out (at most max); returns how many. */
static uint32_t hex_bytes(const char *s, uint8_t *out, uint32_t max)
{
	uint32_t n = 0;

	for (; s[0] && s[1] && n < max; s += 2) {
		unsigned v;

		if (sscanf(s, "%2x", &v) != 1)
			break;
		out[n++] = (uint8_t)v;
	}
	return n;
}

/* Append the record's packet to the capture f, its decision as the
 * comment.  Returns 0, or -1 when the write fails. */
static int capture_write(FILE *f, const json_t *r)
{
	uint8_t data[CAPTURE_SNAP], block[CAPTURE_SNAP + 512];
	char who[128], what[256], comment[420];
	uint32_t caplen = hex_bytes(jstr(r, "data"), data, sizeof(data));
	uint32_t origlen = (uint32_t)jnum(r, "len");
	size_t n;

	trace_who(r, who, sizeof(who));
	trace_what(r, what, sizeof(what));
	snprintf(comment, sizeof(comment), "srv6d: %s; %s; queue %" PRIu64,
		 what, who, jnum(r, "queue"));
	n = pcapng_epb(block, sizeof(block), 0, jnum(r, "time_us"), data,
		       caplen, origlen < caplen ? caplen : origlen, comment);
	return n && fwrite(block, 1, n, f) == n ? 0 : -1;
}

/* The capture file's header: the SHB and the one interface (raw IP). */
static int capture_open(FILE *f)
{
	uint8_t block[256];
	size_t n = pcapng_shb(block, sizeof(block), "srv6ctl " SRV6D_VERSION);

	if (!n || fwrite(block, 1, n, f) != n)
		return -1;
	n = pcapng_idb(block, sizeof(block), PCAPNG_LINKTYPE_RAW,
		       CAPTURE_SNAP, "srv6d");
	return n && fwrite(block, 1, n, f) == n ? 0 : -1;
}

struct trace_run {
	const char *start;	/* the start request */
	const char *file;	/* capture: the file; NULL: print */
	FILE *out;		/* capture: the open file */
	bool json;
	uint64_t got, overflow;
	bool started;		/* the daemon took the start request */
	bool done;
};

/* The records of a read reply: printed, or written to the capture. */
static int trace_records(struct trace_run *t, const json_t *doc)
{
	const json_t *recs = json_object_get(doc, "records");
	size_t i;
	json_t *r;

	json_array_foreach((json_t *)recs, i, r) {
		if (t->out && capture_write(t->out, r) < 0) {
			fprintf(stderr, "srv6ctl: %s: %s\n", t->file,
				strerror(errno));
			return -1;
		}
		if (!t->out && t->json) {
			json_dumpf(r, stdout, JSON_COMPACT);
			putchar('\n');
		} else if (!t->out) {
			trace_print(r);
		}
		t->got++;
	}
	t->overflow = jnum(doc, "overflow");
	t->done = json_is_true(json_object_get(doc, "done"));
	fflush(stdout);
	return 0;
}

/* One request of the trace on fd: its reply document, or NULL after a
 * message (*rc set). */
static json_t *trace_call(int fd, const char *sock, const char *req, int *rc)
{
	char err[512];
	uint16_t status;
	json_t *doc;

	if (ctl_call(fd, CTL_REQ_TRACE, req, (uint32_t)strlen(req),
		     CALL_TIMEOUT_MS, &status, &doc, err, sizeof(err)) < 0) {
		fprintf(stderr, "srv6ctl: %s: %s\n", sock, err);
		*rc = EXIT_DAEMON_ERROR;
		return NULL;
	}
	if (status != CTL_OK) {
		*rc = report_error(status, doc);
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* Start, read every TRACE_POLL_MS until done or a signal, stop. */
static int trace_loop(int fd, const char *sock, struct trace_run *t)
{
	struct timespec pause = { .tv_nsec = TRACE_POLL_MS * 1000000L };
	int rc = EXIT_SUCCESS;
	json_t *doc = trace_call(fd, sock, t->start, &rc);

	if (!doc)
		return rc;
	json_decref(doc);
	t->started = true;
	trace_signals();
	while (!t->done && !trace_interrupted) {
		nanosleep(&pause, NULL);
		doc = trace_call(fd, sock, "read", &rc);
		if (!doc)
			return rc;
		rc = trace_records(t, doc) < 0 ? EXIT_DAEMON_ERROR : rc;
		json_decref(doc);
		if (rc != EXIT_SUCCESS)
			break;
	}
	if (!t->done) {
		doc = trace_call(fd, sock, "stop", &rc);
		json_decref(doc);
	}
	return rc;
}

static int run_trace(const char *sock, struct trace_run *t)
{
	int fd, rc;

	if (t->file) {
		t->out = fopen(t->file, "wb");
		if (!t->out || capture_open(t->out) < 0) {
			fprintf(stderr, "srv6ctl: %s: %s\n", t->file,
				strerror(errno));
			if (t->out)
				fclose(t->out);
			return EXIT_DAEMON_ERROR;
		}
	}
	fd = ctl_connect(sock);
	if (fd < 0) {
		int e = errno;

		fprintf(stderr, "srv6ctl: cannot connect to %s: %s\n", sock,
			strerror(e));
		if (t->out) {
			fclose(t->out);
			unlink(t->file);
		}
		return e == EACCES || e == EPERM ? EXIT_PERMISSION
						 : EXIT_NO_DAEMON;
	}
	rc = trace_loop(fd, sock, t);
	close(fd);
	if (t->out) {
		if (fclose(t->out) != 0 && rc == EXIT_SUCCESS) {
			fprintf(stderr, "srv6ctl: %s: %s\n", t->file,
				strerror(errno));
			rc = EXIT_DAEMON_ERROR;
		}
		if (!t->started)	/* refused: no capture to keep */
			unlink(t->file);
		else
			fprintf(stderr, "srv6ctl: %" PRIu64 " dropped packets "
				"written to %s\n", t->got, t->file);
	}
	if (t->overflow)
		fprintf(stderr, "srv6ctl: %" PRIu64 " packets not traced: the "
			"workers' trace rings were full\n", t->overflow);
	return rc;
}

/* A count argument 1..TRACE_MAX_N into *n; false (after a message) when
 * it is not one. */
static bool trace_count(const char *cmd, const char *arg, unsigned long *n)
{
	char *end;

	errno = 0;
	*n = strtoul(arg, &end, 10);
	if (arg[0] >= '0' && arg[0] <= '9' && !*end && !errno && *n >= 1 &&
	    *n <= TRACE_MAX_N)
		return true;
	fprintf(stderr, "srv6ctl: %s: '%s' is not a count from 1 to %u\n",
		cmd, arg, TRACE_MAX_N);
	return false;
}

/* trace [N] [sid SID | policy PREFIX/LEN], capture FILE [N]: the start
 * request into req.  Returns false (after a message) on a bad line. */
static bool trace_parse(int argc, char **argv, char *req, size_t len,
			const char **file)
{
	bool capture = !strcmp(argv[0], "capture");
	unsigned long n = TRACE_DEFAULT_N;
	int i = 1;

	*file = NULL;
	if (capture) {
		if (argc < 2 || argc > 3) {
			fprintf(stderr, "srv6ctl: capture: expected FILE [N]\n");
			return false;
		}
		*file = argv[1];
		if (argc == 3 && !trace_count("capture", argv[2], &n))
			return false;
		snprintf(req, len, "start count %lu drops bytes", n);
		return true;
	}
	if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9' &&
	    !trace_count("trace", argv[i++], &n))
		return false;
	snprintf(req, len, "start count %lu", n);
	if (i + 2 == argc && (!strcmp(argv[i], "sid") ||
			      !strcmp(argv[i], "policy")) &&
	    !strchr(argv[i + 1], ' ') && strlen(argv[i + 1]) < 100) {
		snprintf(req + strlen(req), len - strlen(req), " %s %s",
			 argv[i], argv[i + 1]);
		return true;
	}
	if (i == argc)
		return true;
	fprintf(stderr, "srv6ctl: trace: expected [N] [sid SID | policy "
		"PREFIX/LEN]\n");
	return false;
}

/* ---- main ----------------------------------------------------------- */

static const struct command {
	const char *name;
	const char *sub;	/* optional subcommand ("show"), or NULL */
	bool arg;		/* takes an argument after sub */
	uint16_t type;
	void (*print)(const json_t *doc);
} commands[] = {
	{ "status", NULL, false, CTL_REQ_STATUS, print_status },
	{ "sid", "show", true, CTL_REQ_SIDS, print_sids },
	{ "policy", "show", true, CTL_REQ_POLICIES, print_policies },
	{ "stats", NULL, false, CTL_REQ_STATS, print_stats },
	{ "reload", NULL, false, CTL_REQ_RELOAD, print_reload },
	{ "clear", NULL, false, CTL_REQ_CLEAR, print_clear },
	/* trace and capture: trace_parse() and run_trace() */
	{ "trace", NULL, true, CTL_REQ_TRACE, NULL },
	{ "capture", NULL, true, CTL_REQ_TRACE, NULL },
	{ "version", NULL, false, CTL_REQ_VERSION, print_version },
	{ "route", "table", true, CTL_REQ_ROUTES, print_routes },
#define ROUTE_GET_CMD	10	/* not found by name: route_get_parse() */
	{ "route", "get", true, CTL_REQ_ROUTE_GET, print_route_get },
};

/* route get ADDR [table N]: the request text "ADDR" or "ADDR N".
 * Returns the command, or NULL (after a message). */
static const struct command *route_get_parse(int argc, char **argv,
					     const char **arg)
{
	static char text[128];

	if (argc == 3) {
		*arg = argv[2];
		return &commands[ROUTE_GET_CMD];
	}
	if (argc == 5 && !strcmp(argv[3], "table")) {
		snprintf(text, sizeof(text), "%s %s", argv[2], argv[4]);
		*arg = text;
		return &commands[ROUTE_GET_CMD];
	}
	fprintf(stderr, "srv6ctl: route get: expected ADDR [table N]\n");
	return NULL;
}

/* An error reply: the message, and each entry of "errors" on its own
 * line (a reload's file:line: messages).  Returns the exit status. */
static int report_error(uint16_t status, const json_t *doc)
{
	const json_t *errs = json_object_get(doc, "errors");
	size_t i;
	json_t *e;

	json_array_foreach((json_t *)errs, i, e)
		if (json_is_string(e))
			fprintf(stderr, "%s\n", json_string_value(e));
	fprintf(stderr, "srv6ctl: srv6d: %s: %s\n", ctl_status_name(status),
		jstr(doc, "error"));
	switch (status) {
	case CTL_ERR_PERMISSION:
		return EXIT_PERMISSION;
	case CTL_ERR_BUSY:
		return EXIT_BUSY;
	default:
		return EXIT_DAEMON_ERROR;
	}
}

static int run(const char *sock, const struct command *cmd, const char *arg,
	       bool json)
{
	char err[512];
	uint16_t status;
	json_t *doc;
	int fd, rc;

	fd = ctl_connect(sock);
	if (fd < 0) {
		int e = errno;

		fprintf(stderr, "srv6ctl: cannot connect to %s: %s%s\n", sock,
			strerror(e), e == EACCES ? " (root and the control "
			"group only)" : " (is srv6d running?)");
		return e == EACCES || e == EPERM ? EXIT_PERMISSION
						 : EXIT_NO_DAEMON;
	}
	if (ctl_call(fd, cmd->type, arg, arg ? (uint32_t)strlen(arg) : 0,
		     CALL_TIMEOUT_MS, &status, &doc, err, sizeof(err)) < 0) {
		fprintf(stderr, "srv6ctl: %s: %s\n", sock, err);
		close(fd);
		return EXIT_DAEMON_ERROR;
	}
	close(fd);
	if (json) {
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
	}
	if (status != CTL_OK) {
		rc = report_error(status, doc);
		json_decref(doc);
		return rc;
	}
	if (!json)
		cmd->print(doc);
	json_decref(doc);
	return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_DAEMON_ERROR;
}

/* argv: the command and its words.  Finds the command and its argument;
 * returns NULL (after a message) on a bad command line. */
static const struct command *command_parse(int argc, char **argv,
					   const char **arg)
{
	const struct command *cmd = NULL;

	*arg = NULL;
	if (!strcmp(argv[0], "route") && argc > 1 && !strcmp(argv[1], "get"))
		return route_get_parse(argc, argv, arg);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!cmd && !strcmp(argv[0], commands[i].name))
			cmd = &commands[i];
	if (!cmd) {
		fprintf(stderr, "srv6ctl: unknown command '%s'\n", argv[0]);
		return NULL;
	}
	if (argc == 1)
		return cmd;
	if (!cmd->sub || strcmp(argv[1], cmd->sub)) {
		fprintf(stderr, "srv6ctl: %s: unexpected '%s'\n", cmd->name,
			argv[1]);
		return NULL;
	}
	if (argc == 2)
		return cmd;
	if (argc == 3 && cmd->arg) {
		*arg = argv[2];
		return cmd;
	}
	fprintf(stderr, "srv6ctl: %s %s: too many arguments\n", cmd->name,
		cmd->sub);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *sock = CTL_DEFAULT_PATH;
	const struct command *cmd;
	const char *arg;
	bool json = false;
	int c;

	while ((c = getopt(argc, argv, "s:jVh")) != -1) {
		switch (c) {
		case 's':
			sock = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'V':
			printf("srv6ctl %s\n", SRV6D_VERSION);
			return EXIT_SUCCESS;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "trace") || !strcmp(argv[optind], "capture")) {
		struct trace_run t = { .json = json };
		char req[256];

		if (!trace_parse(argc - optind, argv + optind, req, sizeof(req),
				 &t.file)) {
			usage(stderr);
			return EXIT_USAGE;
		}
		t.start = req;
		return run_trace(sock, &t);
	}
	cmd = command_parse(argc - optind, argv + optind, &arg);
	if (!cmd) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return run(sock, cmd, arg, json);
}
