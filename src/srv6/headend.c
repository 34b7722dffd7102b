/* headend.c - SR policy headend behaviors, pushed in place into the
 * packet's headroom: H.Encaps and H.Encaps.Red (RFC 8986 5.1, 5.2) and
 * H.Insert / H.Insert.Red (Linux seg6 "inline" mode; the insertion
 * behaviors were taken out of RFC 8986, whose 5.3/5.4 are the L2 encaps,
 * into draft-filsfils-spring-srv6-net-pgm-insertion).
 *
 * The outer header follows Linux's seg6 lwtunnel (net/ipv6/seg6_iptunnel.c,
 * __seg6_do_srh_encap, seg6_do_srh_encap_red, __seg6_do_srh_inline) with the
 * default sysctl net.ipv6.seg6_flowlabel = 0:
 *
 *   IPv6 inner: traffic class (DSCP and ECN) and flow label copied from the
 *               inner header, hop limit = inner hop limit;
 *   IPv4 inner: traffic class 0, flow label 0, hop limit 64 (ip6_dst_hoplimit
 *               with no route metric: the interface's default);
 *   insertion:  the IPv6 header is kept as it is (hop limit, traffic class,
 *               flow label, source), only DA, next header and payload
 *               length change.
 *
 * A policy with several segment lists takes, for each packet, the list its
 * flow hash picks in proportion to the weights (flowhash.h), so a flow's
 * packets all take one list.  A policy with `hmac N` gets an HMAC TLV
 * (RFC 8754 2.1.2) in Linux's layout (hmac.h): H flag, TLV last, computed
 * over the outer source address once the outer header is written.
 *
 * Every encapsulation, a steering policy's or a binding SID's, runs one
 * pipeline (headend.h): headend_prepare() decides on the packet as it is
 * (list, route, MTU), headend_finish() makes it (source, headers, HMAC,
 * counters), each step once.
 *
 * No hop limit is decremented here: after our verdict (or reinjection) the
 * kernel routes the result and its forwarding decrements the outer hop limit
 * once, exactly as ip6_forward() does after the kernel's own seg6 encap.
 * Decrementing here too would make the packet lose two.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <linux/if_ether.h>
#include <string.h>

#include "egress.h"
#include "flowhash.h"
#include "gso.h"
#include "headend.h"
#include "hmac.h"
#include "icmp.h"
#include "ip.h"
#include "srv6.h"

#define HEADEND_OK		DROP__COUNT	/* a step's: no drop reason */
#define IPV4_HDR_MIN		20
#define HEADEND_IPV4_HOPLIMIT	64	/* ip6_dst_hoplimit() default */
#define HEADEND_MTU_UNKNOWN	1280	/* IPv6's minimum link MTU (RFC 8200 5) */

/* The SRH a policy's list gets: how many entries, whether the first
 * segment is left out (reduced) and whether it carries an HMAC TLV. */
struct srh_shape {
	unsigned entries;	/* 0: no SRH at all */
	bool reduced;
	bool hmac;
};

/* Shape of the SRH for list sl: all its segments, minus the first one
 * when reduced, plus the original destination when inserting.  A reduced
 * single-segment encapsulation has no SRH, unless it needs one for an
 * HMAC: then the segment stays in it (as Linux's seg6_do_srh_encap_red). */
static struct srh_shape srh_shape_of(const struct seglist *sl, bool reduced,
				     bool insert, bool hmac)
{
	struct srh_shape sh = { 0, reduced, hmac };

	if (hmac && reduced && !insert && sl->nsegs == 1)
		sh.reduced = false;
	sh.entries = sl->nsegs - (sh.reduced ? 1u : 0u) + (insert ? 1u : 0u);
	if (sh.entries == 0)
		sh.hmac = false;
	return sh;
}

/* Bytes of an SRH of that shape (0: none). */
static uint32_t srh_shape_bytes(const struct srh_shape *sh)
{
	if (!sh->entries)
		return 0;
	return SRH_FIXED_LEN + 16u * sh->entries + (sh->hmac ? HMAC_TLV_LEN : 0);
}

