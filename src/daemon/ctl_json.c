/* ctl_json.c - the control socket's JSON documents (ctl_json.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu-qsbr.h>

#include "ctl_json.h"
#include "rtwatch.h"
#include "egress.h"
#include "kpolicy.h"
#include "reinject.h"

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

/* v when every part went in (ok), else NULL with v released. */
static json_t *jdone(json_t *v, bool ok)
{
	if (ok)
		return v;
	json_decref(v);
	return NULL;
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
	return jdone(o, ok);
}

/* {"off": N, "unlisted": N, ...}: super-packets cut instead of
 * encapsulated by the kernel (kencap.h), by reason. */
static json_t *kencap_fallbacks_json(const struct worker_stats *ws)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	for (unsigned r = 0; ok && r < KENCAP_FB__COUNT; r++)
		jset(o, kencap_fallback_name(r), jcount(ws->kencap_fallback[r]),
		     &ok);
	return jdone(o, ok);
}

#define WORKER_STATS_FIELDS(X)						\
	X(rx_packets) X(rx_bytes) X(rx_batches) X(verdicts)		\
	X(verdict_batches) X(accepted) X(forwarded) X(dropped)		\
	X(unmatched) X(mark_probes) X(injected) X(icmp_sent)		\
	X(icmp_ratelimited)						\
	X(icmp_send_errors) X(enobufs) X(recv_errors) X(send_errors)	\
	X(tx_full)							\
	X(nl_errors) X(bad_messages) X(rx_too_long) X(gso_packets)	\
	X(gso_refused) X(gso_vnet) X(csum_completed) X(gso_segments)	\
	X(kencap) X(kend) X(hq_truncated) X(bounced)			\
	X(oam_sent) X(oam_ratelimited) X(oam_send_errors)

/* Add the worker_stats fields to o. */
static void worker_stats_fill(json_t *o, const struct worker_stats *ws,
			      bool *ok)
{
#define X(f) jset(o, #f, jcount(ws->f), ok);
	WORKER_STATS_FIELDS(X)
#undef X
	jset(o, "kencap_fallbacks", kencap_fallbacks_json(ws), ok);
	jset(o, "drops", drops_json(ws->drops, false), ok);
}

json_t *ctl_worker_stats_json(const struct worker_stats *ws)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	if (ok)
		worker_stats_fill(o, ws, &ok);
	return jdone(o, ok);
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
	if (st->oam_copies || st->oam_uncopied) {	/* a SID's O-flag */
		jset(o, "oam_copies", jcount(st->oam_copies), ok);
		jset(o, "oam_uncopied", jcount(st->oam_uncopied), ok);
	}
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
		{ FLV_REPLACE_CSID, "replace-csid" },
	};
	json_t *a = json_array();
	bool ok = a != NULL;

	for (size_t i = 0; ok && i < sizeof(names) / sizeof(names[0]); i++)
		if (flavors & names[i].bit)
			jappend(a, json_string(names[i].name), &ok);
	return jdone(a, ok);
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
	return jdone(a, ok);
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
	return jdone(a, ok);
}

/* mode, lists, hmac (when set): what a steering policy and a binding
 * SID's policy have in common. */
static void policy_body_fill(json_t *o, const struct policy *p, bool *ok)
{
	/* RFC 9433 H.M.GTP4.D: H.Encaps with the IPv4 addresses and the
	 * session written into B and the source (mobile.h) */
	jset(o, "mode", json_string(p->gtp4d ? "gtp4" :
				    encap_mode_name(p->mode)), ok);
	jset(o, "lists", lists_json(p), ok);
	if (p->gtp4d) {
		jset(o, "mob_plen", jcount(p->mob_plen), ok);
		jset(o, "src_prefix", prefix_json(AF_INET6, &p->src_prefix,
						  p->src_plen), ok);
	}
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
	return jdone(o, ok);
}

/* Where a SID or a policy comes from: "origin" "file" and its "line", or
 * "kernel" and the route's "kernel_table" (line 0). */
