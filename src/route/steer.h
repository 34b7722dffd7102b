/* steer.h - srv6d's own steering: the nft rules that queue to srv6d what
 * its config says must reach it (`steering auto`, srv6d.conf(5)).
 *
 * srv6d owns two tables by name, `table ip6 srv6d` and `table ip srv6d`,
 * each with one base chain `prerouting` (filter, priority -290: after
 * raw, before conntrack and mangle).  The rules, in order:
 *
 *   0. with the running state (rs given, as for the guard below), IPv6:
 *      the mark probe (markprobe.h) from the reinjection device,
 *      `iifname TUN ip6 daddr STEER_PROBE_DST queue ...`;
 *   1. accept what comes in on srv6d's own devices (`srv6d*`, and the
 *      tun-name when it does not start so);
 *   2. accept what carries one of srv6d's marks under mark-mask (its
 *      offsets 1 to the end, config.h config_mark_value()): the kernel's
 *      second pass over a result;
 *   3. with header-queue: the plain End SIDs and the prefixes of policies
 *      without hmac, unless they carry the bounce bit (mark-mask's
 *      highest, whatever their other bits), to the header queues;
 *   4. every SID's prefix and every policy's prefix (of any table) to the
 *      queues;
 *   5. with `kernel-routes yes`: for each family and routing table with
 *      seg6 encap routes, the destinations in that table's interval set
 *      `kr6_T` / `kr4_T` (steerset.h: the routes' prefixes) to the
 *      queues.  Route changes become set element changes, in one batch
 *      per drain of the mirror's changes (coalesced); a set that comes
 *      or goes changes the chain too.  While a prefix is not in its set
 *      yet, the kernel's own seg6 route encapsulates its packets: no
 *      tenant packet leaves unencapsulated.
 *
 * Once the in-interfaces are known (steer_links(): the links whose
 * table is not main, from the route mirror), the policies' rules (3's,
 * 4's and 5's) follow them: a link whose table has policies goes (nft
 * `goto`) to that table's chain `tT`, which holds them, one whose table
 * has none is accepted, and main's policies follow in the base chain;
 * so a packet is queued only for the policies of its own table.  Before
 * (and in `srv6d -p`, which asks no kernel) every policy's prefix is
 * queued whatever the in-interface (a packet whose table has no policy
 * for it is accepted unchanged by srv6d).
 *
 * The queue rules never bypass: with srv6d gone and the rules left (kill
 * -9, a crash, SIGSTOP) NFQUEUE drops what nobody listens for, so no
 * tenant packet crosses the core natively and no SID packet loops (fail
 * closed, docs/design.md "Steering").  Several queues are spread per CPU
 * (fanout).  On kernels without the nft `queue` expression
 * (CONFIG_NFT_QUEUE) the rules use the xtables NFQUEUE target (revision
 * 3) through nft_compat, as `ip6tables-nft -j NFQUEUE` does.
 *
 * With the running state (rs given: the daemon's plan, not `srv6d -p`'s)
 * each family's table holds the guard: a base chain `guard` at priority
 * STEER_GUARD_PRIORITY, hook prerouting, after every mangle rule:
 *
 *   GP1-GP4 (IPv6, first): the mark probe from the reinjection device
 *       to STEER_PROBE_DST, counted by what reached the guard and
 *       dropped: with srv6d's probe mark under mark-mask
 *       (STEER_PROBE_KEPT), with it only in the priority
 *       (STEER_PROBE_CARRIED), with neither and mark 0
 *       (STEER_PROBE_ZEROED), with neither and another mark
 *       (STEER_PROBE_LOST).  Before G0, which would give it the mark of
 *       its frame's source address.
 *   G0. what comes from the reinjection device (`iifname TUN`) gets back
 *       the mark srv6d sent it with: its frames carry their SO_MARK in
 *       the source address (reinject.c, rtrules_dev_mac()), `meta mark
 *       set @ll,64,32`.  A rule that rewrote it between (`CONNMARK
 *       --restore-mark`, an operator's MARK) cannot send srv6d's
 *       results (End.DT4's, End.DX4's, kernel-encap's inner packets, an
 *       End.AS's) by another table.
 *   G0P. what srv6d accepted with one of its marks (the verdict's
 *       payload of End.X, End.DT6, ...; the original handed to the
 *       kernel's seg6 or seg6local by kernel-end's or kernel-encap's
 *       mark) gets it back: the verdict gave the same value as
 *       skb->priority (NFQA_PRIORITY, reinject.c), `meta priority and
 *       MASK FROM-TO meta mark set meta priority meta priority set 0`.
 *       The second carrier of the mark, for what does not come by the
 *       device; it clears what it used.
 *   G0K. with kernel-end on (IPv6), for each kernel-end SID: what goes
 *       to its prefix with mark 0 gets the SID's mark back, counted
 *       (STEER_KEND_RESTORED), `ip6 daddr SID/PLEN meta mark 0 counter
 *       meta mark set M`, the longest prefix first (the first match
 *       sets the mark).  Every packet for the SID from another device
 *       was queued to srv6d, and what srv6d does not hand the kernel by
 *       the mark leaves with another destination, so such a packet is
 *       one srv6d handed over whose mark a rule cleared with its
 *       priority (`CONNMARK --restore-mark` of a connection without a
 *       mark); one from srv6d's own devices is a result srv6d sent there
 *       unmarked, which the catch would take to the same End.  The
 *       kernel's End takes it by srv6d's fwmark rule, and its result is
 *       routed as an unmarked one's would be (table M holds the SID's
 *       route only), at the kernel's speed, and the catch counts
 *       nothing.  A foreign mark is left alone: an operator's rule may
 *       route by it, and the catch (markguard.h) counts it and holds
 *       kernel-end back.
 *
 * With kernel-encap (the links known) and kernel-encap policies the
 * guard also watches them (markguard.h), counting in a named counter
 * STEER_GUARD_COUNTER:
 *
 *   G1. accept what carries one of srv6d's marks under mark-mask;
 *   G2. every kernel-encap policy's prefix from the reinjection device
 *       (`iifname TUN`: the inner packets srv6d sends there marked),
 *       counted, accepted;
 *   G3. the links of another table: to that table's chain `gT` (its
 *       policies' prefixes counted) or accepted;
 *   G4. the main table's kernel-encap policies' prefixes counted.
 *
 * In G3's and G4's chains a policy of one list has its prefix with mark
 * 0 counted first in a second counter, STEER_GUARD_UNMARKED: the catch
 * encapsulates such a packet with the list a marked one gets, and its
 * outer packet, unmarked, is routed as srv6d's own encapsulation's
 * would be; it holds nothing back (markguard.h).  So in G2 for the
 * main table's policies (main's `to PREFIX` catch takes them from the
 * device too); a tenant's inner packet from the reinjection device has
 * no catch but by its mark, and is counted in STEER_GUARD_COUNTER.
 *
 * So it counts, right before routing, the packets srv6d accepted (or
 * sent) for the kernel's seg6 that reach routing without the mark; the
 * daemon reads the counters (steer_guard_read()).
 *
 * A change is one nfnetlink batch (one transaction): the tables are
 * deleted and added again in it, so there is no moment without rules.
 *
 * A plan (steer_plan_build()) is pure and printable (`srv6d -p`); struct
 * steer carries it out and keeps it: installs, replaces, removes, and
 * puts it back when someone else removes it (steer_event()).
 */
