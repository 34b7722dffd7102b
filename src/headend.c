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
 * No hop limit is decremented here: after our verdict (or TUN write) the
 * kernel routes the result and its forwarding decrements the outer hop limit
 * once, exactly as ip6_forward() does after the kernel's own seg6 encap.
 * Decrementing here too would make the packet lose two.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <string.h>

#include "headend.h"
#include "srv6.h"

#define IPV4_HDR_MIN		20
#define HEADEND_IPV4_HOPLIMIT	64	/* ip6_dst_hoplimit() default */
#define HEADEND_MAX_LEN		65535u	/* largest packet we can hand back */
#define HEADEND_OK		DROP__COUNT	/* "no drop reason" */

/* Bytes of an SRH holding `entries` segments (no TLVs); 0 entries: none. */
static uint32_t srh_bytes(unsigned entries)
{
	return entries ? SRH_FIXED_LEN + 16u * entries : 0;
}

/* Segments in the SRH: all of the policy's, minus the first one when
 * reduced, plus the original destination when inserting. */
static unsigned srh_entries(const struct policy *pol, bool reduced,
			    bool insert)
{
	return pol->sl.nsegs - (reduced ? 1u : 0u) + (insert ? 1u : 0u);
}

/* Write an SRH (RFC 8754 2) at h: segment list in reverse travel order,
 * optionally led by orig_da (Segment List[0], insertion), and without the
 * policy's first segment when reduced (it is only in the DA).  Segments
 * Left points at the segment after the DA; Last Entry at the last entry. */
static void srh_write(uint8_t *h, uint8_t nexthdr, const struct seglist *sl,
		      const uint8_t *orig_da, bool reduced)
{
	unsigned entries = sl->nsegs - (reduced ? 1u : 0u) + (orig_da ? 1u : 0u);
	uint8_t *seg = h + SRH_FIXED_LEN;
	unsigned last = reduced ? 1u : 0u;

	h[0] = nexthdr;
	h[1] = (uint8_t)(entries * 2);		/* (8 + 16 e) / 8 - 1 */
	h[2] = SRH_TYPE;
	h[3] = (uint8_t)(entries - 1 + (reduced ? 1u : 0u));	/* SL */
	h[4] = (uint8_t)(entries - 1);		/* Last Entry */
	h[5] = 0;				/* flags */
	h[6] = h[7] = 0;			/* tag */
	if (orig_da) {
		memcpy(seg, orig_da, 16);
		seg += 16;
	}
	for (unsigned i = sl->nsegs; i-- > last; seg += 16)
		memcpy(seg, &sl->segs[i], 16);
}

/* Write the fixed IPv6 header at h. vtcfl: the first 4 bytes, network
 * order (version, traffic class, flow label). */
static void ip6_write(uint8_t *h, uint32_t vtcfl, uint32_t plen, uint8_t nh,
		      uint8_t hlim, const struct in6_addr *src,
		      const struct in6_addr *dst)
{
	memcpy(h, &vtcfl, 4);
	h[4] = (uint8_t)(plen >> 8);
	h[5] = (uint8_t)plen;
	h[6] = nh;
	h[7] = hlim;
	memcpy(h + 8, src, 16);
	memcpy(h + 24, dst, 16);
}

/* The outer header fields taken from the inner packet (see the top of the
 * file).  Returns 0, or the drop reason when the inner header is short or
 * not of the family it was queued as. */
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
		*hlim = p->data[7];
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
 * IPv6 header and an SRH; reduced, the SRH omits the first segment and is
 * left out altogether for a single segment (as Linux does without HMAC).
 * Returns HEADEND_OK or the drop reason. */
