/* reinject.h - the one place that decides how a processed packet goes back
 * into the kernel: as the verdict's payload, or through the TUN device.
 *
 * A verdict cannot change the packet's address family (the kernel drops an
 * IPv4 payload returned to the IPv6 hook), and a TUN device carries no
 * mark.  So:
 *   PKT_ACCEPT               -> NF_ACCEPT, original bytes (mark if set)
 *   PKT_DROP                 -> NF_DROP (reason counted by processing)
 *   PKT_FORWARD, same family,
 *     and (mark set or not `reinject tun`)
 *                            -> NF_ACCEPT with the new bytes (+ mark)
 *   PKT_FORWARD, otherwise, no mark
 *                            -> write to the TUN queue, NF_DROP the original
 *   PKT_FORWARD, other family, mark set
 *                            -> NF_DROP, DROP_FAMILY: the mark (End.X/End.T
 *                               routing) could not survive the TUN device
 */
#ifndef SRV6D_REINJECT_H
#define SRV6D_REINJECT_H

#include "config.h"
#include "nfq.h"
#include "pkt.h"
#include "stats.h"

enum reinject_action {
	REINJECT_ACCEPT,	/* NF_ACCEPT, original bytes */
	REINJECT_PAYLOAD,	/* NF_ACCEPT with p->data[0..len) */
	REINJECT_TUN,		/* write p->data to TUN, NF_DROP the original */
	REINJECT_DROP,		/* NF_DROP, already counted by processing */
	REINJECT_DROP_REASON,	/* NF_DROP for *reason, counted by reinject */
};

/* Decide how p goes back (see above).  *reason is set for
 * REINJECT_DROP_REASON: DROP_FAMILY (other family with a mark),
 * DROP_BAD_IP (result is neither IPv4 nor IPv6) or DROP_TOO_BIG (larger
 * than a verdict can carry). Pure: no side effect. */
enum reinject_action reinject_decide(const struct config *cfg,
				     const struct pkt *p,
				     enum drop_reason *reason);

/* Apply the decision for p: queue its verdict on q, write it to tun_fd
 * when it goes by TUN (a failed write is a DROP_REINJECT), and count it
 * (accepted, forwarded, tun_injected, dropped) in st. */
void reinject_packet(const struct config *cfg, struct pkt *p, struct nfq *q,
		     int tun_fd, struct worker_stats *st);

#endif
