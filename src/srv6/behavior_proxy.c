/* behavior_proxy.c - End.AS, End.AD and End.AM, the SR proxies of
 * draft-ietf-spring-sr-service-programming-10 6.1, 6.2 and 6.4
 * (behavior_proxy.h). */
#include <linux/if_ether.h>
#include <string.h>

#include "behavior.h"
#include "behavior_proxy.h"
#include "behavior_table.h"
#include "egress.h"
#include "gso.h"
#include "headend.h"
#include "icmp.h"
#include "ip.h"
#include "srh.h"
#include "srv6.h"

#define SRH_SL_OFF	3
#define DSTOPT_MAX	8

/* The inner type of an End.AS / End.AD SID's row: 41 or 4. */
static uint8_t proxy_inner(const struct sid *sid)
{
	return behavior_desc(sid->behavior)->decap == BHV_DECAP_IPV4 ?
	       IPPROTO_IPIP : IPPROTO_IPV6;
}

/* The SRH, as the End behaviors find it (an ICMPv6 error or a drop for
 * a bad one).  Returns 0 with si, -1 once p is answered or dropped. */
static int proxy_srh(struct proc_ctx *ctx, const struct sid *sid,
		     struct pkt *p, struct srh_info *si)
{
	struct sid_stats *st = behavior_stats(ctx, sid);
	struct srh_error err;

	if (proc_srh_find(ctx, p, si, &err) == 0)
		return 0;
	if (err.icmp)
		icmp6_error(ctx, p, ICMP6_T_PARAM_PROB, err.code, err.pointer,
			    st, err.reason);
	else
		proc_drop(ctx, p, st, err.reason);
	return -1;
}

/* End.AD and End.AM need an SRH with Segments Left > 0 (6.2, 6.4 S01):
 * none is DROP_BAD_SRH, SL 0 also Parameter Problem at Segments Left,
 * a Last Entry or SL that Hdr Ext Len does not hold (RFC 8754 4.3.1.1)
 * the same. */
static bool proxy_srh_sl_ok(struct proc_ctx *ctx, const struct sid *sid,
			    struct pkt *p, const struct srh_info *si)
{
	struct sid_stats *st = behavior_stats(ctx, sid);

	if (!si->srh) {
		proc_drop(ctx, p, st, DROP_BAD_SRH);
		return false;
	}
	if (si->srh->segments_left == 0 || !srh_validate(si->srh)) {
		icmp6_error(ctx, p, ICMP6_T_PARAM_PROB, ICMP6_C_HDR_FIELD,
			    si->srh_off + SRH_SL_OFF, st, DROP_BAD_SRH);
		return false;
	}
	return true;
}

/* The next hop toward the service (as End.DX6's, End.X's): reachable,
 * its link up; else ICMPv6 Destination Unreachable. */
static bool proxy_nexthop_ok(struct proc_ctx *ctx, const struct sid *sid,
			     struct pkt *p)
{
	enum drop_reason why;

	if (!ctx->mirror)
		return true;
	why = egress_nexthop_check(ctx->mirror, sid, ctx->sid_rt);
	if (why == EGRESS_OK)
		return true;
	behavior_unreachable(ctx, sid, p, why);
	return false;
}

/* The SID's mark on the result: its rule sends it to nh6 / nh4. */
static void proxy_forward(struct proc_ctx *ctx, const struct sid *sid,
			  struct pkt *p)
{
	p->verdict = PKT_NEW_BYTES;
	p->set_mark = true;
	p->out_mark = runstate_sid(ctx->rs, sid).mark;
	proc_count_ok(behavior_stats(ctx, sid), p);
}

/* ---- End.AD's cache ----------------------------------------------------- */

static struct proxy_slot *proxy_slot(const struct proc_ctx *ctx,
				     const struct sid *sid, unsigned w)
{
	return &ctx->proxy_slots[(size_t)sid->proxy * ctx->proxy_nworkers + w];
}

