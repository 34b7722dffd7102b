/* rtrules.c - the ip rules, routes and devices srv6d owns for End.X,
 * End.T and the decapsulating behaviors (docs/design.md "Routing: marks and
 * the daemon's own rules"), over rtnetlink with libmnl. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/if_link.h>
#include <linux/veth.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "behavior_table.h"
#include "log.h"
#include "markguard.h"
#include "rtnl.h"
#include "rtrules.h"
#include "sysctl.h"

#define FWMASK_ALL	0xffffffffu

/* A rule or route found in a dump.  Rules select by fwmark, (a VRF
 * SID's, rtrules.h) by the in-interface, or (a mark guard's catch rule,
 * markguard.h) by the destination: the others are 0 / "".  The dump
 * keeps only srv6d's own rules (FRA_PROTOCOL RTPROT_SRV6D). */
struct rt_rule {
	uint32_t priority, fwmark, fwmask, table;
	char iif[IF_NAMESIZE];
	uint8_t action;		/* FR_ACT_TO_TBL, or FR_ACT_UNREACHABLE
				 * (table 0) after an End.DT* lookup; a
				 * catch's FR_ACT_GOTO and FR_ACT_NOP */
	uint8_t dst_len;	/* a catch rule's `to DST/LEN`; 0 none */
	struct in6_addr dst;	/* an IPv4 one in its first 4 bytes */
	uint32_t target;	/* FR_ACT_GOTO's priority; 0 none */
};

/* Every route of the family: srv6d's own (protocol RTPROT_SRV6D) may
 * go, the others are looked at only to refuse a table they occupy. */
struct rt_route {
	uint32_t table, metric;
	struct in6_addr dst;	/* an IPv4 one in its first 4 bytes */
	uint8_t dst_len;
	uint8_t family;
	uint8_t protocol;
};

/* What the config wants (the new one and, during a reload, the one still
 * in force), sorted for bsearch. */
struct rt_want {
	struct rt_rule *rules;		/* IPv6, by priority, fwmark, table */
	unsigned nrules;
	struct rt_rule *rules4;		/* IPv4, by priority, fwmark, table,
					 * iif */
	unsigned nrules4;
	uint32_t *route_tables;		/* End.X, End.DX6 tables (default
					 * route) */
	unsigned nroute_tables;
	uint32_t *route_tables4;	/* End.DX4 tables */
	unsigned nroute_tables4;
	uint32_t *keep_tables;		/* kernel-encap, kernel-end tables:
					 * every route of srv6d's there */
	unsigned nkeep_tables;
	uint32_t *dev_marks;		/* SIDs with a veth pair (vrftable) */
	unsigned ndev_marks;
	/* The reinjection devices' names (cfg's tun-name, keep's): the
	 * receiving and the sending end of each. */
	char reinject_names[4][IF_NAMESIZE];
	unsigned nreinject_names;
	/* The tables cfg (not keep) fills with routes: a route there that
	 * is not srv6d's makes the install fail (tables_check()). */
	uint32_t *fill_tables;
	unsigned nfill_tables;
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- message builders ------------------------------------------------ */

/* A request of RTRULES_MSG_SIZE bytes in buf, its ack asked for (and
 * create_flags with RTM_NEWRULE / RTM_NEWROUTE), with a family header of
 * hdrlen bytes. */
static struct nlmsghdr *msg_new(void *buf, uint16_t cmd, uint16_t create_flags,
				uint32_t seq, size_t hdrlen)
{
	bool create = cmd == RTM_NEWRULE || cmd == RTM_NEWROUTE;

	return rtnl_msg_new(buf, RTRULES_MSG_SIZE, cmd,
			    NLM_F_ACK | (create ? create_flags : 0), seq,
			    hdrlen);
}

/* A rule of `family` by fwmark (under fwmask), by in-interface, by
 * destination or by both of those (a tenant's catch, markguard.h), or
 * none (the catches' goto target); action r->action: `lookup TABLE`
 * (`unreachable` when table is 0), `goto TARGET`, `nop`; srv6d's
 * protocol, in a delete too, so that the kernel deletes only srv6d's
 * rule (a rule of another protocol that matches the same is not touched:
 * rule_find() compares FRA_PROTOCOL when it is given). */
static struct nlmsghdr *build_rule_msg(void *buf, uint16_t cmd, uint32_t seq,
				       uint8_t family, const struct rt_rule *r)
{
	struct nlmsghdr *nlh = msg_new(buf, cmd, NLM_F_CREATE | NLM_F_EXCL, seq,
				       sizeof(struct fib_rule_hdr));
	struct fib_rule_hdr *frh = mnl_nlmsg_get_payload(nlh);
	bool sel = false;

	frh->family = family;
	frh->action = r->action == FR_ACT_GOTO || r->action == FR_ACT_NOP ?
		      r->action : r->table ? FR_ACT_TO_TBL :
		      FR_ACT_UNREACHABLE;
	frh->table = frh->action == FR_ACT_TO_TBL && r->table < 256 ?
		     r->table : RT_TABLE_UNSPEC;
	mnl_attr_put_u32(nlh, FRA_PRIORITY, r->priority);
	if (r->dst_len) {
		frh->dst_len = r->dst_len;
		mnl_attr_put(nlh, FRA_DST, family == AF_INET ? 4 : 16, &r->dst);
		sel = true;
	}
	if (r->iif[0]) {
		mnl_attr_put_strz(nlh, FRA_IIFNAME, r->iif);
		sel = true;
	}
	if (!sel && (r->fwmark || r->fwmask)) {
		mnl_attr_put_u32(nlh, FRA_FWMARK, r->fwmark);
		mnl_attr_put_u32(nlh, FRA_FWMASK, r->fwmask);
	}
	if (frh->action == FR_ACT_TO_TBL)
		mnl_attr_put_u32(nlh, FRA_TABLE, r->table);
	if (frh->action == FR_ACT_GOTO)
		mnl_attr_put_u32(nlh, FRA_GOTO, r->target);
	mnl_attr_put_u8(nlh, FRA_PROTOCOL, RTPROT_SRV6D);
	return nlh;
}

/* The same from its parts (a rule by fwmark, iif or destination). */
static struct nlmsghdr *build_rule_to(void *buf, uint16_t cmd,
				      uint32_t seq, uint8_t family,
				      uint32_t priority, uint32_t fwmark,
				      uint32_t fwmask, const char *iif,
				      const void *dst, uint8_t dst_len,
				      uint32_t table)
{
	struct rt_rule r = { .priority = priority, .table = table,
			     .action = table ? FR_ACT_TO_TBL :
					       FR_ACT_UNREACHABLE };

	if (dst && dst_len) {
		r.dst_len = dst_len;
		memcpy(&r.dst, dst, family == AF_INET ? 4 : 16);
	} else if (iif && iif[0]) {
		snprintf(r.iif, sizeof(r.iif), "%s", iif);
	} else {
		r.fwmark = fwmark;
		r.fwmask = fwmask;
	}
	return build_rule_msg(buf, cmd, seq, family, &r);
}

static struct nlmsghdr *build_rule(void *buf, uint16_t cmd, uint32_t seq,
				   uint8_t family, uint32_t priority,
				   uint32_t fwmark, uint32_t fwmask,
				   const char *iif, uint32_t table)
{
	return build_rule_to(buf, cmd, seq, family, priority, fwmark, fwmask,
			     iif, NULL, 0, table);
}

struct nlmsghdr *rtrules_build_rule_to(void *buf, uint16_t cmd, uint32_t seq,
				       uint8_t family, uint32_t priority,
				       const void *dst, uint8_t dst_len,
				       uint32_t table)
{
	return build_rule_to(buf, cmd, seq, family, priority, 0, 0, NULL, dst,
			     dst_len, table);
}

struct nlmsghdr *rtrules_build_catch_rule(void *buf, uint16_t cmd,
					  uint32_t seq,
					  const struct markguard_rule *m)
{
	struct rt_rule r = { .priority = m->priority, .action = m->action,
			     .table = m->action == FR_ACT_TO_TBL ? m->table : 0,
			     .target = m->target, .dst_len = m->dst_len };

	if (m->dst && m->dst_len)
		memcpy(&r.dst, m->dst, m->family == AF_INET ? 4 : 16);
	if (m->iif)
		snprintf(r.iif, sizeof(r.iif), "%s", m->iif);
	return build_rule_msg(buf, cmd, seq, m->family, &r);
}

struct nlmsghdr *rtrules_build_rule(void *buf, uint16_t cmd, uint32_t seq,
				    uint32_t priority, uint32_t fwmark,
				    uint32_t table)
{
	return build_rule(buf, cmd, seq, AF_INET6, priority, fwmark,
			  FWMASK_ALL, NULL, table);
}

struct nlmsghdr *rtrules_build_rule4_iif(void *buf, uint16_t cmd,
					 uint32_t seq, uint32_t priority,
					 const char *iif, uint32_t table)
{
	return build_rule(buf, cmd, seq, AF_INET, priority, 0, 0, iif, table);
}

struct nlmsghdr *rtrules_build_route(void *buf, uint16_t cmd, uint32_t seq,
				     uint8_t family, uint32_t table,
				     const void *dst, uint8_t dst_len,
				     const void *gw, uint32_t oif,
				     uint32_t metric)
{
	size_t alen = family == AF_INET ? 4 : 16;
	struct nlmsghdr *nlh = msg_new(buf, cmd, NLM_F_CREATE | NLM_F_REPLACE,
				       seq, sizeof(struct rtmsg));
	struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);

