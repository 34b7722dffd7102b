/* ctx.h - what the packet path's modules share: a worker's processing
 * context (struct proc_ctx), the counting of a drop or a success, and the
 * one SRH parse of the packet being processed.
 *
 * The bottom of the packet path's modules: the dispatcher (process.h),
 * the behaviors, the headend, ICMP and HMAC include it; it includes none
 * of them, so that they form no circle.
 */
#ifndef SRV6D_CTX_H
#define SRV6D_CTX_H

#include <stdint.h>

#include "config.h"
#include "runstate.h"
#include "pkt.h"
#include "srccache.h"
#include "srh.h"
#include "stats.h"

/* Token bucket for ICMP errors, one per worker (RFC 4443 2.4(f)). */
struct ratelimit {
	uint64_t last_ns;
	uint64_t tokens_milli;	/* tokens * 1000 */
};

/* srh_find() of the packet being processed, valid while p->srh_parsed
 * (proc_srh_find()). */
struct proc_srh {
	int rc;
	struct srh_info si;
	struct srh_error err;
};

struct oam_ring;
struct rtmirror;
struct sid_runtime;
struct proxy_slot;

/* Everything a behavior may touch, owned by one worker. */
struct proc_ctx {
	const struct config *cfg;
	/* What the daemon decided for cfg (runstate.h), published with it;
	 * NULL: nothing decided (unit tests): no SID has a mark, no kernel
	 * help, any payload. */
	const struct runstate *rs;
	/* What rule installation made for cfg's SIDs (rtrules.h), published
	 * with it; NULL: none (unit tests), every SID's entry 0. */
	const struct sid_runtime *sid_rt;
	/* The kernel's routes and links (rtmirror.h), read as a QSBR reader;
	 * NULL: no mirror, no route checks (unit tests that need none). */
	const struct rtmirror *mirror;
	unsigned worker;		/* its index: the kernel policies'
					 * counters it writes (kpolicy.h) */
	/* The engine's flag (worker.h engine_set_kencap_held()): true
	 * while the kernel's encapsulations are held back; NULL: never. */
	const bool *kencap_held;
	/* The same for kernel-end (engine_set_kend_held()): true while its
	 * marks do not survive to routing; NULL: never. */
	const bool *kend_held;
	/* This worker's probe token (engine_kend_probe_arm()): while held,
	 * one packet may go to the kernel all the same; NULL: none. */
	bool *kend_probe;
	/* kernel-encap's mark guard (engine_set_kencap_mark_held(),
	 * markguard.h): true while packets for its policies reach routing
	 * without srv6d's mark; and this worker's probe token for it. */
	const bool *kencap_mark_held;
	bool *kencap_probe;
	struct srccache src_cache;
	struct worker_stats *stats;
	struct sid_stats *sid_stats;	/* cfg->nsids entries, this worker's */
	struct sid_stats *policy_stats;	/* cfg->npolicies entries */
	/* End.AD's caches (behavior_proxy.h): proxy_nworkers slots per
	 * entry of cfg->proxies, the engine's generation's; this worker
	 * writes slot `worker` of each, reads all.  NULL: none (no
	 * learning, every End.AD return DROP_PROXY_NO_CACHE). */
	struct proxy_slot *proxy_slots;
	unsigned proxy_nworkers;
	struct ratelimit icmp_rl;
	/* RFC 9259 (oam.h): the worker's ring of copies while cfg has
	 * `oam-copy`, else NULL (the O-flag is ignored); its bucket. */
	struct oam_ring *oam;
	struct ratelimit oam_rl;
	uint64_t now_ns;		/* CLOCK_MONOTONIC at batch start */
	struct proc_srh srh;
};

/* Whether the kernel's seg6 encapsulations are held back now (the
 * kernel's tunsrc changed under srv6d): a relaxed load of the flag the
 * control thread sets. */
static inline bool proc_kencap_held(const struct proc_ctx *ctx)
{
	return ctx->kencap_held &&
	       __atomic_load_n(ctx->kencap_held, __ATOMIC_RELAXED);
}

/* Whether kernel-end's hand-off is held back now (its marks do not
 * survive, markguard.h): a relaxed load of the control thread's flag. */
