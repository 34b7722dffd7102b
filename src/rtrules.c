/* rtrules.c - the ip rules and routes srv6d owns for End.X and End.T
 * (docs/design.md "Routing: marks and the daemon's own rules"), over
 * rtnetlink with libmnl. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>

#include "log.h"
#include "rtrules.h"

#define FWMASK_ALL	0xffffffffu

/* One rtnetlink socket and its sequence numbers. */
struct rt_nl {
	struct mnl_socket *sock;
	uint32_t portid;
	uint32_t seq;
	char buf[65536] __attribute__((aligned(4)));	/* > any dump message */
};

/* A rule or route found in a dump. */
struct rt_rule {
	uint32_t priority, fwmark, fwmask, table;
};

struct rt_route {
	uint32_t table, metric;
	struct in6_addr dst;
	uint8_t dst_len;
};

/* What the config wants, sorted for bsearch. */
struct rt_want {
	struct rt_rule *rules;		/* by fwmark, table */
	unsigned nrules;
	uint32_t *route_tables;		/* End.X tables (default route) */
	unsigned nroute_tables;
	uint32_t *keep_tables;		/* End.T targets: never flushed */
	unsigned nkeep_tables;
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

void rtrules_scope_of(const struct config *cfg, struct rtrules_scope *s)
{
	s->priority = cfg->rule_priority;
	s->mark_base = cfg->mark_base;
}

struct nlmsghdr *rtrules_build_rule(void *buf, uint16_t cmd, uint32_t seq,
				    uint32_t priority, uint32_t fwmark,
				    uint32_t table)
{
	struct nlmsghdr *nlh;
	struct fib_rule_hdr *frh;

	memset(buf, 0, RTRULES_MSG_SIZE);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = cmd;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	if (cmd == RTM_NEWRULE)
		nlh->nlmsg_flags |= NLM_F_CREATE | NLM_F_EXCL;
	nlh->nlmsg_seq = seq;
	frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));
	frh->family = AF_INET6;
	frh->action = FR_ACT_TO_TBL;
	frh->table = table < 256 ? table : RT_TABLE_UNSPEC;
	mnl_attr_put_u32(nlh, FRA_PRIORITY, priority);
	mnl_attr_put_u32(nlh, FRA_FWMARK, fwmark);
	mnl_attr_put_u32(nlh, FRA_FWMASK, FWMASK_ALL);
	mnl_attr_put_u32(nlh, FRA_TABLE, table);
	if (cmd == RTM_NEWRULE)
		mnl_attr_put_u8(nlh, FRA_PROTOCOL, RTPROT_STATIC);
	return nlh;
}

struct nlmsghdr *rtrules_build_route(void *buf, uint16_t cmd, uint32_t seq,
				     uint32_t table, const struct in6_addr *dst,
				     uint8_t dst_len, const struct in6_addr *gw,
				     uint32_t oif, uint32_t metric)
{
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	memset(buf, 0, RTRULES_MSG_SIZE);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = cmd;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	if (cmd == RTM_NEWROUTE)
		nlh->nlmsg_flags |= NLM_F_CREATE | NLM_F_REPLACE;
	nlh->nlmsg_seq = seq;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET6;
	rtm->rtm_dst_len = dst_len;
	rtm->rtm_table = table < 256 ? table : RT_TABLE_UNSPEC;
	if (cmd == RTM_NEWROUTE) {
		rtm->rtm_protocol = RTPROT_STATIC;
		rtm->rtm_scope = RT_SCOPE_UNIVERSE;
		rtm->rtm_type = RTN_UNICAST;
	} else {
		rtm->rtm_scope = RT_SCOPE_NOWHERE;
	}
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	if (dst_len)
		mnl_attr_put(nlh, RTA_DST, sizeof(*dst), dst);
	if (gw)
		mnl_attr_put(nlh, RTA_GATEWAY, sizeof(*gw), gw);
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, oif);
	if (metric)
		mnl_attr_put_u32(nlh, RTA_PRIORITY, metric);
	return nlh;
}