static void origin_fill(json_t *o, unsigned line, uint32_t ktable, bool *ok)
{
	jset(o, "origin", json_string(ktable ? "kernel" : "file"), ok);
	jset(o, "line", jcount(line), ok);
	if (ktable)
		jset(o, "kernel_table", jcount(ktable), ok);
}

/* A SID's attributes that are set: nh6, nh4, oif, table (or vrftable),
 * lblen/nflen (with next-csid), a binding SID's policy, mark,
 * route_table; then its config line. */
static void sid_attrs_fill(json_t *o, const struct config *cfg,
			   const struct sid *s, const struct proxy_conf *pc,
			   struct sid_marks m, bool *ok)
{
	if (!IN6_IS_ADDR_UNSPECIFIED(&s->nh6))
		jset(o, "nh6", addr6_json(&s->nh6), ok);
	if (s->nh4.s_addr)
		jset(o, "nh4", addr4_json(&s->nh4), ok);
	if (s->oif[0])
		jset(o, "oif", json_string(s->oif), ok);
	if (s->table)
		jset(o, s->vrf ? "vrftable" : "table", jcount(s->table), ok);
	if (s->flavors & (FLV_NEXT_CSID | FLV_REPLACE_CSID)) {
		jset(o, "lblen", jcount(s->lblen), ok);
		jset(o, "nflen", jcount(s->nflen), ok);
	}
	if (s->behavior == BHV_END_M_GTP6_D ||	/* RFC 9433 (mobile.h) */
	    s->behavior == BHV_END_M_GTP6_DI)
		jset(o, "mob_plen", jcount(s->mob_plen), ok);
	if (s->behavior == BHV_END_M_GTP6_DI)	/* RFC 9433 6.4's or VPP's */
		jset(o, "encoding", json_string(s->di_vpp ? "vpp" : "rfc"), ok);
	if (s->behavior == BHV_END_M_GTP4_E)
		jset(o, "v4src_position", jcount(s->v4src_pos), ok);
	if (s->has_source)	/* End.M.GTP6.E's S (RFC 9433 6.5) */
		jset(o, "source", addr6_json(&s->source), ok);
	if (s->policy)
		jset(o, "policy", bsid_policy_json(s->policy), ok);
	/* an SR proxy's: iif, End.AS's source and segs */
	if (s->iif[0])
		jset(o, "iif", json_string(s->iif), ok);
	if (pc && pc->segs.nsegs) {
		jset(o, "source", addr6_json(&pc->source), ok);
		jset(o, "segs", segs_json(&pc->segs), ok);
	}
	if (m.mark)	/* the packet's, under mark-mask */
		jset(o, "mark", jcount(config_mark_value(cfg, m.mark)), ok);
	if (m.route_table)
		jset(o, "route_table", jcount(m.route_table), ok);
	origin_fill(o, s->line, s->ktable, ok);
}

static json_t *sid_json(const struct config *cfg, const struct sid *s,
			struct sid_marks m, const struct sid_stats *st)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	if (ok) {
		jset(o, "sid", prefix_json(AF_INET6, &s->prefix, s->plen), &ok);
		jset(o, "behavior", json_string(behavior_name(s->behavior)),
		     &ok);
		jset(o, "flavors", flavors_json(s->flavors), &ok);
		sid_attrs_fill(o, cfg, s, behavior_proxy_of(s->behavior) ?
			       &cfg->proxies[s->proxy] : NULL, m, &ok);
		sid_stats_fill(o, st, &ok);
	}
	return jdone(o, ok);
}

static json_t *policy_json(const struct policy *p, const struct sid_stats *st)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	if (ok) {
		jset(o, "prefix", prefix_json(p->family, &p->prefix, p->plen),
		     &ok);
		jset(o, "table", jcount(p->table), &ok);
		policy_body_fill(o, p, &ok);
		origin_fill(o, p->line, p->ktable, &ok);
		sid_stats_fill(o, st, &ok);
	}
	return jdone(o, ok);
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
	bool ok;

	if (!q)
		return json_null();
	o = json_object();
	ok = o != NULL;
	jset(o, "portid", jcount(q->portid), &ok);
	jset(o, "waiting", jcount(q->waiting), &ok);
	jset(o, "copy_mode", jcount(q->copy_mode), &ok);
	jset(o, "copy_range", jcount(q->copy_range), &ok);
	jset(o, "queue_dropped", jcount(q->queue_dropped), &ok);
	jset(o, "user_dropped", jcount(q->user_dropped), &ok);
	jset(o, "id_sequence", jcount(q->id_sequence), &ok);
	return jdone(o, ok);
}

