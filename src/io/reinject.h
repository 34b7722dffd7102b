/* reinject.h - the one place that decides how a processed packet goes back
 * into the kernel: as the verdict's payload, or through the TUN device.
 *
 * A verdict cannot change the packet's address family (the kernel drops an
 * IPv4 payload returned to the IPv6 hook), and a TUN device carries no
 * mark.  A result with a mark names its SID (config_sid_by_mark()).  So:
 *   PKT_ACCEPT               -> NF_ACCEPT, original bytes (mark if set)
 *   PKT_DROP                 -> NF_DROP (reason counted by processing)
 *   PKT_NEW_BYTES, IPv4 with p->local_out (an ICMP error srv6d built)
 *                            -> send it on the worker's raw socket as a
 *                               locally generated packet, NF_DROP the
 *                               original (its source is this node's:
 *                               back from PREROUTING it is a martian)
 *   PKT_NEW_BYTES, End.DX2 SID's mark
 *                            -> send the frame out of the SID's oif
 *                               (packet socket), NF_DROP the original
 *   PKT_NEW_BYTES, IPv6 with the mark of an End.X, End.T, End.DX6,
 *     End.DT6 or End.DT46 SID, and `reinject tun`
 *                            -> send it into the SID's veth pair (whose
 *                               IPv6 iif rules do what the mark would),
 *                               NF_DROP
 *   PKT_NEW_BYTES, same family,
 *     and (mark set or not `reinject tun`)
 *                            -> NF_ACCEPT with the new bytes (+ mark)
 *   PKT_NEW_BYTES, IPv4 from the IPv6 hook, mark of an End.DX4, End.DT4 or
 *     End.DT46 SID, or of an End.X or End.T SID with USD
 *                            -> send it into the SID's veth pair (whose
 *                               iif rule does what the mark would), NF_DROP
 *   PKT_NEW_BYTES, otherwise, no mark
 *                            -> write to the TUN queue, NF_DROP the original
 *   PKT_NEW_BYTES, other family, other mark
 *                            -> NF_DROP, DROP_FAMILY: the mark (End.X/End.T
 *                               routing) could not survive the TUN device
 *   a SID device not set up (its sid_runtime ifindex 0, rtrules.h)
 *                            -> NF_DROP, DROP_REINJECT
 *
 * Counting: each packet is counted once by reinject_packet() as accepted,
 * forwarded, injected (TUN, a device, the raw socket) or dropped.  An End.DT* packet without a route
 * in its table (counted by processing as drops[no_route], the SID's
 * error, no success) is handed to the kernel's unreachable rule as above
 * but counted as dropped, not forwarded: the drop reasons add up to
 * dropped + icmp_sent.
 */
#ifndef SRV6D_REINJECT_H
#define SRV6D_REINJECT_H

#include "config.h"
#include "nfq.h"
#include "pkt.h"
#include "rtrules.h"
#include "stats.h"

enum reinject_action {
	REINJECT_ACCEPT,	/* NF_ACCEPT, original bytes */
	REINJECT_PAYLOAD,	/* NF_ACCEPT with p->data[0..len) */
	REINJECT_TUN,		/* write p->data to TUN, NF_DROP the original */
	REINJECT_L2,		/* send the frame at p->data out of the SID's
				 * oif, NF_DROP the original */
	REINJECT_DEV,		/* send the IPv4 (or, `reinject tun`, IPv6)
				 * packet into the SID's veth pair, NF_DROP
				 * the original */
	REINJECT_LOCAL,		/* send the IPv4 packet on the raw socket,
				 * NF_DROP the original */
	REINJECT_DROP,		/* NF_DROP, already counted by processing */
	REINJECT_DROP_REASON,	/* NF_DROP for *reason, counted by reinject */
};

/* Decide how p goes back (see above).  *reason is set for
 * REINJECT_DROP_REASON: DROP_FAMILY (other family with a mark),
 * DROP_BAD_IP (result is neither IPv4 nor IPv6), DROP_TOO_BIG (larger
 * than a verdict can carry) or DROP_REINJECT (the SID's device is not set
 * up).  rt: the SIDs' devices (rtrules.h) published with cfg, NULL for
 * none.  Pure: no side effect. */
enum reinject_action reinject_decide(const struct config *cfg,
				     const struct sid_runtime *rt,
				     const struct pkt *p,
				     enum drop_reason *reason);

/* The device p leaves by when reinject_decide() says REINJECT_L2 or
 * REINJECT_DEV: its SID's ifindex in rt (0 otherwise).  Pure. */
uint32_t reinject_ifindex(const struct config *cfg,
			  const struct sid_runtime *rt, const struct pkt *p);

/* p could not be reinjected for `reason`: when processing counted it as a
 * success of a SID or policy (p->st), make it one of its errors instead
 * (packets and bytes back, errors and drops[reason] up); p->st is cleared.
 * The worker's own counters are reinject_packet()'s business. */
void reinject_charge(struct pkt *p, enum drop_reason reason);

/* Apply the decision for p: queue its verdict on q, write it to tun_fd
 * when it goes by TUN, send it on raw_fd (the worker's raw IPv4 socket,
 * -1 when it could not be opened) when it is local, or on the calling
 * thread's packet socket (opened on the thread's first use, closed when
 * it exits) when it goes by a device (a failed write or send is a
 * DROP_REINJECT), and count it (accepted, forwarded, injected,
 * dropped) in st.  A drop here is also charged to the SID or policy that
 * made the result (reinject_charge()).  Called by the workers only. */
void reinject_packet(const struct config *cfg, const struct sid_runtime *rt,
		     struct pkt *p, struct nfq *q, int tun_fd, int raw_fd,
		     struct worker_stats *st);

#endif
