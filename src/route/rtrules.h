/* rtrules.h - the policy routing and devices srv6d owns for End.X, End.T
 * and the decapsulating behaviors.
 *
 * End.X, End.DX6 SID with mark M:
 *                   ip -6 rule add priority P fwmark M lookup M
 *                   ip -6 route add default via NH6 [dev OIF] table M
 * End.T, End.DT6 SID with mark M (End.DT46 too, for its IPv6 results):
 *                   ip -6 rule add priority P fwmark M lookup TABLE
 * End.DX4, End.DT4, End.DT46, and End.X/End.T with the usd flavor have
 * IPv4 results, which the IPv6 hook cannot take as a verdict's payload:
 * reinject.c sends them into the reinjection device (below) with the
 * SID's mark as the frame's SO_MARK (the mark survives a veth pair within
 * one namespace), and IPv4 rules by the same mark route them:
 *   End.DX4:        ip -4 rule add priority P fwmark M lookup M
 *                   ip -4 route add default via NH4 [dev OIF] table M
 *   End.DT4, DT46:  ip -4 rule add priority P fwmark M lookup TABLE
 *                   ip -4 rule add priority P fwmark M unreachable
 *   End.X with usd: ip -4 rule add priority P fwmark M lookup M
 *                   ip -4 route add default via inet6 NH6 [dev OIF] table M
 *   End.T with usd: ip -4 rule add priority P fwmark M lookup TABLE
 * When some results cannot go as a verdict's payload (rs->payload not
 * PAYLOAD_ANY: `reinject no-payload`, or auto on Linux 7.2+; or `gso
 * yes`), the IPv6 results of the SIDs with an IPv6 fwmark rule go the
 * same way: into the reinjection device with the SID's mark, routed by
 * the fwmark rules above.  Such SIDs have struct sid_runtime's by_mark.
 *
 * `vrftable` (End.DT4, End.DT6, End.DT46): the kernel routes by the VRF
 * device, so such a SID whose results go by a device keeps a veth pair of
 * its own, srv6dMMMMMMMMt -> srv6dMMMMMMMM (M in 8 hex digits,
 * rtrules_dev_names(); the receiving end has the MAC address
 * rtrules_dev_mac() of M and is enslaved to the VRF device of TABLE,
 * which must exist), and its rules by that in-interface instead of the
 * mark (IPv4; IPv6 beside the fwmark rules):
 *                   ip [-6] rule add priority P iif srv6dM lookup TABLE
 *                   ip [-6] rule add priority P iif srv6dM unreachable
 * End.DX2: OIF is resolved to its struct sid_runtime's ifindex (rs's
 * oif_index: 0 while no such link exists, its frames dropped).
 *
 * P is cfg->rule_priority.  What srv6d owns it knows by a tag, not by a
 * range: every rule and route it installs (kernel-encap's and
 * kernel-end's too, kencap_routes.h) carries its protocol number
 * RTPROT_SRV6D (rtnl.h; `proto srv6d` with iproute2's rt_protos.d
 * entry), and every veth end it makes its alias RTRULES_LINK_ALIAS
 * (or, made before the alias could be set, a name srv6d... with its MAC
 * address, rtrules_dev_mac()).  Whatever of those the current config does not
 * want (left by a crashed instance, whatever mark-base, rule-priority
 * or tun-name it had; by an older srv6d, which gave every SID with IPv4
 * results a pair and iif rules; by the config before a reload) is
 * removed, and nothing else ever is: an operator's rule with a mark in
 * the range, or one identical to srv6d's, stays (the deletes carry the
 * tag too, so the kernel matches no other).  A table srv6d fills with
 * routes (a next hop's, kernel-encap's, kernel-end's) that holds a route
 * of another protocol makes the install fail with the reason: srv6d
 * would otherwise replace it or route by it.  On a reload, only once the
 * old config is out of use (rtrules_install_add(), then rtrules_prune()).
 */
#ifndef SRV6D_RTRULES_H
#define SRV6D_RTRULES_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "runstate.h"

#define RTRULES_RANGE	65536u	/* marks/tables srv6d takes above mark_base */
#define RTRULES_MSG_SIZE	256	/* room for any message built below */
#define RTRULES_LINK_ALIAS	"srv6d"	/* the alias of srv6d's veth ends */

struct nlmsghdr;

/* What rule installation found or made for one SID, kept apart from the
 * config (which stays read-only after its parse): an array indexed by
 * sid->index, returned by rtrules_install() / rtrules_install_add() and
 * published with its config by the engine (worker.h). */