/* Keep hdr[0..len) in this worker's slot of sid. */
static void proxy_learn(struct proc_ctx *ctx, const struct sid *sid,
			const uint8_t *hdr, uint32_t len)
{
	struct proxy_slot *s;
	uint32_t seq;

	if (!ctx->proxy_slots || ctx->worker >= ctx->proxy_nworkers)
		return;
	s = proxy_slot(ctx, sid, ctx->worker);
	if (s->len == len && ctx->now_ns - s->stamp < PROXY_RESTAMP_NS &&
	    !memcmp(s->hdr, hdr, len))
		return;
	seq = s->seq;
	__atomic_store_n(&s->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(s->hdr, hdr, len);
	__atomic_store_n(&s->len, (uint16_t)len, __ATOMIC_RELAXED);
	__atomic_store_n(&s->stamp, ctx->now_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, seq + 2, __ATOMIC_RELEASE);
}

/* The worker whose slot of sid holds the newest headers, or -1. */
static int proxy_newest(const struct proc_ctx *ctx, const struct sid *sid)
{
	uint64_t best_stamp = 0;
	int best = -1;

	for (unsigned w = 0; w < ctx->proxy_nworkers; w++) {
		const struct proxy_slot *s = proxy_slot(ctx, sid, w);
		uint64_t stamp;

		if (!__atomic_load_n(&s->len, __ATOMIC_RELAXED))
			continue;
		stamp = __atomic_load_n(&s->stamp, __ATOMIC_RELAXED);
		if (best < 0 || stamp > best_stamp) {
			best = (int)w;
			best_stamp = stamp;
		}
	}
	return best;
}

/* Push the newest headers sid learned in front of p.  Returns their
 * length, 0 when none (or when they changed under two reads), or -1
 * for want of headroom. */
static int proxy_push_learned(struct proc_ctx *ctx, const struct sid *sid,
			      struct pkt *p)
{
	const struct proxy_slot *s;
	int w;

	if (!ctx->proxy_slots || (w = proxy_newest(ctx, sid)) < 0)
		return 0;
	s = proxy_slot(ctx, sid, (unsigned)w);
	for (unsigned tries = 0; tries < 2; tries++) {
		uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		uint16_t len = __atomic_load_n(&s->len, __ATOMIC_RELAXED);

		if (seq & 1 || !len || len > PROXY_HDR_MAX)
			continue;
		if (!pkt_push(p, len))
			return -1;
		memcpy(p->data, s->hdr, len);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq)
			return len;
		pkt_pull(p, len);	/* written meanwhile: again */
	}
	return 0;
}

/* ---- toward the service ------------------------------------------------- */

/* Skip the Destination Options headers before the upper-layer header
 * (they belong to the outer packet).  -1 if truncated. */
static int proxy_skip_dstopts(const struct pkt *p, uint8_t *nh,
			      uint32_t *off)
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

/* 6.1 End.AS: IF ENH == the inner type, remove the outer IPv6 header
 * and its extension headers, forward the exposed packet on IFACE-OUT;
 * else drop.  6.2 End.AD: the same after SL--, DA = SRH[SL], and the
 * headers so updated kept for the way back. */
static void proxy_decap(struct proc_ctx *ctx, const struct sid *sid,
			struct pkt *p, bool learn)
{
	struct sid_stats *st = behavior_stats(ctx, sid);
	enum drop_reason reason;
	struct srh_info si;
	uint32_t off;
	uint8_t nh;

	if (proxy_srh(ctx, sid, p, &si) < 0)
		return;
	if (learn && !proxy_srh_sl_ok(ctx, sid, p, &si))
		return;
	nh = si.nexthdr;
	off = si.end_off;
	if (proxy_skip_dstopts(p, &nh, &off) < 0) {
		proc_drop(ctx, p, st, DROP_TRUNCATED);
		return;
	}
	if (nh != proxy_inner(sid)) {
		behavior_upper_layer(ctx, sid, p, nh, off);
		return;
	}
	if (behavior_inner_check(p, off, nh, &reason) < 0) {
		proc_drop(ctx, p, st, reason);
		return;
	}
	if (learn && off > PROXY_HDR_MAX) {
		proc_drop(ctx, p, st, DROP_PROXY_CACHE_SIZE);
		return;
	}
	if (!proxy_nexthop_ok(ctx, sid, p))
		return;
	if (learn) {
		struct srh *srh = si.srh;

		pkt_chain_write(p);
		srh->segments_left--;
		memcpy(p->data + IP6_DST_OFF,
		       &srh->segments[srh->segments_left], 16);
		proxy_learn(ctx, sid, p->data, off);
	}
	pkt_pull(p, off);
	proxy_forward(ctx, sid, p);
}

/* 6.4 End.AM, masquerading: IF NH=SRH & SL > 0, update the DA with
 * SRH[0], forward on IFACE-OUT. */