/* Worker i's header queue (`header-queue`: one beside each queue), or
 * -1 when there is none. */
static long header_queue_of(const struct ctl_status_src *src, unsigned i)
{
	return src->hqueues && i < src->nworkers ? src->hqueues[i] : -1;
}

/* One object per worker: queue, its counters; with_kernel: "kernel", and
 * "header_queue" with "kernel_header" (its line) when it has one. */
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
		if (with_kernel && header_queue_of(src, i) >= 0) {
			unsigned hq = (unsigned)header_queue_of(src, i);

			jset(w, "header_queue", jcount(hq), &ok);
			jset(w, "kernel_header",
			     nfq_queue_json(kernel_queue(src, hq)), &ok);
		}
		jappend(a, w, &ok);
	}
	return jdone(a, ok);
}

/* Every SID of src->cfg (policies: every steering policy), each with its
 * counters. */
static json_t *entries_json(const struct ctl_status_src *src, bool policies)
{
	const struct config *cfg = src->cfg;
	unsigned n = !cfg ? 0 : policies ? cfg->npolicies : cfg->nsids;
	const struct sid_stats *st = policies ? src->pols : src->sids;
	json_t *a = json_array();
	bool ok = a != NULL;

	for (unsigned i = 0; ok && i < n; i++)
		jappend(a, policies ? policy_json(&cfg->policies[i],
						  st ? &st[i] : NULL)
				    : sid_json(cfg, &cfg->sids[i],
					       runstate_sid(src->rs,
							    &cfg->sids[i]),
					       st ? &st[i] : NULL),
			&ok);
	return jdone(a, ok);
}

static json_t *sids_json(const struct ctl_status_src *src)
{
	return entries_json(src, false);
}

/* A quiescent state every KPOLICY_CHUNK slots of a scan of the kernel
 * policies: a scan of a full table (60 ms or more) must not hold up the
 * route mirror's grace periods, and so its next events, for as long.
 * Nothing found before it is used after. */
static void kpolicies_scan_pause(uint32_t slot)
{
	if ((slot & (KPOLICY_CHUNK - 1)) == KPOLICY_CHUNK - 1)
		rcu_quiescent_state();
}

/* The kernel seg6 routes' policies (kpolicy.h) into a, in slot order,
 * each with its counters summed over the workers, at most max of them.
 * Returns how many it left out.  src->mirror is read by an online QSBR
 * reader. */
static uint64_t kpolicies_append(json_t *a, const struct ctl_status_src *src,
				 uint64_t max, bool *ok)
{
	const struct kpolicy_db *db = src->mirror ?
				      rtmirror_kpolicies(src->mirror) : NULL;
	uint32_t n = db ? kpolicy_nslots(db) : 0;
	uint64_t listed = 0, live = db ? kpolicy_count(db) : 0;
	struct sid_stats st;

	for (uint32_t i = 0; *ok && i < n && listed < max; i++) {
		const struct kpolicy *kp = kpolicy_at(db, i);

		if (kp) {
			kpolicy_stats_sum(db, i, &st);
			jappend(a, policy_json(&kp->pol, &st), ok);
			listed++;
		}
		kpolicies_scan_pause(i);
	}
	return live > listed ? live - listed : 0;
}

/* srv6d.conf's policies, then the kernel's (kernel-routes yes), at most
 * max of those: *unlisted the others. */
static json_t *policies_json(const struct ctl_status_src *src, uint64_t max,
			     uint64_t *unlisted)
{
	json_t *a = entries_json(src, true);
	bool ok = a != NULL;

	*unlisted = 0;
	if (ok)
		*unlisted = kpolicies_append(a, src, max, &ok);
	return jdone(a, ok);
}

