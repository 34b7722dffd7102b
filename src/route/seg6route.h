/* seg6route.h - the kernel's SRv6 routes in srv6d's terms.
 *
 * A seg6 encap route (`ip route add P encap seg6 mode M segs A,B dev X`,
 * LWTUNNEL_ENCAP_SEG6) is a steering policy; a seg6local route (`ip -6
 * route add SID encap seg6local action A ... dev X`,
 * LWTUNNEL_ENCAP_SEG6_LOCAL) is a SID.  seg6route_parse() reads one
 * rtnetlink route message into a struct seg6route: pure, no socket, no
 * state.  What srv6d cannot do as the kernel would (an action it lacks,
 * l2encap, an SRH it cannot reproduce) is parsed all the same, with the
 * reason in `unsupported`: it is reported and counted, never applied half.
 *
 * A struct seg6route_set holds the SRv6 routes the kernel has now, one
 * compact copy of each route message, keyed as the kernel keys routes
 * (family, table, prefix, tos, metric): the route mirror keeps it and the
 * daemon reads a snapshot of it (rtmirror.h).
 */
#ifndef SRV6D_SEG6ROUTE_H
#define SRV6D_SEG6ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct nlmsghdr;

enum seg6route_kind {
	SEG6ROUTE_POLICY,	/* seg6 encap: r->pol */
	SEG6ROUTE_SID,		/* seg6local: r->sid (a binding SID's
				 * policy in r->pol) */
};

struct seg6route {
	enum seg6route_kind kind;
	int family;		/* of the route: AF_INET6, or AF_INET (policy) */
	uint32_t table;		/* RTA_TABLE (rtm_table when absent) */
	uint32_t priority;	/* RTA_PRIORITY: the metric */
	uint8_t tos;
	uint32_t sid_oif;	/* SEG6_LOCAL_OIF's ifindex (0: none): the
				 * caller names it in sid.oif */
	/* NULL: srv6d can apply it; else why not (a static text). */
	const char *unsupported;
	struct sid sid;		/* SEG6ROUTE_SID: prefix, plen, behavior,
				 * flavors, lblen, nflen, nh6, nh4, table,
				 * vrf; line 0, ktable = table */
	struct policy pol;	/* SEG6ROUTE_POLICY, or a binding SID's:
				 * family, prefix, plen, mode, lists,
				 * weights, hmac_keyid; line 0, ktable */
};

/* Parse an RTM_NEWROUTE / RTM_DELROUTE message.  Returns 1 when the route
 * is an SRv6 one (r filled, r->unsupported set when srv6d cannot apply
 * it), 0 when it is not (no seg6 or seg6local encapsulation) or is
 * srv6d's own (protocol RTPROT_SRV6D: kernel-encap's and kernel-end's
 * routes, which `kernel-routes yes` neither takes in nor reports), -EINVAL
 * when the message is malformed. */
int seg6route_parse(const struct nlmsghdr *nlh, struct seg6route *r);

/* The kernel's SRv6 routes, by route key. */
struct seg6route_set;

/* An empty set, or NULL when memory runs out. */
struct seg6route_set *seg6route_set_new(void);

/* Free set and its entries (NULL is ignored). */
void seg6route_set_free(struct seg6route_set *set);

/* Apply a route message: an SRv6 RTM_NEWROUTE adds or replaces the entry
 * of its key (marked with gen); an RTM_DELROUTE, or an RTM_NEWROUTE that
 * is not SRv6 any more, removes it.  Returns 1 when the set changed, 0
 * when not (the same route again, or not an SRv6 route), -ENOMEM or
 * -EINVAL. */
int seg6route_set_apply(struct seg6route_set *set, const struct nlmsghdr *nlh,
			uint32_t gen);

/* Remove the entry of that route key, if any (what the kernel removes
 * without a message: rtmirror.c's purges).  dst: 4 or 16 bytes by
 * family.  Returns 1 when one was removed, else 0. */
int seg6route_set_remove(struct seg6route_set *set, int family, uint32_t table,
			 const void *dst, unsigned plen, uint8_t tos,
			 uint32_t priority);

/* Remove every entry whose gen is not gen (after a full dump).  Returns
 * how many were removed. */
size_t seg6route_set_sweep(struct seg6route_set *set, uint32_t gen);

/* Remove every entry (the same as a sweep of everything); returns how
 * many there were. */
size_t seg6route_set_clear(struct seg6route_set *set);

/* Number of entries. */
size_t seg6route_set_count(const struct seg6route_set *set);

/* A copy of every entry's message, in route key order (table, family,
 * prefix, length, tos, metric): *msgs[i] is a struct nlmsghdr.  The
 * caller frees with seg6route_snapshot_free().  Returns the count, or
 * -ENOMEM. */
long seg6route_set_snapshot(const struct seg6route_set *set,
			    struct nlmsghdr ***msgs);

void seg6route_snapshot_free(struct nlmsghdr **msgs, size_t n);

#endif
