/* markguard.c - the catch behind srv6d's fwmark rules, and its watch
 * (markguard.h; issue 19 item 3). */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/rtnetlink.h>
#include <linux/seg6_local.h>

#include "log.h"
#include "markguard.h"
#include "rtnl.h"

#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK	12
#endif

uint32_t markguard_catch_table(uint32_t mark)
{
	return config_catch_table(mark);
}

uint32_t markguard_priority(const struct config *cfg)
{
	return cfg->rule_priority + 1;
}

uint32_t markguard_policy_table(const struct config *cfg,
				   const struct runstate *rs,
				   const struct policy *pol)
{
	const struct kencap_entry *e;

	if (pol->ktable || pol->table != CONFIG_TABLE_MAIN ||
	    !runstate_policy_kencap(rs, cfg, pol))
		return 0;
	e = runstate_kencap_find(rs, pol->mode, &pol->lists[0]);
	return e ? e->mark : 0;
}

unsigned markguard_rules(const struct config *cfg, const struct runstate *rs,
			 markguard_rule_fn fn, void *arg)
{
	unsigned n = 0;

	for (unsigned i = 0; rs && rs->kend_on && i < cfg->nsids; i++) {
		uint32_t m = i < rs->nsids ? rs->sids[i].kend_mark : 0;

		if (!m)
			continue;
		fn(arg, AF_INET6, &cfg->sids[i].prefix, cfg->sids[i].plen,
		   markguard_catch_table(m), true);
		n++;
	}
	for (unsigned i = 0; rs && rs->kencap_on && i < cfg->npolicies; i++) {
		const struct policy *pol = &cfg->policies[i];
		uint32_t t = markguard_policy_table(cfg, rs, pol);

		if (!t || !pol->plen)
			continue;	/* (a default route: no catch of all) */
		fn(arg, (uint8_t)pol->family, &pol->prefix, pol->plen, t, false);
		n++;
	}
	return n;
}

/* ---- the watch ---------------------------------------------------------- */

/* Add the packets of a seg6local route's counters (nlh) to *data. */
static int catch_route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RTA_MAX + 1] = { NULL };
	const struct nlattr *lt[SEG6_LOCAL_MAX + 1] = { NULL };
	const struct nlattr *ct[SEG6_LOCAL_CNT_MAX + 1] = { NULL };
	uint64_t *packets = data;

	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return MNL_CB_OK;
	rtnl_attrs(nlh, sizeof(struct rtmsg), tb, RTA_MAX);
	if (!tb[RTA_ENCAP] || !tb[RTA_ENCAP_TYPE] ||
	    mnl_attr_get_payload_len(tb[RTA_ENCAP_TYPE]) < 2 ||
	    mnl_attr_get_u16(tb[RTA_ENCAP_TYPE]) != LWTUNNEL_ENCAP_SEG6_LOCAL)
		return MNL_CB_OK;
	rtnl_attrs_nested(tb[RTA_ENCAP], lt, SEG6_LOCAL_MAX);
	if (!lt[SEG6_LOCAL_COUNTERS])
		return MNL_CB_OK;
	rtnl_attrs_nested(lt[SEG6_LOCAL_COUNTERS], ct, SEG6_LOCAL_CNT_MAX);
	if (ct[SEG6_LOCAL_CNT_PACKETS] &&
	    mnl_attr_get_payload_len(ct[SEG6_LOCAL_CNT_PACKETS]) == 8)
		*packets += mnl_attr_get_u64(ct[SEG6_LOCAL_CNT_PACKETS]);
	return MNL_CB_OK;
}

/* Dump table's IPv6 routes on s (a strict dump: the kernel filters by
 * RTA_TABLE), adding the seg6local routes' packets to *packets.  Returns
 * 0 or -1 with errno. */
static int catch_table_read(struct mnl_socket *s, uint32_t table,
			    uint64_t *packets)
{
	static uint8_t buf[8192];	/* control thread only */
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	uint32_t seq = (uint32_t)time(NULL) ^ table;
	ssize_t n;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET6;
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	if (mnl_socket_sendto(s, nlh, nlh->nlmsg_len) < 0)
		return -1;
	while ((n = mnl_socket_recvfrom(s, buf, sizeof(buf))) > 0) {
		int r = mnl_cb_run(buf, (size_t)n, seq, mnl_socket_get_portid(s),
				   catch_route_cb, packets);

		if (r == MNL_CB_STOP)
			return 0;
		if (r < 0)
			return errno == ENOENT ? 0 : -1;	/* no such table */
	}
	return -1;
}

int markguard_caught(const struct config *cfg, const struct runstate *rs,
		     uint64_t *packets)
{
	struct mnl_socket *s;
	int one = 1, ret = 0;

	*packets = 0;
	if (!rs || !rs->kend_on || !rs->nkends)
		return 0;
	s = mnl_socket_open(NETLINK_ROUTE);
	if (!s)
		return -1;
	if (mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_setsockopt(s, NETLINK_GET_STRICT_CHK, &one,
				  sizeof(one)) < 0) {
		mnl_socket_close(s);
		return -1;
	}
	for (unsigned i = 0; i < cfg->nsids && i < rs->nsids && !ret; i++)
		if (rs->sids[i].kend_mark &&
		    catch_table_read(s, markguard_catch_table(
					     rs->sids[i].kend_mark),
				     packets) < 0)
			ret = -1;
	mnl_socket_close(s);
	return ret;
}

void markguard_reset(struct markguard *g)
{
	g->primed = false;
	g->next_ms = 0;
}

bool markguard_due(const struct markguard *g, uint64_t now_ms)
{
	return now_ms >= g->next_ms;
}

/* Packets for the SIDs reached routing without srv6d's mark: hold. */
static void guard_hold(struct markguard *g, uint64_t delta)
{
	g->held = true;
	g->holds++;
	g->armed = true;	/* the first probe window */
	g->taken = false;
	g->window_caught = 0;
	log_msg(LOG_WARNING, "kernel-end: %" PRIu64 " packets for its SIDs "
		"reached routing without srv6d's mark (a rule after srv6d's "
		"hook rewrote it, or its fwmark rule is gone): the catch rules "
		"rewrote them; srv6d does the End itself until the marks "
		"survive", delta);
}

void markguard_judge(struct markguard *g, const struct config *cfg,
		     const struct runstate *rs, uint64_t now_ms, bool taken)
{
	uint64_t cur, delta;

	g->next_ms = now_ms + MARKGUARD_POLL_MS;
	if (!rs || !rs->kend_on || !rs->nkends) {
		g->held = g->armed = g->primed = false;
		return;
	}
	if (markguard_caught(cfg, rs, &cur) < 0) {
		log_debug("mark guard: cannot read the catch routes: %s",
			  strerror(errno));
		return;
	}
	delta = g->primed && cur >= g->caught ? cur - g->caught : 0;
	g->caught = cur;
	g->primed = true;
	g->total += delta;
	if (!g->held) {
		if (delta)
			guard_hold(g, delta);
		return;
	}
	g->window_caught += delta;
	if (g->armed) {		/* the probe window ends, a short one settles */
		g->armed = false;
		g->taken = taken;
		g->next_ms = now_ms + MARKGUARD_SETTLE_MS;
		return;
	}
	if (g->taken && !g->window_caught) {
		g->held = false;
		log_msg(LOG_INFO, "kernel-end: srv6d's marks survive again (a "
			"probe reached its route marked): the End goes to the "
			"kernel again");
		return;
	}
	g->armed = true;
	g->taken = false;
	g->window_caught = 0;
}
