/* checksum.h - the Internet checksum (RFC 1071) and the IPv6 pseudo
 * header's sum (RFC 8200 8.1), for the errors the packet path builds. */
#ifndef SRV6D_CHECKSUM_H
#define SRV6D_CHECKSUM_H

#include <arpa/inet.h>
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

/* A sum kept native and unfolded, for a checksum of a few parts folded
 * once (the GTP-U datagrams' UDP checksum): the native-order sum of the
 * len bytes at buf (any alignment, the last bytes padded with zero) in 64
 * bits, whose carries are not lost (each add's is put back: 2^64 is 1
 * modulo 0xffff).  Only csum_native_add(), csum_native_word() and the
 * bitwise complement (its negation) combine with it. */
uint64_t csum_native(const void *buf, size_t len);

/* a + b, two native sums, with the end-around carry. */
static inline uint64_t csum_native_add(uint64_t a, uint64_t b)
{
	a += b;
	return a + (a < b);
}

/* The native sum of one network-order 16-bit word of value w (a length,
 * a protocol: its low 16 bits). */
static inline uint64_t csum_native_word(uint32_t w)
{
	return htons((uint16_t)w);
}

/* The value to store (host order) for the native sum acc:
 * csum_fold() of it. */
uint16_t csum_native_fold(uint64_t acc);

#endif
