/* kencap.h - EXPERIMENTAL: the kernel encapsulates srv6d's TCP
 * super-packets (issue 10).
 *
 * No userspace interface hands the kernel an IPv6-in-IPv6 super-packet
 * (virtio_net_hdr has no IPXIP6 gso type), so an H.Encaps result of a
 * `gso yes` queue's super-packet is, without this, cut into segments or
 * dropped (REINJECT_SEGMENT).  With the environment variable
 * SRV6D_EXP_KERNEL_ENCAP_MARK=M set when srv6d starts, such a result goes
 * back as its inner TCP super-packet instead, whole behind a
 * virtio_net_hdr (gso_size from the MTUs on the way of the encapsulated
 * result, so that every segment with the outer IPv6 header and SRH fits),
 * into srv6d's reinjection device with packet mark M.  The kernel then
 * encapsulates it with routes the operator (today: the benchmark script
 * bench/l3vpn-kencap.sh) installed for the policy's one segment list:
 *
 *   ip -6 rule add fwmark M lookup T
 *   ip -6 route add default encap seg6 mode encap segs LIST dev EGRESS \
 *       via NH table T
 *   ip -6 route add FIRST_SEGMENT/128 via NH dev EGRESS table T
 *
 * (the encapsulated packet keeps the mark and is looked up in T again:
 * without the last route it loops through the encap route until
 * lwtunnel_input()'s recursion limit drops it), and its seg6 lwtunnel
 * keeps the GSO state (SKB_GSO_IPXIP6) to the egress.  For measuring
 * only: one mark for every super-packet result, whatever its policy or
 * list (the routes must hold the list srv6d picks).
 */
#ifndef SRV6D_KENCAP_H
#define SRV6D_KENCAP_H

#include <stdint.h>

#include "nfq.h"
#include "pkt.h"
#include "pktsock.h"
#include "stats.h"

/* The mark of SRV6D_EXP_KERNEL_ENCAP_MARK, 0 when unset or not a number
 * (then nothing changes).  Read once, when a worker starts. */
uint32_t kencap_mark_from_env(void);

/* The encapsulated TCP super-packet p (an outer IPv6 header, its SRH, an
 * inner IPv6 or IPv4 header): queue NF_DROP for the original on q and add its
 * inner packet, behind a virtio_net_hdr for segments of gso_size payload
 * bytes (reinject_gso_size() of the encapsulated p) and an Ethernet
 * header, with mark, to the vnet batch tx (NULL: no socket) for the
 * reinjection device dev_ifindex.  Returns 0 once queued, else -1 with
 * the reason (nothing queued but the verdict). */
int kencap_send(struct pkt *p, struct nfq *q, struct pkt_tx *tx,
		uint32_t dev_ifindex, uint32_t mark, uint16_t gso_size,
		enum drop_reason *reason);

#endif
