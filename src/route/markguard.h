/* markguard.h - a mark that does not survive never leaks a packet
 * (issue 19 item 3).
 *
 * srv6d hands the kernel's seg6local End (kernel-end) and seg6 encap
 * (kernel-encap) their packets by mark: accepted with mark M, a rule
 * `fwmark M lookup M` at rule-priority P finds the route.  A mark
 * rewritten between srv6d's hook and routing (`CONNMARK --restore-mark`
 * in mangle PREROUTING, an operator's MARK rule) or srv6d's fwmark rule
 * gone would send the packet to the next rules (main) un-rewritten or
 * unencapsulated.  So right behind srv6d's fwmark rules a catch rule per
 * destination makes the unmarked packet meet the same route:
 *
 *   kernel-end SID with mark M, catch table C (markguard_catch_table()):
 *     ip -6 rule add priority P+1 to SID/PLEN lookup C
 *     ip -6 route replace SID/PLEN encap seg6local action End|End.DT6|...
 *         count dev srv6d0 table C
 *     ip -6 route replace blackhole SID/PLEN metric 4294967295 table C
 *   kernel-encap policy of the main table, PREFIX, its first list's mark M:
 *     ip -6|-4 rule add priority P+1 to PREFIX lookup M
 *
 * The kernel's End then rewrites the caught packet (its result has
 * another destination: the rule does not catch it again), the kernel's
 * seg6 encapsulates the caught tenant packet (its outer destination, the
 * first segment, is no policy's prefix).  A packet for the SID that
 * srv6d processes itself leaves with another destination (its result;
 * an echo reply to the SID goes to the pinger), so the catch sees only
 * packets srv6d accepted unchanged.
 *
 * The catch table is apart from M so that its route's own counter says
 * how many packets arrived without srv6d's mark: the daemon reads it
 * every MARKGUARD_POLL_MS (markguard_judge()); one that grew turns
 * kernel-end's hand-off off (held: srv6d's own End, the payload or device
 * way) with a warning, status `held`.  Held, each worker may hand one
 * packet to the kernel in every other window (a probe token,
 * engine_kend_probe_arm()): when one went and the catch took nothing in
 * that window and the short one after, the marks survive again and the hold ends
 * (logged).  A probe that loses its mark is caught and rewritten all the
 * same; after the rewrite, the kernel routes it with the mark it has,
 * which is why the hold matters: a mark an operator's rule routes by
 * (`MARK --set-mark 1`, `fwmark 0x1/0x1 lookup 50`) would send the
 * kernel's End results there, srv6d's own go by their new destination.  kernel-encap
 * has no route counter (seg6 encap routes count nothing): its catch makes
 * the failure closed, not seen.
 *
 * A rule of the operator's before P+1 comes before the catch: keep
 * rule-priority below the operator's rules that may see srv6d's packets
 * (an `fwmark X/MASK` rule after a MARK rule).  Policies of another
 * table (`table T`, an L3VPN tenant) get no catch: their prefix is looked
 * up by the operator's in-interface rule, and a `to PREFIX` rule would
 * also take other tenants' traffic for the same prefix.
 *
 * kencap_routes.c installs them with the fwmark rules.  They carry
 * srv6d's protocol number; rtrules.c's wanted set holds them
 * (markguard_rules()), so prune, sweep, stop and the
 * repair watch treat them as srv6d's other objects.
 */
#ifndef SRV6D_MARKGUARD_H
#define SRV6D_MARKGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "runstate.h"

#define MARKGUARD_POLL_MS	200	/* how often the catch is read */
#define MARKGUARD_SETTLE_MS	50	/* after a probe window: its packets
					 * have been through routing */

/* The table that catches what kernel-end's SID with mark `mark` meets
 * without it: mark + CONFIG_MARK_RANGE (mark - CONFIG_MARK_RANGE where
 * that would pass 32 bits), outside srv6d's marks.  Pure. */
uint32_t markguard_catch_table(uint32_t mark);

/* The catch rules' priority: rule-priority + 1.  Pure. */
uint32_t markguard_priority(const struct config *cfg);

/* One catch rule: `to dst/dst_len lookup table` of family (dst an
 * in6_addr or in_addr); catch is true for a kernel-end SID's (its table
 * the catch table, whose routes rtrules.c keeps). */
typedef void (*markguard_rule_fn)(void *arg, uint8_t family, const void *dst,
				  uint8_t dst_len, uint32_t table, bool catch);

/* Call fn on each catch rule cfg (state rs) wants: kernel-end's SIDs when
 * rs->kend_on, the main table's kernel-encap policies when
 * rs->kencap_on.  Returns how many.  Pure. */
unsigned markguard_rules(const struct config *cfg, const struct runstate *rs,
			 markguard_rule_fn fn, void *arg);

/* The table of policy pol's catch rule: its first list's encapsulation's
 * mark; 0 when it gets none (not the kernel's to encapsulate, a policy of
 * another table or from a kernel route).  Pure. */
uint32_t markguard_policy_table(const struct config *cfg,
				const struct runstate *rs,
				const struct policy *pol);

/* The daemon's view of the catch (one per daemon). */
struct markguard {
	uint64_t caught;	/* the catch routes' packets when last read */
	uint64_t total;		/* caught since start (status) */
	uint64_t holds;		/* times kernel-end was held (status) */
	uint64_t next_ms;	/* when to read again */
	bool primed;		/* caught is a reading of the config in force */
	bool held;		/* kernel-end is held back (engine's flag) */
	/* While held: a probe window is open (each worker may hand one
	 * packet to the kernel, engine_kend_probe_arm()), a probe packet
	 * went in the last window, and what the catch took since it
	 * opened. */
	bool armed, taken;
	uint64_t window_caught;
};

/* Whether the catch is to be read now (every MARKGUARD_POLL_MS). */
bool markguard_due(const struct markguard *g, uint64_t now_ms);

/* Read the catch routes' counters of cfg (state rs) and decide g->held
 * (the engine's kend_held) and g->armed (the workers' probe tokens) for
 * the next MARKGUARD_POLL_MS; taken: a probe token of the window that
 * ends was taken (engine_kend_probe_disarm()).  Packets caught hold
 * kernel-end back (logged); held, a window with the tokens armed then
 * one of MARKGUARD_SETTLE_MS with them put away follow, and when a probe
 * went and the catch took nothing in both, the hold ends (logged).  A reload calls
 * markguard_reset() first. */
void markguard_judge(struct markguard *g, const struct config *cfg,
		     const struct runstate *rs, uint64_t now_ms, bool taken);

/* A new config in force: the next read starts a new count. */
void markguard_reset(struct markguard *g);

/* The sum of the packet counters of the seg6local routes in cfg's catch
 * tables (0 with none) into *packets.  Returns 0, or -1 with errno. */
int markguard_caught(const struct config *cfg, const struct runstate *rs,
		     uint64_t *packets);

#endif
