/* rtwatch.h - what srv6d owns in the kernel, watched (issue 19 item 4):
 * an rtnetlink socket on the link, rule and route groups whose events say
 * which of srv6d's objects went away: a rule or route with protocol
 * RTPROT_SRV6D deleted, one of srv6d's devices (the reinjection pair, a
 * VRF SID's veth: alias srv6d or the tun-name) deleted or down.  The
 * daemon then puts its config in force again (daemon.c repair_tick()).
 * Never used on the packet path.
 */
#ifndef SRV6D_RTWATCH_H
#define SRV6D_RTWATCH_H

#include <stdint.h>

#include <linux/netlink.h>

/* The kinds of srv6d's objects, each with its repairs counter. */
enum rtwatch_kind {
	RTWATCH_RULE,		/* an ip rule (fwmark, iif) */
	RTWATCH_ROUTE,		/* a route in srv6d's tables, no encap */
	RTWATCH_KENCAP,		/* a seg6 route (kernel-encap) */
	RTWATCH_KEND,		/* a seg6local route (kernel-end) */
	RTWATCH_LINK,		/* a device of srv6d's, deleted or down */
	RTWATCH_NKINDS
};

struct rtwatch;

/* A watcher of srv6d's objects; tun_name is the reinjection device's
 * name (its sending end is tun_name's rtrules_reinject_dev_names()).
 * Returns NULL with errno set. */
struct rtwatch *rtwatch_open(const char *tun_name);

/* Close w (NULL is fine). */
void rtwatch_close(struct rtwatch *w);

/* The socket's fd for poll(), or -1 for a NULL w. */
int rtwatch_fd(const struct rtwatch *w);

/* Read every pending event: the bit 1u << kind of each kind of srv6d's
 * object that went away; 0 when none (also on an overrun, after which
 * the caller should check: RTWATCH_OVERRUN is returned then). */
#define RTWATCH_OVERRUN	(1u << RTWATCH_NKINDS)
/* A rule not srv6d's came or went (no repair: the daemon looks at the
 * rules before its own again, markguard_rules_before()). */
#define RTWATCH_OTHER_RULE	(1u << (RTWATCH_NKINDS + 1))
unsigned rtwatch_read(struct rtwatch *w);

/* The name of a kind ("rule", "route", "kernel-encap route", ...). */
const char *rtwatch_kind_name(enum rtwatch_kind k);

/* The pure half of rtwatch_read(): the kind bits an event says. */
unsigned rtwatch_event(const struct nlmsghdr *nlh, const char *tun_name);

#endif
