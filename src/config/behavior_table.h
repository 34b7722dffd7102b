/* behavior_table.h - one row per SID behavior: everything the rest of srv6d
 * needs to know about it, so that nobody else switches on `enum behavior`.
 *
 * The row says what the behavior is called (srv6d.conf(5)), what comes
 * out of it and how that result is routed back in the kernel (reinject.c),
 * which devices and ip rules the daemon sets up for it (rtrules.c), which
 * attributes its sid line needs and takes (config.c), and what it does
 * when the route mirror has no route for its result.  The function that
 * runs it is the packet path's, above this table (src/srv6/dispatch.c).
 * Adding a behavior is one row here, its function and its entry in
 * dispatch.c.
 */
#ifndef SRV6D_BEHAVIOR_TABLE_H
#define SRV6D_BEHAVIOR_TABLE_H

#include <stdbool.h>

enum behavior {
	BHV_END,
	BHV_END_X,
	BHV_END_T,
	BHV_END_DX6,		/* RFC 8986 4.4 */
	BHV_END_DX4,		/* 4.5 */
	BHV_END_DT6,		/* 4.6 */
	BHV_END_DT4,		/* 4.7 */
	BHV_END_DT46,		/* 4.8 */
	BHV_END_DX2,		/* 4.9 */
	BHV_END_B6,		/* binding SID, insertion (Linux End.B6) */
	BHV_END_B6_ENCAPS,	/* 4.13 */
	BHV_END_B6_ENCAPS_RED,	/* 4.14 */
	BHV_END_M_GTP6_D,	/* RFC 9433 6.3 (src/srv6/mobile.h) */
	BHV_END_M_GTP6_DI,	/* RFC 9433 6.4 (drop-in mode) */
	BHV_END_M_GTP6_E,	/* RFC 9433 6.5 */
	BHV_END_M_GTP4_E,	/* RFC 9433 6.6 */
	/* SR proxies (draft-ietf-spring-sr-service-programming-10 6):
	 * one row per inner type; srv6d.conf names the IPv6 one, `nh4`
	 * picks the IPv4 one (its row's `v4`) */
	BHV_END_AS,		/* 6.1 static proxy, inner IPv6 (nh6) */
	BHV_END_AS4,		/* 6.1, inner IPv4 (nh4) */
	BHV_END_AD,		/* 6.2 dynamic proxy, inner IPv6 */
	BHV_END_AD4,		/* 6.2, inner IPv4 */
	BHV_END_AM,		/* 6.4 masquerading proxy */
	BHV_END_OP,		/* OAM Endpoint with Punt (RFC 9259, oam.h) */
	BHV_END_MAP,		/* RFC 9433 6.2, SID mapping */
	BHV__COUNT
};

/* The attributes a sid line may carry after `action BEHAVIOR` (srv6d.conf(5));
 * the behavior table (behavior_table.h) says which each behavior takes. */
enum sid_attr { SA_FLAVORS, SA_LBLEN, SA_NFLEN, SA_NH6, SA_NH4, SA_OIF,
		SA_TABLE, SA_VRFTABLE, SA_V4SRC_POS,
		SA_IIF, SA_SOURCE, SA_SEGS,	/* SR proxies */
		SA__COUNT };

#define SA_BIT(a)	(1u << (a))

/* Flavors (RFC 8986 4.16, RFC 9800), a bit set. */
#define FLV_PSP		0x1u
#define FLV_USP		0x2u
#define FLV_USD		0x4u
#define FLV_NEXT_CSID	0x8u
#define FLV_REPLACE_CSID	0x10u	/* RFC 9800 4.2 */

enum encap_mode {
	ENCAP_MODE_ENCAP,	/* H.Encaps */
	ENCAP_MODE_ENCAP_RED,	/* H.Encaps.Red */
	ENCAP_MODE_INLINE,	/* H.Insert */
	ENCAP_MODE_INLINE_RED,	/* H.Insert.Red */
};

/* A SID's behavior decapsulates (RFC 8986 4.4-4.9): its row in the
 * behavior table (behavior_table.h) says so.  False out of range. */
bool behavior_is_decap(enum behavior b);

/* A binding SID (the SID carries a policy).  False out of range. */
bool behavior_is_binding(enum behavior b);


/* What the behavior decapsulates to: the upper-layer header it takes
 * (RFC 8986 4.4-4.9); NONE keeps the packet (End, End.X, End.T: only the
 * USD flavor decapsulates, either family, RFC 8986 4.16.3). */
enum behavior_decap {
	BHV_DECAP_NONE,
	BHV_DECAP_IPV6,		/* next header 41 */
	BHV_DECAP_IPV4,		/* 4 */
	BHV_DECAP_IP,		/* 41 or 4 */
	BHV_DECAP_L2,		/* 143, an Ethernet frame */
};

/* How its result is routed. */
enum behavior_route {
	BHV_ROUTE_MAIN,		/* unmarked: the main table (End, bindings) */
	BHV_ROUTE_NEXTHOP,	/* the SID's mark -> the daemon's own table
				 * (sid->route_table) with a default route via
				 * nh6/nh4 (End.X, End.DX6, End.DX4) */
	BHV_ROUTE_TABLE,	/* the SID's mark -> sid->table (End.T,
				 * End.DT*) */
	BHV_ROUTE_L2,		/* the frame out of sid->oif (End.DX2) */
};

