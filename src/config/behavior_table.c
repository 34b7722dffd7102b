/* behavior_table.c - the SID behaviors, one row each (behavior_table.h). */
#include <string.h>

#include "behavior_table.h"

/* Flavors of End, End.X (RFC 8986 4.16, RFC 9800) and of End.T (no
 * NEXT-C-SID: RFC 9800 defines it for End and End.X only; REPLACE-C-SID
 * for End, End.X and End.T, 4.2.1-4.2.3). */
#define FLV_ALL		(FLV_PSP | FLV_USP | FLV_USD | FLV_NEXT_CSID | \
			 FLV_REPLACE_CSID)
#define FLV_NO_CSID	(FLV_PSP | FLV_USP | FLV_USD | FLV_REPLACE_CSID)
#define ATTR_FLAVORS	(SA_BIT(SA_FLAVORS) | SA_BIT(SA_LBLEN) | \
			 SA_BIT(SA_NFLEN))
#define ATTR_TABLES	(SA_BIT(SA_TABLE) | SA_BIT(SA_VRFTABLE))
#define DT_TABLE_WHY	"the table to look the inner packet up in"
#define DX_NH_WHY	"the next hop of the decapsulated packets"
/* SR proxies: the service's next hop on oif, the interface it sends
 * back on (iif); End.AS also the headers it pushes again. */
#define ATTR_PROXY	(SA_BIT(SA_NH6) | SA_BIT(SA_NH4) | SA_BIT(SA_OIF) | \
			 SA_BIT(SA_IIF))
#define REQ_PROXY	(SA_BIT(SA_OIF) | SA_BIT(SA_IIF))
#define REQ_STATIC	(REQ_PROXY | SA_BIT(SA_SOURCE) | SA_BIT(SA_SEGS))
#define PROXY_NH_WHY	"the service's address on oif"

