/* seg6route.c - the kernel's seg6 and seg6local routes into srv6d's
 * policies and SIDs (seg6route.h).
 *
 * The attributes are the kernel's (include/uapi/linux/seg6_iptunnel.h,
 * seg6_local.h; net/ipv6/seg6_iptunnel.c and seg6_local.c build them):
 * SEG6_IPTUNNEL_SRH is a struct seg6_iptunnel_encap, the mode then the
 * SRH as it is pushed (segments in reverse order; an inline SRH and an
 * End.B6 one keep segments[0] free for the destination they insert in
 * front of, as iproute2 writes them).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/rtnetlink.h>
#include <linux/seg6.h>
#include <linux/seg6_iptunnel.h>
#include <linux/seg6_local.h>
#include <stdlib.h>
#include <string.h>

#include "behavior_table.h"
#include "rtnl.h"
#include "seg6route.h"

#define SRH_TYPE		4	/* RFC 8754 Routing Type */
#define TLV_PAD1		0
#define TLV_PADN		4	/* SR6_TLV_PADDING */
#define TLV_HMAC		5	/* SR6_TLV_HMAC */
#define HMAC_TLV_MIN		6	/* type, len, D/reserved, key id */
#ifndef SEG6_IPTUNNEL_SRC
#define SEG6_IPTUNNEL_SRC	2	/* Linux 6.11: per-route tunsrc */
#endif
#define ROUTE_ATTR_MAX		RTA_MAX

/* ---- SRH ---------------------------------------------------------------- */

/* The TLVs after the segments: padding, at most one HMAC (its key id in
 * *keyid).  Returns NULL, or why srv6d cannot reproduce them. */
static const char *srh_tlvs(const uint8_t *p, size_t len, uint32_t *keyid)
{
	size_t off = 0;

	while (off < len) {
		uint8_t type = p[off];
		size_t tl;

		if (type == TLV_PAD1) {
			off++;
			continue;
		}
		if (off + 2 > len || off + 2 + p[off + 1] > len)
			return "a truncated SRH TLV";
		tl = p[off + 1];
		if (type == TLV_HMAC) {
			uint32_t id;

			if (tl < HMAC_TLV_MIN || *keyid)
				return "an SRH HMAC TLV srv6d cannot read";
			memcpy(&id, p + off + 4, sizeof(id));
			*keyid = ntohl(id);
			if (!*keyid)
				return "an SRH HMAC TLV with key id 0";
		} else if (type != TLV_PADN) {
			return "an SRH TLV other than padding and HMAC";
		}
		off += 2 + tl;
	}
	return NULL;
}

/* An SRH as the kernel pushes it into a segment list in travel order;
 * placeholder: segments[0] is the slot an insertion fills.  Returns NULL,
 * or why srv6d cannot use it; -EINVAL-worthy garbage is reported the
 * same way (the kernel validated it: it does not happen). */
static const char *srh_parse(const void *data, size_t len, bool placeholder,
			     struct seglist *sl, uint32_t *keyid)
{
	const struct ipv6_sr_hdr *srh = data;
	size_t hlen, nseg, first;

	if (len < sizeof(*srh))
		return "a truncated SRH";
	hlen = ((size_t)srh->hdrlen + 1) * 8;
	nseg = (size_t)srh->first_segment + 1;
	if (hlen > len || sizeof(*srh) + nseg * 16 > hlen ||
	    srh->type != SRH_TYPE)
		return "a malformed SRH";
	if (srh->tag)
		return "an SRH tag (srv6d pushes tag 0)";
	if (srh->flags & ~SR6_FLAG1_HMAC)
		return "SRH flags other than HMAC";
	first = placeholder ? 1 : 0;
	if (nseg <= first)
		return "an SRH without segments";
	if (nseg - first > SRV6_MAX_SEGS)
		return "more than 16 segments";
	sl->nsegs = 0;
	for (size_t i = nseg; i-- > first;) {
		struct in6_addr a;

		memcpy(&a, (const uint8_t *)data + sizeof(*srh) + i * 16,
		       sizeof(a));
		if (IN6_IS_ADDR_UNSPECIFIED(&a) || IN6_IS_ADDR_MULTICAST(&a))
			return "a segment that is not a unicast address";
		sl->segs[sl->nsegs++] = a;
	}
	return srh_tlvs((const uint8_t *)data + sizeof(*srh) + nseg * 16,
			hlen - sizeof(*srh) - nseg * 16, keyid);
}