/* "policies" (at most max kernel policies) and, when some are left out,
 * "policies_unlisted" into o. */
static void policies_set(json_t *o, const struct ctl_status_src *src,
			 uint64_t max, bool *ok)
{
	uint64_t unlisted;

	jset(o, "policies", policies_json(src, max, &unlisted), ok);
	if (unlisted)
		jset(o, "policies_unlisted", jcount(unlisted), ok);
}

/* How results go back (reinject.h): `reinject` as configured, which
 * results may be a verdict's payload, and why. */
static json_t *reinject_json(const struct config *cfg,
			     const struct runstate *rs)
{
	json_t *o;
	bool ok;

	if (!cfg || !rs)
		return json_null();
	o = json_object();
	ok = o != NULL;
	if (!ok)
		return NULL;
	jset(o, "mode", json_string(reinject_mode_name(cfg->reinject)), &ok);
	jset(o, "payload", json_string(reinject_payload_name(rs->payload)),
	     &ok);
	jset(o, "why", json_string(rs->payload_why), &ok);
	return jdone(o, ok);
}

/* `kernel-encap` (kencap_routes.h): {"mode", "active", "why",
 * "encapsulations", "tunsrc", "source", "held", "kernel_tunsrc",
 * "mark_held", "caught", "holds", "watch", "caught_unmarked"} (the last
 * five: markguard.h),
 * or null. */
static json_t *kencap_json(const struct ctl_status_src *src)
{
	const struct config *cfg = src->cfg;
	const struct runstate *rs = src->rs;
	char a[INET6_ADDRSTRLEN], k[INET6_ADDRSTRLEN];
	json_t *o;
	bool ok;

	if (!cfg || !rs)
		return json_null();
	o = json_object();
	ok = o != NULL;
	if (!ok)
		return NULL;
	inet_ntop(AF_INET6, &rs->kencap_tunsrc, a, sizeof(a));
	jset(o, "mode", json_string(cfg->kernel_encap == KERNEL_ENCAP_YES ?
				    "yes" : cfg->kernel_encap ==
				    KERNEL_ENCAP_NO ? "no" : "auto"), &ok);
	jset(o, "active", json_boolean(rs->kencap_on), &ok);
	jset(o, "why", json_string(rs->kencap_why), &ok);
	jset(o, "encapsulations", jcount(rs->kencap_on ? rs->nkencaps : 0),
	     &ok);
	jset(o, "tunsrc", json_string(a), &ok);
	/* where the kernel takes the outer source from: srv6d's routes, or
	 * the netns-wide tunsrc (which srv6d polls) */
	jset(o, "source", json_string(rs->kencap_route_src ? "route" :
				      "tunsrc"), &ok);
	jset(o, "held", json_boolean(src->kencap_held), &ok);
	inet_ntop(AF_INET6, &src->kernel_tunsrc, k, sizeof(k));
	jset(o, "kernel_tunsrc", src->kencap_held ? json_string(k) :
	     json_null(), &ok);
	jset(o, "mark_held", json_boolean(src->kencap_mark_held), &ok);
	jset(o, "caught", jcount(src->kencap_caught), &ok);
	jset(o, "holds", jcount(src->kencap_holds), &ok);
	jset(o, "watch", json_string(src->kencap_watch ? src->kencap_watch :
				     ""), &ok);
	jset(o, "caught_unmarked", jcount(src->kencap_unmarked), &ok);
	return jdone(o, ok);
}

/* The mark probe (markprobe.h): {"state", "fallback", "foreign", "sent",
 * "kept", "carried", "zeroed", "lost", "losses", "send_errors"}, or
 * null. */
