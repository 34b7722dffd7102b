/* behavior_decap.c - the decapsulating endpoint behaviors End.DX6,
 * End.DX4, End.DT6, End.DT4, End.DT46 and End.DX2 (RFC 8986 4.4-4.9).
 *
 * The S-numbers in the comments are the lines of the RFC's pseudocode.
 * Each behavior first processes the SRH, if there is one (S01-S06): its
 * Segments Left must be 0, or the source gets an ICMPv6 Parameter Problem
 * code 0 pointing at Segments Left (Linux drops such a packet silently;
 * srv6d follows the RFC).  A packet without an SRH (H.Encaps.Red with one
 * segment) goes straight to the upper-layer header.  Then the upper-layer
 * header must be the behavior's (41, 4 or 143); anything else is processed
 * as RFC 8986 4.1.1 says: an ICMPv6 Echo Request is answered, the rest
 * gets Parameter Problem code 4 pointing at the upper-layer header.
 *
 * The result is the inner packet, pulled out in place (the outer headers
 * become headroom; nothing moves), with the SID's mark.  The kernel
 * routes it and decrements its hop limit / TTL once, exactly as after the
 * kernel's own seg6local decapsulation: srv6d leaves it alone.  How each
 * result finds its next hop or table is reinject.c's and rtrules.c's job
 * (docs/design.md "Reinjection", "Routing"):
 *   IPv6 inner:  verdict payload + mark -> ip -6 rule fwmark -> table
 *   IPv4 inner:  the SID's veth device  -> ip -4 rule iif    -> table
 *   Ethernet:    an AF_PACKET write out of oif
 */
#include <string.h>

#include "behavior.h"
#include "behavior_table.h"
#include "egress.h"
#include "icmp.h"
#include "srh.h"
#include "srv6.h"

#define SRH_SL_OFF	3	/* Segments Left in the SRH */
#define IPPROTO_ETHERNET_SR	143	/* RFC 8986 10.1 */
#define DSTOPT_MAX	8	/* Destination Options headers we skip */

/* The upper-layer header types a behavior decapsulates (its row's
 * decap, behavior_table.h). */
static bool decap_accepts(const struct behavior_desc *d, uint8_t nh)
{
	switch (d->decap) {
	case BHV_DECAP_IPV6:
		return nh == IPPROTO_IPV6;
	case BHV_DECAP_IPV4:
		return nh == IPPROTO_IPIP;
	case BHV_DECAP_IP:
		return nh == IPPROTO_IPV6 || nh == IPPROTO_IPIP;
	case BHV_DECAP_L2:
		return nh == IPPROTO_ETHERNET_SR;
	case BHV_DECAP_NONE:
	default:
		return false;
	}
}

/* Skip the Destination Options headers between the SRH (or the IPv6
 * header) and the upper-layer header: they belong to the outer packet
 * ("remove the outer IPv6 header with all its extension headers").
 * Returns 0 with *nh and *off at the upper-layer header, -1 if truncated. */
static int decap_skip_dstopts(const struct pkt *p, uint8_t *nh, uint32_t *off)
{
	for (unsigned i = 0; i < DSTOPT_MAX && *nh == IPPROTO_DSTOPTS; i++) {
		uint32_t len;

		if (p->len - *off < 8)
			return -1;
		len = ((uint32_t)p->data[*off + 1] + 1) * 8;
		if (p->len - *off < len)
			return -1;
		*nh = p->data[*off];
		*off += len;
	}
	return 0;
}

/* S01-S06 of every decapsulating behavior: locate the SRH, insist on
 * Segments Left 0, find the upper-layer header.  Returns 0 with *nh and
 * *off set, or -1 once the packet has been answered or dropped. */
static int decap_srh(struct proc_ctx *ctx, const struct sid *sid,
		     struct pkt *p, uint8_t *nh, uint32_t *off)
{
	struct sid_stats *st = behavior_stats(ctx, sid);
	struct srh_error err;
	struct srh_info si;

