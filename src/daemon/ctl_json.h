/* ctl_json.h - the JSON documents srv6d's control socket answers with
 * (schemas in srv6ctl(8)): STATUS, SIDS, POLICIES, STATS, ROUTES,
 * ROUTE_GET, and the kernel's view of the queues they show.  Each reads
 * what it is given (the route mirror as an online QSBR reader) and builds
 * a new document; none writes anything else.
 */
#ifndef SRV6D_CTL_JSON_H
#define SRV6D_CTL_JSON_H

#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "config.h"
#include "markguard.h"
#include "markprobe.h"
#include "runstate.h"
#include "ctl_proto.h"
#include "rtmirror.h"
#include "stats.h"
#include "steer.h"

/* A line of /proc/net/netfilter/nfnetlink_queue (the kernel's
 * nfnetlink_queue.c seq_show(): "%5u %6u %5u %1u %5u %5u %5u %8u %2d"). */
struct ctl_nfq_queue {
	unsigned queue;
	uint32_t portid;		/* netlink port id of the bound socket */
	unsigned waiting;		/* packets waiting for a verdict */
	unsigned copy_mode, copy_range;
	uint64_t queue_dropped;		/* dropped by the kernel: queue full */
	uint64_t user_dropped;		/* dropped by the kernel: socket full */
	uint32_t id_sequence;		/* last packet id */
};

/* Parse one line of CTL_NFQ_PROC.  Returns 0, or -1 if it is not one. */
int ctl_nfq_parse_line(const char *line, struct ctl_nfq_queue *q);

/* Read the lines of path (CTL_NFQ_PROC) into q (at most max).  Returns
 * how many, or -1 with errno set when the file cannot be read. */
int ctl_nfq_read(const char *path, struct ctl_nfq_queue *q, unsigned max);

/* `kernel-routes yes`: what became of the kernel's SRv6 routes at the
 * last rebuild (the daemon's counts; srv6ctl(8) "kernel_routes"). */
struct ctl_kroutes {
	bool enabled;
	uint64_t routes;	/* SRv6 routes in the kernel */
	uint64_t applied;	/* srv6d's SIDs and policies now */
	uint64_t shadowed;	/* srv6d.conf or an earlier route wins */
	uint64_t refused;	/* alone fine, not in this config */
	uint64_t unsupported;	/* what srv6d cannot do */
	uint64_t other_table;	/* seg6local routes outside main */
	uint64_t rebuilds, rebuild_failures;
	uint64_t last_rebuild_us;	/* the last one's duration */
};

/* Everything a STATUS or STATS reply shows; the arrays are the caller's. */
struct ctl_status_src {
	pid_t pid;
	uint64_t uptime;		/* seconds */
	const char *config_path;
	int64_t config_loaded;		/* Unix time of the last good load */
	uint64_t reloads;		/* successful reloads */
	uint64_t reload_failures;	/* refused reloads */
	int64_t cleared;		/* Unix time of srv6ctl clear, 0: never */
	unsigned nworkers;
	const unsigned *queues;		/* queue number of worker i */
	/* worker i's header queue as bound (engine_worker_hqueue()), -1
	 * none; NULL: none is shown.  cfg's `header-queue` may differ after
	 * a reload: what is bound is what is served. */
	const long *hqueues;
	uint32_t hqueue_copy;		/* their copy range as bound */
	const struct worker_stats *workers;	/* nworkers entries */
	const struct worker_stats *totals;
	const struct config *cfg;
	const struct runstate *rs;	/* cfg's (NULL: marks, payload and
					 * the kernel's part not shown) */
	const struct sid_stats *sids;	/* cfg->nsids entries */
	const struct sid_stats *pols;	/* cfg->npolicies entries */
	/* The route mirror (NULL: none; "mirror" is null).  The documents
	 * that read it must be built by an online QSBR reader thread. */
	const struct rtmirror *mirror;
	const struct ctl_kroutes *kroutes;	/* NULL: "kernel_routes" null */
	const struct steer_status *steering;	/* NULL: "steering" null */
	/* srv6d's objects made again after they went away (rtwatch.h's
	 * RTWATCH_NKINDS entries; NULL: "repairs" null). */
	const uint64_t *repairs;
	uint64_t repair_failures, last_repair_us;
	/* kernel-encap by the kernel's tunsrc: the encapsulations held back
	 * because it changed under srv6d, and what it is (last polled). */
	bool kencap_held;
	struct in6_addr kernel_tunsrc;
	/* kernel-end's catch (markguard.h): its hand-off held back now,
	 * the packets the catch rules took since start, and the holds; the
	 * packets the steering guard gave their SID's mark back (steer.h
	 * G0K). */
	bool kend_held;
	uint64_t kend_caught, kend_holds, kend_restored;
	/* kernel-encap's catch (markguard.h): held back by the guard's
	 * counters, the packets they counted since start, the holds; how
	 * it is watched (or why not; NULL: ""); the packets that reached it
	 * with no mark at all (caught as srv6d would, no hold). */
	bool kencap_mark_held;
	uint64_t kencap_caught, kencap_holds, kencap_unmarked;
	const char *kencap_watch;
	/* The mark probe (markprobe.h); NULL: "mark_probe" null. */
	const struct markprobe *probe;
	/* The operator's rules before srv6d's (markguard_rules_before()):
	 * nbefore of them (NULL: "rules_before" is []). */
	const struct markguard_before *before;
	unsigned nbefore;
	/* STATS only: the kernel's queues (NULL: not readable). */
	const struct ctl_nfq_queue *kq;
	unsigned nkq;
};