/* ---- seg6 encap: a policy ---------------------------------------------- */

/* One next hop's SEG6_IPTUNNEL_* attributes into list i of r->pol.
 * Returns 0, or -EINVAL for a malformed encap. */
static int seg6_encap(struct seg6route *r, const struct nlattr *encap,
		      unsigned i)
{
	const struct seg6_iptunnel_encap *t = NULL;
	const struct nlattr *a;
	struct policy *pol = &r->pol;
	enum encap_mode mode;
	uint32_t keyid = 0;
	const char *why;
	size_t len = 0;

	mnl_attr_for_each_nested(a, encap) {
		if (mnl_attr_get_type(a) == SEG6_IPTUNNEL_SRH) {
			t = mnl_attr_get_payload(a);
			len = mnl_attr_get_payload_len(a);
		} else if (mnl_attr_get_type(a) == SEG6_IPTUNNEL_SRC) {
			r->unsupported = r->unsupported ? r->unsupported :
				"a per-route tunsrc (srv6d has one "
				"encap-source)";
		}
	}
	if (!t || len < sizeof(*t))
		return -EINVAL;
	switch (t->mode) {
	case SEG6_IPTUN_MODE_INLINE:
		mode = ENCAP_MODE_INLINE;
		break;
	case SEG6_IPTUN_MODE_ENCAP:
		mode = ENCAP_MODE_ENCAP;
		break;
	case SEG6_IPTUN_MODE_ENCAP_RED:
		mode = ENCAP_MODE_ENCAP_RED;
		break;
	case SEG6_IPTUN_MODE_L2ENCAP:
	case SEG6_IPTUN_MODE_L2ENCAP_RED:
		r->unsupported = "mode l2encap (srv6d has no L2 encapsulation)";
		return 0;
	default:
		r->unsupported = "an unknown seg6 mode";
		return 0;
	}
	why = srh_parse(t->srh, len - sizeof(*t), mode == ENCAP_MODE_INLINE,
			&pol->lists[i], &keyid);
	if (why && !r->unsupported)
		r->unsupported = why;
	if (i && (mode != pol->mode || keyid != pol->hmac_keyid) &&
	    !r->unsupported)
		r->unsupported = "next hops with different modes or HMAC keys";
	pol->mode = mode;
	pol->hmac_keyid = keyid;
	return 0;
}

/* RTA_MULTIPATH: one segment list per next hop, weighted as the kernel
 * weighs them (rtnh_hops + 1).  Returns 1 when some next hop is seg6,
 * 0 when none is, -EINVAL. */
static int seg6_multipath(struct seg6route *r, const struct nlattr *mp)
{
	const uint8_t *p = mnl_attr_get_payload(mp);
	size_t left = mnl_attr_get_payload_len(mp);
	unsigned nseg6 = 0, nother = 0;

	while (left >= sizeof(struct rtnexthop)) {
		const struct rtnexthop *nh = (const struct rtnexthop *)p;
		const struct nlattr *encap = NULL, *a;
		size_t len = nh->rtnh_len, off = RTNH_ALIGN(sizeof(*nh));
		uint16_t type = 0;

		if (len < sizeof(*nh) || len > left)
			return -EINVAL;
		for (; off + sizeof(*a) <= len; off += MNL_ALIGN(a->nla_len)) {
			a = (const struct nlattr *)(p + off);
			if (a->nla_len < sizeof(*a) || off + a->nla_len > len)
				return -EINVAL;
			if (mnl_attr_get_type(a) == RTA_ENCAP_TYPE &&
			    mnl_attr_get_payload_len(a) == 2)
				type = mnl_attr_get_u16(a);
			else if (mnl_attr_get_type(a) == RTA_ENCAP)
				encap = a;
		}
		if (type == LWTUNNEL_ENCAP_SEG6 && encap) {
			if (r->pol.nlists == POLICY_MAX_LISTS) {
				r->unsupported = "more than 16 next hops";
			} else {
				r->pol.weights[r->pol.nlists] =
					(uint16_t)(nh->rtnh_hops + 1);
				if (seg6_encap(r, encap, r->pol.nlists) < 0)
					return -EINVAL;
				r->pol.nlists++;
			}
			nseg6++;
		} else {
			nother++;
		}
		len = RTNH_ALIGN(len);
		if (len >= left)
			break;
		p += len;
		left -= len;
	}
	if (!nseg6)
		return 0;
	if (nother && !r->unsupported)
		r->unsupported = "a multipath route with next hops without seg6";
	return 1;
}

