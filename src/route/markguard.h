/* markguard.h - a mark that does not survive never leaks a packet
 * (issue 19 item 3).
 *
 * srv6d hands the kernel's seg6local End (kernel-end) and seg6 encap
 * (kernel-encap) their packets by mark: accepted with mark M, a rule
 * `fwmark M lookup M` at rule-priority P finds the route.  A mark
 * rewritten between srv6d's hook and routing (`CONNMARK --restore-mark`
 * in mangle PREROUTING, an operator's MARK rule) or srv6d's fwmark rule
 * gone would send the packet to the next rules (main) un-rewritten or
 * unencapsulated.  So right behind srv6d's fwmark rules catch rules by
 * destination make the unmarked packet meet the same route:
 *
 *   kernel-end SID with mark M, catch table C (markguard_catch_table()):
 *     ip -6 rule add priority P+1 to SID/PLEN lookup C
 *     ip -6 route replace SID/PLEN encap seg6local action End|End.DT6|...
 *         count dev srv6d0 table C
 *     ip -6 route replace blackhole SID/PLEN metric 4294967295 table C
 *   kernel-encap policy of table T (`table T`, an L3VPN tenant), PREFIX,
 *   its first list's mark M, for each in-interface L whose packets the
 *   kernel looks up in T (markguard_set_links(): the route mirror's
 *   links; a VRF's slaves by their VRF device, as routing sees them):
 *     ip -6|-4 rule add priority P+1 iif L to PREFIX lookup M
 *   each such in-interface (any table but main), when the main table has
 *   policies to catch in that family:
 *     ip -6|-4 rule add priority P+2 iif L goto P+4
 *   kernel-encap policy of the main table, PREFIX, its first list's mark M:
 *     ip -6|-4 rule add priority P+3 to PREFIX lookup M
 *   the gotos' target, when there is a goto:
 *     ip -6|-4 rule add priority P+4 nop
 *
 * The kernel's End then rewrites the caught packet (its result has
 * another destination: the rule does not catch it again), the kernel's
 * seg6 encapsulates the caught tenant packet (its outer destination, the
 * first segment, is no policy's prefix).  A packet for the SID that
 * srv6d processes itself leaves with another destination (its result;
 * an echo reply to the SID goes to the pinger), so the catch sees only
 * packets srv6d accepted unchanged.  A tenant's packets skip the main
 * table's catch (the goto): a tenant whose own table has no policy for a
 * main policy's prefix routes it by its table, as without srv6d, never
 * by main's encapsulation; and a tenant's catch comes before main's, a
 * priority apart, so that the same prefix in main and in a tenant's
 * table (L3VPN address overlap) is caught for the tenant's policy
 * whatever order the rules were made in.  The links follow the mirror:
 * a link that comes, goes or changes table puts the config in force
 * again (daemon.c), which adds and prunes these rules.
 *
 * The watch, kernel-end: the catch table is apart from M so that its
 * route's own counter says how many packets arrived without srv6d's
 * mark: the daemon reads it every MARKGUARD_POLL_MS (markguard_caught(),
 * markguard_judge()); one that grew turns kernel-end's hand-off off
 * (held: srv6d's own End, the payload or device way) with a warning,
 * status kernel_end `held`.
 *
 * What srv6d sends into the reinjection device (kernel-encap's inner
 * super-packets, decapsulated results) cannot lose its mark for good:
 * the frame's source address carries it and the steering guard's first
 * rule puts it back (steer.h G0).  What is handed over as the verdict's
 * mark on the queued packet itself (kernel-end's End, the header queues'
 * encapsulations) carries it as skb->priority too, put back by the
 * guard's second rule (G0P, reinject.c reinject_mark_carrier()); a rule
 * that rewrites the priority as well beats that, and such a packet is
 * caught and watched as follows (the mark probe, src/io/markprobe.h,
 * sees such a rule first where it applies to srv6d0's packets too, and
 * holds kernel-end before its catch takes one).  Where such a rule
 * leaves mark 0 (`CONNMARK --restore-mark` of a connection without a
 * mark) a kernel-end SID's packet gets the SID's mark back from the
 * guard (steer.h G0K, counted, markguard_unmarked()): with `steering
 * auto` the catch sees only foreign marks, which an operator's rule may
 * route the kernel's result by.
 *
 * The watch, kernel-encap: seg6 encap routes count nothing, and no
 * seg6local action takes a plain tenant packet (each wants an SRH or an
 * outer IPv6 header), so a catch route cannot count them; nf_tables can.
 * With `steering auto`, srv6d's steering tables (steer.h) hold a second
 * base chain, `guard`, at the very end of prerouting (priority
 * STEER_GUARD_PRIORITY: after every mangle or nft rule that could
 * rewrite the mark, right before routing).  Its rules count in the named
 * counter `kencap_caught` of each family the packets for a kernel-encap
 * policy's prefix that carry none of srv6d's marks under mark-mask, of
 * the in-interfaces srv6d's steering queues that prefix from (a tenant
 * link: its own table's policies) and of the reinjection device (the
 * inner packets srv6d sends there with a mark, kencap_send()).  Those
 * are the packets the catch above takes and no other (what srv6d
 * encapsulated itself has the first segment as its destination).  The
 * daemon reads the counters beside the catch routes'
 * (steer_guard_read()): one that grew holds kernel-encap back (srv6d
 * cuts every encapsulation itself, kencap fallback `held`), logged once,
 * status kernel_encap `mark_held`.  The catch alone keeps such a packet
 * encapsulated, but the outer packet is routed by the mark it has: an
 * operator's `MARK --set-mark 0x1` with `fwmark 0x1/0x1 lookup 50` sent
 * the encapsulated customer flow to table 50 (19,800 bytes in 2 s
 * instead of 1.3 GB); the hold takes the flow back to srv6d's own
 * encapsulation, whose outer packet is unmarked and routed by the main
 * table.  What reaches the guard with no mark at all (0: the rule
 * cleared srv6d's bits with the rest, as `CONNMARK --restore-mark` of a
 * connection without a mark does) for a policy of one list is counted
 * apart (`kencap_unmarked`, markguard_unmarked()): its outer packet is
 * unmarked, routed as srv6d's own encapsulation's, so the catch is the
 * same result at the kernel's speed and nothing is held (logged once,
 * status kernel_encap `caught_unmarked`).  With `steering no` the
 * operator's rules choose what is queued
 * and srv6d cannot tell the packets it accepted from those it never saw:
 * kernel-encap's catch is closed (the kernel encapsulates what it takes)
 * but not watched, which status says (kernel_encap `watch`).
 *
 * Held (either feature), each worker may hand one packet to the kernel
 * in every other window (a probe token, engine_kend_probe_arm(),
 * engine_kencap_probe_arm()): when one went and the catch took nothing
 * in that window and the short one after (kernel-encap: two such windows
 * in a row, MARKGUARD_CLEAN_ENCAP), the marks survive again and the hold
 * ends (logged).  A hold within MARKGUARD_EPISODE_MS of the last one's
 * end is the same disturbance, neither logged nor counted again: a probe
 * can pass while it stays (conntrack restores no mark to a packet it
 * finds out of its TCP window, as a flow's rare probes are while the
 * rest goes srv6d's own way).  A probe that loses its mark is caught and
 * rewritten or encapsulated all the same; after that the kernel routes
 * it with the mark it has, which is why the hold matters: a mark an
 * operator's rule routes by (`MARK --set-mark 1`, `fwmark 0x1/0x1
 * lookup 50`) would send the kernel's results there, srv6d's own go by
 * their new destination.
 *
 * A rule of the operator's that the kernel evaluates before srv6d's
 * comes before its fwmark rules and the catch.  The daemon lists the
 * rules not srv6d's that come before srv6d's last fwmark or catch rule
 * of the family (markguard_rules_before(): by the kernel's order, so a
 * rule at srv6d's own priority made before it counts too), but for the
 * `lookup local` rule, `nop` rules, `oif` rules (a forwarded packet has
 * no oif when routed) and `iif lo` ones, and warns once per such rule
 * (status `rules_before`).  It does not move its own rules in front of
 * them: the operator put them there (a VRF's l3mdev rule, a policy that
 * must win), srv6d cannot know which may go after its marks, and moving
 * would change how the operator's own traffic is routed; the warning
 * names the remedy, a rule-priority below them.
 *
 * kencap_routes.c installs the rules with the fwmark rules.  They carry
 * srv6d's protocol number; rtrules.c's wanted set holds them
 * (markguard_rules()), so prune, sweep, stop and the repair watch treat
 * them as srv6d's other objects.
 */
