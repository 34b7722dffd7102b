/* mobile.c - RFC 9433's GTP-U <-> SRv6 behaviors (mobile.h).
 *
 * The S-numbers are the lines of RFC 9433's pseudocode.  Every header
 * comes off by pkt_pull() and goes on by pkt_push() into the slot's
 * headroom: the inner packet (the T-PDU) never moves.  The results are
 * unmarked: the kernel routes them in its main table, as after End
 * (behavior_table.h), by the verdict or srv6d's reinjection device
 * (reinject.c: an IPv4 result of the IPv6 hook, a changed header chain).
 * None of them decrements a hop limit: the kernel does once it forwards.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <linux/if_ether.h>
#include <stdbool.h>
#include <string.h>

#include "behavior.h"
#include "checksum.h"
#include "headend.h"
#include "icmp.h"
#include "ip.h"
#include "mobile.h"
#include "srh.h"
#include "srv6.h"

#define UDP_HDR_LEN	8
#define IPV4_HDR_LEN	20
#define GTPU_OPT_LEN	4	/* sequence number, N-PDU, next extension */
#define GTPU_FLAG_VERSION1	0x20
#define GTPU_FLAG_PT	0x10	/* protocol type GTP */
#define GTPU_FLAG_E	0x04
#define GTPU_FLAG_S	0x02
#define GTPU_FLAG_PN	0x01
#define GTPU_EXT_MAX	8	/* extension headers walked at most */
#define SRH_SL_OFF	3

