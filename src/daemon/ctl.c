/* ctl.c - the control socket: framed, versioned requests, JSON replies
 * (protocol in ctl.h), the STATUS document, and the client side srv6ctl
 * uses. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* accept4, struct ucred */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "egress.h"
#include "log.h"

/* ---- framing ---------------------------------------------------------- */

void ctl_hdr_init(struct ctl_hdr *h, uint16_t code, uint32_t length)
{
	h->magic = CTL_MAGIC;
	h->version = CTL_PROTO_VERSION;
	h->code = code;
	h->length = length;
}

int ctl_hdr_check(const struct ctl_hdr *h, uint32_t maxlen, const char **why)
{
	if (h->magic != CTL_MAGIC) {
		*why = "bad magic";
		return CTL_ERR_PROTOCOL;
	}
	if (h->version != CTL_PROTO_VERSION) {
		*why = "unsupported protocol version";
		return CTL_ERR_PROTOCOL;
	}
	if (h->length > maxlen) {
		*why = "message too long";
		return CTL_ERR_PROTOCOL;
	}
	*why = NULL;
	return CTL_OK;
}

bool ctl_type_known(uint16_t type, bool *write_req)
{
	*write_req = false;
	switch (type) {
	case CTL_REQ_STATUS:
	case CTL_REQ_VERSION:
	case CTL_REQ_SIDS:
	case CTL_REQ_POLICIES:
	case CTL_REQ_STATS:
	case CTL_REQ_ROUTES:
	case CTL_REQ_ROUTE_GET:
		return true;
	case CTL_REQ_RELOAD:
		*write_req = true;
		return true;
	default:
		return false;
	}
}

const char *ctl_status_name(uint16_t status)
{
	switch (status) {
	case CTL_OK:
		return "ok";
	case CTL_ERR_PROTOCOL:
		return "protocol error";
	case CTL_ERR_UNKNOWN:
		return "unknown request";
	case CTL_ERR_PERMISSION:
		return "permission denied";
	case CTL_ERR_FAILED:
		return "request failed";
	case CTL_ERR_NOT_FOUND:
		return "not found";
	case CTL_ERR_INVALID:
		return "invalid request";
	default:
		return "unknown status";
	}
}

/* ---- STATUS document ---------------------------------------------------- */

/* Set o[k] = v (v may be NULL after a failed allocation); clears *ok on
 * any failure. */
static void jset(json_t *o, const char *k, json_t *v, bool *ok)
{
	if (!v || json_object_set_new(o, k, v) < 0)
		*ok = false;
}

static void jappend(json_t *a, json_t *v, bool *ok)
{
	if (!v || json_array_append_new(a, v) < 0)
		*ok = false;
}

static json_t *jcount(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* {"reason": n, ...}: every reason, or only the non-zero ones. */
static json_t *drops_json(const uint64_t drops[DROP__COUNT], bool nonzero_only)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	for (unsigned r = 0; ok && r < DROP__COUNT; r++)
		if (!nonzero_only || drops[r])
			jset(o, drop_reason_name(r), jcount(drops[r]), &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

#define WORKER_STATS_FIELDS(X)						\
	X(rx_packets) X(rx_bytes) X(rx_batches) X(verdicts)		\
	X(verdict_batches) X(accepted) X(forwarded) X(dropped)		\
	X(unmatched) X(tun_injected) X(icmp_sent) X(icmp_ratelimited)	\
	X(icmp_send_errors) X(enobufs) X(recv_errors) X(send_errors)	\
	X(nl_errors) X(bad_messages)

/* Add the worker_stats fields to o. */
static void worker_stats_fill(json_t *o, const struct worker_stats *ws,
			      bool *ok)
{
#define X(f) jset(o, #f, jcount(ws->f), ok);
	WORKER_STATS_FIELDS(X)
#undef X
	jset(o, "drops", drops_json(ws->drops, false), ok);
}

json_t *ctl_worker_stats_json(const struct worker_stats *ws)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	if (ok)
		worker_stats_fill(o, ws, &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* packets, bytes, errors, drops (non-zero reasons) into o. */
static void sid_stats_fill(json_t *o, const struct sid_stats *st, bool *ok)
{
	static const struct sid_stats zero;

	if (!st)
		st = &zero;
	jset(o, "packets", jcount(st->packets), ok);
	jset(o, "bytes", jcount(st->bytes), ok);
	jset(o, "errors", jcount(st->errors), ok);
	jset(o, "drops", drops_json(st->drops, true), ok);
}

static json_t *prefix_json(int family, const void *addr, unsigned plen)
{
	char a[INET6_ADDRSTRLEN], buf[INET6_ADDRSTRLEN + 8];

	if (!inet_ntop(family, addr, a, sizeof(a)))
		return NULL;
	snprintf(buf, sizeof(buf), "%s/%u", a, plen);
	return json_string(buf);
}

static json_t *addr6_json(const struct in6_addr *addr)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, addr, a, sizeof(a));
	return json_string(a);
}

static json_t *flavors_json(unsigned flavors)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{ FLV_PSP, "psp" },
		{ FLV_USP, "usp" },
		{ FLV_USD, "usd" },
		{ FLV_NEXT_CSID, "next-csid" },
	};
	json_t *a = json_array();
	bool ok = a != NULL;

	for (size_t i = 0; ok && i < sizeof(names) / sizeof(names[0]); i++)
		if (flavors & names[i].bit)
			jappend(a, json_string(names[i].name), &ok);
	if (!ok) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static json_t *addr4_json(const struct in_addr *addr)
{
	char a[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, addr, a, sizeof(a));
	return json_string(a);
}