	if (proc_srh_find(ctx, p, &si, &err) < 0) {
		if (err.icmp)
			icmp6_error(ctx, p, ICMP6_T_PARAM_PROB, err.code,
				    err.pointer, st, err.reason);
		else
			proc_drop(ctx, p, st, err.reason);
		return -1;
	}
	if (si.srh && si.srh->segments_left != 0) {	/* S02-S04 */
		icmp6_error(ctx, p, ICMP6_T_PARAM_PROB, ICMP6_C_HDR_FIELD,
			    si.srh_off + SRH_SL_OFF, st, DROP_BAD_SRH);
		return -1;
	}
	*nh = si.nexthdr;				/* S05 */
	*off = si.end_off;
	if (decap_skip_dstopts(p, nh, off) < 0) {
		proc_drop(ctx, p, st, DROP_TRUNCATED);
		return -1;
	}
	return 0;
}

/* End.DT*: the inner destination in the SID's table, as the kernel would
 * route it.  A missing table is a counted drop (the kernel's seg6local
 * blackholes it).  No route: counted here (DROP_NO_ROUTE, an error of the
 * SID) and handed to the kernel as usual, where the daemon's `unreachable`
 * rule after the table answers with ICMP(v6) Destination Unreachable from
 * the address the kernel picks, byte for byte the kernel's End.DT6 answer
 * (docs/design.md "Routing").  Returns true to go on. */
static bool decap_table_ok(struct proc_ctx *ctx, const struct sid *sid,
			   struct pkt *p, uint8_t nh, uint32_t off)
{
	struct sid_stats *st = behavior_stats(ctx, sid);
	bool v6 = nh == IPPROTO_IPV6;
	enum drop_reason why;
	struct egress e;

	why = egress_route(ctx->mirror, v6 ? AF_INET6 : AF_INET, sid->table,
			   p->data + off + (v6 ? 24 : 16), 0, &e);
	if (why == EGRESS_OK)
		return true;
	if (why == DROP_NO_TABLE) {
		proc_drop(ctx, p, st, why);
		return false;
	}
	if (p->truncated) {
		/* A header queue's packet cut short (kend.h): its bytes are
		 * not all here to hand off; bounced, uncounted, to come back
		 * whole. */
		p->verdict = PKT_REPEAT;
		return false;
	}
	pkt_pull(p, off);
	p->verdict = PKT_NEW_BYTES;
	p->set_mark = true;
	p->out_mark = runstate_sid(ctx->rs, sid).mark;
	proc_count_drop(ctx, p, st, why, PKT_OUT_HANDOFF);
	return false;
}

/* The route check of S03 (egress.h), before the packet changes, as the
 * row's no_route says: End.DX6 and End.DX4's next hop (an ICMPv6 error
 * when unreachable), End.DT*'s table (a hand-off).  Returns true to go
 * on, false once p has been dropped or answered. */
static bool decap_route_ok(struct proc_ctx *ctx, const struct sid *sid,
			   const struct behavior_desc *d, struct pkt *p,
			   uint8_t nh, uint32_t off)
{
	enum drop_reason why;

	if (!ctx->mirror)
		return true;
	switch (d->no_route) {
	case BHV_NOROUTE_ICMP:
		why = egress_nexthop_check(ctx->mirror, sid, ctx->sid_rt);
		if (why == EGRESS_OK)
			return true;
		behavior_unreachable(ctx, sid, p, why);
		return false;
	case BHV_NOROUTE_HANDOFF:
		return decap_table_ok(ctx, sid, p, nh, off);
	case BHV_NOROUTE_KERNEL:
	case BHV_NOROUTE_NONE:
	default:
		return true;
	}
}

uint32_t behavior_inner_len(const uint8_t *in, uint32_t len)
{
	if (len >= IPV6_HDR_LEN && (in[0] >> 4) == 6 && (in[4] | in[5]))
		return IPV6_HDR_LEN + ((uint32_t)in[4] << 8 | in[5]);
	if (len >= 20 && (in[0] >> 4) == 4)
		return (uint32_t)in[2] << 8 | in[3];
	return 0;
}

/* The upper-layer header the kernel's seg6local decapsulation of sid
 * takes (IPPROTO_IPV6, IPPROTO_IPIP), 0 for a SID it has none for. */
