/* srh.h - locating and validating the Segment Routing Header (RFC 8754).
 *
 * srh_find() walks the IPv6 extension headers that may precede the SRH
 * (Hop-by-Hop, Destination Options, a routing header of another type with
 * Segments Left 0), checks that the SRH fits in the packet and walks its
 * TLVs.  srh_validate() is RFC 8986 4.1 S08-S09 (Last Entry and Segments
 * Left against Hdr Ext Len), which a behavior runs only once it knows the
 * SRH must be processed (Segments Left > 0).
 */
#ifndef SRV6D_SRH_H
#define SRV6D_SRH_H

#include <stdbool.h>
#include <stdint.h>

#include "srv6.h"
#include "stats.h"

/* Where things are in the packet; offsets count from the IPv6 header. */
struct srh_info {
	struct srh *srh;	/* NULL when the packet has no SRH */
	uint32_t srh_off;	/* offset of the SRH (0: none) */
	uint32_t prev_nh_off;	/* offset of the Next Header byte naming the
				 * SRH (6: the IPv6 header's) */
	uint32_t end_off;	/* first byte after the SRH; without an SRH,
				 * the offset of the upper-layer header */
	uint8_t nexthdr;	/* Next Header after the SRH; without an SRH,
				 * the upper-layer protocol */
	uint32_t tlv_off;	/* TLV area [tlv_off, tlv_end); empty when
				 * Last Entry does not fit Hdr Ext Len */
	uint32_t tlv_end;
	uint32_t hmac_off;	/* first HMAC TLV (type 5), 0 when none */
};

/* What srh_find() found wrong: the drop reason and, when icmp is set, the
 * ICMPv6 Parameter Problem owed to the source (RFC 8200 4.4). */
struct srh_error {
	enum drop_reason reason;
	bool icmp;
	uint8_t code;
	uint32_t pointer;
};

/* Find and check the SRH of the IPv6 packet pkt[0..len) (len >= 40).
 * Returns 0 and fills si (si->srh NULL if there is no SRH); returns -1 and
 * fills err when an extension header is truncated or not allowed before the
 * SRH (DROP_TRUNCATED, DROP_EXT_HEADERS, DROP_FRAGMENT), a routing header of
 * another type has Segments Left > 0 (DROP_BAD_SRH with Parameter Problem
 * code 0 at its Routing Type), or a TLV runs past the SRH (DROP_BAD_TLV). */
int srh_find(uint8_t *pkt, uint32_t len, struct srh_info *si,
	     struct srh_error *err);

/* RFC 8986 4.1 S08-S09 (RFC 8754 4.3.1.1): true unless Last Entry >
 * max_LE = (Hdr Ext Len / 2) - 1 or Segments Left > Last Entry + 1. */
bool srh_validate(const struct srh *srh);

/* Walk the TLVs in tlv[0..len): Pad1 is one byte, every other TLV is
 * type, length, value.  Returns the offset of the first HMAC TLV in
 * *hmac_off (UINT32_MAX when none).  Returns 0, or -1 if a TLV runs past
 * the end. */
int srh_tlv_walk(const uint8_t *tlv, uint32_t len, uint32_t *hmac_off);

#endif