static json_t *probe_json(const struct markprobe *m)
{
	json_t *o;
	bool ok;

	if (!m)
		return json_null();
	o = json_object();
	ok = o != NULL;
	if (!ok)
		return NULL;
	jset(o, "state", json_string(markprobe_state_name(m->state)), &ok);
	jset(o, "fallback", json_boolean(m->lost), &ok);
	jset(o, "foreign", json_boolean(m->foreign), &ok);
	jset(o, "sent", jcount(m->sent), &ok);
	jset(o, "kept", jcount(m->count[MARKPROBE_N_KEPT]), &ok);
	jset(o, "carried", jcount(m->count[MARKPROBE_N_CARRIED]), &ok);
	jset(o, "zeroed", jcount(m->count[MARKPROBE_N_ZEROED]), &ok);
	jset(o, "lost", jcount(m->count[MARKPROBE_N_LOST]), &ok);
	jset(o, "losses", jcount(m->losses), &ok);
	jset(o, "send_errors", jcount(m->send_errors), &ok);
	return jdone(o, ok);
}

/* `kernel-end` (kencap_routes.h): {"mode", "active", "why", "sids",
 * "held", "caught", "holds", "restored"} (the last four: markguard.h,
 * steer.h G0K), or null. */
static json_t *kend_json(const struct config *cfg,
			 const struct runstate *rs,
			 const struct ctl_status_src *src)
{
	json_t *o;
	bool ok;

	if (!cfg || !rs)
		return json_null();
	o = json_object();
	ok = o != NULL;
	if (!ok)
		return NULL;
	jset(o, "mode", json_string(cfg->kernel_end == KERNEL_ENCAP_YES ?
				    "yes" : cfg->kernel_end ==
				    KERNEL_ENCAP_NO ? "no" : "auto"), &ok);
	jset(o, "active", json_boolean(rs->kend_on), &ok);
	jset(o, "why", json_string(rs->kend_why), &ok);
	jset(o, "sids", jcount(rs->kend_on ? rs->nkends : 0), &ok);
	jset(o, "held", json_boolean(src->kend_held), &ok);
	jset(o, "caught", jcount(src->kend_caught), &ok);
	jset(o, "holds", jcount(src->kend_holds), &ok);
	jset(o, "restored", jcount(src->kend_restored), &ok);
	return jdone(o, ok);
}

/* The header queues served (config.h `header-queue`, as bound at start:
 * src->hqueues): {"first", "last", "copy", "bounce_mark"}, or null when
 * there are none. */
static json_t *hqueue_json(const struct ctl_status_src *src)
{
	const struct config *cfg = src->cfg;
	json_t *o;
	bool ok;

	if (!cfg || !src->nworkers || header_queue_of(src, 0) < 0)
		return json_null();
	o = json_object();
	ok = o != NULL;
	if (!ok)
		return NULL;
	jset(o, "first", jcount((uint64_t)header_queue_of(src, 0)), &ok);
	jset(o, "last", jcount((uint64_t)header_queue_of(src,
					src->nworkers - 1)), &ok);
	jset(o, "copy", jcount(src->hqueue_copy), &ok);
	jset(o, "bounce_mark", jcount(config_bounce_bit(cfg)), &ok);
	return jdone(o, ok);
}

/* {"enabled", "routes", "applied", "shadowed", "refused", "unsupported",
 * "other_table", "rebuilds", "rebuild_failures", "last_rebuild_us"}, or
 * null. */
static json_t *kroutes_json(const struct ctl_kroutes *k,
			    const struct rtmirror *m)
{
	const struct kpolicy_db *db = m ? rtmirror_kpolicies(m) : NULL;
	struct rtmirror_stats st = { 0 };
	json_t *o;
	bool ok;

	if (!k)
		return json_null();
	o = json_object();
	ok = o != NULL;
	if (m)
		rtmirror_get_stats(m, &st);
	jset(o, "policies", jcount(db ? kpolicy_count(db) : 0), &ok);
	jset(o, "policies_unsupported", jcount(st.kpol_unsupported), &ok);
	jset(o, "enabled", json_boolean(k->enabled), &ok);
	jset(o, "routes", jcount(k->routes), &ok);
	jset(o, "applied", jcount(k->applied), &ok);
	jset(o, "shadowed", jcount(k->shadowed), &ok);
	jset(o, "refused", jcount(k->refused), &ok);
	jset(o, "unsupported", jcount(k->unsupported), &ok);
	jset(o, "other_table", jcount(k->other_table), &ok);
	jset(o, "rebuilds", jcount(k->rebuilds), &ok);
	jset(o, "rebuild_failures", jcount(k->rebuild_failures), &ok);
	jset(o, "last_rebuild_us", jcount(k->last_rebuild_us), &ok);
	return jdone(o, ok);
}