#ifndef SRV6D_STEER_H
#define SRV6D_STEER_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "config.h"
#include "rtmirror.h"
#include "runstate.h"

#define STEER_TABLE		"srv6d"
#define STEER_CHAIN		"prerouting"
#define STEER_PRIORITY		(-290)
/* kernel-encap's guard (markguard.h): a second base chain, the last of
 * prerouting, whose rules count in a named counter of each family's
 * table the packets for kernel-encap's policies that lost srv6d's mark */
#define STEER_GUARD_CHAIN	"guard"
#define STEER_GUARD_PRIORITY	2147483647	/* INT_MAX */
#define STEER_GUARD_COUNTER	"kencap_caught"
/* ... and those that reach it with no mark at all (0: a rule cleared
 * srv6d's, CONNMARK --restore-mark of a connection without one), for a
 * policy of one list: the catch encapsulates them as srv6d would and
 * the outer packet is routed unmarked as srv6d's own (markguard.h) */
#define STEER_GUARD_UNMARKED	"kencap_unmarked"
/* The mark probe's counters (markprobe.h), in the ip6 table */
#define STEER_PROBE_KEPT	"probe_kept"
#define STEER_PROBE_CARRIED	"probe_carried"
#define STEER_PROBE_ZEROED	"probe_zeroed"
#define STEER_PROBE_LOST	"probe_lost"
/* kernel-end's packets that reached the guard with mark 0 and got their
 * SID's mark back (G0K), in the ip6 table */
#define STEER_KEND_RESTORED	"kend_restored"
/* The mark probe's destination, 100::5d6f:2 (RFC 6666's discard-only
 * block), a struct in6_addr's initializer */
#define STEER_PROBE_DST_INIT	{ .s6_addr = { 0x01, 0x00, 0, 0, 0, 0, 0, \
	0, 0, 0, 0, 0, 0x5d, 0x6f, 0x00, 0x02 } }

