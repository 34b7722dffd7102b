/* markguard.c - the catch behind srv6d's fwmark rules, and its watch
 * (markguard.h; issue 19 item 3). */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
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

uint32_t markguard_priority_skip(const struct config *cfg)
{
	return cfg->rule_priority + 2;
}

uint32_t markguard_priority_main(const struct config *cfg)
{
	return cfg->rule_priority + 3;
}

uint32_t markguard_priority_target(const struct config *cfg)
{
	return cfg->rule_priority + 4;
}

uint32_t markguard_policy_table(const struct config *cfg,
				   const struct runstate *rs,
				   const struct policy *pol)
{
	const struct kencap_entry *e;

	if (pol->ktable || !runstate_policy_kencap(rs, cfg, pol))
		return 0;
	e = runstate_kencap_find(rs, pol->mode, &pol->lists[0]);
	return e ? e->mark : 0;
}

/* ---- the tenants' links ------------------------------------------------- */

/* Control thread only (the daemon sets them, the installs and prunes
 * read them). */
static struct markguard_link *mg_links;
static size_t mg_nlinks;

static int link_cmp(const void *a, const void *b)
{
	const struct markguard_link *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->table6 != y->table6)
		return x->table6 < y->table6 ? -1 : 1;
	return x->table4 < y->table4 ? -1 : x->table4 > y->table4;
}

bool markguard_set_links(const struct markguard_link *links, size_t n)
{
	struct markguard_link *copy = n ? malloc(n * sizeof(*copy)) : NULL;
	size_t k = 0;
	bool changed;

	if (n && !copy)
		return false;
	for (size_t i = 0; i < n; i++) {
		if ((links[i].table4 == CONFIG_TABLE_MAIN || !links[i].table4) &&
		    (links[i].table6 == CONFIG_TABLE_MAIN || !links[i].table6))
			continue;
		copy[k++] = links[i];
	}
	if (k)
		qsort(copy, k, sizeof(*copy), link_cmp);
	/* each name once (the slaves of one VRF: its device) */
	if (k > 1) {
		size_t j = 1;

		for (size_t i = 1; i < k; i++)
			if (strcmp(copy[i].name, copy[j - 1].name))
				copy[j++] = copy[i];
		k = j;
	}
	changed = k != mg_nlinks ||
		  (k && memcmp(copy, mg_links, k * sizeof(*copy)));
	free(mg_links);
	mg_links = copy;
	mg_nlinks = k;
	return changed;
}

static uint32_t link_table(const struct markguard_link *l, int family)
{
	uint32_t t = family == AF_INET6 ? l->table6 : l->table4;

	return t ? t : CONFIG_TABLE_MAIN;
}

/* The kernel-encap policies of family in table (main: CONFIG_TABLE_MAIN)
 * with a catch, by prefix length from the longest (a nested prefix's
 * rule first), each to fn (with iif); returns how many. */
static unsigned policy_catches(const struct config *cfg,
			       const struct runstate *rs, int family,
			       uint32_t table, uint32_t priority,
			       const char *iif, markguard_rule_fn fn,
			       void *arg)
{
	unsigned n = 0;

	for (int len = family == AF_INET6 ? 128 : 32; len >= 1; len--)
		for (unsigned i = 0; i < cfg->npolicies; i++) {
			const struct policy *pol = &cfg->policies[i];
			struct markguard_rule r = {
				.family = (uint8_t)family,
				.priority = priority,
				.action = FR_ACT_TO_TBL,
				.iif = iif,
				.dst = &pol->prefix,
				.dst_len = pol->plen,
			};

			if (pol->family != family || pol->plen != len ||
			    pol->table != table)
				continue;
			/* (a default route gets none: no catch of all) */
			r.table = markguard_policy_table(cfg, rs, pol);
			if (!r.table)
				continue;
			if (fn)
				fn(arg, &r);
			n++;
		}
	return n;
}

