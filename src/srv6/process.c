/* process.c - the packet path's dispatcher: check the IP header, find the
 * packet's SID or steering policy, and run its behavior. */
#include <linux/if_ether.h>
#include <string.h>

#include "behavior.h"
#include "behavior_table.h"
#include "egress.h"
#include "headend.h"
#include "hmac.h"
#include "icmp.h"
#include "lpm.h"
#include "process.h"
#include "srh.h"
#include "srv6.h"

#define IP6_SRC_OFF	8
#define IP6_DST_OFF	24
#define IP4_SRC_OFF	12
#define HMAC_TLV_HMAC_OFF	8	/* the HMAC field in its TLV */

/* Check the IPv6 header against the queued length; cut any bytes after
 * the IPv6 packet.  Returns 0, or -1 with a counted drop. */
static int ipv6_sane(struct proc_ctx *ctx, struct pkt *p)
{
	uint32_t plen;

	if (p->len < IPV6_HDR_LEN) {
		proc_drop(ctx, p, NULL, DROP_TRUNCATED);
		return -1;
	}
	plen = (uint32_t)p->data[4] << 8 | p->data[5];
	if (pkt_ip_version(p) != 6 || plen == 0) {	/* 0: jumbogram */
		proc_drop(ctx, p, NULL, DROP_BAD_IP);
		return -1;
	}
	if (p->len < IPV6_HDR_LEN + plen) {
		proc_drop(ctx, p, NULL, DROP_TRUNCATED);
		return -1;
	}
	pkt_trim(p, IPV6_HDR_LEN + plen);
	return 0;
}

/* The same for IPv4 (RFC 791 header length and total length). */
static int ipv4_sane(struct proc_ctx *ctx, struct pkt *p)
{
	uint32_t ihl, tot;

	if (p->len < 20) {
		proc_drop(ctx, p, NULL, DROP_TRUNCATED);
		return -1;
	}
	ihl = (uint32_t)(p->data[0] & 0x0f) * 4;
	tot = (uint32_t)p->data[2] << 8 | p->data[3];
	if (pkt_ip_version(p) != 4 || ihl < 20 || tot < ihl) {
		proc_drop(ctx, p, NULL, DROP_BAD_IP);
		return -1;
	}
	if (p->len < tot) {
		proc_drop(ctx, p, NULL, DROP_TRUNCATED);
		return -1;
	}
	pkt_trim(p, tot);
	return 0;
}

/* ---- encapsulation against the egress (the route mirror) ------------- */

/* The source of an ICMP error about p at a headend: p is addressed to a
 * remote host, so not its destination but an address of this node, the
 * one the kernel would pick for an error to p's source (egress.h); for
 * IPv6, encap-source when the node has no candidate.  Returns 0, or -1
 * when there is none. */
static int headend_icmp6_source(const struct proc_ctx *ctx,
				const struct pkt *p, struct in6_addr *src)
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

static int headend_icmp4_source(const struct proc_ctx *ctx,
				const struct pkt *p, struct in_addr *src)
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
static void encap_too_big(struct proc_ctx *ctx, struct pkt *p,
			  struct sid_stats *st, uint32_t mtu, uint32_t push,
			  bool at_sid)
{
	uint32_t room = mtu > push ? mtu - push : 0;
	struct in6_addr src6;
	struct in_addr src4;

	if (p->hw_proto == ETH_P_IPV6 && at_sid)
		icmp6_error(ctx, p, ICMP6_T_PKT_TOO_BIG, 0, room, st,
			    DROP_TOO_BIG);
	else if (p->hw_proto == ETH_P_IPV6 &&
		 headend_icmp6_source(ctx, p, &src6) == 0)
		icmp6_error_from(ctx, p, &src6, ICMP6_T_PKT_TOO_BIG, 0, room,
				 st, DROP_TOO_BIG);
	else if (p->hw_proto == ETH_P_IP &&
		 headend_icmp4_source(ctx, p, &src4) == 0)
		icmp4_error(ctx, p, &src4, ICMP4_T_DST_UNREACH,
			    ICMP4_C_FRAG_NEEDED, room & 0xffff, st,
			    DROP_TOO_BIG);
	else
		proc_drop(ctx, p, st, DROP_TOO_BIG);
}

