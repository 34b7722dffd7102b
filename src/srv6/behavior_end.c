/* behavior_end.c - End, End.X and End.T (RFC 8986 4.1-4.3) with the PSP,
 * USP and USD flavors (RFC 8986 4.16), NEXT-C-SID (RFC 9800 4.1) and
 * REPLACE-C-SID (RFC 9800 4.2).
 *
 * The S-numbers in the comments are the lines of the RFC's pseudocode.
 *
 * Hop limit: srv6d checks it (S05-S06) but never decrements it (S12): the
 * packet goes back to the kernel with an ACCEPT verdict from PREROUTING,
 * and the kernel's forwarding decrements it once, so it leaves with one
 * less, as through the kernel's own seg6local.
 *
 * Routing (S15): End gives the packet back and the kernel routes it by its
 * new destination.  End.X and End.T give it back with the SID's mark, which
 * the daemon's ip rule turns into the adjacency (a table with a route via
 * nh6) or the SID's table.  Before that, the route mirror is asked
 * (egress.h): End.X's next hop must be reachable and its link up, End.T's
 * table must exist and route the new destination; otherwise the packet is
 * a counted drop, with ICMPv6 Destination Unreachable where the kernel
 * would send one, instead of vanishing in the kernel.
 */
#include <string.h>

#include "behavior.h"
#include "behavior_table.h"
#include "csid.h"
#include "egress.h"
#include "icmp.h"
#include "ip.h"
#include "srh.h"
#include "srv6.h"

#define SRH_SL_OFF	3
#define IPPROTO_ETHERNET_SR	143	/* RFC 8986 10.1 */
#define ETH_HDR_LEN	14

/* S15: hand the packet back for the FIB lookup (End), via the adjacency
 * (End.X) or in the SID's table (End.T), and count it. */
static void end_forward(struct proc_ctx *ctx, const struct sid *sid,
			struct pkt *p)
{
	p->verdict = PKT_NEW_BYTES;
	if (behavior_routes_by_mark(behavior_desc(sid->behavior))) {
		p->set_mark = true;
		p->out_mark = runstate_sid(ctx->rs, sid).mark;
	}
	proc_count_ok(behavior_stats(ctx, sid), p);
}

void behavior_unreachable(struct proc_ctx *ctx, const struct sid *sid,
			  struct pkt *p, enum drop_reason why)
{
	struct sid_stats *st = behavior_stats(ctx, sid);

	if (why == DROP_NO_TABLE) {
		proc_drop(ctx, p, st, why);
		return;
	}
	icmp6_error(ctx, p, ICMP6_T_DST_UNREACH,
		    why == DROP_NEXTHOP_UNREACHABLE ? ICMP6_C_ADDR_UNREACH
						    : ICMP6_C_NO_ROUTE,
		    0, st, why);
}

/* S15 of End.X and End.T, asked of the route mirror before the packet
 * changes (so an error quotes it as received): End.X's next hop must be
 * reachable, End.T's table must exist and route `next` (family AF_INET6
 * or AF_INET; NULL: the table only).  Returns true to go on, false once p
 * has been dropped or answered (behavior_unreachable()). */
static bool end_route_ok(struct proc_ctx *ctx, const struct sid *sid,
			 struct pkt *p, int family, const void *next)
{
	enum drop_reason why = EGRESS_OK;
	enum behavior_route route;
	struct egress e;

	if (!ctx->mirror)
		return true;
	route = behavior_desc(sid->behavior)->route;
	if (route == BHV_ROUTE_NEXTHOP)
		why = egress_nexthop_check(ctx->mirror, sid, ctx->sid_rt);
	else if (route == BHV_ROUTE_TABLE && next)
		why = egress_route(ctx->mirror, family, sid->table, next, 0, &e);
	else if (route == BHV_ROUTE_TABLE &&
		 !fib_table_get(rtmirror_fib(ctx->mirror), sid->table))
		why = DROP_NO_TABLE;
	if (why == EGRESS_OK)
		return true;
	behavior_unreachable(ctx, sid, p, why);
	return false;
}

/* `kernel-end` (src/io/kend.h): the kernel's seg6local End of the SID's
 * table makes this result from the packet as queued: a plain End of
 * srv6d.conf with its route (kend_mark: no flavor), an SRH without TLVs
 * (the kernel would check an HMAC it has no key for), and the first SID
 * to run on the packet (a SID after it in a chain clears the facts). */
