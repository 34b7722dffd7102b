/* hmac.h - the SRH's HMAC TLV (RFC 8754 2.1.2): generated at the headend,
 * verified at this node's SIDs.
 *
 * The HMAC is computed over the text RFC 8754 2.1.2.1 lists: the IPv6
 * Source Address, Last Entry, Flags, the HMAC Key ID and every address of
 * the Segment List; the digest (SHA-256, or SHA-1 zero-padded) fills the
 * TLV's 32-byte HMAC field.  This is also exactly what Linux computes
 * (net/ipv6/seg6_hmac.c, seg6_hmac_compute), so srv6d and the kernel
 * accept each other's HMACs.
 *
 * Generated TLVs use the layout Linux's verifier needs: the legacy H flag
 * (0x08) in the SRH flags and the 40-byte TLV as the last bytes of the
 * SRH.  Received SRHs follow RFC 8754: the TLV may be anywhere in the TLV
 * area (after Pad1/PadN or other TLVs), and the H flag is not required.
 */
#ifndef SRV6D_HMAC_H
#define SRV6D_HMAC_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "ctx.h"
#include "srh.h"
#include "srv6.h"

#define HMAC_TLV_LEN		40	/* type, length, D + reserved, key id, HMAC */
#define HMAC_TLV_DATA_LEN	38	/* the TLV's Length field */
#define HMAC_FIELD_LEN		32	/* the HMAC field */
#define HMAC_TLV_D_FLAG		0x80	/* byte 2: DA check disabled (reduced list) */
#define HMAC_OK			DROP__COUNT	/* hmac_verify(): no drop reason */

/* Compute the HMAC of the SRH `srh` (Last Entry + 1 segments, which the
 * caller has checked are in the packet) of a packet from `src` (16 bytes)
 * under `key`.  Writes HMAC_FIELD_LEN bytes to out (a SHA-1 digest is
 * zero-padded).  Returns 0, or -1 for an unknown algorithm. */
int hmac_srh_digest(const struct hmac_key *key, const uint8_t *src,
		    const struct srh *srh, uint8_t out[HMAC_FIELD_LEN]);

/* Write an HMAC TLV (HMAC_TLV_LEN bytes) at tlv for the SRH srh, whose
 * segments, Last Entry and flags are already written, of a packet from
 * src; d_flag sets the D bit (a reduced segment list: the DA is not in
 * the list).  Returns 0, or -1 for an unknown algorithm. */
int hmac_tlv_write(uint8_t *tlv, const struct hmac_key *key, bool d_flag,
		   const uint8_t *src, const struct srh *srh);

/* RFC 8754 2.1.2.1: verify the first HMAC TLV of the SRH found by
 * srh_find() (si->srh not NULL) in the IPv6 packet pkt.  Returns HMAC_OK;
 * DROP_HMAC_MISSING when the SRH has no HMAC TLV; DROP_BAD_TLV when its
 * HMAC field is not 8, 16, 24 or 32 bytes; DROP_HMAC_UNKNOWN when cfg has
 * no key of its Key ID; DROP_HMAC_WRONG when the D bit is clear and the
 * Destination Address is not Segment List[Segments Left] (an SRH in
 * Linux's layout with Segments Left = Last Entry + 1 counts as reduced:
 * Linux sets no D bit), or the HMAC differs (compared in constant
 * time). */
enum drop_reason hmac_verify(const struct config *cfg, const uint8_t *pkt,
			     const struct srh_info *si);

/* The HMAC policy of this node's SIDs, run by the dispatcher before any
 * SID behavior.  With `hmac-require yes` an SRH must carry a valid HMAC;
 * otherwise, when HMAC keys are configured, an HMAC that is present must
 * verify (Linux's seg6_require_hmac 0); with neither, nothing is checked.
 * A packet without SRH has no segment list to protect and passes (as in
 * Linux: e.g. reduced encapsulation with one segment to a decapsulating
 * SID).  A packet whose extension headers srh_find() rejects is left to
 * the behavior.  Returns 0 to go on, or -1 after a counted drop (in ctx
 * and the SID's counters). */
int hmac_check(struct proc_ctx *ctx, struct pkt *p, const struct sid *sid);

/* Compare n bytes in time that does not depend on where they differ.
 * Returns true when equal. */
bool hmac_equal(const uint8_t *a, const uint8_t *b, unsigned n);

#endif