/* Before pol's headers go on p: route the outer destination (the first
 * segment of the list p's flow takes) in the mirror, and answer a packet
 * that would leave bigger than the egress MTU (at_sid: p is addressed to
 * a binding SID of this node).  *e is the egress (e->route
 * NULL when the mirror has no usable route: the kernel decides then).
 * Returns 0 to go on, -1 once p has been answered. */
static int encap_check(struct proc_ctx *ctx, const struct policy *pol,
		       struct pkt *p, struct sid_stats *st, struct egress *e,
		       bool at_sid)
{
	const struct seglist *sl = headend_pick(pol, p);
	uint32_t push;

	if (egress_route(ctx->mirror, AF_INET6, FIB_TABLE_UNSPEC, &sl->segs[0],
			 0, e) != EGRESS_OK) {
		e->route = NULL;
		return 0;
	}
	if (!e->mtu)
		return 0;
	push = headend_push_len(pol, p->hw_proto);
	if (p->len + push <= e->mtu)
		return 0;
	encap_too_big(ctx, p, st, e->mtu, push, at_sid);
	return -1;
}

/* The worker's cache set of (dst, oif): its first entry's index.  Every
 * byte of dst counts (an operator's first segments often differ only in
 * their locator bits). */
static unsigned src_cache_set(const struct in6_addr *dst, uint32_t oif)
{
	uint64_t hi, lo;

	memcpy(&hi, dst->s6_addr, sizeof(hi));
	memcpy(&lo, dst->s6_addr + 8, sizeof(lo));
	hi ^= (lo * 0x9e3779b97f4a7c15ull) ^ oif;
	hi ^= hi >> 33;			/* MurmurHash3's fmix64 */
	hi *= 0xff51afd7ed558ccdull;
	hi ^= hi >> 33;
	hi *= 0xc4ceb9fe1a85ec53ull;
	hi ^= hi >> 33;
	return (unsigned)(hi % (PROC_SRC_CACHE / PROC_SRC_CACHE_WAYS)) *
	       PROC_SRC_CACHE_WAYS;
}

static bool src_cache_match(const struct src_cache_entry *c,
			    const struct in6_addr *dst, uint32_t oif,
			    uint64_t version)
{
	return c->version == version && version && c->oif == oif &&
	       !memcmp(&c->dst, dst, sizeof(*dst));
}

/* The outer source for dst leaving by e (NULL: route it here): the
 * route's preferred source, else egress_source_select() through the
 * worker's cache.  Returns 0, or -1 when there is none. */
static int encap_source_pick(struct proc_ctx *ctx, const struct in6_addr *dst,
			     const struct egress *e, struct in6_addr *src)
{
	struct src_cache_entry *set, hit;
	struct egress here;
	uint64_t version;
	uint32_t oif;

	if (!e || !e->route) {
		if (egress_route(ctx->mirror, AF_INET6, FIB_TABLE_UNSPEC, dst, 0,
				 &here) != EGRESS_OK)
			here.route = NULL;
		e = &here;
	}
	if (e->route && e->route->fi->prefsrc_set) {
		memcpy(src, &e->route->fi->prefsrc.v6, sizeof(*src));
		return 0;
	}
	oif = e->nh ? e->nh->oif : 0;
	version = rtmirror_links_version(ctx->mirror);
	set = &ctx->src_cache[src_cache_set(dst, oif)];
	if (src_cache_match(&set[0], dst, oif, version)) {
		*src = set[0].src;
		return 0;
	}
	/* Two ways, most recently used first: a hit in the second moves
	 * to the front, a miss pushes the first back. */
	if (src_cache_match(&set[1], dst, oif, version)) {
		hit = set[1];
		*src = hit.src;
	} else if (egress_source_select(ctx->mirror, oif, dst, src) < 0) {
		return -1;
	} else {
		hit.dst = *dst;
		hit.src = *src;
		hit.oif = oif;
		hit.version = version;
	}
	set[1] = set[0];
	set[0] = hit;
	return 0;
}