static void proxy_masq(struct proc_ctx *ctx, const struct sid *sid,
		       struct pkt *p)
{
	struct srh_info si;

	if (proxy_srh(ctx, sid, p, &si) < 0 ||
	    !proxy_srh_sl_ok(ctx, sid, p, &si) ||
	    !proxy_nexthop_ok(ctx, sid, p))
		return;
	memcpy(p->data + IP6_DST_OFF, &si.srh->segments[0], 16);
	proxy_forward(ctx, sid, p);
}

void behavior_proxy(struct proc_ctx *ctx, const struct sid *sid,
		    struct pkt *p)
{
	switch (behavior_proxy_of(sid->behavior)) {
	case BHV_PROXY_STATIC:
		proxy_decap(ctx, sid, p, false);
		break;
	case BHV_PROXY_DYNAMIC:
		proxy_decap(ctx, sid, p, true);
		break;
	case BHV_PROXY_MASQ:
		proxy_masq(ctx, sid, p);
		break;
	case BHV_PROXY_NONE:
	default:
		proc_drop(ctx, p, behavior_stats(ctx, sid), DROP_FAMILY);
		break;
	}
}

/* ---- back from the service ---------------------------------------------- */

/* An IPv6 neighbor discovery message (RFC 4861: ICMPv6 types 133-137
 * right after the IPv6 header): the kernel's, not the service's
 * traffic. */
static bool proxy_is_nd(const struct pkt *p)
{
	return p->hw_proto == ETH_P_IPV6 && p->len >= IPV6_HDR_LEN + 1 &&
	       p->data[IP6_NH_OFF] == IPPROTO_ICMPV6 &&
	       p->data[IPV6_HDR_LEN] >= 133 && p->data[IPV6_HDR_LEN] <= 137;
}

/* The family an SR proxy SID's service sends back: IPv4 for End.AS /
 * End.AD with nh4, else IPv6. */
static uint16_t proxy_family(const struct sid *sid)
{
	return behavior_desc(sid->behavior)->decap == BHV_DECAP_IPV4 ?
	       ETH_P_IP : ETH_P_IPV6;
}

const struct sid *proxy_return_sid(const struct proc_ctx *ctx,
				   const struct pkt *p)
{
	const struct config *cfg = ctx->cfg;
	const struct sid *other = NULL;

	if (!p->indev || !ctx->rs || proxy_is_nd(p))
		return NULL;
	for (unsigned i = 0; i < cfg->nproxies; i++) {
		const struct sid *s = &cfg->sids[cfg->proxies[i].sid];

		if (runstate_sid(ctx->rs, s).iif_index != p->indev)
			continue;
		if (proxy_family(s) == p->hw_proto)
			return s;
		other = s;	/* its drop, unless one of p's family */
	}
	return other;
}

/* The hop limit / TTL of the IPv6 / IPv4 header at h has a hop left. */
static bool proxy_hop_left(const uint8_t *h)
{
	return (h[0] >> 4 == 6 ? h[IP6_HLIM_OFF] : h[8]) > 1;
}

/* Its hop limit / TTL less one (IPv4: its checksum updated as RFC 1624
 * says, as Linux's ip_decrease_ttl()). */
static void proxy_hop(uint8_t *h)
{
	uint32_t c;

	if (h[0] >> 4 == 6) {
		h[IP6_HLIM_OFF]--;
		return;
	}
	h[8]--;
	c = ((uint32_t)h[10] << 8 | h[11]) + 0x0100;
	c = (c + (c >= 0xffff)) & 0xffff;
	h[10] = (uint8_t)(c >> 8);
	h[11] = (uint8_t)c;
}

/* With the route mirror: the result (push bytes of headers in front of
 * the inner packet) fits the MTU of the route to its DA, as the
 * headend's do; a super-packet by the segments it is cut into
 * (p->facts.gso_size: seg_hdr, its inner headers' length, known before
 * the push).  Returns the MTU when it does not fit, 0 when it does. */
static uint32_t proxy_mtu_over(struct proc_ctx *ctx, struct pkt *p,
			       uint32_t push, uint32_t seg_hdr)
{
	const struct rtmirror_link *in;
	struct egress e;

	if (!ctx->mirror ||
	    egress_route(ctx->mirror, AF_INET6, FIB_TABLE_UNSPEC,
			 p->data + IP6_DST_OFF, 0, &e) != EGRESS_OK ||
	    !e.mtu)
		return 0;
	if (p->gso && seg_hdr) {
		in = rtmirror_link_get(ctx->mirror, p->indev);
		p->facts.gso_size = headend_seg_size(in ? in->mtu : 0, e.mtu,
						     push, seg_hdr);
		return p->facts.gso_size ? 0 : e.mtu;
	}
	return p->len > e.mtu ? e.mtu : 0;
}

