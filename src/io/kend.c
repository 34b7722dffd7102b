/* kend.c - the kernel's End for srv6d's transit super-packets
 * (kend.h). */
#include <netinet/in.h>
#include <string.h>

#include "behavior_table.h"
#include "ip.h"
#include "kend.h"
#include "lpm.h"
#include "srh.h"
#include "srv6.h"

/* The local SID of segment i of srh, NULL when there is none. */
static const struct sid *kend_segment_sid(const struct config *cfg,
					  const struct srh *srh, unsigned i)
{
	struct in6_addr a;

	memcpy(&a, (const uint8_t *)srh + sizeof(*srh) + 16 * i, sizeof(a));
	return lpm_lookup(cfg->sid_table, &a);
}

/* The kend_mark of segment k of p's SRH when the End of that SID alone
 * is what srv6d does with a packet whose destination is segment k - 1
 * after it (kend_mark_of()) or segment k before it (kend_from_headers()):
 * its SID a plain End with a kend_mark, the SRH without TLVs, segment
 * k - 1 (the new destination) no local SID, and segment k + 1 none either
 * (a chain srv6d ran through sid_chain(), which the kernel's routes may
 * not redo).  0 otherwise. */
static uint32_t kend_segment_mark(const struct config *cfg, struct pkt *p,
				  bool after)
{
	struct srh_info si;
	struct srh_error err;
	const struct sid *sid;
	unsigned sl, k;

	if (!cfg->kend_on || !cfg->sid_table || pkt_ip_version(p) != 6 ||
	    p->len < IPV6_HDR_LEN ||
	    srh_find(p->data, p->len, &si, &err) < 0 || !si.srh)
		return 0;
	sl = si.srh->segments_left;
	k = after ? sl + 1 : sl;
	/* srh_validate(): the list fits the SRH, which srh_find() checked
	 * fits the bytes at hand.  The destination is segment sl. */
	if (!srh_validate(si.srh) || k < 1 || k > si.srh->last_entry ||
	    si.srh->hdrlen != (si.srh->last_entry + 1u) * 2 ||
	    memcmp(p->data + IP6_DST_OFF, (const uint8_t *)si.srh +
		   sizeof(*si.srh) + 16 * sl, 16) != 0 ||
	    kend_segment_sid(cfg, si.srh, k - 1))
		return 0;
	sid = kend_segment_sid(cfg, si.srh, k);
	if (!sid || !sid->kend_mark || sid->behavior != BHV_END ||
	    sid->flavors)
		return 0;
	if (k + 1 <= si.srh->last_entry && kend_segment_sid(cfg, si.srh, k + 1))
		return 0;
	return sid->kend_mark;
}

/* The length an IPv6 or IPv4 header at in (len bytes at hand) gives its
 * packet; 0 when it is not at hand, or a jumbogram. */
static uint32_t kend_inner_len(const uint8_t *in, uint32_t len)
{
	if (len >= IPV6_HDR_LEN && (in[0] >> 4) == 6 && (in[4] | in[5]))
		return IPV6_HDR_LEN + ((uint32_t)in[4] << 8 | in[5]);
	if (len >= 20 && (in[0] >> 4) == 4)
		return (uint32_t)in[2] << 8 | in[3];
	return 0;
}

/* The upper-layer header a kernel decapsulating SID takes (IPPROTO_IPV6,
 * IPPROTO_IPIP), 0 for another SID. */
static uint8_t kend_decap_proto(const struct sid *sid)
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

/* The length of the outer headers at o (len bytes of a packet of
 * orig_len) when they are what the kernel's seg6local decapsulation of
 * sid takes as srv6d does: an IPv6 header to sid, its length orig_len,
 * then either sid's upper-layer header or an SRH with Segments Left 0,
 * no TLV (the kernel would check an HMAC it has no key for) and that
 * header next.  0 otherwise (another extension header, a TLV, SL > 0). */
static uint32_t kend_decap_outer_len(const struct config *cfg,
				     const struct sid *sid, const uint8_t *o,
				     uint32_t len, uint32_t orig_len)
{
	const struct srh *srh = (const struct srh *)(o + IPV6_HDR_LEN);
	uint8_t proto = kend_decap_proto(sid);
	struct in6_addr dst;
	uint32_t off;

	if (!proto || len < IPV6_HDR_LEN || (o[0] >> 4) != 6 ||
	    IPV6_HDR_LEN + ((uint32_t)o[4] << 8 | o[5]) != orig_len)
		return 0;
	memcpy(&dst, o + IP6_DST_OFF, sizeof(dst));
	if (lpm_lookup(cfg->sid_table, &dst) != sid)
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

/* The kend_mark of p's decapsulating SID when its result is that SID's
 * decapsulation of the packet as queued (kend_mark_of()), 0 otherwise:
 * that SID named by the destination and run first (p->dst_sid), the
 * result its own (its mark), nothing trimmed off the end, the outer
 * headers, still in front of the result at p->orig_data, as
 * kend_decap_outer_len() wants them. */
static uint32_t kend_decap_mark(const struct config *cfg, const struct pkt *p)
{
	const struct sid *sid = p->dst_sid;
	uint32_t off;

	if (!sid || !sid->kend_mark || !p->set_mark ||
	    p->out_mark != sid->mark || !p->orig_data ||
	    p->orig_data < p->head || p->orig_data > p->data)
		return 0;
	off = (uint32_t)(p->data - p->orig_data);
	if (off + kend_inner_len(p->data, p->len) != p->orig_len ||
	    kend_decap_outer_len(cfg, sid, p->orig_data, off,
				 p->orig_len) != off)
		return 0;
	return sid->kend_mark;
}

/* Whether p, as queued, is one whose decapsulation kend_decap_mark()
 * would hand to the kernel: its destination a decapsulating SID with a
 * kend_mark, kend_decap_outer_len()'s outer headers, then the inner
 * header, at hand, whose length ends the packet. */
static bool kend_decap_from_headers(const struct config *cfg,
				    const struct pkt *p)
{
	const struct sid *sid;
	struct in6_addr dst;
	uint32_t off;

	if (!cfg->kend_on || !cfg->sid_table || pkt_ip_version(p) != 6 ||
	    p->len < IPV6_HDR_LEN)
		return false;
	memcpy(&dst, p->data + IP6_DST_OFF, sizeof(dst));
	sid = lpm_lookup(cfg->sid_table, &dst);
	if (!sid || !sid->kend_mark)
		return false;
	off = kend_decap_outer_len(cfg, sid, p->data, p->len, p->orig_len);
	return off && off + kend_inner_len(p->data + off, p->len - off) ==
		      p->orig_len;
}

uint32_t kend_mark_of(const struct config *cfg, struct pkt *p)
{
	if (!cfg->kend_on || !cfg->sid_table ||
	    p->verdict != PKT_NEW_BYTES || p->outcome != PKT_OUT_OK)
		return 0;
	if (!p->set_mark)	/* an End's result has no mark */
		return kend_segment_mark(cfg, p, true);
	return kend_decap_mark(cfg, p);
}

bool kend_from_headers(const struct config *cfg, struct pkt *p)
{
	return kend_segment_mark(cfg, p, false) != 0 ||
	       kend_decap_from_headers(cfg, p);
}