/* {"mode": "auto"|"no", "state": "installed"|"off"|"failed", "backend",
 * "rules", "batches", "repairs", "changed", "sets", "set_elements",
 * "set_batches", "set_last_us", "set_last_changes", "error"}, or
 * null. */
static json_t *steering_json(const struct steer_status *st)
{
	json_t *o;
	bool ok;

	if (!st)
		return json_null();
	o = json_object();
	ok = o != NULL;
	jset(o, "mode", json_string(st->enabled ? "auto" : "no"), &ok);
	jset(o, "state", json_string(st->failed ? "failed" :
				     st->installed ? "installed" : "off"), &ok);
	jset(o, "backend", json_string(steer_backend_name(st->backend)), &ok);
	jset(o, "rules", jcount(st->rules), &ok);
	jset(o, "batches", jcount(st->batches), &ok);
	jset(o, "repairs", jcount(st->repairs), &ok);
	jset(o, "changed", json_integer(st->changed), &ok);
	jset(o, "sets", jcount(st->sets), &ok);
	jset(o, "set_elements", jcount(st->set_elements), &ok);
	jset(o, "set_batches", jcount(st->set_batches), &ok);
	jset(o, "set_last_us", jcount(st->set_last_us), &ok);
	jset(o, "set_last_changes", jcount(st->set_last_changes), &ok);
	jset(o, "error", json_string(st->why), &ok);
	return jdone(o, ok);
}

/* {"rule", "route", "kernel_encap_route", "kernel_end_route", "device",
 * "failures", "last_us"}: srv6d's objects made again, or null. */
static json_t *repairs_json(const struct ctl_status_src *src)
{
	static const char *const keys[RTWATCH_NKINDS] = {
		"rule", "route", "kernel_encap_route", "kernel_end_route",
		"device",
	};
	json_t *o;
	bool ok;

	if (!src->repairs)
		return json_null();
	o = json_object();
	ok = o != NULL;
	for (unsigned k = 0; k < RTWATCH_NKINDS; k++)
		jset(o, keys[k], jcount(src->repairs[k]), &ok);
	jset(o, "failures", jcount(src->repair_failures), &ok);
	jset(o, "last_us", jcount(src->last_repair_us), &ok);
	return jdone(o, ok);
}

/* The operator's rules before srv6d's (markguard.h): [{"family",
 * "priority", "rule"}, ...]. */