static void end_kernel_facts(const struct proc_ctx *ctx, const struct sid *sid,
			     const struct srh *srh, struct pkt *p)
{
	uint32_t mark = runstate_sid(ctx->rs, sid).kend_mark;

	if (!ctx->rs || !ctx->rs->kend_on || !mark || proc_kend_held(ctx) ||
	    sid->flavors ||
	    p->chained || srh->hdrlen != (srh->last_entry + 1u) * 2)
		return;
	proc_kend_probe_take(ctx, p);
	p->facts.kernel = PKT_KERNEL_END;
	p->facts.kernel_mark = mark;
	p->facts.kernel_from_original = true;
}

/* S05-S06: Hop Limit <= 1 gets ICMPv6 Time Exceeded, code 0. */
static bool end_hop_limit_exceeded(struct proc_ctx *ctx,
				   const struct sid *sid, struct pkt *p)
{
	if (p->data[IP6_HLIM_OFF] > 1)
		return false;
	icmp6_error(ctx, p, ICMP6_T_TIME_EXCEEDED, ICMP6_C_HOP_LIMIT, 0,
		    behavior_stats(ctx, sid), DROP_HOP_LIMIT);
	return true;
}

static void ipv6_payload_len_sub(uint8_t *h, uint32_t n)
{
	uint32_t plen = (uint32_t)h[IP6_PLEN_OFF] << 8 | h[IP6_PLEN_OFF + 1];

	ip6_plen_set(h, plen - n);
}

/* Remove the SRH (PSP S14.1-S14.5, USP S02.1-S02.3): the Next Header that
 * named the SRH takes the SRH's Next Header, the Payload Length loses the
 * SRH's length, and the IPv6 header (with any extension header before the
 * SRH) moves forward over the SRH; the payload never moves.  The same
 * bytes as Linux's seg6_pop_srh().  Returns the number of bytes removed. */
static uint32_t srh_pop(struct pkt *p, const struct srh_info *si)
{
	uint32_t slen = si->end_off - si->srh_off;
	uint8_t nh = si->srh->nexthdr;

	pkt_chain_write(p);
	p->data[si->prev_nh_off] = nh;
	ipv6_payload_len_sub(p->data, slen);
	memmove(p->data + slen, p->data, si->srh_off);
	pkt_pull(p, slen);
	return slen;
}

void behavior_upper_layer(struct proc_ctx *ctx, const struct sid *sid,
			  struct pkt *p, uint8_t nh, uint32_t off)
{
	struct sid_stats *st = behavior_stats(ctx, sid);

	/* S01-S02 */
	if (nh == IPPROTO_ICMPV6 && off < p->len &&
	    p->data[off] == ICMP6_T_ECHO_REQUEST) {
		if (icmp6_echo_reply(ctx, p, off) == 0)
			proc_count_ok(st, p);
		else
			proc_drop(ctx, p, st, DROP_UPPER_LAYER);
		return;
	}
	/* S03-S04 */
	icmp6_error(ctx, p, ICMP6_T_PARAM_PROB, ICMP6_C_SR_UPPER_LAYER, off,
		    st, DROP_UPPER_LAYER);
}

int behavior_inner_check(struct pkt *p, uint32_t off, uint8_t nh,
			 enum drop_reason *reason)
{
	const uint8_t *in = p->data + off;
	/* the bytes at hand; of a header queue's packet cut short, the
	 * whole packet's for its length (its headers are at hand) */
	uint32_t have = p->len - off, ilen;
	uint32_t avail = p->truncated ? p->orig_len - off : have;

	*reason = DROP_TRUNCATED;
	if (have == 0)
		return -1;
	if (nh != IPPROTO_ETHERNET_SR &&
	    (in[0] >> 4) != (nh == IPPROTO_IPV6 ? 6 : 4)) {
		*reason = DROP_BAD_IP;
		return -1;
	}
	switch (nh) {
	case IPPROTO_ETHERNET_SR:
		return have >= ETH_HDR_LEN ? 0 : -1;
	case IPPROTO_IPV6:
		if (have < IPV6_HDR_LEN)
			return -1;
		ilen = IPV6_HDR_LEN + ((uint32_t)in[4] << 8 | in[5]);
		if (ilen == IPV6_HDR_LEN) {
			*reason = DROP_BAD_IP;	/* (0: a jumbogram) */
			return -1;
		}
		break;
	default:
		if (have < 20)
			return -1;
		ilen = (uint32_t)in[2] << 8 | in[3];
		if ((in[0] & 0x0f) < 5 || ilen < (uint32_t)(in[0] & 0x0f) * 4) {
			*reason = DROP_BAD_IP;
			return -1;
		}
		break;
	}
	if (ilen > avail)
		return -1;
	pkt_trim(p, off + ilen);
	return 0;
}

