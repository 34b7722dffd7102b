/* csid.h - NEXT-C-SID and REPLACE-C-SID flavors (RFC 9800 4.1, 4.2).
 * NEXT-C-SID flavor (RFC 9800 4.1): the compressed SID shift in
 * the destination address.  DA = Locator-Block (lblen bits) | Locator-Node
 * and Function (nflen bits) | Argument (the rest: the next C-SIDs). */
#ifndef SRV6D_CSID_H
#define SRV6D_CSID_H

#include <endian.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "config.h"

/* The SID's block and node-function lengths in bits, the defaults
 * (CSID_DEFAULT_LBLEN/NFLEN) where the SID leaves them 0. */
void csid_lengths(const struct sid *sid, unsigned *lblen, unsigned *nflen);

/* True if DA.Argument (the bits after lblen + nflen) is not all zero.
 * False when lblen + nflen leaves no argument. */
bool csid_arg_nonzero(const struct in6_addr *da, unsigned lblen,
		      unsigned nflen);

/* RFC 9800 4.1.1: shift DA.Argument left by nflen bits into the
 * node-function position, filling the last nflen bits with zeros; the
 * Locator-Block is unchanged. */
void csid_advance(struct in6_addr *da, unsigned lblen, unsigned nflen);

/* REPLACE-C-SID (RFC 9800 4.2): DA = Locator-Block (lblen bits) |
 * C-SID (nflen bits, 16 or 32) | Argument, whose least significant
 * ceil(log2(128/nflen)) bits are DA.Arg.Index, the index of the next
 * C-SID in the container Segment List[Segments Left].  C-SID i of a
 * container is its bits [i*nflen..(i+1)*nflen-1], bit 0 the most
 * significant (RFC 9800 4.2.1, notes). */
static inline void rcsid_lengths(const struct sid *sid, unsigned *lblen,
				 unsigned *nflen)
{
	*lblen = sid->lblen ? sid->lblen : RCSID_DEFAULT_LBLEN;
	*nflen = sid->nflen ? sid->nflen : RCSID_DEFAULT_NFLEN;
}

/* ceil(log2(128/nflen)): the width of DA.Arg.Index. */
unsigned rcsid_index_bits(unsigned nflen);

/* The field ops of any lengths, on the address as a 128-bit number (the
 * inline functions below take the common ones, 16- and 32-bit C-SIDs
 * behind a whole-byte block, as 16- and 32-bit words; check_end's
 * rcsid_field_ops runs both against a bit-by-bit reference). */
unsigned rcsid_index_any(const struct in6_addr *da, unsigned nflen);
uint32_t rcsid_get_any(const struct in6_addr *c, unsigned nflen, unsigned i);
void rcsid_write_any(struct in6_addr *da, unsigned lblen, unsigned nflen,
		     uint32_t v, unsigned idx);

/* DA.Arg.Index. */
static inline unsigned rcsid_index(const struct in6_addr *da, unsigned nflen)
{
	if (nflen == 32)
		return da->s6_addr[15] & 3u;
	if (nflen == 16)
		return da->s6_addr[15] & 7u;
	return rcsid_index_any(da, nflen);
}

/* Segment List entry c's C-SID number i (0 <= i < 128/nflen). */
static inline uint32_t rcsid_get(const struct in6_addr *c, unsigned nflen,
				 unsigned i)
{
	if (nflen == 32 && i < 4) {
		uint32_t v;

		memcpy(&v, c->s6_addr + 4 * i, 4);
		return be32toh(v);
	}
	if (nflen == 16 && i < 8) {
		uint16_t v;

		memcpy(&v, c->s6_addr + 2 * i, 2);
		return be16toh(v);
	}
	return rcsid_get_any(c, nflen, i);
}

/* RFC 9800 4.2.1 S28 and the index update: write C-SID v into the bits
 * [lblen..lblen+nflen-1] of da and set DA.Arg.Index to idx. */
static inline void rcsid_write(struct in6_addr *da, unsigned lblen,
			       unsigned nflen, uint32_t v, unsigned idx)
{
	uint8_t m;

	if (lblen % 8 || lblen + nflen > 120 || (nflen != 32 && nflen != 16)) {
		rcsid_write_any(da, lblen, nflen, v, idx);
		return;
	}
	if (nflen == 32) {
		uint32_t w = htobe32(v);

		memcpy(da->s6_addr + lblen / 8, &w, 4);
		m = 3;
	} else {
		uint16_t w = htobe16((uint16_t)v);

		memcpy(da->s6_addr + lblen / 8, &w, 2);
		m = 7;
	}
	da->s6_addr[15] = (uint8_t)((da->s6_addr[15] & ~m) | (idx & m));
}

#endif
