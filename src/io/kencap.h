/* kencap.h - the kernel encapsulates srv6d's TCP super-packets
 * (`kernel-encap`, src/route/kencap_routes.h; issue 10).
 *
 * No userspace interface hands the kernel an IPv6-in-IPv6 super-packet
 * (virtio_net_hdr has no IPXIP6 gso type), so an H.Encaps result of a
 * `gso yes` queue's super-packet is, without this, cut into segments
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
#include "nfq.h"
#include "pkt.h"
#include "pktsock.h"
#include "rtmirror.h"
#include "stats.h"

/* The mark of the kernel route that encapsulates p (an encapsulated TCP
 * super-packet result of srv6d's headend, its outer IPv6 header first) as
 * srv6d did: its mode and segment list from the outer header and SRH, its
 * outer source the one the kernel gives (cfg->kencap_tunsrc, else
 * egress_source_select() on cfg->kencap_oif, a reader of m), its inner
 * destination not the first segment.  0 with the reason in *why when the
 * kernel cannot (then srv6d cuts it).  Pure but for the mirror. */
uint32_t kencap_mark_of(const struct config *cfg, const struct rtmirror *m,
			const struct pkt *p, enum kencap_fallback *why);

/* Whether p, whose kencap_mark_of() is a mark, can instead be the
 * original accepted unchanged with that mark (no bytes back): the result
 * of a steering policy's H.Encaps* of the packet as queued
 * (p->encap_of_original, not End.B6.Encaps*, which changes the inner
 * SRH), its inner packet of the queued length, and its gso_size the
 * in-interface's (p->gso_size_in: the sender's segments fit the way out
 * with the outer headers, as the kernel's forwarding checks them; a
 * smaller egress needs the segments srv6d chooses, kencap_send()). */
bool kencap_accept_ok(const struct pkt *p);

/* Whether p, a header queue's packet, is steered by a policy whose
 * super-packets kencap_accept_ok() can take: srv6d.conf's (not HMAC),
 * H.Encaps or H.Encaps.Red, every list of it one of the kernel's
 * encapsulations and its first segment no local SID (no SID runs after
 * it); cut short, p must be a super-packet.  What the worker needs to
 * process p on the header queue (whole, as on any queue; cut short,
 * from its headers: the result is still checked, the outer source, the
 * inner destination, the segment size, and one that cannot go by the
 * mark is bounced then, reinject.c). */
bool kencap_from_headers(const struct proc_ctx *ctx, const struct pkt *p);

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