#ifndef SRV6D_MARKGUARD_H
#define SRV6D_MARKGUARD_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "runstate.h"

#define MARKGUARD_POLL_MS	200	/* how often the catch is read */
#define MARKGUARD_SETTLE_MS	50	/* after a probe window: its packets
					 * have been through routing */
#define MARKGUARD_PRIORITIES	5	/* rule-priority to rule-priority + 4 */
#define MARKGUARD_CLEAN_ENCAP	2	/* kernel-encap: clean probe windows
					 * in a row that end a hold */
#define MARKGUARD_EPISODE_MS	2000	/* a hold this soon after a release
					 * is the same one (not logged,
					 * not counted again) */

/* The table that catches what kernel-end's SID with mark `mark` meets
 * without it: mark + CONFIG_MARK_RANGE (mark - CONFIG_MARK_RANGE where
 * that would pass 32 bits), outside srv6d's marks.  Pure. */
uint32_t markguard_catch_table(uint32_t mark);

/* The catch rules' priorities: rule-priority + 1 (kernel-end's SIDs, the
 * tenants' policies), + 2 (the tenants' gotos), + 3 (the main table's
 * policies), + 4 (the gotos' target).  Pure. */
uint32_t markguard_priority(const struct config *cfg);
uint32_t markguard_priority_skip(const struct config *cfg);
uint32_t markguard_priority_main(const struct config *cfg);
uint32_t markguard_priority_target(const struct config *cfg);