/* Write an SRH (RFC 8754 2) of shape sh at h: segment list in reverse
 * travel order, optionally led by orig_da (Segment List[0], insertion),
 * and without the list's first segment when reduced (it is only in the
 * DA).  Segments Left points at the segment after the DA; Last Entry at
 * the last entry.  With an HMAC the H flag is set and the TLV's place
 * reserved at the end (hmac_tlv_write() fills it once the source address
 * is final). */
static void srh_write(uint8_t *h, uint8_t nexthdr, const struct seglist *sl,
		      const uint8_t *orig_da, const struct srh_shape *sh)
{
	uint8_t *seg = h + SRH_FIXED_LEN;
	unsigned last = sh->reduced ? 1u : 0u;
	uint64_t w;

	/* next header, length, type, SL, Last Entry, flags, tag 0: one
	 * big-endian word */
	w = (uint64_t)nexthdr << 56 |
	    (uint64_t)(uint8_t)((srh_shape_bytes(sh) >> 3) - 1) << 48 |
	    (uint64_t)SRH_TYPE << 40 |
	    (uint64_t)(uint8_t)(sh->entries - 1 + last) << 32 |
	    (uint64_t)(uint8_t)(sh->entries - 1) << 24 |
	    (uint64_t)(sh->hmac ? SRH_FLAG_HMAC_LINUX : 0) << 16;
	w = htobe64(w);
	memcpy(h, &w, 8);
	if (orig_da) {
		memcpy(seg, orig_da, 16);
		seg += 16;
	}
	for (unsigned i = sl->nsegs; i-- > last; seg += 16)
		memcpy(seg, &sl->segs[i], 16);
}

/* Fill the HMAC TLV at the end of the SRH at srh, written by srh_write()
 * for a packet from src, with key.  Returns HEADEND_OK or
 * DROP_HMAC_UNKNOWN. */
static enum drop_reason srh_sign(uint8_t *srh, const struct srh_shape *sh,
				 const struct hmac_key *key, const uint8_t *src)
{
	uint8_t *tlv = srh + srh_shape_bytes(sh) - HMAC_TLV_LEN;

	if (!sh->hmac)
		return HEADEND_OK;
	if (hmac_tlv_write(tlv, key, sh->reduced, src,
			   (const struct srh *)srh) < 0)
		return DROP_HMAC_UNKNOWN;
	return HEADEND_OK;
}

/* The outer header fields taken from the inner packet (see the top of the
 * file).  Returns HEADEND_OK, or the drop reason when the inner header is
 * short or not of the family it was queued as. */
static enum drop_reason inner_fields(const struct pkt *p, uint32_t *vtcfl,
				     uint8_t *hlim, uint8_t *proto)
{
	switch (p->hw_proto) {
	case ETH_P_IPV6:
		if (p->len < IPV6_HDR_LEN)
			return DROP_TRUNCATED;
		if (pkt_ip_version(p) != 6)
			return DROP_BAD_IP;
		/* version 6, inner traffic class, inner flow label */
		memcpy(vtcfl, p->data, 4);
		*hlim = p->data[IP6_HLIM_OFF];
		*proto = IPPROTO_IPV6;
		return HEADEND_OK;
	case ETH_P_IP:
		if (p->len < IPV4_HDR_MIN)
			return DROP_TRUNCATED;
		if (pkt_ip_version(p) != 4)
			return DROP_BAD_IP;
		*vtcfl = htonl(6u << 28);
		*hlim = HEADEND_IPV4_HOPLIMIT;
		*proto = IPPROTO_IPIP;
		return HEADEND_OK;
	default:
		return DROP_FAMILY;
	}
}

/* H.Encaps (RFC 8986 5.1) and H.Encaps.Red (RFC 8986 5.2): push an outer
 * IPv6 header from src and an SRH; reduced, the SRH omits the first
 * segment and is left out altogether for a single segment (as Linux does
 * without HMAC).  Returns HEADEND_OK or the drop reason. */