static uint8_t decap_kernel_proto(const struct sid *sid)
{
	if (sid->flavors)
		return 0;
	switch (sid->behavior) {
	case BHV_END_DT6:
		return sid->vrf ? 0 : IPPROTO_IPV6;
	case BHV_END_DX6:
		return IPPROTO_IPV6;
	case BHV_END_DX4:
		return IPPROTO_IPIP;
	default:
		return 0;
	}
}

uint32_t behavior_decap_kernel_len(const struct sid *sid, const uint8_t *o,
				   uint32_t len, uint32_t orig_len)
{
	const struct srh *srh = (const struct srh *)(o + IPV6_HDR_LEN);
	uint8_t proto = decap_kernel_proto(sid);
	uint32_t off;

	if (!proto || len < IPV6_HDR_LEN || (o[0] >> 4) != 6 ||
	    IPV6_HDR_LEN + ((uint32_t)o[4] << 8 | o[5]) != orig_len)
		return 0;
	if (o[6] == proto)
		return IPV6_HDR_LEN;
	if (o[6] != IPPROTO_ROUTING || len < IPV6_HDR_LEN + sizeof(*srh))
		return 0;
	off = IPV6_HDR_LEN + 8 + 8u * srh->hdrlen;
	if (off > len || srh->type != 4 || srh->segments_left != 0 ||
	    srh->hdrlen != (srh->last_entry + 1u) * 2 ||
	    srh->nexthdr != proto)
		return 0;
	return off;
}

/* `kernel-end` (src/io/kend.h): the kernel's seg6local decapsulation of
 * sid makes this result (the inner packet at off) from the packet as
 * queued: a SID with its route (kend_mark: End.DT6 `table`, End.DX6,
 * End.DX4, no flavor), the first to run on the packet (no SID or policy
 * before it), the outer headers behavior_decap_kernel_len() wants, and
 * nothing cut off the packet's end. */
static void decap_kernel_facts(const struct proc_ctx *ctx,
			       const struct sid *sid, struct pkt *p,
			       uint32_t off)
{
	uint32_t mark = runstate_sid(ctx->rs, sid).kend_mark;

	if (!ctx->rs || !ctx->rs->kend_on || !mark || proc_kend_held(ctx) ||
	    p->chained ||
	    behavior_decap_kernel_len(sid, p->data, p->len, p->orig_len) != off ||
	    off + behavior_inner_len(p->data + off, p->len - off) != p->orig_len)
		return;
	proc_kend_probe_take(ctx, p);
	p->facts.kernel = PKT_KERNEL_END;
	p->facts.kernel_mark = mark;
	p->facts.kernel_from_original = true;
}

/* RFC 8986 4.4-4.9: End.DX6 (to sid->nh6 through the mark's table),
 * End.DX4 (to sid->nh4 through the SID's device), End.DT6, End.DT4 and
 * End.DT46 (lookup in sid->table), End.DX2 (the frame out of sid->oif),
 * told apart by the SID's row.  The upper-layer part shared by every
 * behavior: S01 the header is the behavior's, S02 remove the outer IPv6
 * header with all its extension headers, S03 forward the exposed packet
 * (with the SID's mark: see the top of the file); S05 anything else as
 * 4.1.1. */
void behavior_decap(struct proc_ctx *ctx, const struct sid *sid,
		    struct pkt *p)
{
	const struct behavior_desc *d = behavior_desc(sid->behavior);
	enum drop_reason reason;
	uint32_t off;
	uint8_t nh;

	if (decap_srh(ctx, sid, p, &nh, &off) < 0)
		return;
	if (!decap_accepts(d, nh)) {	/* S04-S05 */
		behavior_upper_layer(ctx, sid, p, nh, off);
		return;
	}
	if (behavior_inner_check(p, off, nh, &reason) < 0) {
		proc_drop(ctx, p, behavior_stats(ctx, sid), reason);
		return;
	}
	if (!decap_route_ok(ctx, sid, d, p, nh, off))	/* S03 */
		return;
	decap_kernel_facts(ctx, sid, p, off);
	pkt_pull(p, off);				/* S02 */
	p->verdict = PKT_NEW_BYTES;			/* S03 */
	p->set_mark = true;
	p->out_mark = runstate_sid(ctx->rs, sid).mark;
	proc_count_ok(behavior_stats(ctx, sid), p);
}