/* RFC 8986 4.16.3 USD, upper-layer header 41 or 4: S02 remove the outer
 * IPv6 header with all its extension headers, S03 forward the exposed
 * packet.  The inner packet is left as it is, hop limit / TTL included:
 * the kernel decrements it once when it forwards the verdict (Linux's
 * End.DX6/End.DT6 do not touch it at decapsulation either).  An IPv4
 * result goes back through the reinjection device, or with End.X/End.T
 * through the SID's veth pair (reinject.c). */
static void end_decap(struct proc_ctx *ctx, const struct sid *sid,
		      struct pkt *p, uint8_t nh, uint32_t off)
{
	enum drop_reason reason;

	if (behavior_inner_check(p, off, nh, &reason) < 0) {
		proc_drop(ctx, p, behavior_stats(ctx, sid), reason);
		return;
	}
	if (!end_route_ok(ctx, sid, p, nh == IPPROTO_IPV6 ? AF_INET6 : AF_INET,
			  p->data + off + (nh == IPPROTO_IPV6 ? 24 : 16)))
		return;
	pkt_pull(p, off);
	end_forward(ctx, sid, p);
}

/* S02-S03 (Segments Left 0, or no SRH): stop processing the SRH and
 * process the next header, as changed by the flavors. */
static void end_sl_zero(struct proc_ctx *ctx, const struct sid *sid,
			struct pkt *p, const struct srh_info *si)
{
	uint32_t off = si->end_off;

	/* USD S01-S03: an IPv6 or IPv4 packet inside is decapsulated. */
	if ((sid->flavors & FLV_USD) &&
	    (si->nexthdr == IPPROTO_IPV6 || si->nexthdr == IPPROTO_IPIP)) {
		end_decap(ctx, sid, p, si->nexthdr, off);
		return;
	}
	/* USP S02.1-S02.3: remove the SRH; S03: process the next header. */
	if ((sid->flavors & FLV_USP) && si->srh)
		off -= srh_pop(p, si);
	behavior_upper_layer(ctx, sid, p, si->nexthdr, off);
}

/* S09-S10 failed: Parameter Problem code 0 at Segments Left. */
static void end_bad_srh(struct proc_ctx *ctx, const struct sid *sid,
			struct pkt *p, const struct srh_info *si)
{
	icmp6_error(ctx, p, ICMP6_T_PARAM_PROB, ICMP6_C_HDR_FIELD,
		    si->srh_off + SRH_SL_OFF, behavior_stats(ctx, sid),
		    DROP_BAD_SRH);
}

/* srh_find() failed: drop, or Parameter Problem where RFC 8200 wants it. */
static void end_srh_error(struct proc_ctx *ctx, const struct sid *sid,
			  struct pkt *p, const struct srh_error *err)
{
	if (err->icmp)
		icmp6_error(ctx, p, ICMP6_T_PARAM_PROB, err->code,
			    err->pointer, behavior_stats(ctx, sid), err->reason);
	else
		proc_drop(ctx, p, behavior_stats(ctx, sid), err->reason);
}

/* RFC 9800 4.1.1 End with NEXT-C-SID, when DA.Argument != 0 (S01): the
 * next C-SID is in the destination address itself and the SRH, if any, is
 * left alone.  Returns false when DA.Argument is 0: the caller goes on
 * with the End processing of RFC 8986 4.1 (the next SRH segment).  For
 * byte-aligned lengths the result is Linux's (end_next_csid_core). */
static bool end_next_csid(struct proc_ctx *ctx, const struct sid *sid,
			  struct pkt *p)
{
	unsigned lblen, nflen;
	struct in6_addr da;

