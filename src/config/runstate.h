/* runstate.h - what srv6d decided for a parsed config on the running
 * kernel: the SIDs' marks, which results may be a verdict's payload, and
 * what the kernel's seg6/seg6local do for srv6d (kernel-encap,
 * kernel-end).
 *
 * A `struct config` is what the file says and is never written after its
 * parse.  Everything decided later, against the kernel or the config in
 * force before a reload, is here: made by one resolver (the daemon's
 * daemon_resolve(), src/daemon/resolve.c) before the config is installed,
 * published with its config in one generation (src/io/worker.c) and read
 * by the workers through proc_ctx (src/srv6/ctx.h).  Read-only once
 * published.
 *
 * This file holds the plain data and the pure lookups on it; the parts of
 * the resolver live with what they decide about: the marks here
 * (runstate_new(), runstate_inherit_marks()), the payload rule in
 * src/io/reinject.c (reinject_resolve()), the kernel's routes in
 * src/route/kencap_routes.c (kencap_routes_assign(), _resolve(),
 * _keep()).
 */
#ifndef SRV6D_RUNSTATE_H
#define SRV6D_RUNSTATE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* One SID's marks (runstate->sids[sid->index]), and the link it names. */
struct sid_marks {
	uint32_t mark;		/* verdict mark selecting its ip rule; 0 none:
				 * mark_base + 1 + index from runstate_new(),
				 * kept across reloads (runstate_inherit_marks()) */
	uint32_t route_table;	/* End.X, End.DX6, End.DX4: srv6d's own table
				 * for the next hop (= mark); 0 none */
	uint32_t kend_mark;	/* `kernel-end`: the mark (and table) of the
				 * kernel's seg6local route that makes this
				 * SID's result (kencap_routes.h), 0 none */
	uint32_t oif_index;	/* the ifindex of its oif (End.X, End.DX6,
				 * End.DX4 with one; End.DX2) when resolved
				 * (resolve.c); 0: no oif, or no such link
				 * or one down: then no route and no
				 * kend_mark, its packets are dropped
				 * (counted) and the daemon puts the config
				 * in force again when the link is up */
	uint32_t iif_index;	/* SR proxies: the ifindex of its iif, the
				 * packets back from the service (resolve.c);
				 * 0: no such link (yet) */
};

/* What the kernel takes as a verdict's payload. */
enum payload_rule {
	PAYLOAD_ANY = 0,	/* any of the family queued (Linux < 7.2) */
	PAYLOAD_KEEP_CHAIN,	/* only one whose IP header chain is the
				 * original's but for addresses, hop limit,
				 * traffic class and flow label (7.2+) */
	PAYLOAD_NONE,		/* none (7.1+ outside the initial user
				 * namespace, or `reinject no-payload`) */
};

/* One encapsulation the kernel does for srv6d (kencap_routes.h): a
 * segment list in mode encap or encap.red, with the mark (and table) of
 * its rules and routes. */
struct kencap_entry {
	enum encap_mode mode;	/* ENCAP_MODE_ENCAP or ENCAP_MODE_ENCAP_RED */
	struct seglist sl;
	uint32_t mark;		/* its fwmark rules' mark and its table */
};

struct runstate {
	uint32_t mark_base;		/* the config's, for the marks below */
	/* Which results may go back as their verdict's payload: from
	 * `reinject` (verdict: any, no-payload: none) and, for auto, the
	 * running kernel (reinject_resolve(), src/io/reinject.h).
	 * payload_why says why, for the log and srv6ctl status. */
	enum payload_rule payload;
	char payload_why[512];

	struct sid_marks *sids;		/* [nsids], by sid->index */
	unsigned nsids;
	/* runstate_sid_by_mark()'s index: mark_slot[M - mark_base - 1] is
	 * the index + 1 of the SID with mark M (0: none), for the
	 * nmark_slots marks from mark_base + 1 on. */
	uint32_t *mark_slot;
	uint32_t nmark_slots;

