/* process.h - the packet path: classify a queued packet and apply the SID's
 * behavior or the steering policy that matches it.
 *
 * srv6_process() is the single entry point the worker calls for each packet.
 * It leaves p->verdict (and the new bytes at p->data/p->len, and
 * p->set_mark/out_mark) set, and has counted what happened in ctx->stats.
 * It never allocates, never blocks, never logs.
 */
#ifndef SRV6D_PROCESS_H
#define SRV6D_PROCESS_H

#include <stdint.h>

#include "config.h"
#include "pkt.h"
#include "stats.h"

/* Token bucket for ICMP errors, one per worker (RFC 4443 2.4(f)). */
struct ratelimit {
	uint64_t last_ns;
	uint64_t tokens_milli;	/* tokens * 1000 */
};

/* The outer source picked for an encapsulation to `dst` leaving by link
 * `oif` (egress_source_select()), valid while the mirror's links keep
 * `version` (rtmirror_links_version()). */
struct src_cache_entry {
	struct in6_addr dst;
	struct in6_addr src;
	uint64_t version;	/* 0: empty */
	uint32_t oif;
};

/* Entries, in sets of PROC_SRC_CACHE_WAYS picked by a hash of (dst, oif),
 * least recently used out: 1024 x 48 bytes = 48 KiB per worker, so that a
 * headend with many first segments misses rarely (a miss walks every
 * address of the node: docs/design.md "Source selection"). */
#define PROC_SRC_CACHE		1024
#define PROC_SRC_CACHE_WAYS	2

struct rtmirror;

/* Everything a behavior may touch, owned by one worker. */
struct proc_ctx {
	const struct config *cfg;
	/* The kernel's routes and links (rtmirror.h), read as a QSBR reader;
	 * NULL: no mirror, no route checks (unit tests that need none). */
	const struct rtmirror *mirror;
	struct src_cache_entry src_cache[PROC_SRC_CACHE];
	struct worker_stats *stats;
	struct sid_stats *sid_stats;	/* cfg->nsids entries, this worker's */
	struct sid_stats *policy_stats;	/* cfg->npolicies entries */
	struct ratelimit icmp_rl;
	uint64_t now_ns;		/* CLOCK_MONOTONIC at batch start */
};

/* Local SIDs one packet may run through in a row before it is dropped
 * (DROP_SID_CHAIN): a bound against a segment list that loops. */
#define PROC_SID_CHAIN_MAX	32

/* Process one packet (see above). */
void srv6_process(struct proc_ctx *ctx, struct pkt *p);

/* p is done with for `reason` (outcome PKT_OUT_DROP, _ICMP or _HANDOFF):
 * the reason is counted per worker and, when st is not NULL, in the SID's
 * or policy's counters (as an error).  reinject_packet() counts it as
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

#endif