	csid_lengths(sid, &lblen, &nflen);
	memcpy(&da, p->data + IP6_DST_OFF, sizeof(da));
	if (!csid_arg_nonzero(&da, lblen, nflen))	/* S01 */
		return false;
	if (end_hop_limit_exceeded(ctx, sid, p))	/* S02-S04 */
		return true;
	csid_advance(&da, lblen, nflen);		/* S05-S06 */
	if (!end_route_ok(ctx, sid, p, AF_INET6, &da))	/* S08 */
		return true;
	memcpy(p->data + IP6_DST_OFF, &da, sizeof(da));
	/* S07 (decrement Hop Limit): the kernel, on forwarding. */
	end_forward(ctx, sid, p);			/* S08 */
	return true;
}

/* PSP after S17 and S28 of RFC 9800 4.2.1 (4.2.4: S28.1 If (Segments Left
 * == 0 and (DA.Arg.Index == 0 or Segment List[0][DA.Arg.Index-1] == 0))):
 * the SRH is removed once its last C-SID is in the destination. */
static void rcsid_psp(const struct sid *sid, struct pkt *p,
		      const struct srh_info *si, bool last)
{
	if ((sid->flavors & FLV_PSP) && last)
		srh_pop(p, si);
}

/* Segment List[i] (the SRH is packed: copied, not pointed to). */
static void rcsid_seg(const struct srh *srh, unsigned i, struct in6_addr *a)
{
	memcpy(a, (const uint8_t *)srh->segments + i * sizeof(*a), sizeof(*a));
}

/* C-SID j of Segment List[i]. */
static uint32_t rcsid_at(const struct srh *srh, unsigned i, unsigned nflen,
			 unsigned j)
{
	struct in6_addr c;

	rcsid_seg(srh, i, &c);
	return rcsid_get(&c, nflen, j);
}

/* RFC 9800 4.2.1 End with REPLACE-C-SID (4.2.2 End.X and 4.2.3 End.T
 * differ only in S18 and S29: the SID's row says how the result is
 * routed).  The S-numbers are those of RFC 9800 4.2.1, which replaces
 * S02 and S09-S16 of RFC 8986 4.1. */
static void behavior_end_rcsid(struct proc_ctx *ctx, const struct sid *sid,
			       struct pkt *p)
{
	unsigned lblen, nflen, idx, nidx;
	struct in6_addr da;
	struct srh_error err;
	struct srh_info si;
	struct srh *srh;
	bool last;
	uint32_t c;

	rcsid_lengths(sid, &lblen, &nflen);
	if (proc_srh_find(ctx, p, &si, &err) < 0) {
		end_srh_error(ctx, sid, p, &err);
		return;
	}
	srh = si.srh;
	memcpy(&da, p->data + IP6_DST_OFF, sizeof(da));
	idx = rcsid_index(&da, nflen);
	/* S02 reads Segment List[0]: an SRH that has none is bad. */
	if (srh && srh->segments_left == 0 && idx != 0 && !srh_validate(srh)) {
		end_bad_srh(ctx, sid, p, &si);
		return;
	}
	if (!srh || (srh->segments_left == 0 &&		/* S02-S04 */
		     (idx == 0 || rcsid_at(srh, 0, nflen, idx - 1) == 0))) {
		end_sl_zero(ctx, sid, p, &si);
		return;
	}
	if (end_hop_limit_exceeded(ctx, sid, p))	/* S05-S07 */
		return;
	if (idx != 0) {					/* S09 */
		/* S10-S12: Segments Left > Last Entry is refused here. */
		if (!srh_validate(srh) ||
		    srh->segments_left > srh->last_entry) {
			end_bad_srh(ctx, sid, p, &si);
			return;
		}
		nidx = idx - 1;				/* S13 */
		c = rcsid_at(srh, srh->segments_left, nflen, nidx);
		if (c == 0) {				/* S14 */
			/* S02 let no Segments Left 0 through to here: the
			 * container's next C-SID would be 0 at S02. */
			struct in6_addr next;

			rcsid_seg(srh, srh->segments_left - 1u, &next);
			if (!end_route_ok(ctx, sid, p, AF_INET6, &next))
				return;			/* S18 */
			pkt_chain_write(p);
			srh->segments_left--;		/* S15 */
			/* S16 (Hop Limit): the kernel, on forwarding. */
			memcpy(p->data + IP6_DST_OFF, &next,	/* S17 */
			       sizeof(struct in6_addr));
			rcsid_psp(sid, p, &si, srh->segments_left == 0);
			end_forward(ctx, sid, p);	/* S18 */
			return;
		}
		rcsid_write(&da, lblen, nflen, c, nidx);	/* S28 */
		if (!end_route_ok(ctx, sid, p, AF_INET6, &da))
			return;				/* S29 */
		/* The SRH is left as it is: only the DA changes. */
		memcpy(p->data + IP6_DST_OFF, &da, sizeof(da));
		last = srh->segments_left == 0 &&
		       (nidx == 0 ||
			rcsid_at(srh, 0, nflen, nidx - 1) == 0);
		rcsid_psp(sid, p, &si, last);
		/* S27 (Hop Limit): the kernel, on forwarding. */
		end_forward(ctx, sid, p);		/* S29 */
		return;
	}
	if (!srh_validate(srh)) {			/* S21-S23 */
		end_bad_srh(ctx, sid, p, &si);
		return;
	}
	nidx = 128 / nflen - 1;				/* S25 */
	c = rcsid_at(srh, srh->segments_left - 1u, nflen, nidx);
	rcsid_write(&da, lblen, nflen, c, nidx);	/* S28 */
	if (!end_route_ok(ctx, sid, p, AF_INET6, &da))
		return;					/* S29 */
	pkt_chain_write(p);
	srh->segments_left--;				/* S24 */
	memcpy(p->data + IP6_DST_OFF, &da, sizeof(da));
	last = srh->segments_left == 0 &&
	       rcsid_at(srh, 0, nflen, nidx - 1) == 0;
	rcsid_psp(sid, p, &si, last);
	/* S27 (Hop Limit): the kernel, on forwarding. */
	end_forward(ctx, sid, p);			/* S29 */
}

