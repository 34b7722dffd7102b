/* srv6.h - wire formats shared by the packet path: the IPv6 header's
 * length, the SRH (RFC 8754).  Header fields: ip.h; checksums:
 * checksum.h. */
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

#endif
