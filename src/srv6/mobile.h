/* mobile.h - the mobile user plane of RFC 9433: GTP-U (3GPP TS 29.281)
 * converted to SRv6 and back, statelessly, with the session in the SID.
 *
 *   End.M.GTP6.D  (6.3)  IPv6/UDP/GTP-U to the SID -> SRv6: the inner
 *                        packet under the SID's policy, its last segment
 *                        B carrying Args.Mob.Session (TEID, QFI, R).
 *   End.M.GTP6.Di (6.4)  the same in drop-in mode: the original IPv6
 *                        destination S (the UPF's) kept as the last
 *                        segment after B, the original source (the
 *                        gNB's) kept, for End.M.GTP6.E to restore the
 *                        GTP-U packet the gNB sent.
 *   End.M.GTP6.E  (6.5)  SRv6 (SL 1, SRH[0] the gNB) -> IPv6/UDP/GTP-U,
 *                        TEID and QFI from the SID's Args.Mob.Session.
 *   End.M.GTP4.E  (6.6)  SRv6 -> IPv4/UDP/GTP-U, the IPv4 DA and
 *                        Args.Mob.Session in the SID, the IPv4 SA in the
 *                        IPv6 SA at the SID's v4src-position.
 *   H.M.GTP4.D    (6.7)  IPv4/UDP/GTP-U steered by a `route ... encap
 *                        gtp4` -> SRv6, its inverse.
 *
 * Args.Mob.Session (6.1), 40 bits right after the SID's locator and
 * function (the sid line's prefix length; for End.M.GTP4.E after the
 * IPv4 DA): QFI (6 bits), R (reflective QoS, 1), U (1, unused, written
 * 0), PDU Session ID (32: the TEID).
 *
 * G-PDUs (message type 255) carry user traffic; Echo Request/Response,
 * Error Indication and End Marker are carried over SRv6 as VPP does (RFC
 * 9433 6.1 leaves their encoding to another document: mobile.c), any
 * other GTP-U message is DROP_GTPU_MESSAGE, a malformed GTP-U header or
 * message DROP_GTPU_MALFORMED.  The UDP checksum of a GTP-U packet made here is
 * computed (RFC 8200 8.1 requires it over IPv6).  Super-packets (offload)
 * are DROP_GSO: GTP-U is UDP, the kernel hands none whole.
 */
#ifndef SRV6D_MOBILE_H
#define SRV6D_MOBILE_H

#include <stdbool.h>
#include <stdint.h>

#include "ctx.h"

#define GTPU_PORT		2152	/* TS 29.281 4.4.2.3 */
#define GTPU_HDR_LEN		8	/* the mandatory part */
#define GTPU_TYPE_ECHO_REQUEST	1
#define GTPU_TYPE_ECHO_RESPONSE	2
#define GTPU_TYPE_ERROR_IND	26
#define GTPU_TYPE_END_MARKER	254
#define GTPU_TYPE_GPDU		255
#define GTPU_EXT_PDU_SESSION	0x85	/* TS 38.415 PDU Session Container */
#define ARGS_MOB_SESSION_BITS	40

/* Args.Mob.Session (RFC 9433 6.1). */
struct mob_session {
	uint8_t qfi;		/* 6 bits */
	bool r;			/* reflective QoS (the container's RQI) */
	bool u;
	uint32_t teid;		/* PDU Session ID */
};

/* A GTP-U header parsed (gtpu_parse()). */
struct gtpu_info {
	uint8_t type;		/* message type */
	uint32_t hdr_len;	/* mandatory part, optional fields and
				 * extension headers: where the T-PDU is */
	uint32_t pdu_len;	/* the T-PDU's bytes (Length minus the
				 * optional part) */
	struct mob_session ms;	/* TEID; QFI and RQI of a PDU Session
				 * Container, 0 without one */
};

/* Parse the GTP-U header at g (len bytes: the UDP payload).  Version 1,
 * protocol type GTP, the Length covering exactly what follows the
 * mandatory header, every extension header whole.  Returns 0, or -1
 * (DROP_GTPU_MALFORMED).  Pure. */
int gtpu_parse(const uint8_t *g, uint32_t len, struct gtpu_info *gi);

/* Write the GTP-U header of a G-PDU of pdu_len bytes for session ms at g:
 * 8 bytes, or 16 with a PDU Session Container (downlink, QFI and RQI)
 * when ms has a QFI or R.  Returns its length.  gtpu_hdr_len() says it
 * before. */
uint32_t gtpu_write(uint8_t *g, const struct mob_session *ms,
		    uint32_t pdu_len);
uint32_t gtpu_hdr_len(const struct mob_session *ms);

/* Args.Mob.Session read from, or written into, the 128-bit address a at
 * bit `pos` (pos + 40 <= 128).  Pure. */
void mob_session_read(const uint8_t *a, unsigned pos, struct mob_session *ms);
void mob_session_write(uint8_t *a, unsigned pos, const struct mob_session *ms);

/* The 32 bits at bit `pos` of a (pos + 32 <= 128), and their write: the
 * IPv4 addresses of End.M.GTP4.E, network order. */
uint32_t addr_bits32_read(const uint8_t *a, unsigned pos);
void addr_bits32_write(uint8_t *a, unsigned pos, uint32_t v);

/* RFC 9433 6.7 H.M.GTP4.D: the IPv4/UDP/GTP-U packet p steered by
 * policy pol (pol->gtp4d) becomes SRv6, counted in st: its T-PDU under
 * pol's list (H.Encaps, headend.h), the last segment B with the IPv4 DA
 * and Args.Mob.Session, the outer source pol's src-prefix with the IPv4
 * SA.  Not GTP-U to port 2152: DROP_UPPER_LAYER; a fragment:
 * DROP_FRAGMENT; else as End.M.GTP6.D's GTP-U checks. */
void headend_m_gtp4_d(struct proc_ctx *ctx, const struct policy *pol,
		      struct sid_stats *st, struct pkt *p);

/* RFC 9433 6.3, 6.4, 6.5, 6.6: the behaviors (dispatch.h). */
void behavior_end_m_gtp6_d(struct proc_ctx *ctx, const struct sid *sid,
			   struct pkt *p);
void behavior_end_m_gtp6_di(struct proc_ctx *ctx, const struct sid *sid,
			    struct pkt *p);
void behavior_end_m_gtp6_e(struct proc_ctx *ctx, const struct sid *sid,
			   struct pkt *p);
void behavior_end_m_gtp4_e(struct proc_ctx *ctx, const struct sid *sid,
			   struct pkt *p);

#endif
