/* csid.h - NEXT-C-SID and REPLACE-C-SID flavors (RFC 9800 4.1, 4.2).
 * NEXT-C-SID flavor (RFC 9800 4.1): the compressed SID shift in
 * the destination address.  DA = Locator-Block (lblen bits) | Locator-Node
 * and Function (nflen bits) | Argument (the rest: the next C-SIDs). */
#ifndef SRV6D_CSID_H
#define SRV6D_CSID_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

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
void rcsid_lengths(const struct sid *sid, unsigned *lblen, unsigned *nflen);

/* ceil(log2(128/nflen)): the width of DA.Arg.Index. */
unsigned rcsid_index_bits(unsigned nflen);

/* DA.Arg.Index. */
unsigned rcsid_index(const struct in6_addr *da, unsigned nflen);

/* Segment List entry c's C-SID number i (0 <= i < 128/nflen). */
uint32_t rcsid_get(const struct in6_addr *c, unsigned nflen, unsigned i);

/* RFC 9800 4.2.1 S28 and the index update: write C-SID v into the bits
 * [lblen..lblen+nflen-1] of da and set DA.Arg.Index to idx. */
void rcsid_write(struct in6_addr *da, unsigned lblen, unsigned nflen,
		 uint32_t v, unsigned idx);

#endif