struct sid_runtime {
	/* The interface the result leaves by: End.DX2 the ifindex of oif;
	 * a by_mark SID the reinjection device's sending end (set by the
	 * engine when it publishes the generation, worker.c); a VRF SID
	 * with a veth pair its sending end.  0 unset. */
	uint32_t ifindex;
	/* A VRF SID with a veth pair: the ifindex of its receiving end
	 * (where its results come back into the kernel, and where a
	 * steering rule must not queue them again: the workers accept such
	 * packets unchanged).  0 none. */
	uint32_t rx_ifindex;
	/* End.X/End.T/End.DX6/End.DT6/End.DT46 (IPv6 results that may
	 * not be a payload), End.DX4/DT4/DT46 and End.X/End.T with usd
	 * (IPv4 results), no `vrftable`: the results go into the
	 * reinjection device with the SID's mark as SO_MARK. */
	bool by_mark;
	/* End.X, End.DX6, End.DX4: the ifindex of oif (the next hop's link
	 * must be up, egress.h); 0 when oif is absent or named no link at
	 * install. */
	uint32_t oif_index;
	/* End.X, End.DX6, End.DX4 without oif whose next hop had no route
	 * at install (EHOSTUNREACH, ENETUNREACH): its own table got no
	 * route.  The packet path drops its packets meanwhile (egress.c,
	 * no route to the next hop); the daemon installs again once the
	 * route mirror has a route to it (daemon.c nexthops_tick()). */
	bool route_pending;
};

/* The entry of s in rt (NULL: no table, every field 0). */
static inline struct sid_runtime sid_runtime_get(const struct sid_runtime *rt,
						 const struct sid *s)
{
	return rt ? rt[s->index] : (struct sid_runtime){ 0 };
}

/* Make srv6d's rules, routes and devices in the kernel exactly what cfg
 * wants: delete the rest of srv6d's, add the wanted ones.  For the start,
 * when no packet is in flight.  Returns 0 with *rt the SIDs' struct
 * sid_runtime (cfg->nsids entries, the caller's to free() or publish with
 * cfg), or -1 with a message in err at the first failure (a table cfg
 * fills holding another's route, a vrftable without its VRF device, an
 * End.DX2 oif that does not exist, ...) and *rt NULL.  A SID whose oif is
 * no link yet (its oif_index 0) is no failure: it gets no route; nor
 * is one without oif whose next hop has no route yet (its
 * route_pending). */
int rtrules_install(const struct config *cfg, const struct runstate *rs,
		    struct sid_runtime **rt, char *err, size_t errlen);

/* A reload, step 1, while keep (the config in force, scope *prev) still
 * marks packets: add what cfg wants (devices, routes, rules) and delete
 * only what neither cfg nor keep wants, so that nothing keep's packets
 * rely on changes (with runstate_inherit_marks(), a mark means the same in
 * both).  Returns 0 with *rt as rtrules_install(), or -1 with a message in
 * err at the first failure and *rt NULL (what was added stays:
 * rtrules_prune(keep, ...) takes it away). */
int rtrules_install_add(const struct config *cfg, const struct runstate *rs,
			const struct config *keep,
			const struct runstate *keep_rs,
			struct sid_runtime **rt, char *err, size_t errlen);

/* A reload, step 2, once no worker uses the old config (after
 * engine_swap_config()'s grace period): delete whatever of srv6d's cfg
 * does not want.  Also how a failed reload goes back (cfg: the config in
 * force).  Returns 0, or -1 with a message in err (it still tries every
 * entry). */
int rtrules_prune(const struct config *cfg, const struct runstate *rs,
		  char *err, size_t errlen);

/* rtrules_prune() with what keep (may be NULL) wants kept too: a
 * reload's config whose kernel-encap / kernel-end install fell back
 * (kencap_routes_install()), the running one keep. */
int rtrules_prune_keep(const struct config *cfg, const struct runstate *rs,
		       const struct config *keep,
		       const struct runstate *keep_rs, char *err,
		       size_t errlen);

/* The first SID of cfg whose results the workers send on a packet socket
 * (End.DX2's frames; a SID's results that go by a device: its veth pair,
 * or the reinjection device with its mark), or NULL when there is none.
 * Such a socket needs CAP_NET_RAW: the daemon checks that it can open one
 * (pktsock.h) before rtrules_install() sets the devices up.  Pure. */
const struct sid *rtrules_sid_by_device(const struct config *cfg,
					 const struct runstate *rs);

/* Delete every rule, route and veth pair of srv6d's (the stop).  Returns
 * 0, or -1 with a message in err (it still tries every entry). */
int rtrules_remove(char *err, size_t errlen);

/* Message builders (pure; buf has RTRULES_MSG_SIZE bytes, zeroed here).
 * cmd: RTM_NEWRULE / RTM_DELRULE.  A new rule is NLM_F_CREATE|NLM_F_EXCL;
 * both carry FRA_PROTOCOL RTPROT_SRV6D.  Returns the message in buf. */
struct nlmsghdr *rtrules_build_rule(void *buf, uint16_t cmd, uint32_t seq,
				    uint32_t priority, uint32_t fwmark,
				    uint32_t table);

/* A rule of family by destination (markguard.h's catch): priority P to
 * dst/dst_len (an in6_addr or in_addr) lookup table, cmd as above. */
struct nlmsghdr *rtrules_build_rule_to(void *buf, uint16_t cmd, uint32_t seq,
				       uint8_t family, uint32_t priority,
				       const void *dst, uint8_t dst_len,
				       uint32_t table);