/* ---- netlink I/O ------------------------------------------------------ */

static int rt_nl_open(struct rt_nl *nl, char *err, size_t errlen)
{
	int one = 1;

	nl->sock = mnl_socket_open(NETLINK_ROUTE);
	if (!nl->sock) {
		set_err(err, errlen, "cannot open rtnetlink socket: %s",
			strerror(errno));
		return -1;
	}
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		set_err(err, errlen, "cannot bind rtnetlink socket: %s",
			strerror(errno));
		mnl_socket_close(nl->sock);
		return -1;
	}
	/* Short acks with the kernel's own explanation, when it has one. */
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = (uint32_t)time(NULL);
	return 0;
}

static void rt_nl_close(struct rt_nl *nl)
{
	mnl_socket_close(nl->sock);
}

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	const char **msg = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		*msg = mnl_attr_get_str(attr);
	return MNL_CB_OK;
}

/* Parse an NLMSG_ERROR: returns its (positive) errno, 0 for an ack; the
 * kernel's extended ack message, if any, goes to why. */
static int rt_nl_ack_parse(const struct nlmsghdr *nlh, char *why, size_t whylen)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const char *msg = NULL;
	size_t off = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return EBADMSG;
	if (e->error && (nlh->nlmsg_flags & NLM_F_ACK_TLVS)) {
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		if (mnl_nlmsg_size(off) <= nlh->nlmsg_len)
			mnl_attr_parse(nlh, off, extack_attr_cb, &msg);
	}
	if (msg)
		snprintf(why, whylen, "%s (%s)", strerror(-e->error), msg);
	else if (e->error)
		snprintf(why, whylen, "%s", strerror(-e->error));
	return -e->error;
}

/* Send one request and wait for its ack.  Returns 0, or the errno the
 * kernel answered (why holds a readable reason). */
static int rt_nl_request(struct rt_nl *nl, struct nlmsghdr *nlh, char *why,
			 size_t whylen)
{
	uint32_t seq = nlh->nlmsg_seq;

	snprintf(why, whylen, "no answer from the kernel");
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return errno;
	}
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
		const struct nlmsghdr *r = (const void *)nl->buf;
		int len = (int)n;

		if (n < 0) {
			snprintf(why, whylen, "%s", strerror(errno));
			return errno;
		}
		for (; mnl_nlmsg_ok(r, len); r = mnl_nlmsg_next(r, &len)) {
			if (r->nlmsg_seq != seq || r->nlmsg_type != NLMSG_ERROR)
				continue;
			return rt_nl_ack_parse(r, why, whylen);
		}
	}
}

/* Dump every object of `type` (family-specific header of hdrlen bytes),
 * calling cb on each message.
 * Returns 0, or -1 with errno set. */
static int rt_nl_dump(struct rt_nl *nl, uint16_t type, size_t hdrlen,
		      uint8_t family, mnl_cb_t cb, void *data)
{
	uint32_t req[RTRULES_MSG_SIZE / 4];
	struct nlmsghdr *nlh;
	uint8_t *fam;
	int ret;

	memset(req, 0, sizeof(req));
	nlh = mnl_nlmsg_put_header(req);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++nl->seq;
	/* rtmsg and fib_rule_hdr both start with their family. */
	fam = mnl_nlmsg_put_extra_header(nlh, hdrlen);
	*fam = family;
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		ssize_t n = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));

		if (n < 0)
			return -1;
		ret = mnl_cb_run(nl->buf, (size_t)n, nlh->nlmsg_seq, nl->portid,
				 cb, data);
	} while (ret > MNL_CB_STOP);
	return ret < 0 ? -1 : 0;
}

/* ---- dumps ------------------------------------------------------------ */

struct rule_list {
	struct rt_rule *v;
	unsigned n, cap;
	int oom;
};

struct route_list {
	struct rt_route *v;
	unsigned n, cap;
	int oom;
};