unsigned markguard_rules(const struct config *cfg, const struct runstate *rs,
			 markguard_rule_fn fn, void *arg)
{
	static const int families[2] = { AF_INET6, AF_INET };
	unsigned n = 0;

	/* by prefix length from the longest: a SID nested in another's
	 * prefix is caught for its own route */
	for (int len = 128; rs && rs->kend_on && len >= 0; len--) {
		for (unsigned i = 0; i < cfg->nsids && i < rs->nsids; i++) {
			uint32_t m = rs->sids[i].kend_mark;
			struct markguard_rule r;

			if (!m || cfg->sids[i].plen != len)
				continue;
			r = (struct markguard_rule){
				.family = AF_INET6,
				.priority = markguard_priority(cfg),
				.action = FR_ACT_TO_TBL, .iif = "",
				.dst = &cfg->sids[i].prefix,
				.dst_len = cfg->sids[i].plen,
				.table = markguard_catch_table(m),
				.catch_table = true,
			};
			fn(arg, &r);
			n++;
		}
	}
	if (!rs || !rs->kencap_on)
		return n;
	for (unsigned f = 0; f < 2; f++) {
		int family = families[f];
		unsigned nmain = policy_catches(cfg, rs, family,
						CONFIG_TABLE_MAIN, 0, "",
						NULL, NULL);
		bool skips = false;

		for (size_t i = 0; i < mg_nlinks; i++) {
			uint32_t t = link_table(&mg_links[i], family);

			if (t == CONFIG_TABLE_MAIN)
				continue;
			n += policy_catches(cfg, rs, family, t,
					    markguard_priority(cfg),
					    mg_links[i].name, fn, arg);
		}
		for (size_t i = 0; nmain && i < mg_nlinks; i++)
			if (link_table(&mg_links[i], family) !=
			    CONFIG_TABLE_MAIN)
				skips = true;
		if (skips) {	/* the gotos' target first: never unresolved */
			struct markguard_rule r = {
				.family = (uint8_t)family,
				.priority = markguard_priority_target(cfg),
				.action = FR_ACT_NOP, .iif = "",
			};

			fn(arg, &r);
			n++;
		}
		for (size_t i = 0; skips && i < mg_nlinks; i++) {
			struct markguard_rule r = {
				.family = (uint8_t)family,
				.priority = markguard_priority_skip(cfg),
				.action = FR_ACT_GOTO,
				.iif = mg_links[i].name,
				.target = markguard_priority_target(cfg),
			};

			if (link_table(&mg_links[i], family) ==
			    CONFIG_TABLE_MAIN)
				continue;
			fn(arg, &r);
			n++;
		}
		n += policy_catches(cfg, rs, family, CONFIG_TABLE_MAIN,
				    markguard_priority_main(cfg), "", fn, arg);
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
	g->primed = g->unmarked_primed = false;
	g->next_ms = 0;
}

bool markguard_due(const struct markguard *g, uint64_t now_ms)
{
	return now_ms >= g->next_ms;
}

static const char *kind_name(const struct markguard *g)
{
	return g->kind == MARKGUARD_ENCAP ? "kernel-encap" : "kernel-end";
}

/* Packets for the SIDs or policies reached routing without srv6d's mark:
 * hold (quietly when a hold ended moments ago: the same disturbance). */
static void guard_hold(struct markguard *g, uint64_t delta, uint64_t now_ms)
{
	g->held = true;
	g->clean = 0;
	g->armed = true;	/* the first probe window */
	g->taken = false;
	g->window_caught = 0;
	g->quiet = g->released_ms &&
		   now_ms < g->released_ms + MARKGUARD_EPISODE_MS;
	if (g->quiet) {
		g->rehelds++;
		log_debug("mark guard: %s: %" PRIu64 " packets caught again "
			  "right after the hold ended: held again", kind_name(g),
			  delta);
		return;
	}
	g->holds++;
	if (g->kind == MARKGUARD_ENCAP)
		log_msg(LOG_WARNING, "kernel-encap: %" PRIu64 " packets for "
			"its policies reached routing without srv6d's mark (a "
			"rule after srv6d's hook rewrote it, or its fwmark "
			"rule is gone): the catch rules had the kernel "
			"encapsulate them, routed by the mark they had; srv6d "
			"encapsulates itself until the marks survive", delta);
	else
		log_msg(LOG_WARNING, "kernel-end: %" PRIu64 " packets for its "
			"SIDs reached routing without srv6d's mark (a rule "
			"after srv6d's hook rewrote it, or its fwmark rule is "
			"gone): the catch rules rewrote them; srv6d does the "
			"End itself until the marks survive", delta);
}

void markguard_unmarked(struct markguard *g, bool active, int read,
			uint64_t cur, uint64_t now_ms)
{
	uint64_t delta;

	if (!active) {
		g->unmarked_primed = false;
		return;
	}
	if (read < 0)
		return;
	/* a counter made again (a reinstall) starts from 0 */
	delta = !g->unmarked_primed ? 0 :
		cur >= g->unmarked_seen ? cur - g->unmarked_seen : cur;
	g->unmarked_seen = cur;
	g->unmarked_primed = true;
	if (!delta)
		return;
	g->unmarked += delta;
	if (!g->unmarked_ms ||
	    now_ms >= g->unmarked_ms + MARKGUARD_EPISODE_MS) {
		g->unmarked_episodes++;
		if (g->kind == MARKGUARD_END)
			log_msg(LOG_NOTICE, "kernel-end: %" PRIu64 " packets "
				"for its SIDs reached the steering guard with no "
				"mark at all (a rule after srv6d's hook cleared "
				"it, as CONNMARK --restore-mark of a connection "
				"without one does): the guard gave them their "
				"SID's mark back, the kernel's End took them; "
				"nothing held back", delta);
		else
			log_msg(LOG_NOTICE, "kernel-encap: %" PRIu64 " packets "
				"for its policies reached routing with no mark "
				"at all (a rule after srv6d's hook cleared it, as "
				"CONNMARK --restore-mark of a connection without "
				"one does): the catch rules had the kernel "
				"encapsulate them as srv6d would, the outer "
				"packet unmarked as srv6d's own; nothing held "
				"back", delta);
	}
	g->unmarked_ms = now_ms;
}

void markguard_judge(struct markguard *g, bool active, int read,
		     uint64_t cur, uint64_t now_ms, bool taken)
{
	uint64_t delta;

	g->next_ms = now_ms + MARKGUARD_POLL_MS;
	if (!active) {
		g->held = g->armed = g->primed = false;
		return;
	}
	if (read < 0) {
		log_debug("mark guard: %s: cannot read the catch's counters: "
			  "%s", kind_name(g), strerror(errno));
		return;
	}
	/* a counter made again (a reinstall) starts from 0 */
	delta = !g->primed ? 0 : cur >= g->caught ? cur - g->caught : cur;
	g->caught = cur;
	g->primed = true;
	g->total += delta;
	if (!g->held) {
		if (delta)
			guard_hold(g, delta, now_ms);
		return;
	}
	g->window_caught += delta;
	if (g->armed) {		/* the probe window ends, a short one settles */
		g->armed = false;
		g->taken = taken;
		g->next_ms = now_ms + MARKGUARD_SETTLE_MS;
		return;
	}
	log_debug("mark guard: %s: probe window: a probe %s, %" PRIu64
		  " caught", kind_name(g), g->taken ? "went" : "did not go",
		  g->window_caught);
	g->clean = g->taken && !g->window_caught ? g->clean + 1 : 0;
	/* kernel-encap's probes are a flow's rare packets, which
	 * conntrack may find out of window (restoring no mark): two
	 * windows in a row */
	if (g->clean >= (g->kind == MARKGUARD_ENCAP ? MARKGUARD_CLEAN_ENCAP :
			 1)) {
		g->clean = 0;
		g->held = false;
		g->released_ms = now_ms;
		if (g->quiet)	/* the end of a quiet hold: said already */
			log_debug("mark guard: %s: released again",
				  kind_name(g));
		else if (g->kind == MARKGUARD_ENCAP)
			log_msg(LOG_INFO, "kernel-encap: srv6d's marks survive "
				"again (a probe reached its route marked): the "
				"encapsulations go to the kernel again");
		else
			log_msg(LOG_INFO, "kernel-end: srv6d's marks survive "
				"again (a probe reached its route marked): the "
				"End goes to the kernel again");
		return;
	}
	g->armed = true;
	g->taken = false;
	g->window_caught = 0;
}

/* ---- the operator's rules before srv6d's ------------------------------- */

struct before_scan {
	const struct config *cfg;
	uint8_t family;
	struct markguard_before *out;
	unsigned max, n;	/* found so far (n may pass max) */
	unsigned cut;		/* foreign ones found before srv6d's last */
	bool failed;
};

/* Whether a rule of this shape can match a forwarded packet that srv6d
 * hands the kernel by its mark (or that lost it). */
static bool before_matters(const struct fib_rule_hdr *frh,
			   const struct nlattr *const *tb)
{
	const char *iif = rtnl_attr_str(tb[FRA_IIFNAME]);
	uint32_t table = rtnl_attr_u32(tb[FRA_TABLE], frh->table);

	if (frh->action == FR_ACT_NOP)
		return false;
	if (frh->action == FR_ACT_TO_TBL && table == RT_TABLE_LOCAL)
		return false;	/* only this node's addresses */
	if (tb[FRA_OIFNAME])
		return false;	/* no oif when a forwarded packet is routed */
	if (iif && !strcmp(iif, "lo"))
		return false;	/* only locally made packets */
	return true;
}

/* The rule as `ip rule` prints it, roughly. */
static void before_text(const struct fib_rule_hdr *frh,
			const struct nlattr *const *tb, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	size_t o = 0;

#define PUT(...) do { if (o < len) o += (size_t)snprintf(buf + o, len - o, \
							 __VA_ARGS__); } while (0)
	if (frh->flags & FIB_RULE_INVERT)
		PUT("not ");
	if (tb[FRA_SRC] && frh->src_len &&
	    inet_ntop(frh->family, mnl_attr_get_payload(tb[FRA_SRC]), a,
		      sizeof(a)))
		PUT("from %s/%u ", a, frh->src_len);
	if (tb[FRA_DST] && frh->dst_len &&
	    inet_ntop(frh->family, mnl_attr_get_payload(tb[FRA_DST]), a,
		      sizeof(a)))
		PUT("to %s/%u ", a, frh->dst_len);
	if (tb[FRA_IIFNAME])
		PUT("iif %s ", rtnl_attr_str(tb[FRA_IIFNAME]));
	if (tb[FRA_FWMARK] || tb[FRA_FWMASK])
		PUT("fwmark %#x/%#x ", rtnl_attr_u32(tb[FRA_FWMARK], 0),
		    rtnl_attr_u32(tb[FRA_FWMASK], 0xffffffffu));
	if (tb[FRA_L3MDEV])
		PUT("l3mdev ");
	if (tb[FRA_IP_PROTO])
		PUT("ipproto %u ", mnl_attr_get_u8(tb[FRA_IP_PROTO]));
	if (!o)
		PUT("from all ");
	switch (frh->action) {
	case FR_ACT_TO_TBL:
		PUT("lookup %u", rtnl_attr_u32(tb[FRA_TABLE], frh->table));
		break;
	case FR_ACT_GOTO:
		PUT("goto %u", rtnl_attr_u32(tb[FRA_GOTO], 0));
		break;
	case FR_ACT_BLACKHOLE:
		PUT("blackhole");
		break;
	case FR_ACT_UNREACHABLE:
		PUT("unreachable");
		break;
	case FR_ACT_PROHIBIT:
		PUT("prohibit");
		break;
	default:
		PUT("action %u", frh->action);
		break;
	}
	if (tb[FRA_SUPPRESS_PREFIXLEN] &&
	    rtnl_attr_u32(tb[FRA_SUPPRESS_PREFIXLEN], UINT32_MAX) != UINT32_MAX)
		PUT(" suppress_prefixlength %u",
		    rtnl_attr_u32(tb[FRA_SUPPRESS_PREFIXLEN], 0));
	if (tb[FRA_PROTOCOL] && mnl_attr_get_u8(tb[FRA_PROTOCOL]))
		PUT(" proto %u", mnl_attr_get_u8(tb[FRA_PROTOCOL]));
