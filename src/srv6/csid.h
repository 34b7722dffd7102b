/* csid.h - NEXT-C-SID flavor (RFC 9800 4.1): the compressed SID shift in
 * the destination address.  DA = Locator-Block (lblen bits) | Locator-Node
 * and Function (nflen bits) | Argument (the rest: the next C-SIDs). */
#ifndef SRV6D_CSID_H
#define SRV6D_CSID_H

#include <netinet/in.h>
#include <stdbool.h>

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

#endif
