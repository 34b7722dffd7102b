/* rules.c - Linux 7.2's verdict payload rule (see rules.h). */
#include <linux/if_ether.h>
#include <string.h>

#include "rules.h"

#define IP6_HLEN	40
#define IP4_HLEN	20

static uint16_t get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* The length of the extension header `nh` at h (avail bytes there), or
 * 0 when nh is not one the rule keeps (the chain ends before it). */
static size_t ip6_ext_len(uint8_t nh, const uint8_t *h, size_t avail)
{
	switch (nh) {
	case 0:		/* Hop-by-Hop Options */
	case 43:	/* Routing */
	case 60:	/* Destination Options */
		return avail >= 2 ? ((size_t)h[1] + 1) * 8 : 0;
	case 44:	/* Fragment */
		return 8;
	case 51:	/* AH (RFC 4302: length in 4-octet units, minus 2) */
		return avail >= 2 ? ((size_t)h[1] + 2) * 4 : 0;
	default:
		return 0;
	}
}

static size_t ip6_span(const uint8_t *p, size_t len)
{
	size_t off = IP6_HLEN, n;
	uint8_t nh;

	if (len < IP6_HLEN)
		return len;
	nh = p[6];
	while (off < len && (n = ip6_ext_len(nh, p + off, len - off)) != 0) {
		nh = p[off];
		off += n;
	}
	return off < len ? off : len;
}

static size_t ip4_span(const uint8_t *p, size_t len)
{
	size_t ihl;

	if (len < IP4_HLEN)
		return len;
	ihl = (size_t)(p[0] & 0x0f) * 4;
	return ihl < len ? ihl : len;
}

size_t k72_header_span(uint16_t hw_proto, const uint8_t *orig, size_t olen)
{
	return hw_proto == ETH_P_IPV6 ? ip6_span(orig, olen) :
	       hw_proto == ETH_P_IP ? ip4_span(orig, olen) : 0;
}

static enum k72_verdict ip6_judge(const uint8_t *o, size_t olen,
				  const uint8_t *np, size_t nlen)
{
	size_t span = ip6_span(o, olen);

	if (nlen < IP6_HLEN || olen < IP6_HLEN || np[0] >> 4 != 6)
		return K72_BAD_FAMILY;
	if (get16(np + 4) != nlen - IP6_HLEN)
		return K72_BAD_LENGTH;
	if (np[6] != o[6])
		return K72_FIRST_NH;
	if (nlen < span || memcmp(np + IP6_HLEN, o + IP6_HLEN, span - IP6_HLEN))
		return K72_EXT_CHANGED;
	return K72_OK;
}

static enum k72_verdict ip4_judge(const uint8_t *o, size_t olen,
				  const uint8_t *np, size_t nlen)
{
	size_t ihl;

	if (nlen < IP4_HLEN || olen < IP4_HLEN || np[0] >> 4 != 4)
		return K72_BAD_FAMILY;
	if (get16(np + 2) != nlen)
		return K72_BAD_LENGTH;
	ihl = (size_t)(o[0] & 0x0f) * 4;
	if ((np[0] & 0x0f) != (o[0] & 0x0f) || nlen < ihl || olen < ihl ||
	    memcmp(np + IP4_HLEN, o + IP4_HLEN, ihl - IP4_HLEN))
		return K72_IHL_OPTIONS;
	if ((get16(np + 6) & ~0x4000) != (get16(o + 6) & ~0x4000))
		return K72_FRAG;
	return K72_OK;
}

enum k72_verdict k72_payload_judge(uint16_t hw_proto, const uint8_t *orig,
				   size_t olen, const uint8_t *np, size_t nlen)
{
	switch (hw_proto) {
	case ETH_P_IPV6:
		return ip6_judge(orig, olen, np, nlen);
	case ETH_P_IP:
		return ip4_judge(orig, olen, np, nlen);
	default:
		return K72_BAD_FAMILY;
	}
}

const char *k72_verdict_name(enum k72_verdict v)
{
	static const char *const names[] = {
		[K72_OK] = "ok",
		[K72_BAD_FAMILY] = "family",
		[K72_BAD_LENGTH] = "length",
		[K72_FIRST_NH] = "first_nh",
		[K72_EXT_CHANGED] = "ext_changed",
		[K72_IHL_OPTIONS] = "ihl_options",
		[K72_FRAG] = "frag",
	};

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}