/* An in-interface whose packets the kernel looks up in another table
 * than main, by the name a rule's `iif` matches (a VRF's slave: its VRF
 * device), and those tables per family. */
struct markguard_link {
	char name[IF_NAMESIZE];
	uint32_t table4, table6;
};

/* The in-interfaces the tenants' catch rules follow (the daemon's, from
 * the route mirror; copied, links of the main table left out, each name
 * once).  Returns true when they differ from those before (the rules
 * then change: put the config in force again), false otherwise or when
 * memory runs out (the old ones stay). */
bool markguard_set_links(const struct markguard_link *links, size_t n);

/* One catch rule. */
struct markguard_rule {
	uint8_t family;		/* AF_INET6, AF_INET */
	uint32_t priority;
	uint8_t action;		/* FR_ACT_TO_TBL, FR_ACT_GOTO, FR_ACT_NOP */
	const char *iif;	/* "" none */
	const void *dst;	/* an in6_addr or in_addr; NULL none */
	uint8_t dst_len;
	uint32_t table;		/* FR_ACT_TO_TBL's */
	uint32_t target;	/* FR_ACT_GOTO's priority */
	bool catch_table;	/* table is a kernel-end catch table, whose
				 * routes rtrules.c keeps */
};

typedef void (*markguard_rule_fn)(void *arg, const struct markguard_rule *r);

/* Call fn on each catch rule cfg (state rs) wants, in the order they are
 * made: kernel-end's SIDs when rs->kend_on; with rs->kencap_on the
 * tenants' policies for the links of markguard_set_links(), the gotos,
 * the main table's policies, the target.  Returns how many.  Reads the
 * links set last, nothing else. */
unsigned markguard_rules(const struct config *cfg, const struct runstate *rs,
			 markguard_rule_fn fn, void *arg);

/* The table of policy pol's catch rule: its first list's encapsulation's
 * mark; 0 when it gets none (not the kernel's to encapsulate, or from a
 * kernel route).  Pure. */
uint32_t markguard_policy_table(const struct config *cfg,
				const struct runstate *rs,
				const struct policy *pol);

/* Which of the two features a struct markguard watches. */
enum markguard_kind {
	MARKGUARD_END,		/* kernel-end: the catch routes' counters */
	MARKGUARD_ENCAP,	/* kernel-encap: the guard chain's counters */
};