static inline bool proc_kend_held(const struct proc_ctx *ctx)
{
	return ctx->kend_held &&
	       __atomic_load_n(ctx->kend_held, __ATOMIC_RELAXED) &&
	       !(ctx->kend_probe &&
		 __atomic_load_n(ctx->kend_probe, __ATOMIC_RELAXED));
}

/* Whether kernel-encap is held back by its mark guard now (markguard.h):
 * the control thread's flag, unless this worker holds a probe token. */
static inline bool proc_kencap_mark_held(const struct proc_ctx *ctx)
{
	return ctx->kencap_mark_held &&
	       __atomic_load_n(ctx->kencap_mark_held, __ATOMIC_RELAXED) &&
	       !(ctx->kencap_probe &&
		 __atomic_load_n(ctx->kencap_probe, __ATOMIC_RELAXED));
}

/* A super-packet goes to the kernel's seg6: it takes this worker's
 * kernel-encap probe token when there is one. */
static inline void proc_kencap_probe_take(const struct proc_ctx *ctx)
{
	if (ctx->kencap_probe &&
	    __atomic_load_n(ctx->kencap_probe, __ATOMIC_RELAXED))
		__atomic_store_n(ctx->kencap_probe, false, __ATOMIC_RELAXED);
}

/* p's result is kernel-end's: a super-packet or a header queue's packet
 * cut short (the ones reinject.h hands to the route; a small one goes as
 * a payload) takes this worker's probe token when there is one (a
 * relaxed store to the worker's own line, once per probe window). */
static inline void proc_kend_probe_take(const struct proc_ctx *ctx,
					const struct pkt *p)
{
	if ((p->gso || p->truncated) && ctx->kend_probe &&
	    __atomic_load_n(ctx->kend_probe, __ATOMIC_RELAXED))
		__atomic_store_n(ctx->kend_probe, false, __ATOMIC_RELAXED);
}

/* p is done with for `reason` (outcome PKT_OUT_DROP, _ICMP or _HANDOFF):
 * the reason is counted per worker and, when st is not NULL, in the SID's
 * or policy's counters (as an error).  reinject_count() counts it as
 * dropped. */
static inline void proc_count_drop(struct proc_ctx *ctx, struct pkt *p,
				   struct sid_stats *st,
				   enum drop_reason reason,
				   enum pkt_outcome outcome)
{
	p->outcome = outcome;
	p->reason = reason;
	p->st = st;
	ctx->stats->drops[reason]++;
	if (st) {
		st->errors++;
		st->drops[reason]++;
	}
}

/* Drop p for `reason`: PKT_DROP, counted (proc_count_drop()). */
static inline void proc_drop(struct proc_ctx *ctx, struct pkt *p,
			     struct sid_stats *st, enum drop_reason reason)
{
	p->verdict = PKT_DROP;
	proc_count_drop(ctx, p, st, reason, PKT_OUT_DROP);
}

/* Count p as processed successfully by a SID or policy (RFC 8986 6), and
 * remember where (p->st, outcome PKT_OUT_OK), in case its reinjection
 * fails. */
static inline void proc_count_ok(struct sid_stats *st, struct pkt *p)
{
	st->packets++;
	st->bytes += p->orig_len;
	p->outcome = PKT_OUT_OK;
	p->st = st;
}

/* Take back proc_count_ok()'s count of p (a header queue's packet that is
 * bounced after all, to be processed and counted again whole). */
static inline void proc_count_undo(struct pkt *p)
{
	if (p->outcome != PKT_OUT_OK || !p->st)
		return;
	p->st->packets--;
	p->st->bytes -= p->orig_len;
	p->outcome = PKT_OUT_NONE;
	p->st = NULL;
}

/* srh_find() of the IPv6 packet p (p->len >= 40), parsed once: later calls
 * return the same result until p's headers move (pkt_push(), pkt_pull(),
 * pkt_trim() clear p->srh_parsed).  An in-place rewrite that keeps the
 * headers where they are (Segments Left, the DA) keeps it valid. */
static inline int proc_srh_find(struct proc_ctx *ctx, struct pkt *p,
				struct srh_info *si, struct srh_error *err)
{
	struct proc_srh *c = &ctx->srh;

	if (!p->srh_parsed) {
		c->rc = srh_find(p->data, p->len, &c->si, &c->err);
		p->srh_parsed = true;
	}
	*si = c->si;
	*err = c->err;
	return c->rc;
}

#endif
