/* gso.h - TCP super-packets (GSO/GRO) in userspace: find their headers,
 * cut them into segments, complete a partial checksum.
 *
 * A super-packet is one IP packet carrying many TCP segments' worth of
 * payload, and a segment size (gso_size): the kernel hands such packets to
 * a queue bound with NFQA_CFG_F_GSO (nfq.c).  Everything here but
 * gso_pkt_info() is pure: the caller gives the buffers, nothing is
 * allocated, the packet itself is only read (gso_segment()) or fixed in
 * place (gso_csum_complete()).  A packet's parse (struct gso_info,
 * src/common/gso_info.h) is made once and kept on the packet
 * (gso_pkt_info()); the functions that read its headers take the parse
 * rather than walk them again.
 */
#ifndef SRV6D_GSO_H
#define SRV6D_GSO_H

#include <linux/virtio_net.h>
#include <stdbool.h>
#include <stdint.h>

#include "gso_info.h"

struct pkt;

/* Find the IP headers and the transport header of the len bytes at pkt:
 * IPv6 (hop-by-hop, routing, destination options; no fragment) or IPv4
 * (not a fragment), through up to GSO_MAX_LAYERS levels of IPv6/IPv4-in-
 * IPv6/IPv4.  Returns 0, or -1 when there is no whole TCP/UDP header
 * (a fragment, another protocol, truncated or too deep). */
int gso_parse(const uint8_t *pkt, uint32_t len, struct gso_info *gi);

/* gso_parse() of p's bytes, made once and kept on p (p->gso_cache) while
 * its headers stay as they are: pkt_push(), pkt_trim() and
 * pkt_chain_write() end it, pkt_pull() of outer IP headers keeps it
 * (gso_info.h), as an encapsulation does (headend.c).  nfq.c makes it on
 * receipt of a super-packet.  Returns the facts, or NULL when gso_parse()
 * fails (kept too). */
const struct gso_info *gso_pkt_info(struct pkt *p);

#ifdef SRV6D_GSO_PARSE_COUNT
/* A test build of gso.c (tests/check_egress.c's, Makefile.am) counts
 * every gso_parse() here, wherever it is called from. */
extern unsigned long gso_parse_count;
#endif

/* The length of each segment of a super-packet cut at gso_size bytes of
 * payload: its headers (of facts gi) plus gso_size.  0 when gi is NULL
 * or not TCP's. */
uint32_t gso_segment_len(const struct gso_info *gi, uint16_t gso_size);

/* Cut the TCP super-packet at pkt into segments of gso_size payload bytes
 * (the last one shorter), written to segs[i] (each seg_room bytes) with
 * their lengths in seg_lens[i]: every IP header's length (IPv6 Payload
 * Length, IPv4 Total Length), IPv4 Identification (+i) and header checksum,
 * the TCP sequence number (+i * gso_size), flags (FIN and PSH on the last
 * segment only, CWR on the first only) and a full TCP checksum (whatever
 * the super-packet's checksum field held).  Returns the number of segments
 * (1 when the payload fits one), or 0 when pkt is not a TCP packet,
 * gso_size is 0, a segment does not fit seg_room, or there would be more
 * than nsegs segments. */
unsigned gso_segment(const uint8_t *pkt, uint32_t len, uint16_t gso_size,
		     uint8_t *const *segs, uint32_t seg_room,
		     uint32_t *seg_lens, unsigned nsegs);

/* gso_segment() of the super-packet at pkt whose facts are gi (NULL:
 * none) from segment number `first` on, at most nsegs of them (segs[0]
 * gets segment `first`): for a caller whose room runs out before the
 * super-packet's end, to go on where it stopped.  *total is the number
 * of segments of the whole super-packet.  Returns the number written (0
 * and *total 0 as gso_segment() refuses; 0 when first >= *total). */
unsigned gso_segment_part(const uint8_t *pkt, uint32_t len,
			  const struct gso_info *gi, uint16_t gso_size,
			  unsigned first, uint8_t *const *segs,
			  uint32_t seg_room, uint32_t *seg_lens,
			  unsigned nsegs, unsigned *total);

/* The packet's TCP or UDP checksum field holds only the pseudo-header sum
 * (the kernel's CHECKSUM_PARTIAL, NFQA_SKB_CSUMNOTREADY): complete it over
 * the transport header and payload, in place.  The pseudo header is not
 * read again, so a change of address since (an End's new DA) does not
 * matter.  Returns 0, or -1 when there is no TCP/UDP header to complete. */
int gso_csum_complete(uint8_t *pkt, uint32_t len);

/* The reverse: leave only the pseudo-header sum (source, final destination,
 * length, protocol: not complemented) in the TCP/UDP checksum field, as a
 * packet handed to the kernel as CHECKSUM_PARTIAL must have it (a TUN
 * write with a virtio_net_hdr asking VIRTIO_NET_HDR_F_NEEDS_CSUM, whose
 * GSO then completes each segment's).  Returns 0, or -1 when there is no
 * TCP/UDP header. */
int gso_csum_seed(uint8_t *pkt, uint32_t len);

/* A super-packet given back to the kernel as a verdict payload of its own
 * length is segmented by the kernel (nfqnl_mangle() leaves its GSO state
 * and sets CHECKSUM_NONE; tcp_gso_segment() then recomputes the pseudo
 * header from the IP header in front of the TCP header).  True when that
 * gives the right checksum for the packet of facts gi: it is TCP and that
 * IP header's destination is the final one (no routing header with
 * Segments Left > 0 in the innermost IPv6 header).  False for NULL. */
bool gso_kernel_can_segment(const struct gso_info *gi);

/* The TCP super-packet of facts gi can be handed to the kernel whole
 * behind a struct virtio_net_hdr (gso_vnet_prepare()): TCP in one IPv4 or
 * IPv6 header (with IPv6 extension headers: ipv6_gso_segment() walks
 * routing, hop-by-hop and destination options headers), not IP in IP (the
 * header has no gso_type for an encapsulation: ip6ip6_gso_segment() wants
 * SKB_GSO_IPXIP6).  False for NULL.  Pure. */
bool gso_vnet_can_carry(const struct gso_info *gi);

/* Make the TCP super-packet at pkt (len bytes, facts gi; in its frame,
 * l2_len bytes of link-layer header in front of it) one the kernel
 * segments itself from *vh: gso_type VIRTIO_NET_HDR_GSO_TCPV4 or _TCPV6
 * (| _ECN when the TCP header has CWR, which only the first segment
 * keeps), gso_size, hdr_len the frame's headers,
 * VIRTIO_NET_HDR_F_NEEDS_CSUM with csum_start at the TCP header and
 * csum_offset its checksum field; the fields in the byte order of the
 * host (a packet socket's virtio_net_hdr is the legacy, native-endian
 * one).  The checksum field is seeded with the pseudo-header sum over the
 * final destination (gso_csum_seed()): the kernel's tcp_gso_segment()
 * adjusts a CHECKSUM_PARTIAL seed by each segment's length rather than
 * summing the IP header in front of TCP again, so an SRH still on its way
 * (a transit result) gets each segment's right.
 * Returns 0, or -1 (pkt untouched) when !gso_vnet_can_carry(gi) or
 * gso_size is 0. */
int gso_vnet_prepare(uint8_t *pkt, uint32_t len, const struct gso_info *gi,
		     uint16_t gso_size, uint16_t l2_len,
		     struct virtio_net_hdr *vh);

#endif