static json_t *segs_json(const struct seglist *sl)
{
	json_t *a = json_array();
	bool ok = a != NULL;

	for (unsigned i = 0; ok && i < sl->nsegs; i++)
		jappend(a, addr6_json(&sl->segs[i]), &ok);
	if (!ok) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* [{"weight": w, "segs": [...]}, ...]: a policy's segment lists. */
static json_t *lists_json(const struct policy *p)
{
	json_t *a = json_array();
	bool ok = a != NULL;

	for (unsigned i = 0; ok && i < p->nlists && i < POLICY_MAX_LISTS; i++) {
		json_t *l = json_object();

		if (!l) {
			ok = false;
			break;
		}
		jset(l, "weight", jcount(p->weights[i]), &ok);
		jset(l, "segs", segs_json(&p->lists[i]), &ok);
		jappend(a, l, &ok);
	}
	if (!ok) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* mode, lists, hmac (when set): what a steering policy and a binding
 * SID's policy have in common. */
static void policy_body_fill(json_t *o, const struct policy *p, bool *ok)
{
	jset(o, "mode", json_string(encap_mode_name(p->mode)), ok);
	jset(o, "lists", lists_json(p), ok);
	if (p->hmac_keyid)
		jset(o, "hmac", jcount(p->hmac_keyid), ok);
}

/* A binding SID's policy, or NULL on allocation failure. */
static json_t *bsid_policy_json(const struct policy *p)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	if (ok)
		policy_body_fill(o, p, &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A SID's attributes that are set: nh6, nh4, oif, table (or vrftable),
 * lblen/nflen (with next-csid), a binding SID's policy, mark,
 * route_table; then its config line. */
static void sid_attrs_fill(json_t *o, const struct sid *s, bool *ok)
{
	if (!IN6_IS_ADDR_UNSPECIFIED(&s->nh6))
		jset(o, "nh6", addr6_json(&s->nh6), ok);
	if (s->nh4.s_addr)
		jset(o, "nh4", addr4_json(&s->nh4), ok);
	if (s->oif[0])
		jset(o, "oif", json_string(s->oif), ok);
	if (s->table)
		jset(o, s->vrf ? "vrftable" : "table", jcount(s->table), ok);
	if (s->flavors & FLV_NEXT_CSID) {
		jset(o, "lblen", jcount(s->lblen), ok);
		jset(o, "nflen", jcount(s->nflen), ok);
	}
	if (s->policy)
		jset(o, "policy", bsid_policy_json(s->policy), ok);
	if (s->mark)
		jset(o, "mark", jcount(s->mark), ok);
	if (s->route_table)
		jset(o, "route_table", jcount(s->route_table), ok);
	jset(o, "line", jcount(s->line), ok);
}

static json_t *sid_json(const struct sid *s, const struct sid_stats *st)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	if (ok) {
		jset(o, "sid", prefix_json(AF_INET6, &s->prefix, s->plen), &ok);
		jset(o, "behavior", json_string(behavior_name(s->behavior)),
		     &ok);
		jset(o, "flavors", flavors_json(s->flavors), &ok);
		sid_attrs_fill(o, s, &ok);
		sid_stats_fill(o, st, &ok);
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *policy_json(const struct policy *p, const struct sid_stats *st)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	if (ok) {
		jset(o, "prefix", prefix_json(p->family, &p->prefix, p->plen),
		     &ok);
		policy_body_fill(o, p, &ok);
		jset(o, "line", jcount(p->line), &ok);
		sid_stats_fill(o, st, &ok);
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The kernel's line for queue, or NULL. */
static const struct ctl_nfq_queue *kernel_queue(const struct ctl_status_src *src,
						unsigned queue)
{
	for (unsigned i = 0; src->kq && i < src->nkq; i++)
		if (src->kq[i].queue == queue)
			return &src->kq[i];
	return NULL;
}

static json_t *nfq_queue_json(const struct ctl_nfq_queue *q)
{
	json_t *o;

	if (!q)
		return json_null();
	o = json_object();
	if (o) {
		bool ok = true;

		jset(o, "portid", jcount(q->portid), &ok);
		jset(o, "waiting", jcount(q->waiting), &ok);
		jset(o, "copy_mode", jcount(q->copy_mode), &ok);
		jset(o, "copy_range", jcount(q->copy_range), &ok);
		jset(o, "queue_dropped", jcount(q->queue_dropped), &ok);
		jset(o, "user_dropped", jcount(q->user_dropped), &ok);
		jset(o, "id_sequence", jcount(q->id_sequence), &ok);
		if (!ok) {
			json_decref(o);
			o = NULL;
		}
	}
	return o;
}

/* One object per worker: queue, its counters; with_kernel: "kernel". */
static json_t *workers_json(const struct ctl_status_src *src, bool with_kernel)
{
	json_t *a = json_array();
	bool ok = a != NULL;

	for (unsigned i = 0; ok && i < src->nworkers; i++) {
		json_t *w = json_object();

		if (!w) {
			ok = false;
			break;
		}
		jset(w, "queue", json_integer(src->queues[i]), &ok);
		worker_stats_fill(w, &src->workers[i], &ok);
		if (with_kernel)
			jset(w, "kernel", nfq_queue_json(kernel_queue(src,
						src->queues[i])), &ok);
		jappend(a, w, &ok);
	}
	if (!ok) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static json_t *sids_json(const struct ctl_status_src *src)
{
	const struct config *cfg = src->cfg;
	json_t *a = json_array();
	bool ok = a != NULL;

	for (unsigned i = 0; ok && cfg && i < cfg->nsids; i++)
		jappend(a, sid_json(&cfg->sids[i],
				    src->sids ? &src->sids[i] : NULL), &ok);
	if (!ok) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static json_t *policies_json(const struct ctl_status_src *src)
{
	const struct config *cfg = src->cfg;
	json_t *a = json_array();
	bool ok = a != NULL;

	for (unsigned i = 0; ok && cfg && i < cfg->npolicies; i++)
		jappend(a, policy_json(&cfg->policies[i],
				       src->pols ? &src->pols[i] : NULL), &ok);
	if (!ok) {
		json_decref(a);
		return NULL;
	}
	return a;
}

json_t *ctl_status_json(const struct ctl_status_src *src)
{
	static const struct worker_stats zero;
	json_t *o = json_object();
	bool ok = o != NULL;

	if (!ok)
		return NULL;
	jset(o, "version", json_string(SRV6D_VERSION), &ok);
	jset(o, "pid", json_integer(src->pid), &ok);
	jset(o, "uptime", jcount(src->uptime), &ok);
	jset(o, "config", json_string(src->config_path ? src->config_path : ""),
	     &ok);
	jset(o, "config_loaded", json_integer(src->config_loaded), &ok);
	jset(o, "reloads", jcount(src->reloads), &ok);
	jset(o, "reload_failures", jcount(src->reload_failures), &ok);
	jset(o, "workers", workers_json(src, false), &ok);
	jset(o, "totals", ctl_worker_stats_json(src->totals ? src->totals
							      : &zero), &ok);
	jset(o, "sids", sids_json(src), &ok);
	jset(o, "policies", policies_json(src), &ok);
	jset(o, "mirror", src->mirror ? ctl_mirror_json(src->mirror)
				      : json_null(), &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- route mirror documents ------------------------------------------------- */

json_t *ctl_mirror_json(const struct rtmirror *m)
{
	const struct fib_db *db = rtmirror_fib(m);
	struct rtmirror_stats st;
	json_t *o = json_object();
	bool ok = o != NULL;

	if (!ok)
		return NULL;
	rtmirror_get_stats(m, &st);
	jset(o, "synced", json_boolean(st.synced), &ok);
	jset(o, "stale", json_boolean(st.stale), &ok);
	jset(o, "resyncs", jcount(st.resyncs), &ok);
	jset(o, "events", jcount(st.events), &ok);
	jset(o, "enobufs", jcount(st.enobufs), &ok);
	jset(o, "dump_restarts", jcount(st.dump_restarts), &ok);
	jset(o, "purged", jcount(st.purged), &ok);
	jset(o, "swept", jcount(st.swept), &ok);
	jset(o, "ignored", jcount(st.ignored), &ok);
	jset(o, "errors", jcount(st.errors), &ok);
	jset(o, "last_sync_ms", jcount(st.last_sync_ns / 1000000), &ok);
	jset(o, "last_error", st.last_error ? json_string(strerror(st.last_error))
					    : json_null(), &ok);
	jset(o, "routes", jcount(fib_count(db, 0, AF_INET) +
				 fib_count(db, 0, AF_INET6)), &ok);
	jset(o, "memory", jcount(fib_memory(db)), &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *route_table_json(const struct fib_db *db, uint32_t id)
{
	return json_pack("{s:I,s:I,s:I}", "table", (json_int_t)id,
			 "ipv4", (json_int_t)fib_count(db, id, AF_INET),
			 "ipv6", (json_int_t)fib_count(db, id, AF_INET6));
}

json_t *ctl_routes_json(const struct rtmirror *m, uint32_t table,
			uint16_t *status)
{
	const struct fib_db *db = rtmirror_fib(m);
	uint32_t ids[1024];
	size_t n = fib_table_ids(db, ids, sizeof(ids) / sizeof(ids[0]));
	json_t *o = json_object(), *a = json_array();
	bool ok = o && a, found = false;

	*status = CTL_OK;
	if (n > sizeof(ids) / sizeof(ids[0]))
		n = sizeof(ids) / sizeof(ids[0]);
	for (size_t i = 0; ok && i < n; i++) {
		if (table && ids[i] != table)
			continue;
		found = true;
		jappend(a, route_table_json(db, ids[i]), &ok);
	}
	jset(o, "mirror", ctl_mirror_json(m), &ok);
	if (o && a && json_object_set_new(o, "tables", a) < 0)
		ok = false;
	else
		a = NULL;
	if (!ok) {
		json_decref(a);
		json_decref(o);
		return NULL;
	}
	if (table && !found) {
		char msg[64];

		json_decref(o);
		*status = CTL_ERR_NOT_FOUND;
		snprintf(msg, sizeof(msg), "no table %u in the mirror", table);
		return json_pack("{s:s}", "error", msg);
	}
	return o;
}

static const char *route_type_name(uint8_t type)
{
	static const char *const names[] = {
		[RTN_UNSPEC] = "none", [RTN_UNICAST] = "unicast",
		[RTN_LOCAL] = "local", [RTN_BROADCAST] = "broadcast",
		[RTN_ANYCAST] = "anycast", [RTN_MULTICAST] = "multicast",
		[RTN_BLACKHOLE] = "blackhole",
		[RTN_UNREACHABLE] = "unreachable",
		[RTN_PROHIBIT] = "prohibit", [RTN_THROW] = "throw",
		[RTN_NAT] = "nat",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

static json_t *addr_json(int family, const void *a)
{
	char buf[INET6_ADDRSTRLEN];

	if (!inet_ntop(family, a, buf, sizeof(buf)))
		return NULL;
	return json_string(buf);
}

/* The IPv4 source the kernel would pick on link l for gw/dst: an address
 * whose prefix covers gw (or dst), else the first one.  Returns 0 or -1. */
static int source_select4(const struct rtmirror_link *l, const void *gw,
			  struct in_addr *src)
{
	const struct rtmirror_addr *first = NULL;
	uint32_t g;

	memcpy(&g, gw, 4);
	g = ntohl(g);
	for (unsigned i = 0; l && i < l->naddr; i++) {
		const struct rtmirror_addr *a = &l->addr[i];
		uint32_t v, mask;

		if (a->family != AF_INET)
			continue;
		if (!first)
			first = a;
		v = ntohl(a->addr.v4.s_addr);
		mask = a->plen ? 0xffffffffu << (32 - a->plen) : 0;
		if ((v & mask) == (g & mask)) {
			*src = a->addr.v4;
			return 0;
		}
	}
	if (!first)
		return -1;
	*src = first->addr.v4;
	return 0;
}

/* o["src"]: the route's preferred source, else what the kernel picks. */
static void route_src_json(const struct rtmirror *m, json_t *o,
			   const struct fib_route *r,
			   const struct fib_nexthop *nh, const void *dst,
			   bool *ok)
{
	const struct rtmirror_link *l = nh && nh->oif ?
		rtmirror_link_get(m, nh->oif) : NULL;
	const void *gw = nh && nh->gw_family == r->family ? nh->gw.b : dst;
	struct in6_addr s6;
	struct in_addr s4;

	if (r->fi->prefsrc_set)
		jset(o, "src", addr_json(r->family, r->fi->prefsrc.b), ok);
	else if (r->family == AF_INET6 &&
		 egress_source_select(m, nh ? nh->oif : 0, dst, &s6) == 0)
		jset(o, "src", addr_json(AF_INET6, &s6), ok);
	else if (r->family == AF_INET && source_select4(l, gw, &s4) == 0)
		jset(o, "src", addr_json(AF_INET, &s4), ok);
}

static json_t *nexthop_json(const struct rtmirror *m,
			    const struct fib_nexthop *nh)
{
	const struct rtmirror_link *l = nh->oif ? rtmirror_link_get(m, nh->oif)
						: NULL;
	json_t *o = json_object();
	bool ok = o != NULL;

	if (!ok)
		return NULL;
	if (nh->gw_family != AF_UNSPEC)
		jset(o, "gateway", addr_json(nh->gw_family, nh->gw.b), &ok);
	if (l)
		jset(o, "dev", json_string(l->name), &ok);
	jset(o, "oif", jcount(nh->oif), &ok);
	jset(o, "weight", jcount(nh->weight), &ok);
	if (nh->flags & RTNH_F_DEAD)
		jset(o, "dead", json_true(), &ok);
	if (nh->flags & RTNH_F_LINKDOWN)
		jset(o, "linkdown", json_true(), &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Parse "ADDR [TABLE]".  Returns 0, or -1. */
static int route_get_parse(const char *req, int *family, union fib_addr *a,
			   uint32_t *table)
{
	char addr[INET6_ADDRSTRLEN + 1], extra;
	unsigned long t = 0;
	int n;

	if (!req)
		return -1;
	n = sscanf(req, "%46s %lu %c", addr, &t, &extra);
	if (n < 1 || n > 2 || t > UINT32_MAX)
		return -1;
	*table = (uint32_t)t;
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET6, addr, &a->v6) == 1)
		*family = AF_INET6;
	else if (inet_pton(AF_INET, addr, &a->v4) == 1)
		*family = AF_INET;
	else
		return -1;
	return 0;
}

static json_t *route_json(const struct rtmirror *m, const struct fib_route *r,
			  int family, const union fib_addr *dst)
{
	const struct fib_nexthop *nh = fib_route_nexthop(r, 0);
	const struct rtmirror_link *l = nh && nh->oif ?
		rtmirror_link_get(m, nh->oif) : NULL;
	json_t *o = json_object(), *a;
	char prefix[INET6_ADDRSTRLEN + 4];
	bool ok = o != NULL;

	if (!ok)
		return NULL;
	if (!nh && r->fi->nnh)
		nh = &r->fi->nh[0];
	inet_ntop(family, r->dst.b, prefix, INET6_ADDRSTRLEN);
	snprintf(prefix + strlen(prefix), 5, "/%u", r->plen);
	jset(o, "dst", addr_json(family, dst->b), &ok);
	jset(o, "type", json_string(route_type_name(r->type)), &ok);
	jset(o, "prefix", json_string(prefix), &ok);
	jset(o, "table", jcount(r->table), &ok);
	jset(o, "metric", jcount(r->fi->priority), &ok);
	jset(o, "protocol", jcount(r->fi->protocol), &ok);
	if (nh && nh->gw_family != AF_UNSPEC)
		jset(o, "gateway", addr_json(nh->gw_family, nh->gw.b), &ok);
	if (l)
		jset(o, "dev", json_string(l->name), &ok);
	if (nh)
		jset(o, "oif", jcount(nh->oif), &ok);
	if (r->fi->mtu || l)
		jset(o, "mtu", jcount(r->fi->mtu ? r->fi->mtu : l->mtu), &ok);
	if (r->type == RTN_UNICAST || r->type == RTN_LOCAL)
		route_src_json(m, o, r, nh, dst->b, &ok);
	if (r->fi->nnh > 1) {
		a = json_array();
		for (unsigned i = 0; a && ok && i < r->fi->nnh; i++)
			jappend(a, nexthop_json(m, &r->fi->nh[i]), &ok);
		jset(o, "nexthops", a, &ok);
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *ctl_route_get_json(const struct rtmirror *m, const char *req,
			   uint16_t *status)
{
	const struct fib_db *db = rtmirror_fib(m);
	const struct fib_route *r;
	union fib_addr a;
	uint32_t table;
	int family;

	*status = CTL_OK;
	if (route_get_parse(req, &family, &a, &table) < 0) {
		*status = CTL_ERR_INVALID;
		return json_pack("{s:s}", "error",
				 "expected an IPv4 or IPv6 address and an "
				 "optional table number");
	}
	if (family == AF_INET6)
		r = fib_route_get6(db, table, &a.v6);
	else
		r = fib_route_get4(db, table, a.v4);
	if (!r) {
		*status = CTL_ERR_NOT_FOUND;
		return json_pack("{s:s}", "error", table && !fib_table_get(db, table)
				 ? "no such table in the mirror"
				 : "no route to that address");
	}
	return route_json(m, r, family, &a);
}

/* {key: v}, or NULL (v released) on failure. */
static json_t *wrap(const char *key, json_t *v)
{
	json_t *o;

	if (!v)
		return NULL;
	o = json_object();
	if (!o || json_object_set_new(o, key, v) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Index of the SID `want` names, -1 if none; -2 if want is no address. */
static int sid_find(const struct config *cfg, const char *want)
{
	char addr[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(want, '/');
	struct in6_addr a;
	unsigned plen = 128;
	int best = -1;

	if (strlen(want) >= sizeof(addr) + 4)
		return -2;
	snprintf(addr, sizeof(addr), "%.*s",
		 slash ? (int)(slash - want) : (int)strlen(want), want);
	if (inet_pton(AF_INET6, addr, &a) != 1)
		return -2;
	if (slash) {
		char *end;
		unsigned long n = strtoul(slash + 1, &end, 10);

		if (!slash[1] || *end || n > 128)
			return -2;
		plen = (unsigned)n;
	}
	for (unsigned i = 0; cfg && i < cfg->nsids; i++) {
		const struct sid *s = &cfg->sids[i];
		bool in = true;

		for (unsigned b = 0; b < s->plen && in; b++)
			in = ((a.s6_addr[b / 8] ^ s->prefix.s6_addr[b / 8]) &
			      (0x80 >> (b % 8))) == 0;
		if (!in)
			continue;
		if (slash && s->plen == plen)
			return (int)i;
		if (!slash && (best < 0 || s->plen > cfg->sids[best].plen))
			best = (int)i;
	}
	return slash ? -1 : best;
}

json_t *ctl_sids_json(const struct ctl_status_src *src, const char *want,
		      uint16_t *status)
{
	const struct config *cfg = src->cfg;
	json_t *a;
	bool ok = true;
	int i;

	*status = CTL_OK;
	if (!want || !*want)
		return wrap("sids", sids_json(src));
	i = sid_find(cfg, want);
	if (i == -2) {
		*status = CTL_ERR_INVALID;
		return json_pack("{s:s}", "error", "not a SID or an IPv6 address");
	}
	if (i < 0) {
		*status = CTL_ERR_NOT_FOUND;
		return json_pack("{s:s}", "error", "no such SID");
	}
	a = json_array();
	if (a)
		jappend(a, sid_json(&cfg->sids[i],
				    src->sids ? &src->sids[i] : NULL), &ok);
	if (!ok) {
		json_decref(a);
		return NULL;
	}
	return wrap("sids", a);
}

json_t *ctl_policies_json(const struct ctl_status_src *src)
{
	return wrap("policies", policies_json(src));
}

json_t *ctl_stats_json(const struct ctl_status_src *src)
{
	static const struct worker_stats zero;
	json_t *o = json_object();
	bool ok = o != NULL;

	if (!ok)
		return NULL;
	jset(o, "totals", ctl_worker_stats_json(src->totals ? src->totals
							      : &zero), &ok);
	jset(o, "workers", workers_json(src, true), &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- the kernel's view of the queues ------------------------------------ */

int ctl_nfq_parse_line(const char *line, struct ctl_nfq_queue *q)
{
	unsigned long long qd, ud;
	unsigned queue, portid, waiting, mode, range, seq;
	int one, end = 0;

	if (sscanf(line, "%u %u %u %u %u %llu %llu %u %d %n", &queue, &portid,
		   &waiting, &mode, &range, &qd, &ud, &seq, &one, &end) != 9 ||
	    line[end] != '\0')
		return -1;
	*q = (struct ctl_nfq_queue){
		.queue = queue, .portid = portid, .waiting = waiting,
		.copy_mode = mode, .copy_range = range, .queue_dropped = qd,
		.user_dropped = ud, .id_sequence = seq,
	};
	return 0;
}

int ctl_nfq_read(const char *path, struct ctl_nfq_queue *q, unsigned max)
{
	FILE *f = fopen(path, "re");
	char line[256];
	unsigned n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f))
		if (ctl_nfq_parse_line(line, &q[n]) == 0)
			n++;
	fclose(f);
	return (int)n;
}

/* ---- server ----------------------------------------------------------- */

struct ctl_client {
	int fd;			/* -1: free slot */
	uid_t uid;
	pid_t pid;
	bool may_read, may_write;	/* ctl_peer_allowed() at accept */
	time_t last;		/* monotonic seconds of the last progress */
	struct ctl_hdr hdr;
	size_t hdr_got;
	uint8_t *payload;
	size_t payload_got;
	char *out;		/* reply being written */
	size_t out_len, out_off;
	bool close_after;	/* after the reply: protocol error */
};

struct ctl_server {
	int fd;
	char *path;
	gid_t gid;		/* the socket's group: who may read */
	ctl_handler_fn fn;
	void *arg;
	struct ctl_client clients[CTL_MAX_CLIENTS];
	int polled[1 + CTL_MAX_CLIENTS];	/* client slot per pollfd, -1 listen */
	unsigned npolled;
};

static time_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static int sockaddr_fill(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun->sun_path, path);
	return 0;
}

int ctl_connect(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	if (sockaddr_fill(&sun, path) < 0)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int ctl_probe(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen, "%s: exists and is not a socket", path);
		return -1;
	}
	fd = ctl_connect(path);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (errno != ECONNREFUSED) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* Nobody listens: a crashed instance's socket. */
	if (unlink(path) < 0 && errno != ENOENT) {
		snprintf(err, errlen, "cannot remove stale %s: %s", path,
			 strerror(errno));
		return -1;
	}
	log_msg(LOG_INFO, "removed stale control socket %s", path);
	return 0;
}

bool ctl_peer_allowed(uid_t uid, gid_t gid, const gid_t *groups,
		      unsigned ngroups, gid_t group, bool write)
{
	if (uid == 0)
		return true;
	if (write)
		return false;
	if (group == (gid_t)-1)
		group = 0;
	if (gid == group)
		return true;
	for (unsigned i = 0; i < ngroups; i++)
		if (groups[i] == group)
			return true;
	return false;
}

struct ctl_server *ctl_server_open(const char *path, gid_t gid,
				   ctl_handler_fn fn, void *arg, char *err,
				   size_t errlen)
{
	struct sockaddr_un sun;
	struct ctl_server *s;
	mode_t old;
	int rc;

	if (sockaddr_fill(&sun, path) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(path))) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		free(s);
		return NULL;
	}
	for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++)
		s->clients[i].fd = -1;
	s->fn = fn;
	s->arg = arg;
	s->gid = gid;
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		goto fail;
	}
	old = umask(0117);	/* the socket file is created 0660 */
	rc = bind(s->fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (rc < 0) {
		snprintf(err, errlen, "cannot bind %s: %s", path,
			 strerror(errno));
		goto fail;
	}
	if (gid != (gid_t)-1 && chown(path, (uid_t)-1, gid) < 0) {
		snprintf(err, errlen, "cannot give %s group %u: %s", path,
			 (unsigned)gid, strerror(errno));
		unlink(path);
		goto fail;
	}
	if (listen(s->fd, 16) < 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", path,
			 strerror(errno));
		unlink(path);
		goto fail;
	}
	return s;
fail:
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s);
	return NULL;
}

static void client_reset(struct ctl_client *c)
{
	free(c->payload);
	free(c->out);
	c->payload = NULL;
	c->out = NULL;
	c->hdr_got = c->payload_got = 0;
	c->out_len = c->out_off = 0;
}

static void client_close(struct ctl_client *c)
{
	client_reset(c);
	close(c->fd);
	c->fd = -1;
	c->close_after = false;
}

void ctl_server_close(struct ctl_server *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++)
		if (s->clients[i].fd >= 0)
			client_close(&s->clients[i]);
	close(s->fd);
	unlink(s->path);
	free(s->path);
	free(s);
}

unsigned ctl_server_pollfds(struct ctl_server *s, struct pollfd *fds,
			    unsigned max)
{
	unsigned n = 0;

	if (max == 0)
		return 0;
	fds[n] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
	s->polled[n++] = -1;
	for (unsigned i = 0; i < CTL_MAX_CLIENTS && n < max; i++) {
		const struct ctl_client *c = &s->clients[i];

		if (c->fd < 0)
			continue;
		fds[n] = (struct pollfd){ .fd = c->fd,
					  .events = c->out ? POLLOUT : POLLIN };
		s->polled[n++] = (int)i;
	}
	s->npolled = n;
	return n;
}

/* SO_PEERCRED and SO_PEERGROUPS of fd decide what the client may do.
 * Returns 0, or -1 (errno set) when the credentials cannot be read. */
static int client_credentials(const struct ctl_server *s, int fd,
			      struct ctl_client *c)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	gid_t groups[256];
	socklen_t glen = sizeof(groups);
	unsigned ng = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -1;
	/* More than 256 groups (ERANGE): the primary group only. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &glen) == 0)
		ng = glen / sizeof(groups[0]);
	c->uid = cred.uid;
	c->pid = cred.pid;
	c->may_read = ctl_peer_allowed(cred.uid, cred.gid, groups, ng, s->gid,
				       false);
	c->may_write = ctl_peer_allowed(cred.uid, cred.gid, groups, ng, s->gid,
					true);
	return 0;
}

static void server_accept(struct ctl_server *s)
{
	for (;;) {
		struct ctl_client *c = NULL, tmp;
		int fd;

		fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR)
				log_msg(LOG_WARNING, "control socket accept: %s",
					strerror(errno));
			return;
		}
		for (unsigned i = 0; i < CTL_MAX_CLIENTS && !c; i++)
			if (s->clients[i].fd < 0)
				c = &s->clients[i];
		memset(&tmp, 0, sizeof(tmp));
		if (!c || client_credentials(s, fd, &tmp) < 0) {
			log_msg(LOG_WARNING, "control socket: %s, client refused",
				c ? strerror(errno) : "too many clients");
			close(fd);
			continue;
		}
		*c = tmp;
		c->fd = fd;
		c->last = now_s();
		log_debug("control client pid %d uid %u connected",
			  (int)c->pid, (unsigned)c->uid);
	}
}

/* Queue a reply (header + compact JSON) and try to send it. */
static int client_queue_reply(struct ctl_client *c, uint16_t status,
			      json_t *doc)
{
	char *text = json_dumps(doc, JSON_COMPACT);
	struct ctl_hdr h;
	size_t len;

	if (!text)
		return -1;
	len = strlen(text);
	c->out = malloc(sizeof(h) + len);
	if (!c->out) {
		free(text);
		return -1;
	}
	ctl_hdr_init(&h, status, (uint32_t)len);
	memcpy(c->out, &h, sizeof(h));
	memcpy(c->out + sizeof(h), text, len);
	free(text);
	c->out_len = sizeof(h) + len;
	c->out_off = 0;
	return 0;
}

/* Error reply {"error": why}; close_after for protocol errors. */
static int client_queue_error(struct ctl_client *c, uint16_t status,
			      const char *why, bool close_after)
{
	json_t *doc = json_pack("{s:s}", "error", why);
	int ret;

	if (!doc)
		return -1;
	ret = client_queue_reply(c, status, doc);
	json_decref(doc);
	c->close_after = close_after;
	return ret;
}

/* A whole request is in: answer it. */
static int client_handle(struct ctl_server *s, struct ctl_client *c)
{
	static struct log_ratelimit refused_rl = LOG_RATELIMIT_INIT(60, 5);
	struct ctl_request req = {
		.type = c->hdr.code, .uid = c->uid, .pid = c->pid,
		.payload = c->payload, .length = c->hdr.length,
	};
	uint16_t status = CTL_OK;
	bool write_req;
	json_t *doc;
	int ret;

	if (!ctl_type_known(req.type, &write_req)) {
		log_debug("control client pid %d: unknown request type %u",
			  (int)c->pid, req.type);
		return client_queue_error(c, CTL_ERR_UNKNOWN,
					  "unknown request type", true);
	}
	if (!c->may_read) {
		log_ratelimited(&refused_rl, LOG_NOTICE, "control client pid %d uid %u is not in "
			"the control group: refused", (int)c->pid,
			(unsigned)c->uid);
		return client_queue_error(c, CTL_ERR_PERMISSION,
					  "not a member of the control group",
					  false);
	}
	if (write_req && !c->may_write) {
		log_ratelimited(&refused_rl, LOG_NOTICE, "control client pid %d uid %u: request "
			"%u needs root: refused", (int)c->pid, (unsigned)c->uid,
			req.type);
		return client_queue_error(c, CTL_ERR_PERMISSION,
					  "this request needs root", false);
	}
	doc = s->fn(s->arg, &req, &status);
	if (!doc)
		return client_queue_error(c, CTL_ERR_FAILED,
					  "the daemon could not answer", false);
	ret = client_queue_reply(c, status, doc);
	json_decref(doc);
	return ret;
}

/* Read what is there.  Returns -1 when the client must be closed. */
static int client_read(struct ctl_server *s, struct ctl_client *c)
{
	for (;;) {
		uint8_t *dst;
		size_t want;
		ssize_t n;

		if (c->hdr_got < sizeof(c->hdr)) {
			dst = (uint8_t *)&c->hdr + c->hdr_got;
			want = sizeof(c->hdr) - c->hdr_got;
		} else {
			dst = c->payload + c->payload_got;
			want = c->hdr.length - c->payload_got;
		}
		n = recv(c->fd, dst, want, MSG_DONTWAIT);
		if (n == 0)
			return -1;
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		c->last = now_s();
		if (c->hdr_got < sizeof(c->hdr)) {
			const char *why;

			c->hdr_got += (size_t)n;
			if (c->hdr_got < sizeof(c->hdr))
				continue;
			if (ctl_hdr_check(&c->hdr, CTL_MAX_REQUEST, &why)) {
				log_debug("control client pid %d: %s",
					  (int)c->pid, why);
				return client_queue_error(c, CTL_ERR_PROTOCOL,
							  why, true);
			}
			c->payload = malloc(c->hdr.length + 1);
			if (!c->payload)
				return -1;
		} else {
			c->payload_got += (size_t)n;
		}
		if (c->payload_got == c->hdr.length) {
			c->payload[c->hdr.length] = '\0';
			return client_handle(s, c);
		}
	}
}

/* Write what can be written.  Returns -1 when the client must be closed. */
static int client_write(struct ctl_client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off,
				 c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		c->out_off += (size_t)n;
		c->last = now_s();
	}
	if (c->close_after)
		return -1;
	client_reset(c);
	return 0;
}

void ctl_server_dispatch(struct ctl_server *s, const struct pollfd *fds,
			 unsigned n)
{
	time_t now = now_s();

	for (unsigned i = 0; i < n && i < s->npolled; i++) {
		struct ctl_client *c;
		int rc = 0;

		if (!fds[i].revents)
			continue;
		if (s->polled[i] < 0) {
			server_accept(s);
			continue;
		}
		c = &s->clients[s->polled[i]];
		if (c->fd != fds[i].fd)
			continue;
		if (!c->out && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
			rc = client_read(s, c);
		else if (c->out && (fds[i].revents & (POLLHUP | POLLERR)))
			rc = -1;
		if (rc == 0 && c->out)
			rc = client_write(c);
		if (rc < 0)
			client_close(c);
	}
	for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++) {
		struct ctl_client *c = &s->clients[i];

		if (c->fd >= 0 && now - c->last > CTL_CLIENT_TIMEOUT) {
			log_debug("control client pid %d timed out", (int)c->pid);
			client_close(c);
		}
	}
}

/* ---- client ----------------------------------------------------------- */

/* Move len bytes in direction events, waiting at most timeout_ms each
 * time.  Returns 0, or -1 with a message in err. */
static int io_full(int fd, short events, void *buf, size_t len,
		   int timeout_ms, char *err, size_t errlen)
{
	uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = events };
		ssize_t n;
		int r = poll(&pfd, 1, timeout_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(err, errlen, "%s", r == 0 ?
				 "timed out waiting for the daemon" :
				 strerror(errno));
			return -1;
		}
		if (events == POLLOUT)
			n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		else
			n = recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "%s", n == 0 ?
				 "the daemon closed the connection" :
				 strerror(errno));
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ctl_call(int fd, uint16_t type, const void *payload, uint32_t length,
	     int timeout_ms, uint16_t *status, json_t **reply, char *err,
	     size_t errlen)
{
	struct ctl_hdr h;
	json_error_t jerr;
	const char *why;
	char *text;

	*reply = NULL;
	ctl_hdr_init(&h, type, length);
	if (io_full(fd, POLLOUT, &h, sizeof(h), timeout_ms, err, errlen) < 0 ||
	    (length && io_full(fd, POLLOUT, (void *)(uintptr_t)payload, length,
			       timeout_ms, err, errlen) < 0))
		return -1;
	if (io_full(fd, POLLIN, &h, sizeof(h), timeout_ms, err, errlen) < 0)
		return -1;
	if (ctl_hdr_check(&h, CTL_MAX_REPLY, &why)) {
		snprintf(err, errlen, "bad reply from the daemon: %s", why);
		return -1;
	}
	text = malloc(h.length + 1);
	if (!text) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	if (io_full(fd, POLLIN, text, h.length, timeout_ms, err, errlen) < 0) {
		free(text);
		return -1;
	}
	*reply = json_loadb(text, h.length, 0, &jerr);
	free(text);
	if (!*reply) {
		snprintf(err, errlen, "bad reply from the daemon: %s", jerr.text);
		return -1;
	}
	*status = h.code;
	return 0;
}
