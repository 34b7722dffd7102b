/* fib.h - forwarding tables for a full Internet table, read without locks.
 *
 * One struct fib_db holds every routing table (ids 1..2^32-1) of both
 * families.  A table is a multibit trie per family: a 16-bit root stride
 * then 8-bit strides (16-8-8 for IPv4, 16-8-...-8 for IPv6), with the
 * routes expanded into the slots (leaf pushing), so a lookup is one load per
 * level and no comparison.  Exact prefixes live in a per-table hash the
 * writer uses; readers never touch it.
 *
 * Concurrency: one writer thread (the route mirror) changes the db; any
 * number of readers (liburcu QSBR readers: the packet workers) look up at
 * the same time with no lock, no reference count and no write.  A change
 * stores each slot with one atomic pointer store; a node is published only
 * once complete; nothing a reader may hold is freed before fib_reclaim()
 * has waited for a grace period.  A returned route (and its info) stays
 * valid until the reader's next quiescent state.
 */
#ifndef SRV6D_FIB_H
#define SRV6D_FIB_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FIB_TABLE_UNSPEC	0	/* fib_route_get*(): local, main, default */
#define FIB_TABLE_DEFAULT	253
#define FIB_TABLE_MAIN		254
#define FIB_TABLE_LOCAL		255
#define FIB_MAX_NH		32	/* next hops per route kept */

union fib_addr {
	struct in_addr v4;
	struct in6_addr v6;
	uint8_t b[16];
};

/* One next hop.  weight is the kernel's rtnh_hops + 1 (1..256). */
struct fib_nexthop {
	union fib_addr gw;
	uint32_t oif;		/* ifindex, 0 if none */
	uint16_t weight;
	uint8_t gw_family;	/* AF_INET, AF_INET6 or AF_UNSPEC: no gateway */
	uint8_t flags;		/* RTNH_F_DEAD, RTNH_F_LINKDOWN, RTNH_F_ONLINK */
};

/* What routes share (the kernel's fib_info): immutable once published,
 * deduplicated, so a million routes via one interface share one. */
struct fib_info {
	union fib_addr prefsrc;
	uint32_t priority;	/* metric */
	uint32_t mtu;		/* RTAX_MTU, 0 when unset */
	uint8_t protocol;	/* RTPROT_* */
	uint8_t scope;		/* RT_SCOPE_* */
	uint8_t prefsrc_set;
	uint8_t nnh;
	/* writer only */
	uint32_t refcnt;
	uint32_t hash;
	struct fib_info *hnext;
	struct fib_nexthop nh[];
};

/* One route.  Immutable once published: a change publishes a new one. */
struct fib_route {
	union fib_addr dst;	/* masked */
	const struct fib_info *fi;
	uint32_t table;
	uint8_t family;		/* AF_INET, AF_INET6 */
	uint8_t plen;
	uint8_t type;		/* RTN_UNICAST, RTN_LOCAL, RTN_BLACKHOLE, ... */
	uint8_t tos;
	/* What the route encapsulates in, for its user (the route mirror:
	 * a kernel seg6 route's policy, kpolicy.h); NULL: nothing.  Held
	 * through fib_encap_ops while the route lives. */
	const void *encap;
	/* writer only */
	uint32_t gen;		/* resync generation that last saw it */
	uint32_t key_oif;	/* IPv6 single-path: its oif is in the key */
	struct fib_route *hnext;
};

/* What the writer passes to fib_route_add(): a route and its info. */
struct fib_route_spec {
	union fib_addr dst;	/* need not be masked */
	union fib_addr prefsrc;
	uint32_t table;
	uint32_t priority;
	uint32_t mtu;
	const void *encap;	/* NULL, or held by the route (fib_encap_ops) */
	uint8_t family, plen, type, tos, protocol, scope, prefsrc_set;
	uint8_t nnh;
	struct fib_nexthop nh[FIB_MAX_NH];
};

struct fib_db;
struct fib_table;

/* ---- writer side (one thread at a time) ---- */

/* Returns an empty db, or NULL on allocation failure. */
struct fib_db *fib_db_new(void);

/* Free everything at once.  No reader may still use the db.  The
 * routes' encaps are not put: their owner frees them. */
void fib_db_free(struct fib_db *db);

/* How routes hold what spec->encap points to: a route added with an
 * encap holds it (hold), a route freed after its grace period lets go
 * of it (put); equal tells whether a route's encap is that of a new spec
 * (the same route again: no change). */