/* The result of p back from the service would not fit (proxy_mtu_over()):
 * Packet Too Big (RFC 4443 3.2) / Fragmentation Needed (RFC 1191) to
 * p's source with the room the push leaves, counted as DROP_TOO_BIG.
 * It goes back the way p came (p->facts.icmp_to_service,
 * REINJECT_SERVICE): into the service, whose NAT or firewall takes it
 * for an error about its own traffic and translates it, where by
 * routing it would reach an address the sender does not know as its
 * peer's.  So its source is the one the kernel would give a packet
 * leaving by p's in-interface, the service's link (RFC 6724 for IPv6,
 * inet_select_addr()'s for IPv4: egress.h), which the service's
 * rp_filter takes.  None on the node: a counted drop, no error. */
static void proxy_too_big(struct proc_ctx *ctx, struct pkt *p,
			  struct sid_stats *st, uint32_t mtu, uint32_t push)
{
	uint32_t room = mtu > push ? mtu - push : 0;
	struct in6_addr to6, src6;
	struct in_addr to4, src4;

	if (p->hw_proto == ETH_P_IPV6) {
		memcpy(&to6, p->data + IP6_SRC_OFF, sizeof(to6));
		if (egress_source_select(ctx->mirror, p->indev, &to6,
					 &src6) == 0)
			icmp6_error_from(ctx, p, &src6, ICMP6_T_PKT_TOO_BIG, 0,
					 room, st, DROP_TOO_BIG);
		else
			proc_drop(ctx, p, st, DROP_TOO_BIG);
	} else {
		memcpy(&to4, p->data + IP4_SRC_OFF, sizeof(to4));
		if (egress_source_select4(ctx->mirror, p->indev, to4,
					  &src4) == 0)
			icmp4_error(ctx, p, &src4, ICMP4_T_DST_UNREACH,
				    ICMP4_C_FRAG_NEEDED, room & 0xffff, st,
				    DROP_TOO_BIG);
		else
			proc_drop(ctx, p, st, DROP_TOO_BIG);
	}
	p->facts.icmp_to_service = p->outcome == PKT_OUT_ICMP;
}

/* The kernel's encapsulation (`kernel-encap`, kencap_routes.h) of End.AS's
 * list: mode encap for an SRH of all its segments, encap.red for one
 * segment (no SRH), as config.c's proxy_static_hdr() builds them. */
static enum encap_mode proxy_encap_mode(const struct proxy_conf *pc)
{
	return pc->segs.nsegs > 1 ? ENCAP_MODE_ENCAP : ENCAP_MODE_ENCAP_RED;
}

/* Why the kernel's seg6 route of End.AS's list cannot encapsulate p's
 * inner packet (at inner: dst its destination when IPv6) as End.AS
 * does, or KENCAP_FB__COUNT when it can: then *mark is the route's.
 * The headend's check (headend_kernel_check()). */
static enum kencap_fallback proxy_kernel_check(const struct proc_ctx *ctx,
					       const struct proxy_conf *pc,
					       const uint8_t *inner,
					       uint32_t *mark)
{
	bool to_first = inner[0] >> 4 == 6 &&
			!memcmp(inner + IP6_DST_OFF, &pc->segs.segs[0], 16);

	return headend_kernel_check(ctx, proxy_encap_mode(pc), 0, &pc->segs,
				    &pc->source, to_first, mark);
}

/* End.AS's result of a TCP super-packet in one IP header (vnet: the
 * service's packet as gso_vnet_can_carry() judged it) goes back as
 * the headend's does (pkt.h's facts, reinject.c): its inner
 * super-packet whole, with the mark of the kernel's seg6 route of the
 * list (REINJECT_KERNEL_INNER), never from the original (the inner hop
 * limit / TTL is srv6d's, one less); else why not, for the cut's
 * kencap_fallbacks. */
