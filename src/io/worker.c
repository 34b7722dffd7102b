/* worker.c - the engine: one thread per NFQUEUE queue running
 * receive -> process -> reinject -> verdicts, reading the configuration
 * through an RCU (QSBR) pointer.
 *
 * A worker writes only its own memory: its nfq socket and slots, its
 * worker_stats (own allocation), its per-SID/per-policy arrays of the
 * current config generation, its heartbeat line.  The control thread reads
 * counters with plain loads and owns `base`, the totals of SIDs and
 * policies carried over from earlier generations.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* pthread_setname_np() */
#endif
#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <urcu-qsbr.h>	/* the rcu_* names of the QSBR flavor */

#include "kencap.h"
#include "kend.h"
#include "log.h"
#include "markprobe.h"
#include "nfq.h"
#include "oamsock.h"
#include "pkt_trace.h"
#include "pktsock.h"
#include "behavior_proxy.h"
#include "process.h"
#include "reinject.h"
#include "rtrules.h"
#include "worker.h"

#define CACHE_LINE		64
/* A worker whose heartbeat is older than this is stuck (it beats at least
 * every receive timeout, NFQ_RECV_TIMEOUT_MS, when idle). */
#define ENGINE_STALL_NS		(2ull * 1000000000ull)
/* Test hook (docs/reliability.md): while the file this variable names
 * exists, every worker hangs without beating, as a stuck worker would. */
#define ENGINE_HANG_ENV		"SRV6D_TEST_WORKER_HANG"
#define ENGINE_HANG_POLL_NS	10000000L

/* One configuration generation: the config, what the daemon decided for
 * it (runstate.h), what rule installation made
 * for its SIDs (rtrules.h) and, per worker, its counters for the config's
 * SIDs and policies; the ifindexes of srv6d's own devices (the reinjection
 * device, the VRF SIDs' veth pairs' receiving ends: what comes in on them
 * is a result srv6d already made).  Published as a whole. */
struct generation {
	struct config *cfg;
	struct runstate *rs;		/* what the daemon decided for cfg */
	struct sid_runtime *sid_rt;	/* [cfg->nsids] */
	unsigned nworkers;
	struct sid_stats **sids;	/* [nworkers][cfg->nsids] */
	struct sid_stats **pols;	/* [nworkers][cfg->npolicies] */
	/* End.AD's caches: [cfg->nproxies][nworkers] (behavior_proxy.h),
	 * NULL when the config has no SR proxy */
	struct proxy_slot *proxy_slots;
	uint32_t *own_devs;		/* sorted */
	unsigned nown_devs;
	uint32_t dev_tx_ifindex;	/* the reinjection device's sending end
					 * (made again by a reload if gone) */
};

struct worker {
	/* Written by the worker, read by engine_healthy(): its own line. */
	struct {
		uint64_t ns;		/* CLOCK_MONOTONIC of the last beat */
		bool dead;		/* the thread has exited */
		/* kernel-end held back: this worker may hand one packet
		 * to the kernel all the same (a probe), set by the control
		 * thread (engine_kend_probe_arm()), taken by the worker
		 * (proc_kend_probe_take()) */
		bool kend_probe;
		/* the same for kernel-encap (engine_kencap_probe_arm(),
		 * proc_kencap_probe_take()) */
		bool kencap_probe;
	} beat __attribute__((aligned(CACHE_LINE)));

	/* The worker's own state, from the next line on. */
	struct engine *e __attribute__((aligned(CACHE_LINE)));
	unsigned index;
	unsigned queue;
	struct nfq *q;
	struct reinject_io io;	/* its packet and raw sockets, its frames */
	struct seg_area seg;	/* io.seg: its super-packets' segments */
	pthread_t thread;
	bool running;
	struct worker_stats *stats;
	struct proc_ctx ctx;
	struct pkt pkts[NFQ_BATCH];
	bool process[NFQ_BATCH];
	/* A trace (pkt_trace.h): the ring, and for the batch being traced
	 * the counters each packet's processing left in p->st (before a
	 * failed way back clears them) and its first bytes as queued. */
	struct pkt_trace_ring *trace;
	const struct sid_stats *trace_st[NFQ_BATCH];
	uint16_t trace_len[NFQ_BATCH];
	uint8_t (*trace_snap)[PKT_TRACE_SNAP];	/* [NFQ_BATCH] */
	/* RFC 9259 (src/srv6/oam.h): the batch's copies of O-flag packets
	 * and End.OP's punts, and the socket they leave by. */
	struct oam_ring *oam;
	struct oamsock *oamsock;
};