/* ---- seg6local: a SID -------------------------------------------------- */

/* The kernel's actions srv6d has, by SEG6_LOCAL_ACTION_*; -1: none. */
static int action_behavior(uint32_t action)
{
	switch (action) {
	case SEG6_LOCAL_ACTION_END:		return BHV_END;
	case SEG6_LOCAL_ACTION_END_X:		return BHV_END_X;
	case SEG6_LOCAL_ACTION_END_T:		return BHV_END_T;
	case SEG6_LOCAL_ACTION_END_DX2:		return BHV_END_DX2;
	case SEG6_LOCAL_ACTION_END_DX6:		return BHV_END_DX6;
	case SEG6_LOCAL_ACTION_END_DX4:		return BHV_END_DX4;
	case SEG6_LOCAL_ACTION_END_DT6:		return BHV_END_DT6;
	case SEG6_LOCAL_ACTION_END_DT4:		return BHV_END_DT4;
	case SEG6_LOCAL_ACTION_END_DT46:	return BHV_END_DT46;
	case SEG6_LOCAL_ACTION_END_B6:		return BHV_END_B6;
	case SEG6_LOCAL_ACTION_END_B6_ENCAP:	return BHV_END_B6_ENCAPS;
	default:				return -1;
	}
}

static const char *action_unsupported(uint32_t action)
{
	switch (action) {
	case SEG6_LOCAL_ACTION_END_BM:
		return "action End.BM (srv6d has no MPLS)";
	case SEG6_LOCAL_ACTION_END_S:
		return "action End.S (srv6d does not have it)";
	case SEG6_LOCAL_ACTION_END_AS:
		return "action End.AS (srv6d does not have it)";
	case SEG6_LOCAL_ACTION_END_AM:
		return "action End.AM (srv6d does not have it)";
	case SEG6_LOCAL_ACTION_END_BPF:
		return "action End.BPF (srv6d runs no BPF)";
	default:
		return "an unknown seg6local action";
	}
}

/* SEG6_LOCAL_FLAVORS: the operations as FLV_* bits, the NEXT-C-SID
 * lengths (has[] marks SA_LBLEN / SA_NFLEN). */
static const char *seg6local_flavors(struct sid *s, const struct nlattr *nest,
				     bool *has)
{
	static const unsigned flv[] = {
		[SEG6_LOCAL_FLV_OP_PSP] = FLV_PSP,
		[SEG6_LOCAL_FLV_OP_USP] = FLV_USP,
		[SEG6_LOCAL_FLV_OP_USD] = FLV_USD,
		[SEG6_LOCAL_FLV_OP_NEXT_CSID] = FLV_NEXT_CSID,
	};
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		uint32_t ops;

		switch (mnl_attr_get_type(a)) {
		case SEG6_LOCAL_FLV_OPERATION:
			ops = mnl_attr_get_u32(a);
			for (unsigned op = 1; op < 32; op++) {
				if (!(ops & (1u << op)))
					continue;
				if (op >= sizeof(flv) / sizeof(flv[0]))
					return "an unknown flavor";
				s->flavors |= flv[op];
			}
			break;
		case SEG6_LOCAL_FLV_LCBLOCK_BITS:
			s->lblen = mnl_attr_get_u8(a);
			has[SA_LBLEN] = true;
			break;
		case SEG6_LOCAL_FLV_LCNODE_FN_BITS:
			s->nflen = mnl_attr_get_u8(a);
			has[SA_NFLEN] = true;
			break;
		default:
			break;
		}
	}
	return NULL;
}