static enum drop_reason headend_encap(const struct in6_addr *src,
				      const struct seglist *sl,
				      const struct hmac_key *key,
				      struct pkt *p, bool reduced)
{
	struct srh_shape sh = srh_shape_of(sl, reduced, false, key != NULL);
	uint32_t srhlen = srh_shape_bytes(&sh);
	bool cached = p->gso_cache.valid;	/* pkt_push() ends it */
	struct gso_cache inner;
	enum drop_reason why;
	uint32_t vtcfl = 0;
	uint8_t hlim = 0, proto = 0;
	uint8_t *h;

	why = inner_fields(p, &vtcfl, &hlim, &proto);
	if (why != HEADEND_OK)
		return why;
	if (p->len + IPV6_HDR_LEN + srhlen > PKT_MAX_LEN)
		return DROP_TOO_BIG;
	if (cached)	/* (copied only when there is one: 40 bytes) */
		inner = p->gso_cache;
	h = pkt_push(p, IPV6_HDR_LEN + srhlen);
	if (!h)
		return DROP_NO_HEADROOM;
	ip6_hdr_write(h, vtcfl, p->len - IPV6_HDR_LEN,
		      srhlen ? IPPROTO_SRH : proto, hlim, src, &sl->segs[0]);
	if (srhlen) {
		srh_write(h + IPV6_HDR_LEN, proto, sl, NULL, &sh);
		why = sh.hmac ? srh_sign(h + IPV6_HDR_LEN, &sh, key,
					 h + IP6_SRC_OFF) : HEADEND_OK;
		if (why != HEADEND_OK) {
			pkt_pull(p, IPV6_HDR_LEN + srhlen);
			return why;
		}
	}
	/* The inner packet's GSO parse, behind the new outer header: the
	 * result's, not parsed again. */
	if (cached)
		p->gso_cache = gso_cache_encap(inner, IPV6_HDR_LEN + srhlen,
					       p->len);
	return HEADEND_OK;
}

/* H.Insert / H.Insert.Red (Linux "inline"): insert an SRH right after the
 * fixed IPv6 header, as Linux's __seg6_do_srh_inline does (even in front of
 * a Hop-by-Hop header).  Segment List[0] is the original destination, the
 * DA becomes the first segment.  Reduced (no Linux counterpart; the draft's
 * H.Insert.Red): the SRH omits the first segment, which is only in the DA,
 * so SL = Last Entry + 1.  The 40-byte header moves to the front of the
 * headroom; the payload stays where it is.  Returns HEADEND_OK or the drop
 * reason (p unchanged then). */
static enum drop_reason headend_insert(const struct seglist *sl,
				       const struct hmac_key *key,
				       struct pkt *p, bool reduced)
{
	struct srh_shape sh = srh_shape_of(sl, reduced, true, key != NULL);
	uint32_t srhlen = srh_shape_bytes(&sh);
	uint8_t *old = p->data;
	uint8_t save[IPV6_HDR_LEN];
	enum drop_reason why;
	uint8_t *h;

	if (p->hw_proto != ETH_P_IPV6)
		return DROP_FAMILY;
	if (p->len < IPV6_HDR_LEN)
		return DROP_TRUNCATED;
	if (pkt_ip_version(p) != 6)
		return DROP_BAD_IP;
	if (p->len + srhlen > PKT_MAX_LEN)
		return DROP_TOO_BIG;
	h = pkt_push(p, srhlen);
	if (!h)
		return DROP_NO_HEADROOM;
	memcpy(save, old, IPV6_HDR_LEN);
	memmove(h, old, IPV6_HDR_LEN);	/* may overlap: srhlen can be < 40 */
	srh_write(h + IPV6_HDR_LEN, h[IP6_NH_OFF], sl, h + IP6_DST_OFF, &sh);
	ip6_plen_set(h, p->len - IPV6_HDR_LEN);
	h[IP6_NH_OFF] = IPPROTO_SRH;
	memcpy(h + IP6_DST_OFF, &sl->segs[0], 16);
	why = srh_sign(h + IPV6_HDR_LEN, &sh, key, h + IP6_SRC_OFF);
	if (why != HEADEND_OK) {	/* put the header back */
		pkt_pull(p, srhlen);
		memcpy(p->data, save, IPV6_HDR_LEN);
	}
	return why;
}