enum steer_action {
	STEER_ACCEPT,
	STEER_QUEUE,
	STEER_GOTO,			/* goto chain `go` */
	STEER_COUNT,			/* counter STEER_GUARD_COUNTER, accept */
	STEER_COUNT_UNMARKED,		/* counter STEER_GUARD_UNMARKED, accept */
	STEER_MARK_FROM_MAC,		/* meta mark set from the source MAC
					 * address's last 4 bytes, go on */
	STEER_MARK_FROM_PRIORITY,	/* its mark range on meta priority:
					 * meta mark set meta priority,
					 * meta priority set 0, go on */
	STEER_PROBE_KEPT_DROP,		/* counter STEER_PROBE_KEPT, drop */
	STEER_PROBE_CARRIED_DROP,	/* its mark range on meta priority,
					 * counter STEER_PROBE_CARRIED, drop */
	STEER_PROBE_ZEROED_DROP,	/* counter STEER_PROBE_ZEROED, drop */
	STEER_PROBE_LOST_DROP,		/* counter STEER_PROBE_LOST, drop */
	STEER_MARK_KEND,		/* counter STEER_KEND_RESTORED, meta
					 * mark set set_mark, go on (G0K) */
};

/* A link whose packets the kernel looks up in another table than main
 * (its VRF's, or an `ip rule iif NAME lookup T`: the route mirror's
 * struct rtmirror_link table4/table6). */
struct steer_link {
	char name[IF_NAMESIZE];
	uint32_t table4, table6;
};

/* One rule: every match that is set must hold. */
struct steer_rule {
	int family;			/* AF_INET6 (table ip6) or AF_INET */
	char iifname[IF_NAMESIZE];	/* "" none */
	bool iif_wildcard;		/* iifname is a prefix ("srv6d*") */
	bool proxy_iif;			/* an SR proxy's way back (a
					 * comment in srv6d -p) */
	bool has_mark_range;		/* meta mark & MASK FROM-TO */
	uint32_t mark_from, mark_to;
	bool has_mark_not;		/* meta mark & MASK != MARK */
	uint32_t mark_not;
	uint32_t mark_mask;		/* of either (0xffffffff: none) */
	uint8_t plen;			/* daddr prefix length; 0: no match */
	uint8_t addr[16];		/* its bytes (4 for AF_INET), masked */
	char set[16];			/* daddr in this set; "" none */
	char chain[16];			/* "" the base chain, else a table's
					 * chain ("t101") */
	char go[16];			/* STEER_GOTO's chain */
	uint32_t set_mark;		/* STEER_MARK_KEND's mark */
	enum steer_action action;
	uint16_t queue_first, queue_total;	/* STEER_QUEUE */
};

struct steer_plan {
	struct steer_rule *rules;
	unsigned nrules;
	unsigned nrules6;		/* the first nrules6 are ip6's */
};

/* The rules cfg needs, IPv6's first (plan->nrules6 of them), then IPv4's.
 * Returns 0, -1 when memory runs out (*plan then empty). */
int steer_plan_build(const struct config *cfg, const struct runstate *rs,
		     struct steer_plan *plan);

/* The same with the in-interfaces known (links of another table than
 * main, n of them), as steer_links() has them: the policies' rules
 * follow them, and kernel-encap's guard (markguard.h) is planned.
 * Pure. */
int steer_plan_build_links(const struct config *cfg,
			   const struct runstate *rs,
			   const struct steer_link *links, size_t n,
			   struct steer_plan *plan);

void steer_plan_free(struct steer_plan *plan);

/* Whether a and b are the same rules. */
bool steer_plan_equal(const struct steer_plan *a, const struct steer_plan *b);

/* Writes plan in nft syntax (an `nft -f` file), then as ip6tables /
 * iptables commands (kernels without the nft queue expression). */
void steer_plan_print(const struct steer_plan *plan, FILE *f);

/* How the queue rules are written. */
enum steer_backend {
	STEER_BACKEND_NONE = 0,		/* nothing installed yet */
	STEER_BACKEND_NFT_QUEUE,	/* the nft queue expression */
	STEER_BACKEND_XT_NFQUEUE,	/* xtables NFQUEUE rev 3 (nft_compat) */
};

/* Writes rule r's nf_tables expressions as libnftnl prints them (what
 * `nft --debug=netlink` shows) into buf, with backend be.  Returns the
 * length, -1 when memory runs out.  For the tests. */
int steer_rule_format(const struct steer_rule *r, enum steer_backend be,
		      char *buf, size_t size);

/* "none", "nft-queue", "xt-NFQUEUE". */
const char *steer_backend_name(enum steer_backend b);