static json_t *before_json(const struct ctl_status_src *src)
{
	json_t *a = json_array();
	bool ok = a != NULL;

	for (unsigned i = 0; ok && src->before && i < src->nbefore; i++) {
		const struct markguard_before *b = &src->before[i];
		json_t *o = json_pack("{s:i,s:I,s:s}", "family",
				      b->family == AF_INET ? 4 : 6, "priority",
				      (json_int_t)b->priority, "rule",
				      b->text);

		ok = o && json_array_append_new(a, o) == 0;
	}
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
	jset(o, "counters_cleared", json_integer(src->cleared), &ok);
	jset(o, "reinject", reinject_json(src->cfg, src->rs), &ok);
	jset(o, "kernel_encap", kencap_json(src), &ok);
	jset(o, "kernel_end", kend_json(src->cfg, src->rs, src), &ok);
	jset(o, "header_queue", hqueue_json(src), &ok);
	jset(o, "workers", workers_json(src, false), &ok);
	jset(o, "totals", ctl_worker_stats_json(src->totals ? src->totals
							      : &zero), &ok);
	jset(o, "sids", sids_json(src), &ok);
	policies_set(o, src, CTL_STATUS_KPOLICIES_LISTED, &ok);
	jset(o, "mirror", src->mirror ? ctl_mirror_json(src->mirror)
				      : json_null(), &ok);
	jset(o, "kernel_routes", kroutes_json(src->kroutes, src->mirror), &ok);
	jset(o, "steering", steering_json(src->steering), &ok);
	jset(o, "repairs", repairs_json(src), &ok);
	jset(o, "rules_before", before_json(src), &ok);
	jset(o, "mark_probe", probe_json(src->probe), &ok);
	return jdone(o, ok);
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
	return jdone(o, ok);
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
	jset(o, "tables", a, &ok);	/* a is o's, or released */
	if (!jdone(o, ok))
		return NULL;
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

/* o["src"]: the route's preferred source, else what the kernel picks. */
static void route_src_json(const struct rtmirror *m, json_t *o,
			   const struct fib_route *r,
			   const struct fib_nexthop *nh, const void *dst,
			   bool *ok)
{
	const void *gw = nh && nh->gw_family == r->family ? nh->gw.b : dst;
	uint32_t oif = nh ? nh->oif : 0;
	struct in6_addr s6;
	struct in_addr s4;

	memcpy(&s4, gw, sizeof(s4));	/* AF_INET: what to share a subnet with */

	if (r->fi->prefsrc_set)
		jset(o, "src", addr_json(r->family, r->fi->prefsrc.b), ok);
	else if (r->family == AF_INET6 &&
		 egress_source_select(m, oif, dst, &s6) == 0)
		jset(o, "src", addr_json(AF_INET6, &s6), ok);
	else if (r->family == AF_INET &&
		 egress_source_select4(m, oif, s4, &s4) == 0)
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
	return jdone(o, ok);
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

/* A kernel seg6 route's policy as the packet path uses it (kpolicy.h),
 * with its counters, as in the POLICIES document. */
static json_t *route_policy_json(const struct rtmirror *m, const void *encap)
{
	const struct kpolicy *kp = encap;
	struct sid_stats st;

	kpolicy_stats_sum(rtmirror_kpolicies(m), kp->pol.index, &st);
	return policy_json(&kp->pol, &st);
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
	if (r->encap)
		jset(o, "policy", route_policy_json(m, r->encap), &ok);
	return jdone(o, ok);
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

int ctl_sid_lookup(const struct config *cfg, const char *want)
{
	return sid_find(cfg, want);
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
		jappend(a, sid_json(cfg, &cfg->sids[i],
				    runstate_sid(src->rs, &cfg->sids[i]),
				    src->sids ? &src->sids[i] : NULL), &ok);
	return wrap("sids", jdone(a, ok));
}

struct iif_tables {
	json_t *a;
	bool ok;
};

static void iif_table_add(const struct rtmirror_link *l, void *arg)
{
	struct iif_tables *c = arg;

	if (l->table4 == RT_TABLE_MAIN && l->table6 == RT_TABLE_MAIN)
		return;
	jappend(c->a, json_pack("{s:s,s:I,s:I,s:I}", "interface", l->name,
				"ifindex", (json_int_t)l->ifindex,
				"ipv4", (json_int_t)l->table4,
				"ipv6", (json_int_t)l->table6), &c->ok);
}

/* [{"interface", "ifindex", "ipv4", "ipv6"}, ...]: the links whose
 * packets are steered by another table than main's (rtmirror.h). */
static json_t *iif_tables_json(const struct rtmirror *m)
{
	struct iif_tables c = { .a = json_array(), .ok = true };

	if (!c.a)
		return NULL;
	rtmirror_links_read(m, iif_table_add, &c);
	return jdone(c.a, c.ok);
}

json_t *ctl_policies_json(const struct ctl_status_src *src)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	if (ok)
		policies_set(o, src, CTL_KPOLICIES_LISTED, &ok);
	if (ok && src->mirror)
		jset(o, "interfaces", iif_tables_json(src->mirror), &ok);
	return jdone(o, ok);
}

/* A policy prefix as srv6ctl names it: "P/L", IPv6 or IPv4, masked.
 * Returns 0, or -1 when want is not one. */
struct policy_key {
	int family;
	uint8_t a[16];
	unsigned plen;
};

static int policy_key_parse(const char *want, struct policy_key *k)
{
	const char *slash = strchr(want, '/');
	char addr[INET6_ADDRSTRLEN + 1], *end;
	unsigned long n;

	if (!slash || slash - want >= (long)sizeof(addr) || !slash[1])
		return -1;
	snprintf(addr, sizeof(addr), "%.*s", (int)(slash - want), want);
	memset(k, 0, sizeof(*k));
	k->family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(k->family, addr, k->a) != 1)
		return -1;
	n = strtoul(slash + 1, &end, 10);
	if (*end || n > (k->family == AF_INET6 ? 128u : 32u))
		return -1;
	k->plen = (unsigned)n;
	for (unsigned b = k->plen; b < 128; b++)
		k->a[b / 8] &= (uint8_t)~(0x80 >> (b % 8));
	return 0;
}

static bool policy_is(const struct policy *p, const struct policy_key *k)
{
	return p->family == k->family && p->plen == k->plen &&
	       !memcmp(&p->prefix, k->a, k->family == AF_INET6 ? 16 : 4);
}

int ctl_policy_lookup(const struct config *cfg, const char *want,
		      int *family, uint8_t prefix[16], unsigned *plen)
{
	struct policy_key k;

	if (policy_key_parse(want, &k) < 0)
		return -2;
	*family = k.family;
	memcpy(prefix, k.a, 16);
	*plen = k.plen;
	for (unsigned i = 0; cfg && i < cfg->npolicies; i++)
		if (policy_is(&cfg->policies[i], &k))
			return (int)i;
	return -1;
}

/* The policies with prefix k, of every table: srv6d.conf's, then the
 * kernel's (a scan of the mirror's slots: a few ms at a full table). */
static json_t *policies_find(const struct ctl_status_src *src,
			     const struct policy_key *k)
{
	const struct config *cfg = src->cfg;
	const struct kpolicy_db *db = src->mirror ?
				      rtmirror_kpolicies(src->mirror) : NULL;
	uint32_t n = db ? kpolicy_nslots(db) : 0;
	json_t *a = json_array();
	bool ok = a != NULL;
	struct sid_stats st;

	for (unsigned i = 0; ok && cfg && i < cfg->npolicies; i++)
		if (policy_is(&cfg->policies[i], k))
			jappend(a, policy_json(&cfg->policies[i], src->pols ?
					       &src->pols[i] : NULL), &ok);
	for (uint32_t i = 0; ok && i < n; i++) {
		const struct kpolicy *kp = kpolicy_at(db, i);

		if (kp && policy_is(&kp->pol, k)) {
			kpolicy_stats_sum(db, i, &st);
			jappend(a, policy_json(&kp->pol, &st), &ok);
		}
		kpolicies_scan_pause(i);
	}
	return jdone(a, ok);
}

json_t *ctl_policy_find_json(const struct ctl_status_src *src,
			     const char *want, uint16_t *status)
{
	struct policy_key k;
	json_t *a;

	*status = CTL_OK;
	if (!want || !*want)
		return ctl_policies_json(src);
	if (policy_key_parse(want, &k) < 0) {
		*status = CTL_ERR_INVALID;
		return json_pack("{s:s}", "error", "not a prefix/length");
	}
	a = policies_find(src, &k);
	if (a && !json_array_size(a)) {
		json_decref(a);
		*status = CTL_ERR_NOT_FOUND;
		return json_pack("{s:s}", "error", "no policy with that prefix");
	}
	return wrap("policies", a);
}

json_t *ctl_stats_json(const struct ctl_status_src *src)
{
	static const struct worker_stats zero;
	json_t *o = json_object();
	bool ok = o != NULL;

	if (!ok)
		return NULL;
	jset(o, "counters_cleared", json_integer(src->cleared), &ok);
	jset(o, "totals", ctl_worker_stats_json(src->totals ? src->totals
							      : &zero), &ok);
	jset(o, "workers", workers_json(src, true), &ok);
	return jdone(o, ok);
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