/* Bytes list sl of pol adds to a packet of family hw_proto (0: dropped). */
static uint32_t list_push_len(const struct policy *pol,
			      const struct seglist *sl, uint16_t hw_proto)
{
	bool v6 = hw_proto == ETH_P_IPV6, key = pol->hmac_keyid != 0;
	struct srh_shape sh;

	switch (pol->mode) {
	case ENCAP_MODE_ENCAP:
	case ENCAP_MODE_ENCAP_RED:
		sh = srh_shape_of(sl, pol->mode == ENCAP_MODE_ENCAP_RED, false,
				  key);
		return IPV6_HDR_LEN + srh_shape_bytes(&sh);
	case ENCAP_MODE_INLINE:
	case ENCAP_MODE_INLINE_RED:
		sh = srh_shape_of(sl, pol->mode == ENCAP_MODE_INLINE_RED, true,
				  key);
		return v6 ? srh_shape_bytes(&sh) : 0;
	}
	return 0;
}

uint32_t headend_push_len(const struct policy *pol, uint16_t hw_proto)
{
	unsigned n = pol->nlists ? pol->nlists : 1;
	uint32_t most = 0, len;

	for (unsigned i = 0; i < n; i++) {
		len = list_push_len(pol, &pol->lists[i], hw_proto);
		if (len > most)
			most = len;
	}
	return most;
}

/* ---- the pipeline ------------------------------------------------------- */

/* The source of an ICMP error about p at a headend: p is addressed to a
 * remote host, so not its destination but an address of this node, the
 * one the kernel would pick for an error to p's source (egress.h); for
 * IPv6, encap-source when the node has no candidate.  Returns 0, or -1
 * when there is none. */
static int icmp6_source(const struct proc_ctx *ctx, const struct pkt *p,
			struct in6_addr *src)
{
	struct in6_addr dst;

	memcpy(&dst, p->data + IP6_SRC_OFF, sizeof(dst));
	if (egress_icmp6_source(ctx->mirror, p->indev, &dst, src) == 0)
		return 0;
	if (!ctx->cfg->has_encap_source)
		return -1;
	*src = ctx->cfg->encap_source;
	return 0;
}

static int icmp4_source(const struct proc_ctx *ctx, const struct pkt *p,
			struct in_addr *src)
{
	struct in_addr dst;

	memcpy(&dst, p->data + IP4_SRC_OFF, sizeof(dst));
	return egress_icmp4_source(ctx->mirror, p->indev, dst, src);
}

/* p plus the `push` bytes of its encapsulation does not fit the egress
 * MTU: tell its source how much room is left (RFC 4443 3.2 Packet Too Big;
 * RFC 1191 Fragmentation Needed, sent for an IPv4 packet without DF too:
 * see docs/design.md "Encapsulation MTU"), counted as DROP_TOO_BIG.  At a
 * binding SID (at_sid) the error comes from the SID, at a headend from
 * an address of this node (RFC 4443 2.2, RFC 1812 4.3.2.4); with none,
 * a counted drop without an error.  p has passed ipv6_sane()/ipv4_sane(). */
static void too_big(struct proc_ctx *ctx, struct pkt *p, struct sid_stats *st,
		    uint32_t mtu, uint32_t push, bool at_sid)
{
	uint32_t room = mtu > push ? mtu - push : 0;
	struct in6_addr src6;
	struct in_addr src4;

	if (p->hw_proto == ETH_P_IPV6 && at_sid)
		icmp6_error(ctx, p, ICMP6_T_PKT_TOO_BIG, 0, room, st,
			    DROP_TOO_BIG);
	else if (p->hw_proto == ETH_P_IPV6 && icmp6_source(ctx, p, &src6) == 0)
		icmp6_error_from(ctx, p, &src6, ICMP6_T_PKT_TOO_BIG, 0, room,
				 st, DROP_TOO_BIG);
	else if (p->hw_proto == ETH_P_IP && icmp4_source(ctx, p, &src4) == 0)
		icmp4_error(ctx, p, &src4, ICMP4_T_DST_UNREACH,
			    ICMP4_C_FRAG_NEEDED, room & 0xffff, st,
			    DROP_TOO_BIG);
	else
		proc_drop(ctx, p, st, DROP_TOO_BIG);
}

