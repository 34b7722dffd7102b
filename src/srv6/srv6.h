/* srv6.h - wire formats and small helpers shared by the packet path:
 * IPv6/IPv4 headers, the SRH (RFC 8754), Internet checksums. */
#ifndef SRV6D_SRV6_H
#define SRV6D_SRV6_H

#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <stdint.h>
#include <string.h>

#define IPV6_HDR_LEN	40
#define SRH_FIXED_LEN	8
#define IPPROTO_SRH	IPPROTO_ROUTING	/* 43 */
#define SRH_TYPE	4		/* Routing Type of the SRH */

/* SRH TLV types (RFC 8754 2.1). */
#define SRH_TLV_PAD1	0
#define SRH_TLV_PADN	4
#define SRH_TLV_HMAC	5

/* SRH flags (Linux's legacy H flag bit, for reading Linux HMAC layout). */
#define SRH_FLAG_HMAC_LINUX	0x08

struct srh {
	uint8_t nexthdr;
	uint8_t hdrlen;		/* 8-octet units, not counting the first 8 */
	uint8_t type;
	uint8_t segments_left;
	uint8_t last_entry;
	uint8_t flags;
	uint16_t tag;
	struct in6_addr segments[];
} __attribute__((packed));

static inline unsigned srh_len(const struct srh *s)
{
	return ((unsigned)s->hdrlen + 1) * 8;
}

/* One's-complement sum helpers (RFC 1071). csum_partial() adds len bytes at
 * buf to the running 32-bit sum; csum_fold() folds and complements. */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum);
uint16_t csum_fold(uint32_t sum);

/* Sum of the IPv6 pseudo header (RFC 8200 8.1). */
uint32_t csum_ipv6_pseudo(const struct in6_addr *src,
			  const struct in6_addr *dst, uint32_t len,
			  uint8_t nexthdr);

#endif
