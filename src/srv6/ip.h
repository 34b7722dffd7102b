/* ip.h - where the fields of the IPv6 (RFC 8200 3) and IPv4 (RFC 791 3.1)
 * headers are, and the one writer of a fixed IPv6 header, for every
 * module of the packet path that reads or writes them. */
#ifndef SRV6D_IP_H
#define SRV6D_IP_H

#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

/* Offsets in the fixed IPv6 header (IPV6_HDR_LEN bytes, srv6.h). */
#define IP6_PLEN_OFF	4	/* Payload Length, 2 bytes */
#define IP6_NH_OFF	6	/* Next Header */
#define IP6_HLIM_OFF	7	/* Hop Limit */
#define IP6_SRC_OFF	8	/* Source Address, 16 bytes */
#define IP6_DST_OFF	24	/* Destination Address, 16 bytes */

/* Offsets in the IPv4 header. */
#define IP4_TOTLEN_OFF	2	/* Total Length, 2 bytes */
#define IP4_SRC_OFF	12	/* Source Address, 4 bytes */
#define IP4_DST_OFF	16	/* Destination Address, 4 bytes */

/* Write the fixed IPv6 header at h: vtcfl is its first 4 bytes in
 * network order (version, traffic class, flow label), plen the Payload
 * Length, nh the Next Header, hlim the Hop Limit.  src and dst must not
 * point into h. */
static inline void ip6_hdr_write(uint8_t *h, uint32_t vtcfl, uint32_t plen,
				 uint8_t nh, uint8_t hlim,
				 const struct in6_addr *src,
				 const struct in6_addr *dst)
{
	memcpy(h, &vtcfl, 4);
	h[IP6_PLEN_OFF] = (uint8_t)(plen >> 8);
	h[IP6_PLEN_OFF + 1] = (uint8_t)plen;
	h[IP6_NH_OFF] = nh;
	h[IP6_HLIM_OFF] = hlim;
	memcpy(h + IP6_SRC_OFF, src, 16);
	memcpy(h + IP6_DST_OFF, dst, 16);
}

/* Set the Payload Length of the IPv6 header at h. */
static inline void ip6_plen_set(uint8_t *h, uint32_t plen)
{
	h[IP6_PLEN_OFF] = (uint8_t)(plen >> 8);
	h[IP6_PLEN_OFF + 1] = (uint8_t)plen;
}

#endif