/* RFC 8986 4.1 (and 4.2, 4.3, which differ only in S15: the SID's row
 * says how its result is routed). */
void behavior_end(struct proc_ctx *ctx, const struct sid *sid, struct pkt *p)
{
	struct in6_addr next;
	struct srh_error err;
	struct srh_info si;
	struct srh *srh;

	if ((sid->flavors & FLV_NEXT_CSID) && end_next_csid(ctx, sid, p))
		return;
	if (sid->flavors & FLV_REPLACE_CSID) {
		behavior_end_rcsid(ctx, sid, p);
		return;
	}
	if (proc_srh_find(ctx, p, &si, &err) < 0) {
		end_srh_error(ctx, sid, p, &err);
		return;
	}
	srh = si.srh;
	if (!srh || srh->segments_left == 0) {		/* S02-S04 */
		end_sl_zero(ctx, sid, p, &si);
		return;
	}
	if (end_hop_limit_exceeded(ctx, sid, p))	/* S05-S07 */
		return;
	if (!srh_validate(srh)) {			/* S08-S11 */
		end_bad_srh(ctx, sid, p, &si);
		return;
	}
	memcpy(&next, &srh->segments[srh->segments_left - 1], sizeof(next));
	if (!end_route_ok(ctx, sid, p, AF_INET6, &next))	/* S15 */
		return;
	/* S12 (decrement Hop Limit): the kernel, on forwarding. */
	pkt_chain_write(p);
	srh->segments_left--;				/* S13 */
	memcpy(p->data + IP6_DST_OFF,			/* S14 */
	       &srh->segments[srh->segments_left], sizeof(struct in6_addr));
	end_kernel_facts(ctx, sid, srh, p);
	if ((sid->flavors & FLV_PSP) && srh->segments_left == 0)
		srh_pop(p, &si);			/* PSP S14.1-S14.5 */
	end_forward(ctx, sid, p);			/* S15-S16 */
}

/* RFC 9433 6.2, End.MAP: the SID maps to another (nh6); with or without
 * an SRH, which it neither reads nor changes. */
void behavior_end_map(struct proc_ctx *ctx, const struct sid *sid,
		      struct pkt *p)
{
	if (end_hop_limit_exceeded(ctx, sid, p))	/* S01-S03 */
		return;
	/* S04 (decrement Hop Limit): the kernel, on forwarding. */
	pkt_chain_write(p);
	memcpy(p->data + IP6_DST_OFF, &sid->nh6,	/* S05 */
	       sizeof(struct in6_addr));
	end_forward(ctx, sid, p);			/* S06 */
}