static void *grow(void *v, unsigned *cap, size_t elem)
{
	unsigned ncap = *cap ? *cap * 2 : 64;
	void *nv = realloc(v, (size_t)ncap * elem);

	if (nv)
		*cap = ncap;
	return nv;
}

static int rule_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, FRA_MAX) < 0)
		return MNL_CB_OK;
	switch (type) {
	case FRA_PRIORITY:
	case FRA_FWMARK:
	case FRA_FWMASK:
	case FRA_TABLE:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_OK;
		tb[type] = attr;
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

static int rule_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[FRA_MAX + 1] = { NULL };
	const struct fib_rule_hdr *frh = mnl_nlmsg_get_payload(nlh);
	struct rule_list *l = data;
	struct rt_rule r;

	if (frh->family != AF_INET6)
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*frh), rule_attr_cb, tb);
	r.priority = tb[FRA_PRIORITY] ? mnl_attr_get_u32(tb[FRA_PRIORITY]) : 0;
	r.fwmark = tb[FRA_FWMARK] ? mnl_attr_get_u32(tb[FRA_FWMARK]) : 0;
	r.fwmask = tb[FRA_FWMASK] ? mnl_attr_get_u32(tb[FRA_FWMASK]) : 0;
	r.table = tb[FRA_TABLE] ? mnl_attr_get_u32(tb[FRA_TABLE]) : frh->table;
	if (!tb[FRA_FWMARK])
		return MNL_CB_OK;
	if (l->n == l->cap) {
		struct rt_rule *nv = grow(l->v, &l->cap, sizeof(*l->v));

		if (!nv) {
			l->oom = 1;
			return MNL_CB_OK;
		}
		l->v = nv;
	}
	l->v[l->n++] = r;
	return MNL_CB_OK;
}

static int route_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, RTA_MAX) < 0)
		return MNL_CB_OK;
	switch (type) {
	case RTA_TABLE:
	case RTA_PRIORITY:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_OK;
		tb[type] = attr;
		break;
	case RTA_DST:
		if (mnl_attr_validate2(attr, MNL_TYPE_BINARY,
				       sizeof(struct in6_addr)) < 0)
			return MNL_CB_OK;
		tb[type] = attr;
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

static int route_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RTA_MAX + 1] = { NULL };
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct route_list *l = data;
	struct rt_route r;

	if (rtm->rtm_family != AF_INET6 || (rtm->rtm_flags & RTM_F_CLONED))
		return MNL_CB_OK;
	mnl_attr_parse(nlh, sizeof(*rtm), route_attr_cb, tb);
	memset(&r, 0, sizeof(r));
	r.table = tb[RTA_TABLE] ? mnl_attr_get_u32(tb[RTA_TABLE]) : rtm->rtm_table;
	r.metric = tb[RTA_PRIORITY] ? mnl_attr_get_u32(tb[RTA_PRIORITY]) : 0;
	r.dst_len = rtm->rtm_dst_len;
	if (tb[RTA_DST])
		memcpy(&r.dst, mnl_attr_get_payload(tb[RTA_DST]), sizeof(r.dst));
	if (l->n == l->cap) {
		struct rt_route *nv = grow(l->v, &l->cap, sizeof(*l->v));

		if (!nv) {
			l->oom = 1;
			return MNL_CB_OK;
		}
		l->v = nv;
	}
	l->v[l->n++] = r;
	return MNL_CB_OK;
}

/* ---- what the config wants --------------------------------------------- */

/* The rule a SID needs: true with mark/table for End.X and End.T. */
static bool sid_rule(const struct sid *s, uint32_t *mark, uint32_t *table)
{
	if (!s->mark)
		return false;
	switch (s->behavior) {
	case BHV_END_X:
		*table = s->route_table;
		break;
	case BHV_END_T:
		*table = s->table;
		break;
	default:
		return false;
	}
	*mark = s->mark;
	return true;
}

