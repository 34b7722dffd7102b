/* kencap_routes.h - the kernel's seg6 encapsulates srv6d's TCP
 * super-packets (`kernel-encap`, srv6d.conf(5); issue 10).
 *
 * No userspace interface hands the kernel an IPv6-in-IPv6 super-packet
 * (virtio_net_hdr has no IPXIP6 gso type).  So an H.Encaps / H.Encaps.Red
 * (or End.B6.Encaps*) result of an `offload yes` super-packet goes back as its
 * inner TCP super-packet, whole, with the mark of its encapsulation, into
 * srv6d's reinjection device (src/io/kencap.h), and the kernel
 * encapsulates it with rules and routes srv6d owns.  Each distinct
 * encapsulation of srv6d.conf's policies (a segment list in mode encap or
 * encap.red, no HMAC) gets a mark M in srv6d's range, from its top down
 * (the SIDs take it from the bottom, runstate.h), kept across reloads while
 * the encapsulation stays, and table M (P: rule-priority):
 *
 *   ip -6 rule add priority P fwmark M lookup M
 *   ip -4 rule add priority P fwmark M lookup M
 *   ip -6 route replace default encap seg6 mode encap|encap.red segs LIST \
 *       dev srv6d0 table M
 *   ip -4 route replace default encap seg6 mode encap|encap.red segs LIST \
 *       dev srv6d0 table M
 *   ip -6 route replace throw FIRST/128 table M
 *   ip -6 route replace blackhole default metric 4294967295 table M
 *   ip -4 route replace blackhole default metric 4294967295 table M
 *
 * (the blackholes: should the encap routes go, with srv6d0 in the hands
 * of someone else, the marked inner packets are dropped, never routed
 * unencapsulated by the main table).
 * The encapsulated packet keeps its mark and is looked up in M again: the
 * throw route sends that lookup on to the next rules (main), so the first
 * segment's real route needs no copy.  An inner packet whose destination is
 * the first segment would take the throw route too: srv6d cuts it itself.
 * rtrules.c owns the range: it prunes these with the rest (stale ones after
 * a crash, the old ones after a reload); kencap_routes_install() adds
 * them.
 *
 * `kernel-end` (auto: with `offload yes`): each plain End SID of srv6d.conf
 * (no flavor) gets a mark M of the same range, taken after the
 * encapsulations' from the top down and kept across reloads while the
 * SID stays, and table M:
 *
 *   ip -6 rule add priority P fwmark M lookup M
 *   ip -6 route replace SID/PLEN encap seg6local action End count \
 *       dev srv6d0 table M
 *
 * A super-packet whose result is that SID's End is accepted unchanged
 * with mark M (src/io/kend.h) and the kernel makes the same rewrite; the
 * new destination, still marked, finds nothing in table M (no blackhole
 * there) and is looked up in the next rules (main).
 *
 * So does each End.DT6 `table T` (not vrftable), End.DX6 and End.DX4 SID
 * without flavors (kencap_routes_decap_sid(); End.DT4 and End.DT46 need a
 * VRF device in the kernel), table M holding
 *
 *   ip -6 route replace SID/PLEN encap seg6local action End.DT6 table T \
 *       count dev srv6d0 table M
 *   (End.DX6: action End.DX6 nh6 A, and
 *    ip -6 route replace A/128 via A [dev OIF] table M)
 *   (End.DX4: action End.DX4 nh4 A, and
 *    ip -4 route replace A/32 via A [dev OIF] table M,
 *    ip -4 rule add priority P fwmark M lookup M)
 *
 * The kernel's End.DX6/DX4 look the next hop up with the packet's mark:
 * the host route makes it leave by OIF to A's neighbour as srv6d's own
 * table does (End.DX4 would otherwise ARP for the inner destination when A
 * is on a connected route), and the original never matches it.
 *
 * The outer source: with `encap-source A` on a kernel whose seg6 routes
 * keep a source of their own (SEG6_IPTUNNEL_SRC: newer than 6.18, probed
 * once, route_src_supported()), A goes on srv6d's encap routes and the
 * netns-wide `ip sr tunsrc` is never touched.  Elsewhere it is the
 * kernel's tunsrc: with `encap-source A`, srv6d sets it to A when it is
 * :: (struct kencap_tunsrc: recorded in a state file, put back at stop,
 * also by the next start after a crash) and uses the kernel only when
 * it is A; without, the kernel picks one like egress.h's
 * egress_source_select() with the reinjection device (no address) as the
 * link, or uses a tunsrc someone set.  Each super-packet goes to the
 * kernel only when the source srv6d gave it is the one the kernel would
 * give; the daemon polls the tunsrc (kencap_tunsrc_read()) and takes the
 * encapsulations back to userspace while it is not what it was.
 */
