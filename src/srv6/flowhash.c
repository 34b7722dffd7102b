/* flowhash.c - flow hash and weighted segment-list choice (flowhash.h).
 *
 * The hash mixes 32-bit words with multiply-rotate steps and finishes with
 * MurmurHash3's fmix32, so that consecutive addresses and ports spread
 * evenly over the whole 32-bit range and `hash % total_weight` splits the
 * flows in proportion to the weights. */
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

#include "flowhash.h"

#define FLOWHASH_SEED	0x5d6f5eedu

static uint32_t rotl32(uint32_t x, unsigned r)
{
	return (x << r) | (x >> (32 - r));
}

static uint32_t mix(uint32_t h, uint32_t w)
{
	w *= 0xcc9e2d51u;
	w = rotl32(w, 15);
	w *= 0x1b873593u;
	h ^= w;
	h = rotl32(h, 13);
	return h * 5 + 0xe6546b64u;
}

static uint32_t fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static uint32_t word_at(const uint8_t *b)
{
	uint32_t w;

	memcpy(&w, b, sizeof(w));
	return w;
}

static uint32_t mix_bytes(uint32_t h, const uint8_t *b, unsigned n)
{
	for (unsigned i = 0; i + 4 <= n; i += 4)
		h = mix(h, word_at(b + i));
	return h;
}

/* Ports of a TCP, UDP, UDP-Lite or SCTP header at pkt+off, 0 otherwise. */
static uint32_t ports_at(const uint8_t *pkt, uint32_t len, uint32_t off,
			 uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
		if (len >= 4 && off <= len - 4)
			return word_at(pkt + off);
		return 0;
	default:
		return 0;
	}
}

/* The flow of an IPv4 packet: source, destination, protocol, and the
 * ports unless it is a fragment (so all fragments hash alike). */
static uint32_t flowhash_ipv4(const uint8_t *pkt, uint32_t len)
{
	uint32_t h = FLOWHASH_SEED, ihl, frag;

	if (len < 20)
		return fmix32(h ^ len);
	ihl = (uint32_t)(pkt[0] & 0x0f) * 4;
	frag = ((uint32_t)pkt[6] << 8 | pkt[7]) & 0x3fff;	/* MF, offset */
	h = mix_bytes(h, pkt + 12, 8);		/* source, destination */
	h = mix(h, pkt[9]);
	if (!frag)
		h = mix(h, ports_at(pkt, len, ihl, pkt[9]));
	return fmix32(h ^ 20);
}

/* Walk the extension headers (Hop-by-Hop, Routing, Destination Options)
 * after the IPv6 header to the upper layer: its protocol in *proto and
 * its offset in *off (past len when a header is cut short).  A fragment
 * header stops the walk: later fragments have no ports. */
static void ipv6_upper_layer(const uint8_t *pkt, uint32_t len, uint8_t *proto,
			     uint32_t *off)
{
	uint8_t nh = pkt[6];
	uint32_t o = 40;

	for (unsigned n = 0; n < 8; n++) {
		if (nh != IPPROTO_HOPOPTS && nh != IPPROTO_ROUTING &&
		    nh != IPPROTO_DSTOPTS)
			break;
		if (len < 8 || o > len - 8) {
			o = len + 1;
			break;
		}
		nh = pkt[o];
		o += ((uint32_t)pkt[o + 1] + 1) * 8;
	}
	*proto = nh;
	*off = o;
}

/* The flow of an IPv6 packet: source, destination and the flow label;
 * without a label, the upper layer's protocol and ports, or, for a tunnel
 * (an IPv6 or IPv4 packet inside, e.g. SRv6 traffic at a binding SID),
 * the inner packet's flow. */
static uint32_t flowhash_ipv6(const uint8_t *pkt, uint32_t len, unsigned depth)
{
	uint32_t h = FLOWHASH_SEED, label, off;
	uint8_t proto;

	if (len < 40)
		return fmix32(h ^ len);
	h = mix_bytes(h, pkt + 8, 32);		/* source, destination */
	label = ((uint32_t)(pkt[1] & 0x0f) << 16) | (uint32_t)pkt[2] << 8 |
		pkt[3];
	if (label)
		return fmix32(mix(h, label) ^ 40);
	ipv6_upper_layer(pkt, len, &proto, &off);
	h = mix(h, proto);
	if (off < len && depth == 0 && proto == IPPROTO_IPV6)
		h = mix(h, flowhash_ipv6(pkt + off, len - off, 1));
	else if (off < len && depth == 0 && proto == IPPROTO_IPIP)
		h = mix(h, flowhash_ipv4(pkt + off, len - off));
	else
		h = mix(h, ports_at(pkt, len, off, proto));
	return fmix32(h ^ 40);
}

uint32_t flowhash_packet(const uint8_t *pkt, uint32_t len, uint16_t hw_proto)
{
	if (hw_proto == ETH_P_IP)
		return flowhash_ipv4(pkt, len);
	return flowhash_ipv6(pkt, len, 0);
}

unsigned flowhash_pick(uint32_t hash, const uint16_t *weights, unsigned n)
{
	uint64_t total = 0, point;

	for (unsigned i = 0; i < n; i++)
		total += weights[i];
	if (n <= 1 || total == 0)
		return 0;
	/* Scale the hash onto [0, total) by multiplication (Lemire): uses
	 * its high bits, no division on the packet path.  (Weights summing
	 * past 32 bits would overflow it: take the hash as the point.) */
	if (total > UINT32_MAX)
		point = hash;
	else
		point = ((uint64_t)hash * total) >> 32;
	for (unsigned i = 0; i < n; i++) {
		if (point < weights[i])
			return i;
		point -= weights[i];
	}
	return n - 1;
}