	rtm->rtm_family = family;
	rtm->rtm_dst_len = dst_len;
	rtm->rtm_table = table < 256 ? table : RT_TABLE_UNSPEC;
	/* srv6d's, in a delete too: the kernel then deletes only a route of
	 * that protocol (fib_table_delete(), ip6_route_del()). */
	rtm->rtm_protocol = RTPROT_SRV6D;
	if (cmd == RTM_NEWROUTE) {
		rtm->rtm_scope = RT_SCOPE_UNIVERSE;
		rtm->rtm_type = RTN_UNICAST;
	} else {
		rtm->rtm_scope = RT_SCOPE_NOWHERE;
	}
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	if (dst_len)
		mnl_attr_put(nlh, RTA_DST, alen, dst);
	if (gw)
		mnl_attr_put(nlh, RTA_GATEWAY, alen, gw);
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, oif);
	/* a next hop by its link is an adjacency: no route to it needed
	 * (an address on the link may come later than the link) */
	if (gw && oif && cmd == RTM_NEWROUTE)
		rtm->rtm_flags |= RTNH_F_ONLINK;
	if (metric)
		mnl_attr_put_u32(nlh, RTA_PRIORITY, metric);
	return nlh;
}

void rtrules_dev_names(uint32_t mark, char rx[IF_NAMESIZE],
		       char tx[IF_NAMESIZE])
{
	snprintf(rx, IF_NAMESIZE, "srv6d%08x", mark);
	snprintf(tx, IF_NAMESIZE, "srv6d%08xt", mark);
}

/* The mark in a name of rtrules_dev_names(); false for any other name. */
static bool dev_name_mark(const char *name, uint32_t *mark)
{
	char rx[IF_NAMESIZE], tx[IF_NAMESIZE];
	unsigned long v;
	char *end;

	if (strncmp(name, "srv6d", 5) || strlen(name) < 13)
		return false;
	for (unsigned i = 5; i < 13; i++)
		if (!((name[i] >= '0' && name[i] <= '9') ||
		      (name[i] >= 'a' && name[i] <= 'f')))
			return false;
	v = strtoul(name + 5, &end, 16);
	*mark = (uint32_t)v;
	rtrules_dev_names(*mark, rx, tx);
	return !strcmp(name, rx) || !strcmp(name, tx);
}

/* ---- dumps ------------------------------------------------------------ */

/* What one dump found: n entries of elem bytes (struct rt_rule,
 * rt_route or rt_link). */
struct dump_list {
	void *v;
	unsigned n, cap;
	size_t elem;
	bool oom;
	uint8_t family;		/* asked for: the callbacks check it */
};

/* Append the entry e to l (l->oom when memory runs out). */
static void dump_list_add(struct dump_list *l, const void *e)
{
	if (l->n == l->cap) {
		unsigned ncap = l->cap ? l->cap * 2 : 64;
		void *nv = realloc(l->v, (size_t)ncap * l->elem);

		if (!nv) {
			l->oom = true;
			return;
		}
		l->v = nv;
		l->cap = ncap;
	}
	memcpy((uint8_t *)l->v + (size_t)l->n++ * l->elem, e, l->elem);
}

/* Dump `type` of `family` into l (entries of elem bytes) through cb.
 * Returns 0, or -1 with "cannot list WHAT: reason" in err (l empty). */
static int dump_list_fill(struct rtnl *nl, uint16_t type, uint8_t family,
			  size_t elem, mnl_cb_t cb, struct dump_list *l,
			  const char *what, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	l->elem = elem;
	l->family = family;
	if (rtnl_dump(nl, type, family, cb, l) < 0 || l->oom) {
		set_err(err, errlen, "cannot list %s: %s", what,
			l->oom ? strerror(ENOMEM) : strerror(errno));
		free(l->v);
		memset(l, 0, sizeof(*l));
		return -1;
	}
	return 0;
}

/* Send the delete request nlh for `what`.  Already gone (ENOENT, or
 * `gone`) is fine.  A failure sets *ret to -1 and, when it is the first,
 * "cannot delete WHAT: reason" in err. */
static void delete_one(struct rtnl *nl, const struct nlmsghdr *nlh,
		       const char *what, int gone, int *ret, char *err,
		       size_t errlen)
{
	char why[256];
	int e = rtnl_request(nl, nlh, why, sizeof(why));

	if (e && e != ENOENT && e != gone) {
		if (!*ret)
			set_err(err, errlen, "cannot delete %s: %s", what, why);
		*ret = -1;
		return;
	}
	log_debug("deleted %s", what);
}

static int rule_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[FRA_MAX + 1] = { NULL };
	const struct fib_rule_hdr *frh = mnl_nlmsg_get_payload(nlh);
	struct dump_list *l = data;
	const char *iif;
	struct rt_rule r;

	if (frh->family != l->family)
		return MNL_CB_OK;
	rtnl_attrs(nlh, sizeof(*frh), tb, FRA_MAX);
	/* srv6d's own only: whatever its priority, mark or table */
	if (!tb[FRA_PROTOCOL] ||
	    mnl_attr_validate(tb[FRA_PROTOCOL], MNL_TYPE_U8) < 0 ||
	    mnl_attr_get_u8(tb[FRA_PROTOCOL]) != RTPROT_SRV6D)
		return MNL_CB_OK;
	iif = rtnl_attr_str(tb[FRA_IIFNAME]);
	memset(&r, 0, sizeof(r));
	r.priority = rtnl_attr_u32(tb[FRA_PRIORITY], 0);
	r.fwmark = rtnl_attr_u32(tb[FRA_FWMARK], 0);
	r.fwmask = rtnl_attr_u32(tb[FRA_FWMASK], 0);
	r.table = rtnl_attr_u32(tb[FRA_TABLE], frh->table);
	r.action = frh->action;
	if (r.action != FR_ACT_TO_TBL && r.action != FR_ACT_UNREACHABLE &&
	    r.action != FR_ACT_GOTO && r.action != FR_ACT_NOP)
		return MNL_CB_OK;
	if (r.action != FR_ACT_TO_TBL)
		r.table = 0;
	if (r.action == FR_ACT_GOTO)
		r.target = rtnl_attr_u32(tb[FRA_GOTO], 0);
	if (iif)
		snprintf(r.iif, sizeof(r.iif), "%s", iif);
	if (tb[FRA_DST] && frh->dst_len &&
	    mnl_attr_get_payload_len(tb[FRA_DST]) ==
	    (frh->family == AF_INET ? 4u : 16u)) {
		r.dst_len = frh->dst_len;
		memcpy(&r.dst, mnl_attr_get_payload(tb[FRA_DST]),
		       mnl_attr_get_payload_len(tb[FRA_DST]));
	}
	/* by fwmark, iif (a VRF SID's pair) or destination (a catch
	 * rule), or a catch's nop: what srv6d makes */
	if (!tb[FRA_FWMARK] && !iif && !r.dst_len &&
	    r.action != FR_ACT_NOP)
		return MNL_CB_OK;
	dump_list_add(l, &r);
	return MNL_CB_OK;
}

static int route_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RTA_MAX + 1] = { NULL };
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct dump_list *l = data;
	struct rt_route r;

	if (rtm->rtm_family != l->family || (rtm->rtm_flags & RTM_F_CLONED))
		return MNL_CB_OK;
	rtnl_attrs(nlh, sizeof(*rtm), tb, RTA_MAX);
	memset(&r, 0, sizeof(r));
	r.family = rtm->rtm_family;
	r.protocol = rtm->rtm_protocol;
	r.table = rtnl_attr_u32(tb[RTA_TABLE], rtm->rtm_table);
	r.metric = rtnl_attr_u32(tb[RTA_PRIORITY], 0);
	r.dst_len = rtm->rtm_dst_len;
	if (tb[RTA_DST] && mnl_attr_get_payload_len(tb[RTA_DST]) ==
	    (r.family == AF_INET ? 4u : 16u))
		memcpy(&r.dst, mnl_attr_get_payload(tb[RTA_DST]),
		       mnl_attr_get_payload_len(tb[RTA_DST]));
	dump_list_add(l, &r);
	return MNL_CB_OK;
}

/* ---- what the config wants --------------------------------------------- */

/* The IPv6 fwmark rule a SID needs (BHV_RULE6 in its row: End.X, End.T,
 * End.DX6, End.DT6 and End.DT46, its IPv6 results): true with mark and
 * its table (its own one for a next hop, else sid->table). */
static bool sid_rule(const struct runstate *rs, const struct sid *s,
		     uint32_t *mark, uint32_t *table)
{
	struct sid_marks m = runstate_sid(rs, s);
	const struct behavior_desc *d = behavior_desc(s->behavior);

	if (!m.mark || !d || !(d->setup & BHV_RULE6))
		return false;
	*table = d->route == BHV_ROUTE_NEXTHOP ? m.route_table : s->table;
	*mark = m.mark;
	return true;
}

/* End.DT* (BHV_RULE_UNREACHABLE): a miss in the SID's table must not fall
 * through to the next rules (the main table: another tenant's routes); a
 * second rule right after the lookup makes it unreachable, as the
 * kernel's own End.DT6 or a VRF would. */
static bool sid_rule_terminal(const struct sid *s)
{
	const struct behavior_desc *d = behavior_desc(s->behavior);

	return d && (d->setup & BHV_RULE_UNREACHABLE);
}