static uint16_t get16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static void put16(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* ---- Args.Mob.Session and the IPv4 addresses in a SID (RFC 9433 6.1,
 * 6.6) ------------------------------------------------------------------ */

/* The 8 bytes at a + pos / 8 hold bits pos..pos+n-1 of a 16-byte
 * address: one big-endian 64-bit word for them. */
static bool bits_in_word(unsigned pos, unsigned n)
{
	return pos % 8 == 0 && pos <= 64 && n > 0 && n < 64;
}

static uint64_t bits_read(const uint8_t *a, unsigned pos, unsigned n)
{
	uint64_t v = 0;

	if (bits_in_word(pos, n)) {
		memcpy(&v, a + pos / 8, 8);
		return be64toh(v) >> (64 - n);
	}
	if (pos % 8 == 0) {
		for (unsigned i = 0; i < n / 8; i++)
			v = v << 8 | a[pos / 8 + i];
		return v;
	}
	for (unsigned i = pos; i < pos + n; i++)
		v = v << 1 | ((a[i / 8] >> (7 - i % 8)) & 1u);
	return v;
}

static void bits_write(uint8_t *a, unsigned pos, unsigned n, uint64_t v)
{
	if (bits_in_word(pos, n)) {
		uint64_t w, m = ~0ull << (64 - n);

		memcpy(&w, a + pos / 8, 8);
		w = htobe64((be64toh(w) & ~m) | (v << (64 - n) & m));
		memcpy(a + pos / 8, &w, 8);
		return;
	}
	if (pos % 8 == 0) {
		for (unsigned i = n / 8; i-- > 0; v >>= 8)
			a[pos / 8 + i] = (uint8_t)v;
		return;
	}
	for (unsigned i = pos + n; i-- > pos; v >>= 1) {
		uint8_t m = (uint8_t)(1u << (7 - i % 8));

		a[i / 8] = (uint8_t)((v & 1) ? a[i / 8] | m : a[i / 8] & ~m);
	}
}

void mob_session_read(const uint8_t *a, unsigned pos, struct mob_session *ms)
{
	uint64_t v = bits_read(a, pos, ARGS_MOB_SESSION_BITS);

	ms->qfi = (uint8_t)((v >> 34) & 0x3f);
	ms->r = (v >> 33) & 1;
	ms->u = (v >> 32) & 1;
	ms->teid = (uint32_t)v;
}

void mob_session_write(uint8_t *a, unsigned pos, const struct mob_session *ms)
{
	uint64_t v = (uint64_t)(ms->qfi & 0x3f) << 34 |
		     (uint64_t)ms->r << 33 | ms->teid;	/* U: 0 */

	bits_write(a, pos, ARGS_MOB_SESSION_BITS, v);
}

uint32_t addr_bits32_read(const uint8_t *a, unsigned pos)
{
	return htonl((uint32_t)bits_read(a, pos, 32));
}

void addr_bits32_write(uint8_t *a, unsigned pos, uint32_t v)
{
	bits_write(a, pos, 32, ntohl(v));
}

/* ---- GTP-U (3GPP TS 29.281 5.1, 5.2; TS 38.415 5.5.2) ------------------ */

/* The PDU Session Container's QFI and, downlink, RQI (ext: its bytes). */
static void gtpu_pdu_session(const uint8_t *ext, struct mob_session *ms)
{
	ms->qfi = ext[2] & 0x3f;
	ms->r = (ext[1] >> 4) == 0 && (ext[2] & 0x40);	/* DL's RQI */
}

int gtpu_parse(const uint8_t *g, uint32_t len, struct gtpu_info *gi)
{
	uint32_t off = GTPU_HDR_LEN, glen;
	uint8_t next;

	memset(gi, 0, sizeof(*gi));
	if (len < GTPU_HDR_LEN ||
	    (g[0] & 0xf0) != (GTPU_FLAG_VERSION1 | GTPU_FLAG_PT))
		return -1;
	gi->type = g[1];
	glen = get16(g + 2);
	if (glen != len - GTPU_HDR_LEN)
		return -1;
	gi->ms.teid = (uint32_t)g[4] << 24 | (uint32_t)g[5] << 16 |
		      (uint32_t)g[6] << 8 | g[7];
	if (g[0] & (GTPU_FLAG_E | GTPU_FLAG_S | GTPU_FLAG_PN)) {
		if (len < off + GTPU_OPT_LEN)
			return -1;
		next = (g[0] & GTPU_FLAG_E) ? g[off + 3] : 0;
		off += GTPU_OPT_LEN;
		for (unsigned i = 0; next; i++) {
			uint32_t elen;

			if (i == GTPU_EXT_MAX || len - off < 4)
				return -1;
			elen = (uint32_t)g[off] * 4;
			if (elen == 0 || len - off < elen)
				return -1;
			if (next == GTPU_EXT_PDU_SESSION)
				gtpu_pdu_session(g + off, &gi->ms);
			next = g[off + elen - 1];
			off += elen;
		}
	}
	gi->hdr_len = off;
	gi->pdu_len = len - off;
	return 0;
}

uint32_t gtpu_hdr_len(const struct mob_session *ms)
{
	return GTPU_HDR_LEN + (ms->qfi || ms->r ? GTPU_OPT_LEN + 4 : 0);
}

uint32_t gtpu_write(uint8_t *g, const struct mob_session *ms,
		    uint32_t pdu_len)
{
	uint32_t hl = gtpu_hdr_len(ms);
	bool ext = hl != GTPU_HDR_LEN;
	uint64_t w;

	/* flags, message type, length, TEID: one big-endian word */
	w = (uint64_t)(GTPU_FLAG_VERSION1 | GTPU_FLAG_PT |
		       (ext ? GTPU_FLAG_E : 0)) << 56 |
	    (uint64_t)GTPU_TYPE_GPDU << 48 |
	    (uint64_t)((hl - GTPU_HDR_LEN + pdu_len) & 0xffff) << 32 |
	    ms->teid;
	w = htobe64(w);
	memcpy(g, &w, 8);
	if (!ext)
		return hl;
	/* sequence 0, N-PDU 0, next extension PDU Session Container; its
	 * length 1 (4 bytes), DL PDU SESSION INFORMATION (type 0), RQI and
	 * QFI, no next extension */
	w = (uint64_t)GTPU_EXT_PDU_SESSION << 32 | 1ull << 24 |
	    (uint64_t)((ms->r ? 0x40 : 0) | (ms->qfi & 0x3f)) << 8;
	w = htobe64(w);
	memcpy(g + 8, &w, 8);
	return hl;
}

/* ---- what the behaviors share ------------------------------------------ */

/* The SRH of p with Segments Left `want` (or none, when none_ok), and
 * the upper-layer header after it.  Returns 0 with *si, *nh and *off,
 * or -1 once p has been answered (a bad header chain, Parameter Problem
 * code 0 at Segments Left, RFC 8986 4.4's answer) or dropped. */
static int mobile_srh(struct proc_ctx *ctx, const struct sid *sid,
		      struct pkt *p, unsigned want, bool none_ok,
		      struct srh_info *si, uint8_t *nh, uint32_t *off)
{
	struct sid_stats *st = behavior_stats(ctx, sid);
	struct srh_error err;

	if (p->gso) {
		proc_drop(ctx, p, st, DROP_GSO);
		return -1;
	}
	if (proc_srh_find(ctx, p, si, &err) < 0) {
		if (err.icmp)
			icmp6_error(ctx, p, ICMP6_T_PARAM_PROB, err.code,
				    err.pointer, st, err.reason);
		else
			proc_drop(ctx, p, st, err.reason);
		return -1;
	}
	if (!si->srh && !none_ok) {
		proc_drop(ctx, p, st, DROP_BAD_SRH);
		return -1;
	}
	if (si->srh && (si->srh->segments_left != want ||
			!srh_validate(si->srh))) {
		icmp6_error(ctx, p, ICMP6_T_PARAM_PROB, ICMP6_C_HDR_FIELD,
			    si->srh_off + SRH_SL_OFF, st, DROP_BAD_SRH);
		return -1;
	}
	*nh = si->nexthdr;
	*off = si->end_off;
	return 0;
}

/* The inner IPv6 (41) or IPv4 (4) packet at off, whole (cut after it),
 * for a behavior that encapsulates it in GTP-U; anything else is the
 * upper-layer processing of RFC 8986 4.1.1.  Returns 0, or -1 once p has
 * been answered or dropped. */
static int mobile_inner(struct proc_ctx *ctx, const struct sid *sid,
			struct pkt *p, uint8_t nh, uint32_t off)
{
	enum drop_reason reason;

	if (nh != IPPROTO_IPV6 && nh != IPPROTO_IPIP) {
		behavior_upper_layer(ctx, sid, p, nh, off);
		return -1;
	}
	if (behavior_inner_check(p, off, nh, &reason) < 0) {
		proc_drop(ctx, p, behavior_stats(ctx, sid), reason);
		return -1;
	}
	return 0;
}

/* The one's-complement sum of a T-PDU whose transport segment its own
 * checksum covers behind a pseudo header (TCP, or UDP with a checksum,
 * right after an IPv6 header or an unfragmented IPv4 one), without
 * reading the segment: with a valid checksum the segment sums to the
 * negated pseudo header (RFC 1071), and the addresses, in both the IP
 * header and the pseudo header, cancel.  So it is the sum of the IP
 * header less its addresses (IPv6's first 8 bytes; IPv4's first 12 and
 * its options) less the pseudo header's length and protocol.  Returns
 * true with the length of the header's first bytes to sum in *fixed and
 * the native sum of the rest in *sum (csum_native()), false for another
 * T-PDU. */
static bool tpdu_sum(const uint8_t *t, uint32_t len, uint32_t *fixed,
		     uint64_t *sum)
{
	uint64_t s = 0;
	uint32_t hl, n;
	uint8_t proto;

	if (len >= IPV6_HDR_LEN && (t[0] >> 4) == 6) {
		hl = IPV6_HDR_LEN;
		*fixed = IP6_SRC_OFF;
		proto = t[IP6_NH_OFF];
	} else if (len >= IPV4_HDR_LEN && (t[0] >> 4) == 4 &&
		   !(get16(t + 6) & 0x3fff)) {	/* MF, offset */
		hl = (t[0] & 0x0fu) * 4;
		*fixed = IP4_SRC_OFF;
		proto = t[9];
	} else {
		return false;
	}
	n = len - hl;
	if (hl < IPV4_HDR_LEN || hl > len ||
	    !((proto == IPPROTO_TCP && n >= 20) ||
	      (proto == IPPROTO_UDP && n >= UDP_HDR_LEN &&
	       get16(t + hl + 6) != 0)))
		return false;
	if (*fixed == IP4_SRC_OFF && hl > IPV4_HDR_LEN)		/* options */
		s = csum_native(t + IPV4_HDR_LEN, hl - IPV4_HDR_LEN);
	*sum = csum_native_add(s, ~(csum_native_word(n >> 16) +	/* - */
				    csum_native_word(n) +
				    csum_native_word(proto)));
	return true;
}

/* The native sum (csum_native()) of the pseudo header of a UDP datagram
 * of len bytes: the source and destination addresses, alen bytes each,
 * in a row at a (an IPv6 header's, an IPv4 header's), the length (RFC
 * 8200 8.1's 32 bits; RFC 768's 16 bits, whose upper word is then 0) and
 * UDP's protocol number. */
static uint64_t udp_pseudo_sum(const uint8_t *a, uint32_t alen, uint32_t len)
{
	return csum_native_add(csum_native(a, 2 * alen),
			       csum_native_word(len >> 16) +
			       csum_native_word(len) +
			       csum_native_word(IPPROTO_UDP));
}

/* The UDP checksum of the datagram at u: hl bytes of UDP and GTP-U
 * headers, then the T-PDU of pdu bytes, behind a pseudo header of native
 * sum pseudo (udp_pseudo_sum(); RFC 768; 0 is sent as 0xffff), the parts
 * added unfolded and folded once.  The T-PDU's transport
 * segment, when its own checksum covers it (tpdu_sum()), is not read, as
 * Linux's local checksum offload takes it for its UDP tunnels; an invalid
 * one stays invalid in the GTP-U checksum (the receiver drops it one hop
 * earlier).  Another T-PDU (ICMP, a fragment, UDP without a checksum) is
 * summed whole.  The sums are equal modulo 0xffff, the checksum the same
 * bytes: the only value with two forms, 0, is sent as 0xffff. */
static void udp_csum_set(uint8_t *u, uint32_t hl, uint32_t pdu,
			 uint64_t pseudo)
{
	uint64_t ts;
	uint32_t fixed;
	uint16_t c;

	u[6] = u[7] = 0;	/* (udp_gtpu_write()'s already) */
	if (tpdu_sum(u + hl, pdu, &fixed, &ts))	/* the T-PDU follows */
		c = csum_native_fold(csum_native_add(csum_native_add(pseudo, ts),
						     csum_native(u, hl + fixed)));
	else
		c = csum_native_fold(csum_native_add(pseudo,
						     csum_native(u, hl + pdu)));
	put16(u + 6, c ? c : 0xffff);
}

/* The UDP header of a GTP-U datagram of len bytes at u. */
static void udp_gtpu_write(uint8_t *u, uint32_t len)
{
	uint64_t w = htobe64((uint64_t)GTPU_PORT << 48 |
			     (uint64_t)GTPU_PORT << 32 |
			     (uint64_t)(len & 0xffff) << 16);	/* checksum 0 */

	memcpy(u, &w, 8);
}

/* Push the UDP and GTP-U headers of session ms in front of the T-PDU p
 * holds, and room for an outer header of iplen bytes.  Returns the
 * outer header's start, or NULL with the drop reason in *why. */
static uint8_t *gtpu_push(struct pkt *p, const struct mob_session *ms,
			  uint32_t iplen, enum drop_reason *why)
{
	uint32_t hl = gtpu_hdr_len(ms), pdu = p->len;
	uint8_t *h;

	if (p->len + iplen + UDP_HDR_LEN + hl > PKT_MAX_LEN) {
		*why = DROP_TOO_BIG;
		return NULL;
	}
	h = pkt_push(p, iplen + UDP_HDR_LEN + hl);
	if (!h) {
		*why = DROP_NO_HEADROOM;
		return NULL;
	}
	udp_gtpu_write(h + iplen, UDP_HDR_LEN + hl + pdu);
	gtpu_write(h + iplen + UDP_HDR_LEN, ms, pdu);
	return h;
}

/* ---- GTP-U messages across the SRv6 domain (RFC 9433 6.1) ---------------- */

/* RFC 9433 6.1: "the encoding of user-plane messages (e.g., Echo Request,
 * Echo Reply, Error Indication, and End Marker) is out of the scope of
 * this document.  [SRV6-UP-MSG-ENCODING] defines one possible encoding
 * method" (draft-murakami-dmm-user-plane-message-encoding-05).  The D
 * behaviors make, and the E behaviors read, the encoding VPP's
 * srv6-mobile plugin makes (node.c, by that draft's first author), with
 * the T-PDU's steps of 6.3-6.7 (the message where the T-PDU would be):
 * the message type as one bit of the SRH's Tag, Echo Response's first;
 * the Sequence Number of an Echo or an Error Indication in the first 16
 * bits of Args.Mob.Session's PDU Session ID, whose TEID is then 0 (TS
 * 29.281 7.2.1, 7.3.1); an End Marker's TEID there as a G-PDU's; an
 * Error Indication's IEs in an SRH TLV (type 10, VPP's "tentative" User
 * Plane Container: a sub-TLV of type, length and the IEs; padded before
 * it, with Pad1 or PadN).  An Echo's IEs (a Response's Recovery IE)
 * follow the SRH, Next Header 59 (VPP writes 143), as VPP's D side
 * leaves them, and follow the rebuilt GTP-U header.  An Echo Request is
 * carried, not answered: RFC 9433 says nothing of answering it, VPP
 * does not. */
#define SRH_TAG_OFF		6
#define SRH_TAG_END_MARKER	0x0001
#define SRH_TAG_ERROR_IND	0x0002
#define SRH_TAG_ECHO_REQUEST	0x0004
#define SRH_TAG_ECHO_RESPONSE	0x0008
#define SRH_TLV_PADN		4	/* RFC 8754 2.1.1.2 */
#define SRH_TLV_USER_PLANE	10
#define SRH_SUBTLV_IE		1
#define GTPU_IE_RECOVERY	14	/* TS 29.281 8.2 */
#define GTPU_IE_TEID_DATA_I	16	/* TS 29.281 8.3 */
#define GTPU_RECOVERY_LEN	2	/* type, restart counter */

/* The GTP-U message the SRH at srh names in its Tag (VPP's
 * gtpu_type_get()), GTPU_TYPE_GPDU when it names none. */
static uint8_t srh_message(const uint8_t *srh)
{
	uint16_t tag = get16(srh + SRH_TAG_OFF);

	if (tag & SRH_TAG_ECHO_RESPONSE)
		return GTPU_TYPE_ECHO_RESPONSE;
	if (tag & SRH_TAG_ECHO_REQUEST)
		return GTPU_TYPE_ECHO_REQUEST;
	if (tag & SRH_TAG_ERROR_IND)
		return GTPU_TYPE_ERROR_IND;
	if (tag & SRH_TAG_END_MARKER)
		return GTPU_TYPE_END_MARKER;
	return GTPU_TYPE_GPDU;
}

/* The SRH Tag bit of message `type` (VPP's srh_tagfield[]), 0 for a
 * message that is not carried. */
static uint16_t message_tag(uint8_t type)
{
	switch (type) {
	case GTPU_TYPE_ECHO_REQUEST:
		return SRH_TAG_ECHO_REQUEST;
	case GTPU_TYPE_ECHO_RESPONSE:
		return SRH_TAG_ECHO_RESPONSE;
	case GTPU_TYPE_ERROR_IND:
		return SRH_TAG_ERROR_IND;
	case GTPU_TYPE_END_MARKER:
		return SRH_TAG_END_MARKER;
	}
	return 0;
}

/* A message's checks (TS 29.281 5.1, 7.2, 7.3) on its GTP-U header at g
 * (parsed in gi) and its session: an Echo's or an Error Indication's
 * Sequence Number (the S flag set) as VPP carries it, an End Marker's
 * TEID.  An Echo Response begins its IEs with the Recovery IE, an Error
 * Indication with TEID Data I, its IEs one sub-TLV long.  Returns
 * DROP__COUNT (none), or the drop reason: DROP_GTPU_MESSAGE for a
 * message not carried, DROP_GTPU_MALFORMED. */
static enum drop_reason message_check(const uint8_t *g,
				      const struct gtpu_info *gi,
				      struct mob_session *ms)
{
	const uint8_t *ie = g + gi->hdr_len;
	uint32_t n = gi->pdu_len;

	if (!message_tag(gi->type))
		return DROP_GTPU_MESSAGE;
	*ms = gi->ms;
	if (gi->type == GTPU_TYPE_END_MARKER)
		return DROP__COUNT;
	if (!(g[0] & GTPU_FLAG_S))
		return DROP_GTPU_MALFORMED;
	memset(ms, 0, sizeof(*ms));
	ms->teid = (uint32_t)get16(g + GTPU_HDR_LEN) << 16;
	if (gi->type == GTPU_TYPE_ECHO_RESPONSE &&
	    (n < GTPU_RECOVERY_LEN || ie[0] != GTPU_IE_RECOVERY))
		return DROP_GTPU_MALFORMED;
	if (gi->type == GTPU_TYPE_ERROR_IND &&
	    (n == 0 || n > 253 || ie[0] != GTPU_IE_TEID_DATA_I))
		return DROP_GTPU_MALFORMED;
	return DROP__COUNT;
}

/* Carry message `type` of p (its IEs from ie to the end) under pol (at
 * a binding SID: at_sid), counted in st, in the encoding above: the
 * headend's list, source and checks (headend_prepare()), an outer IPv6
 * header (the traffic class, flow label and hop limit of p's, IPv4's
 * TOS and TTL) and an SRH of the whole list, Tag the message's, Next
 * Header 59; an Error Indication's IEs in its TLV.  Returns 0 with the
 * result in p (PKT_NEW_BYTES, counted; the caller writes B and the
 * addresses), or -1 once p has been answered or dropped. */
static int message_encap(struct proc_ctx *ctx, const struct policy *pol,
			 struct sid_stats *st, struct pkt *p, bool at_sid,
			 uint32_t ie, uint8_t type)
{
	bool tlv = type == GTPU_TYPE_ERROR_IND;
	uint32_t n = p->len - ie, vtcfl, pad = 0, push, segs;
	struct headend_plan plan;
	enum drop_reason why;
	struct in6_addr src;
	uint8_t hlim, *h, *srh;

	if (pol->hmac_keyid || pol->mode == ENCAP_MODE_INLINE ||
	    pol->mode == ENCAP_MODE_INLINE_RED) {
		proc_drop(ctx, p, st, DROP_GTPU_MESSAGE);	/* (not built) */
		return -1;
	}
	if (headend_prepare(ctx, pol, p, st, at_sid, &plan) < 0)
		return -1;
	if (headend_outer_source(ctx, &plan, &src) < 0) {
		proc_drop(ctx, p, st, DROP_NO_SOURCE);
		return -1;
	}
	if (p->hw_proto == ETH_P_IPV6) {
		memcpy(&vtcfl, p->data, 4);
		hlim = p->data[IP6_HLIM_OFF];
	} else {
		vtcfl = htonl(6u << 28 | (uint32_t)p->data[1] << 20);
		hlim = p->data[8];
	}
	segs = plan.sl->nsegs;
	if (tlv)		/* TLV 10, sub-TLV 1: 4 bytes before the IEs */
		pad = (8 - (4 + n) % 8) % 8;
	push = IPV6_HDR_LEN + SRH_FIXED_LEN + 16 * segs + (tlv ? pad + 4 : 0);
	pkt_pull(p, ie);
	why = p->len + push > PKT_MAX_LEN ? DROP_TOO_BIG : DROP_NO_HEADROOM;
	h = why == DROP_TOO_BIG ? NULL : pkt_push(p, push);
	if (!h) {
		proc_drop(ctx, p, st, why);
		return -1;
	}
	ip6_hdr_write(h, vtcfl, p->len - IPV6_HDR_LEN, IPPROTO_SRH, hlim,
		      &src, &plan.sl->segs[0]);
	srh = h + IPV6_HDR_LEN;
	srh[0] = IPPROTO_NONE;
	srh[1] = (uint8_t)((push - IPV6_HDR_LEN + (tlv ? n : 0)) / 8 - 1);
	srh[2] = SRH_TYPE;
	srh[3] = srh[4] = (uint8_t)(segs - 1);
	srh[5] = 0;
	put16(srh + SRH_TAG_OFF, message_tag(type));
	for (uint32_t i = 0; i < segs; i++)
		memcpy(srh + SRH_FIXED_LEN + 16 * i,
		       &plan.sl->segs[segs - 1 - i], 16);
	if (tlv) {
		uint8_t *t = srh + SRH_FIXED_LEN + 16 * segs;

		memset(t, 0, pad);
		if (pad > 1) {		/* PadN (RFC 8754 2.1.1.2) */
			t[0] = SRH_TLV_PADN;
			t[1] = (uint8_t)(pad - 2);
		}
		t += pad;
		t[0] = SRH_TLV_USER_PLANE;
		t[1] = (uint8_t)(2 + n);
		t[2] = SRH_SUBTLV_IE;
		t[3] = (uint8_t)n;
	}
	p->verdict = PKT_NEW_BYTES;
	proc_count_ok(st, p);
	return 0;
}

/* ---- RFC 9433 6.3 End.M.GTP6.D, 6.4 End.M.GTP6.Di ------------------------ */

/* The G-PDU or carried message at the UDP header at off: the offset of
 * its T-PDU (a message's IEs) in *tpdu, its type in *type and the
 * session in *ms (a message's: message_check()).  Returns 0, or -1 once
 * p has been dropped (DROP_GTPU_MALFORMED, DROP_GTPU_MESSAGE). */
static int gtpu_take(struct proc_ctx *ctx, struct sid_stats *st,
		     struct pkt *p, uint32_t off, uint32_t *tpdu,
		     struct mob_session *ms, uint8_t *type)
{
	const uint8_t *g = p->data + off + UDP_HDR_LEN;
	enum drop_reason why = DROP__COUNT;
	uint32_t ulen = get16(p->data + off + 4);
	struct gtpu_info gi;

	if (ulen < UDP_HDR_LEN || ulen > p->len - off ||
	    gtpu_parse(g, ulen - UDP_HDR_LEN, &gi) < 0)
		why = DROP_GTPU_MALFORMED;
	else if (gi.type != GTPU_TYPE_GPDU)	/* Echo, End Marker, ... */
		why = message_check(g, &gi, ms);
	else
		*ms = gi.ms;
	if (why != DROP__COUNT) {
		proc_drop(ctx, p, st, why);
		return -1;
	}
	*tpdu = off + UDP_HDR_LEN + gi.hdr_len;
	*type = gi.type;
	if (gi.type != GTPU_TYPE_GPDU)	/* its IEs end with the datagram */
		pkt_trim(p, *tpdu + gi.pdu_len);
	return 0;
}

/* The UDP datagram at off goes to the GTP-U port (S01). */
static bool is_gtpu(const struct pkt *p, uint8_t nh, uint32_t off)
{
	return nh == IPPROTO_UDP && p->len - off >= UDP_HDR_LEN &&
	       get16(p->data + off + 2) == GTPU_PORT;
}

/* S03's SID B: Args.Mob.Session into the policy's segment B, the last
 * of its list (SRH[0]), and into the DA when that is B (a one-segment
 * list).  Drop-in mode (di_da, RFC 9433 6.4): the config's list ends
 * with a slot after B, so B is SRH[1] and the slot SRH[0]; it becomes D,
 * the packet's original destination (6.4 S02, S08: "Prepend D to the
 * SRH (as SRH[0]) and set SL accordingly"; Segments Left already points
 * at the first SID of B, S06).  The session still goes into B: 6.4's
 * pseudocode copies only D, but End.M.GTP6.E at B takes the TEID "from
 * the argument space of the current SID" (6.5; 5.4's flow: "(U::1,
 * SGB::TEID, C1; SL=3)").  The outer source stays the headend's S (6.4
 * S05), unless di_sa, VPP's encoding (`encoding vpp`): the packet's
 * original source, the gNB's A, so that End.M.GTP6.E at B (SRH[0] the
 * destination, the source kept) restores the very packet the gNB sent. */
static void gtp6d_args(const struct sid *sid, struct pkt *p,
		       const struct mob_session *ms,
		       const struct in6_addr *di_da,
		       const struct in6_addr *di_sa)
{
	const struct srh *srh = (const struct srh *)(p->data + IPV6_HDR_LEN);
	uint8_t *seg = p->data + IPV6_HDR_LEN + SRH_FIXED_LEN;
	unsigned b = di_da ? 1 : 0;	/* B's index in the segment list */

	if (p->data[IP6_NH_OFF] != IPPROTO_SRH)
		return;			/* (the config's policy has one) */
	if (di_da)					/* 6.4 S02, S08 */
		memcpy(seg, di_da, sizeof(*di_da));
	if (di_sa)					/* VPP's, not S05 */
		memcpy(p->data + IP6_SRC_OFF, di_sa, sizeof(*di_sa));
	if (b <= srh->last_entry)
		mob_session_write(seg + 16 * b, sid->mob_plen, ms);
	if (srh->segments_left == b)
		mob_session_write(p->data + IP6_DST_OFF, sid->mob_plen, ms);
}

/* End.M.GTP6.D (6.3) and, di, End.M.GTP6.Di (6.4): one path, their S-lines
 * the same but for 6.4's S02 and S08 (D kept as SRH[0]); `encoding vpp`
 * also keeps the source A (gtp6d_args()). */
static void gtp6_decap(struct proc_ctx *ctx, const struct sid *sid,
		       struct pkt *p, bool di)
{
	struct sid_stats *st = behavior_stats(ctx, sid);
	struct headend_plan plan;
	struct mob_session ms;
	const struct in6_addr *di_da = NULL, *di_sa = NULL;
	struct in6_addr da, sa;
	struct srh_info si;
	uint16_t hook;
	uint32_t off, tpdu;
	uint8_t nh, type;

	if (mobile_srh(ctx, sid, p, 0, true, &si, &nh, &off) < 0)
		return;
	if (!is_gtpu(p, nh, off)) {			/* S01, S08-S09 */
		behavior_upper_layer(ctx, sid, p, nh, off);
		return;
	}
	if (gtpu_take(ctx, st, p, off, &tpdu, &ms, &type) < 0)
		return;
	nh = p->len > tpdu && (p->data[tpdu] >> 4) == 4 ? IPPROTO_IPIP :
							  IPPROTO_IPV6;
	if (type == GTPU_TYPE_GPDU && mobile_inner(ctx, sid, p, nh, tpdu) < 0)
		return;
	if (!sid->policy) {
		proc_drop(ctx, p, st, DROP_FAMILY);
		return;
	}
	if (di) {
		memcpy(&da, p->data + IP6_DST_OFF, sizeof(da));	/* 6.4 S02 */
		di_da = &da;
	}
	if (di && sid->di_vpp) {
		memcpy(&sa, p->data + IP6_SRC_OFF, sizeof(sa));
		di_sa = &sa;
	}
	if (type != GTPU_TYPE_GPDU) {			/* 6.1's note */
		if (message_encap(ctx, sid->policy, st, p, true, tpdu,
				  type) == 0) {
			gtp6d_args(sid, p, &ms, di_da, di_sa);
			pkt_facts_reset(p);
		}
		return;
	}
	pkt_pull(p, tpdu);				/* S02 (6.4 S03) */
	/* The headend encapsulates by the family of what it is given. */
	hook = p->hw_proto;
	p->hw_proto = nh == IPPROTO_IPIP ? ETH_P_IP : ETH_P_IPV6;
	if (headend_prepare(ctx, sid->policy, p, st, true, &plan) == 0) {
		headend_finish(ctx, &plan, p);		/* S03-S07 */
		if (p->verdict == PKT_NEW_BYTES && p->outcome == PKT_OUT_OK) {
			gtp6d_args(sid, p, &ms, di_da, di_sa);
			pkt_facts_reset(p);	/* no kernel route makes it */
		}
	}
	p->hw_proto = hook;
}

void behavior_end_m_gtp6_d(struct proc_ctx *ctx, const struct sid *sid,
			   struct pkt *p)
{
	gtp6_decap(ctx, sid, p, false);
}

void behavior_end_m_gtp6_di(struct proc_ctx *ctx, const struct sid *sid,
			    struct pkt *p)
{
	gtp6_decap(ctx, sid, p, true);
}

/* The IEs message `type` gets in front of what follows the SRH: an
 * Error Indication's from the User Plane Container TLV (*ie its offset
 * in p), an Echo Response's Recovery IE (restart counter 0, TS 29.281
 * 7.2.2, as VPP writes it) unless what follows begins with one (*ie 0).
 * Returns their length, or -1 for an Error Indication without the TLV
 * (its IEs are mandatory, TS 29.281 7.3.1). */
static int message_ies(const struct pkt *p, const struct srh_info *si,
		       uint8_t type, uint32_t *ie)
{
	const uint8_t *d = p->data;

	*ie = 0;
	if (type == GTPU_TYPE_ECHO_RESPONSE)
		return si->end_off < p->len &&
		       d[si->end_off] == GTPU_IE_RECOVERY ? 0 :
							   GTPU_RECOVERY_LEN;
	if (type != GTPU_TYPE_ERROR_IND)
		return 0;
	/* srh_find() walked the TLVs: each is whole */
	for (uint32_t o = si->tlv_off; o < si->tlv_end;
	     o += d[o] ? 2u + d[o + 1] : 1u) {
		if (d[o] == SRH_TLV_USER_PLANE && d[o + 1] >= 2 &&
		    d[o + 3] <= d[o + 1] - 2 && d[o + 3]) {
			*ie = o + 4;
			return d[o + 3];
		}
	}
	return -1;
}

/* Push the UDP and GTP-U headers of message `type` of session ms (TS
 * 29.281 5.1: the Sequence Number field for Echo and Error Indication,
 * none for an End Marker), its n IE bytes (at ie, moved; a Recovery IE
 * when ie is NULL) in front of the bytes p holds, and room for an outer
 * header of iplen bytes.  Returns the outer header's start, or NULL with
 * the drop reason in *why. */
static uint8_t *gtpu_message_push(struct pkt *p, uint8_t type,
				  const struct mob_session *ms,
				  const uint8_t *ie, uint32_t n,
				  uint32_t iplen, enum drop_reason *why)
{
	bool seq = type != GTPU_TYPE_END_MARKER;
	uint32_t hl = GTPU_HDR_LEN + (seq ? GTPU_OPT_LEN : 0) + n;
	uint32_t len = p->len;
	uint8_t *h, *g;
	uint64_t w;

	if (p->len + iplen + UDP_HDR_LEN + hl > PKT_MAX_LEN) {
		*why = DROP_TOO_BIG;
		return NULL;
	}
	h = pkt_push(p, iplen + UDP_HDR_LEN + hl);
	if (!h) {
		*why = DROP_NO_HEADROOM;
		return NULL;
	}
	g = h + iplen + UDP_HDR_LEN;
	if (ie)			/* (it may overlap what is written below) */
		memmove(g + hl - n, ie, n);
	else if (n)
		put16(g + hl - n, GTPU_IE_RECOVERY << 8);
	udp_gtpu_write(h + iplen, UDP_HDR_LEN + hl + len);
	w = (uint64_t)(GTPU_FLAG_VERSION1 | GTPU_FLAG_PT |
		       (seq ? GTPU_FLAG_S : 0)) << 56 |
	    (uint64_t)type << 48 |
	    (uint64_t)((hl - GTPU_HDR_LEN + len) & 0xffff) << 32 |
	    (seq ? 0 : ms->teid);
	w = htobe64(w);
	memcpy(g, &w, 8);
	if (seq) {	/* Sequence Number, N-PDU Number 0, no extension */
		put16(g + 8, ms->teid >> 16);
		g[10] = g[11] = 0;
	}
	return h;
}

/* The UDP and GTP-U headers of message `type` (GTPU_TYPE_GPDU: a G-PDU
 * of session ms) pushed in front of p's bytes, after the SRH of si came
 * off, with room for an outer header of iplen bytes.  Returns the outer
 * header's start with the bytes of the UDP checksum's shortcut
 * (udp_csum_set(): a G-PDU's headers; a message is summed whole) in
 * *hl and *pdu, or NULL once p has been dropped. */
static uint8_t *mobile_e_push(struct proc_ctx *ctx, const struct sid *sid,
			      struct pkt *p, const struct srh_info *si,
			      uint8_t type, const struct mob_session *ms,
			      uint32_t iplen, uint32_t *hl, uint32_t *pdu)
{
	enum drop_reason why = DROP_GTPU_MALFORMED;
	const uint8_t *iep = NULL;
	uint8_t *h = NULL;
	uint32_t ie;
	int n = 0;

	if (type != GTPU_TYPE_GPDU) {
		n = message_ies(p, si, type, &ie);
		iep = n > 0 && ie ? p->data + ie : NULL;
	}
	if (n >= 0) {
		pkt_pull(p, si->end_off);		/* S04 */
		*pdu = p->len;
		h = type == GTPU_TYPE_GPDU ?
			    gtpu_push(p, ms, iplen, &why) :
			    gtpu_message_push(p, type, ms, iep, (uint32_t)n,
					      iplen, &why);
	}
	if (!h) {
		proc_drop(ctx, p, behavior_stats(ctx, sid), why);
		return NULL;
	}
	*hl = p->len - iplen - *pdu;
	if (type != GTPU_TYPE_GPDU) {
		*hl += *pdu;
		*pdu = 0;
	}
	return h;
}

/* ---- RFC 9433 6.5 End.M.GTP6.E ------------------------------------------- */

void behavior_end_m_gtp6_e(struct proc_ctx *ctx, const struct sid *sid,
			   struct pkt *p)
{
	struct in6_addr da, sa;
	struct mob_session ms;
	struct srh_info si;
	uint32_t vtcfl, off, hl, pdu;
	uint8_t nh, hlim, type, *h;

	if (mobile_srh(ctx, sid, p, 1, false, &si, &nh, &off) < 0)
		return;
	type = srh_message(p->data + si.srh_off);	/* 6.1's note */
	if (type == GTPU_TYPE_GPDU &&
	    mobile_inner(ctx, sid, p, nh, off) < 0)	/* S01, S10-S11 */
		return;
	memcpy(&da, &si.srh->segments[0], sizeof(da));	/* S02 */
	if (sid->has_source)				/* S04: S */
		sa = sid->source;
	else		/* VPP's: the source kept, as `encoding vpp` wants */
		memcpy(&sa, p->data + IP6_SRC_OFF, sizeof(sa));
	mob_session_read(p->data + IP6_DST_OFF, sid->plen, &ms);
	memcpy(&vtcfl, p->data, 4);
	hlim = p->data[IP6_HLIM_OFF];
	h = mobile_e_push(ctx, sid, p, &si, type, &ms, IPV6_HDR_LEN, &hl,
			  &pdu);			/* S04-S05, S08 */
	if (!h)
		return;
	ip6_hdr_write(h, vtcfl, p->len - IPV6_HDR_LEN, IPPROTO_UDP, hlim,
		      &sa, &da);			/* S06-S07 */
	udp_csum_set(h + IPV6_HDR_LEN, hl, pdu,
		     udp_pseudo_sum(h + IP6_SRC_OFF, 16,
				    p->len - IPV6_HDR_LEN));
	p->verdict = PKT_NEW_BYTES;			/* S09 */
	proc_count_ok(behavior_stats(ctx, sid), p);
}

/* ---- RFC 9433 6.6 End.M.GTP4.E ------------------------------------------- */

/* The IPv4 header of a GTP-U datagram at h (len bytes in all). */
static void ip4_gtpu_write(uint8_t *h, uint32_t len, uint8_t tos, uint8_t ttl,
			   uint32_t sa, uint32_t da)
{
	h[0] = 0x45;
	h[1] = tos;
	put16(h + 2, len);
	memset(h + 4, 0, 4);		/* identification, no fragment */
	h[8] = ttl;
	h[9] = IPPROTO_UDP;
	h[10] = h[11] = 0;
	memcpy(h + IP4_SRC_OFF, &sa, 4);
	memcpy(h + IP4_DST_OFF, &da, 4);
	put16(h + 10, csum_ip4_hdr(h));
}

void behavior_end_m_gtp4_e(struct proc_ctx *ctx, const struct sid *sid,
			   struct pkt *p)
{
	struct mob_session ms;
	struct srh_info si;
	uint32_t sa, da, off, hl, pdu;
	uint8_t nh, tos, ttl, type, *h;

	if (mobile_srh(ctx, sid, p, 0, true, &si, &nh, &off) < 0)
		return;
	type = si.srh ? srh_message(p->data + si.srh_off) : GTPU_TYPE_GPDU;
	if (type == GTPU_TYPE_GPDU &&
	    mobile_inner(ctx, sid, p, nh, off) < 0)	/* S01, S07-S08 */
		return;
	/* S02-S03: the IPv4 DA and the session from the SID, the IPv4 SA
	 * from the IPv6 SA. */
	da = addr_bits32_read(p->data + IP6_DST_OFF, sid->plen);
	mob_session_read(p->data + IP6_DST_OFF, sid->plen + 32u, &ms);
	sa = addr_bits32_read(p->data + IP6_SRC_OFF, sid->v4src_pos);
	tos = (uint8_t)((p->data[0] & 0x0f) << 4 | p->data[1] >> 4);
	ttl = p->data[IP6_HLIM_OFF];
	h = mobile_e_push(ctx, sid, p, &si, type, &ms, IPV4_HDR_LEN, &hl,
			  &pdu);			/* S04-S05 */
	if (!h)
		return;
	ip4_gtpu_write(h, p->len, tos, ttl, sa, da);	/* S06 */
	udp_csum_set(h + IPV4_HDR_LEN, hl, pdu,
		     udp_pseudo_sum(h + IP4_SRC_OFF, 4, p->len - IPV4_HDR_LEN));
	p->verdict = PKT_NEW_BYTES;
	proc_count_ok(behavior_stats(ctx, sid), p);
}

/* ---- RFC 9433 6.7 H.M.GTP4.D --------------------------------------------- */

/* S03-S04 on the encapsulation the headend made: B (SRH[0], and the DA
 * when B is the only segment) gets the IPv4 DA and the session, the
 * source B' the IPv4 SA. */
static void gtp4d_addresses(const struct policy *pol, struct pkt *p,
			    uint32_t sa, uint32_t da,
			    const struct mob_session *ms)
{
	uint8_t *b = p->data + IPV6_HDR_LEN + SRH_FIXED_LEN;

	memcpy(p->data + IP6_SRC_OFF, &pol->src_prefix, 16);
	addr_bits32_write(p->data + IP6_SRC_OFF, pol->src_plen, sa);
	if (p->data[IP6_NH_OFF] != IPPROTO_SRH)
		return;
	addr_bits32_write(b, pol->mob_plen, da);
	mob_session_write(b, pol->mob_plen + 32u, ms);
	if (p->data[IPV6_HDR_LEN + SRH_SL_OFF] == 0)
		memcpy(p->data + IP6_DST_OFF, b, 16);
}

/* The IPv4 header of p is UDP to GTP-U's port, not a fragment: S01.
 * Returns its length, 0 when not (counted). */
static uint32_t gtp4d_header(struct proc_ctx *ctx, struct sid_stats *st,
			     struct pkt *p)
{
	uint32_t hl = (p->data[0] & 0x0fu) * 4;

	if (get16(p->data + 6) & 0x3fff) {		/* MF, offset */
		proc_drop(ctx, p, st, DROP_FRAGMENT);
		return 0;
	}
	if (p->data[9] != IPPROTO_UDP || p->len < hl + UDP_HDR_LEN ||
	    get16(p->data + hl + 2) != GTPU_PORT) {
		proc_drop(ctx, p, st, DROP_UPPER_LAYER);	/* S08-S09 */
		return 0;
	}
	return hl;
}

void headend_m_gtp4_d(struct proc_ctx *ctx, const struct policy *pol,
		      struct sid_stats *st, struct pkt *p)
{
	struct headend_plan plan;
	struct mob_session ms;
	uint32_t hl, tpdu, sa, da;
	uint16_t hook;
	uint8_t nh, type;

	if (p->gso) {
		proc_drop(ctx, p, st, DROP_GSO);
		return;
	}
	hl = gtp4d_header(ctx, st, p);
	if (!hl || gtpu_take(ctx, st, p, hl, &tpdu, &ms, &type) < 0)
		return;
	nh = p->len > tpdu && (p->data[tpdu] >> 4) == 4 ? IPPROTO_IPIP :
							  IPPROTO_IPV6;
	if (type == GTPU_TYPE_GPDU) {
		enum drop_reason reason;

		if (behavior_inner_check(p, tpdu, nh, &reason) < 0) {
			proc_drop(ctx, p, st, reason);
			return;
		}
	}
	memcpy(&sa, p->data + IP4_SRC_OFF, 4);		/* S03-S04 */
	memcpy(&da, p->data + IP4_DST_OFF, 4);
	if (type != GTPU_TYPE_GPDU) {			/* 6.1's note */
		if (message_encap(ctx, pol, st, p, false, tpdu, type) == 0) {
			gtp4d_addresses(pol, p, sa, da, &ms);
			pkt_facts_reset(p);
		}
		return;
	}
	pkt_pull(p, tpdu);				/* S02 */
	hook = p->hw_proto;
	p->hw_proto = nh == IPPROTO_IPIP ? ETH_P_IP : ETH_P_IPV6;
	if (headend_prepare(ctx, pol, p, st, false, &plan) == 0) {
		headend_finish(ctx, &plan, p);		/* S05-S07 */
		if (p->verdict == PKT_NEW_BYTES && p->outcome == PKT_OUT_OK) {
			gtp4d_addresses(pol, p, sa, da, &ms);
			pkt_facts_reset(p);	/* no kernel route makes it */
		}
	}
	p->hw_proto = hook;
}
