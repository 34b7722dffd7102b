/* nexthop.h - the kernel's next-hop objects (`ip nexthop`, RTM_NEWNEXTHOP)
 * and the routes that use them (RTA_NH_ID) in the form the rest of the
 * route mirror reads.
 *
 * A struct nexthop_table holds every object by id: a single next hop
 * (family, gateway, oif, flags, an encapsulation: NHA_ENCAP_TYPE and the
 * attributes of NHA_ENCAP as they came), a blackhole, or a group of ids
 * with weights.  nexthop_route_expand() rewrites a route message that
 * names an object into the message the kernel would send for the same
 * route written without one: RTA_OIF/RTA_GATEWAY/RTA_VIA and the encap
 * for a single next hop, RTA_MULTIPATH with each member's weight for a
 * group, rtm_type RTN_BLACKHOLE for a blackhole.  What the kernel's
 * nexthop_compat_mode adds to the message (the same next hops, expanded
 * by the kernel) is dropped first: the table is the one truth, so a
 * route reads the same with compat mode on or off.
 *
 * Pure: no socket, no thread.  The route mirror's writer owns it.
 */
#ifndef SRV6D_NEXTHOP_H
#define SRV6D_NEXTHOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fib.h"

struct nlmsghdr;

#define NEXTHOP_GROUP_MAX	FIB_MAX_NH	/* members kept per group */

struct nexthop_member {
	uint32_t id;
	uint16_t weight;	/* 1..256: struct nexthop_grp's weight + 1 */
};

struct nexthop_obj {
	uint32_t id;
	uint32_t gen;		/* resync generation that last saw it */
	uint8_t family;		/* nhmsg's: AF_INET, AF_INET6, AF_UNSPEC */
	uint8_t gw_family;	/* AF_UNSPEC: no gateway */
	uint8_t flags;		/* RTNH_F_DEAD, RTNH_F_LINKDOWN, RTNH_F_ONLINK */
	bool blackhole;
	bool fdb;		/* NHA_FDB: for VXLAN, no route uses it */
	union fib_addr gw;
	uint32_t oif;
	uint16_t encap_type;	/* LWTUNNEL_ENCAP_*, 0: none */
	uint16_t encap_len;
	uint8_t *encap;		/* NHA_ENCAP's payload (nested attributes) */
	uint16_t ngroup;	/* > 0: a group of these members */
	struct nexthop_member group[NEXTHOP_GROUP_MAX];
};

struct nexthop_table;

/* An empty table, or NULL when memory runs out. */
struct nexthop_table *nexthop_table_new(void);

/* Free t and its objects (NULL is ignored). */
void nexthop_table_free(struct nexthop_table *t);

/* Parse an RTM_NEWNEXTHOP / RTM_DELNEXTHOP message into o (o->encap
 * points into nlh).  Returns 0, or -EINVAL when it is malformed (no
 * NHA_ID, a bad group or gateway). */
int nexthop_parse(const struct nlmsghdr *nlh, struct nexthop_obj *o);

/* Apply a message: RTM_NEWNEXTHOP adds or replaces the object of its id
 * (marked with gen), RTM_DELNEXTHOP removes it.  *id: the object's id.
 * Returns 1 when the table changed, 0 when not (the same object again,
 * or the removal of one it does not have), -EINVAL or -ENOMEM. */
int nexthop_table_apply(struct nexthop_table *t, const struct nlmsghdr *nlh,
			uint32_t gen, uint32_t *id);

/* Remove the object id (what the kernel removes without a message).
 * Returns 1 when there was one, else 0. */
int nexthop_table_remove(struct nexthop_table *t, uint32_t id);

/* The object id, or NULL. */
const struct nexthop_obj *nexthop_table_get(const struct nexthop_table *t,
					    uint32_t id);

/* The ids of up to max objects that fn(o, arg) says yes to, into ids.
 * Returns how many there are (may exceed max). */
size_t nexthop_table_select(const struct nexthop_table *t,
			    bool (*fn)(const struct nexthop_obj *o, void *arg),
			    void *arg, uint32_t *ids, size_t max);

/* Number of objects. */
size_t nexthop_table_count(const struct nexthop_table *t);

/* True if a route naming object nhid depends on object id: nhid is id,
 * or a group with id among its members. */
bool nexthop_depends(const struct nexthop_table *t, uint32_t nhid,
		     uint32_t id);

/* Remove id from every group that has it; a group left empty is removed
 * too (as the kernel does).  Returns how many groups changed. */
size_t nexthop_table_unlink_member(struct nexthop_table *t, uint32_t id);

/* Write into buf (len bytes) route message nlh with its RTA_NH_ID
 * resolved against t (see above); nlh's type and flags are kept.
 * Returns the new message, or NULL with *err: -ENOENT (the object, or
 * every member of its group, is unknown: the kernel would not have the
 * route), -ENOSPC (buf too small), -EINVAL (no RTA_NH_ID, an fdb
 * object, a malformed message). */
struct nlmsghdr *nexthop_route_expand(const struct nexthop_table *t,
				      const struct nlmsghdr *nlh, void *buf,
				      size_t len, int *err);

/* The RTA_NH_ID of a route message, 0 when it has none. */
uint32_t nexthop_route_id(const struct nlmsghdr *nlh);

#endif