/* Copy the n-byte address of attribute a to dst; `bad` when it is not n
 * bytes long, NULL when copied. */
static const char *attr_addr(const struct nlattr *a, void *dst, size_t n,
			     const char *bad)
{
	if (mnl_attr_get_payload_len(a) != n)
		return bad;
	memcpy(dst, mnl_attr_get_payload(a), n);
	return NULL;
}
/* One SEG6_LOCAL_* attribute into r (has[] marks the SA_* it sets).
 * Returns NULL, or why srv6d cannot apply the route. */
static const char *seg6local_attr(struct seg6route *r, const struct nlattr *a,
				  bool *has)
{
	struct sid *s = &r->sid;
	size_t len = mnl_attr_get_payload_len(a);

	switch (mnl_attr_get_type(a)) {
	case SEG6_LOCAL_TABLE:
	case SEG6_LOCAL_VRFTABLE:
		if (len != 4)
			return "a malformed table";
		s->table = mnl_attr_get_u32(a);
		s->vrf = mnl_attr_get_type(a) == SEG6_LOCAL_VRFTABLE;
		has[s->vrf ? SA_VRFTABLE : SA_TABLE] = true;
		return NULL;
	case SEG6_LOCAL_NH4:
		has[SA_NH4] = true;
		return attr_addr(a, &s->nh4, 4, "a malformed nh4");
	case SEG6_LOCAL_NH6:
		has[SA_NH6] = true;
		return attr_addr(a, &s->nh6, 16, "a malformed nh6");
	case SEG6_LOCAL_OIF:
		if (len != 4)
			return "a malformed oif";
		r->sid_oif = mnl_attr_get_u32(a);
		has[SA_OIF] = true;
		return NULL;
	case SEG6_LOCAL_FLAVORS:
		has[SA_FLAVORS] = true;
		return seg6local_flavors(s, a, has);
	case SEG6_LOCAL_IIF:
		return "iif (srv6d has no such attribute)";
	case SEG6_LOCAL_BPF:
		return "a BPF program";
	default:
		return NULL;	/* ACTION, SRH (seg6local()); COUNTERS:
				 * srv6d counts every SID */
	}
}

/* What the SID's behavior row says about its attributes (as config.c's
 * sid line checks).  Returns NULL, or why not. */
static const char *seg6local_check(struct seg6route *r, const bool *has)
{
	struct sid *s = &r->sid;
	const struct behavior_desc *d = behavior_desc(s->behavior);
	unsigned given = 0;

	for (unsigned a = 0; a < SA__COUNT; a++) {
		bool csid_len = a == SA_LBLEN || a == SA_NFLEN;

		if (has[a] && !csid_len && !(d->attrs & SA_BIT(a)))
			return "an attribute srv6d does not take with its action";
		given += has[a] && (d->needs & SA_BIT(a));
	}
	if (d->needs && given != 1)
		return "not exactly one of the attributes its action needs";
	if (s->flavors & ~d->flavors)
		return "a flavor srv6d does not take with its action";
	if (has[SA_NH6] && !has[SA_OIF] && IN6_IS_ADDR_LINKLOCAL(&s->nh6))
		return "a link-local nh6 without oif";
	if (!(s->flavors & FLV_NEXT_CSID))
		return has[SA_LBLEN] || has[SA_NFLEN] ?
			"NEXT-C-SID lengths without next-csid" : NULL;
	if (!s->lblen)
		s->lblen = CSID_DEFAULT_LBLEN;
	if (!s->nflen)
		s->nflen = CSID_DEFAULT_NFLEN;
	if (s->lblen % 8 || s->nflen % 8 || s->lblen < 8 || s->nflen < 8 ||
	    s->lblen + s->nflen > 128 || s->plen < s->lblen + s->nflen)
		return "NEXT-C-SID lengths srv6d cannot use";
	return NULL;
}

/* RTA_ENCAP of a seg6local route into r->sid (and r->pol for a binding
 * SID).  Returns 0 or -EINVAL. */