static const struct behavior_desc behavior_table[BHV__COUNT] = {
	[BHV_END] = {			/* RFC 8986 4.1 */
		.name = "End",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_MAIN,
		.unmarked = true,
		.no_route = BHV_NOROUTE_KERNEL,
		.attrs = ATTR_FLAVORS,
		.flavors = FLV_ALL,
	},
	[BHV_END_X] = {			/* 4.2 */
		.name = "End.X",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_NEXTHOP,
		.setup = BHV_DEV4_USD | BHV_DEV6_TUN | BHV_RULE6,
		.no_route = BHV_NOROUTE_ICMP,
		.attrs = ATTR_FLAVORS | SA_BIT(SA_NH6) | SA_BIT(SA_OIF),
		.needs = SA_BIT(SA_NH6),
		.needs_why = "the adjacency's next hop",
		.flavors = FLV_ALL,
	},
	[BHV_END_T] = {			/* 4.3 */
		.name = "End.T",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_TABLE,
		.setup = BHV_DEV4_USD | BHV_DEV6_TUN | BHV_RULE6,
		.no_route = BHV_NOROUTE_ICMP,
		.attrs = ATTR_FLAVORS | SA_BIT(SA_TABLE),
		.needs = SA_BIT(SA_TABLE),
		.needs_why = "the table to look up",
		.flavors = FLV_NO_CSID,
	},
	[BHV_END_DX6] = {		/* 4.4 */
		.name = "End.DX6",
		.decap = BHV_DECAP_IPV6,
		.route = BHV_ROUTE_NEXTHOP,
		.setup = BHV_DEV6_TUN | BHV_RULE6,
		.no_route = BHV_NOROUTE_ICMP,
		.attrs = SA_BIT(SA_NH6) | SA_BIT(SA_OIF),
		.needs = SA_BIT(SA_NH6),
		.needs_why = DX_NH_WHY,
	},
	[BHV_END_DX4] = {		/* 4.5 */
		.name = "End.DX4",
		.decap = BHV_DECAP_IPV4,
		.route = BHV_ROUTE_NEXTHOP,
		.setup = BHV_DEV4,
		.no_route = BHV_NOROUTE_ICMP,
		.attrs = SA_BIT(SA_NH4) | SA_BIT(SA_OIF),
		.needs = SA_BIT(SA_NH4),
		.needs_why = DX_NH_WHY,
	},
	[BHV_END_DT6] = {		/* 4.6 */
		.name = "End.DT6",
		.decap = BHV_DECAP_IPV6,
		.route = BHV_ROUTE_TABLE,
		.setup = BHV_DEV6_TUN | BHV_RULE6 | BHV_RULE_UNREACHABLE,
		.no_route = BHV_NOROUTE_HANDOFF,
		.attrs = ATTR_TABLES,
		.needs = ATTR_TABLES,
		.needs_why = DT_TABLE_WHY,
	},
	[BHV_END_DT4] = {		/* 4.7 */
		.name = "End.DT4",
		.decap = BHV_DECAP_IPV4,
		.route = BHV_ROUTE_TABLE,
		.setup = BHV_DEV4 | BHV_RULE_UNREACHABLE,
		.no_route = BHV_NOROUTE_HANDOFF,
		.attrs = ATTR_TABLES,
		.needs = ATTR_TABLES,
		.needs_why = DT_TABLE_WHY,
	},
	[BHV_END_DT46] = {		/* 4.8 */
		.name = "End.DT46",
		.decap = BHV_DECAP_IP,
		.route = BHV_ROUTE_TABLE,
		.setup = BHV_DEV4 | BHV_DEV6_TUN | BHV_RULE6 |
			 BHV_RULE_UNREACHABLE,
		.no_route = BHV_NOROUTE_HANDOFF,
		.attrs = ATTR_TABLES,
		.needs = ATTR_TABLES,
		.needs_why = DT_TABLE_WHY,
	},
	[BHV_END_DX2] = {		/* 4.9 */
		.name = "End.DX2",
		.decap = BHV_DECAP_L2,
		.route = BHV_ROUTE_L2,
		.no_route = BHV_NOROUTE_NONE,
		.attrs = SA_BIT(SA_OIF),
		.needs = SA_BIT(SA_OIF),
		.needs_why = "the interface the inner frames leave by",
	},
	[BHV_END_B6] = {		/* Linux End.B6 (insertion) */
		.name = "End.B6",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_MAIN,
		.unmarked = true,
		.no_route = BHV_NOROUTE_KERNEL,
		.binding = true,
		.bsid_mode = ENCAP_MODE_INLINE,
	},
	[BHV_END_B6_ENCAPS] = {		/* 4.13 */
		.name = "End.B6.Encaps",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_MAIN,
		.unmarked = true,
		.no_route = BHV_NOROUTE_KERNEL,
		.binding = true,
		.bsid_mode = ENCAP_MODE_ENCAP,
	},
	[BHV_END_B6_ENCAPS_RED] = {	/* 4.14 */
		.name = "End.B6.Encaps.Red",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_MAIN,
		.unmarked = true,
		.no_route = BHV_NOROUTE_KERNEL,
		.binding = true,
		.bsid_mode = ENCAP_MODE_ENCAP_RED,
	},
	/* RFC 9433 (src/srv6/mobile.h): unmarked, like End, their results
	 * are routed by the kernel's main table. */
	[BHV_END_M_GTP6_D] = {		/* RFC 9433 6.3 */
		.name = "End.M.GTP6.D",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_MAIN,
		.unmarked = true,
		.no_route = BHV_NOROUTE_KERNEL,
		.binding = true,	/* its policy: srh segs ... */
		.bsid_mode = ENCAP_MODE_ENCAP,
	},
	[BHV_END_M_GTP6_DI] = {		/* RFC 9433 6.4 */
		.name = "End.M.GTP6.Di",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_MAIN,
		.unmarked = true,
		.no_route = BHV_NOROUTE_KERNEL,
		.binding = true,	/* its policy: srh segs ... */
		.bsid_mode = ENCAP_MODE_ENCAP,
	},
	[BHV_END_M_GTP6_E] = {		/* RFC 9433 6.5 */
		.name = "End.M.GTP6.E",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_MAIN,
		.unmarked = true,
		.no_route = BHV_NOROUTE_KERNEL,
		.attrs = SA_BIT(SA_SOURCE),	/* S04's S, optional */
	},
	[BHV_END_M_GTP4_E] = {		/* RFC 9433 6.6 */
		.name = "End.M.GTP4.E",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_MAIN,
		.unmarked = true,
		.no_route = BHV_NOROUTE_KERNEL,
		.attrs = SA_BIT(SA_V4SRC_POS),
		.needs = SA_BIT(SA_V4SRC_POS),
		.needs_why = "where the IPv6 source carries the IPv4 source",
	},
	/* draft-ietf-spring-sr-service-programming-10 6.1: to the service,
	 * the inner packet as End.DX6 / End.DX4 send theirs (by the mark to
	 * nh6 or nh4 on oif); back from it on iif, the configured IPv6
	 * header and SRH pushed, routed by the main table. */
	[BHV_END_AS] = {
		.name = "End.AS",
		.decap = BHV_DECAP_IPV6,
		.route = BHV_ROUTE_NEXTHOP,
		.setup = BHV_DEV6_TUN | BHV_RULE6,
		.no_route = BHV_NOROUTE_ICMP,
		.attrs = ATTR_PROXY | SA_BIT(SA_SOURCE) | SA_BIT(SA_SEGS),
		.needs = SA_BIT(SA_NH6) | SA_BIT(SA_NH4),
		.needs_why = PROXY_NH_WHY,
		.requires = REQ_STATIC,
		.proxy = BHV_PROXY_STATIC,
		.v4 = BHV_END_AS4,
	},
	[BHV_END_AS4] = {
		.name = "End.AS",
		.decap = BHV_DECAP_IPV4,
		.route = BHV_ROUTE_NEXTHOP,
		.setup = BHV_DEV4,
		.no_route = BHV_NOROUTE_ICMP,
		.attrs = ATTR_PROXY | SA_BIT(SA_SOURCE) | SA_BIT(SA_SEGS),
		.needs = SA_BIT(SA_NH6) | SA_BIT(SA_NH4),
		.needs_why = PROXY_NH_WHY,
		.requires = REQ_STATIC,
		.proxy = BHV_PROXY_STATIC,
		.alias = true,
	},
	/* 6.2: the same, with the headers learned from the last packet to
	 * the service (its IPv6 header and extension headers, SL
	 * decremented and the DA updated first). */
	[BHV_END_AD] = {
		.name = "End.AD",
		.decap = BHV_DECAP_IPV6,
		.route = BHV_ROUTE_NEXTHOP,
		.setup = BHV_DEV6_TUN | BHV_RULE6,
		.no_route = BHV_NOROUTE_ICMP,
		.attrs = ATTR_PROXY,
		.needs = SA_BIT(SA_NH6) | SA_BIT(SA_NH4),
		.needs_why = PROXY_NH_WHY,
		.requires = REQ_PROXY,
		.proxy = BHV_PROXY_DYNAMIC,
		.v4 = BHV_END_AD4,
	},
	[BHV_END_AD4] = {
		.name = "End.AD",
		.decap = BHV_DECAP_IPV4,
		.route = BHV_ROUTE_NEXTHOP,
		.setup = BHV_DEV4,
		.no_route = BHV_NOROUTE_ICMP,
		.attrs = ATTR_PROXY,
		.needs = SA_BIT(SA_NH6) | SA_BIT(SA_NH4),
		.needs_why = PROXY_NH_WHY,
		.requires = REQ_PROXY,
		.proxy = BHV_PROXY_DYNAMIC,
		.alias = true,
	},
	/* 6.4: the packet keeps its SRH, its DA is the last segment
	 * (SRH[0]) toward the service (nh6 on oif, as End.X); back on iif,
	 * SL decremented and SRH[SL] the DA again, routed by the main
	 * table. */
	[BHV_END_AM] = {
		.name = "End.AM",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_NEXTHOP,
		.setup = BHV_DEV6_TUN | BHV_RULE6,
		.no_route = BHV_NOROUTE_ICMP,
		.attrs = SA_BIT(SA_NH6) | SA_BIT(SA_OIF) | SA_BIT(SA_IIF),
		.needs = SA_BIT(SA_NH6),
		.needs_why = PROXY_NH_WHY,
		.requires = REQ_PROXY,
		.proxy = BHV_PROXY_MASQ,
	},
	[BHV_END_OP] = {		/* RFC 9259 (End.OP) */
		.name = "End.OP",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_MAIN,
		.unmarked = true,
		.no_route = BHV_NOROUTE_NONE,
		.oam_punt = true,
	},
	/* RFC 9433 6.2: the DA becomes the mapped SID (nh6), the SRH is
	 * left as it is; routed by the main table, as End's results. */
	[BHV_END_MAP] = {
		.name = "End.MAP",
		.decap = BHV_DECAP_NONE,
		.route = BHV_ROUTE_MAIN,
		.unmarked = true,
		.no_route = BHV_NOROUTE_KERNEL,
		.attrs = SA_BIT(SA_NH6),
		.needs = SA_BIT(SA_NH6),
		.needs_why = "the mapped SID the destination becomes",
	},
};