	/* kernel-encap (kencap_routes_resolve()): whether super-packet
	 * encapsulations go to the kernel, why (not), the kernel's outer
	 * source (:: when it picks one per packet), the routes' device
	 * (srv6d's reinjection device's receiving end), and the
	 * encapsulations with their marks, sorted by runstate_kencap_cmp()
	 * (kencaps NULL: none). */
	bool kencap_on;
	char kencap_why[512];
	struct in6_addr kencap_tunsrc;
	/* kencap_tunsrc (encap-source) is on srv6d's seg6 routes
	 * (SEG6_IPTUNNEL_SRC): the kernel's netns-wide tunsrc does not
	 * matter */
	bool kencap_route_src;
	uint32_t kencap_oif;
	struct kencap_entry *kencaps;
	unsigned nkencaps;
	/* kernel-end, decided the same way: whether the kernel's seg6local
	 * rewrites the super-packets of the SIDs with a kend_mark, why
	 * (not), the routes' device, and how many SIDs. */
	bool kend_on;
	char kend_why[512];
	uint32_t kend_oif;
	unsigned nkends;
};

/* A new state for cfg: every SID that needs a mark (the behavior table's
 * `unmarked` aside) has mark_base + 1 + index (and End.X, End.DX6 and
 * End.DX4 that table), payload PAYLOAD_ANY, no kernel help.  NULL when
 * memory runs out. */
struct runstate *runstate_new(const struct config *cfg);

void runstate_free(struct runstate *rs);

/* The marks of SID s of rs's config (all 0 when rs is NULL: a context
 * built by hand). */
static inline struct sid_marks runstate_sid(const struct runstate *rs,
					    const struct sid *s)
{
	return rs && s->index < rs->nsids ? rs->sids[s->index] :
					    (struct sid_marks){ 0 };
}

/* The SID of cfg (rs's config) whose verdict mark is `mark`, or NULL
 * (also when rs is NULL).  O(1). */
const struct sid *runstate_sid_by_mark(const struct runstate *rs,
				       const struct config *cfg,
				       uint32_t mark);

/* Before ncfg replaces old on a reload: keep the marks stable.  A SID of
 * ncfg with the same prefix, behavior and routing attributes (nh6, nh4,
 * oif, table, vrftable, the usd flavor) as one of old takes that SID's
 * mark (so its table, rules and, with vrftable, veth pair too); every
 * other SID of ncfg gets a mark whose table and packet mark no mark of
 * old's has (runstate_marks_in_force()), so that a packet old marked
 * never meets ncfg's routing for another SID (docs/design.md "Reload"),
 * also when mark-base changed (then no mark is kept).  nrs is ncfg's
 * state from runstate_new().  Nothing changes when old is NULL.  Returns 0, or
 * -1 with a message in err (out of memory, or old and ncfg together need
 * more than the range's marks: a restart applies ncfg), nrs unchanged. */
int runstate_inherit_marks(struct runstate *nrs, const struct config *ncfg,
			   const struct runstate *ors,
			   const struct config *old, char *err, size_t errlen);

/* The offsets of ncfg's mark range (bits in used, by offset from ncfg's
 * mark-base) that ors's marks (SIDs', kernel-end's, kernel-encap's; ors
 * is old's state, in force) meet: the offsets whose table (mark-base + o)
 * or packet mark (config_mark_value()) is one of theirs, and those whose
 * table is a kernel-end catch table of theirs or whose catch table would
 * be one of their tables (config_catch_table()).  With the same
 * mark-base that is their own offsets; with another, under a mark-mask
 * that is not every bit, a table of one and the packet mark of another
 * may coincide.  While a reload has both in the kernel, no table and no
 * packet mark serves two things.  Nothing when ors or old is NULL. */
void runstate_marks_in_force(const struct runstate *ors,
			     const struct config *old,
			     const struct config *ncfg, uint64_t *used);

/* Order of rs->kencaps: mode, number of segments, segments (qsort). */
int runstate_kencap_cmp(const void *a, const void *b);

/* The encapsulation the kernel does in mode with list sl
 * (kencap_routes.h), NULL when it has none.  Pure, for the packet path (a
 * bsearch on the list where it is: no copy). */
const struct kencap_entry *runstate_kencap_find(const struct runstate *rs,
						enum encap_mode mode,
						const struct seglist *sl);

/* Whether the kernel encapsulates the super-packets policy pol of cfg
 * steers, from the original (kernel-encap on in rs): an encap or
 * encap.red policy, no binding SID's, without hmac, each of its lists
 * one of rs->kencaps whose first segment is no local SID of cfg.  Pure. */
bool runstate_policy_kencap(const struct runstate *rs,
			    const struct config *cfg,
			    const struct policy *pol);

#endif