/* End.X or End.T with the USD flavor (BHV_DEV4_USD): an inner IPv4
 * packet comes out of it (RFC 8986 4.16.3), which cannot carry the SID's
 * mark either. */
static bool sid_usd(const struct sid *s)
{
	const struct behavior_desc *d = behavior_desc(s->behavior);

	return d && (d->setup & BHV_DEV4_USD) && (s->flavors & FLV_USD);
}

/* A SID with IPv4 results (which the IPv6 hook cannot take as a
 * payload): they go by a device, with the SID's mark. */
static bool sid_has_dev4(const struct runstate *rs, const struct sid *s)
{
	return runstate_sid(rs, s).mark && behavior_has_dev4(s->behavior,
							     s->flavors);
}

/* When results may not all go as verdict payloads (rs->payload), with
 * `gso yes` (a super-packet result the kernel would segment wrongly
 * from a payload: reinject.h), or with `steering auto` (a packet queued
 * with a priority of its own, or the mark probe finding the verdict's
 * marks lost: reinject.c reinject_carrier_lost()), a SID whose IPv6
 * results are routed by its mark (an IPv6 fwmark rule) has those that
 * cannot go by the verdict's mark enter the kernel through a device:
 * the reinjection device with the mark, or its veth pair, where an iif
 * rule does what the mark does. */
static bool sid_has_dev6(const struct config *cfg, const struct runstate *rs,
			 const struct sid *s)
{
	return (rs->payload != PAYLOAD_ANY || cfg->gso || cfg->steering) &&
	       runstate_sid(rs, s).mark && behavior_has_dev6(s->behavior);
}

/* A SID whose results go by a device (the reinjection device with its
 * mark, or a VRF SID's veth pair). */
static bool sid_has_dev(const struct config *cfg, const struct runstate *rs,
			const struct sid *s)
{
	return sid_has_dev4(rs, s) || sid_has_dev6(cfg, rs, s);
}

/* A SID with a veth pair of its own: an End.DT* with `vrftable` whose
 * results go by a device.  The kernel routes those by the VRF device the
 * pair's receiving end is enslaved to (and the iif rules below), not by
 * the mark; every other SID's go into the reinjection device with its
 * mark (SO_MARK), routed by its fwmark rules. */
static bool sid_has_pair(const struct config *cfg, const struct runstate *rs,
			 const struct sid *s)
{
	return s->vrf && sid_has_dev(cfg, rs, s);
}

/* The IPv4 rule of a SID with IPv4 results: fwmark its mark (iif its
 * pair with `vrftable`), lookup its table. */
static bool sid_rule4(const struct config *cfg, const struct runstate *rs,
		      const struct sid *s,
		      struct rt_rule *r)
{
	struct sid_marks m = runstate_sid(rs, s);
	char tx[IF_NAMESIZE];

	if (!sid_has_dev4(rs, s))
		return false;
	if (sid_has_pair(cfg, rs, s)) {
		rtrules_dev_names(m.mark, r->iif, tx);
	} else {
		r->fwmark = config_mark_value(cfg, m.mark);
		r->fwmask = cfg->mark_mask;
	}
	r->table = m.route_table ? m.route_table : s->table;
	return true;
}

static int cmp_rule(const void *a, const void *b)
{
	const struct rt_rule *x = a, *y = b;
	int c;

	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	if (x->fwmark != y->fwmark)
		return x->fwmark < y->fwmark ? -1 : 1;
	if (x->fwmask != y->fwmask)
		return x->fwmask < y->fwmask ? -1 : 1;
	if (x->table != y->table)
		return x->table < y->table ? -1 : 1;
	if (x->action != y->action)
		return x->action < y->action ? -1 : 1;
	c = strcmp(x->iif, y->iif);
	if (c)
		return c < 0 ? -1 : 1;
	if (x->dst_len != y->dst_len)
		return x->dst_len < y->dst_len ? -1 : 1;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	c = memcmp(&x->dst, &y->dst, sizeof(x->dst));
	return c < 0 ? -1 : c > 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void want_free(struct rt_want *w)
{
	free(w->rules);
	free(w->rules4);
	free(w->route_tables);
	free(w->route_tables4);
	free(w->keep_tables);
	free(w->dev_marks);
	free(w->fill_tables);
}

/* One SID's wishes into w (fill: cfg is the config being installed, whose
 * tables must hold only srv6d's routes). */
static void want_sid(struct rt_want *w, const struct config *cfg,
		     const struct runstate *rs,
		     const struct sid *s, bool fill)
{
	struct sid_marks m = runstate_sid(rs, s);
	struct rt_rule r = { .priority = cfg->rule_priority,
			     .fwmask = cfg->mark_mask, .action = FR_ACT_TO_TBL };
	struct rt_rule r4 = { .priority = cfg->rule_priority,
			      .action = FR_ACT_TO_TBL };

	if (sid_rule(rs, s, &r.fwmark, &r.table)) {
		r.fwmark = config_mark_value(cfg, r.fwmark);
		w->rules[w->nrules++] = r;
		if (sid_has_dev6(cfg, rs, s) && sid_has_pair(cfg, rs, s)) {
			struct rt_rule ri = r;
			char tx[IF_NAMESIZE];

			ri.fwmark = ri.fwmask = 0;
			rtrules_dev_names(m.mark, ri.iif, tx);
			w->rules[w->nrules++] = ri;
			if (sid_rule_terminal(s)) {
				ri.table = 0;
				ri.action = FR_ACT_UNREACHABLE;
				w->rules[w->nrules++] = ri;
			}
		}
		if (sid_rule_terminal(s)) {
			r.table = 0;
			r.action = FR_ACT_UNREACHABLE;
			w->rules[w->nrules++] = r;
		}
	}
	if (sid_has_pair(cfg, rs, s))
		w->dev_marks[w->ndev_marks++] = m.mark;
	if (sid_rule4(cfg, rs, s, &r4)) {
		w->rules4[w->nrules4++] = r4;
		if (sid_rule_terminal(s)) {
			r4.table = 0;
			r4.action = FR_ACT_UNREACHABLE;
			w->rules4[w->nrules4++] = r4;
		}
	}
	if (behavior_route_of(s->behavior) != BHV_ROUTE_NEXTHOP || !m.mark)
		return;	/* End.T, End.DT*: the operator's table, not srv6d's */
	if (fill)
		w->fill_tables[w->nfill_tables++] = m.route_table;
	/* its own table with a route via nh */
	if (behavior_nexthop_is_v4(s->behavior)) {
		w->route_tables4[w->nroute_tables4++] = m.route_table;
		return;
	}
	w->route_tables[w->nroute_tables++] = m.route_table;
	if (sid_usd(s))
		w->route_tables4[w->nroute_tables4++] = m.route_table;
}

/* One of markguard.h's catch rules into w (arg: struct want_catch). */
struct want_catch {
	struct rt_want *w;
	const struct config *cfg;
	bool fill;
};

static void want_catch_rule(void *arg, const struct markguard_rule *m)
{
	struct want_catch *c = arg;
	struct rt_want *w = c->w;
	struct rt_rule r = { .priority = m->priority, .action = m->action,
			     .table = m->action == FR_ACT_TO_TBL ? m->table : 0,
			     .target = m->target, .dst_len = m->dst_len };

	if (m->dst && m->dst_len)
		memcpy(&r.dst, m->dst, m->family == AF_INET ? 4 : 16);
	if (m->iif)
		snprintf(r.iif, sizeof(r.iif), "%s", m->iif);
	if (m->family == AF_INET)
		w->rules4[w->nrules4++] = r;
	else
		w->rules[w->nrules++] = r;
	if (!m->catch_table)
		return;		/* kernel-encap's table, wanted above */
	w->keep_tables[w->nkeep_tables++] = m->table;
	if (c->fill)
		w->fill_tables[w->nfill_tables++] = m->table;
}

/* Counts the catch rules (want_build()'s sizes). */
static void count_catch_rule(void *arg, const struct markguard_rule *m)
{
	(void)m;
	(*(unsigned *)arg)++;
}

/* kernel-encap's (src/route/kencap_routes.h, which installs them): both
 * families' fwmark rules, and
 * every route in its tables; kernel-end's IPv6 rules (End.DX4's IPv4 one
 * too) and tables. */
static void want_kencaps(struct rt_want *w, const struct config *cfg,
			 const struct runstate *rs,
			 bool fill)
{
	struct rt_rule r = { .priority = cfg->rule_priority,
			     .fwmask = cfg->mark_mask, .action = FR_ACT_TO_TBL };

	for (unsigned i = 0; rs->kencap_on && i < rs->nkencaps; i++) {
		r.table = rs->kencaps[i].mark;
		r.fwmark = config_mark_value(cfg, r.table);
		w->rules[w->nrules++] = r;
		w->rules4[w->nrules4++] = r;
		w->keep_tables[w->nkeep_tables++] = r.table;
		if (fill)
			w->fill_tables[w->nfill_tables++] = r.table;
	}
	for (unsigned i = 0; rs->kend_on && i < cfg->nsids; i++) {
		if (!rs->sids[i].kend_mark)
			continue;
		r.table = rs->sids[i].kend_mark;	/* kernel-end */
		r.fwmark = config_mark_value(cfg, r.table);
		w->rules[w->nrules++] = r;
		if (cfg->sids[i].behavior == BHV_END_DX4)	/* nh4's */
			w->rules4[w->nrules4++] = r;
		w->keep_tables[w->nkeep_tables++] = r.table;
		if (fill)
			w->fill_tables[w->nfill_tables++] = r.table;
	}
	markguard_rules(cfg, rs, want_catch_rule,
			&(struct want_catch){ w, cfg, fill });
}

/* The reinjection device of cfg (both ends' names) into w. */
static void want_reinject_dev(struct rt_want *w, const struct config *cfg)
{
	if (w->nreinject_names + 2 > 4)
		return;
	rtrules_reinject_dev_names(cfg->tun_name,
				   w->reinject_names[w->nreinject_names],
				   w->reinject_names[w->nreinject_names + 1]);
	w->nreinject_names += 2;
}

/* Build the sorted sets of what cfg and keep want (either may be NULL:
 * nothing). */
static int want_build(struct rt_want *w, const struct config *cfg,
		      const struct runstate *rs,
		      const struct config *keep, const struct runstate *keep_rs)
{
	unsigned n = (cfg ? 3 * cfg->nsids + rs->nkencaps + cfg->npolicies :
			    0) +
		     (keep ? 3 * keep->nsids + keep_rs->nkencaps +
			     keep->npolicies : 0);

	/* the catch rules: one per link and tenant policy, and more */
	if (cfg)
		markguard_rules(cfg, rs, count_catch_rule, &n);
	if (keep)
		markguard_rules(keep, keep_rs, count_catch_rule, &n);

	memset(w, 0, sizeof(*w));
	w->rules = calloc(4 * n + 1, sizeof(*w->rules));
	w->rules4 = calloc(2 * n + 1, sizeof(*w->rules4));
	w->route_tables = calloc(n + 1, sizeof(uint32_t));
	w->route_tables4 = calloc(n + 1, sizeof(uint32_t));
	w->keep_tables = calloc(n + 1, sizeof(uint32_t));
	w->dev_marks = calloc(n + 1, sizeof(uint32_t));
	w->fill_tables = calloc(n + 1, sizeof(uint32_t));
	if (!w->rules || !w->rules4 || !w->route_tables || !w->route_tables4 ||
	    !w->keep_tables || !w->dev_marks || !w->fill_tables) {
		want_free(w);
		return -1;
	}
	for (unsigned i = 0; cfg && i < cfg->nsids; i++)
		want_sid(w, cfg, rs, &cfg->sids[i], true);
	for (unsigned i = 0; keep && i < keep->nsids; i++)
		want_sid(w, keep, keep_rs, &keep->sids[i], false);
	if (cfg) {
		want_kencaps(w, cfg, rs, true);
		want_reinject_dev(w, cfg);
	}
	if (keep) {
		want_kencaps(w, keep, keep_rs, false);
		want_reinject_dev(w, keep);
	}
	qsort(w->rules, w->nrules, sizeof(*w->rules), cmp_rule);
	qsort(w->rules4, w->nrules4, sizeof(*w->rules4), cmp_rule);
	qsort(w->route_tables, w->nroute_tables, sizeof(uint32_t), cmp_u32);
	qsort(w->route_tables4, w->nroute_tables4, sizeof(uint32_t), cmp_u32);
	qsort(w->keep_tables, w->nkeep_tables, sizeof(uint32_t), cmp_u32);
	qsort(w->dev_marks, w->ndev_marks, sizeof(uint32_t), cmp_u32);
	qsort(w->fill_tables, w->nfill_tables, sizeof(uint32_t), cmp_u32);
	return 0;
}

static bool rule_wanted(const struct rt_want *w, uint8_t family,
			const struct rt_rule *r)
{
	struct rt_rule k = *r;

	if (family == AF_INET6)
		return bsearch(&k, w->rules, w->nrules, sizeof(k), cmp_rule);
	if (k.iif[0])
		k.fwmark = k.fwmask = 0;
	return bsearch(&k, w->rules4, w->nrules4, sizeof(k), cmp_rule);
}

static bool route_wanted(const struct rt_want *w, const struct rt_route *r)
{
	const uint32_t *t = r->family == AF_INET ? w->route_tables4 :
		w->route_tables;
	unsigned n = r->family == AF_INET ? w->nroute_tables4 :
		w->nroute_tables;

	if (bsearch(&r->table, w->keep_tables, w->nkeep_tables,
		    sizeof(uint32_t), cmp_u32))
		return true;
	return r->dst_len == 0 &&
	       bsearch(&r->table, t, n, sizeof(uint32_t), cmp_u32);
}

/* ---- install / prune ------------------------------------------------- */

static void sid_name(const struct sid *s, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, &s->prefix, a, sizeof(a));
	snprintf(buf, len, "%s %s/%u", behavior_name(s->behavior), a, s->plen);
}

