/* egress.c - the packet path's questions to the route mirror: a
 * destination's route, next hop, link and MTU; a SID's next hop; the
 * source address of an encapsulation (docs/design.md "Route mirror"). */
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>

#include "egress.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP	0x10000	/* linux/if.h; clashes with net/if.h */
#endif

static const struct fib_route *route_get(const struct fib_db *db,
					 int family, uint32_t table,
					 const void *addr)
{
	struct in_addr a4;

	if (family == AF_INET6)
		return fib_route_get6(db, table, addr);
	memcpy(&a4, addr, sizeof(a4));
	return fib_route_get4(db, table, a4);
}

enum drop_reason egress_route(const struct rtmirror *m, int family,
			      uint32_t table, const void *addr,
			      uint32_t flow_hash, struct egress *e)
{
	const struct fib_db *db = rtmirror_fib(m);
	const struct fib_route *r;

	memset(e, 0, sizeof(*e));
	if (table != FIB_TABLE_UNSPEC && !fib_table_get(db, table))
		return DROP_NO_TABLE;
	r = route_get(db, family, table, addr);
	if (!r)
		return DROP_NO_ROUTE;
	e->route = r;
	switch (r->type) {
	case RTN_UNICAST:
		break;
	case RTN_BLACKHOLE:
	case RTN_UNREACHABLE:
	case RTN_PROHIBIT:
		return DROP_NO_ROUTE;
	default:		/* local, broadcast, ...: the kernel's business */
		return EGRESS_OK;
	}
	e->nh = fib_route_nexthop(r, flow_hash);
	if (!e->nh)
		return DROP_NEXTHOP_UNREACHABLE;
	if (e->nh->oif) {
		if (!rtmirror_link_usable(m, e->nh->oif))
			return DROP_NEXTHOP_UNREACHABLE;
		e->link = rtmirror_link_get(m, e->nh->oif);
	}
	e->mtu = r->fi->mtu ? r->fi->mtu : e->link ? e->link->mtu : 0;
	return EGRESS_OK;
}

enum drop_reason egress_nexthop_check(const struct rtmirror *m,
				      const struct sid *sid,
				      const struct sid_runtime *rt)
{
	struct sid_runtime r = sid_runtime_get(rt, sid);
	struct egress e;

	if (sid->oif[0])
		return r.oif_index && rtmirror_link_usable(m, r.oif_index)
			       ? EGRESS_OK : DROP_NEXTHOP_UNREACHABLE;
	if (r.route_pending)
		return DROP_NO_ROUTE;
	if (behavior_nexthop_is_v4(sid->behavior))
		return egress_route(m, AF_INET, FIB_TABLE_UNSPEC, &sid->nh4, 0,
				    &e);
	return egress_route(m, AF_INET6, FIB_TABLE_UNSPEC, &sid->nh6, 0, &e);
}

bool egress_nexthop_connected(const struct rtmirror *m,
			      const struct sid *sid)
{
	bool v4 = behavior_nexthop_is_v4(sid->behavior);
	struct egress e;

	return egress_route(m, v4 ? AF_INET : AF_INET6, FIB_TABLE_UNSPEC,
			    v4 ? (const void *)&sid->nh4 : &sid->nh6, 0,
			    &e) == EGRESS_OK &&
	       e.nh && e.nh->gw_family == AF_UNSPEC;
}

/* ---- source selection ---------------------------------------------------- */

/* The RT_SCOPE_* of an IPv6 destination (RFC 4291 2.5). */
static uint8_t addr6_scope(const struct in6_addr *a)
{
	static const struct in6_addr lo = IN6ADDR_LOOPBACK_INIT;

	if (!memcmp(a, &lo, sizeof(lo)))
		return RT_SCOPE_HOST;
	if (a->s6_addr[0] == 0xfe && (a->s6_addr[1] & 0xc0) == 0x80)
		return RT_SCOPE_LINK;
	return RT_SCOPE_UNIVERSE;
}

static unsigned common_prefix(const uint8_t *a, const uint8_t *b)
{
	unsigned n = 0;

	for (unsigned i = 0; i < 16; i++) {
		uint8_t x = a[i] ^ b[i];

		if (x) {
			while (!(x & 0x80)) {
				x <<= 1;
				n++;
			}
			return n;
		}
		n += 8;
	}
	return n;
}

struct src_pick {
	const struct in6_addr *dst;
	uint8_t dst_scope;
	uint32_t oif;
	uint32_t best;		/* score of *src, 0: none yet */
	struct in6_addr src;
};

/* Score of one candidate (higher is better), 0 if it may not be used:
 * scope, then not deprecated, then the egress link, then the prefix. */
