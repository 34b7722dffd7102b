/* gso.c - TCP super-packets in userspace: header walk, segmentation,
 * checksum completion (gso.h).  The segmentation follows what the
 * kernel's tcp_gso_segment() and inet_gso_segment()/ipv6_gso_segment() do
 * to each segment, and what wireguard-go's tun/offload_linux.go does. */
#include <netinet/in.h>
#include <string.h>

#include "checksum.h"
#include "gso.h"
#include "ip.h"
#include "pkt.h"

#define TCP_SEQ_OFF	4
#define TCP_FLAGS_OFF	13
#define TCP_CSUM_OFF	16
#define UDP_CSUM_OFF	6
#define TCP_F_FIN	0x01
#define TCP_F_PSH	0x08
#define TCP_F_CWR	0x80
#define IP4_ID_OFF	4
#define IP4_FRAG_OFF	6
#define IP4_CSUM_OFF	10
#define IP6_HDR		40
#define SRH_TYPE	4

static uint16_t rd16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static void wr16(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static uint32_t rd32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

static void wr32(uint8_t *b, uint32_t v)
{
	wr16(b, v >> 16);
	wr16(b + 2, v);
}

/* The IPv6 header at off: walk its extension headers to the next IP or
 * transport header.  Returns that header's offset and protocol in *nh, or
 * -1 (a fragment, an unknown header, truncated). */
static int gso_walk_ipv6(const uint8_t *pkt, uint32_t len, uint32_t off,
			 uint8_t *nh, struct gso_info *gi)
{
	uint32_t at = off + IP6_HDR;
	uint8_t next = pkt[off + IP6_NH_OFF];

	gi->rh_pending = false;
	gi->final_dst_off = (uint16_t)(off + IP6_DST_OFF);
	for (;;) {
		uint32_t hlen;

		switch (next) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_DSTOPTS:
		case IPPROTO_ROUTING:
			break;
		default:
			*nh = next;
			return (int)at;
		}
		if (at + 8 > len)
			return -1;
		hlen = ((uint32_t)pkt[at + 1] + 1) * 8;
		if (at + hlen > len)
			return -1;
		if (next == IPPROTO_ROUTING && pkt[at + 3] > 0) {
			gi->rh_pending = true;
			/* An SRH's final destination is Segment List[0]. */
			if (pkt[at + 2] == SRH_TYPE && hlen >= 8 + 16)
				gi->final_dst_off = (uint16_t)(at + 8);
		}
		next = pkt[at];
		at += hlen;
	}
}

/* The IPv4 header at off: its length, or -1 (a fragment, bad IHL). */
static int gso_walk_ipv4(const uint8_t *pkt, uint32_t len, uint32_t off,
			 uint8_t *nh)
{
	uint32_t ihl = (uint32_t)(pkt[off] & 0x0f) * 4;

	if (ihl < 20 || off + ihl > len ||
	    (rd16(pkt + off + IP4_FRAG_OFF) & 0x3fff) != 0)
		return -1;
	*nh = pkt[off + 9];
	return (int)(off + ihl);
}

static int gso_l4(const uint8_t *pkt, uint32_t len, uint32_t off,
		  uint8_t nh, struct gso_info *gi)
{
	uint32_t thl;

	gi->l4_off = (uint16_t)off;
	gi->l4_proto = nh;
	if (nh == IPPROTO_UDP) {
		if (off + 8 > len)
			return -1;
		gi->hdr_len = (uint16_t)(off + 8);
		return 0;
	}
	if (nh != IPPROTO_TCP || off + 20 > len)
		return -1;
	thl = (uint32_t)(pkt[off + 12] >> 4) * 4;
	if (thl < 20 || off + thl > len)
		return -1;
	gi->hdr_len = (uint16_t)(off + thl);
	return 0;
}

#ifdef SRV6D_GSO_PARSE_COUNT
unsigned long gso_parse_count;
#endif

int gso_parse(const uint8_t *pkt, uint32_t len, struct gso_info *gi)
{
	uint32_t off = 0;

#ifdef SRV6D_GSO_PARSE_COUNT
	gso_parse_count++;
#endif
	memset(gi, 0, sizeof(*gi));
	if (len > 0xffff)
		return -1;
	while (gi->nlayers < GSO_MAX_LAYERS) {
		unsigned ver;
		uint8_t nh;
		int next;

		if (off + 20 > len)
			return -1;
		ver = pkt[off] >> 4;
		if (ver == 6 && off + IP6_HDR <= len)
			next = gso_walk_ipv6(pkt, len, off, &nh, gi);
		else if (ver == 4) {
			gi->rh_pending = false;
			gi->final_dst_off = 0;
			next = gso_walk_ipv4(pkt, len, off, &nh);
		}
		else
			return -1;
		if (next < 0)
			return -1;
		gi->layer_off[gi->nlayers] = (uint16_t)off;
		gi->layer_ver[gi->nlayers++] = (uint8_t)ver;
		off = (uint32_t)next;
		if (nh != IPPROTO_IPV6 && nh != IPPROTO_IPIP)
			return gso_l4(pkt, len, off, nh, gi);
	}
	return -1;
}

