/* csid.c - NEXT-C-SID (RFC 9800 4.1) and REPLACE-C-SID (4.2): the C-SID shift in the destination
 * address, done on the address as one 128-bit number so that any block and
 * node-function length works (Linux accepts multiples of 8 only; for those
 * the result is the same bytes as its seg6_next_csid_advance_arg()). */
#include <string.h>

#include "csid.h"

typedef unsigned __int128 u128;

static u128 addr_load(const struct in6_addr *a)
{
	u128 v = 0;

	for (int i = 0; i < 16; i++)
		v = v << 8 | a->s6_addr[i];
	return v;
}

static void addr_store(struct in6_addr *a, u128 v)
{
	for (int i = 15; i >= 0; i--) {
		a->s6_addr[i] = (uint8_t)v;
		v >>= 8;
	}
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

void rcsid_lengths(const struct sid *sid, unsigned *lblen, unsigned *nflen)
{
	*lblen = sid->lblen ? sid->lblen : RCSID_DEFAULT_LBLEN;
	*nflen = sid->nflen ? sid->nflen : RCSID_DEFAULT_NFLEN;
}

unsigned rcsid_index_bits(unsigned nflen)
{
	unsigned n = 128 / nflen, b = 0;

	while ((1u << b) < n)
		b++;
	return b;
}

unsigned rcsid_index(const struct in6_addr *da, unsigned nflen)
{
	return (unsigned)(addr_load(da) & low_bits(rcsid_index_bits(nflen)));
}

uint32_t rcsid_get(const struct in6_addr *c, unsigned nflen, unsigned i)
{
	return (uint32_t)((addr_load(c) >> (128 - (i + 1) * nflen)) &
			  low_bits(nflen));
}

void rcsid_write(struct in6_addr *da, unsigned lblen, unsigned nflen,
		 uint32_t v, unsigned idx)
{
	unsigned ib = rcsid_index_bits(nflen);
	u128 a = addr_load(da);
	u128 cmask = low_bits(nflen) << (128 - lblen - nflen);

	a = (a & ~cmask) | ((u128)v << (128 - lblen - nflen) & cmask);
	a = (a & ~low_bits(ib)) | ((u128)idx & low_bits(ib));
	addr_store(da, a);
}