/* Every field of ws by its C name, plus "drops" with every reason.
 * Returns a new object, NULL on allocation failure. */
json_t *ctl_worker_stats_json(const struct worker_stats *ws);

/* The STATUS document (schema in srv6ctl(8)): at most
 * CTL_STATUS_KPOLICIES_LISTED kernel policies.  Returns a new object,
 * NULL on allocation failure. */
json_t *ctl_status_json(const struct ctl_status_src *src);

/* The SIDS document {"sids": [...]}: every SID, or only the one `want`
 * names ("prefix/len" exactly, or an address: the longest SID prefix
 * holding it); want NULL or "" for all.  Returns a new object with
 * *status CTL_OK, CTL_ERR_NOT_FOUND or CTL_ERR_INVALID ({"error": ...});
 * NULL on allocation failure. */
json_t *ctl_sids_json(const struct ctl_status_src *src, const char *want,
		      uint16_t *status);

/* The index in cfg->sids of the SID `want` names, as ctl_sids_json()
 * finds it; -1 when none, -2 when want is neither a prefix nor an
 * address. */
int ctl_sid_lookup(const struct config *cfg, const char *want);

/* want as a policy prefix ("P/L", IPv6 or IPv4, masked) into *family,
 * prefix (16 bytes; an IPv4 one in the first 4) and *plen.  Returns the
 * index of the first of cfg's policies with that prefix, -1 when none
 * has it, -2 when want is not a prefix/length. */
int ctl_policy_lookup(const struct config *cfg, const char *want,
		      int *family, uint8_t prefix[16], unsigned *plen);

/* Kernel seg6 routes' policies the POLICIES document lists at most (a
 * full table of them would be hundreds of MiB of JSON): the others are
 * counted in "policies_unlisted"; `policy show P/L` and `route get`
 * find any one. */
#define CTL_KPOLICIES_LISTED	10000u

/* Kernel seg6 routes' policies the STATUS document lists at most, a
 * summary that a full table leaves small (10,000 of them made 3.6 MB
 * and took the control thread a second); the others are counted in its
 * "policies_unlisted", and the POLICIES document lists more. */
#define CTL_STATUS_KPOLICIES_LISTED	100u

/* The POLICIES document {"policies": [...]} (srv6d.conf's, then at most
 * CTL_KPOLICIES_LISTED of the kernel seg6 routes' from the mirror: a
 * scan that passes through quiescent states; "policies_unlisted": how
 * many more there are, when there are), with the route mirror's
 * "interfaces": [...] (those whose packets another table than main
 * steers) when src->mirror is set (a QSBR reader, online).  Returns a new
 * object, NULL on allocation failure. */
json_t *ctl_policies_json(const struct ctl_status_src *src);

/* want NULL or "": ctl_policies_json(); else "prefix/length" (IPv6 or
 * IPv4): {"policies": [...]} with the policies of that exact prefix, of
 * every table, srv6d.conf's then the kernel's; *status CTL_OK,
 * CTL_ERR_NOT_FOUND or CTL_ERR_INVALID ({"error": ...}).  NULL on
 * allocation failure. */
json_t *ctl_policy_find_json(const struct ctl_status_src *src,
			     const char *want, uint16_t *status);

/* The STATS document: totals and workers (each with "kernel": its queue's
 * line of CTL_NFQ_PROC, or null).  Returns a new object, NULL on
 * allocation failure. */
json_t *ctl_stats_json(const struct ctl_status_src *src);

/* The mirror's own state: {"synced", "stale", "resyncs", "events",
 * "enobufs", "dump_restarts", "purged", "swept", "ignored", "errors",
 * "last_sync_ms", "last_error" (strerror text or null), "routes", "memory"}.
 * Returns a new object, NULL on allocation failure. */
json_t *ctl_mirror_json(const struct rtmirror *m);

/* The ROUTES document: {"mirror": ctl_mirror_json(), "tables": [{"table",
 * "ipv4", "ipv6"}...]} for every table, or only `table` (0: all).  A table
 * the mirror does not have: *status CTL_ERR_NOT_FOUND.  Returns a new
 * object (NULL on allocation failure).  Online QSBR reader. */
json_t *ctl_routes_json(const struct rtmirror *m, uint32_t table,
			uint16_t *status);

/* The ROUTE_GET document for the request text "ADDR [TABLE]": as `ip
 * route get` (no policy rules; no TABLE: local, main, default): {"dst"
 * (the address asked), "type", "prefix" ("dst/plen"), "table", "metric",
 * "protocol", "gateway" (absent without one), "dev", "oif", "mtu" (the
 * egress MTU: the route's mtu metric, else the link's), "src" (the
 * source the kernel would pick), "nexthops" (a multipath route's)}.
 * *status CTL_ERR_INVALID for bad text, CTL_ERR_NOT_FOUND for no route.
 * Returns a new object (NULL on allocation failure).  Online QSBR
 * reader. */
json_t *ctl_route_get_json(const struct rtmirror *m, const char *req,
			   uint16_t *status);

#endif
