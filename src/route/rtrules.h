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
 * P is cfg->rule_priority.  The daemon's "scope" is every rule of either
 * family at priority P whose fwmark lies in [mark_base, mark_base +
 * RTRULES_RANGE) (kernel-encap's too, kencap_routes.h), every rule of
 * either family at priority P whose iif is one of the veth devices of
 * that range, every route of either family in a table of that range, and
 * every veth pair srv6dMMMMMMMM of that range: anything found there that
 * the current config does not want (left by a crashed instance, or an
 * older srv6d, which gave every SID with IPv4 results a pair and iif
 * rules, or by the config before a reload) is removed.  On a reload,
 * only once the old config is out of use (rtrules_install_add(), then
 * rtrules_prune()).
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

#define RTRULES_RANGE	65536u	/* marks/tables owned above mark_base */
#define RTRULES_MSG_SIZE	256	/* room for any message built below */

struct nlmsghdr;

/* What the daemon owns in the kernel: rule priority and mark/table range. */
struct rtrules_scope {
	uint32_t priority;
	uint32_t mark_base;
};

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
};

/* The entry of s in rt (NULL: no table, every field 0). */
static inline struct sid_runtime sid_runtime_get(const struct sid_runtime *rt,
						 const struct sid *s)
{
	return rt ? rt[s->index] : (struct sid_runtime){ 0 };
}

/* The scope of cfg. */
void rtrules_scope_of(const struct config *cfg, struct rtrules_scope *s);

/* Make the kernel's rules, routes and devices in cfg's scope (and in
 * *prev's, when prev is not NULL) exactly what cfg wants: delete the rest,
 * add the wanted ones.  For the start, when no packet is in flight.
 * Returns 0 with *rt the SIDs' struct sid_runtime (cfg->nsids entries,
 * the caller's to free() or publish with cfg), or -1 with a message in err
 * at the first failure (a vrftable without its VRF device, ...) and *rt
 * NULL.  A SID whose oif is no link yet (rs's oif_index 0) is no failure:
 * it gets no route and its struct sid_runtime no ifindex. */
int rtrules_install(const struct config *cfg, const struct runstate *rs,
		    const struct rtrules_scope *prev,
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
			const struct rtrules_scope *prev,
			struct sid_runtime **rt, char *err, size_t errlen);

/* A reload, step 2, once no worker uses the old config (after
 * engine_swap_config()'s grace period): delete whatever in cfg's scope and
 * *prev's (may be NULL) cfg does not want.  Also how a failed reload goes
 * back (cfg: the config in force, prev: the refused one's scope).
 * Returns 0, or -1 with a message in err (it still tries every entry). */
int rtrules_prune(const struct config *cfg, const struct runstate *rs,
		  const struct rtrules_scope *prev, char *err, size_t errlen);

/* rtrules_prune() with what keep (may be NULL) wants kept too: a
 * reload's config whose kernel-encap / kernel-end install fell back
 * (kencap_routes_install()), the running one keep. */
int rtrules_prune_keep(const struct config *cfg, const struct runstate *rs,
		       const struct config *keep,
		       const struct runstate *keep_rs,
		       const struct rtrules_scope *prev, char *err,
		       size_t errlen);

/* Delete every rule, route and veth pair in scope s.  Returns 0, or -1 with a message
 * in err (it still tries every entry). */
int rtrules_remove(const struct rtrules_scope *s, char *err, size_t errlen);

/* Message builders (pure; buf has RTRULES_MSG_SIZE bytes, zeroed here).
 * cmd: RTM_NEWRULE / RTM_DELRULE.  A new rule is NLM_F_CREATE|NLM_F_EXCL.
 * Returns the message in buf. */
struct nlmsghdr *rtrules_build_rule(void *buf, uint16_t cmd, uint32_t seq,
				    uint32_t priority, uint32_t fwmark,
				    uint32_t table);

/* cmd: RTM_NEWROUTE (NLM_F_CREATE|NLM_F_REPLACE) / RTM_DELROUTE.  A route
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

/* Add the rule `priority P fwmark M lookup TABLE` of family on nl
 * (already there is fine; for kencap_routes.c, whose rules are in the
 * scope above).  name begins the message.  Returns 0, or -1 with a message
 * in err. */
struct rtnl;
int rtrules_rule_add_mark(struct rtnl *nl, const char *name, uint8_t family,
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

/* Create (or take over, after a crash) the pair for `name`, set its
 * sysctls (rx: IPv6 on without addresses, forwarding as all/forwarding,
 * rp_filter 0, accept_local 1; tx: no IPv6), bring both up, and give
 * their ifindexes.  Returns 0, or -1 with a message in err. */
int rtrules_reinject_dev_open(const char *name, uint32_t *tx_ifindex,
			      uint32_t *rx_ifindex, char *err, size_t errlen);

/* Remove the pair for `name` (a failure is logged). */
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