struct fib_encap_ops {
	void (*hold)(void *arg, const void *encap);
	void (*put)(void *arg, const void *encap);
	bool (*equal)(const void *a, const void *b);
	/* A route with an encap entered the db (delta 1) or left it
	 * (delta -1: deleted, replaced, swept), writer side, when it
	 * happens (not after the grace period); NULL: not told. */
	void (*change)(void *arg, const struct fib_route *r, int delta);
	void *arg;
};

/* Set the db's encap ops (before any route with an encap is added). */
void fib_db_set_encap_ops(struct fib_db *db, const struct fib_encap_ops *ops);

/* Add, or replace the route with the same key (table, family, dst/plen,
 * tos, priority and, for an IPv6 route with one next hop, its oif: the
 * kernel keeps such IPv6 routes apart).  gen is stored in the route for fib_sweep().  Returns 0,
 * 1 if an identical route was only re-marked, -EINVAL on a bad prefix
 * length or family, -ENOMEM. */
int fib_route_add(struct fib_db *db, const struct fib_route_spec *spec,
		  uint32_t gen);

/* Writer side: the route with spec's key (as fib_route_add() keys it),
 * or NULL. */
const struct fib_route *fib_route_find(const struct fib_db *db,
				       const struct fib_route_spec *spec);

/* Delete the route with that key (spec's nexthops are ignored).  Returns 0
 * or -ESRCH if there is none. */
int fib_route_del(struct fib_db *db, const struct fib_route_spec *spec);

/* Delete every route with that key ignoring the IPv6 oif (an IPv6
 * NLM_F_REPLACE).  Returns how many. */
size_t fib_route_del_all(struct fib_db *db, const struct fib_route_spec *spec);

/* Delete every route with spec's key ignoring the IPv6 oif but for the
 * one with spec's oif: after fib_route_add() of an IPv6 NLM_F_REPLACE,
 * so that a reader always finds the old route or the new one.  Returns
 * how many. */
size_t fib_route_del_others(struct fib_db *db,
			    const struct fib_route_spec *spec);

/* Call fn for every route of every table (writer side: fn must not change
 * the db; collect and apply afterwards).  Stops and returns fn's value when
 * it is not 0; returns 0 otherwise. */
int fib_foreach(const struct fib_db *db,
		int (*fn)(const struct fib_route *r, void *arg), void *arg);

/* Delete every route whose gen differs from gen.  Returns how many. */
size_t fib_sweep(struct fib_db *db, uint32_t gen);

/* Wait for a grace period (synchronize_rcu) if anything was retired, then
 * free it.  Call from the writer thread, which must not be an online QSBR
 * reader.  Returns how many objects were freed. */
size_t fib_reclaim(struct fib_db *db);

/* Fill spec from an existing route (to change it and add it again). */
void fib_route_to_spec(const struct fib_route *r, struct fib_route_spec *spec);

/* Counts: routes of a family in a table (table 0: all tables), trie nodes
 * and bytes of memory held by the db. */
size_t fib_count(const struct fib_db *db, uint32_t table, int family);
size_t fib_memory(const struct fib_db *db);

/* The ids of the tables that exist, ascending, into ids (at most max).
 * Returns how many tables there are (may exceed max).  Reader side too. */
size_t fib_table_ids(const struct fib_db *db, uint32_t *ids, size_t max);

/* ---- reader side (any thread; QSBR readers) ---- */

/* The table with that id, or NULL.  Valid until the next quiescent state. */
const struct fib_table *fib_table_get(const struct fib_db *db, uint32_t id);

/* Longest-prefix match in one table, or NULL when no route covers addr. */
const struct fib_route *fib_lookup4(const struct fib_table *t,
				    struct in_addr addr);
const struct fib_route *fib_lookup6(const struct fib_table *t,
				    const struct in6_addr *addr);

/* As `ip route get` without policy rules: table FIB_TABLE_UNSPEC consults
 * local, main and default in that order (the kernel's default rules);
 * another id consults that table only.  Returns NULL if nothing matches. */
const struct fib_route *fib_route_get4(const struct fib_db *db,
				       uint32_t table, struct in_addr addr);
const struct fib_route *fib_route_get6(const struct fib_db *db,
				       uint32_t table,
				       const struct in6_addr *addr);

/* Pick a next hop of r for a flow hash (weighted; dead ones skipped).
 * Returns NULL if r has no live next hop. */
const struct fib_nexthop *fib_route_nexthop(const struct fib_route *r,
					    uint32_t flow_hash);

#endif