uint16_t headend_seg_size(uint32_t in_mtu, uint32_t out_mtu, uint32_t push,
			  uint32_t hdr)
{
	uint32_t size = 0xffff;

	if (in_mtu > hdr)
		size = in_mtu - hdr;
	if (!out_mtu)
		out_mtu = HEADEND_MTU_UNKNOWN;
	if (out_mtu <= push + hdr)
		return 0;
	if (out_mtu - push - hdr < size)
		size = out_mtu - push - hdr;
	return (uint16_t)size;
}

/* A super-packet (p->gso) is judged by the segments it is cut into on its
 * way out, not by its length: choose their size (p->facts.gso_size,
 * headend_seg_size(): what came in on p's in-interface, what fits the
 * egress MTU, e.mtu, with the push bytes; NFQUEUE never tells the
 * sender's) and tell the source how much room is left only when not even
 * one byte of payload fits (a super-packet can always be cut smaller; its
 * full-size single segments get their Packet Too Big as any other
 * packet).  A super-packet that is not TCP keeps gso_size 0 (reinject.c
 * refuses it, counted).  Returns 0, or -1 when it was answered and
 * dropped. */
static int headend_gso_check(struct proc_ctx *ctx, struct pkt *p,
			     const struct headend_plan *plan, uint32_t push,
			     bool at_sid)
{
	const struct rtmirror_link *in = p->indev ?
		rtmirror_link_get(ctx->mirror, p->indev) : NULL;
	uint32_t mtu = plan->e.route ? plan->e.mtu : 0;
	uint32_t hdr = gso_segment_len(gso_pkt_info(p), 0);

	if (!hdr)
		return 0;
	p->facts.gso_size = headend_seg_size(in ? in->mtu : 0, mtu, push, hdr);
	p->facts.gso_size_in = in && in->mtu > hdr &&
			       p->facts.gso_size == in->mtu - hdr;
	if (p->facts.gso_size)
		return 0;
	too_big(ctx, p, plan->st, mtu ? mtu : HEADEND_MTU_UNKNOWN, push,
		at_sid);
	return -1;
}

int headend_prepare(struct proc_ctx *ctx, const struct policy *pol,
		    struct pkt *p, struct sid_stats *st, bool at_sid,
		    struct headend_plan *plan)
{
	uint32_t hash = 0, push;

	memset(plan, 0, sizeof(*plan));
	plan->pol = pol;
	plan->st = st;
	plan->at_sid = at_sid;
	if (pol->nlists > 1 || ctx->mirror)
		hash = flowhash_packet(p->data, p->len, p->hw_proto);
	plan->sl = &pol->lists[pol->nlists > 1 ?
			       flowhash_pick(hash, pol->weights, pol->nlists) :
			       0];
	plan->one_header = p->gso && gso_vnet_can_carry(gso_pkt_info(p));
	if (!ctx->mirror)
		return 0;
	push = list_push_len(pol, plan->sl, p->hw_proto);
	if (egress_route(ctx->mirror, AF_INET6, FIB_TABLE_UNSPEC,
			 &plan->sl->segs[0], hash, &plan->e) != EGRESS_OK)
		plan->e.route = NULL;	/* the kernel decides */
	if (p->gso)
		return headend_gso_check(ctx, p, plan, push, at_sid);
	if (!plan->e.route || !plan->e.mtu || p->len + push <= plan->e.mtu)
		return 0;
	too_big(ctx, p, st, plan->e.mtu, push, at_sid);
	return -1;
}