/* Without encap-source, headend.c leaves the outer source unspecified
 * (::): put the one the kernel would pick for the outer destination, and
 * sign again when pol adds an HMAC TLV (RFC 8754 2.1.2.1: the source is
 * in the HMAC).  An IPv6 result whose source is not :: (an ICMP error, an
 * insertion) is left alone.  No source to pick: DROP_NO_SOURCE. */
static void encap_source_fix(struct proc_ctx *ctx, const struct policy *pol,
			     struct pkt *p, struct sid_stats *st,
			     const struct egress *e)
{
	static const uint8_t unspec[16];
	const struct hmac_key *key;
	struct srh_error err;
	struct in6_addr dst, src;
	struct srh_info si;

	if (ctx->cfg->has_encap_source || !ctx->mirror || !pol ||
	    p->verdict != PKT_FORWARD || pkt_ip_version(p) != 6 ||
	    p->len < IPV6_HDR_LEN ||
	    memcmp(p->data + IP6_SRC_OFF, unspec, sizeof(unspec)))
		return;
	memcpy(&dst, p->data + IP6_DST_OFF, sizeof(dst));
	if (encap_source_pick(ctx, &dst, e, &src) < 0) {
		if (st) {
			st->packets--;	/* headend counted it as done */
			st->bytes -= p->orig_len;
		}
		proc_drop(ctx, p, st, DROP_NO_SOURCE);
		return;
	}
	memcpy(p->data + IP6_SRC_OFF, &src, sizeof(src));
	if (!pol->hmac_keyid)
		return;
	key = config_hmac_key(ctx->cfg, pol->hmac_keyid);
	if (key && srh_find(p->data, p->len, &si, &err) == 0 && si.srh &&
	    si.hmac_off)
		hmac_srh_digest(key, src.s6_addr, si.srh,
				p->data + si.hmac_off + HMAC_TLV_HMAC_OFF);
}

/* A steering policy: egress MTU, the headend, the outer source. */
static void policy_apply(struct proc_ctx *ctx, const struct policy *pol,
			 struct pkt *p)
{
	struct sid_stats *st = pol->binding ? &ctx->sid_stats[pol->index] :
					      &ctx->policy_stats[pol->index];
	struct egress e = { 0 };

	if (ctx->mirror && encap_check(ctx, pol, p, st, &e, false) < 0)
		return;
	headend_apply(ctx, pol, p);
	encap_source_fix(ctx, pol, p, st, &e);
}

/* A binding SID's encapsulation meets the same MTU (RFC 8986 4.13 S15):
 * checked before the behavior when it will push (an SRH with Segments
 * Left > 0; End answers the others).  Returns 0 to go on, -1 once p has
 * been answered. */
static int binding_mtu_check(struct proc_ctx *ctx, const struct sid *sid,
			     struct pkt *p)
{
	struct srh_error err;
	struct srh_info si;
	struct egress e;

	if (!ctx->mirror || !sid->policy ||
	    srh_find(p->data, p->len, &si, &err) < 0 || !si.srh ||
	    si.srh->segments_left == 0)
		return 0;
	return encap_check(ctx, sid->policy, p, &ctx->sid_stats[sid->index],
			   &e, true);
}

/* Run the behavior of local SID `sid` on p, as its row says
 * (behavior_table.h).  A binding SID meets the egress MTU first, and its
 * encapsulation gets its outer source after. */
static void sid_dispatch(struct proc_ctx *ctx, const struct sid *sid,
			 struct pkt *p)
{
	const struct behavior_desc *d = behavior_desc(sid->behavior);