static int cmp_rule(const void *a, const void *b)
{
	const struct rt_rule *x = a, *y = b;

	if (x->fwmark != y->fwmark)
		return x->fwmark < y->fwmark ? -1 : 1;
	if (x->table != y->table)
		return x->table < y->table ? -1 : 1;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void want_free(struct rt_want *w)
{
	free(w->rules);
	free(w->route_tables);
	free(w->keep_tables);
}

/* Build the sorted sets of what cfg wants (cfg NULL: nothing). */
static int want_build(struct rt_want *w, const struct config *cfg)
{
	unsigned n = cfg ? cfg->nsids : 0;

	memset(w, 0, sizeof(*w));
	w->rules = calloc(n + 1, sizeof(*w->rules));
	w->route_tables = calloc(n + 1, sizeof(uint32_t));
	w->keep_tables = calloc(n + 1, sizeof(uint32_t));
	if (!w->rules || !w->route_tables || !w->keep_tables) {
		want_free(w);
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct sid *s = &cfg->sids[i];
		struct rt_rule r = { .priority = cfg->rule_priority,
				     .fwmask = FWMASK_ALL };

		if (!sid_rule(s, &r.fwmark, &r.table))
			continue;
		w->rules[w->nrules++] = r;
		if (s->behavior == BHV_END_X)
			w->route_tables[w->nroute_tables++] = s->route_table;
		else
			w->keep_tables[w->nkeep_tables++] = s->table;
	}
	qsort(w->rules, w->nrules, sizeof(*w->rules), cmp_rule);
	qsort(w->route_tables, w->nroute_tables, sizeof(uint32_t), cmp_u32);
	qsort(w->keep_tables, w->nkeep_tables, sizeof(uint32_t), cmp_u32);
	return 0;
}

static bool in_range(uint32_t v, uint32_t base)
{
	return v >= base && v - base < RTRULES_RANGE;
}

static bool rule_in_scope(const struct rt_rule *r,
			  const struct rtrules_scope *scopes, unsigned nscopes)
{
	for (unsigned i = 0; i < nscopes; i++)
		if (r->priority == scopes[i].priority && r->fwmask == FWMASK_ALL &&
		    in_range(r->fwmark, scopes[i].mark_base))
			return true;
	return false;
}

static bool route_in_scope(const struct rt_route *r,
			   const struct rtrules_scope *scopes, unsigned nscopes)
{
	for (unsigned i = 0; i < nscopes; i++)
		if (in_range(r->table, scopes[i].mark_base))
			return true;
	return false;
}

static bool rule_wanted(const struct rt_want *w, uint32_t want_prio,
			const struct rt_rule *r)
{
	return r->priority == want_prio &&
	       bsearch(r, w->rules, w->nrules, sizeof(*r), cmp_rule);
}

static bool route_wanted(const struct rt_want *w, const struct rt_route *r)
{
	if (bsearch(&r->table, w->keep_tables, w->nkeep_tables,
		    sizeof(uint32_t), cmp_u32))
		return true;
	return r->dst_len == 0 &&
	       bsearch(&r->table, w->route_tables, w->nroute_tables,
		       sizeof(uint32_t), cmp_u32);
}

/* ---- install / prune ------------------------------------------------- */

static void sid_name(const struct sid *s, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, &s->prefix, a, sizeof(a));
	snprintf(buf, len, "%s %s/%u", behavior_name(s->behavior), a, s->plen);
}