struct engine {
	struct generation *gen;		/* RCU: read by the workers */
	bool stop;			/* set once by engine_stop() */
	unsigned nworkers;
	struct worker *workers;		/* CACHE_LINE aligned */
	uint32_t dev_tx_ifindex;	/* the reinjection device's sending end */
	bool dev_open;			/* created: remove it at the end */
	const struct rtmirror *mirror;	/* read by the workers (QSBR) */
	char tun_name[IF_NAMESIZE];
	unsigned queue_first, queue_last;
	bool has_hqueue;		/* `header-queue`, set once */
	unsigned hqueue_first;
	uint32_t hqueue_copy;
	uint32_t maxlen;
	uint32_t tun_ifindex;		/* 0: not known */
	/* Set by the control thread (engine_set_kencap_held()), read by
	 * the workers (struct proc_ctx kencap_held): the kernel's tunsrc
	 * is not what the config's encapsulations were resolved with. */
	bool kencap_held;
	/* The same for kernel-end (engine_set_kend_held()): packets for its
	 * SIDs reached routing without srv6d's mark (markguard.h). */
	bool kend_held;
	/* kernel-encap's (engine_set_kencap_mark_held()): packets for its
	 * policies reached routing without srv6d's mark (markguard.h). */
	bool kencap_mark_held;
	/* The mark probe's (engine_set_marks_lost(), markprobe.h): verdict
	 * marks do not survive to routing; foreign: a rule gives them
	 * another mark than 0. */
	bool marks_lost, marks_foreign;
	const char *hang_file;		/* ENGINE_HANG_ENV, or NULL (unarmed) */
	/* Control thread only: totals of earlier generations, less what
	 * engine_clear_stats() took away (unsigned: a base may wrap, its
	 * sum with the workers' counts does not). */
	struct sid_stats *base_sids;	/* [gen->cfg->nsids] */
	struct sid_stats *base_pols;	/* [gen->cfg->npolicies] */
	struct worker_stats *base_workers;	/* [nworkers]: 0, or minus
						 * the counts at a clear */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Zeroed memory of at least `size` bytes on its own cache lines. */
static void *zalloc_lines(size_t size)
{
	size_t len = (size + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
	void *m = aligned_alloc(CACHE_LINE, len ? len : CACHE_LINE);

	if (m)
		memset(m, 0, len ? len : CACHE_LINE);
	return m;
}

/* ---- counters: plain loads of what another thread writes --------------- */

/* Add n counters read from src (written by a worker) to dst. */
static void counters_add(uint64_t *dst, const uint64_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] += CMM_LOAD_SHARED(src[i]);
}

/* struct worker_stats and struct sid_stats are made of uint64_t only. */
#define WORKER_STATS_WORDS \
	((offsetof(struct worker_stats, drops) + \
	  sizeof(((struct worker_stats *)0)->drops)) / sizeof(uint64_t))
#define SID_STATS_WORDS	(sizeof(struct sid_stats) / sizeof(uint64_t))

static void worker_stats_add(struct worker_stats *dst,
			     const struct worker_stats *src)
{
	counters_add((uint64_t *)dst, (const uint64_t *)src,
		     WORKER_STATS_WORDS);
}

static void sid_stats_add(struct sid_stats *dst, const struct sid_stats *src)
{
	counters_add((uint64_t *)dst, (const uint64_t *)src, SID_STATS_WORDS);
}

/* ---- generations -------------------------------------------------------- */

static void generation_free(struct generation *g)
{
	if (!g)
		return;
	free(g->sid_rt);
	for (unsigned w = 0; w < g->nworkers; w++) {
		if (g->sids)
			free(g->sids[w]);
		if (g->pols)
			free(g->pols[w]);
	}
	free(g->sids);
	free(g->pols);
	free(g->proxy_slots);
	free(g->own_devs);
	runstate_free(g->rs);
	config_free(g->cfg);
	free(g);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* g->own_devs: the reinjection device, g's VRF SIDs' veth pairs and, when
 * prev is not NULL, the veth pairs of the config g replaces (results it
 * sent may still come in on them until the daemon removes them).
 * Returns 0, or -1 when memory runs out. */
static int generation_own_devices(struct generation *g, uint32_t tun_ifindex,
				  const struct generation *prev)
{
	const struct config *pc = prev ? prev->cfg : NULL;
	unsigned n = 0, cap = 1 + g->cfg->nsids + (pc ? pc->nsids : 0);
	uint32_t *v = malloc(cap * sizeof(*v));

	if (!v)
		return -1;
	if (tun_ifindex)
		v[n++] = tun_ifindex;
	for (unsigned i = 0; g->sid_rt && i < g->cfg->nsids; i++)
		if (g->sid_rt[i].rx_ifindex)
			v[n++] = g->sid_rt[i].rx_ifindex;
	for (unsigned i = 0; pc && prev->sid_rt && i < pc->nsids; i++)
		if (prev->sid_rt[i].rx_ifindex)
			v[n++] = prev->sid_rt[i].rx_ifindex;
	qsort(v, n, sizeof(*v), cmp_u32);
	g->own_devs = v;
	g->nown_devs = n;
	return 0;
}

/* g's reinjection device is the one whose sending end is tx_ifindex:
 * also the device of every SID whose results go into it with its mark
 * (sid_runtime's by_mark, rtrules.h), whose ifindex becomes it. */
static void generation_set_reinject_dev(struct generation *g,
					uint32_t tx_ifindex)
{
	g->dev_tx_ifindex = tx_ifindex;
	for (unsigned i = 0; g->sid_rt && i < g->cfg->nsids; i++)
		if (g->sid_rt[i].by_mark)
			g->sid_rt[i].ifindex = tx_ifindex;
}

/* The packet came in on one of srv6d's own devices (a binary search of a
 * few entries; indev 0, unknown, never matches). */
static bool generation_own_device(const struct generation *g, uint32_t indev)
{
	unsigned lo = 0, hi = g->nown_devs;

	while (indev && lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (g->own_devs[mid] == indev)
			return true;
		if (g->own_devs[mid] < indev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* A generation for cfg, its state rs and its SIDs' rt (all owned from
 * now on, even on failure: NULL). */
static struct generation *generation_new(struct config *cfg,
					 struct runstate *rs,
					 struct sid_runtime *rt,
					 unsigned nworkers)
{
	struct generation *g = calloc(1, sizeof(*g));

	if (!g) {
		free(rt);
		runstate_free(rs);
		config_free(cfg);
		return NULL;
	}
	g->cfg = cfg;
	g->rs = rs;
	g->sid_rt = rt;
	g->nworkers = nworkers;
	g->sids = calloc(nworkers, sizeof(*g->sids));
	g->pols = calloc(nworkers, sizeof(*g->pols));
	if (!g->sids || !g->pols)
		goto fail;
	if (cfg->nproxies &&
	    !(g->proxy_slots = zalloc_lines((size_t)cfg->nproxies * nworkers *
					    sizeof(struct proxy_slot))))
		goto fail;
	for (unsigned w = 0; w < nworkers; w++) {
		g->sids[w] = zalloc_lines(cfg->nsids * sizeof(struct sid_stats));
		g->pols[w] = zalloc_lines(cfg->npolicies *
					  sizeof(struct sid_stats));
		if (!g->sids[w] || !g->pols[w])
			goto fail;
	}
	return g;
fail:
	generation_free(g);
	return NULL;
}

/* A SID or policy's identity across generations: family, prefix, length. */
struct stat_key {
	uint8_t addr[16];
	uint8_t plen;
	uint8_t family;
	unsigned index;
};

static int stat_key_cmp(const void *a, const void *b)
{
	/* addr, plen, family: the first 18 bytes, compared as bytes. */
	return memcmp(a, b, offsetof(struct stat_key, family) + 1);
}

/* Keys of cfg's SIDs (policies = false) or policies; NULL if none or on
 * allocation failure (then *n is 0). */
static struct stat_key *stat_keys(const struct config *cfg, bool policies,
				  unsigned *n)
{
	unsigned count = policies ? cfg->npolicies : cfg->nsids;
	struct stat_key *k = count ? calloc(count, sizeof(*k)) : NULL;

	*n = k ? count : 0;
	for (unsigned i = 0; i < *n; i++) {
		k[i].index = i;
		if (!policies) {
			memcpy(k[i].addr, &cfg->sids[i].prefix, 16);
			k[i].plen = cfg->sids[i].plen;
			k[i].family = AF_INET6;
		} else if (cfg->policies[i].family == AF_INET) {
			memcpy(k[i].addr, &cfg->policies[i].prefix.v4, 4);
			k[i].plen = cfg->policies[i].plen;
			k[i].family = AF_INET;
		} else {
			memcpy(k[i].addr, &cfg->policies[i].prefix.v6, 16);
			k[i].plen = cfg->policies[i].plen;
			k[i].family = AF_INET6;
		}
	}
	return k;
}

/* new_base[j] = the final total of the old SID/policy with the same
 * identity (old_base + every worker's count), or zero. */
static void carry_counters(const struct generation *old,
			   const struct sid_stats *old_base,
			   const struct generation *cur,
			   struct sid_stats *new_base, bool policies)
{
	unsigned nold, nnew;
	struct stat_key *ko = stat_keys(old->cfg, policies, &nold);
	struct stat_key *kn = stat_keys(cur->cfg, policies, &nnew);

	if (ko)
		qsort(ko, nold, sizeof(*ko), stat_key_cmp);
	for (unsigned j = 0; ko && j < nnew; j++) {
		const struct stat_key *hit;
		unsigned i;

		hit = bsearch(&kn[j], ko, nold, sizeof(*ko), stat_key_cmp);
		if (!hit)
			continue;
		i = hit->index;
		new_base[j] = old_base[i];
		for (unsigned w = 0; w < old->nworkers; w++)
			sid_stats_add(&new_base[j], policies ? &old->pols[w][i] :
						    &old->sids[w][i]);
	}
	free(ko);
	free(kn);
}

/* Every packet of a batch waits in io.pending to be counted; its frames
 * are sent whenever pkt_tx is full (reinject.c). */
_Static_assert(REINJECT_PENDING_MAX >= NFQ_BATCH,
	       "a batch's packets fit in reinject_io.pending");

/* ---- the worker --------------------------------------------------------- */

static bool engine_stopping(const struct engine *e)
{
	return CMM_LOAD_SHARED(e->stop);
}

static void worker_beat(struct worker *w)
{
	CMM_STORE_SHARED(w->beat.ns, now_ns());
}

/* A packet that came in on one of srv6d's own devices is a result srv6d
 * made (a steering rule that does not leave out srv6d's devices queued it
 * again): accepted unchanged, counted as `unmatched`, never processed a
 * second time (a policy would encapsulate a decapsulated End.DT4 result
 * and bypass its tenant's table). */
static void worker_own_device(struct worker *w, const struct config *cfg,
			      struct pkt *p)
{
	p->verdict = PKT_ACCEPT;
	/* the mark probe (markprobe.h): accepted with the probe mark and
	 * its carrier, as End.X's results are, for the guard to judge */
	p->set_mark = markprobe_is(p);
	p->out_mark = p->set_mark ? cfg->mark_base : 0;
	w->stats->unmatched++;
	w->stats->mark_probes += p->set_mark;
}

/* A header queue's packet (`header-queue`): processed only when its
 * headers would suffice, that is when the kernel redoes its result from
 * the original: a plain End's or a decapsulation's (kend_from_headers())
 * or a policy's H.Encaps* (kencap_from_headers()).  Any other is bounced
 * (PKT_REPEAT: REINJECT_BOUNCE gives it back to its hook with the bounce
 * bit, for the steering rules to queue it whole), cut short or not: so a
 * flow's packets all take one way, and keep their order.  Returns true
 * when p is to be processed. */
static bool worker_headers_suffice(const struct proc_ctx *ctx, struct pkt *p)
{
	if ((!proc_kend_held(ctx) && kend_from_headers(ctx->cfg, ctx->rs, p)) ||
	    kencap_from_headers(ctx, p))
		return true;
	p->verdict = PKT_REPEAT;
	return false;
}

/* ---- a trace (pkt_trace.h): only while one is on -------------------------- */

/* The first bytes of each packet of the batch, as queued. */
static void worker_trace_snap(struct worker *w, int n)
{
	for (int i = 0; i < n; i++) {
		const struct pkt *p = &w->pkts[i];
		uint32_t len = p->len < PKT_TRACE_SNAP ? p->len : PKT_TRACE_SNAP;

		w->trace_len[i] = (uint16_t)len;
		if (len)
			memcpy(w->trace_snap[i], p->data, len);
	}
}

/* st inside a[0..n)? */
static bool stats_in(const struct sid_stats *st, const struct sid_stats *a,
		     unsigned n)
{
	return a && (uintptr_t)st >= (uintptr_t)a &&
	       (uintptr_t)st < (uintptr_t)(a + n);
}

/* What processed the packet whose counters were st: its kind, and its
 * prefix into rec. */
static void worker_trace_who(const struct proc_ctx *ctx,
			     const struct sid_stats *st,
			     struct pkt_trace_record *rec)
{
	const struct config *cfg = ctx->cfg;

	rec->kind = PKT_TRACE_NONE;
	if (!st)
		return;
	if (stats_in(st, ctx->sid_stats, cfg->nsids)) {
		const struct sid *s = &cfg->sids[st - ctx->sid_stats];

		rec->kind = PKT_TRACE_SID;
		rec->family = AF_INET6;
		memcpy(rec->prefix, &s->prefix, 16);
		rec->plen = s->plen;
		rec->behavior = (uint8_t)s->behavior;
	} else if (stats_in(st, ctx->policy_stats, cfg->npolicies)) {
		const struct policy *pol =
			&cfg->policies[st - ctx->policy_stats];

		rec->kind = PKT_TRACE_POLICY;
		rec->family = (uint8_t)pol->family;
		memset(rec->prefix, 0, 16);
		memcpy(rec->prefix, &pol->prefix,
		       pol->family == AF_INET ? 4 : 16);
		rec->plen = pol->plen;
		rec->table = pol->table;
	} else {
		rec->kind = PKT_TRACE_KPOLICY;
	}
}

static bool worker_trace_keep(const struct pkt_trace_filter *f,
			      const struct pkt_trace_record *rec)
{
	if (f->drops_only && rec->outcome != WORKER_OUT_DROPPED)
		return false;
	if (f->kind == PKT_TRACE_NONE)
		return true;
	return rec->kind == f->kind && rec->family == f->family &&
	       rec->plen == f->plen &&
	       !memcmp(rec->prefix, f->prefix, f->family == AF_INET ? 4 : 16);
}

/* After the batch's verdicts: a record of each packet the filter keeps. */
static void worker_trace_batch(struct worker *w, int n)
{
	struct pkt_trace_ring *r = w->trace;
	struct pkt_trace_record rec;

	for (int i = 0; i < n; i++) {
		const struct pkt *p = &w->pkts[i];
		enum drop_reason reason = (enum drop_reason)0;
		struct pkt_trace_record *slot;

		memset(&rec, 0, offsetof(struct pkt_trace_record, data));
		rec.outcome = (uint8_t)reinject_outcome(p, &reason);
		rec.reason = (uint8_t)reason;
		worker_trace_who(&w->ctx, w->trace_st[i], &rec);
		if (!worker_trace_keep(&r->filter, &rec))
			continue;
		slot = pkt_trace_slot(r);
		if (!slot)
			continue;
		rec.mono_ns = w->ctx.now_ns;
		rec.queue = p->from_hqueue && w->e->has_hqueue ?
			    w->e->hqueue_first + w->index : w->queue;
		rec.orig_len = p->orig_len;
		rec.caplen = w->trace_len[i];
		rec.action = p->way.action;
		rec.verdict = (uint8_t)p->verdict;
		rec.pkt_outcome = (uint8_t)p->outcome;
		rec.failed = p->way.failed;
		rec.set_mark = p->set_mark;
		rec.mark = p->verdict_mark;	/* what the packet left with */
		memcpy(slot, &rec, offsetof(struct pkt_trace_record, data));
		memcpy(slot->data, w->trace_snap[i], rec.caplen);
		pkt_trace_commit(r);
	}
}

/* Process the n packets of the batch just received and send their
 * verdicts.  The worker is online (RCU).  A trace costs the load of
 * `on` when off. */
static void worker_run_batch(struct worker *w, int n)
{
	struct generation *g = rcu_dereference(w->e->gen);
	struct proc_ctx *ctx = &w->ctx;
	bool tracing = CMM_LOAD_SHARED(w->trace->on);
	bool marks_lost = __atomic_load_n(&w->e->marks_lost, __ATOMIC_RELAXED);
	bool marks_foreign = __atomic_load_n(&w->e->marks_foreign,
					     __ATOMIC_RELAXED);

	if (tracing) {
		cmm_smp_rmb();	/* the filter, set before `on` */
		worker_trace_snap(w, n);
	}
	ctx->cfg = g->cfg;
	ctx->rs = g->rs;
	ctx->sid_rt = g->sid_rt;
	ctx->sid_stats = g->sids[w->index];
	ctx->policy_stats = g->pols[w->index];
	ctx->proxy_slots = g->proxy_slots;
	ctx->proxy_nworkers = g->nworkers;
	ctx->now_ns = now_ns();
	ctx->oam = NULL;
	if (g->cfg->oam.on) {	/* RFC 9259: the copies' timestamp */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		w->oam->ts_ns = (uint64_t)ts.tv_sec * 1000000000ull +
				(uint64_t)ts.tv_nsec;
		ctx->oam = w->oam;
	}
	w->io.dev_ifindex = g->dev_tx_ifindex;	/* the worker's own copy */
	for (int i = 0; i < n; i++) {
		struct pkt *p = &w->pkts[i];

		/* nfq.c's parse zeroed p; srv6_process() resets what it
		 * sets (pkt_result_reset()). */
		p->carrier_lost = marks_lost;
		p->carrier_foreign = marks_foreign;
		if (w->process[i]) {
			if (generation_own_device(g, p->indev))
				worker_own_device(w, g->cfg, p);
			else if (!p->from_hqueue ||
				 worker_headers_suffice(ctx, p))
				srv6_process(ctx, p);
		}
		if (tracing)
			w->trace_st[i] = p->st;
		reinject_packet(g->cfg, g->rs, g->sid_rt, p, w->q, &w->io,
				w->stats);
		/* Bounced: copied when it comes back whole (RFC 9259). */
		if (p->way.action == REINJECT_BOUNCE)
			oam_ring_unwind(w->oam, p);
	}
	/* The OAM copies first (a failed punt is a drop when counted; O-flag
	 * copies may wait for the next batch's, oam.h), then the results
	 * that go by a device, in one sendmmsg(), each packet counted once
	 * its way is known, then the verdicts (the originals' NF_DROP among
	 * them; a batch of nothing but drops is held for the next batch's,
	 * nfq.h). */
	if (!oam_ring_hold(w->oam, ctx->now_ns))
		oamsock_flush(w->oamsock, w->oam, &g->cfg->oam, w->stats);
	reinject_flush(&w->io, w->stats);
	if (!nfq_verdict_hold(w->q, ctx->now_ns))
		nfq_verdict_flush(w->q, w->stats);
	if (tracing)
		worker_trace_batch(w, n);
}

/* Nothing more arrived: send the O-flag copies and the run of drop
 * verdicts held for a next batch (oam_ring_hold(), nfq_verdict_hold()). */
static void worker_send_held(struct worker *w)
{
	if (w->oam->n) {
		struct generation *g = rcu_dereference(w->e->gen);

		oamsock_flush(w->oamsock, w->oam, &g->cfg->oam, w->stats);
	}
	if (nfq_verdict_waiting(w->q))
		nfq_verdict_flush(w->q, w->stats);
}

/* The ring is full mid-batch (oam.h): send it. */
static void worker_oam_full(struct oam_ring *ring, void *arg)
{
	struct worker *w = arg;

	oamsock_flush(w->oamsock, ring, &w->ctx.cfg->oam, w->stats);
}

/* After a stop: give a verdict to everything already queued (bounded, in
 * case traffic keeps coming), then unbind. */
static void worker_drain(struct worker *w)
{
	unsigned rounds = w->e->maxlen / NFQ_BATCH + 2;

	while (rounds-- > 0) {
		int n = nfq_recv_batch(w->q, false, w->pkts, w->process,
				       w->stats);

		if (n < 0 && errno != EINTR && errno != ENOBUFS)
			break;	/* EAGAIN: the socket is empty */
		if (n > 0)
			worker_run_batch(w, n);
		rcu_quiescent_state();
	}
	worker_send_held(w);
	/* What arrives from now on is dropped by the kernel at unbind. */
	nfq_socket_close(w->q);
	w->q = NULL;
}

/* The test hook: while e->hang_file exists (and the engine runs), hang
 * without a beat, offline (RCU), so that only engine_healthy() can tell. */
static void worker_test_hang(struct worker *w)
{
	struct timespec ts = { .tv_nsec = ENGINE_HANG_POLL_NS };

	while (!engine_stopping(w->e) && access(w->e->hang_file, F_OK) == 0) {
		rcu_thread_offline();
		nanosleep(&ts, NULL);
		rcu_thread_online();
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char name[16];

	snprintf(name, sizeof(name), "srv6d-q%u", w->queue);
	pthread_setname_np(pthread_self(), name);
	rcu_register_thread();
	while (!engine_stopping(w->e)) {
		int n, rerr;

		/* Offline while blocked: a config swap never waits for us. */
		rcu_thread_offline();
		n = nfq_recv_batch(w->q, true, w->pkts, w->process, w->stats);
		rerr = n < 0 ? errno : 0;
		rcu_thread_online();
		if (n > 0)
			worker_run_batch(w, n);
		else
			worker_send_held(w);
		if (w->e->hang_file)	/* armed only by a test */
			worker_test_hang(w);
		rcu_quiescent_state();
		if (n >= 0 || rerr == EAGAIN || rerr == EWOULDBLOCK ||
		    rerr == EINTR || rerr == ENOBUFS) {
			worker_beat(w);
		} else {
			/* Counted in recv_errors; no beat, so a lasting
			 * error shows in engine_healthy(). Do not spin. */
			struct timespec ms = { .tv_nsec = 1000000 };

			nanosleep(&ms, NULL);
		}
	}
	worker_drain(w);
	rcu_unregister_thread();
	CMM_STORE_SHARED(w->beat.dead, true);
	return NULL;
}

/* ---- the engine --------------------------------------------------------- */

/* Stop and join the running workers, close sockets, remove the reinjection device, free all. */
static void engine_destroy(struct engine *e)
{
	CMM_STORE_SHARED(e->stop, true);
	for (unsigned i = 0; i < e->nworkers; i++) {
		struct worker *w = &e->workers[i];

		if (w->running)
			pthread_join(w->thread, NULL);
		nfq_socket_close(w->q);	/* a worker that never ran */
		if (w->io.raw_fd >= 0)
			close(w->io.raw_fd);
		if (w->io.pkt_fd >= 0)
			close(w->io.pkt_fd);
		pkt_tx_free(w->io.tx);
		seg_area_fini(&w->seg);
		free(w->stats);
		free(w->trace);
		free(w->trace_snap);
		oamsock_free(w->oamsock);
		free(w->oam);
	}
	if (e->dev_open)
		rtrules_reinject_dev_close(e->tun_name);
	generation_free(e->gen);
	free(e->base_sids);
	free(e->base_pols);
	free(e->base_workers);
	free(e->workers);
	free(e);
}

static int engine_start_workers(struct engine *e, char *err, size_t errlen)
{
	sigset_t all, old;
	int ret = 0;

	/* Signals are the daemon's main thread's business. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned i = 0; i < e->nworkers; i++) {
		struct worker *w = &e->workers[i];
		int rc = pthread_create(&w->thread, NULL, worker_main, w);

		if (rc != 0) {
			snprintf(err, errlen, "queue %u: cannot start its thread: "
				 "%s", w->queue, strerror(rc));
			ret = -1;
			break;
		}
		w->running = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/* The worker's raw IPv4 socket for the ICMP errors it originates
 * (reinject.h): opened once at start, never per packet.  Without it
 * (no CAP_NET_RAW) srv6d still runs; each such error is counted in
 * icmp_send_errors.  Returns the fd or -1. */
static int worker_raw_open(unsigned queue)
{
	int fd = raw4_sock_open();

	if (fd < 0)
		log_msg(LOG_WARNING, "queue %u: cannot open a raw IPv4 socket: "
			"%s; its ICMP errors are dropped%s", queue,
			strerror(errno), errno == EPERM ?
			" (srv6d needs CAP_NET_RAW)" : "");
	return fd;
}

/* The worker's packet socket for the results that enter the kernel
 * through a device (reinject.h: End.DX2's oif, the reinjection device,
 * a VRF SID's veth pair):
 * opened once at start.  Without it srv6d still runs (rtrules_install()
 * refuses a config with such SIDs then); each such result is a
 * DROP_REINJECT.  Returns the fd or -1. */
static int worker_pkt_open(unsigned queue)
{
	int fd = pkt_sock_open();

	if (fd < 0)
		log_msg(LOG_WARNING, "queue %u: cannot open a packet socket: "
			"%s; its End.DX2, End.DX4, End.DT4 and End.DT46 results "
			"are dropped%s", queue, strerror(errno),
			errno == EPERM ? " (srv6d needs CAP_NET_RAW)" : "");
	return fd;
}

/* With `offload yes` (the default), the worker's packet socket sends
 * super-packets whole behind a virtio_net_hdr too (reinject.h), and every
 * frame goes behind one: its batch is a vnet batch.  Without
 * PACKET_VNET_HDR the plain socket (worker_pkt_open()) does, and each
 * super-packet that does not go back as a verdict is a DROP_REINJECT.
 * Sets io->pkt_fd and io->tx. */
static void worker_io_open(struct reinject_io *io, unsigned queue, bool gso)
{
	io->pkt_fd = gso ? pkt_vnet_sock_open() : -1;
	if (io->pkt_fd >= 0) {
		io->tx = pkt_tx_new_vnet();
		return;
	}
	if (gso)
		log_msg(LOG_WARNING, "queue %u: cannot open a packet socket "
			"with PACKET_VNET_HDR: %s; its super-packets that do "
			"not go back as verdicts are dropped", queue,
			strerror(errno));
	io->pkt_fd = worker_pkt_open(queue);
	io->tx = pkt_tx_new();
}

static int engine_init_worker(struct engine *e, unsigned i, char *err,
			      size_t errlen)
{
	struct worker *w = &e->workers[i];
	const struct config *cfg = e->gen->cfg;

	w->e = e;
	w->index = i;
	w->queue = e->queue_first + i;
	w->io.dev_ifindex = e->dev_tx_ifindex;
	w->io.raw_fd = worker_raw_open(w->queue);
	worker_io_open(&w->io, w->queue, cfg->gso);
	w->io.mirror = e->mirror;
	/* Segments are cut only with `offload yes` (super-packets queued). */
	if (cfg->gso && seg_area_init(&w->seg, SEG_AREA_BYTES) == 0)
		w->io.seg = &w->seg;
	w->stats = zalloc_lines(sizeof(*w->stats));
	w->trace = pkt_trace_ring_new();
	w->trace_snap = zalloc_lines(NFQ_BATCH * sizeof(*w->trace_snap));
	w->oam = zalloc_lines(sizeof(*w->oam));	/* a reload may ask */
	w->oamsock = oamsock_new();
	if (!w->stats || !w->io.tx || (cfg->gso && !w->io.seg) || !w->trace ||
	    !w->trace_snap || !w->oam || !w->oamsock) {
		snprintf(err, errlen, "queue %u: out of memory", w->queue);
		return -1;
	}
	w->ctx.stats = w->stats;
	w->ctx.mirror = e->mirror;
	w->ctx.kencap_held = &e->kencap_held;
	w->ctx.kend_held = &e->kend_held;
	w->ctx.kend_probe = &w->beat.kend_probe;
	w->ctx.kencap_mark_held = &e->kencap_mark_held;
	w->ctx.kencap_probe = &w->beat.kencap_probe;
	w->ctx.worker = i;
	w->ctx.icmp_rl.last_ns = now_ns();
	w->ctx.icmp_rl.tokens_milli = (uint64_t)cfg->icmp_burst * 1000;
	w->ctx.oam_rl.last_ns = now_ns();
	w->ctx.oam_rl.tokens_milli = (uint64_t)cfg->oam.burst * 1000;
	w->oam->full = worker_oam_full;
	w->oam->full_arg = w;
	w->beat.ns = now_ns();
	w->q = nfq_socket_open_flags(w->queue, e->maxlen,
				     cfg->gso ? NFQ_OPEN_GSO : 0, err, errlen);
	if (w->q && cfg->has_hqueue &&
	    nfq_bind_header_queue(w->q, cfg->hqueue_first + i,
				  cfg->hqueue_copy, e->maxlen,
				  cfg->gso ? NFQ_OPEN_GSO : 0, err, errlen) < 0)
		return -1;	/* engine_destroy() closes w->q */
	return w->q ? 0 : -1;
}

struct engine *engine_start(struct config *cfg, struct runstate *rs,
			    struct sid_runtime *rt,
			    const struct rtmirror *mirror, char *err,
			    size_t errlen)
{
	struct engine *e;
	unsigned n, nsids = cfg->nsids, npolicies = cfg->npolicies;

	if (cfg->queue_last < cfg->queue_first ||
	    cfg->queue_last - cfg->queue_first >= SRV6_MAX_QUEUES) {
		snprintf(err, errlen, "queues %u-%u: need 1 to %u queues",
			 cfg->queue_first, cfg->queue_last, SRV6_MAX_QUEUES);
		free(rt);
		runstate_free(rs);
		config_free(cfg);
		return NULL;
	}
	n = cfg->queue_last - cfg->queue_first + 1;
	e = calloc(1, sizeof(*e));
	if (!e) {
		snprintf(err, errlen, "out of memory");
		free(rt);
		runstate_free(rs);
		config_free(cfg);
		return NULL;
	}
	e->nworkers = n;
	e->mirror = mirror;
	e->queue_first = cfg->queue_first;
	e->queue_last = cfg->queue_last;
	e->has_hqueue = cfg->has_hqueue;
	e->hqueue_first = cfg->hqueue_first;
	e->hqueue_copy = cfg->hqueue_copy;
	e->maxlen = NFQ_DEFAULT_MAXLEN;
	snprintf(e->tun_name, sizeof(e->tun_name), "%s", cfg->tun_name);
	e->hang_file = getenv(ENGINE_HANG_ENV);
	if (e->hang_file)
		log_msg(LOG_WARNING, "test hook armed: the workers hang while "
			"%s exists", e->hang_file);
	/* generation_new() owns cfg (freed on failure): not read after it. */
	e->gen = generation_new(cfg, rs, rt, n);
	e->workers = zalloc_lines(n * sizeof(*e->workers));
	for (unsigned i = 0; e->workers && i < n; i++)
		e->workers[i].io.raw_fd = e->workers[i].io.pkt_fd = -1;
	e->base_sids = calloc(nsids + 1, sizeof(*e->base_sids));
	e->base_pols = calloc(npolicies + 1, sizeof(*e->base_pols));
	e->base_workers = zalloc_lines(n * sizeof(*e->base_workers));
	if (!e->gen || !e->workers || !e->base_sids || !e->base_pols ||
	    !e->base_workers) {
		snprintf(err, errlen, "out of memory");
		e->nworkers = e->workers ? n : 0;
		engine_destroy(e);
		return NULL;
	}
	if (rtrules_reinject_dev_open(e->tun_name, &e->dev_tx_ifindex,
				      &e->tun_ifindex, err, errlen) < 0) {
		engine_destroy(e);
		return NULL;
	}
	e->dev_open = true;
	generation_set_reinject_dev(e->gen, e->dev_tx_ifindex);
	if (generation_own_devices(e->gen, e->tun_ifindex, NULL) < 0) {
		snprintf(err, errlen, "out of memory");
		engine_destroy(e);
		return NULL;
	}
	/* Every queue is bound before we return: the daemon may then say
	 * READY. */
	for (unsigned i = 0; i < n; i++) {
		if (engine_init_worker(e, i, err, errlen) < 0) {
			engine_destroy(e);
			return NULL;
		}
	}
	if (engine_start_workers(e, err, errlen) < 0) {
		engine_destroy(e);
		return NULL;
	}
	return e;
}

void engine_set_kencap_held(struct engine *e, bool held)
{
	__atomic_store_n(&e->kencap_held, held, __ATOMIC_RELAXED);
}

bool engine_kencap_held(const struct engine *e)
{
	return __atomic_load_n(&e->kencap_held, __ATOMIC_RELAXED);
}

void engine_set_kend_held(struct engine *e, bool held)
{
	__atomic_store_n(&e->kend_held, held, __ATOMIC_RELAXED);
}

void engine_kend_probe_arm(struct engine *e)
{
	for (unsigned i = 0; i < e->nworkers; i++)
		__atomic_store_n(&e->workers[i].beat.kend_probe, true,
				 __ATOMIC_RELAXED);
}

bool engine_kend_probe_disarm(struct engine *e)
{
	bool taken = false;

	for (unsigned i = 0; i < e->nworkers; i++)
		if (!__atomic_exchange_n(&e->workers[i].beat.kend_probe, false,
					 __ATOMIC_RELAXED))
			taken = true;
	return taken;
}

void engine_set_marks_lost(struct engine *e, bool lost, bool foreign)
{
	__atomic_store_n(&e->marks_foreign, lost && foreign, __ATOMIC_RELAXED);
	__atomic_store_n(&e->marks_lost, lost, __ATOMIC_RELAXED);
}

uint32_t engine_reinject_tx_ifindex(const struct engine *e)
{
	return e->dev_tx_ifindex;
}

void engine_set_kencap_mark_held(struct engine *e, bool held)
{
	__atomic_store_n(&e->kencap_mark_held, held, __ATOMIC_RELAXED);
}

void engine_kencap_probe_arm(struct engine *e)
{
	for (unsigned i = 0; i < e->nworkers; i++)
		__atomic_store_n(&e->workers[i].beat.kencap_probe, true,
				 __ATOMIC_RELAXED);
}

bool engine_kencap_probe_disarm(struct engine *e)
{
	bool taken = false;

	for (unsigned i = 0; i < e->nworkers; i++)
		if (!__atomic_exchange_n(&e->workers[i].beat.kencap_probe,
					 false, __ATOMIC_RELAXED))
			taken = true;
	return taken;
}

void engine_stop(struct engine *e)
{
	if (e)
		engine_destroy(e);
}

/* Queues and the reinjection device are set up once: a config that changes them
 * needs a restart. */
static bool engine_needs_restart(const struct engine *e,
				 const struct config *cfg)
{
	/* `header-queue auto` may differ from the header queues bound at
	 * start where no rule feeds them (the daemon checks that:
	 * reload_needs_restart()): those bound stay. */
	bool hq_differs = cfg->has_hqueue != e->has_hqueue ||
		(cfg->has_hqueue && (cfg->hqueue_first != e->hqueue_first ||
				     cfg->hqueue_copy != e->hqueue_copy));

	return cfg->queue_first != e->queue_first ||
	       cfg->queue_last != e->queue_last ||
	       (hq_differs && !cfg->hqueue_auto) ||
	       strcmp(cfg->tun_name, e->tun_name) != 0;
}

/* The reinjection device deleted under srv6d (by hand, or with its
 * namespace's links): a reload makes it again, as it makes a VRF SID's
 * veth pair, so that the results that go by it flow again.  Until then they
 * are reinject drops (the send fails).  On failure the old ifindexes stay
 * (logged). */
static void engine_reinject_dev_check(struct engine *e)
{
	char rx[IF_NAMESIZE], tx[IF_NAMESIZE], err[256];
	uint32_t txi, rxi;

	rtrules_reinject_dev_names(e->tun_name, rx, tx);
	if (if_nametoindex(rx) == e->tun_ifindex &&
	    if_nametoindex(tx) == e->dev_tx_ifindex)
		return;
	if (rtrules_reinject_dev_open(e->tun_name, &txi, &rxi, err,
				      sizeof(err)) < 0) {
		log_msg(LOG_ERR, "reload: the reinjection device %s is gone and "
			"cannot be made again: %s", e->tun_name, err);
		return;
	}
	log_msg(LOG_WARNING, "reload: the reinjection device %s was gone: "
		"made again (ifindex %u -> %u)", e->tun_name, e->tun_ifindex, rxi);
	e->tun_ifindex = rxi;
	e->dev_tx_ifindex = txi;
	e->dev_open = true;
}

int engine_swap_config(struct engine *e, struct config *newcfg,
		       struct runstate *rs, struct sid_runtime *rt)
{
	struct generation *old = e->gen, *g;
	struct sid_stats *bs, *bp;

	if (engine_needs_restart(e, newcfg)) {
		log_msg(LOG_ERR, "queues %u-%u and reinjection device %s cannot change "
			"on reload: restart srv6d to apply them",
			e->queue_first, e->queue_last, e->tun_name);
		free(rt);
		runstate_free(rs);
		config_free(newcfg);
		return -1;
	}
	engine_reinject_dev_check(e);
	bs = calloc(newcfg->nsids + 1, sizeof(*bs));
	bp = calloc(newcfg->npolicies + 1, sizeof(*bp));
	g = generation_new(newcfg, rs, rt, e->nworkers);	/* owns them */
	if (g)
		generation_set_reinject_dev(g, e->dev_tx_ifindex);
	if (!g || !bs || !bp ||
	    generation_own_devices(g, e->tun_ifindex, old) < 0) {
		log_msg(LOG_ERR, "reload: out of memory");
		generation_free(g);
		free(bs);
		free(bp);
		return -1;
	}
	rcu_assign_pointer(e->gen, g);
	/* After the grace period no worker touches `old`: its counters are
	 * final and can be carried over. */
	synchronize_rcu();
	carry_counters(old, e->base_sids, g, bs, false);
	carry_counters(old, e->base_pols, g, bp, true);
	free(e->base_sids);
	free(e->base_pols);
	e->base_sids = bs;
	e->base_pols = bp;
	generation_free(old);
	return 0;
}

const struct config *engine_config(const struct engine *e)
{
	return e->gen->cfg;
}

const struct runstate *engine_runstate(const struct engine *e)
{
	return e->gen->rs;
}

const struct sid_runtime *engine_sid_runtime(const struct engine *e)
{
	return e->gen->sid_rt;
}

unsigned engine_nworkers(const struct engine *e)
{
	return e->nworkers;
}

unsigned engine_worker_queue(const struct engine *e, unsigned i)
{
	return e->workers[i].queue;
}

long engine_worker_hqueue(const struct engine *e, unsigned i)
{
	return e->has_hqueue && i < e->nworkers ?
		(long)e->hqueue_first + i : -1;
}

uint32_t engine_hqueue_copy(const struct engine *e)
{
	return e->has_hqueue ? e->hqueue_copy : 0;
}

bool engine_beat_stale(uint64_t now, uint64_t beat)
{
	/* A busy worker may beat after `now` was read: beat > now is fresh
	 * (now - beat would wrap). */
	return now > beat && now - beat > ENGINE_STALL_NS;
}

bool engine_healthy(const struct engine *e)
{
	uint64_t now = now_ns();

	for (unsigned i = 0; i < e->nworkers; i++) {
		const struct worker *w = &e->workers[i];
		uint64_t beat = CMM_LOAD_SHARED(w->beat.ns);

		if (CMM_LOAD_SHARED(w->beat.dead) ||
		    engine_beat_stale(now, beat))
			return false;
	}
	return true;
}

void engine_read_stats(const struct engine *e, struct worker_stats *total,
		       struct sid_stats *sids, struct sid_stats *pols)
{
	const struct generation *g = e->gen;
	struct worker_stats ws;

	memset(total, 0, sizeof(*total));
	for (unsigned w = 0; w < e->nworkers; w++) {
		engine_read_worker_stats(e, w, &ws);
		counters_add((uint64_t *)total, (const uint64_t *)&ws,
			     WORKER_STATS_WORDS);
	}
	for (unsigned j = 0; sids && j < g->cfg->nsids; j++) {
		sids[j] = e->base_sids[j];
		for (unsigned w = 0; w < e->nworkers; w++)
			sid_stats_add(&sids[j], &g->sids[w][j]);
	}
	for (unsigned j = 0; pols && j < g->cfg->npolicies; j++) {
		pols[j] = e->base_pols[j];
		for (unsigned w = 0; w < e->nworkers; w++)
			sid_stats_add(&pols[j], &g->pols[w][j]);
	}
}

void engine_read_worker_stats(const struct engine *e, unsigned i,
			      struct worker_stats *out)
{
	*out = e->base_workers[i];
	worker_stats_add(out, e->workers[i].stats);
}

/* dst = -src, word by word: the base that makes a reading of src zero. */
static void counters_negate(uint64_t *dst, const uint64_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (uint64_t)0 - src[i];
}

void engine_clear_stats(struct engine *e)
{
	const struct generation *g = e->gen;
	struct worker_stats ws;
	struct sid_stats st;

	for (unsigned w = 0; w < e->nworkers; w++) {
		memset(&ws, 0, sizeof(ws));
		worker_stats_add(&ws, e->workers[w].stats);
		counters_negate((uint64_t *)&e->base_workers[w],
				(const uint64_t *)&ws, WORKER_STATS_WORDS);
	}
	for (unsigned j = 0; j < g->cfg->nsids; j++) {
		memset(&st, 0, sizeof(st));
		for (unsigned w = 0; w < e->nworkers; w++)
			sid_stats_add(&st, &g->sids[w][j]);
		counters_negate((uint64_t *)&e->base_sids[j],
				(const uint64_t *)&st, SID_STATS_WORDS);
	}
	for (unsigned j = 0; j < g->cfg->npolicies; j++) {
		memset(&st, 0, sizeof(st));
		for (unsigned w = 0; w < e->nworkers; w++)
			sid_stats_add(&st, &g->pols[w][j]);
		counters_negate((uint64_t *)&e->base_pols[j],
				(const uint64_t *)&st, SID_STATS_WORDS);
	}
}

/* ---- traces (pkt_trace.h) ------------------------------------------------ */

void engine_trace_start(struct engine *e, const struct pkt_trace_filter *f)
{
	engine_trace_stop(e);
	/* No worker is inside a batch that read `on` any more. */
	synchronize_rcu();
	for (unsigned i = 0; i < e->nworkers; i++)
		pkt_trace_reset(e->workers[i].trace, f);
	cmm_smp_wmb();	/* the filter before `on` */
	for (unsigned i = 0; i < e->nworkers; i++)
		CMM_STORE_SHARED(e->workers[i].trace->on, true);
}

void engine_trace_stop(struct engine *e)
{
	for (unsigned i = 0; i < e->nworkers; i++)
		CMM_STORE_SHARED(e->workers[i].trace->on, false);
}

unsigned engine_trace_drain(struct engine *e, struct pkt_trace_record *out,
			    unsigned max, uint64_t *overflow)
{
	unsigned n = 0;

	*overflow = 0;
	for (unsigned i = 0; i < e->nworkers; i++) {
		struct pkt_trace_ring *r = e->workers[i].trace;

		n += pkt_trace_drain(r, out + n, max - n);
		*overflow += CMM_LOAD_SHARED(r->overflow);
	}
	return n;
}
