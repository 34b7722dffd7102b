/* csid.c - NEXT-C-SID (RFC 9800 4.1) and REPLACE-C-SID (4.2): the C-SID shift in the destination
 * address, done on the address as one 128-bit number so that any block and
 * node-function length works (Linux accepts multiples of 8 only; for those
 * the result is the same bytes as its seg6_next_csid_advance_arg()). */
#include <endian.h>
#include <string.h>

#include "csid.h"

typedef unsigned __int128 u128;

/* The address as a big-endian 128-bit number: two 64-bit loads. */
static u128 addr_load(const struct in6_addr *a)
{
	uint64_t hi, lo;

	memcpy(&hi, a->s6_addr, 8);
	memcpy(&lo, a->s6_addr + 8, 8);
	return (u128)be64toh(hi) << 64 | be64toh(lo);
}

static void addr_store(struct in6_addr *a, u128 v)
{
	uint64_t hi = htobe64((uint64_t)(v >> 64)), lo = htobe64((uint64_t)v);

	memcpy(a->s6_addr, &hi, 8);
	memcpy(a->s6_addr + 8, &lo, 8);
}

/* Mask of the low n bits, 0 <= n <= 128. */
static u128 low_bits(unsigned n)
{
	return n >= 128 ? ~(u128)0 : ((u128)1 << n) - 1;
}

void csid_lengths(const struct sid *sid, unsigned *lblen, unsigned *nflen)
{
	*lblen = sid->lblen ? sid->lblen : CSID_DEFAULT_LBLEN;
	*nflen = sid->nflen ? sid->nflen : CSID_DEFAULT_NFLEN;
}

bool csid_arg_nonzero(const struct in6_addr *da, unsigned lblen,
		      unsigned nflen)
{
	if (lblen + nflen >= 128)
		return false;
	return (addr_load(da) & low_bits(128 - lblen - nflen)) != 0;
}

void csid_advance(struct in6_addr *da, unsigned lblen, unsigned nflen)
{
	u128 v, keep, rest;

	if (lblen + nflen >= 128)
		return;
	v = addr_load(da);
	keep = low_bits(128 - lblen);		/* everything after the block */
	rest = (v << nflen) & keep;		/* argument moved up, zeros in */
	addr_store(da, (v & ~keep) | rest);
}

unsigned rcsid_index_bits(unsigned nflen)
{
	unsigned n = 128 / nflen;	/* C-SIDs a container holds */

	return n <= 1 ? 0 : 32 - (unsigned)__builtin_clz(n - 1);
}

unsigned rcsid_index_any(const struct in6_addr *da, unsigned nflen)
{
	return (unsigned)(addr_load(da) & low_bits(rcsid_index_bits(nflen)));
}

uint32_t rcsid_get_any(const struct in6_addr *c, unsigned nflen, unsigned i)
{
	return (uint32_t)((addr_load(c) >> (128 - (i + 1) * nflen)) &
			  low_bits(nflen));
}

void rcsid_write_any(struct in6_addr *da, unsigned lblen, unsigned nflen,
		     uint32_t v, unsigned idx)
{
	unsigned ib = rcsid_index_bits(nflen);
	u128 a, cmask;

	a = addr_load(da);
	cmask = low_bits(nflen) << (128 - lblen - nflen);
	a = (a & ~cmask) | ((u128)v << (128 - lblen - nflen) & cmask);
	a = (a & ~low_bits(ib)) | ((u128)idx & low_bits(ib));
	addr_store(da, a);
}