/* ip -6 route replace default via nh6 [dev oif] table M */
static int sid_route_add(struct rt_nl *nl, const struct sid *s, char *err,
			 size_t errlen)
{
	uint32_t msg[RTRULES_MSG_SIZE / 4];	/* aligned for nlmsghdr */
	char name[80], gw[INET6_ADDRSTRLEN];
	struct nlmsghdr *nlh;
	char dev[IF_NAMESIZE + 8] = "", why[256];
	uint32_t oif = 0;
	int e;

	sid_name(s, name, sizeof(name));
	inet_ntop(AF_INET6, &s->nh6, gw, sizeof(gw));
	if (s->oif[0]) {
		oif = if_nametoindex(s->oif);
		snprintf(dev, sizeof(dev), " dev %s", s->oif);
		if (!oif) {
			set_err(err, errlen,
				"%s: cannot add route via %s%s in table %#x: "
				"no such interface", name, gw, dev,
				s->route_table);
			return -1;
		}
	}
	nlh = rtrules_build_route(msg, RTM_NEWROUTE, ++nl->seq, s->route_table,
				  &in6addr_any, 0, &s->nh6, oif, 0);
	e = rt_nl_request(nl, nlh, why, sizeof(why));
	if (e) {
		set_err(err, errlen, "%s: cannot add route via %s%s in table "
			"%#x: %s", name, gw, dev, s->route_table, why);
		return -1;
	}
	log_debug("%s: route via %s%s in table %#x", name, gw, dev,
		  s->route_table);
	return 0;
}

/* ip -6 rule add priority P fwmark M lookup T (already there is fine) */
static int sid_rule_add(struct rt_nl *nl, const struct config *cfg,
			const struct sid *s, char *err, size_t errlen)
{
	uint32_t msg[RTRULES_MSG_SIZE / 4];
	char name[80], why[256];
	struct nlmsghdr *nlh;
	uint32_t mark, table;
	int e;

	if (!sid_rule(s, &mark, &table))
		return 0;
	sid_name(s, name, sizeof(name));
	nlh = rtrules_build_rule(msg, RTM_NEWRULE, ++nl->seq, cfg->rule_priority,
				 mark, table);
	e = rt_nl_request(nl, nlh, why, sizeof(why));
	if (e && e != EEXIST) {
		set_err(err, errlen, "%s: cannot add rule priority %u fwmark %#x "
			"lookup %#x: %s", name, cfg->rule_priority, mark, table,
			why);
		return -1;
	}
	log_debug("%s: rule priority %u fwmark %#x lookup %#x", name,
		  cfg->rule_priority, mark, table);
	return 0;
}

/* Delete the rules in scope that w does not want.  Returns 0 or -1. */
static int prune_rules(struct rt_nl *nl, const struct rt_want *w,
		       uint32_t want_prio, const struct rtrules_scope *scopes,
		       unsigned nscopes, char *err, size_t errlen)
{
	struct rule_list l = { 0 };
	uint32_t msg[RTRULES_MSG_SIZE / 4];
	struct nlmsghdr *nlh;
	char why[256];
	int ret = 0;

	if (rt_nl_dump(nl, RTM_GETRULE, sizeof(struct fib_rule_hdr), AF_INET6,
		       rule_dump_cb, &l) < 0 || l.oom) {
		set_err(err, errlen, "cannot list IPv6 rules: %s",
			l.oom ? strerror(ENOMEM) : strerror(errno));
		free(l.v);
		return -1;
	}
	for (unsigned i = 0; i < l.n; i++) {
		const struct rt_rule *r = &l.v[i];
		int e;

		if (!rule_in_scope(r, scopes, nscopes) ||
		    rule_wanted(w, want_prio, r))
			continue;
		nlh = rtrules_build_rule(msg, RTM_DELRULE, ++nl->seq, r->priority,
					 r->fwmark, r->table);
		e = rt_nl_request(nl, nlh, why, sizeof(why));
		if (e && e != ENOENT) {
			if (!ret)
				set_err(err, errlen, "cannot delete rule priority "
					"%u fwmark %#x lookup %#x: %s", r->priority,
					r->fwmark, r->table, why);
			ret = -1;
			continue;
		}
		log_debug("deleted rule priority %u fwmark %#x lookup %#x",
			  r->priority, r->fwmark, r->table);
	}
	free(l.v);
	return ret;
}

