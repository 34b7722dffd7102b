/* checksum.c - the Internet checksum (RFC 1071) and pseudo-header sums.
 *
 * csum_partial() sums native 32-bit words into a 64-bit accumulator (no
 * carry is lost below 2^32 words) and folds once at the end: the
 * one's-complement sum does not depend on the byte order of its 16-bit
 * words (RFC 1071 2(B)), so the folded native sum is byte-swapped once
 * into the network-order sum the callers keep.  A buffer of more than
 * 128 bytes (a payload) goes through a loop the compiler vectorizes
 * (SSE2's 64-bit lanes, x86-64's baseline); a header through a plain one. */
#include <arpa/inet.h>
#include <string.h>

#include "checksum.h"

/* The sum of the n native 32-bit words at b, in 64 bits; the loop
 * vectorized for payloads (a header's few words take its scalar tail). */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("tree-vectorize")))
#endif
static uint64_t sum_words32(const uint8_t *b, size_t n)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t w;

		memcpy(&w, b + 4 * i, 4);
		acc += w;
	}
	return acc;
}

/* A native-order sum of 32-bit words folded to 16 bits, in the order of
 * the network's 16-bit words. */
static uint32_t fold_native(uint64_t acc)
{
	acc = (acc & 0xffffffffu) + (acc >> 32);
	acc = (acc & 0xffffffffu) + (acc >> 32);
	acc = (acc & 0xffff) + (acc >> 16);
	acc = (acc & 0xffff) + (acc >> 16);
	acc = (acc & 0xffff) + (acc >> 16);
	return ntohs((uint16_t)acc);
}

/* The one's-complement sum of the len bytes (len < CSUM_SHORT) at b in
 * native 64-bit words, the carry of each add put back (2^64 is 1 modulo
 * 0xffff, as 2^32 is: fold_native() takes it), the last bytes padded with
 * zero: a header's few words, where the vectorized loop's set-up and the
 * 32-bit tail's byte loop cost more than the sum (callgrind: 71
 * instructions a call for a GTP-U datagram's 32 bytes of headers before,
 * 63 this way). */
#define CSUM_SHORT	64
static inline uint64_t sum_short(const uint8_t *b, size_t len)
{
	uint64_t acc = 0, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, b + i, 8);
		acc += w;
		acc += acc < w;
	}
	if (i < len) {	/* 1-7 bytes, in fixed-size moves, not a byte loop */
		size_t r = len - i;
		uint8_t t[8] = { 0 };

		if (r & 4)
			memcpy(t, b + i, 4);
		if (r & 2)
			memcpy(t + (r & 4), b + i + (r & 4), 2);
		if (r & 1)
			t[r & 6] = b[i + (r & 6)];
		memcpy(&w, t, 8);
		acc += w;
		acc += acc < w;
	}
	return acc;
}

/* The native unfolded sum of len bytes at buf (checksum.h): a header's
 * by sum_short(), a payload's by the vectorized loop (a plain sum of
 * 32-bit words, which cannot carry out of 64 bits). */
uint64_t csum_native(const void *buf, size_t len)
{
	const uint8_t *b = buf;
	uint64_t acc;

	if (len < CSUM_SHORT)
		return sum_short(b, len);
	acc = sum_words32(b, len / 4);
	if (len & 3) {
		uint8_t tail[4] = { 0 };	/* zero-padded */
		uint32_t w;

		memcpy(tail, b + (len & ~(size_t)3), len & 3);
		memcpy(&w, tail, 4);
		acc += w;
	}
	return acc;
}

/* Fold the native sum acc to 16 bits, complemented, host order. */
uint16_t csum_native_fold(uint64_t acc)
{
	return csum_fold(fold_native(acc));
}

/* Add len bytes at buf to the running sum; returns the new sum.  Works on
 * any alignment; an odd trailing byte is padded with zero. */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum)
{
	uint64_t acc = (uint64_t)sum + fold_native(csum_native(buf, len));

	return (uint32_t)((acc & 0xffffffffu) + (acc >> 32));
}

/* Fold a running sum to 16 bits and complement it: the value to store, in
 * host order (store with htons). */
uint16_t csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint32_t csum_add(uint32_t a, uint32_t b)
{
	uint64_t t = (uint64_t)a + b;

	return (uint32_t)((t & 0xffffffffu) + (t >> 32));
}

/* Sum of the IPv6 pseudo header for an upper-layer packet of len bytes. */
uint32_t csum_ipv6_pseudo(const void *src, const void *dst, uint32_t len,
			  uint8_t nexthdr)
{
	uint64_t w[4], lo;
	unsigned __int128 acc;

	memcpy(w, src, 16);
	memcpy(w + 2, dst, 16);
	acc = (unsigned __int128)w[0] + w[1] + w[2] + w[3];	/* add, adc */
	lo = (uint64_t)acc + (uint64_t)(acc >> 64);
	lo += lo < (uint64_t)acc;				/* its carry */
	return fold_native(lo) + (len >> 16) + (len & 0xffff) + nexthdr;
}

/* Sum of the IPv4 pseudo header (RFC 768) for an upper-layer packet of
 * len bytes; src and dst in network order. */
uint32_t csum_ipv4_pseudo(const void *src, const void *dst, uint32_t len,
			  uint8_t proto)
{
	uint32_t s, d;

	memcpy(&s, src, 4);
	memcpy(&d, dst, 4);
	return fold_native((uint64_t)s + d) + (len >> 16) + (len & 0xffff) +
	       proto;
}

/* The checksum of the 20-byte IPv4 header at h (no options; its checksum
 * field zero): its five words summed at once, no loop. */
uint16_t csum_ip4_hdr(const void *h)
{
	uint32_t w[5];

	memcpy(w, h, sizeof(w));
	return csum_fold(fold_native((uint64_t)w[0] + w[1] + w[2] + w[3] +
				     w[4]));
}