#ifndef SRV6D_KENCAP_ROUTES_H
#define SRV6D_KENCAP_ROUTES_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "runstate.h"

struct nlmsghdr;

#define KENCAP_MSG_SIZE	1024	/* room for a route of 16 segments */

/* A SID the kernel's End can stand for: End, no flavor, srv6d.conf's. */
bool kencap_routes_end_sid(const struct sid *s);

/* A SID the kernel's seg6local decapsulates for as srv6d does: End.DT6
 * `table T` (not `vrftable`), End.DX6, End.DX4, no flavor, srv6d.conf's.
 * End.DT4 and End.DT46 need a VRF device in the kernel: not these. */
bool kencap_routes_decap_sid(const struct sid *s);

/* kencap_routes_end_sid() or kencap_routes_decap_sid(): a SID that gets a
 * kend_mark with `kernel-end`. */
bool kencap_routes_kernel_sid(const struct sid *s);

/* Give rs (cfg's state, runstate.h) cfg's encapsulations (rs->kencaps,
 * sorted) and its plain End and decapsulating SIDs their kend_mark
 * (kencap_routes_kernel_sid(); old's (in ors) mark for the same
 * prefix, else the highest free one after the encapsulations'; none with
 * `kernel-end no` or with `offload no`): every distinct
 * (mode, list) of its srv6d.conf policies and binding SIDs the kernel can
 * do (encap or encap.red, no `hmac`); each keeps old's mark (old may be
 * NULL), or takes the highest free one in the range that no SID of cfg or
 * old and no encapsulation of old uses.  One without a free mark is left
 * out (its packets are cut).  Nothing with `kernel-encap no` or with
 * `offload no`.  Returns 0, or -1 out of memory.  Pure. */
int kencap_routes_assign(struct runstate *rs, const struct config *cfg,
			 const struct runstate *ors, const struct config *old);

/* The kernel's netns-wide tunsrc as srv6d holds it (on a kernel whose
 * seg6 routes keep no source of their own): srv6d set it to `set` from
 * `orig`, recorded in the file `path` ("orig ADDR" and "set ADDR" lines)
 * so that a start after a crash knows `set` for srv6d's, not the
 * operator's, while the kernel still has it. */
struct kencap_tunsrc {
	char path[512];		/* "": no file */
	bool held;
	struct in6_addr orig;
	struct in6_addr set;
};

/* t for the state file path (NULL: none), with what a crashed srv6d
 * recorded there. */
void kencap_tunsrc_open(struct kencap_tunsrc *t, const char *path);

/* Give the kernel's tunsrc back (the stop, or when srv6d no longer needs
 * it): to t->orig when it is still srv6d's t->set, else left as someone
 * set it; the record removed.  Logged. */
void kencap_tunsrc_restore(struct kencap_tunsrc *t);

/* Once the config whose state is rs is in force (published, so no
 * worker hands the kernel an encapsulation of the config before): give
 * the kernel's tunsrc back when rs does not need it (kernel-encap off,
 * on from the start or after an install fell back, or its routes carry
 * their own source).  Not earlier: a reload refused after its resolve
 * keeps a config that still needs it. */
void kencap_tunsrc_settle(const struct runstate *rs,
			  struct kencap_tunsrc *t);

/* The kernel's tunsrc now into *cur (the daemon's poll).  Returns 0, or -1
 * with the reason in why. */
int kencap_tunsrc_read(struct in6_addr *cur, char *why, size_t whylen);

/* Decide rs->kend_on, kend_why and kend_oif (clearing the SIDs'
 * kend_mark when off), and rs->kencap_on, kencap_why, kencap_tunsrc,
 * kencap_route_src and kencap_oif (runstate.h) from `kernel-encap`,
 * `offload`, `encap-source`, whether the kernel's seg6 routes keep a
 * source, its tunsrc (through t) and net.ipv6.seg6_flowlabel, opening the
 * reinjection device for the routes' dev; logged at start (ors, the state
 * in force, NULL) and when it changes.  Before the config is installed. */
