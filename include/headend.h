/* headend.h - SR policy headend behaviors (RFC 8986 5.1-5.4):
 * H.Encaps, H.Encaps.Red, H.Insert, H.Insert.Red, for IPv6 and (encap
 * modes) IPv4 traffic, pushed in place into the packet's headroom. */
#ifndef SRV6D_HEADEND_H
#define SRV6D_HEADEND_H

#include "process.h"

/* Apply policy `pol` to packet p (steered by its destination).  On success
 * p holds the new packet and p->verdict == PKT_FORWARD; otherwise the packet
 * is dropped with a counted reason (or answered with an ICMP error). The
 * policy's counters in ctx->policy_stats[pol->index] are updated. */
void headend_apply(struct proc_ctx *ctx, const struct policy *pol,
		   struct pkt *p);

#endif
