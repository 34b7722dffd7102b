/* egress.h - what the packet path asks the route mirror (rtmirror.h):
 * where a destination leaves (route, next hop, link, MTU), whether a
 * SID's next hop is reachable, and which source address the kernel would
 * give an encapsulation.
 *
 * Every function here is a QSBR reader of the mirror: no lock, no
 * reference, no syscall, no write to shared memory.  What it returns is
 * valid until the worker's next quiescent state (the end of the batch).
 */
#ifndef SRV6D_EGRESS_H
#define SRV6D_EGRESS_H

#include <netinet/in.h>
#include <stdint.h>

#include "config.h"
#include "fib.h"
#include "rtmirror.h"
#include "rtrules.h"
#include "stats.h"

/* ICMPv6 Destination Unreachable codes (RFC 4443 3.1) for what a route
 * check finds (icmp.h has the types). */
#ifndef ICMP6_C_NO_ROUTE
#define ICMP6_C_NO_ROUTE	0	/* no route to destination */
#define ICMP6_C_ADDR_UNREACH	3	/* address unreachable */
#endif
#ifndef ICMP4_C_NET_UNREACH
#define ICMP4_C_NET_UNREACH	0	/* RFC 792 net unreachable */
#endif

/* egress_*() succeeded: no drop reason. */
#define EGRESS_OK	DROP__COUNT

struct egress {
	const struct fib_route *route;
	const struct fib_nexthop *nh;		/* NULL: not a unicast route */
	const struct rtmirror_link *link;	/* nh's link, NULL if unknown */
	uint32_t mtu;	/* route MTU metric, else the link's; 0: unknown */
};

/* Route dst (AF_INET: the first 4 bytes of addr) in `table`
 * (FIB_TABLE_UNSPEC: local, main, default, as the kernel's default rules)
 * and pick the next hop for flow_hash.  Returns EGRESS_OK with *e filled
 * (a local or other non-unicast route: e->nh NULL, e->mtu 0), or
 * DROP_NO_TABLE (table given and absent), DROP_NO_ROUTE (no route, or a
 * blackhole, unreachable or prohibit one), DROP_NEXTHOP_UNREACHABLE (no
 * live next hop, or its link down). */
enum drop_reason egress_route(const struct rtmirror *m, int family,
			      uint32_t table, const void *addr,
			      uint32_t flow_hash, struct egress *e);

/* The next hop of End.X / End.DX6 / End.DX4 `sid` (nh6 or nh4): with an
 * oif, that link (its oif_index in rt, the SIDs' struct sid_runtime,
 * rtrules.h; NULL: unknown) must be up with carrier; without, the main
 * tables' route to the next hop must exist and its link be usable, and
 * the SID's own route must not wait for one (its route_pending: no route
 * to the next hop when it was installed; DROP_NO_ROUTE meanwhile).
 * Returns EGRESS_OK or the drop reason as egress_route(). */
enum drop_reason egress_nexthop_check(const struct rtmirror *m,
				      const struct sid *sid,
				      const struct sid_runtime *rt);

/* Whether the kernel would take the next hop of End.X / End.DX6 /
 * End.DX4 `sid` without oif as a gateway now: the main tables reach it
 * by a usable route without a gateway of its own (a connected one; the
 * kernel resolves no gateway through another). */
bool egress_nexthop_connected(const struct rtmirror *m,
			      const struct sid *sid);

/* RFC 6724 source selection, reduced to what matters for an SRv6 outer
 * header: among the IPv6 addresses of every link (not tentative, not
 * failed DAD), prefer (1) the scope of dst, (2) not deprecated, (3) on the
 * egress link `oif`, (4) the longest prefix shared with dst.  Returns 0
 * with *src set, or -1 when there is no candidate. */
int egress_source_select(const struct rtmirror *m, uint32_t oif,
			 const struct in6_addr *dst, struct in6_addr *src);

/* The source of an ICMPv6 error this node sends to dst (the invoking
 * packet's source) about a packet that was not addressed to it (a steered
 * packet at a headend), received on link iif (0: unknown): as the
 * kernel's icmp6_send() picks one for an address that is not its own,
 * the preferred source of the route to dst, else egress_source_select()
 * on that route's link (iif when the mirror has no route).  Returns 0
 * with *src set, or -1 when the node has no candidate. */
int egress_icmp6_source(const struct rtmirror *m, uint32_t iif,
			const struct in6_addr *dst, struct in6_addr *src);

/* The IPv4 source the kernel's inet_select_addr() gives link oif toward
 * `match` (the next hop, else the destination): a primary address (not
 * host scope) of oif, one in the subnet of match first, else any
 * universe-scope IPv4 address of the node.  Returns 0 with *src set, or
 * -1 when there is none. */
int egress_source_select4(const struct rtmirror *m, uint32_t oif,
			  struct in_addr match, struct in_addr *src);

/* The same for ICMP, as the kernel's __icmp_send() does for a forwarded
 * packet: the preferred source of the route to dst, else a primary
 * address (not host scope) of the route's link (iif when the mirror has
 * no route; so rp_filter on that link accepts it), one in the subnet of
 * the next hop (or of dst) first, else any universe-scope IPv4 address of
 * the node.  Returns 0 with *src set, or -1 when there is none. */
int egress_icmp4_source(const struct rtmirror *m, uint32_t iif,
			struct in_addr dst, struct in_addr *src);

#endif