void kencap_routes_resolve(struct runstate *rs, const struct config *cfg,
			   const struct runstate *ors, struct kencap_tunsrc *t);

/* A rebuild that installs nothing (the kernel routes' rebuild with the
 * same SIDs): rs takes ors's decision, tunsrc and device, and keeps only
 * the encapsulations old has installed with the same mark.  Pure. */
void kencap_routes_keep(struct runstate *rs, const struct config *cfg,
			const struct runstate *ors, const struct config *old);

/* Install cfg's rules and routes (above), when rs->kencap_on /
 * kend_on: after rtrules_install() / rtrules_install_add() (which prunes
 * the range with them wanted).  A feature at `auto` whose install fails
 * is turned off in rs (kencap_on or kend_on false, its why "install
 * failed: ERROR", kernel-end's marks cleared; one log line, none when
 * ors, the running state, had fallen back with the same why: a repair
 * that tries again and fails the same way stays quiet) and the rest
 * goes on.  Returns 0, 1 when something fell back (what it had added
 * stays: rtrules_prune_keep() with cfg takes it away), or -1 when a
 * feature at `yes` failed, with a message in err (what was added stays:
 * rtrules_prune() takes it away). */
int kencap_routes_install(struct runstate *rs, const struct config *cfg,
			  const struct runstate *ors, char *err,
			  size_t errlen);

/* Message builders (pure; buf has KENCAP_MSG_SIZE bytes, zeroed here).
 * ip [-6|-4] route replace default encap seg6 mode MODE segs LIST
 * [tunsrc SRC] dev oif table e->mark, family AF_INET6 or AF_INET (src
 * NULL: none, SEG6_IPTUNNEL_SRC otherwise). */
struct nlmsghdr *kencap_build_encap_route(void *buf, uint32_t seq,
					  uint8_t family,
					  const struct kencap_entry *e,
					  uint32_t oif,
					  const struct in6_addr *src);

/* ip [-6|-4] route replace blackhole default metric 4294967295 table
 * table. */
struct nlmsghdr *kencap_build_blackhole_route(void *buf, uint32_t seq,
					      uint8_t family, uint32_t table);

/* ip -6 route replace blackhole prefix/plen metric 4294967295 table
 * table: behind a kernel-end SID's seg6local route (metric 1024), so that
 * a packet with its mark whose route went (deleted, srv6d0 down) is
 * dropped, never routed un-rewritten by the main table; the rewritten
 * packet (another destination) still falls through to main. */
struct nlmsghdr *kencap_build_blackhole_sid_route(void *buf, uint32_t seq,
						  uint32_t table,
						  const struct in6_addr *prefix,
						  uint8_t plen);

/* ip -6 route replace prefix/plen encap seg6local action End count dev
 * oif table table. */
struct nlmsghdr *kencap_build_end_route(void *buf, uint32_t seq,
					uint32_t table,
					const struct in6_addr *prefix,
					uint8_t plen, uint32_t oif);

/* ip -6 route replace prefix/plen encap seg6local action End.T table
 * lookup count dev oif table table: a caught End (markguard.h), its result
 * looked up in `lookup` whatever mark it has. */
struct nlmsghdr *kencap_build_end_t_route(void *buf, uint32_t seq,
					  uint32_t table,
					  const struct in6_addr *prefix,
					  uint8_t plen, uint32_t oif,
					  uint32_t lookup);

/* ip -6 route replace SID/PLEN encap seg6local action End.DT6 table T |
 * End.DX6 nh6 A | End.DX4 nh4 A count dev oif table table, for s
 * (kencap_routes_decap_sid()); NULL for another behavior. */
struct nlmsghdr *kencap_build_decap_route(void *buf, uint32_t seq,
					  uint32_t table, const struct sid *s,
					  uint32_t oif);

/* ip -6 route replace throw dst/128 table table. */
struct nlmsghdr *kencap_build_throw_route(void *buf, uint32_t seq,
					  uint32_t table,
					  const struct in6_addr *dst);

/* A SEG6 generic netlink request of family id `family`: cmd
 * SEG6_CMD_GET_TUNSRC (addr NULL) or SEG6_CMD_SET_TUNSRC (addr). */
struct nlmsghdr *kencap_build_tunsrc(void *buf, uint16_t family,
				     uint32_t seq, uint8_t cmd,
				     const struct in6_addr *addr);

#endif
