/* rtmirror.h - the kernel's links, addresses and routes, mirrored over
 * rtnetlink into a struct fib_db that packet workers read without locks.
 *
 * One thread (rtmirror_start) owns the mirror: it subscribes to the link,
 * address, route, rule and next-hop object groups, then dumps everything
 * (objects before routes), then applies events.  A route that names a
 * next-hop object (RTA_NH_ID) is kept as its object's expansion
 * (nexthop.h): a single next hop, a group's members with their weights,
 * a blackhole route, the object's encapsulation; when an object changes
 * or goes, every route using it is resolved again here (the kernel does
 * not tell of them with nexthop_compat_mode 0, nor of IPv4 routes it
 * deletes with their object), and a link that goes down or loses its
 * carrier takes its objects as the kernel's nexthop_flush_dev() does.  Of the rules it keeps only `iif NAME lookup T` ones, to give
 * each link the table a packet it receives is looked up in.
 * A resync (start, ENOBUFS, an interrupted dump) marks every entry with a
 * new generation and sweeps those the dump did not refresh.  Resyncs are
 * rate-limited; until one completes the mirror says it is stale.  What the
 * kernel removes without telling (IPv4 routes via a link that goes down or
 * loses its last address, next hops marked dead) is purged here the same
 * way.
 *
 * Readers (QSBR-registered worker threads) use rtmirror_fib() with the
 * fib_lookup*() / fib_route_get*() functions of fib.h and
 * rtmirror_link_get(); what they get stays valid until their next
 * quiescent state.
 */
#ifndef SRV6D_RTMIRROR_H
#define SRV6D_RTMIRROR_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "fib.h"

struct nlmsghdr;
struct rtmirror;

#define RTMIRROR_MAX_ADDRS	64	/* addresses kept per link */

struct rtmirror_addr {
	union fib_addr addr;
	uint8_t family;
	uint8_t plen;
	uint8_t scope;
	uint8_t flags;		/* IFA_F_* (low byte) */
	uint32_t gen;		/* writer only */
};

/* A link and its addresses: immutable once published. */
struct rtmirror_link {
	uint32_t ifindex;
	uint32_t mtu;
	uint32_t flags;		/* IFF_* (IFF_UP, IFF_LOWER_UP, ...) */
	uint8_t operstate;	/* IF_OPER_* */
	char name[IFNAMSIZ];
	char kind[16];		/* IFLA_INFO_KIND, "" if none */
	uint32_t master;	/* IFLA_MASTER, 0 if none */
	uint8_t hwaddr[6];	/* IFLA_ADDRESS of an Ethernet link */
	bool has_hwaddr;	/* hwaddr is set (ARPHRD_ETHER) */
	uint32_t vrf_table;	/* kind "vrf": IFLA_VRF_TABLE, else 0 */
	/* The routing table the kernel looks up the destination of a
	 * packet received on this link in, per family: its VRF's table
	 * (the link is a VRF or enslaved to one), else the table of the
	 * first `ip rule iif NAME lookup T` of the family with no other
	 * selector, else main (rtmirror_iif_table()). */
	uint32_t table4, table6;
	uint32_t gen;		/* writer only */
	uint16_t naddr;
	struct rtmirror_addr addr[];
};

struct rtmirror_opts {
	int rcvbuf;			/* event socket buffer, bytes (0: 8 MiB) */
	unsigned resync_interval_ms;	/* minimum between resyncs (0: 1000) */
	bool seg6_routes;		/* keep the kernel's SRv6 routes too:
					 * seg6local ones in a set
					 * (rtmirror_seg6_*), seg6 encap
					 * ones' policies with their FIB
					 * routes (rtmirror_kpolicies()) */
	unsigned nworkers;		/* packet workers counting kernel
					 * policies' packets (0: 1) */
};

struct rtmirror_stats {
	uint64_t events;	/* event messages applied */
	uint64_t resyncs;	/* full dumps completed */
	uint64_t enobufs;	/* event socket overflows */
	uint64_t dump_restarts;	/* dumps interrupted (NLM_F_DUMP_INTR) */
	uint64_t purged;	/* routes removed or changed without a message */
	uint64_t swept;		/* entries removed by resync sweeps */
	uint64_t ignored;	/* cloned, redirect routes, rules that
				 * are not `iif NAME lookup T` */
	uint64_t errors;	/* messages we could not apply */
	uint64_t kpol_unsupported;	/* seg6 encap routes srv6d cannot
					 * apply (the kernel's applies) */
	uint64_t last_sync_ns;	/* duration of the last full dump */
	int last_error;		/* errno of the last failure, 0 if none */
	bool stale;		/* events were lost and no resync has completed */
	bool synced;		/* at least one resync completed */
};

/* A mirror with no socket (tests feed it with rtmirror_apply()).  opts may
 * be NULL.  Returns NULL on allocation failure. */
struct rtmirror *rtmirror_new(const struct rtmirror_opts *opts);

/* Stop the thread if running and free everything.  No reader may still
 * use the mirror. */
void rtmirror_free(struct rtmirror *m);

/* Open the dump socket and the event socket, subscribed: events queue
 * from now on.  Call rtmirror_resync() next.  Returns 0 or -errno. */
int rtmirror_open(struct rtmirror *m);

/* Dump links, addresses, next-hop objects, routes and rules and sweep
 * what the dump did not show.
 * Returns 0 or -errno (the mirror stays stale). */