/* ip -4 route replace default via inet6 NH6 [dev oif] table M: End.X
 * with USD, whose decapsulated IPv4 packets leave by the IPv6 adjacency
 * (RTA_VIA, Linux 5.2 and later). */
static struct nlmsghdr *build_route4_via6(void *buf, uint32_t seq,
					  uint32_t table,
					  const struct in6_addr *nh6,
					  uint32_t oif)
{
	struct nlmsghdr *nlh = rtrules_build_route(buf, RTM_NEWROUTE, seq,
						   AF_INET, table, NULL, 0,
						   NULL, oif, 0);
	struct {
		uint16_t family;
		struct in6_addr addr;
	} __attribute__((packed)) via = { .family = AF_INET6, .addr = *nh6 };

	mnl_attr_put(nlh, RTA_VIA, sizeof(via), &via);
	if (oif)	/* as rtrules_build_route() */
		((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_flags |=
			RTNH_F_ONLINK;
	return nlh;
}

/* ip [-6] route replace default via nh [dev oif] table M (End.X, End.DX6:
 * nh6; End.DX4: nh4).  Without oif, a next hop the kernel has no route
 * to yet is no failure: the route waits (rt->route_pending, logged). */
static int sid_route_add(struct rtnl *nl, const struct runstate *rs,
			 const struct sid *s, struct sid_runtime *rt,
			 char *err, size_t errlen)
{
	struct sid_marks m = runstate_sid(rs, s);
	uint32_t msg[RTRULES_MSG_SIZE / 4];	/* aligned for nlmsghdr */
	bool v4 = behavior_nexthop_is_v4(s->behavior);
	char name[80], gw[INET6_ADDRSTRLEN];
	struct nlmsghdr *nlh;
	char dev[IF_NAMESIZE + 8] = "", why[256];
	uint32_t oif = 0;
	int e;

	sid_name(s, name, sizeof(name));
	if (v4)
		inet_ntop(AF_INET, &s->nh4, gw, sizeof(gw));
	else
		inet_ntop(AF_INET6, &s->nh6, gw, sizeof(gw));
	if (s->oif[0]) {
		oif = runstate_sid(rs, s).oif_index;	/* sid_has_route() */
		snprintf(dev, sizeof(dev), " dev %s", s->oif);
	}
	if (v4)
		nlh = rtrules_build_route(msg, RTM_NEWROUTE, ++nl->seq,
					  AF_INET, m.route_table, NULL, 0,
					  &s->nh4, oif, 0);
	else
		nlh = rtrules_build_route(msg, RTM_NEWROUTE, ++nl->seq,
					  AF_INET6, m.route_table,
					  &in6addr_any, 0, &s->nh6, oif, 0);
	e = rtnl_request(nl, nlh, why, sizeof(why));
	if (!e && sid_usd(s)) {
		/* End.X with USD: its IPv4 results to the same adjacency */
		nlh = build_route4_via6(msg, ++nl->seq, m.route_table, &s->nh6,
					oif);
		e = rtnl_request(nl, nlh, why, sizeof(why));
	}
	if ((e == EHOSTUNREACH || e == ENETUNREACH) && !s->oif[0]) {
		log_msg(LOG_WARNING, "%s: next hop %s has no route now (%s): "
			"the SID drops its packets (no_route) until it has one",
			name, gw, why);
		rt->route_pending = true;
		return 0;
	}
	if (e) {
		set_err(err, errlen, "%s: cannot add %sroute via %s%s in table "
			"%#x: %s", name, sid_usd(s) ? "IPv4 " : "", gw, dev,
			m.route_table, why);
		return -1;
	}
	log_debug("%s: route via %s%s in table %#x", name, gw, dev,
		  m.route_table);
	return 0;
}

/* Add one rule (already there is fine): by fwmark mark/mask (the
 * packet's, config_mark_value()) or iif, lookup `table`, or unreachable
 * when table is 0.  Returns 0 or -1. */
static int rule_add(struct rtnl *nl, const char *name, uint8_t family,
		    uint32_t prio, uint32_t mark, uint32_t mask,
		    const char *iif, uint32_t table, char *err, size_t errlen)
{
	uint32_t msg[RTRULES_MSG_SIZE / 4];
	char what[96], why[256];
	int e;

	if (iif)
		snprintf(what, sizeof(what), "iif %s", iif);
	else
		snprintf(what, sizeof(what), "fwmark %#x/%#x", mark, mask);
	e = rtnl_request(nl, build_rule(msg, RTM_NEWRULE, ++nl->seq, family,
					 prio, mark, mask, iif, table),
			  why, sizeof(why));
	if (e && e != EEXIST) {
		set_err(err, errlen,
			"%s: cannot add rule priority %u %s %s%#x: "
			"%s", name, prio, what, table ? "lookup " : "unreachable ",
			table, why);
		return -1;
	}
	log_debug("%s: rule priority %u %s %s %#x", name, prio, what,
		  table ? "lookup" : "unreachable", table);
	return 0;
}

int rtrules_rule_add_mark(struct rtnl *nl, const struct config *cfg,
			  const char *name, uint8_t family,
			  uint32_t priority, uint32_t mark, uint32_t table,
			  char *err, size_t errlen)
{
	return rule_add(nl, name, family, priority,
			config_mark_value(cfg, mark), cfg->mark_mask, NULL,
			table, err, errlen);
}

/* The IPv4 rule r of a SID (sid_rule4(): by fwmark, or by iif with
 * `vrftable`), lookup `table` (0: unreachable).  Returns 0 or -1. */
static int rule4_add(struct rtnl *nl, const char *name, uint32_t prio,
		     const struct rt_rule *r, uint32_t table, char *err,
		     size_t errlen)
{
	return rule_add(nl, name, AF_INET, prio, r->fwmark, r->fwmask,
			r->iif[0] ? r->iif : NULL, table, err, errlen);
}

/* ip -6 rule add priority P fwmark M lookup T [+ unreachable], and
 * ip -4 rule add priority P fwmark M (vrftable: iif DEV) lookup T
 * [+ unreachable] */
static int sid_rule_add(struct rtnl *nl, const struct config *cfg,
			const struct runstate *rs,
			const struct sid *s, char *err, size_t errlen)
{
	struct rt_rule r4 = { .priority = 0 };
	uint32_t prio = cfg->rule_priority, mark = 0, table = 0;
	bool term = sid_rule_terminal(s);
	char name[80];

	sid_name(s, name, sizeof(name));
	if (sid_rule(rs, s, &mark, &table) &&
	    (rule_add(nl, name, AF_INET6, prio, config_mark_value(cfg, mark),
		      cfg->mark_mask, NULL, table, err, errlen) < 0 ||
	     (term && rule_add(nl, name, AF_INET6, prio,
			       config_mark_value(cfg, mark), cfg->mark_mask,
			       NULL, 0, err, errlen) < 0)))
		return -1;
	if (sid_has_dev6(cfg, rs, s) && sid_has_pair(cfg, rs, s)) {
		char rx[IF_NAMESIZE], tx[IF_NAMESIZE];

		rtrules_dev_names(runstate_sid(rs, s).mark, rx, tx);
		if (rule_add(nl, name, AF_INET6, prio, 0, 0, rx, table, err,
			     errlen) < 0 ||
		    (term && rule_add(nl, name, AF_INET6, prio, 0, 0, rx, 0,
				      err, errlen) < 0))
			return -1;
	}
	if (sid_rule4(cfg, rs, s, &r4) &&
	    (rule4_add(nl, name, prio, &r4, r4.table, err, errlen) < 0 ||
	     (term && rule4_add(nl, name, prio, &r4, 0, err, errlen) < 0)))
		return -1;
	return 0;
}

/* The first route found in a table the config fills that is not
 * srv6d's (tables_check()): "" none. */
struct prune_conflict {
	char what[192];
};

/* What one prune pass looks at: the wishes, the family (of rules and
 * routes; links: AF_UNSPEC), and where to say that a table cfg fills
 * holds another's route (NULL: not asked). */
struct prune_ctx {
	const struct rt_want *w;
	uint8_t family;
	struct prune_conflict *conflict;
};

/* One of srv6d's rules (the dump keeps no other) that w does not want:
 * its delete request in msg, its name in what.  NULL for a rule that
 * stays. */
static struct nlmsghdr *rule_doomed(const struct prune_ctx *c, const void *e,
				    void *msg, uint32_t seq, char *what,
				    size_t whatlen)
{
	const struct rt_rule *r = e;

	if (rule_wanted(c->w, c->family, r))
		return NULL;
	if (r->action == FR_ACT_NOP) {
		snprintf(what, whatlen, "rule priority %u nop", r->priority);
	} else if (r->action == FR_ACT_GOTO) {
		snprintf(what, whatlen, "rule priority %u iif %s goto %u",
			 r->priority, r->iif, r->target);
	} else if (r->dst_len) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(c->family, &r->dst, a, sizeof(a));
		snprintf(what, whatlen, "rule priority %u%s%s to %s/%u lookup "
			 "%#x", r->priority, r->iif[0] ? " iif " : "", r->iif,
			 a, r->dst_len, r->table);
	} else {
		snprintf(what, whatlen, "rule priority %u fwmark %#x iif %s "
			 "lookup %#x", r->priority, r->fwmark, r->iif,
			 r->table);
	}
	return build_rule_msg(msg, RTM_DELRULE, seq, c->family, r);
}

/* A route that is not srv6d's in a table c's config fills: said in
 * c->conflict (the first one), never touched. */
static void route_conflict(const struct prune_ctx *c, const struct rt_route *r)
{
	char a[INET6_ADDRSTRLEN];

	if (!c->conflict || c->conflict->what[0] ||
	    !bsearch(&r->table, c->w->fill_tables, c->w->nfill_tables,
		     sizeof(uint32_t), cmp_u32))
		return;
	inet_ntop(c->family, &r->dst, a, sizeof(a));
	snprintf(c->conflict->what, sizeof(c->conflict->what), "table %u "
		 "(%#x) holds the IPv%c route %s/%u (proto %u), which srv6d "
		 "did not make", r->table, r->table,
		 c->family == AF_INET ? '4' : '6', a, r->dst_len, r->protocol);
}

/* The same for a route: only srv6d's go (whatever their table). */
static struct nlmsghdr *route_doomed(const struct prune_ctx *c,
				     const void *e, void *msg, uint32_t seq,
				     char *what, size_t whatlen)
{
	const struct rt_route *r = e;
	char a[INET6_ADDRSTRLEN];

	if (r->protocol != RTPROT_SRV6D) {
		route_conflict(c, r);
		return NULL;
	}
	if (route_wanted(c->w, r))
		return NULL;
	inet_ntop(c->family, &r->dst, a, sizeof(a));
	snprintf(what, whatlen, "route %s/%u in table %#x", a, r->dst_len,
		 r->table);
	return rtrules_build_route(msg, RTM_DELROUTE, seq, c->family,
				   r->table, &r->dst, r->dst_len, NULL, 0,
				   r->metric);
}

/* ---- devices: the SIDs' veth pairs, VRF devices, oif ------------------ */

/* A link found in a dump. */
struct rt_link {
	uint32_t index;
	char name[IF_NAMESIZE];
	bool vrf;
	uint32_t vrf_table;
	bool veth;
	bool ours;	/* srv6d's veth (link_mark_ours()) */
	char alias[64];
	uint8_t mac[6];
	bool has_mac;
};

/* Is the link a VRF device, and of which table?  A veth? */
static void link_vrf(const struct nlattr *linkinfo, struct rt_link *k)
{
	const struct nlattr *tb[IFLA_INFO_MAX + 1] = { NULL };
	const struct nlattr *vrf[IFLA_VRF_MAX + 1] = { NULL };
	const char *kind;

	rtnl_attrs_nested(linkinfo, tb, IFLA_INFO_MAX);
	kind = rtnl_attr_str(tb[IFLA_INFO_KIND]);
	k->veth = kind && !strcmp(kind, "veth");
	if (!kind || strcmp(kind, "vrf"))
		return;
	k->vrf = true;
	if (tb[IFLA_INFO_DATA] &&
	    mnl_attr_validate(tb[IFLA_INFO_DATA], MNL_TYPE_NESTED) == 0)
		rtnl_attrs_nested(tb[IFLA_INFO_DATA], vrf, IFLA_VRF_MAX);
	k->vrf_table = rtnl_attr_u32(vrf[IFLA_VRF_TABLE], 0);
}

/* Whether k is one of srv6d's veth ends: its alias RTRULES_LINK_ALIAS
 * (set once the pair is made), or, for a pair a crash left before that
 * (or an older srv6d made), a name of srv6d's (srv6d...: the default
 * tun-name's, a VRF SID's) with the MAC address srv6d gives that end
 * (rtrules_dev_mac() of the mark in a VRF SID's name, of 0 for the
 * reinjection device's): a veth no one else makes by chance.  (A
 * tun-name of another form is known by its alias only.) */
static bool link_mark_ours(const struct rt_link *k)
{
	uint8_t rx[6], tx[6];
	uint32_t mark = 0;

	if (!k->veth)
		return false;
	if (!strcmp(k->alias, RTRULES_LINK_ALIAS))
		return true;
	if (!k->has_mac || strncmp(k->name, "srv6d", 5))
		return false;
	if (!dev_name_mark(k->name, &mark))
		mark = 0;
	rtrules_dev_mac(mark, true, rx);
	rtrules_dev_mac(mark, false, tx);
	return !memcmp(k->mac, rx, 6) || !memcmp(k->mac, tx, 6);
}

/* A link message into k.  Returns 0, or -1 without a name. */
static int link_parse(const struct nlmsghdr *nlh, struct rt_link *k)
{
	const struct nlattr *tb[IFLA_MAX + 1] = { NULL };
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const char *name, *alias;

	memset(k, 0, sizeof(*k));
	k->index = (uint32_t)ifi->ifi_index;
	rtnl_attrs(nlh, sizeof(*ifi), tb, IFLA_MAX);
	name = rtnl_attr_str(tb[IFLA_IFNAME]);
	if (!name)
		return -1;
	snprintf(k->name, sizeof(k->name), "%s", name);
	alias = rtnl_attr_str(tb[IFLA_IFALIAS]);
	if (alias)
		snprintf(k->alias, sizeof(k->alias), "%s", alias);
	if (tb[IFLA_ADDRESS] && mnl_attr_get_payload_len(tb[IFLA_ADDRESS]) == 6) {
		memcpy(k->mac, mnl_attr_get_payload(tb[IFLA_ADDRESS]), 6);
		k->has_mac = true;
	}
	if (tb[IFLA_LINKINFO] &&
	    mnl_attr_validate(tb[IFLA_LINKINFO], MNL_TYPE_NESTED) == 0)
		link_vrf(tb[IFLA_LINKINFO], k);
	k->ours = link_mark_ours(k);
	return 0;
}

static int link_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump_list *l = data;
	struct rt_link k;

	if (nlh->nlmsg_type == RTM_NEWLINK && link_parse(nlh, &k) == 0)
		dump_list_add(l, &k);
	return MNL_CB_OK;
}