#undef PUT
}

static int before_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[FRA_MAX + 1] = { NULL };
	const struct fib_rule_hdr *frh = mnl_nlmsg_get_payload(nlh);
	struct before_scan *b = data;
	uint32_t prio, lo = b->cfg->rule_priority;

	if (nlh->nlmsg_type != RTM_NEWRULE || frh->family != b->family)
		return MNL_CB_OK;
	rtnl_attrs(nlh, sizeof(*frh), tb, FRA_MAX);
	prio = rtnl_attr_u32(tb[FRA_PRIORITY], 0);
	if (tb[FRA_PROTOCOL] &&
	    mnl_attr_get_u8(tb[FRA_PROTOCOL]) == RTPROT_SRV6D) {
		/* srv6d's: the foreign ones so far come before it */
		if (prio >= lo && prio < lo + MARKGUARD_PRIORITIES)
			b->cut = b->n;
		return MNL_CB_OK;
	}
	if (!before_matters(frh, tb))
		return MNL_CB_OK;
	if (b->n < b->max) {
		struct markguard_before *o = &b->out[b->n];

		o->family = b->family;
		o->priority = prio;
		before_text(frh, tb, o->text, sizeof(o->text));
	}
	b->n++;
	return MNL_CB_OK;
}

int markguard_rules_before(const struct config *cfg, uint8_t family,
			   struct markguard_before *out, unsigned max)
{
	static uint8_t buf[16384];	/* control thread only */
	struct before_scan b = { .cfg = cfg, .family = family, .out = out,
				 .max = max };
	struct mnl_socket *s;
	struct nlmsghdr *nlh;
	struct fib_rule_hdr *frh;
	uint32_t seq = (uint32_t)time(NULL) ^ 0x5eedu;
	ssize_t n;
	int r = MNL_CB_OK;

	s = mnl_socket_open(NETLINK_ROUTE);
	if (!s)
		return -1;
	if (mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(s);
		return -1;
	}
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETRULE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = seq;
	frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));
	frh->family = family;
	if (mnl_socket_sendto(s, nlh, nlh->nlmsg_len) < 0) {
		mnl_socket_close(s);
		return -1;
	}
	while ((n = mnl_socket_recvfrom(s, buf, sizeof(buf))) > 0) {
		r = mnl_cb_run(buf, (size_t)n, seq, mnl_socket_get_portid(s),
			       before_cb, &b);
		if (r <= MNL_CB_STOP)
			break;
	}
	mnl_socket_close(s);
	if (n < 0 || r < 0)
		return -1;
	return (int)b.cut;	/* those after srv6d's last do not count */
}
