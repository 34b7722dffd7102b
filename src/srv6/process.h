/* process.h - the packet path: classify a queued packet and apply the SID's
 * behavior or the steering policy that matches it.
 *
 * srv6_process() is the single entry point the worker calls for each packet.
 * It leaves p->verdict (and the new bytes at p->data/p->len, and
 * p->set_mark/out_mark) set, and has counted what happened in ctx->stats.
 * It never allocates, never blocks, never logs.  The context it runs in,
 * struct proc_ctx, is in ctx.h.
 */
#ifndef SRV6D_PROCESS_H
#define SRV6D_PROCESS_H

#include "ctx.h"
#include "pkt.h"

/* Local SIDs a result may be handed on to after the first one that the
 * packet was addressed to (so PROC_SID_CHAIN_MAX + 1 run in all) before
 * it is dropped (DROP_SID_CHAIN): a bound against a segment list that
 * loops. */
#define PROC_SID_CHAIN_MAX	32

/* Process one packet (see above). */
void srv6_process(struct proc_ctx *ctx, struct pkt *p);

/* The steering policy of routing table `table` for dst (srv6d.conf(5)
 * "kernel-routes"): srv6d.conf's longest match, or, with kernel-routes
 * and a mirror, the policy of the kernel's seg6 route that is the
 * longest-prefix route for dst in that table (a more specific plain
 * route hides it, as in the kernel); of the two the longer prefix wins,
 * srv6d.conf on a tie.  A kernel route whose HMAC key srv6d.conf lacks
 * is left to the kernel.  *st: the policy's counters (this worker's).
 * NULL when none steers dst.  Lock-free, allocation-free. */
const struct policy *srv6_steer_lookup6(const struct proc_ctx *ctx,
					uint32_t table,
					const struct in6_addr *dst,
					struct sid_stats **st);
const struct policy *srv6_steer_lookup4(const struct proc_ctx *ctx,
					uint32_t table, struct in_addr dst,
					struct sid_stats **st);

/* The steering policy srv6_process() would apply to p as queued: the
 * lookups of process_ipv6() / process_ipv4() (not a local SID's
 * destination; the table of its in-interface), without processing.
 * NULL when none would. */
const struct policy *srv6_steer_policy(const struct proc_ctx *ctx,
				       const struct pkt *p,
				       struct sid_stats **st);

#endif