/* Every link into l (struct rt_link entries).  Returns 0 or -1. */
static int links_dump(struct rtnl *nl, struct dump_list *l, char *err,
		      size_t errlen)
{
	return dump_list_fill(nl, RTM_GETLINK, AF_UNSPEC,
			      sizeof(struct rt_link), link_dump_cb, l,
			      "interfaces", err, errlen);
}

/* The VRF device of table, or 0. */
static uint32_t vrf_of_table(const struct dump_list *l, uint32_t table)
{
	const struct rt_link *v = l->v;

	for (unsigned i = 0; i < l->n; i++)
		if (v[i].vrf && v[i].vrf_table == table)
			return v[i].index;
	return 0;
}

/* ip link add RX address MAC [mtu MTU] type veth peer name TX address
 * MAC' [mtu MTU] (mtu 0: the default) for the pair of `mark` (the MACs'
 * mark: rtrules_dev_mac()) */
static struct nlmsghdr *build_veth_named(void *buf, uint32_t seq,
					 const char *rx, const char *tx,
					 uint32_t mark, uint32_t mtu)
{
	struct nlattr *info, *data, *peer;
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;
	uint8_t mac[6];

	nlh = rtnl_msg_new(buf, RTRULES_MSG_SIZE, RTM_NEWLINK,
			   NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, seq,
			   sizeof(*ifi));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, rx);
	rtrules_dev_mac(mark, true, mac);
	mnl_attr_put(nlh, IFLA_ADDRESS, sizeof(mac), mac);
	if (mtu)
		mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	peer = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, tx);
	rtrules_dev_mac(mark, false, mac);
	mnl_attr_put(nlh, IFLA_ADDRESS, sizeof(mac), mac);
	if (mtu)
		mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	mnl_attr_nest_end(nlh, peer);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return nlh;
}

