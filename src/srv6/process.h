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

#endif
