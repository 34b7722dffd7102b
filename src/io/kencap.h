/* kencap.h - the kernel encapsulates srv6d's TCP super-packets
 * (`kernel-encap`, src/route/kencap_routes.h; issue 10).
 *
 * No userspace interface hands the kernel an IPv6-in-IPv6 super-packet
 * (virtio_net_hdr has no IPXIP6 gso type), so an H.Encaps result of a
 * super-packet (`offload yes`) is, without this, cut into segments
 * (REINJECT_SEGMENT).  When its outer header and SRH are one of the
 * config's encapsulations with kernel routes (kencap_routes.h), such a
 * result goes back as its inner TCP super-packet instead, whole behind a
 * virtio_net_hdr (gso_size from the MTUs on the way of the encapsulated
 * result, so that every segment with the outer IPv6 header and SRH fits),
 * into srv6d's reinjection device with that encapsulation's mark; the
 * kernel's seg6 lwtunnel encapsulates it the same way and keeps the GSO
 * state (SKB_GSO_IPXIP6) to the egress.
 */
#ifndef SRV6D_KENCAP_H
#define SRV6D_KENCAP_H

#include <stdint.h>

#include "config.h"
#include "ctx.h"
#include "pkt.h"
#include "pktsock.h"
#include "stats.h"

/* Whether p, a header queue's packet, is steered by a policy whose
 * super-packets the kernel can take as the original with its mark: srv6d.conf's (not HMAC),
 * H.Encaps or H.Encaps.Red, every list of it one of the kernel's
 * encapsulations and its first segment no local SID (no SID runs after
 * it); cut short, p must be a super-packet.  What the worker needs to
 * process p on the header queue (whole, as on any queue; cut short,
 * from its headers: the result is still checked, the outer source, the
 * inner destination, the segment size, and one that cannot go by the
 * mark is bounced then, reinject.c). */
bool kencap_from_headers(const struct proc_ctx *ctx, const struct pkt *p);

/* REINJECT_KERNEL_INNER (reinject.h): of the encapsulated TCP
 * super-packet p (an outer IPv6 header, its SRH, an inner IPv6 or IPv4
 * header), add its inner packet, behind a virtio_net_hdr for segments of
 * gso_size payload bytes (reinject_gso_size() of the encapsulated p) and
 * an Ethernet header, with mark (the kernel's seg6 route of its list,
 * p->facts.kernel_mark), to the vnet batch tx (NULL: no socket) for the
 * reinjection device dev_ifindex.  Returns 0 once queued, else -1 with
 * the reason. */
int kencap_send(struct pkt *p, struct pkt_tx *tx, uint32_t dev_ifindex,
		uint32_t mark, uint16_t gso_size, enum drop_reason *reason);

#endif