const struct behavior_desc *behavior_desc(enum behavior b)
{
	if ((unsigned)b >= BHV__COUNT || !behavior_table[b].name)
		return NULL;
	return &behavior_table[b];
}

const struct behavior_desc *behavior_desc_by_name(const char *name,
						  enum behavior *b)
{
	for (unsigned i = 0; i < BHV__COUNT; i++) {
		if (behavior_table[i].name && !behavior_table[i].alias &&
		    !strcmp(name, behavior_table[i].name)) {
			*b = (enum behavior)i;
			return &behavior_table[i];
		}
	}
	return NULL;
}

bool behavior_is_decap(enum behavior b)
{
	const struct behavior_desc *d = behavior_desc(b);

	return d && d->decap != BHV_DECAP_NONE;
}

bool behavior_is_binding(enum behavior b)
{
	const struct behavior_desc *d = behavior_desc(b);

	return d && d->binding;
}

enum behavior_route behavior_route_of(enum behavior b)
{
	const struct behavior_desc *d = behavior_desc(b);

	return d ? d->route : BHV_ROUTE_MAIN;
}

bool behavior_nexthop_is_v4(enum behavior b)
{
	const struct behavior_desc *d = behavior_desc(b);

	return d && d->route == BHV_ROUTE_NEXTHOP && d->decap == BHV_DECAP_IPV4;
}

bool behavior_has_dev4(enum behavior b, unsigned flavors)
{
	const struct behavior_desc *d = behavior_desc(b);

	return d && ((d->setup & BHV_DEV4) ||
		     ((d->setup & BHV_DEV4_USD) && (flavors & FLV_USD)));
}

bool behavior_has_dev6(enum behavior b)
{
	const struct behavior_desc *d = behavior_desc(b);

	return d && (d->setup & BHV_DEV6_TUN);
}

enum behavior_proxy behavior_proxy_of(enum behavior b)
{
	const struct behavior_desc *d = behavior_desc(b);

	return d ? d->proxy : BHV_PROXY_NONE;
}