static uint32_t src_score(const struct src_pick *sp,
			  const struct rtmirror_link *l,
			  const struct rtmirror_addr *a)
{
	uint32_t s;

	if (a->family != AF_INET6 ||
	    (a->flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED)))
		return 0;
	/* RFC 6724 rule 2: no narrower scope than the destination's (a
	 * larger RT_SCOPE is narrower); the narrowest that fits wins. */
	if (a->scope > sp->dst_scope)
		return 0;
	s = (uint32_t)(255 - (sp->dst_scope - a->scope)) << 16;
	if (!(a->flags & IFA_F_DEPRECATED))	/* rule 3 */
		s |= 1u << 15;
	if (l->ifindex == sp->oif)		/* rule 5 */
		s |= 1u << 14;
	s |= common_prefix(a->addr.b, sp->dst->s6_addr) + 1;	/* rule 8 */
	return s;
}

static void src_consider(const struct rtmirror_link *l, void *arg)
{
	struct src_pick *sp = arg;

	for (unsigned i = 0; i < l->naddr; i++) {
		uint32_t s = src_score(sp, l, &l->addr[i]);

		if (s > sp->best) {
			sp->best = s;
			memcpy(&sp->src, &l->addr[i].addr.v6, sizeof(sp->src));
		}
	}
}

int egress_source_select(const struct rtmirror *m, uint32_t oif,
			 const struct in6_addr *dst, struct in6_addr *src)
{
	struct src_pick sp = {
		.dst = dst,
		.dst_scope = addr6_scope(dst),
		.oif = oif,
	};

	rtmirror_links_read(m, src_consider, &sp);
	if (!sp.best)
		return -1;
	*src = sp.src;
	return 0;
}

/* ---- the source of an ICMP error about a packet in transit ------------- */

int egress_icmp6_source(const struct rtmirror *m, uint32_t iif,
			const struct in6_addr *dst, struct in6_addr *src)
{
	uint32_t oif = iif;
	struct egress e;

	if (egress_route(m, AF_INET6, FIB_TABLE_UNSPEC, dst, 0, &e) ==
	    EGRESS_OK && e.route) {
		if (e.route->fi->prefsrc_set) {
			memcpy(src, &e.route->fi->prefsrc.v6, sizeof(*src));
			return 0;
		}
		if (e.nh && e.nh->oif)
			oif = e.nh->oif;
	}
	return egress_source_select(m, oif, dst, src);
}

struct src4_pick {
	uint32_t match;		/* host order: the address to share a subnet with */
	uint32_t oif;
	uint32_t best;		/* score of src, 0: none yet */
	struct in_addr src;
};

static bool addr4_match(const struct rtmirror_addr *a, uint32_t host)
{
	uint32_t mask = a->plen ? ~0u << (32 - a->plen) : 0;

	return ((ntohl(a->addr.v4.s_addr) ^ host) & mask) == 0;
}

/* Score of one IPv4 candidate, as the kernel's inet_select_addr() ranks
 * them: primary addresses only, not host scope; on the link first, where
 * one in the subnet of `match` wins; off the link, universe scope only. */
static uint32_t src4_score(const struct src4_pick *sp,
			   const struct rtmirror_link *l,
			   const struct rtmirror_addr *a)
{
	if (a->family != AF_INET || (a->flags & IFA_F_SECONDARY) ||
	    a->scope > RT_SCOPE_LINK)
		return 0;
	if (l->ifindex != sp->oif)
		return a->scope == RT_SCOPE_UNIVERSE ? 1 : 0;
	return addr4_match(a, sp->match) ? 3 : 2;
}

static void src4_consider(const struct rtmirror_link *l, void *arg)
{
	struct src4_pick *sp = arg;

	for (unsigned i = 0; i < l->naddr; i++) {
		uint32_t s = src4_score(sp, l, &l->addr[i]);

		if (s > sp->best) {
			sp->best = s;
			sp->src = l->addr[i].addr.v4;
		}
	}
}

int egress_source_select4(const struct rtmirror *m, uint32_t oif,
			  struct in_addr match, struct in_addr *src)
{
	struct src4_pick sp = { .match = ntohl(match.s_addr), .oif = oif };

	rtmirror_links_read(m, src4_consider, &sp);
	if (!sp.best)
		return -1;
	*src = sp.src;
	return 0;
}

int egress_icmp4_source(const struct rtmirror *m, uint32_t iif,
			struct in_addr dst, struct in_addr *src)
{
	struct in_addr match = dst;
	uint32_t oif = iif;
	struct egress e;

	if (egress_route(m, AF_INET, FIB_TABLE_UNSPEC, &dst, 0, &e) ==
	    EGRESS_OK && e.route) {
		if (e.route->fi->prefsrc_set) {
			*src = e.route->fi->prefsrc.v4;
			return 0;
		}
		if (e.nh && e.nh->oif) {
			oif = e.nh->oif;
			if (e.nh->gw_family == AF_INET)
				match = e.nh->gw.v4;
		}
	}
	return egress_source_select4(m, oif, match, src);
}