/* The daemon's view of one catch (one per feature). */
struct markguard {
	enum markguard_kind kind;
	uint64_t caught;	/* the counters when last read */
	uint64_t total;		/* caught since start (status) */
	uint64_t holds;		/* times the feature was held (status) */
	uint64_t next_ms;	/* when to read again */
	bool primed;		/* caught is a reading of the config in force */
	bool held;		/* the feature is held back (engine's flag) */
	/* While held: a probe window is open (each worker may hand one
	 * packet to the kernel), a probe packet went in the last window,
	 * and what the catch took since it opened. */
	bool armed, taken;
	uint64_t window_caught;
	/* When the last hold ended (0: never): a probe can pass while the
	 * disturbance stays (`CONNMARK --restore-mark` restores nothing to
	 * a packet conntrack finds out of its TCP window, as a flow's
	 * probes are while the rest goes srv6d's own way), and what is
	 * caught again within MARKGUARD_EPISODE_MS holds quietly. */
	uint64_t released_ms;
	uint64_t rehelds;	/* those quiet holds */
	bool quiet;		/* this hold is one of them */
	unsigned clean;		/* probe windows in a row a probe went
				 * through uncaught */
	/* What reached routing with no mark at all (kernel-encap: steer.h
	 * STEER_GUARD_UNMARKED, the catch took it; kernel-end: the guard
	 * gave it the SID's mark back, G0K's STEER_KEND_RESTORED): the
	 * counters when last read, the sum since start (status), when it
	 * last grew, the episodes logged */
	uint64_t unmarked_seen, unmarked, unmarked_ms, unmarked_episodes;
	bool unmarked_primed;
};

/* Whether the catch is to be read now (every MARKGUARD_POLL_MS). */
bool markguard_due(const struct markguard *g, uint64_t now_ms);

/* One reading of g's counters (cur, read: 0 when the read failed, -1)
 * decides g->held (the engine's flag) and g->armed (the workers' probe
 * tokens) for the next MARKGUARD_POLL_MS; active: the feature has
 * something to watch (else nothing is held); taken: a probe token of
 * the window that ends was taken.  Packets caught hold the feature back
 * (logged); held, a window with the tokens armed then one of
 * MARKGUARD_SETTLE_MS with them put away follow, and when a probe went
 * and the catch took nothing in both, the hold ends (logged).  A
 * counter smaller than the last reading was made again (a reinstall):
 * all it has is new.  A reload calls markguard_reset() first. */
void markguard_judge(struct markguard *g, bool active, int read,
		     uint64_t cur, uint64_t now_ms, bool taken);

/* One reading (cur) of kernel-encap's counters of the packets that
 * reached routing with no mark at all, for a policy of one list: the
 * catch had the kernel encapsulate them with the list a marked packet
 * gets, and routes the outer packet unmarked, as srv6d's own
 * encapsulation's is: nothing to hold back.  Or of kernel-end's (g's
 * kind): the guard gave them their SID's mark back (steer.h G0K).
 * Counted (g->unmarked), and logged once an episode (a growth after
 * MARKGUARD_EPISODE_MS without one).  active, read as
 * markguard_judge()'s. */
void markguard_unmarked(struct markguard *g, bool active, int read,
			uint64_t cur, uint64_t now_ms);

/* A new config in force: the next read starts a new count. */
void markguard_reset(struct markguard *g);

/* The sum of the packet counters of the seg6local routes in cfg's catch
 * tables (0 with none) into *packets.  Returns 0, or -1 with errno. */
int markguard_caught(const struct config *cfg, const struct runstate *rs,
		     uint64_t *packets);

/* ---- the operator's rules before srv6d's ---- */

#define MARKGUARD_BEFORE_MAX	16	/* listed at most */

/* One rule of the operator's the kernel evaluates before srv6d's. */
struct markguard_before {
	uint8_t family;
	uint32_t priority;
	char text[112];		/* as `ip rule` prints it, roughly */
};

/* The rules of family (AF_INET6, AF_INET) not srv6d's that come, in
 * the kernel's order, before srv6d's last rule at rule-priority to
 * rule-priority + 4 (those srv6d needs evaluated first), but for those
 * that cannot match a forwarded packet (above): at most max into out.
 * None when srv6d has no such rule.  Returns how many were found (may
 * exceed max), -1 with errno when the dump fails. */
int markguard_rules_before(const struct config *cfg, uint8_t family,
			   struct markguard_before *out, unsigned max);

#endif