int rtmirror_resync(struct rtmirror *m);

/* Read and apply every event waiting on the event socket without blocking;
 * on ENOBUFS drain, count and resync (now or once the rate limit allows).
 * Returns the number of messages applied, or -errno. */
int rtmirror_poll_events(struct rtmirror *m);

/* Open, then start the mirror's thread, which resyncs and then applies
 * events until rtmirror_stop().  Returns 0 or -errno (socket errors). */
int rtmirror_start(struct rtmirror *m);

/* Stop and join the thread (the mirror keeps its last state). */
void rtmirror_stop(struct rtmirror *m);

/* Apply one rtnetlink message (RTM_NEW/DEL LINK, ADDR, ROUTE, RULE,
 * NEXTHOP) as an event.
 * Writer side.  Returns 0, 1 if it was ignored on purpose, or -errno
 * (-ENOENT: a route naming an object the mirror does not have). */
int rtmirror_apply(struct rtmirror *m, const struct nlmsghdr *nlh);

/* Apply msgs[0..n-1] as one complete resync's dump (a new generation,
 * each message as the dump's, then the sweep of what it did not show):
 * rtmirror_resync() without a socket, for tests.  Writer side.  What
 * cannot be applied is counted (stats errors, ignored). */
void rtmirror_dump_apply(struct rtmirror *m,
			 const struct nlmsghdr *const *msgs, size_t n);

/* Free what updates retired, after a grace period (writer side; the
 * thread does it after each batch). */
void rtmirror_reclaim(struct rtmirror *m);

/* The routes (reader side: see fib.h). */
const struct fib_db *rtmirror_fib(const struct rtmirror *m);

/* The link with that index, or NULL.  Reader side. */
const struct rtmirror_link *rtmirror_link_get(const struct rtmirror *m,
					      uint32_t ifindex);

/* The routing table a packet of family (AF_INET, AF_INET6) received on
 * link ifindex is looked up in (struct rtmirror_link's table4/table6);
 * RT_TABLE_MAIN (254) for a link the mirror does not know.  Reader side:
 * one lookup in the link table, no lock. */
uint32_t rtmirror_iif_table(const struct rtmirror *m, uint32_t ifindex,
			    int family);

/* True if the link exists, is administratively up and has carrier. */
bool rtmirror_link_usable(const struct rtmirror *m, uint32_t ifindex);

/* Counters (any thread; each value read atomically). */
void rtmirror_get_stats(const struct rtmirror *m, struct rtmirror_stats *st);

/* Reader side: call fn for every link of one consistent snapshot of the
 * link table (a QSBR reader, online; fn must not block). */
void rtmirror_links_read(const struct rtmirror *m,
			 void (*fn)(const struct rtmirror_link *l, void *arg),
			 void *arg);

/* Reader side: a number that changes whenever any link or address changes
 * (each published link table has a new one); 0 before the first link.
 * For caches of what is derived from links and addresses. */
uint64_t rtmirror_links_version(const struct rtmirror *m);

struct kpolicy_db;

/* With opts.seg6_routes: the policies of the kernel's seg6 encap routes
 * (kpolicy.h), each also the encap of its FIB route; NULL without.  A
 * route's policy steers packets whose longest-prefix route in that table
 * it is (srv6d.conf(5) kernel-routes).  Reader side. */
const struct kpolicy_db *rtmirror_kpolicies(const struct rtmirror *m);

/* With opts.seg6_routes: an eventfd that becomes readable (a count to
 * read and discard) whenever the set of the kernel's seg6local routes
 * (seg6route.h) has changed; -1 without. */
int rtmirror_seg6_fd(const struct rtmirror *m);

/* A seg6 encap route of the FIB that came (delta 1) or went (-1). */
struct rtmirror_kroute {
	uint8_t family;		/* AF_INET6, AF_INET */
	uint8_t plen;
	int8_t delta;
	uint8_t pad;
	uint32_t table;
	uint8_t addr[16];	/* masked; 4 bytes for AF_INET */
};

/* With opts.seg6_routes: an eventfd that becomes readable when a seg6
 * encap route came or went since the last rtmirror_kroutes_take(); -1
 * without. */
int rtmirror_kroutes_fd(const struct rtmirror *m);

/* Any thread: the seg6 encap routes that came and went since the last
 * call, in their order, into *list (free() it); *lost true when some
 * could not be recorded (out of memory).  Returns the count. */
size_t rtmirror_kroutes_take(struct rtmirror *m,
			     struct rtmirror_kroute **list, bool *lost);

/* An eventfd that becomes readable (a count to read and discard)
 * whenever a link appears, goes, is set up or down (IFF_UP), changes
 * its name or the table its packets are looked up in (an iif rule came
 * or went; not when its carrier, MTU or addresses change), from the
 * first dump on: the daemon then looks again for the links its SIDs name
 * (struct sid_marks' oif_index). */
int rtmirror_links_fd(const struct rtmirror *m);

/* Any thread: a copy of the kernel's seg6local route messages now (seg6
 * encap routes are not in it: rtmirror_kpolicies()), in route
 * key order (seg6route_set_snapshot(); free with
 * seg6route_snapshot_free()).  Returns the count (0 without
 * opts.seg6_routes), or -ENOMEM. */
long rtmirror_seg6_snapshot(struct rtmirror *m, struct nlmsghdr ***msgs);

#endif