/* One of markguard.h's catch rules (markguard_rules()): by iif, by
 * destination or both, `lookup T`, `goto P` or `nop`; cmd as above. */
struct markguard_rule;
struct nlmsghdr *rtrules_build_catch_rule(void *buf, uint16_t cmd,
					  uint32_t seq,
					  const struct markguard_rule *m);

/* cmd: RTM_NEWROUTE (NLM_F_CREATE|NLM_F_REPLACE) / RTM_DELROUTE, protocol
 * RTPROT_SRV6D (a delete then matches only srv6d's route).  A route
 * of family (AF_INET6: dst and gw are struct in6_addr, AF_INET: struct
 * in_addr) dst/dst_len in table; dst may be NULL when dst_len is 0, gw
 * NULL, oif 0 for none (both: the next hop is on that link, onlink);
 * metric 0 for the kernel's default (and "any" in a delete).  Returns the
 * message. */
struct nlmsghdr *rtrules_build_route(void *buf, uint16_t cmd, uint32_t seq,
				     uint8_t family, uint32_t table,
				     const void *dst, uint8_t dst_len,
				     const void *gw, uint32_t oif,
				     uint32_t metric);

/* Add the rule `priority P fwmark V/MASK lookup TABLE` of family on nl,
 * V srv6d's mark `mark` under cfg's mark-mask (config_mark_value())
 * (already there is fine; for kencap_routes.c, whose rules are in the
 * scope above).  name begins the message.  Returns 0, or -1 with a message
 * in err. */
struct rtnl;
int rtrules_rule_add_mark(struct rtnl *nl, const struct config *cfg,
			  const char *name, uint8_t family,
			  uint32_t priority, uint32_t mark, uint32_t table,
			  char *err, size_t errlen);

/* IPv4 rule: priority P iif IIF lookup TABLE (cmd as above; a VRF
 * SID's). */
struct nlmsghdr *rtrules_build_rule4_iif(void *buf, uint16_t cmd,
					 uint32_t seq, uint32_t priority,
					 const char *iif, uint32_t table);

/* The names of the veth pair of the VRF SID with `mark`: rx (where the
 * kernel receives, the rules' iif) "srv6d%08x", tx (where srv6d sends)
 * "srv6d%08xt". */
void rtrules_dev_names(uint32_t mark, char rx[IF_NAMESIZE],
		       char tx[IF_NAMESIZE]);

/* ---- the reinjection device (reinject.h) ----
 * One veth pair per srv6d, created at start and removed at stop: NAME
 * (the receiving end, `tun-name`, default srv6d0: results come in on it
 * as if they had arrived there) and NAMEt (the sending end, where the
 * workers' packet sockets send them, behind an Ethernet header from
 * 06:00:00:00:00:00 to 02:00:00:00:00:00, rtrules_dev_mac() of mark 0;
 * a marked SID's result with its mark as SO_MARK, routed by the SID's
 * fwmark rules: the receiving end's sysctls are those its IPv4 and IPv6
 * results need).  Both have the MTU of RTRULES_REINJECT_MTU: a result is never refused
 * for its size at the device (the kernel applies the egress MTU). */
#define RTRULES_REINJECT_MTU	65535	/* veth's largest */

/* The receiving and sending ends' names for `name` (NAME and NAMEt; a
 * 15-character NAME ends in t, or u if it does, instead).  Pure. */
void rtrules_reinject_dev_names(const char *name, char rx[IF_NAMESIZE],
				char tx[IF_NAMESIZE]);

/* Create (or take over, after a crash, when it is srv6d's: alias or MAC,
 * rtrules.c link_mark_ours()) the pair for `name`, give both ends srv6d's
 * alias, set its sysctls (rx: IPv6 on without addresses, forwarding as all/forwarding,
 * rp_filter 0, accept_local 1; tx: no IPv6), bring both up, and give
 * their ifindexes.  Returns 0, or -1 with a message in err. */
int rtrules_reinject_dev_open(const char *name, uint32_t *tx_ifindex,
			      uint32_t *rx_ifindex, char *err, size_t errlen);

/* Remove the pair for `name` when it is srv6d's (a failure is logged). */
void rtrules_reinject_dev_close(const char *name);

/* MAC address of the receiving end of the veth pair of the (VRF) SID
 * with `mark` (02:00 and the mark, big-endian), or of the reinjection
 * device's (mark 0); the sending end has 06:00 and the mark.  Pure. */
static inline void rtrules_dev_mac(uint32_t mark, bool rx, uint8_t mac[6])
{
	mac[0] = rx ? 0x02 : 0x06;	/* locally administered, unicast */
	mac[1] = 0x00;
	mac[2] = (uint8_t)(mark >> 24);
	mac[3] = (uint8_t)(mark >> 16);
	mac[4] = (uint8_t)(mark >> 8);
	mac[5] = (uint8_t)mark;
}

#endif
