/* srh.c - locating and validating the Segment Routing Header
 * (RFC 8754 2 and 4.3.1, RFC 8986 4.1 S08-S09, RFC 8200 4). */
#include <stddef.h>
#include <stdint.h>

#include "srh.h"

/* Offset of the Routing Type field in a routing header (RFC 8200 4.4). */
#define RH_TYPE_OFF	2
#define RH_SL_OFF	3

static int srh_fail(struct srh_error *err, enum drop_reason reason)
{
	err->reason = reason;
	err->icmp = false;
	err->code = 0;
	err->pointer = 0;
	return -1;
}

/* Length in bytes of the extension header at pkt+off (Hdr Ext Len in
 * 8-octet units, not counting the first 8). */
static uint32_t ext_hdr_len(const uint8_t *pkt, uint32_t off)
{
	return ((uint32_t)pkt[off + 1] + 1) * 8;
}

/* RFC 8754 2.1: Pad1 (type 0) is a single byte; every other TLV has a
 * type, a length and that many bytes of value.  Unknown types are skipped
 * by their length. */
int srh_tlv_walk(const uint8_t *tlv, uint32_t len, uint32_t *hmac_off)
{
	uint32_t off = 0;

	*hmac_off = UINT32_MAX;
	while (off < len) {
		if (tlv[off] == SRH_TLV_PAD1) {
			off++;
			continue;
		}
		if (len - off < 2 || len - off - 2 < tlv[off + 1])
			return -1;
		if (tlv[off] == SRH_TLV_HMAC && *hmac_off == UINT32_MAX)
			*hmac_off = off;
		off += 2 + (uint32_t)tlv[off + 1];
	}
	return 0;
}

/* RFC 8986 4.1 S08-S09. */
bool srh_validate(const struct srh *srh)
{
	int max_le = srh->hdrlen / 2 - 1;	/* S08 */

	if ((int)srh->last_entry > max_le)	/* S09 */
		return false;
	if (srh->segments_left > srh->last_entry + 1)
		return false;
	return true;
}

/* Check the SRH at pkt+off fits in the packet and walk its TLVs.  The TLV
 * area follows the Segment List (Last Entry + 1 entries); when Last Entry
 * does not fit Hdr Ext Len, the TLV area is left empty and srh_validate()
 * rejects the SRH when it must be processed. */
static int srh_parse(uint8_t *pkt, uint32_t len, uint32_t off,
		     struct srh_info *si, struct srh_error *err)
{
	struct srh *srh = (struct srh *)(pkt + off);
	uint32_t slen, tlv, hmac;

	if (len - off < SRH_FIXED_LEN)
		return srh_fail(err, DROP_TRUNCATED);
	slen = srh_len(srh);
	if (len - off < slen)
		return srh_fail(err, DROP_TRUNCATED);

	si->srh = srh;
	si->srh_off = off;
	si->end_off = off + slen;
	si->nexthdr = srh->nexthdr;
	si->tlv_off = si->tlv_end = si->end_off;
	si->hmac_off = 0;

	tlv = SRH_FIXED_LEN + ((uint32_t)srh->last_entry + 1) * 16;
	if (srh->last_entry > srh->hdrlen / 2 - 1 || tlv > slen)
		return 0;
	si->tlv_off = off + tlv;
	if (srh_tlv_walk(pkt + si->tlv_off, slen - tlv, &hmac) < 0)
		return srh_fail(err, DROP_BAD_TLV);
	if (hmac != UINT32_MAX)
		si->hmac_off = si->tlv_off + hmac;
	return 0;
}

/* A routing header that is not an SRH (RFC 8200 4.4): ignored with
 * Segments Left 0, otherwise Parameter Problem code 0 at Routing Type. */
static int other_rh(const uint8_t *pkt, uint32_t off, struct srh_error *err)
{
	if (pkt[off + RH_SL_OFF] == 0)
		return 0;
	err->reason = DROP_BAD_SRH;
	err->icmp = true;
	err->code = 0;
	err->pointer = off + RH_TYPE_OFF;
	return -1;
}

int srh_find(uint8_t *pkt, uint32_t len, struct srh_info *si,
	     struct srh_error *err)
{
	uint32_t off = IPV6_HDR_LEN, nh_off = 6;
	uint8_t nh = pkt[nh_off];

	si->srh = NULL;
	si->srh_off = 0;
	si->prev_nh_off = 0;
	si->tlv_off = si->tlv_end = si->hmac_off = 0;

	for (;;) {
		switch (nh) {
		case IPPROTO_HOPOPTS:
			if (off != IPV6_HDR_LEN)	/* RFC 8200 4.1 */
				return srh_fail(err, DROP_EXT_HEADERS);
			break;
		case IPPROTO_DSTOPTS:
			break;
		case IPPROTO_ROUTING:
			if (len - off < 4)
				return srh_fail(err, DROP_TRUNCATED);
			if (pkt[off + RH_TYPE_OFF] == SRH_TYPE) {
				si->prev_nh_off = nh_off;
				return srh_parse(pkt, len, off, si, err);
			}
			if (other_rh(pkt, off, err) < 0)
				return -1;
			break;
		case IPPROTO_FRAGMENT:
			return srh_fail(err, DROP_FRAGMENT);
		case IPPROTO_AH:
		case 135:	/* Mobility */
		case 139:	/* HIP */
		case 140:	/* Shim6 */
		case 253:	/* experimental */
		case 254:
			return srh_fail(err, DROP_EXT_HEADERS);
		default:	/* an upper layer (ESP and No Next Header too) */
			si->end_off = off;
			si->nexthdr = nh;
			return 0;
		}
		if (len - off < 8 || len - off < ext_hdr_len(pkt, off))
			return srh_fail(err, DROP_TRUNCATED);
		nh_off = off;
		nh = pkt[off];
		off += ext_hdr_len(pkt, off);
	}
}