/* Devices and rules the daemon sets up for a SID (rtrules.c), a bit set.
 * A marked result that the verdict cannot carry (an IPv4 result of the
 * IPv6 hook; an IPv6 result that may not go as a payload: rs->payload)
 * enters the kernel through srv6d's reinjection device with the SID's
 * mark as SO_MARK (a VRF SID's: its own veth pair, where an iif rule does
 * what the mark would). */
#define BHV_DEV4	0x1u	/* a device for its IPv4 results */
#define BHV_DEV4_USD	0x2u	/* the same with the USD flavor */
#define BHV_DEV6_TUN	0x4u	/* payload-free: a device for its
				 * IPv6 results */
#define BHV_RULE6	0x8u	/* an IPv6 fwmark rule to its table */
#define BHV_RULE_UNREACHABLE	0x10u	/* an `unreachable` rule right after
					 * each of its table's rules: a miss
					 * must not reach the main table */

/* An SR proxy (draft-ietf-spring-sr-service-programming-10 6): what it
 * does with the packets that come back from the service on its `iif`
 * (src/srv6/behavior_proxy.h). */
enum behavior_proxy {
	BHV_PROXY_NONE,
	BHV_PROXY_STATIC,	/* End.AS: the configured headers pushed */
	BHV_PROXY_DYNAMIC,	/* End.AD: the headers learned pushed */
	BHV_PROXY_MASQ,		/* End.AM: SRH[SL] back as the DA */
};

/* What it does when the route mirror has no route for its result. */
enum behavior_noroute {
	BHV_NOROUTE_KERNEL,	/* no check: the kernel routes it (main) */
	BHV_NOROUTE_ICMP,	/* ICMPv6 Destination Unreachable to the
				 * source (behavior_unreachable()) */
	BHV_NOROUTE_HANDOFF,	/* counted as DROP_NO_ROUTE and handed, with
				 * its mark, to the `unreachable` rule: the
				 * kernel answers (End.DT*) */
	BHV_NOROUTE_NONE,	/* no route to look up (End.DX2) */
};

struct behavior_desc {
	const char *name;		/* "End.DT6": srv6d.conf(5) */
	enum behavior_decap decap;
	enum behavior_route route;
	unsigned setup;			/* BHV_DEV*, BHV_RULE* */
	bool unmarked;			/* its results carry no mark (End):
					 * the SID gets none */
	enum behavior_noroute no_route;
	/* The sid line: attributes it takes (SA_BIT()), the ones of which
	 * it needs exactly one (0: none), and why (for the message). */
	unsigned attrs;
	unsigned needs;
	const char *needs_why;
	unsigned flavors;		/* FLV_* it takes */
	/* A binding SID: its line is `srh segs ...`, its policy's mode. */
	bool binding;
	enum encap_mode bsid_mode;
	/* The sid line's attributes it needs all of (SR proxies). */
	unsigned requires;
	enum behavior_proxy proxy;
	/* The row of the same name for an inner IPv4 packet (`nh4`): the
	 * parser takes it for a line with nh4 (0: none).  That row is an
	 * alias: it is never looked up by name nor listed. */
	enum behavior v4;
	bool alias;
	/* The packet goes to the OAM process (End.OP, src/srv6/oam.h):
	 * the sid line needs `oam-copy`, and an O-flag at this SID makes
	 * no copy besides the punt. */
	bool oam_punt;
};

/* The SR proxy kind of behavior b (BHV_PROXY_NONE out of range). */
enum behavior_proxy behavior_proxy_of(enum behavior b);

/* The row of behavior b, or NULL when b is out of range. */
const struct behavior_desc *behavior_desc(enum behavior b);

/* The row of the behavior called `name` (srv6d.conf(5)); NULL if none. */
const struct behavior_desc *behavior_desc_by_name(const char *name,
						  enum behavior *b);

/* The IPv4 results of a SID of behavior b with `flavors` enter the
 * kernel through a device (BHV_DEV4, or BHV_DEV4_USD with FLV_USD). */
bool behavior_has_dev4(enum behavior b, unsigned flavors);

/* The payload-free IPv6 results of a SID of behavior b enter the
 * kernel through a device (BHV_DEV6_TUN). */
bool behavior_has_dev6(enum behavior b);

/* How results of behavior b are routed (BHV_ROUTE_MAIN out of range). */
enum behavior_route behavior_route_of(enum behavior b);

/* Behavior b leaves by a next hop (BHV_ROUTE_NEXTHOP) that is IPv4 (nh4:
 * its results are IPv4, End.DX4); false for IPv6 next hops (nh6). */
bool behavior_nexthop_is_v4(enum behavior b);

/* The SID's results are routed by its mark (an ip rule). */
static inline bool behavior_routes_by_mark(const struct behavior_desc *d)
{
	return d->route == BHV_ROUTE_NEXTHOP || d->route == BHV_ROUTE_TABLE;
}

#endif