/* The SID's pair of `mark` (rtrules_dev_names()). */
static struct nlmsghdr *build_veth(void *buf, uint32_t seq, uint32_t mark)
{
	char rx[IF_NAMESIZE], tx[IF_NAMESIZE];

	rtrules_dev_names(mark, rx, tx);
	/* The reinjection device's MTU: a result the kernel would forward
	 * is never refused for its size at the pair (EMSGSIZE). */
	return build_veth_named(buf, seq, rx, tx, mark, RTRULES_REINJECT_MTU);
}

/* ip link set INDEX up [master MASTER | nomaster] (master < 0: leave) */
static struct nlmsghdr *build_link_up(void *buf, uint32_t seq, uint32_t index,
				      int64_t master)
{
	struct nlmsghdr *nlh = rtnl_msg_new(buf, RTRULES_MSG_SIZE, RTM_NEWLINK,
					    NLM_F_ACK, seq,
					    sizeof(struct ifinfomsg));
	struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)index;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	if (master >= 0)
		mnl_attr_put_u32(nlh, IFLA_MASTER, (uint32_t)master);
	return nlh;
}

/* ip link del NAME */
static struct nlmsghdr *build_link_del(void *buf, uint32_t seq,
				       const char *name)
{
	struct nlmsghdr *nlh = rtnl_msg_new(buf, RTRULES_MSG_SIZE, RTM_DELLINK,
					    NLM_F_ACK, seq,
					    sizeof(struct ifinfomsg));

	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	return nlh;
}

/* ip link set NAME alias RTRULES_LINK_ALIAS (a veth's alias cannot be
 * given when it is made). */
static struct nlmsghdr *build_link_alias(void *buf, uint32_t seq,
					 const char *name)
{
	struct nlmsghdr *nlh = rtnl_msg_new(buf, RTRULES_MSG_SIZE, RTM_NEWLINK,
					    NLM_F_ACK, seq,
					    sizeof(struct ifinfomsg));

	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_strz(nlh, IFLA_IFALIAS, RTRULES_LINK_ALIAS);
	return nlh;
}

static int link_get_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rt_link *k = data;

	if (nlh->nlmsg_type == RTM_NEWLINK)
		link_parse(nlh, k);
	return MNL_CB_OK;
}

/* The link called name into *k.  Returns 0, ENODEV when there is none,
 * or another errno. */
static int link_get(struct rtnl *nl, const char *name, struct rt_link *k)
{
	uint32_t msg[RTRULES_MSG_SIZE / 4];
	struct nlmsghdr *nlh = rtnl_msg_new(msg, sizeof(msg), RTM_GETLINK,
					    NLM_F_ACK, ++nl->seq,
					    sizeof(struct ifinfomsg));
	char why[128];
	int e;

	memset(k, 0, sizeof(*k));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	e = rtnl_request_cb(nl, nlh, link_get_cb, k, why, sizeof(why));
	if (!e && !k->name[0])
		e = ENODEV;
	return e;
}

/* The veth pair rx/tx that srv6d has just made, or found made (EEXIST):
 * each end that exists must be srv6d's (link_mark_ours()), and gets
 * srv6d's alias.  Returns 0, or -1 with "WHAT: NAME is not srv6d's ..."
 * in err. */
static int pair_claim(struct rtnl *nl, const char *what, const char *rx,
		      const char *tx, const char *other, char *err,
		      size_t errlen)
{
	uint32_t msg[RTRULES_MSG_SIZE / 4];
	const char *end[2] = { rx, tx };
	struct rt_link k;
	char why[256];
	int e;

	for (unsigned i = 0; i < 2; i++) {
		e = link_get(nl, end[i], &k);
		if (e == ENODEV)
			continue;
		if (e || !k.ours) {
			set_err(err, errlen, "%s: %s exists and is not srv6d's "
				"(%s; srv6d's veth ends have the alias \"%s\"): "
				"srv6d does not take over or delete another's "
				"link: remove it, or choose another %s", what,
				end[i], e ? strerror(e) : k.veth ?
				"a veth without srv6d's alias" :
				"not a veth", RTRULES_LINK_ALIAS, other);
			return -1;
		}
		if (!strcmp(k.alias, RTRULES_LINK_ALIAS))
			continue;
		e = rtnl_request(nl, build_link_alias(msg, ++nl->seq, end[i]),
				 why, sizeof(why));
		if (e) {
			set_err(err, errlen, "%s: cannot give %s the alias "
				"%s: %s", what, end[i], RTRULES_LINK_ALIAS, why);
			return -1;
		}
	}
	return 0;
}

/* Bring the VRF SID's veth pair up (creating it if need be), with the
 * receiving end in the VRF vrf and the sysctls its traffic needs (those
 * of the reinjection device's receiving end); set r's ifindex to the
 * sending end, its rx_ifindex to the receiving one.  Returns 0 or -1. */
static int sid_dev_setup(struct rtnl *nl, const struct runstate *rs,
			 const struct sid *s,
			 struct sid_runtime *r, uint32_t vrf, bool v6,
			 char *err, size_t errlen)
{
	struct sid_marks m = runstate_sid(rs, s);
	uint32_t msg[RTRULES_MSG_SIZE / 4];
	char rx[IF_NAMESIZE], tx[IF_NAMESIZE], name[80], why[256];
	uint32_t rxi, txi;
	int e;

	sid_name(s, name, sizeof(name));
	rtrules_dev_names(m.mark, rx, tx);
	e = rtnl_request(nl, build_veth(msg, ++nl->seq, m.mark), why,
			  sizeof(why));
	if (e && e != EEXIST) {
		set_err(err, errlen, "%s: cannot create veth pair %s/%s: %s",
			name, rx, tx, why);
		return -1;
	}
	if (pair_claim(nl, name, rx, tx, "mark-base", err, errlen) < 0)
		return -1;
	rxi = if_nametoindex(rx);
	txi = if_nametoindex(tx);
	if (!rxi || !txi) {
		set_err(err, errlen, "%s: veth pair %s/%s: %s is missing "
			"(remove the stale device)", name, rx, tx,
			rxi ? tx : rx);
		return -1;
	}
	/* No IPv6 on them (no DAD, no router solicitations), unless IPv6
	 * results come in on the receiving end (rs->payload): then
	 * IPv6 without addresses, forwarding as all/forwarding; IPv4 from
	 * anywhere may come in on the receiving end. */
	sysctl_dev_write("ipv6", tx, "disable_ipv6", "1");
	if (v6) {
		char fwd[16] = "1";

		sysctl_read("/proc/sys/net/ipv6/conf/all/forwarding", fwd,
			    sizeof(fwd));
		sysctl_dev_write("ipv6", rx, "addr_gen_mode", "1");
		sysctl_dev_write("ipv6", rx, "accept_dad", "0");
		sysctl_dev_write("ipv6", rx, "accept_ra", "0");
		sysctl_dev_write("ipv6", rx, "disable_ipv6", "0");
		sysctl_dev_write("ipv6", rx, "forwarding", fwd);
	} else {
		sysctl_dev_write("ipv6", rx, "disable_ipv6", "1");
	}
	sysctl_dev_write("ipv4", rx, "rp_filter", "0");
	sysctl_dev_write("ipv4", rx, "accept_local", "1");
	e = rtnl_request(nl, build_link_up(msg, ++nl->seq, rxi, vrf), why,
			  sizeof(why));
	if (!e)
		e = rtnl_request(nl, build_link_up(msg, ++nl->seq, txi, -1),
				  why, sizeof(why));
	if (e) {
		set_err(err, errlen, "%s: cannot bring %s/%s up%s: %s", name,
			rx,
			tx, vrf ? " in its VRF" : "", why);
		return -1;
	}
	r->ifindex = txi;
	r->rx_ifindex = rxi;
	log_debug("%s: veth %s (ifindex %u) -> %s", name, tx, txi, rx);
	return 0;
}

