/* checksum.h - the Internet checksum (RFC 1071) and the IPv6 pseudo
 * header's sum (RFC 8200 8.1), for the errors the packet path builds. */
#ifndef SRV6D_CHECKSUM_H
#define SRV6D_CHECKSUM_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

/* One's-complement sum helpers (RFC 1071). csum_partial() adds len bytes at
 * buf to the running 32-bit sum; csum_fold() folds and complements. */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum);
uint16_t csum_fold(uint32_t sum);

/* a + b, two running sums, with the carry kept. */
uint32_t csum_add(uint32_t a, uint32_t b);

/* Sum of the IPv6 pseudo header (RFC 8200 8.1): src and dst, 16 bytes
 * each (a struct in6_addr, or the bytes of a header at any alignment). */
uint32_t csum_ipv6_pseudo(const void *src, const void *dst, uint32_t len,
			  uint8_t nexthdr);

/* Sum of the IPv4 pseudo header (RFC 768): src and dst, 4 bytes each in
 * network order, at any alignment. */
uint32_t csum_ipv4_pseudo(const void *src, const void *dst, uint32_t len,
			  uint8_t proto);

/* The value to store (host order) in the checksum field of the IPv4
 * header without options at h (20 bytes, any alignment), whose field is
 * zero: csum_fold(csum_partial(h, 20, 0)), without the loop. */
uint16_t csum_ip4_hdr(const void *h);

#endif