const struct gso_info *gso_pkt_info(struct pkt *p)
{
	struct gso_cache *c = &p->gso_cache;

	if (!c->valid) {
		c->ok = gso_parse(p->data, p->len, &c->info) == 0;
		c->valid = true;
	}
	return c->ok ? &c->info : NULL;
}

uint32_t gso_segment_len(const struct gso_info *gi, uint16_t gso_size)
{
	if (!gi || gi->l4_proto != IPPROTO_TCP)
		return 0;
	return (uint32_t)gi->hdr_len + gso_size;
}

/* The transport checksum's pseudo-header sum for seg (innermost layer:
 * its source, its final destination). */
static uint32_t gso_pseudo(const uint8_t *seg, const struct gso_info *gi,
			   uint32_t l4len)
{
	uint32_t ip = gi->layer_off[gi->nlayers - 1];
	uint32_t sum;

	if (gi->layer_ver[gi->nlayers - 1] == 6) {
		struct in6_addr s, d;

		memcpy(&s, seg + ip + IP6_SRC_OFF, 16);
		memcpy(&d, seg + gi->final_dst_off, 16);
		return csum_ipv6_pseudo(&s, &d, l4len, gi->l4_proto);
	}
	sum = csum_partial(seg + ip + IP4_SRC_OFF, 8, 0);
	return sum + gi->l4_proto + l4len;
}

/* Fix every IP header of a segment of seg_len bytes (segment number i). */
static void gso_fix_layers(uint8_t *seg, const struct gso_info *gi,
			   uint32_t seg_len, unsigned i)
{
	for (unsigned l = 0; l < gi->nlayers; l++) {
		uint8_t *h = seg + gi->layer_off[l];

		if (gi->layer_ver[l] == 6) {
			ip6_plen_set(h, seg_len - gi->layer_off[l] - IP6_HDR);
			continue;
		}
		wr16(h + IP4_TOTLEN_OFF, seg_len - gi->layer_off[l]);
		wr16(h + IP4_ID_OFF, rd16(h + IP4_ID_OFF) + i);
		wr16(h + IP4_CSUM_OFF, 0);
		wr16(h + IP4_CSUM_OFF,
		     csum_fold(csum_partial(h, (size_t)(h[0] & 0x0f) * 4, 0)));
	}
}

/* Write segment i (payload bytes [poff, poff + plen)) to seg. */
static uint32_t gso_write_segment(const uint8_t *pkt, const struct gso_info *gi,
				  uint32_t poff, uint32_t plen, unsigned i,
				  bool last, uint16_t gso_size, uint8_t *seg)
{
	uint32_t seg_len = gi->hdr_len + plen, l4len = seg_len - gi->l4_off;
	uint8_t *th = seg + gi->l4_off;
	uint32_t sum;

	memcpy(seg, pkt, gi->hdr_len);
	memcpy(seg + gi->hdr_len, pkt + poff, plen);
	gso_fix_layers(seg, gi, seg_len, i);
	wr32(th + TCP_SEQ_OFF, rd32(th + TCP_SEQ_OFF) + i * (uint32_t)gso_size);
	if (!last)
		th[TCP_FLAGS_OFF] &= (uint8_t)~(TCP_F_FIN | TCP_F_PSH);
	if (i > 0)
		th[TCP_FLAGS_OFF] &= (uint8_t)~TCP_F_CWR;
	wr16(th + TCP_CSUM_OFF, 0);
	sum = csum_partial(th, l4len, gso_pseudo(seg, gi, l4len));
	wr16(th + TCP_CSUM_OFF, csum_fold(sum));
	return seg_len;
}

unsigned gso_segment(const uint8_t *pkt, uint32_t len, uint16_t gso_size,
		     uint8_t *const *segs, uint32_t seg_room,
		     uint32_t *seg_lens, unsigned nsegs)
{
	struct gso_info gi;
	const struct gso_info *g = gso_parse(pkt, len, &gi) == 0 ? &gi : NULL;
	unsigned total = 0;

	/* Count first: nothing is written when they do not all fit. */
	gso_segment_part(pkt, len, g, gso_size, 0, segs, seg_room, seg_lens,
			 0, &total);
	if (!total || total > nsegs)
		return 0;
	return gso_segment_part(pkt, len, g, gso_size, 0, segs, seg_room,
				seg_lens, nsegs, &total);
}