	p->outcome = PKT_OUT_NONE;	/* this SID's, not the one before */
	p->st = NULL;
	if (!d) {
		proc_drop(ctx, p, &ctx->sid_stats[sid->index], DROP_FAMILY);
		return;
	}
	if (hmac_check(ctx, p, sid) < 0)	/* RFC 8754 2.1.2.1 */
		return;
	if (d->binding && binding_mtu_check(ctx, sid, p) < 0)
		return;
	d->fn(ctx, sid, p);
	if (d->binding && d->bsid_mode != ENCAP_MODE_INLINE)
		encap_source_fix(ctx, sid->policy, p,
				 &ctx->sid_stats[sid->index], NULL);
}

static void *table_lookup(const struct lpm *t, const struct in6_addr *key)
{
	return t ? lpm_lookup(t, key) : NULL;
}

/* RFC 8986 S15 submits the result to the FIB.  When its new destination is
 * another SID of this node, the kernel's seg6local hands it to that SID at
 * once; after our verdict it would never come back through the queue, so
 * run that SID here.  A result routed by a mark (End.X, End.T, ...) goes
 * where its rule sends it, as in the kernel, and is not looked at again. */
static void sid_chain(struct proc_ctx *ctx, struct pkt *p)
{
	const struct sid *sid;
	struct in6_addr dst;

	for (unsigned n = 0;; n++) {
		if (p->verdict != PKT_FORWARD || p->set_mark ||
		    pkt_ip_version(p) != 6 || p->len < IPV6_HDR_LEN)
			return;
		memcpy(&dst, p->data + 24, sizeof(dst));
		sid = table_lookup(ctx->cfg->sid_table, &dst);
		if (!sid)
			return;
		if (n == PROC_SID_CHAIN_MAX) {
			proc_drop(ctx, p, &ctx->sid_stats[sid->index], DROP_SID_CHAIN);
			return;
		}
		sid_dispatch(ctx, sid, p);
	}
}

static void process_ipv6(struct proc_ctx *ctx, struct pkt *p)
{
	const struct config *cfg = ctx->cfg;
	const struct policy *pol;
	const struct sid *sid;
	struct in6_addr dst;

	if (ipv6_sane(ctx, p) < 0)
		return;
	memcpy(&dst, p->data + 24, sizeof(dst));
	sid = table_lookup(cfg->sid_table, &dst);
	if (sid) {
		sid_dispatch(ctx, sid, p);
		sid_chain(ctx, p);
		return;
	}
	pol = table_lookup(cfg->policy6, &dst);
	if (pol) {
		policy_apply(ctx, pol, p);
		sid_chain(ctx, p);
		return;
	}
	ctx->stats->unmatched++;
}

static void process_ipv4(struct proc_ctx *ctx, struct pkt *p)
{
	const struct policy *pol;
	struct in6_addr key;
	struct in_addr dst;

	if (ipv4_sane(ctx, p) < 0)
		return;
	memcpy(&dst, p->data + 16, sizeof(dst));
	lpm_v4_key(&key, dst);
	pol = table_lookup(ctx->cfg->policy4, &key);
	if (pol) {
		policy_apply(ctx, pol, p);
		sid_chain(ctx, p);
		return;
	}
	ctx->stats->unmatched++;
}

void srv6_process(struct proc_ctx *ctx, struct pkt *p)
{
	p->verdict = PKT_ACCEPT;
	p->set_mark = false;
	p->out_mark = 0;
	p->outcome = PKT_OUT_NONE;
	p->st = NULL;
	switch (p->hw_proto) {
	case ETH_P_IPV6:
		process_ipv6(ctx, p);
		break;
	case ETH_P_IP:
		process_ipv4(ctx, p);
		break;
	default:
		proc_drop(ctx, p, NULL, DROP_FAMILY);
		break;
	}
}