const struct sid *rtrules_sid_by_device(const struct config *cfg,
					 const struct runstate *rs)
{
	for (unsigned i = 0; i < cfg->nsids; i++) {
		const struct sid *s = &cfg->sids[i];

		if (behavior_route_of(s->behavior) == BHV_ROUTE_L2 ||
		    sid_has_dev(cfg, rs, s))
			return &cfg->sids[i];
	}
	return NULL;
}

/* One SID's devices into r: its VRF device looked up, End.DX2's oif
 * resolved (or the next hop's oif), a VRF SID's veth pair set up, or
 * r->by_mark for the SIDs whose results go into the reinjection device.
 * Returns 0 or -1. */
static int sid_devices(struct rtnl *nl, const struct config *cfg,
		       const struct runstate *rs,
		       const struct dump_list *l, const struct sid *s,
		       struct sid_runtime *r, char *err, size_t errlen)
{
	uint32_t vrf = 0;
	char name[80];

	sid_name(s, name, sizeof(name));
	if (s->vrf) {
		vrf = vrf_of_table(l, s->table);
		if (!vrf) {
			set_err(err, errlen, "%s: vrftable %u: no VRF device "
				"has table %u (create one: ip link add NAME "
				"type vrf table %u; it needs a kernel with VRF "
				"devices)", name, s->table, s->table, s->table);
			return -1;
		}
	}
	/* The oif as resolved (struct sid_marks' oif_index; 0: no such
	 * link yet, the SID drops its packets until the daemon puts the
	 * config in force again): End.DX2's frames leave by it, the
	 * workers check a next hop's is up (egress.h). */
	if (behavior_route_of(s->behavior) == BHV_ROUTE_L2) {
		r->ifindex = runstate_sid(rs, s).oif_index;
		return 0;
	}
	if (s->oif[0])
		r->oif_index = runstate_sid(rs, s).oif_index;
	if (sid_has_pair(cfg, rs, s))
		return sid_dev_setup(nl, rs, s, r, vrf, sid_has_dev6(cfg, rs,
								     s), err,
				     errlen);
	/* Into the reinjection device with its mark: the engine gives r its
	 * ifindex when it publishes the generation. */
	r->by_mark = sid_has_dev(cfg, rs, s);
	return 0;
}

/* The devices of every SID into rt (cfg->nsids entries, zeroed).
 * Returns 0 or -1. */
static int sids_devices(struct rtnl *nl, const struct config *cfg,
			const struct runstate *rs,
			struct sid_runtime *rt, char *err, size_t errlen)
{
	struct dump_list l;
	int ret = 0;

	if (links_dump(nl, &l, err, errlen) < 0)
		return -1;
	for (unsigned i = 0; i < cfg->nsids && !ret; i++)
		ret = sid_devices(nl, cfg, rs, &l, &cfg->sids[i], &rt[i], err,
				  errlen);
	free(l.v);
	return ret;
}

/* Whether w wants the link called name: a VRF SID's pair end, or the
 * reinjection device's. */
static bool dev_wanted(const struct rt_want *w, const char *name)
{
	uint32_t mark;

	for (unsigned i = 0; i < w->nreinject_names; i++)
		if (!strcmp(name, w->reinject_names[i]))
			return true;
	return dev_name_mark(name, &mark) &&
	       bsearch(&mark, w->dev_marks, w->ndev_marks, sizeof(uint32_t),
		       cmp_u32);
}

/* The same for a link: one of srv6d's veth ends (link_mark_ours(),
 * whatever its mark or name) that w does not want: a VRF SID's pair gone,
 * one an older srv6d made for any SID with IPv4 results, a reinjection
 * device of another tun-name.  Deleting one end deletes both (the other's
 * delete then finds it gone). */
static struct nlmsghdr *dev_doomed(const struct prune_ctx *c, const void *e,
				   void *msg, uint32_t seq, char *what,
				   size_t whatlen)
{
	const struct rt_link *k = e;

	if (!k->ours || dev_wanted(c->w, k->name))
		return NULL;
	snprintf(what, whatlen, "veth pair %s", k->name);
	return build_link_del(msg, seq, k->name);
}

/* One kind of object a prune deletes: how to dump it, what its entries
 * are, which of them go (rule_doomed(), ...). */
struct prune_kind {
	uint16_t type;		/* RTM_GETRULE, RTM_GETROUTE, RTM_GETLINK */
	size_t elem;
	mnl_cb_t cb;
	const char *list;	/* "rules": the dump's name in a message */
	int gone;		/* the errno of "already gone" (and ENOENT) */
	struct nlmsghdr *(*doomed)(const struct prune_ctx *c, const void *e,
				   void *msg, uint32_t seq, char *what,
				   size_t whatlen);
};

static const struct prune_kind prune_rules = {
	RTM_GETRULE, sizeof(struct rt_rule), rule_dump_cb, "rules", ENOENT,
	rule_doomed,
};
static const struct prune_kind prune_routes = {
	RTM_GETROUTE, sizeof(struct rt_route), route_dump_cb, "routes", ESRCH,
	route_doomed,
};
static const struct prune_kind prune_devs = {
	RTM_GETLINK, sizeof(struct rt_link), link_dump_cb, "interfaces",
	ENODEV, dev_doomed,
};

/* Delete the objects of kind k that c says go.  Returns 0 or -1 (the
 * first error in err; it still tries every entry). */
static int prune_kind(struct rtnl *nl, const struct prune_kind *k,
		      const struct prune_ctx *c, char *err, size_t errlen)
{
	uint32_t msg[RTRULES_MSG_SIZE / 4];
	char list[32], what[128];
	struct dump_list l;
	int ret = 0;

	if (c->family == AF_UNSPEC)
		snprintf(list, sizeof(list), "%s", k->list);
	else
		snprintf(list, sizeof(list), "IPv%c %s",
			 c->family == AF_INET ? '4' : '6', k->list);
	if (dump_list_fill(nl, k->type, c->family, k->elem, k->cb, &l, list,
			   err, errlen) < 0)
		return -1;
	for (unsigned i = 0; i < l.n; i++) {
		const void *e = (const uint8_t *)l.v + (size_t)i * k->elem;
		const struct nlmsghdr *nlh = k->doomed(c, e, msg, nl->seq + 1,
						       what, sizeof(what));

		if (!nlh)
			continue;
		nl->seq++;
		delete_one(nl, nlh, what, k->gone, &ret, err, errlen);
	}
	free(l.v);
	return ret;
}

/* A prune's passes, in order. */
static const struct {
	const struct prune_kind *k;
	uint8_t family;
} prune_passes[] = {
	{ &prune_rules, AF_INET6 }, { &prune_rules, AF_INET },
	{ &prune_routes, AF_INET6 }, { &prune_routes, AF_INET },
	{ &prune_devs, AF_UNSPEC },
};

/* Remove what of srv6d's (RTPROT_SRV6D, link_mark_ours()) neither cfg
 * nor keep wants (both may be NULL): rules, then routes (a rule never
 * points at a table we emptied while it still exists), then devices.
 * Nothing else is touched.  conflict (may be NULL) gets the first route
 * not srv6d's in a table cfg fills.  Returns 0 or -1 (first error in
 * err). */
