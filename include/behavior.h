/* behavior.h - the SRv6 endpoint behaviors of a local SID: End, End.X,
 * End.T (RFC 8986 4.1-4.3) with the PSP, USP and USD flavors (4.16) and
 * NEXT-C-SID (RFC 9800 4.1).
 *
 * Each leaves p->verdict set: PKT_FORWARD with the rewritten packet (and,
 * for End.X / End.T, p->set_mark with the SID's mark, which the daemon's
 * ip rule turns into the adjacency or table), or a counted drop or ICMPv6
 * error.  Counters go to ctx->sid_stats[sid->index].  None of them
 * decrements the hop limit: the kernel does once it forwards the verdict.
 */
#ifndef SRV6D_BEHAVIOR_H
#define SRV6D_BEHAVIOR_H

#include "process.h"

/* RFC 8986 4.1: End. */
void behavior_end(struct proc_ctx *ctx, const struct sid *sid, struct pkt *p);

/* RFC 8986 4.2: End.X (L3 cross-connect to sid->nh6, through the mark). */
void behavior_end_x(struct proc_ctx *ctx, const struct sid *sid,
		    struct pkt *p);

/* RFC 8986 4.3: End.T (lookup in sid->table, through the mark). */
void behavior_end_t(struct proc_ctx *ctx, const struct sid *sid,
		    struct pkt *p);

#endif