/* The outer source of the encapsulation `plan` makes: encap-source; else
 * the one the kernel would give a packet to the first segment leaving by
 * the planned route: the route's preferred source, else
 * egress_source_select() on its link, through the worker's cache.
 * Without the mirror (unit tests), cfg->encap_source (unset: ::).
 * Returns 0, or -1 when the node has none. */
int headend_outer_source(struct proc_ctx *ctx,
			 const struct headend_plan *plan,
			 struct in6_addr *src)
{
	const struct egress *e = &plan->e;

	if (ctx->cfg->has_encap_source || !ctx->mirror) {
		*src = ctx->cfg->encap_source;
		return 0;
	}
	if (e->route && e->route->fi->prefsrc_set) {
		memcpy(src, &e->route->fi->prefsrc.v6, sizeof(*src));
		return 0;
	}
	return srccache_source(&ctx->src_cache, ctx->mirror,
			       &plan->sl->segs[0], e->nh ? e->nh->oif : 0, src);
}

/* Push (or insert) the headers of plan's list on p from src.  Returns
 * HEADEND_OK, or the drop reason with p unchanged. */
static enum drop_reason plan_push(const struct headend_plan *plan,
				  const struct hmac_key *key,
				  const struct in6_addr *src, struct pkt *p)
{
	switch (plan->pol->mode) {
	case ENCAP_MODE_ENCAP:
		return headend_encap(src, plan->sl, key, p, false);
	case ENCAP_MODE_ENCAP_RED:
		return headend_encap(src, plan->sl, key, p, true);
	case ENCAP_MODE_INLINE:
		return headend_insert(plan->sl, key, p, false);
	case ENCAP_MODE_INLINE_RED:
		return headend_insert(plan->sl, key, p, true);
	}
	return DROP_FAMILY;
}

/* The outer source the kernel's seg6 gives an encapsulation to first
 * segment `first`: encap-source on srv6d's routes (kencap_route_src) or
 * its `ip sr tunsrc` (rs->kencap_tunsrc: while the kernel's tunsrc is
 * another, headend_kernel_check() holds back first), else the one it
 * picks with srv6d's reinjection device as the link (headend.h). */
int headend_kernel_source(const struct proc_ctx *ctx,
			  const struct in6_addr *first, struct in6_addr *src)
{
	*src = ctx->rs->kencap_tunsrc;
	if (!IN6_IS_ADDR_UNSPECIFIED(src))
		return 0;
	if (!ctx->mirror)
		return -1;
	return egress_source_select(ctx->mirror, ctx->rs->kencap_oif, first,
				    src) < 0 ? -1 : 0;
}

enum kencap_fallback headend_kernel_check(const struct proc_ctx *ctx,
					 enum encap_mode mode,
					 uint32_t hmac_keyid,
					 const struct seglist *sl,
					 const struct in6_addr *src,
					 bool to_first, uint32_t *mark)
{
	const struct kencap_entry *e;
	struct in6_addr ksrc;

	if (!ctx->rs || !ctx->rs->kencap_on)
		return KENCAP_FB_OFF;
	if (proc_kencap_held(ctx))	/* the kernel's tunsrc changed */
		return KENCAP_FB_SOURCE;
	if (proc_kencap_mark_held(ctx))	/* its marks do not survive */
		return KENCAP_FB_HELD;
	if (mode != ENCAP_MODE_ENCAP && mode != ENCAP_MODE_ENCAP_RED)
		return KENCAP_FB_SHAPE;
	if (hmac_keyid)
		return KENCAP_FB_HMAC;
	e = runstate_kencap_find(ctx->rs, mode, sl);
	if (!e)
		return KENCAP_FB_UNLISTED;
	if (to_first)	/* the throw route's: it would not be encapsulated */
		return KENCAP_FB_FIRST_SEGMENT;
	if (headend_kernel_source(ctx, &sl->segs[0], &ksrc) < 0 ||
	    memcmp(&ksrc, src, sizeof(ksrc)))
		return KENCAP_FB_SOURCE;
	*mark = e->mark;
	proc_kencap_probe_take(ctx);	/* held: this one is the probe */
	return KENCAP_FB__COUNT;
}