static int seg6local(struct seg6route *r, const struct nlattr *encap)
{
	const struct nlattr *a, *act = NULL, *srh = NULL;
	bool has[SA__COUNT] = { false };
	const char *why = NULL;
	int b;

	mnl_attr_for_each_nested(a, encap) {
		const char *w;

		if (mnl_attr_get_type(a) == SEG6_LOCAL_ACTION)
			act = a;
		else if (mnl_attr_get_type(a) == SEG6_LOCAL_SRH)
			srh = a;
		w = seg6local_attr(r, a, has);
		why = why ? why : w;
	}
	if (!act || mnl_attr_get_payload_len(act) != 4)
		return -EINVAL;
	b = action_behavior(mnl_attr_get_u32(act));
	if (b < 0) {
		r->unsupported = action_unsupported(mnl_attr_get_u32(act));
		return 0;
	}
	r->sid.behavior = (enum behavior)b;
	if (behavior_is_binding(r->sid.behavior)) {
		const struct behavior_desc *d = behavior_desc(r->sid.behavior);
		uint32_t keyid = 0;

		r->pol.mode = d->bsid_mode;
		r->pol.binding = true;
		r->pol.nlists = 1;
		r->pol.weights[0] = 1;
		if (!srh)
			return -EINVAL;
		why = why ? why : srh_parse(mnl_attr_get_payload(srh),
					    mnl_attr_get_payload_len(srh),
					    d->bsid_mode == ENCAP_MODE_INLINE,
					    &r->pol.lists[0], &keyid);
		r->pol.hmac_keyid = keyid;
	} else if (!why) {
		why = seg6local_check(r, has);
	}
	r->unsupported = why;
	return 0;
}

/* ---- the route --------------------------------------------------------- */

static void mask_bytes(uint8_t *a, unsigned alen, unsigned plen)
{
	for (unsigned i = 0; i < alen; i++) {
		unsigned keep = plen > i * 8 ? plen - i * 8 : 0;

		if (keep < 8)
			a[i] &= (uint8_t)(0xff00u >> keep);
	}
}

/* The destination prefix into r->sid / r->pol. */
static int route_prefix(struct seg6route *r, const struct rtmsg *rtm,
			const struct nlattr *dst)
{
	unsigned alen = r->family == AF_INET ? 4 : 16;
	uint8_t a[16] = { 0 };

	if (rtm->rtm_dst_len > alen * 8)
		return -EINVAL;
	if (dst) {
		if (mnl_attr_get_payload_len(dst) != alen)
			return -EINVAL;
		memcpy(a, mnl_attr_get_payload(dst), alen);
	}
	mask_bytes(a, alen, rtm->rtm_dst_len);
	r->pol.family = r->family;
	r->pol.plen = rtm->rtm_dst_len;
	r->pol.ktable = r->table;
	r->pol.table = r->table;	/* a policy of the route's table */
	memcpy(&r->pol.prefix, a, alen);
	if (r->kind == SEG6ROUTE_SID) {
		memcpy(&r->sid.prefix, a, 16);
		r->sid.plen = rtm->rtm_dst_len;
		r->sid.ktable = r->table;
	}
	return 0;
}

/* The route's encapsulation type: LWTUNNEL_ENCAP_SEG6 when it or one of
 * its next hops is seg6, LWTUNNEL_ENCAP_SEG6_LOCAL, else 0. */
static uint16_t route_encap_type(const struct nlattr *const *tb)
{
	if (tb[RTA_MULTIPATH])
		return LWTUNNEL_ENCAP_SEG6;	/* seg6_multipath() tells */
	if (!tb[RTA_ENCAP_TYPE] || !tb[RTA_ENCAP] ||
	    mnl_attr_get_payload_len(tb[RTA_ENCAP_TYPE]) != 2)
		return 0;
	return mnl_attr_get_u16(tb[RTA_ENCAP_TYPE]);
}

/* The encapsulation of r's kind into r.  Returns 1, 0 (not SRv6 after
 * all: a multipath route without seg6), or -EINVAL. */
static int route_encap(struct seg6route *r, const struct nlattr *const *tb)
{
	if (tb[RTA_MULTIPATH])
		return seg6_multipath(r, tb[RTA_MULTIPATH]);
	if (r->kind == SEG6ROUTE_SID)
		return seg6local(r, tb[RTA_ENCAP]) < 0 ? -EINVAL : 1;
	r->pol.nlists = 1;
	r->pol.weights[0] = 1;
	return seg6_encap(r, tb[RTA_ENCAP], 0) < 0 ? -EINVAL : 1;
}