/* Delete the routes in scope that w does not want.  Returns 0 or -1. */
static int prune_routes(struct rt_nl *nl, const struct rt_want *w,
			const struct rtrules_scope *scopes, unsigned nscopes,
			char *err, size_t errlen)
{
	struct route_list l = { 0 };
	uint32_t msg[RTRULES_MSG_SIZE / 4];
	char why[256], a[INET6_ADDRSTRLEN];
	struct nlmsghdr *nlh;
	int ret = 0;

	if (rt_nl_dump(nl, RTM_GETROUTE, sizeof(struct rtmsg), AF_INET6,
		       route_dump_cb, &l) < 0 || l.oom) {
		set_err(err, errlen, "cannot list IPv6 routes: %s",
			l.oom ? strerror(ENOMEM) : strerror(errno));
		free(l.v);
		return -1;
	}
	for (unsigned i = 0; i < l.n; i++) {
		const struct rt_route *r = &l.v[i];
		int e;

		if (!route_in_scope(r, scopes, nscopes) || route_wanted(w, r))
			continue;
		inet_ntop(AF_INET6, &r->dst, a, sizeof(a));
		nlh = rtrules_build_route(msg, RTM_DELROUTE, ++nl->seq, r->table,
					  &r->dst, r->dst_len, NULL, 0, r->metric);
		e = rt_nl_request(nl, nlh, why, sizeof(why));
		if (e && e != ENOENT && e != ESRCH) {
			if (!ret)
				set_err(err, errlen, "cannot delete route %s/%u "
					"in table %#x: %s", a, r->dst_len,
					r->table, why);
			ret = -1;
			continue;
		}
		log_debug("deleted route %s/%u in table %#x", a, r->dst_len,
			  r->table);
	}
	free(l.v);
	return ret;
}

/* Prune rules then routes (a rule never points at a table we emptied
 * while it still exists).  Returns 0 or -1 (first error in err). */
static int prune(struct rt_nl *nl, const struct config *cfg,
		 const struct rtrules_scope *scopes, unsigned nscopes,
		 char *err, size_t errlen)
{
	struct rt_want w;
	int ret = 0;

	if (want_build(&w, cfg) < 0) {
		set_err(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	if (prune_rules(nl, &w, cfg ? cfg->rule_priority : 0, scopes, nscopes,
			err, errlen) < 0)
		ret = -1;
	if (prune_routes(nl, &w, scopes, nscopes, ret ? NULL : err,
			 ret ? 0 : errlen) < 0)
		ret = -1;
	want_free(&w);
	return ret;
}

int rtrules_install(const struct config *cfg, const struct rtrules_scope *prev,
		    char *err, size_t errlen)
{
	struct rtrules_scope scopes[2];
	unsigned nscopes = 1;
	struct rt_nl *nl;
	int ret = -1;

	nl = malloc(sizeof(*nl));
	if (!nl) {
		set_err(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	if (rt_nl_open(nl, err, errlen) < 0) {
		free(nl);
		return -1;
	}
	rtrules_scope_of(cfg, &scopes[0]);
	if (prev && (prev->priority != scopes[0].priority ||
		     prev->mark_base != scopes[0].mark_base))
		scopes[nscopes++] = *prev;
	/* Routes first, so that no rule ever points at an empty table. */
	for (unsigned i = 0; i < cfg->nsids; i++)
		if (cfg->sids[i].behavior == BHV_END_X && cfg->sids[i].mark &&
		    sid_route_add(nl, &cfg->sids[i], err, errlen) < 0)
			goto out;
	for (unsigned i = 0; i < cfg->nsids; i++)
		if (sid_rule_add(nl, cfg, &cfg->sids[i], err, errlen) < 0)
			goto out;
	ret = prune(nl, cfg, scopes, nscopes, err, errlen);
out:
	rt_nl_close(nl);
	free(nl);
	return ret;
}

int rtrules_remove(const struct rtrules_scope *s, char *err, size_t errlen)
{
	struct rt_nl *nl;
	int ret;

	nl = malloc(sizeof(*nl));
	if (!nl) {
		set_err(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	if (rt_nl_open(nl, err, errlen) < 0) {
		free(nl);
		return -1;
	}
	ret = prune(nl, NULL, s, 1, err, errlen);
	rt_nl_close(nl);
	free(nl);
	return ret;
}