static enum drop_reason headend_encap(const struct config *cfg,
				      const struct policy *pol, struct pkt *p,
				      bool reduced)
{
	uint32_t srhlen = srh_bytes(srh_entries(pol, reduced, false));
	enum drop_reason why;
	uint32_t vtcfl = 0;
	uint8_t hlim = 0, proto = 0;
	uint8_t *h;

	why = inner_fields(p, &vtcfl, &hlim, &proto);
	if (why != HEADEND_OK)
		return why;
	if (p->len + IPV6_HDR_LEN + srhlen > HEADEND_MAX_LEN)
		return DROP_TOO_BIG;
	h = pkt_push(p, IPV6_HDR_LEN + srhlen);
	if (!h)
		return DROP_NO_HEADROOM;
	ip6_write(h, vtcfl, p->len - IPV6_HDR_LEN,
		  srhlen ? IPPROTO_SRH : proto, hlim, &cfg->encap_source,
		  &pol->sl.segs[0]);
	if (srhlen)
		srh_write(h + IPV6_HDR_LEN, proto, &pol->sl, NULL, reduced);
	return HEADEND_OK;
}

/* H.Insert / H.Insert.Red (Linux "inline"): insert an SRH right after the
 * fixed IPv6 header, as Linux's __seg6_do_srh_inline does (even in front of
 * a Hop-by-Hop header).  Segment List[0] is the original destination, the
 * DA becomes the first segment.  Reduced (no Linux counterpart; the draft's
 * H.Insert.Red): the SRH omits the first segment, which is only in the DA,
 * so SL = Last Entry + 1.  The 40-byte header moves to the front of the
 * headroom; the payload stays where it is.  Returns HEADEND_OK or the drop
 * reason. */
static enum drop_reason headend_insert(const struct policy *pol,
				       struct pkt *p, bool reduced)
{
	uint32_t srhlen = srh_bytes(srh_entries(pol, reduced, true));
	uint8_t *old = p->data;
	uint32_t plen;
	uint8_t *h;

	if (p->hw_proto != ETH_P_IPV6)
		return DROP_FAMILY;
	if (p->len < IPV6_HDR_LEN)
		return DROP_TRUNCATED;
	if (pkt_ip_version(p) != 6)
		return DROP_BAD_IP;
	if (p->len + srhlen > HEADEND_MAX_LEN)
		return DROP_TOO_BIG;
	h = pkt_push(p, srhlen);
	if (!h)
		return DROP_NO_HEADROOM;
	memmove(h, old, IPV6_HDR_LEN);	/* may overlap: srhlen can be < 40 */
	srh_write(h + IPV6_HDR_LEN, h[6], &pol->sl, h + 24, reduced);
	plen = p->len - IPV6_HDR_LEN;
	h[4] = (uint8_t)(plen >> 8);
	h[5] = (uint8_t)plen;
	h[6] = IPPROTO_SRH;
	memcpy(h + 24, &pol->sl.segs[0], 16);
	return HEADEND_OK;
}

uint32_t headend_push_len(const struct policy *pol, uint16_t hw_proto)
{
	bool v6 = hw_proto == ETH_P_IPV6;

	switch (pol->mode) {
	case ENCAP_MODE_ENCAP:
		return IPV6_HDR_LEN + srh_bytes(srh_entries(pol, false, false));
	case ENCAP_MODE_ENCAP_RED:
		return IPV6_HDR_LEN + srh_bytes(srh_entries(pol, true, false));
	case ENCAP_MODE_INLINE:
		return v6 ? srh_bytes(srh_entries(pol, false, true)) : 0;
	case ENCAP_MODE_INLINE_RED:
		return v6 ? srh_bytes(srh_entries(pol, true, true)) : 0;
	}
	return 0;
}

void headend_apply(struct proc_ctx *ctx, const struct policy *pol,
		   struct pkt *p)
{
	struct sid_stats *st = &ctx->policy_stats[pol->index];
	enum drop_reason why = DROP_FAMILY;

	switch (pol->mode) {
	case ENCAP_MODE_ENCAP:
		why = headend_encap(ctx->cfg, pol, p, false);
		break;
	case ENCAP_MODE_ENCAP_RED:
		why = headend_encap(ctx->cfg, pol, p, true);
		break;
	case ENCAP_MODE_INLINE:
		why = headend_insert(pol, p, false);
		break;
	case ENCAP_MODE_INLINE_RED:
		why = headend_insert(pol, p, true);
		break;
	}
	if (why != HEADEND_OK) {
		proc_drop(ctx, p, st, why);
		return;
	}
	p->verdict = PKT_FORWARD;
	proc_count_ok(st, p);
}