int seg6route_parse(const struct nlmsghdr *nlh, struct seg6route *r)
{
	const struct nlattr *tb[ROUTE_ATTR_MAX + 1] = { 0 };
	const struct rtmsg *rtm;
	uint16_t type;
	int rc;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return -EINVAL;
	rtm = mnl_nlmsg_get_payload(nlh);
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return 0;
	/* srv6d's own (kernel-encap's seg6, kernel-end's seg6local routes):
	 * the kernel doing srv6d's work, not an SRv6 route to take in */
	if (rtm->rtm_protocol == RTPROT_SRV6D)
		return 0;
	if (rtnl_attrs(nlh, sizeof(*rtm), tb, ROUTE_ATTR_MAX) < 0)
		return -EINVAL;
	type = route_encap_type(tb);
	if (type != LWTUNNEL_ENCAP_SEG6 && type != LWTUNNEL_ENCAP_SEG6_LOCAL)
		return 0;
	memset(r, 0, sizeof(*r));
	r->kind = type == LWTUNNEL_ENCAP_SEG6 ? SEG6ROUTE_POLICY : SEG6ROUTE_SID;
	r->family = rtm->rtm_family;
	if (r->kind == SEG6ROUTE_SID && r->family != AF_INET6)
		return -EINVAL;
	r->table = tb[RTA_TABLE] ? mnl_attr_get_u32(tb[RTA_TABLE])
				 : rtm->rtm_table;
	r->priority = tb[RTA_PRIORITY] ? mnl_attr_get_u32(tb[RTA_PRIORITY]) : 0;
	r->tos = rtm->rtm_tos;
	if (route_prefix(r, rtm, tb[RTA_DST]) < 0)
		return -EINVAL;
	rc = route_encap(r, tb);
	if (rc <= 0)
		return rc;
	if (!r->unsupported && r->kind == SEG6ROUTE_POLICY &&
	    r->family == AF_INET && r->pol.mode == ENCAP_MODE_INLINE)
		r->unsupported = "mode inline on an IPv4 route";
	/* The route mirror expands a route naming an object into its next
	 * hops and encapsulation first (nexthop.h): this is a message
	 * nothing resolved. */
	if (!r->unsupported && tb[RTA_NH_ID])
		r->unsupported = "a next-hop object";
	return 1;
}

/* ---- the set ------------------------------------------------------------ */

/* What the kernel keys a route by (fib6_add(): table, prefix, metric;
 * IPv4 also tos). */
struct route_key {
	uint32_t table;
	uint8_t family;
	uint8_t plen;
	uint8_t tos;
	uint8_t pad;
	uint8_t dst[16];
	uint32_t priority;
};

struct entry {
	struct entry *next;
	struct route_key key;
	uint32_t hash;
	uint32_t gen;
	uint32_t len;		/* of msg */
	uint32_t msg[];		/* struct nlmsghdr, 4-aligned */
};

struct seg6route_set {
	struct entry **bucket;
	size_t nbuckets;	/* power of two */
	size_t n;
};

/* Attributes kept in an entry's copy of its message: what
 * seg6route_parse() reads (RTA_CACHEINFO and the like change with no
 * change to the route). */
static bool attr_kept(uint16_t type)
{
	return type == RTA_DST || type == RTA_TABLE || type == RTA_PRIORITY ||
	       type == RTA_OIF || type == RTA_ENCAP_TYPE || type == RTA_ENCAP ||
	       type == RTA_MULTIPATH || type == RTA_NH_ID;
}