/* What srv6ctl status shows. */
struct steer_status {
	bool enabled;			/* steering auto */
	bool installed;			/* srv6d's tables are in force */
	bool failed;			/* the last install failed */
	enum steer_backend backend;
	unsigned rules;
	uint64_t batches;		/* transactions sent (each install,
					 * replace, repair or removal) */
	uint64_t repairs;		/* re-installed after someone else
					 * removed them */
	time_t changed;			/* wall clock of the last batch, 0 */
	unsigned sets;			/* kernel routes' sets (rule 5) */
	size_t set_elements;		/* their elements (top prefixes) */
	uint64_t set_batches;		/* batches of element changes */
	uint64_t set_last_us;		/* the last change of the sets, from
					 * the routes taken to the kernel's
					 * answer */
	size_t set_last_changes;	/* the elements it changed */
	unsigned guard_rules;		/* of the guard chains (markguard.h) */
	char why[160];			/* the last failure, "" none */
};

struct steer;

/* srv6d's steering for cfg: with `steering auto`, its rules installed
 * (replacing what an earlier srv6d left), and a watch on nf_tables
 * changes opened; with `steering no`, a leftover srv6d table removed and
 * nothing else.  Returns the object (NULL when memory runs out); an
 * install that failed is in steer_get_status() and err (logged by the
 * caller), and the object is still returned (the next reload or repair
 * tries again): *ok says whether it is in force. */
struct steer *steer_open(const struct config *cfg, const struct runstate *rs,
			 bool *ok, char *err, size_t errlen);

/* After a reload: cfg's rules in force, in one batch (nothing sent when
 * they are those in force).  Returns 0, -1 with a message in err (the
 * previous rules stay: a batch is all or nothing). */
int steer_update(struct steer *st, const struct config *cfg,
		 const struct runstate *rs, char *err, size_t errlen);

/* The links whose table is not main now (n of links, copied; srv6d's
 * own devices may be in it, they are left out): the rules follow them,
 * in one batch when they change (cfg and rs: the config in force).
 * Returns 0, -1 with a message in err (the rules in force stay). */
int steer_links(struct steer *st, const struct config *cfg,
		const struct runstate *rs, const struct steer_link *links,
		size_t n, char *err, size_t errlen);

/* The watch's descriptor for poll() (-1 with `steering no`). */
int steer_fd(const struct steer *st);

/* The watch is readable: reads its messages; if one removed something of
 * srv6d's tables (a table, chain or rule deleted, `nft flush ruleset`),
 * checks the tables and installs the rules again.  Returns 1 when it did,
 * 0 when nothing was missing, -1 when the repair failed (err). */
int steer_event(struct steer *st, char *err, size_t errlen);

/* The kernel's seg6 encap routes that came and went (n of list,
 * rtmirror_kroutes_take(); lost: some were not recorded): their sets'
 * elements changed in one batch (more when very many), the chain too
 * when a table's set came or went; cfg and rs are the config in force.
 * Nothing with steering no.  Returns 0, -1 with a message in err. */
int steer_kroutes(struct steer *st, const struct config *cfg,
		  const struct runstate *rs,
		  const struct rtmirror_kroute *list, size_t n, bool lost,
		  char *err, size_t errlen);

void steer_get_status(const struct steer *st, struct steer_status *out);

/* kernel-encap's guard (markguard.h): the packets both families'
 * counters STEER_GUARD_COUNTER counted, summed into *packets, and their
 * STEER_GUARD_UNMARKED into *unmarked.  Returns 0, 1 when there is no
 * guard (steering no, not installed, no kernel-encap policy, the links
 * not known yet), -1 with errno. */
int steer_guard_read(struct steer *st, uint64_t *packets,
		     uint64_t *unmarked);

/* Whether srv6d's rules are in force (steering auto, installed): cheap,
 * for the daemon's loop. */
bool steer_in_force(const struct steer *st);

/* The mark probe's counters (markprobe.h: STEER_PROBE_KEPT, _CARRIED,
 * _ZEROED, _LOST) into cur[0..3].  Returns 0, 1 when there is no guard
 * (steering no, not installed), -1 with errno. */
int steer_probe_read(struct steer *st, uint64_t cur[4]);

/* kernel-end's packets the guard gave their mark back (G0K,
 * STEER_KEND_RESTORED) into *packets.  Returns 0, 1 when there is no
 * such rule (steering no, not installed, no kernel-end SID), -1 with
 * errno. */
int steer_kend_restored_read(struct steer *st, uint64_t *packets);

/* At a clean stop: removes srv6d's tables (remove true) and frees st. */
void steer_close(struct steer *st, bool remove);

#endif