/* The facts of an encapsulated super-packet p for the way back
 * (pkt.h): the kernel's seg6 route that makes it, and whether from the
 * original (a steering policy's encapsulation of the packet as queued,
 * in the sender's segments: gso_size_in), else from its inner packet;
 * or why not; not from the original where headend_kernel_by_mark()
 * says no: its inner packet goes by the reinjection device (G0 gives
 * the mark back). */
static void headend_kernel_facts(const struct proc_ctx *ctx,
				 const struct headend_plan *plan,
				 const struct in6_addr *src, bool to_first,
				 uint32_t inner_len, struct pkt *p)
{
	uint32_t mark = 0;
	enum kencap_fallback fb;

	if (!p->facts.gso_size)	/* not TCP: no way carries it (reinject.c) */
		return;
	/* TCP in one IP header inside: what the kernel's seg6 takes whole
	 * (an inner packet encapsulated already would be IP in IP in IP). */
	fb = plan->one_header ?
	     headend_kernel_check(ctx, plan->pol->mode, plan->pol->hmac_keyid,
				  plan->sl, src, to_first, &mark) :
	     KENCAP_FB_SHAPE;
	if (fb != KENCAP_FB__COUNT) {
		p->facts.kencap_fallback = fb;
		return;
	}
	p->facts.kernel = PKT_KERNEL_ENCAP;
	p->facts.kernel_mark = mark;
	p->facts.kernel_from_original = !plan->at_sid &&
					p->facts.gso_size_in &&
					inner_len == p->queued_len &&
					headend_kernel_by_mark(p, plan->pol);
}

/* The inner packet's destination is the first segment of plan's list. */
static bool inner_to_first(const struct headend_plan *plan,
			   const struct pkt *p)
{
	return pkt_ip_version(p) == 6 && p->len >= IPV6_HDR_LEN &&
	       !memcmp(p->data + IP6_DST_OFF, &plan->sl->segs[0], 16);
}

static bool mode_inserts(enum encap_mode mode)
{
	return mode == ENCAP_MODE_INLINE || mode == ENCAP_MODE_INLINE_RED;
}

void headend_finish(struct proc_ctx *ctx, const struct headend_plan *plan,
		    struct pkt *p)
{
	const struct policy *pol = plan->pol;
	const struct hmac_key *key = NULL;
	struct in6_addr src = { 0 };
	enum drop_reason why;
	uint32_t inner_len;
	bool to_first;

	if (pol->hmac_keyid) {
		key = config_hmac_key(ctx->cfg, pol->hmac_keyid);
		if (!key) {
			proc_drop(ctx, p, plan->st, DROP_HMAC_UNKNOWN);
			return;
		}
	}
	/* An insertion keeps the packet's own source. */
	if (!mode_inserts(pol->mode) &&
	    headend_outer_source(ctx, plan, &src) < 0) {
		proc_drop(ctx, p, plan->st, DROP_NO_SOURCE);
		return;
	}
	to_first = p->gso && inner_to_first(plan, p);	/* only for p->gso */
	inner_len = p->len;
	why = plan_push(plan, key, &src, p);
	if (why != HEADEND_OK) {
		proc_drop(ctx, p, plan->st, why);
		return;
	}
	if (p->gso)	/* headend_kernel_check(): no insertion */
		headend_kernel_facts(ctx, plan, &src, to_first, inner_len, p);
	p->verdict = PKT_NEW_BYTES;
	proc_count_ok(plan->st, p);
}

void headend_apply(struct proc_ctx *ctx, const struct policy *pol,
		   struct pkt *p)
{
	struct sid_stats *st = pol->binding ? &ctx->sid_stats[pol->index] :
					      &ctx->policy_stats[pol->index];
	struct headend_plan plan;

	if (headend_prepare(ctx, pol, p, st, false, &plan) == 0)
		headend_finish(ctx, &plan, p);
}