static int key_of(const struct nlmsghdr *nlh, struct route_key *k)
{
	const struct nlattr *tb[ROUTE_ATTR_MAX + 1] = { 0 };
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	unsigned alen = rtm->rtm_family == AF_INET ? 4 : 16;

	if (rtnl_attrs(nlh, sizeof(*rtm), tb, ROUTE_ATTR_MAX) < 0)
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	k->family = rtm->rtm_family;
	k->plen = rtm->rtm_dst_len;
	k->tos = rtm->rtm_tos;
	k->table = tb[RTA_TABLE] ? mnl_attr_get_u32(tb[RTA_TABLE])
				 : rtm->rtm_table;
	k->priority = tb[RTA_PRIORITY] ? mnl_attr_get_u32(tb[RTA_PRIORITY]) : 0;
	if (tb[RTA_DST]) {
		if (mnl_attr_get_payload_len(tb[RTA_DST]) != alen)
			return -EINVAL;
		memcpy(k->dst, mnl_attr_get_payload(tb[RTA_DST]), alen);
	}
	mask_bytes(k->dst, alen, k->plen);
	return 0;
}

static uint32_t key_hash(const struct route_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* A compact RTM_NEWROUTE copy of nlh: the rtmsg and attr_kept() ones. */
static struct entry *entry_new(const struct nlmsghdr *nlh,
			       const struct route_key *k, uint32_t gen)
{
	struct entry *e = calloc(1, sizeof(*e) + nlh->nlmsg_len);
	const struct nlattr *a;
	struct nlmsghdr *c;

	if (!e)
		return NULL;
	c = mnl_nlmsg_put_header(e->msg);
	c->nlmsg_type = RTM_NEWROUTE;
	memcpy(mnl_nlmsg_put_extra_header(c, sizeof(struct rtmsg)),
	       mnl_nlmsg_get_payload(nlh), sizeof(struct rtmsg));
	mnl_attr_for_each(a, nlh, sizeof(struct rtmsg))
		if (attr_kept(mnl_attr_get_type(a)))
			mnl_attr_put(c, mnl_attr_get_type(a),
				     mnl_attr_get_payload_len(a),
				     mnl_attr_get_payload(a));
	e->len = c->nlmsg_len;
	e->key = *k;
	e->hash = key_hash(k);
	e->gen = gen;
	return e;
}

struct seg6route_set *seg6route_set_new(void)
{
	struct seg6route_set *set = calloc(1, sizeof(*set));

	if (!set)
		return NULL;
	set->nbuckets = 64;
	set->bucket = calloc(set->nbuckets, sizeof(*set->bucket));
	if (!set->bucket) {
		free(set);
		return NULL;
	}
	return set;
}

void seg6route_set_free(struct seg6route_set *set)
{
	if (!set)
		return;
	seg6route_set_clear(set);
	free(set->bucket);
	free(set);
}


/* Remove the entry *pe points at (if any) from set.  Returns 1 when one
 * was removed, 0 when *pe is NULL. */
static int set_unlink(struct seg6route_set *set, struct entry **pe)
{
	struct entry *e = *pe;

	if (!e)
		return 0;
	*pe = e->next;
	free(e);
	set->n--;
	return 1;
}
/* Double the buckets when the set holds more entries than buckets (a
 * failed allocation keeps the longer chains). */
static void set_grow(struct seg6route_set *set)
{
	size_t nb = set->nbuckets * 2;
	struct entry **b;

	if (set->n <= set->nbuckets)
		return;
	b = calloc(nb, sizeof(*b));
	if (!b)
		return;
	for (size_t i = 0; i < set->nbuckets; i++) {
		struct entry *e = set->bucket[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (nb - 1)];
			b[e->hash & (nb - 1)] = e;
		}
	}
	free(set->bucket);
	set->bucket = b;
	set->nbuckets = nb;
}

static struct entry **set_find(struct seg6route_set *set,
			       const struct route_key *k)
{
	struct entry **pe = &set->bucket[key_hash(k) & (set->nbuckets - 1)];

	while (*pe && memcmp(&(*pe)->key, k, sizeof(*k)))
		pe = &(*pe)->next;
	return pe;
}

