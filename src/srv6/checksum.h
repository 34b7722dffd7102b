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

/* Sum of the IPv6 pseudo header (RFC 8200 8.1). */
uint32_t csum_ipv6_pseudo(const struct in6_addr *src,
			  const struct in6_addr *dst, uint32_t len,
			  uint8_t nexthdr);

#endif