unsigned gso_segment_part(const uint8_t *pkt, uint32_t len,
			  const struct gso_info *gi, uint16_t gso_size,
			  unsigned first, uint8_t *const *segs,
			  uint32_t seg_room, uint32_t *seg_lens,
			  unsigned nsegs, unsigned *total)
{
	uint32_t payload, n;

	*total = 0;
	if (!gso_size || !gi || gi->l4_proto != IPPROTO_TCP ||
	    gi->hdr_len > len)
		return 0;
	payload = len - gi->hdr_len;
	n = payload ? (payload + gso_size - 1) / gso_size : 1;
	if (first >= n ||
	    (uint32_t)gi->hdr_len + (payload < gso_size ? payload : gso_size) >
	    seg_room)
		return 0;
	*total = n;
	if (n - first < nsegs)
		nsegs = n - first;
	for (uint32_t k = 0; k < nsegs; k++) {
		uint32_t i = first + k, poff = i * (uint32_t)gso_size;
		uint32_t plen = payload - poff < gso_size ? payload - poff :
							    gso_size;

		seg_lens[k] = gso_write_segment(pkt, gi, gi->hdr_len + poff,
						plen, i, i + 1 == n, gso_size,
						segs[k]);
	}
	return nsegs;
}

int gso_csum_complete(uint8_t *pkt, uint32_t len)
{
	struct gso_info gi;
	uint32_t at;
	uint16_t c;

	if (gso_parse(pkt, len, &gi) < 0)
		return -1;
	at = gi.l4_off + (gi.l4_proto == IPPROTO_TCP ? TCP_CSUM_OFF :
						       UDP_CSUM_OFF);
	/* The field's pseudo-header sum is summed with the rest, as the
	 * kernel's skb_checksum_help() does. */
	c = csum_fold(csum_partial(pkt + gi.l4_off, len - gi.l4_off, 0));
	if (gi.l4_proto == IPPROTO_UDP && c == 0)
		c = 0xffff;	/* RFC 768: 0 means no checksum */
	wr16(pkt + at, c);
	return 0;
}

/* gso_csum_seed() of the packet of facts gi. */
static void gso_csum_seed_at(uint8_t *pkt, uint32_t len,
			     const struct gso_info *gi)
{
	uint32_t l4len = len - gi->l4_off;

	/* csum_fold() complements: complement again for the plain sum. */
	wr16(pkt + gi->l4_off + (gi->l4_proto == IPPROTO_TCP ? TCP_CSUM_OFF :
						       UDP_CSUM_OFF),
	     (uint16_t)~csum_fold(gso_pseudo(pkt, gi, l4len)));
}

int gso_csum_seed(uint8_t *pkt, uint32_t len)
{
	struct gso_info gi;

	if (gso_parse(pkt, len, &gi) < 0)
		return -1;
	gso_csum_seed_at(pkt, len, &gi);
	return 0;
}

bool gso_kernel_can_segment(const struct gso_info *gi)
{
	return gi && gi->l4_proto == IPPROTO_TCP && !gi->rh_pending;
}

bool gso_vnet_can_carry(const struct gso_info *gi)
{
	return gi && gi->l4_proto == IPPROTO_TCP && gi->nlayers == 1;
}

int gso_vnet_prepare(uint8_t *pkt, uint32_t len, const struct gso_info *gi,
		     uint16_t gso_size, uint16_t l2_len,
		     struct virtio_net_hdr *vh)
{
	uint8_t type;

	if (!gso_size || !gso_vnet_can_carry(gi) || gi->hdr_len > len)
		return -1;
	type = gi->layer_ver[0] == 6 ? VIRTIO_NET_HDR_GSO_TCPV6 :
				       VIRTIO_NET_HDR_GSO_TCPV4;
	if (pkt[gi->l4_off + TCP_FLAGS_OFF] & TCP_F_CWR)
		type |= VIRTIO_NET_HDR_GSO_ECN;
	*vh = (struct virtio_net_hdr){
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = type,
		.hdr_len = (uint16_t)(l2_len + gi->hdr_len),
		.gso_size = gso_size,
		.csum_start = (uint16_t)(l2_len + gi->l4_off),
		.csum_offset = TCP_CSUM_OFF,
	};
	gso_csum_seed_at(pkt, len, gi);
	return 0;
}
