/* gso_info.h - where a TCP (or UDP) packet's headers are: the result of
 * gso_parse() (src/srv6/gso.h), plain data, and the copy of it a packet
 * keeps (struct gso_cache, in struct pkt).
 *
 * Here, below srv6, because struct pkt (pkt.h) holds the parse so that a
 * super-packet's headers are walked once however many steps read them,
 * and pkt.h's own functions keep it right when the headers move: the
 * struct describes a packet's bytes and needs nothing of the code that
 * fills it.  The two derivations below are what gso_parse() would find
 * after an outer IP header comes off (pkt_pull()) or goes on (an
 * encapsulation); tests/check_gso.c compares them with it.
 */
#ifndef SRV6D_GSO_INFO_H
#define SRV6D_GSO_INFO_H

#include <stdbool.h>
#include <stdint.h>

/* IP headers in front of the TCP header: an IPv6 or IPv4 packet, possibly
 * inside IPv6/IPv4 encapsulation (an SRv6 outer header with its SRH). */
#define GSO_MAX_LAYERS	4

/* Where the headers of a TCP (or UDP, for the checksum only) packet are. */
struct gso_info {
	unsigned nlayers;		/* IP headers, outermost first */
	uint16_t layer_off[GSO_MAX_LAYERS];	/* offset of each */
	uint8_t layer_ver[GSO_MAX_LAYERS];	/* 4 or 6 */
	uint16_t l4_off;		/* the transport header */
	uint8_t l4_proto;		/* IPPROTO_TCP or IPPROTO_UDP */
	uint16_t hdr_len;		/* l4_off + the TCP header (options
					 * included); l4_off + 8 for UDP */
	/* The innermost IPv6 header has a routing header with Segments
	 * Left > 0: its Destination Address is not the transport's final
	 * destination (RFC 8200 8.1). */
	bool rh_pending;
	uint16_t final_dst_off;		/* that final destination (the
					 * innermost header IPv6; 0 when it
					 * is IPv4) */
};

/* A packet's gso_parse() of its bytes as they are (struct pkt's
 * gso_cache): valid until its headers move or change (pkt.h), with the
 * result (ok: a whole TCP/UDP header found) and the facts. */
struct gso_cache {
	bool valid;
	bool ok;
	struct gso_info info;
};

/* The bytes n further on are c's packet without its outer IP headers
 * (pkt_pull()): when n is where one of its inner IP headers starts, c
 * becomes the facts of what is left (the same layers from there,
 * shifted); otherwise it is no longer valid.  A failed parse is no guide
 * either: fewer bytes may parse (a packet too long for 16-bit offsets). */
static inline void gso_cache_pull(struct gso_cache *c, uint32_t n)
{
	struct gso_info *gi = &c->info;
	unsigned k = 1, left;

	if (!c->valid || n == 0)
		return;
	while (c->ok && k < gi->nlayers && gi->layer_off[k] != n)
		k++;
	if (!c->ok || k >= gi->nlayers) {
		c->valid = false;
		return;
	}
	left = gi->nlayers - k;
	for (unsigned i = 0; i < GSO_MAX_LAYERS; i++) {
		gi->layer_off[i] = i < left ?
				   (uint16_t)(gi->layer_off[k + i] - n) : 0;
		gi->layer_ver[i] = i < left ? gi->layer_ver[k + i] : 0;
	}
	gi->nlayers = left;
	gi->l4_off = (uint16_t)(gi->l4_off - n);
	gi->hdr_len = (uint16_t)(gi->hdr_len - n);
	if (gi->layer_ver[left - 1] == 6)
		gi->final_dst_off = (uint16_t)(gi->final_dst_off - n);
}

/* c's packet is cut to len bytes (pkt_trim()): the headers all before
 * len, the same facts (gso_parse() reads nothing past them); otherwise
 * no longer valid, a failed parse too (fewer bytes may parse). */
static inline void gso_cache_trim(struct gso_cache *c, uint32_t len)
{
	if (!c->ok || len < c->info.hdr_len)
		c->valid = false;
}

/* The cache of a packet whose cache was `inner` once it has been put
 * behind an outer IPv6 header of hlen bytes with its extension headers,
 * the last naming IPv6 or IPv4 (an encapsulation), len bytes in all: the
 * same layers shifted behind a new first one, without a parse (the outer
 * header's walk changes nothing of the inner ones').  A fifth layer, or
 * more than 16 bits of length, is no parse; an inner cache not valid
 * gives none. */
static inline struct gso_cache gso_cache_encap(struct gso_cache inner,
					       uint32_t hlen, uint32_t len)
{
	const struct gso_info *in = &inner.info;
	struct gso_cache c = { .valid = inner.valid };
	struct gso_info *gi = &c.info;

	if (!inner.valid || !inner.ok)
		return inner;
	if (in->nlayers >= GSO_MAX_LAYERS || len > 0xffff)
		return c;	/* valid, not ok */
	c.ok = true;
	gi->nlayers = in->nlayers + 1;
	gi->layer_ver[0] = 6;
	for (unsigned i = 0; i < in->nlayers; i++) {
		gi->layer_off[i + 1] = (uint16_t)(in->layer_off[i] + hlen);
		gi->layer_ver[i + 1] = in->layer_ver[i];
	}
	gi->l4_off = (uint16_t)(in->l4_off + hlen);
	gi->l4_proto = in->l4_proto;
	gi->hdr_len = (uint16_t)(in->hdr_len + hlen);
	gi->rh_pending = in->rh_pending;
	if (in->layer_ver[in->nlayers - 1] == 6)
		gi->final_dst_off = (uint16_t)(in->final_dst_off + hlen);
	return c;
}

#endif