int seg6route_set_apply(struct seg6route_set *set, const struct nlmsghdr *nlh,
			uint32_t gen)
{
	static struct seg6route r;	/* the writer's (one thread) */
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct route_key k;
	struct entry **pe, *e;
	int rc = 0;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
		return -EINVAL;
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return 0;	/* multicast, MPLS: never SRv6 */
	if (nlh->nlmsg_type == RTM_NEWROUTE) {
		rc = seg6route_parse(nlh, &r);
		if (rc < 0)
			return rc;
	}
	if (key_of(nlh, &k) < 0)
		return -EINVAL;
	pe = set_find(set, &k);
	if (!rc)			/* deleted, or not SRv6 any more */
		return set_unlink(set, pe);
	e = entry_new(nlh, &k, gen);
	if (!e)
		return -ENOMEM;
	if (*pe) {
		bool same = (*pe)->len == e->len &&
			    !memcmp((*pe)->msg, e->msg, e->len);

		e->next = (*pe)->next;
		free(*pe);
		*pe = e;
		return same ? 0 : 1;
	}
	*pe = e;
	set->n++;
	set_grow(set);
	return 1;
}

int seg6route_set_remove(struct seg6route_set *set, int family, uint32_t table,
			 const void *dst, unsigned plen, uint8_t tos,
			 uint32_t priority)
{
	unsigned alen = family == AF_INET ? 4 : 16;
	struct route_key k = { .table = table, .family = (uint8_t)family,
			       .plen = (uint8_t)plen, .tos = tos,
			       .priority = priority };

	if (plen > alen * 8)
		return 0;
	memcpy(k.dst, dst, alen);
	mask_bytes(k.dst, alen, plen);
	return set_unlink(set, set_find(set, &k));
}

/* Remove the entries of another gen than gen (all: every entry);
 * returns how many. */
static size_t set_remove_if(struct seg6route_set *set, uint32_t gen, bool all)
{
	size_t removed = 0;

	for (size_t i = 0; i < set->nbuckets; i++) {
		struct entry **pe = &set->bucket[i];

		while (*pe) {
			struct entry *e = *pe;

			if (!all && e->gen == gen) {
				pe = &e->next;
				continue;
			}
			*pe = e->next;
			free(e);
			removed++;
		}
	}
	set->n -= removed;
	return removed;
}

size_t seg6route_set_sweep(struct seg6route_set *set, uint32_t gen)
{
	return set_remove_if(set, gen, false);
}

size_t seg6route_set_clear(struct seg6route_set *set)
{
	return set_remove_if(set, 0, true);
}

size_t seg6route_set_count(const struct seg6route_set *set)
{
	return set->n;
}

static int key_cmp(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a;
	const struct entry *y = *(const struct entry *const *)b;
	const struct route_key *p = &x->key, *q = &y->key;
	int c;

	if (p->table != q->table)
		return p->table < q->table ? -1 : 1;
	if (p->family != q->family)
		return p->family < q->family ? -1 : 1;
	c = memcmp(p->dst, q->dst, sizeof(p->dst));
	if (c)
		return c;
	if (p->plen != q->plen)
		return p->plen < q->plen ? -1 : 1;
	if (p->tos != q->tos)
		return p->tos < q->tos ? -1 : 1;
	if (p->priority != q->priority)
		return p->priority < q->priority ? -1 : 1;
	return 0;
}

long seg6route_set_snapshot(const struct seg6route_set *set,
			    struct nlmsghdr ***msgs)
{
	struct entry **sorted = calloc(set->n + 1, sizeof(*sorted));
	struct nlmsghdr **out = calloc(set->n + 1, sizeof(*out));
	size_t n = 0;

	if (!sorted || !out)
		goto fail;
	for (size_t i = 0; i < set->nbuckets; i++)
		for (struct entry *e = set->bucket[i]; e; e = e->next)
			sorted[n++] = e;
	qsort(sorted, n, sizeof(*sorted), key_cmp);
	for (size_t i = 0; i < n; i++) {
		out[i] = malloc(sorted[i]->len);
		if (!out[i]) {
			seg6route_snapshot_free(out, i);
			out = NULL;
			goto fail;
		}
		memcpy(out[i], sorted[i]->msg, sorted[i]->len);
	}
	free(sorted);
	*msgs = out;
	return (long)n;
fail:
	free(sorted);
	free(out);
	return -ENOMEM;
}

void seg6route_snapshot_free(struct nlmsghdr **msgs, size_t n)
{
	if (!msgs)
		return;
	for (size_t i = 0; i < n; i++)
		free(msgs[i]);
	free(msgs);
}