static void proxy_kernel_facts(const struct proc_ctx *ctx,
			       const struct proxy_conf *pc, bool vnet,
			       uint32_t push, struct pkt *p)
{
	enum kencap_fallback fb;
	uint32_t mark = 0;

	fb = vnet ? proxy_kernel_check(ctx, pc, p->data + push, &mark) :
		    KENCAP_FB_SHAPE;
	if (fb != KENCAP_FB__COUNT) {
		p->facts.kencap_fallback = fb;
		return;
	}
	p->facts.kernel = PKT_KERNEL_ENCAP;
	p->facts.kernel_mark = mark;
	p->facts.kernel_from_original = false;
}

/* 6.4 de-masquerading: IF NH=SRH & SL > 0, SL--, DA = SRH[SL], look the
 * DA up. */
static void proxy_demasq(struct proc_ctx *ctx, const struct sid *sid,
			 struct pkt *p)
{
	struct sid_stats *st = behavior_stats(ctx, sid);
	struct srh_error err;
	struct srh_info si;
	struct srh *srh;

	if (proc_srh_find(ctx, p, &si, &err) < 0) {
		proc_drop(ctx, p, st, err.reason);
		return;
	}
	srh = si.srh;
	if (!srh || srh->segments_left == 0 || !srh_validate(srh)) {
		proc_drop(ctx, p, st, DROP_PROXY_RETURN);
		return;
	}
	pkt_chain_write(p);
	srh->segments_left--;
	memcpy(p->data + IP6_DST_OFF, &srh->segments[srh->segments_left], 16);
	p->verdict = PKT_NEW_BYTES;
	proc_count_ok(st, p);
}

void proxy_return(struct proc_ctx *ctx, const struct sid *sid,
		  struct pkt *p)
{
	struct sid_stats *st = behavior_stats(ctx, sid);
	enum behavior_proxy kind = behavior_proxy_of(sid->behavior);
	const struct proxy_conf *pc = &ctx->cfg->proxies[sid->proxy];
	uint32_t seg_hdr, mtu;
	enum drop_reason reason;
	bool vnet = false;
	uint8_t inner;
	int len;

	pkt_result_reset(p);
	inner = kind == BHV_PROXY_MASQ ? IPPROTO_IPV6 : proxy_inner(sid);
	if (p->hw_proto != (inner == IPPROTO_IPV6 ? ETH_P_IPV6 : ETH_P_IP)) {
		proc_drop(ctx, p, st, DROP_PROXY_RETURN);
		return;
	}
	if (behavior_inner_check(p, 0, inner, &reason) < 0) {
		proc_drop(ctx, p, st, reason);
		return;
	}
	if (kind == BHV_PROXY_MASQ) {
		proxy_demasq(ctx, sid, p);
		return;
	}
	if (!proxy_hop_left(p->data)) {
		proc_drop(ctx, p, st, DROP_HOP_LIMIT);
		return;
	}
	seg_hdr = 0;
	if (p->gso) {
		const struct gso_info *gi = gso_pkt_info(p);

		seg_hdr = gso_segment_len(gi, 0);
		vnet = gso_vnet_can_carry(gi);
	}
	if (kind == BHV_PROXY_DYNAMIC) {
		len = proxy_push_learned(ctx, sid, p);
	} else {
		len = pkt_push(p, pc->hdr_len) ? pc->hdr_len : -1;
		if (len > 0)
			memcpy(p->data, pc->hdr, pc->hdr_len);
	}
	if (len <= 0) {
		proc_drop(ctx, p, st, len < 0 ? DROP_NO_HEADROOM :
						DROP_PROXY_NO_CACHE);
		return;
	}
	if (p->len > PKT_MAX_LEN) {
		proc_drop(ctx, p, st, DROP_TOO_BIG);
		return;
	}
	mtu = proxy_mtu_over(ctx, p, (uint32_t)len, seg_hdr);
	if (mtu) {
		pkt_pull(p, (uint32_t)len);	/* the error quotes p as it came */
		proxy_too_big(ctx, p, st, mtu, (uint32_t)len);
		return;
	}
	proxy_hop(p->data + len);
	p->data[IP6_PLEN_OFF] = (uint8_t)((p->len - IPV6_HDR_LEN) >> 8);
	p->data[IP6_PLEN_OFF + 1] = (uint8_t)(p->len - IPV6_HDR_LEN);
	if (p->gso && seg_hdr && kind == BHV_PROXY_STATIC)
		proxy_kernel_facts(ctx, pc, vnet, (uint32_t)len, p);
	p->verdict = PKT_NEW_BYTES;
	proc_count_ok(st, p);
}