static int prune(struct rtnl *nl, const struct config *cfg,
		 const struct runstate *rs,
		 const struct config *keep, const struct runstate *keep_rs,
		 struct prune_conflict *conflict,
		 char *err, size_t errlen)
{
	struct rt_want w;
	int ret = 0;

	if (want_build(&w, cfg, rs, keep, keep_rs) < 0) {
		set_err(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	for (unsigned i = 0; i < sizeof(prune_passes) / sizeof(prune_passes[0]);
	     i++) {
		struct prune_ctx c = { &w, prune_passes[i].family, conflict };

		if (prune_kind(nl, prune_passes[i].k, &c, ret ? NULL : err,
			       ret ? 0 : errlen) < 0)
			ret = -1;
	}
	want_free(&w);
	return ret;
}

/* Its own table's route to the next hop, but not via an oif that is no
 * link yet (the SID drops its packets until then). */
static bool sid_has_route(const struct runstate *rs, const struct sid *s)
{
	return runstate_sid(rs, s).mark &&
	       behavior_route_of(s->behavior) == BHV_ROUTE_NEXTHOP &&
	       (!s->oif[0] || runstate_sid(rs, s).oif_index);
}

/* An rtnetlink socket for one install or prune (never per packet). */
static struct rtnl *rt_nl_new(char *err, size_t errlen)
{
	struct rtnl *nl = malloc(sizeof(*nl));

	if (!nl) {
		set_err(err, errlen, "%s", strerror(ENOMEM));
		return NULL;
	}
	if (rtnl_open(nl, 0) < 0) {
		set_err(err, errlen, "cannot open rtnetlink socket: %s",
			strerror(errno));
		free(nl);
		return NULL;
	}
	return nl;
}

static void rt_nl_free(struct rtnl *nl)
{
	rtnl_close(nl);
	free(nl);
}

/* ---- the reinjection device ------------------------------------------- */

void rtrules_reinject_dev_names(const char *name, char rx[IF_NAMESIZE],
				char tx[IF_NAMESIZE])
{
	size_t n = strlen(name);

	snprintf(rx, IF_NAMESIZE, "%s", name);
	if (n + 1 < IF_NAMESIZE) {
		snprintf(tx, IF_NAMESIZE, "%st", name);
		return;
	}
	/* A name of 15 characters: its last one becomes t (u if it is t). */
	snprintf(tx, IF_NAMESIZE, "%s", name);
	tx[IF_NAMESIZE - 2] = name[IF_NAMESIZE - 2] == 't' ? 'u' : 't';
}

/* The sysctls of the receiving end: IPv6 without addresses, forwarding
 * as all/forwarding, IPv4 from anywhere (decapsulated traffic, locally
 * originated traffic steered through srv6d); the sending end carries no
 * IP. */
static void reinject_dev_sysctls(const char *rx, const char *tx)
{
	char fwd[16] = "1", rpf[16];

	sysctl_dev_write("ipv6", tx, "disable_ipv6", "1");
	sysctl_read("/proc/sys/net/ipv6/conf/all/forwarding", fwd, sizeof(fwd));
	sysctl_dev_write("ipv6", rx, "addr_gen_mode", "1");
	sysctl_dev_write("ipv6", rx, "accept_dad", "0");
	sysctl_dev_write("ipv6", rx, "accept_ra", "0");
	sysctl_dev_write("ipv6", rx, "disable_ipv6", "0");
	sysctl_dev_write("ipv6", rx, "forwarding", fwd);
	sysctl_dev_write("ipv4", rx, "rp_filter", "0");
	sysctl_dev_write("ipv4", rx, "accept_local", "1");
	/* The effective rp_filter is max(all, device). */
	if (sysctl_read("/proc/sys/net/ipv4/conf/all/rp_filter", rpf,
			sizeof(rpf)) == 0 && strcmp(rpf, "1") == 0)
		log_msg(LOG_WARNING, "%s: net.ipv4.conf.all.rp_filter is 1 "
			"(strict): decapsulated IPv4 whose source is not routed "
			"via %s will be dropped", rx, rx);
}

int rtrules_reinject_dev_open(const char *name, uint32_t *tx_ifindex,
			      uint32_t *rx_ifindex, char *err, size_t errlen)
{
	uint32_t msg[RTRULES_MSG_SIZE / 4];
	char rx[IF_NAMESIZE], tx[IF_NAMESIZE], why[256];
	struct rtnl *nl = rt_nl_new(err, errlen);
	uint32_t rxi, txi;
	int e, ret = -1;

	if (!nl)
		return -1;
	rtrules_reinject_dev_names(name, rx, tx);
	e = rtnl_request(nl, build_veth_named(msg, ++nl->seq, rx, tx, 0,
					      RTRULES_REINJECT_MTU),
			 why, sizeof(why));
	if (e && e != EEXIST) {
		set_err(err, errlen, "cannot create the reinjection veth pair "
			"%s/%s: %s", rx, tx, why);
		goto out;
	}
	/* A pair made before (a crash's leftover: taken over) must be
	 * srv6d's. */
	if (pair_claim(nl, "the reinjection device", rx, tx, "tun-name", err,
		       errlen) < 0)
		goto out;
	rxi = if_nametoindex(rx);
	txi = if_nametoindex(tx);
	if (!rxi || !txi) {
		set_err(err, errlen, "reinjection veth pair %s/%s: %s is "
			"missing (is %s another kind of device? remove it)",
			rx, tx, rxi ? tx : rx, rxi ? rx : tx);
		goto out;
	}
	reinject_dev_sysctls(rx, tx);
	e = rtnl_request(nl, build_link_up(msg, ++nl->seq, rxi, -1), why,
			 sizeof(why));
	if (!e)
		e = rtnl_request(nl, build_link_up(msg, ++nl->seq, txi, -1),
				 why, sizeof(why));
	if (e) {
		set_err(err, errlen, "cannot bring %s/%s up: %s", rx, tx, why);
		goto out;
	}
	*tx_ifindex = txi;
	*rx_ifindex = rxi;
	log_debug("reinjection veth %s (ifindex %u) -> %s (ifindex %u)", tx,
		  txi, rx, rxi);
	ret = 0;
out:
	rt_nl_free(nl);
	return ret;
}

void rtrules_reinject_dev_close(const char *name)
{
	uint32_t msg[RTRULES_MSG_SIZE / 4];
	char rx[IF_NAMESIZE], tx[IF_NAMESIZE], why[256], err[256];
	struct rtnl *nl = rt_nl_new(err, sizeof(err));
	struct rt_link k;
	int e;

	if (!nl) {
		log_msg(LOG_WARNING, "removing the reinjection device %s: %s",
			name, err);
		return;
	}
	rtrules_reinject_dev_names(name, rx, tx);
	if (link_get(nl, rx, &k) != 0 || !k.ours) {
		rt_nl_free(nl);	/* gone, or another's now: not srv6d's to delete */
		return;
	}
	e = rtnl_request(nl, build_link_del(msg, ++nl->seq, rx), why,
			 sizeof(why));
	if (e && e != ENODEV)
		log_msg(LOG_WARNING, "removing the reinjection veth pair "
			"%s/%s: %s", rx, tx, why);
	rt_nl_free(nl);
}

int rtrules_install_add(const struct config *cfg, const struct runstate *rs,
			const struct config *keep, const struct runstate *keep_rs,
			struct sid_runtime **rt, char *err, size_t errlen)
{
	struct sid_runtime *r = calloc(cfg->nsids + 1, sizeof(*r));
	struct rtnl *nl = r ? rt_nl_new(err, errlen) : NULL;
	struct prune_conflict conflict = { "" };
	int ret = -1;

	*rt = NULL;
	if (!r)
		set_err(err, errlen, "%s", strerror(ENOMEM));
	if (!nl)
		goto out;
	/* Leftovers neither config wants first (a crashed instance's, a
	 * failed reload's): a mark cfg takes may still have a stale rule. */
	if (prune(nl, cfg, rs, keep, keep_rs, &conflict, err, errlen) < 0)
		goto out;
	/* A route of another's where cfg installs its own: srv6d would
	 * replace it, or route by it.  Refused, untouched. */
	if (conflict.what[0]) {
		set_err(err, errlen, "%s: srv6d installs its own routes there "
			"(its marks and tables lie from mark-base %#x to %#x) "
			"and changes no route it did not make: remove that "
			"route, or choose another mark-base", conflict.what,
			cfg->mark_base, cfg->mark_base + RTRULES_RANGE - 1);
		goto out;
	}
	/* Devices and routes first, so that no rule ever points at an
	 * empty table or a missing device.  What cfg shares with keep
	 * (the same mark: config_inherit_marks()) is the same already. */
	if (sids_devices(nl, cfg, rs, r, err, errlen) < 0)
		goto out;
	for (unsigned i = 0; i < cfg->nsids; i++)
		if (sid_has_route(rs, &cfg->sids[i]) &&
		    sid_route_add(nl, rs, &cfg->sids[i], &r[i], err,
				  errlen) < 0)
			goto out;
	for (unsigned i = 0; i < cfg->nsids; i++)
		if (sid_rule_add(nl, cfg, rs, &cfg->sids[i], err, errlen) < 0)
			goto out;
	*rt = r;
	r = NULL;
	ret = 0;
out:
	if (nl)
		rt_nl_free(nl);
	free(r);
	return ret;
}

int rtrules_prune_keep(const struct config *cfg, const struct runstate *rs,
		       const struct config *keep, const struct runstate *keep_rs,
		       char *err, size_t errlen)
{
	struct rtnl *nl = rt_nl_new(err, errlen);
	int ret;

	if (!nl)
		return -1;
	ret = prune(nl, cfg, rs, keep, keep_rs, NULL, err, errlen);
	rt_nl_free(nl);
	return ret;
}

int rtrules_prune(const struct config *cfg, const struct runstate *rs,
		  char *err, size_t errlen)
{
	return rtrules_prune_keep(cfg, rs, NULL, NULL, err, errlen);
}

int rtrules_install(const struct config *cfg, const struct runstate *rs,
		    struct sid_runtime **rt,
		    char *err, size_t errlen)
{
	return rtrules_install_add(cfg, rs, NULL, NULL, rt, err, errlen);
}

int rtrules_remove(char *err, size_t errlen)
{
	return rtrules_prune(NULL, NULL, err, errlen);
}
