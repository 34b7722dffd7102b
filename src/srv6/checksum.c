/* checksum.c - the Internet checksum (RFC 1071) and pseudo-header sums. */
#include <arpa/inet.h>

#include "checksum.h"

/* Add len bytes at buf to the running sum; returns the new sum.  Works on
 * any alignment; an odd trailing byte is padded with zero. */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *b = buf;
	uint64_t acc = sum;

	while (len >= 2) {
		acc += (uint32_t)(b[0] << 8 | b[1]);
		b += 2;
		len -= 2;
	}
	if (len)
		acc += (uint32_t)(b[0] << 8);
	while (acc >> 32)
		acc = (acc & 0xffffffffu) + (acc >> 32);
	return (uint32_t)acc;
}

/* Fold a running sum to 16 bits and complement it: the value to store, in
 * host order (store with htons). */
uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Sum of the IPv6 pseudo header for an upper-layer packet of len bytes. */
uint32_t csum_ipv6_pseudo(const struct in6_addr *src,
			  const struct in6_addr *dst, uint32_t len,
			  uint8_t nexthdr)
{
	uint32_t sum = 0;

	sum = csum_partial(src, sizeof(*src), sum);
	sum = csum_partial(dst, sizeof(*dst), sum);
	sum = csum_partial(&(uint8_t[8]){ (uint8_t)(len >> 24), (uint8_t)(len >> 16),
					 (uint8_t)(len >> 8), (uint8_t)len,
					 0, 0, 0, nexthdr }, 8, sum);
	return sum;
}
