/* kencap_routes.c - the rules, routes and tunnel source the kernel's seg6
 * needs to encapsulate srv6d's super-packets (kencap_routes.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/genetlink.h>
#include <linux/lwtunnel.h>
#include <linux/rtnetlink.h>
#include <linux/seg6.h>
#include <linux/seg6_genl.h>
#include <linux/seg6_iptunnel.h>
#include <linux/seg6_local.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "behavior_table.h"
#include "kencap_routes.h"
#include "log.h"
#include "markguard.h"
#include "rtnl.h"
#include "rtrules.h"
#include "sysctl.h"

#ifndef SEG6_IPTUNNEL_SRC
#define SEG6_IPTUNNEL_SRC	2	/* a seg6 route's own outer source */
#endif

/* ---- the encapsulations and their marks -------------------------------- */

/* A policy the kernel's seg6 can apply: srv6d.conf's, encap or encap.red,
 * no HMAC. */
static bool policy_expressible(const struct policy *pol)
{
	return !pol->ktable && !pol->hmac_keyid && !pol->gtp4d &&
	       (pol->mode == ENCAP_MODE_ENCAP ||
		pol->mode == ENCAP_MODE_ENCAP_RED);
}

/* Append pol's lists to v (room for them). */
static void collect_policy(const struct policy *pol, struct kencap_entry *v,
			   unsigned *n)
{
	if (!policy_expressible(pol))
		return;
	for (unsigned l = 0; l < pol->nlists; l++) {
		if (!pol->lists[l].nsegs ||
		    pol->lists[l].nsegs > SRV6_MAX_SEGS)
			continue;
		memset(&v[*n], 0, sizeof(v[*n]));
		v[*n].mode = pol->mode;
		v[*n].sl.nsegs = pol->lists[l].nsegs;
		memcpy(v[*n].sl.segs, pol->lists[l].segs,
		       pol->lists[l].nsegs * sizeof(pol->lists[l].segs[0]));
		(*n)++;
	}
}

/* Append End.AS's list of proxy pc to v (room for it): its way back
 * (behavior_proxy.c) is an encapsulation from `source` over `segs`, an
 * SRH of them all (mode encap) or, for one segment, none (encap.red).
 * End.AD's headers are learned per packet: no route makes them. */
static void collect_proxy(const struct config *cfg,
			  const struct proxy_conf *pc, struct kencap_entry *v,
			  unsigned *n)
{
	if (behavior_proxy_of(cfg->sids[pc->sid].behavior) !=
	    BHV_PROXY_STATIC || !pc->segs.nsegs ||
	    pc->segs.nsegs > SRV6_MAX_SEGS)
		return;
	memset(&v[*n], 0, sizeof(v[*n]));
	v[*n].mode = pc->segs.nsegs > 1 ? ENCAP_MODE_ENCAP :
					  ENCAP_MODE_ENCAP_RED;
	v[*n].sl = pc->segs;
	(*n)++;
}

#define KENCAP_BITS_WORDS	(CONFIG_MARK_RANGE / 64)

static void bit_set(uint64_t *b, uint32_t off)
{
	b[off / 64] |= 1ull << (off % 64);
}

static bool bit_get(const uint64_t *b, uint32_t off)
{
	return b[off / 64] & (1ull << (off % 64));
}

/* The marks of rs's SIDs and encapsulations (rs may be NULL) into used,
 * as offsets from base. */
static void marks_used(const struct runstate *rs, uint32_t base,
		       uint64_t *used)
{
	if (!rs || rs->mark_base != base)
		return;
	for (unsigned i = 0; i < rs->nsids; i++) {
		if (rs->sids[i].mark)
			bit_set(used, rs->sids[i].mark - base);
		if (rs->sids[i].kend_mark)
			bit_set(used, rs->sids[i].kend_mark - base);
	}
	for (unsigned i = 0; i < rs->nkencaps; i++)
		bit_set(used, rs->kencaps[i].mark - base);
}

/* Marks for the n sorted entries of v: old's, else the highest free
 * ones.  Returns how many entries are left (those without a mark go). */
static unsigned marks_give(struct kencap_entry *v, unsigned n,
			   const struct runstate *rs,
			   const struct runstate *ors,
			   uint64_t *used, uint32_t *nextp)
{
	uint32_t base = rs->mark_base, next = *nextp;
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct kencap_entry *o = NULL;

		if (ors && ors->mark_base == base && ors->nkencaps)
			o = bsearch(&v[i], ors->kencaps, ors->nkencaps,
				    sizeof(v[i]), runstate_kencap_cmp);
		v[i].mark = o ? o->mark : 0;
	}
	for (unsigned i = 0; i < n; i++) {
		if (!v[i].mark) {
			while (next > 0 && bit_get(used, next))
				next--;
			if (next == 0)
				continue;	/* no mark left: cut */
			bit_set(used, next);
			v[i].mark = base + next;
		}
		v[k++] = v[i];
	}
	*nextp = next;
	return k;
}

/* cfg's encapsulations into rs (the marks of rs and ors set in used). */
static int kencaps_assign(struct runstate *rs, const struct config *cfg,
			  const struct runstate *ors, uint64_t *used,
			  uint32_t *next)
{
	unsigned n = 0, cap = 0, k = 0;
	struct kencap_entry *v;

	free(rs->kencaps);
	rs->kencaps = NULL;
	rs->nkencaps = 0;
	if (cfg->kernel_encap == KERNEL_ENCAP_NO || !cfg->gso)
		return 0;
	for (unsigned i = 0; i < cfg->npolicies; i++)
		cap += cfg->policies[i].nlists;
	for (unsigned i = 0; i < cfg->nbsid_policies; i++)
		cap += cfg->bsid_policies[i].nlists;
	cap += cfg->nproxies;
	v = calloc(cap + 1, sizeof(*v));
	if (!v)
		return -1;
	for (unsigned i = 0; i < cfg->npolicies; i++)
		collect_policy(&cfg->policies[i], v, &n);
	for (unsigned i = 0; i < cfg->nbsid_policies; i++)
		collect_policy(&cfg->bsid_policies[i], v, &n);
	for (unsigned i = 0; i < cfg->nproxies; i++)
		collect_proxy(cfg, &cfg->proxies[i], v, &n);
	qsort(v, n, sizeof(*v), runstate_kencap_cmp);
	for (unsigned i = 0; i < n; i++)	/* distinct ones */
		if (!k || runstate_kencap_cmp(&v[k - 1], &v[i]))
			v[k++] = v[i];
	n = marks_give(v, k, rs, ors, used, next);
	rs->kencaps = n ? v : NULL;
	rs->nkencaps = n;
	if (!n)
		free(v);
	return 0;
}

bool kencap_routes_end_sid(const struct sid *s)
{
	return s->behavior == BHV_END && !s->flavors && !s->ktable;
}

bool kencap_routes_decap_sid(const struct sid *s)
{
	if (s->flavors || s->ktable)
		return false;
	switch (s->behavior) {
	case BHV_END_DT6:
		return !s->vrf;		/* a VRF's: none here (design.md) */
	case BHV_END_DX6:
	case BHV_END_DX4:
		return true;
	default:
		return false;	/* End.DT4, End.DT46: only with a VRF */
	}
}

bool kencap_routes_kernel_sid(const struct sid *s)
{
	return kencap_routes_end_sid(s) || kencap_routes_decap_sid(s);
}

/* Whether a and b make the same kernel route: prefix, behavior and its
 * attributes. */
static bool kend_same_route(const struct sid *a, const struct sid *b)
{
	return a->plen == b->plen &&
	       IN6_ARE_ADDR_EQUAL(&a->prefix, &b->prefix) &&
	       a->behavior == b->behavior && a->flavors == b->flavors &&
	       a->table == b->table && a->vrf == b->vrf &&
	       IN6_ARE_ADDR_EQUAL(&a->nh6, &b->nh6) &&
	       a->nh4.s_addr == b->nh4.s_addr && !strcmp(a->oif, b->oif);
}

/* The kernel mark old (its state ors) gave the SID of the same route as
 * s, 0 none. */
static uint32_t kend_old_mark(const struct config *old,
			      const struct runstate *ors, const struct sid *s)
{
	for (unsigned i = 0; old && ors && i < old->nsids && i < ors->nsids;
	     i++)
		if (ors->sids[i].kend_mark && kend_same_route(&old->sids[i], s))
			return ors->sids[i].kend_mark;
	return 0;
}

/* cfg's plain End and decapsulating SIDs' marks (kencap_routes_kernel_sid()):
 * old's, else the highest free ones (none left: that SID's super-packets
 * go srv6d's own way). */
static void kends_assign(struct runstate *rs, const struct config *cfg,
			 const struct config *old, const struct runstate *ors,
			 uint64_t *used, uint32_t *next)
{
	uint32_t base = cfg->mark_base;

	rs->nkends = 0;
	if (cfg->kernel_end == KERNEL_ENCAP_NO || !cfg->gso)
		return;
	for (unsigned i = 0; i < cfg->nsids; i++) {
		const struct sid *s = &cfg->sids[i];
		uint32_t *m = &rs->sids[i].kend_mark;

		/* an oif that is no link yet: no next hop route to make */
		if (!kencap_routes_kernel_sid(s) ||
		    (s->oif[0] && !rs->sids[i].oif_index))
			continue;
		if (old && old->mark_base == base)
			*m = kend_old_mark(old, ors, s);
		if (!*m) {
			while (*next > 0 && bit_get(used, *next))
				(*next)--;
			if (*next == 0)
				continue;
			bit_set(used, *next);
			*m = base + *next;
		}
		rs->nkends++;
	}
}

int kencap_routes_assign(struct runstate *rs, const struct config *cfg,
			 const struct runstate *ors, const struct config *old)
{
	uint32_t next = cfg->mark_count - 1;	/* config.h: at least 1 */
	uint64_t *used = calloc(KENCAP_BITS_WORDS, sizeof(*used));
	int ret;

	if (!used)
		return -1;
	for (unsigned i = 0; i < cfg->nsids; i++)
		rs->sids[i].kend_mark = 0;
	free(rs->kencaps);	/* an earlier assignment's: its marks are not used */
	rs->kencaps = NULL;
	rs->nkencaps = 0;
	marks_used(rs, cfg->mark_base, used);
	runstate_marks_in_force(ors, old, cfg, used);
	ret = kencaps_assign(rs, cfg, ors, used, &next);
	if (ret == 0)
		kends_assign(rs, cfg, old, ors, used, &next);
	free(used);
	return ret;
}

/* ---- message builders -------------------------------------------------- */

struct nlmsghdr *kencap_build_encap_route(void *buf, uint32_t seq,
					  uint8_t family,
					  const struct kencap_entry *e,
					  uint32_t oif,
					  const struct in6_addr *src)
{
	unsigned n = e->sl.nsegs;
	size_t srhlen = sizeof(struct ipv6_sr_hdr) + n * 16;
	uint8_t tun[sizeof(struct seg6_iptunnel_encap) +
		    sizeof(struct ipv6_sr_hdr) + SRV6_MAX_SEGS * 16];
	struct seg6_iptunnel_encap *t = (struct seg6_iptunnel_encap *)tun;
	struct ipv6_sr_hdr *srh = t->srh;
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	memset(buf, 0, KENCAP_MSG_SIZE);
	nlh = rtrules_build_route(buf, RTM_NEWROUTE, seq, family, e->mark,
				  NULL, 0, NULL, oif, 0);
	memset(tun, 0, sizeof(tun));
	t->mode = e->mode == ENCAP_MODE_ENCAP_RED ? SEG6_IPTUN_MODE_ENCAP_RED :
		  SEG6_IPTUN_MODE_ENCAP;
	/* as iproute2 builds it: segments last first, SL = first segment */
	srh->hdrlen = (uint8_t)(n * 2);
	srh->type = 4;	/* the Segment Routing Header */
	srh->segments_left = (uint8_t)(n - 1);
	srh->first_segment = (uint8_t)(n - 1);
	for (unsigned i = 0; i < n; i++)
		memcpy(&srh->segments[n - 1 - i], &e->sl.segs[i], 16);
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6);
	nest = mnl_attr_nest_start(nlh, RTA_ENCAP);
	mnl_attr_put(nlh, SEG6_IPTUNNEL_SRH, sizeof(*t) + srhlen, t);
	if (src)
		mnl_attr_put(nlh, SEG6_IPTUNNEL_SRC, sizeof(*src), src);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/* The seg6local route's header and its RTA_ENCAP nest opened with
 * action `action`; *nest to close (seg6local_route_end()). */
static struct nlmsghdr *seg6local_route_start(void *buf, uint32_t seq,
					      uint32_t table,
					      const struct in6_addr *prefix,
					      uint8_t plen, uint32_t oif,
					      uint32_t action,
					      struct nlattr **nest)
{
	struct nlmsghdr *nlh;

	memset(buf, 0, KENCAP_MSG_SIZE);
	nlh = rtrules_build_route(buf, RTM_NEWROUTE, seq, AF_INET6, table,
				  prefix, plen, NULL, oif, 0);
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6_LOCAL);
	*nest = mnl_attr_nest_start(nlh, RTA_ENCAP);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_ACTION, action);
	return nlh;
}

/* `count` (as iproute2 asks for them, each counter 0), then the nest
 * closed; returns nlh. */
static struct nlmsghdr *seg6local_route_end(struct nlmsghdr *nlh,
					    struct nlattr *nest)
{
	struct nlattr *cnt = mnl_attr_nest_start(nlh, SEG6_LOCAL_COUNTERS);

	mnl_attr_put_u64(nlh, SEG6_LOCAL_CNT_PACKETS, 0);
	mnl_attr_put_u64(nlh, SEG6_LOCAL_CNT_BYTES, 0);
	mnl_attr_put_u64(nlh, SEG6_LOCAL_CNT_ERRORS, 0);
	mnl_attr_nest_end(nlh, cnt);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

struct nlmsghdr *kencap_build_end_route(void *buf, uint32_t seq,
					uint32_t table,
					const struct in6_addr *prefix,
					uint8_t plen, uint32_t oif)
{
	struct nlattr *nest;
	struct nlmsghdr *nlh;

	nlh = seg6local_route_start(buf, seq, table, prefix, plen, oif,
				    SEG6_LOCAL_ACTION_END, &nest);
	return seg6local_route_end(nlh, nest);
}

struct nlmsghdr *kencap_build_end_t_route(void *buf, uint32_t seq,
					  uint32_t table,
					  const struct in6_addr *prefix,
					  uint8_t plen, uint32_t oif,
					  uint32_t lookup)
{
	struct nlattr *nest;
	struct nlmsghdr *nlh;

	nlh = seg6local_route_start(buf, seq, table, prefix, plen, oif,
				    SEG6_LOCAL_ACTION_END_T, &nest);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_TABLE, lookup);
	return seg6local_route_end(nlh, nest);
}

struct nlmsghdr *kencap_build_decap_route(void *buf, uint32_t seq,
					  uint32_t table, const struct sid *s,
					  uint32_t oif)
{
	struct nlattr *nest;
	struct nlmsghdr *nlh;
	uint32_t action;

	switch (s->behavior) {
	case BHV_END_DT6:
		action = SEG6_LOCAL_ACTION_END_DT6;
		break;
	case BHV_END_DX6:
		action = SEG6_LOCAL_ACTION_END_DX6;
		break;
	case BHV_END_DX4:
		action = SEG6_LOCAL_ACTION_END_DX4;
		break;
	default:
		return NULL;
	}
	nlh = seg6local_route_start(buf, seq, table, &s->prefix, s->plen, oif,
				    action, &nest);
	if (s->behavior == BHV_END_DT6)
		mnl_attr_put_u32(nlh, SEG6_LOCAL_TABLE, s->table);
	else if (s->behavior == BHV_END_DX6)
		mnl_attr_put(nlh, SEG6_LOCAL_NH6, sizeof(s->nh6), &s->nh6);
	else
		mnl_attr_put(nlh, SEG6_LOCAL_NH4, sizeof(s->nh4), &s->nh4);
	return seg6local_route_end(nlh, nest);
}

struct nlmsghdr *kencap_build_throw_route(void *buf, uint32_t seq,
					  uint32_t table,
					  const struct in6_addr *dst)
{
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	memset(buf, 0, KENCAP_MSG_SIZE);
	nlh = rtrules_build_route(buf, RTM_NEWROUTE, seq, AF_INET6, table, dst,
				  128, NULL, 0, 0);
	rtm = mnl_nlmsg_get_payload(nlh);
	rtm->rtm_type = RTN_THROW;
	return nlh;
}

struct nlmsghdr *kencap_build_blackhole_route(void *buf, uint32_t seq,
					      uint8_t family, uint32_t table)
{
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	memset(buf, 0, KENCAP_MSG_SIZE);
	nlh = rtrules_build_route(buf, RTM_NEWROUTE, seq, family, table, NULL,
				  0, NULL, 0, UINT32_MAX);
	rtm = mnl_nlmsg_get_payload(nlh);
	rtm->rtm_type = RTN_BLACKHOLE;
	return nlh;
}

struct nlmsghdr *kencap_build_blackhole_sid_route(void *buf, uint32_t seq,
						  uint32_t table,
						  const struct in6_addr *prefix,
						  uint8_t plen)
{
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	memset(buf, 0, KENCAP_MSG_SIZE);
	nlh = rtrules_build_route(buf, RTM_NEWROUTE, seq, AF_INET6, table,
				  prefix, plen, NULL, 0, UINT32_MAX);
	rtm = mnl_nlmsg_get_payload(nlh);
	rtm->rtm_type = RTN_BLACKHOLE;
	return nlh;
}

struct nlmsghdr *kencap_build_tunsrc(void *buf, uint16_t family,
				     uint32_t seq, uint8_t cmd,
				     const struct in6_addr *addr)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	nlh = rtnl_msg_new(buf, KENCAP_MSG_SIZE, family, NLM_F_ACK, seq,
			   sizeof(*g));
	g = mnl_nlmsg_get_payload(nlh);
	g->cmd = cmd;
	g->version = SEG6_GENL_VERSION;
	if (addr)
		mnl_attr_put(nlh, SEG6_ATTR_DST, sizeof(*addr), addr);
	return nlh;
}

/* ---- the kernel's tunnel source (generic netlink SEG6) ------------------ */

struct genl_reply {
	uint16_t family;
	struct in6_addr addr;
	bool got;
};

static int genl_family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1] = { NULL };
	struct genl_reply *r = data;

	rtnl_attrs(nlh, sizeof(struct genlmsghdr), tb, CTRL_ATTR_MAX);
	if (tb[CTRL_ATTR_FAMILY_ID] &&
	    mnl_attr_get_payload_len(tb[CTRL_ATTR_FAMILY_ID]) == 2) {
		r->family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
		r->got = true;
	}
	return MNL_CB_OK;
}

static int genl_tunsrc_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[SEG6_ATTR_MAX + 1] = { NULL };
	struct genl_reply *r = data;

	rtnl_attrs(nlh, sizeof(struct genlmsghdr), tb, SEG6_ATTR_MAX);
	if (tb[SEG6_ATTR_DST] &&
	    mnl_attr_get_payload_len(tb[SEG6_ATTR_DST]) == 16) {
		memcpy(&r->addr, mnl_attr_get_payload(tb[SEG6_ATTR_DST]), 16);
		r->got = true;
	}
	return MNL_CB_OK;
}

/* Send nlh on s and run its replies through cb until the ack.  Returns 0
 * or -1 with errno set. */
static int genl_talk(struct mnl_socket *s, struct nlmsghdr *nlh, mnl_cb_t cb,
		     void *data)
{
	uint8_t buf[8192] __attribute__((aligned(4)));
	unsigned portid = mnl_socket_get_portid(s);
	uint32_t seq = nlh->nlmsg_seq;
	ssize_t n;
	int rc;

	if (mnl_socket_sendto(s, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		n = mnl_socket_recvfrom(s, buf, sizeof(buf));
		if (n < 0)
			return -1;
		rc = mnl_cb_run(buf, (size_t)n, seq, portid, cb, data);
	} while (rc > 0);
	return rc < 0 ? -1 : 0;
}

/* A SEG6 generic netlink socket and the family's id.  Returns it, or NULL
 * with the reason in why. */
static struct mnl_socket *seg6_genl_open(uint16_t *family, uint32_t *seq,
					 char *why, size_t whylen)
{
	uint32_t msg[KENCAP_MSG_SIZE / 4];
	struct mnl_socket *s = mnl_socket_open(NETLINK_GENERIC);
	struct genl_reply r = { 0 };
	struct genlmsghdr *g;
	struct nlmsghdr *nlh;

	if (!s || mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID) < 0) {
		snprintf(why, whylen, "generic netlink: %s", strerror(errno));
		goto fail;
	}
	memset(msg, 0, sizeof(msg));
	nlh = mnl_nlmsg_put_header(msg);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++*seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, SEG6_GENL_NAME);
	if (genl_talk(s, nlh, genl_family_cb, &r) < 0 || !r.got) {
		snprintf(why, whylen, "no SEG6 generic netlink family (%s)",
			 strerror(errno));
		goto fail;
	}
	*family = r.family;
	return s;
fail:
	if (s)
		mnl_socket_close(s);
	return NULL;
}

/* The kernel's tunsrc into *cur, then (set not NULL) set it to *set.
 * Returns 0, or -1 with the reason in why. */
static int tunsrc_talk(struct in6_addr *cur, const struct in6_addr *set,
		       char *why, size_t whylen)
{
	uint32_t msg[KENCAP_MSG_SIZE / 4];
	uint32_t seq = (uint32_t)time(NULL);
	struct genl_reply r = { 0 };
	struct mnl_socket *s;
	struct nlmsghdr *nlh;
	uint16_t family;
	int ret = -1;

	s = seg6_genl_open(&family, &seq, why, whylen);
	if (!s)
		return -1;
	nlh = kencap_build_tunsrc(msg, family, ++seq, SEG6_CMD_GET_TUNSRC,
				  NULL);
	if (genl_talk(s, nlh, genl_tunsrc_cb, &r) < 0 || !r.got) {
		snprintf(why, whylen, "cannot read the kernel's tunsrc: %s",
			 strerror(errno));
		goto out;
	}
	*cur = r.addr;
	if (set) {
		nlh = kencap_build_tunsrc(msg, family, ++seq,
					  SEG6_CMD_SET_TUNSRC, set);
		if (genl_talk(s, nlh, NULL, NULL) < 0) {
			snprintf(why, whylen, "cannot set the kernel's tunsrc: "
				 "%s", strerror(errno));
			goto out;
		}
	}
	ret = 0;
out:
	mnl_socket_close(s);
	return ret;
}

int kencap_tunsrc_read(struct in6_addr *cur, char *why, size_t whylen)
{
	return tunsrc_talk(cur, NULL, why, whylen);
}

/* ---- the tunsrc srv6d holds: its state file ----------------------------- */

/* Write t's record (orig, set) to its state file, or remove the file when
 * srv6d holds nothing.  A failure is logged: the stop still restores. */
static void tunsrc_save(const struct kencap_tunsrc *t)
{
	char o[INET6_ADDRSTRLEN], a[INET6_ADDRSTRLEN], tmp[sizeof(t->path) + 8];
	FILE *f;

	if (!t->path[0])
		return;
	if (!t->held) {
		if (unlink(t->path) < 0 && errno != ENOENT)
			log_msg(LOG_WARNING, "%s: %s", t->path, strerror(errno));
		return;
	}
	inet_ntop(AF_INET6, &t->orig, o, sizeof(o));
	inet_ntop(AF_INET6, &t->set, a, sizeof(a));
	snprintf(tmp, sizeof(tmp), "%s.new", t->path);
	f = fopen(tmp, "w");
	if (f) {
		bool ok = fprintf(f, "# srv6d set the kernel's tunsrc (ip sr "
				  "tunsrc) to set, from orig: restored at "
				  "stop\norig %s\nset %s\n", o, a) > 0;

		if (fclose(f) == 0 && ok && rename(tmp, t->path) == 0)
			return;
		unlink(tmp);
	}
	log_msg(LOG_WARNING, "kernel-encap: cannot record the kernel's tunsrc "
		"in %s: %s (a restart after a crash will take %s for the "
		"operator's)", t->path, strerror(errno), a);
}

/* One "KEY ADDR" line of the state file into *a when its key is key. */
static bool tunsrc_line(const char *line, const char *key,
			struct in6_addr *a)
{
	char k[8], v[INET6_ADDRSTRLEN];

	return sscanf(line, "%7s %45s", k, v) == 2 && !strcmp(k, key) &&
	       inet_pton(AF_INET6, v, a) == 1;
}

void kencap_tunsrc_open(struct kencap_tunsrc *t, const char *path)
{
	bool got_orig = false, got_set = false;
	char line[128];
	FILE *f;

	memset(t, 0, sizeof(*t));
	if (!path || snprintf(t->path, sizeof(t->path), "%s", path) >=
	    (int)sizeof(t->path)) {
		t->path[0] = '\0';
		return;
	}
	f = fopen(t->path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		got_orig |= tunsrc_line(line, "orig", &t->orig);
		got_set |= tunsrc_line(line, "set", &t->set);
	}
	fclose(f);
	/* Trusted while the kernel still has `set` (tunsrc_sync()). */
	t->held = got_orig && got_set;
}

/* The kernel's tunsrc as srv6d leaves it for cfg into *cur: with want (an
 * encap-source) and the operator's value :: (the kernel's now, or what it
 * was before srv6d set it, t's record), set to *want and recorded in t;
 * without want, srv6d's earlier setting given back.  What someone else
 * set since (the kernel's value is not t->set) is theirs: t lets go.
 * *set says srv6d changed it.  Returns 0, or -1 with the reason in why. */
static int tunsrc_sync(struct kencap_tunsrc *t, const struct in6_addr *want,
		       struct in6_addr *cur, bool *set, char *why,
		       size_t whylen)
{
	struct in6_addr now, theirs, dummy;

	*set = false;
	if (kencap_tunsrc_read(&now, why, whylen) < 0)
		return -1;
	if (t->held && !IN6_ARE_ADDR_EQUAL(&now, &t->set)) {
		t->held = false;	/* changed since: not srv6d's now */
		tunsrc_save(t);
	}
	theirs = t->held ? t->orig : now;
	*cur = now;
	if (want && IN6_IS_ADDR_UNSPECIFIED(&theirs)) {
		t->orig = theirs;
		t->set = *want;
		t->held = true;
		tunsrc_save(t);	/* first: a crash then leaves a record */
		if (IN6_ARE_ADDR_EQUAL(&now, want))
			return 0;
		if (tunsrc_talk(&dummy, want, why, whylen) < 0)
			return -1;
		*cur = *want;
		*set = true;
		return 0;
	}
	if (!t->held)
		return 0;
	/* srv6d's value, no longer wanted (no encap-source now) */
	if (tunsrc_talk(&dummy, &t->orig, why, whylen) < 0)
		return -1;
	*cur = t->orig;
	*set = true;
	t->held = false;
	tunsrc_save(t);
	return 0;
}

void kencap_tunsrc_restore(struct kencap_tunsrc *t)
{
	char a[INET6_ADDRSTRLEN], o[INET6_ADDRSTRLEN], why[128];
	struct in6_addr now, dummy;

	if (!t->held)
		return;
	inet_ntop(AF_INET6, &t->set, a, sizeof(a));
	inet_ntop(AF_INET6, &t->orig, o, sizeof(o));
	if (kencap_tunsrc_read(&now, why, sizeof(why)) < 0) {
		log_msg(LOG_WARNING, "kernel-encap: the kernel's tunsrc: %s; "
			"not restored to %s", why, o);
		return;
	}
	if (!IN6_ARE_ADDR_EQUAL(&now, &t->set))
		log_msg(LOG_INFO, "kernel-encap: the kernel's tunsrc is not "
			"srv6d's %s any more: left as it is", a);
	else if (tunsrc_talk(&dummy, &t->orig, why, sizeof(why)) < 0)
		log_msg(LOG_WARNING, "kernel-encap: %s; the kernel's tunsrc "
			"stays %s (it was %s)", why, a, o);
	else
		log_msg(LOG_INFO, "kernel-encap: the kernel's tunsrc (ip sr "
			"tunsrc) restored to %s", o);
	t->held = false;
	tunsrc_save(t);
}

void kencap_tunsrc_settle(const struct runstate *rs,
			  struct kencap_tunsrc *t)
{
	if (!rs->kencap_on || rs->kencap_route_src)
		kencap_tunsrc_restore(t);
}

/* ---- a seg6 route's own source (SEG6_IPTUNNEL_SRC) ---------------------- */

struct src_probe {
	bool seen;	/* the echo came */
	bool src;	/* with SEG6_IPTUNNEL_SRC */
};

static int src_probe_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RTA_MAX + 1] = { NULL };
	const struct nlattr *et[SEG6_IPTUNNEL_SRC + 1] = { NULL };
	struct src_probe *p = data;

	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return MNL_CB_OK;
	p->seen = true;
	rtnl_attrs(nlh, sizeof(struct rtmsg), tb, RTA_MAX);
	if (tb[RTA_ENCAP] &&
	    mnl_attr_validate(tb[RTA_ENCAP], MNL_TYPE_NESTED) == 0)
		rtnl_attrs_nested(tb[RTA_ENCAP], et, SEG6_IPTUNNEL_SRC);
	p->src = et[SEG6_IPTUNNEL_SRC] &&
		 mnl_attr_get_payload_len(et[SEG6_IPTUNNEL_SRC]) == 16;
	return MNL_CB_OK;
}

/* Whether the kernel's seg6 routes keep a source of their own
 * (SEG6_IPTUNNEL_SRC: a newer kernel than 6.18, which takes the
 * attribute and ignores it): a route with src as both its segment and
 * its source in table `table` (srv6d's, which no rule leads to: mark-base
 * itself, offset 0, config.h), added only where none is (NLM_F_EXCL), read back from
 * the kernel (NLM_F_ECHO) and deleted (srv6d's protocol: only it).
 * The kernel does not change under srv6d: asked once. */
static bool route_src_supported(uint32_t table, uint32_t oif,
				const struct in6_addr *src)
{
	static int known = -1;
	uint32_t msg[KENCAP_MSG_SIZE / 4];
	struct kencap_entry e = { .mode = ENCAP_MODE_ENCAP, .mark = table };
	struct src_probe p = { false, false };
	struct nlmsghdr *nlh;
	struct rtnl *nl;
	char why[256];
	int rc;

	if (known >= 0)
		return known;
	nl = malloc(sizeof(*nl));
	if (!nl || rtnl_open(nl, 0) < 0) {
		free(nl);
		return false;	/* asked again next time */
	}
	e.sl.nsegs = 1;
	e.sl.segs[0] = *src;
	nlh = kencap_build_encap_route(msg, ++nl->seq, AF_INET6, &e, oif, src);
	/* never in place of a route there (EEXIST: not known this time) */
	nlh->nlmsg_flags = (uint16_t)((nlh->nlmsg_flags & ~NLM_F_REPLACE) |
				      NLM_F_EXCL | NLM_F_ECHO);
	rc = rtnl_request_cb(nl, nlh, src_probe_cb, &p, why, sizeof(why));
	if (!rc) {
		memset(msg, 0, sizeof(msg));
		rtnl_request(nl, rtrules_build_route(msg, RTM_DELROUTE,
						     ++nl->seq, AF_INET6, table,
						     NULL, 0, NULL, 0, 0),
			     why, sizeof(why));
	}
	rtnl_close(nl);
	free(nl);
	if (rc || !p.seen) {
		log_debug("kernel-encap: no per-route source probe (%s)",
			  rc ? why : "no echo");
		return false;
	}
	known = p.src;
	log_msg(LOG_INFO, "kernel-encap: the kernel's seg6 routes %s",
		known ? "take a source of their own (SEG6_IPTUNNEL_SRC): "
		"encap-source goes on srv6d's routes, ip sr tunsrc is not "
		"touched" : "take no source of their own (SEG6_IPTUNNEL_SRC "
		"ignored): the outer source is ip sr tunsrc's");
	return known;
}

/* ---- resolve, install --------------------------------------------------- */

/* The outer source the kernel gives cfg's encapsulations into *cur, and
 * whether its routes carry it themselves (rs->kencap_route_src): with
 * encap-source on a kernel whose seg6 routes keep a source of their own,
 * encap-source on srv6d's routes and the kernel's tunsrc untouched (what
 * srv6d held of it given back); else the kernel's tunsrc, set to
 * encap-source when it is :: (tunsrc_sync()).  Returns 0, or -1 with the
 * reason in why. */
static int kencap_source(struct runstate *rs, const struct config *cfg,
			 struct kencap_tunsrc *t, uint32_t oif,
			 struct in6_addr *cur, char *why, size_t whylen)
{
	char a[INET6_ADDRSTRLEN];
	bool set = false;

	rs->kencap_route_src = cfg->has_encap_source &&
		route_src_supported(cfg->mark_base, oif, &cfg->encap_source);
	if (rs->kencap_route_src) {	/* t given back: settle() */
		*cur = cfg->encap_source;
		return 0;
	}
	if (tunsrc_sync(t, cfg->has_encap_source ? &cfg->encap_source : NULL,
			cur, &set, why, whylen) < 0)
		return -1;
	inet_ntop(AF_INET6, cur, a, sizeof(a));
	if (set)
		log_msg(LOG_INFO, "kernel-encap: set the kernel's tunsrc (ip sr "
			"tunsrc) to %s%s", a, cfg->has_encap_source ?
			" (encap-source), restored at stop" :
			", as it was before srv6d");
	return 0;
}

/* Can the kernel encapsulate for cfg?  true, or false with why. */
static bool kencap_possible(struct runstate *rs, const struct config *cfg,
			    struct kencap_tunsrc *t, char *why,
			    size_t whylen)
{
	char fl[16] = "0", a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	uint32_t tx = 0, rx = 0;
	struct in6_addr cur;

	rs->kencap_route_src = false;
	if (cfg->kernel_encap == KERNEL_ENCAP_NO) {
		snprintf(why, whylen, "kernel-encap no");
		return false;
	}
	if (!cfg->gso) {
		snprintf(why, whylen, "offload no: no super-packets");
		return false;
	}
	if (sysctl_read("/proc/sys/net/ipv6/seg6_flowlabel", fl,
			sizeof(fl)) == 0 && strcmp(fl, "0")) {
		snprintf(why, whylen, "net.ipv6.seg6_flowlabel is %s, srv6d's "
			 "outer flow label is that of 0", fl);
		return false;
	}
	if (rtrules_reinject_dev_open(cfg->tun_name, &tx, &rx, why,
				      whylen) < 0 ||
	    kencap_source(rs, cfg, t, rx, &cur, why, whylen) < 0)
		return false;
	inet_ntop(AF_INET6, &cur, a, sizeof(a));
	if (cfg->has_encap_source &&
	    !IN6_ARE_ADDR_EQUAL(&cur, &cfg->encap_source)) {
		inet_ntop(AF_INET6, &cfg->encap_source, b, sizeof(b));
		snprintf(why, whylen, "tunsrc %s is not "
			 "encap-source %s", a, b);
		return false;
	}
	rs->kencap_tunsrc = cur;
	rs->kencap_oif = rx;
	if (!rs->nkencaps)
		snprintf(why, whylen, "no policy the kernel can apply");
	else if (rs->kencap_route_src)
		snprintf(why, whylen, "%u encapsulations, source %s on the "
			 "routes", rs->nkencaps, a);
	else if (IN6_IS_ADDR_UNSPECIFIED(&cur))
		snprintf(why, whylen, "%u encapsulations, the kernel picks the "
			 "source", rs->nkencaps);
	else
		snprintf(why, whylen, "%u encapsulations, tunsrc %s",
			 rs->nkencaps, a);
	return true;
}

/* "N End SIDs[, N decapsulating]" into why: cfg's SIDs with a
 * kend_mark. */
static void kend_why_count(const struct runstate *rs,
			   const struct config *cfg, char *why,
			   size_t whylen)
{
	unsigned ends = 0, decaps = 0;

	for (unsigned i = 0; i < cfg->nsids; i++) {
		if (!rs->sids[i].kend_mark)
			continue;
		if (kencap_routes_end_sid(&cfg->sids[i]))
			ends++;
		else
			decaps++;
	}
	if (decaps)
		snprintf(why, whylen, "%u End SIDs, %u decapsulating", ends,
			 decaps);
	else
		snprintf(why, whylen, "%u End SIDs", ends);
}

/* Can the kernel's End take cfg's plain End SIDs?  true, or false with
 * why (their marks then cleared). */
static bool kend_possible(struct runstate *rs, const struct config *cfg,
			  char *why, size_t whylen)
{
	uint32_t tx = 0, rx = 0;

	if (cfg->kernel_end == KERNEL_ENCAP_NO) {
		snprintf(why, whylen, "kernel-end no");
		return false;
	}
	if (!cfg->gso) {
		snprintf(why, whylen, "offload no: no super-packets");
		return false;
	}
	if (!rs->nkends) {
		snprintf(why, whylen, "no plain End, End.DT6, End.DX6 or "
			 "End.DX4 SID");
		return false;
	}
	if (rtrules_reinject_dev_open(cfg->tun_name, &tx, &rx, why,
				      whylen) < 0)
		return false;
	rs->kend_oif = rx;
	kend_why_count(rs, cfg, why, whylen);
	return true;
}

/* kernel-end's half of kencap_routes_resolve(). */
static void kend_resolve(struct runstate *rs, const struct config *cfg,
			 const struct runstate *ors)
{
	rs->kend_on = kend_possible(rs, cfg, rs->kend_why,
				     sizeof(rs->kend_why));
	if (!rs->kend_on) {
		for (unsigned i = 0; i < cfg->nsids; i++)
			rs->sids[i].kend_mark = 0;
		rs->nkends = 0;
	}
	if (ors && ors->kend_on == rs->kend_on &&
	    !strcmp(ors->kend_why, rs->kend_why))
		return;
	log_msg(rs->kend_on || cfg->kernel_end != KERNEL_ENCAP_YES ?
		LOG_INFO : LOG_WARNING, "kernel-end %s: the kernel's End %s "
		"(%s)", cfg->kernel_end == KERNEL_ENCAP_YES ? "yes" :
		cfg->kernel_end == KERNEL_ENCAP_NO ? "no" : "auto",
		rs->kend_on ? "rewrites plain End super-packets" :
		"is not used", rs->kend_why);
}

void kencap_routes_resolve(struct runstate *rs, const struct config *cfg,
			   const struct runstate *ors, struct kencap_tunsrc *t)
{
	kend_resolve(rs, cfg, ors);
	rs->kencap_on = kencap_possible(rs, cfg, t, rs->kencap_why,
					sizeof(rs->kencap_why));
	/* not needed now: given back once rs is in force (settle()) */
	if (ors && ors->kencap_on == rs->kencap_on &&
	    !strcmp(ors->kencap_why, rs->kencap_why))
		return;
	log_msg(rs->kencap_on || cfg->kernel_encap != KERNEL_ENCAP_YES ?
		LOG_INFO : LOG_WARNING, "kernel-encap %s: super-packet "
		"encapsulations %s (%s)",
		cfg->kernel_encap == KERNEL_ENCAP_YES ? "yes" :
		cfg->kernel_encap == KERNEL_ENCAP_NO ? "no" : "auto",
		rs->kencap_on ? "go to the kernel" : "are cut by srv6d",
		rs->kencap_why);
}

void kencap_routes_keep(struct runstate *rs, const struct config *cfg,
			const struct runstate *ors, const struct config *old)
{
	unsigned k = 0;

	rs->kencap_on = ors && ors->kencap_on;
	snprintf(rs->kencap_why, sizeof(rs->kencap_why), "%s",
		 ors ? ors->kencap_why : "");
	rs->kencap_tunsrc = ors ? ors->kencap_tunsrc : in6addr_any;
	rs->kencap_route_src = ors && ors->kencap_route_src;
	rs->kencap_oif = ors ? ors->kencap_oif : 0;
	rs->kend_on = ors && ors->kend_on;
	snprintf(rs->kend_why, sizeof(rs->kend_why), "%s",
		 ors ? ors->kend_why : "");
	rs->kend_oif = ors ? ors->kend_oif : 0;
	rs->nkends = 0;
	for (unsigned i = 0; i < cfg->nsids; i++) {
		uint32_t *m = &rs->sids[i].kend_mark;

		/* only what old installed stays */
		if (*m && (!rs->kend_on ||
			   kend_old_mark(old, ors, &cfg->sids[i]) != *m))
			*m = 0;
		rs->nkends += *m != 0;
	}
	for (unsigned i = 0; i < rs->nkencaps; i++) {
		const struct kencap_entry *o = ors && ors->nkencaps ?
			bsearch(&rs->kencaps[i], ors->kencaps, ors->nkencaps,
				sizeof(*o), runstate_kencap_cmp) : NULL;

		if (rs->kencap_on && o && o->mark == rs->kencaps[i].mark)
			rs->kencaps[k++] = rs->kencaps[i];
	}
	rs->nkencaps = k;
}

/* A request; "kernel-encap mark M: cannot add WHAT: why" into err. */
static int kencap_request(struct rtnl *nl, const struct nlmsghdr *nlh,
			  uint32_t mark, const char *what, char *err,
			  size_t errlen)
{
	char why[256];
	int e = rtnl_request(nl, nlh, why, sizeof(why));

	if (e && e != EEXIST) {
		snprintf(err, errlen, "kernel-encap mark %#x: cannot add %s: %s",
			 mark, what, why);
		return -1;
	}
	return 0;
}

/* One encapsulation's routes (both families' encap routes, the throw
 * route) and rules. */
static int kencap_install_one(struct rtnl *nl, const struct config *cfg,
			      const struct runstate *rs,
			      const struct kencap_entry *e, char *err,
			      size_t errlen)
{
	const struct in6_addr *src = rs->kencap_route_src ?
				     &cfg->encap_source : NULL;
	uint32_t msg[KENCAP_MSG_SIZE / 4];
	char name[32];

	if (kencap_request(nl, kencap_build_encap_route(msg, ++nl->seq,
							AF_INET6, e,
							rs->kencap_oif, src),
			   e->mark, "IPv6 seg6 route", err, errlen) < 0 ||
	    kencap_request(nl, kencap_build_encap_route(msg, ++nl->seq,
							AF_INET, e,
							rs->kencap_oif, src),
			   e->mark, "IPv4 seg6 route", err, errlen) < 0 ||
	    kencap_request(nl, kencap_build_throw_route(msg, ++nl->seq,
							e->mark,
							&e->sl.segs[0]),
			   e->mark, "throw route", err, errlen) < 0 ||
	    kencap_request(nl, kencap_build_blackhole_route(msg, ++nl->seq,
							    AF_INET6, e->mark),
			   e->mark, "IPv6 blackhole route", err, errlen) < 0 ||
	    kencap_request(nl, kencap_build_blackhole_route(msg, ++nl->seq,
							    AF_INET, e->mark),
			   e->mark, "IPv4 blackhole route", err, errlen) < 0)
		return -1;
	snprintf(name, sizeof(name), "kernel-encap %#x", e->mark);
	if (rtrules_rule_add_mark(nl, cfg, name, AF_INET6, cfg->rule_priority,
				  e->mark, e->mark, err, errlen) < 0 ||
	    rtrules_rule_add_mark(nl, cfg, name, AF_INET, cfg->rule_priority,
				  e->mark, e->mark, err, errlen) < 0)
		return -1;
	log_debug("kernel-encap: mark %#x, %s, %u segments", e->mark,
		  encap_mode_name(e->mode), e->sl.nsegs);
	return 0;
}

/* A kernel-end request; "kernel-end mark M: cannot add WHAT: why" into
 * err.  Returns 0 or -1. */
static int kend_request(struct rtnl *nl, const struct nlmsghdr *nlh,
			uint32_t mark, const char *what, char *err,
			size_t errlen)
{
	char why[256];
	int e = rtnl_request(nl, nlh, why, sizeof(why));

	if (e && e != EEXIST) {
		snprintf(err, errlen, "kernel-end mark %#x: cannot add %s: %s",
			 mark, what, why);
		return -1;
	}
	return 0;
}

/* End.DX6's and End.DX4's next hop in table mark (s's kend_mark), the way srv6d's
 * own table sends there (rtrules.c): ip [-6|-4] route replace nh/128|32
 * via nh [dev oif].  The kernel looks the next hop up with the packet's
 * mark, so it finds this route, and the neighbour is the next hop's (with
 * nothing here, an End.DX4 whose nh4 is on a connected route would ask
 * for the inner destination's).  A host route, not a default one: the
 * original, should its seg6local route go, is not sent to nh whole but
 * routed by the next rules, as an End's.  Returns 0 or -1. */
static int kend_nexthop_route(struct rtnl *nl, const struct sid *s,
			      uint32_t mark, char *err, size_t errlen)
{
	uint32_t msg[KENCAP_MSG_SIZE / 4];
	bool v4 = s->behavior == BHV_END_DX4;
	uint32_t oif = 0;

	if (s->oif[0] && !(oif = if_nametoindex(s->oif))) {
		snprintf(err, errlen, "kernel-end mark %#x: no interface %s",
			 mark, s->oif);
		return -1;
	}
	memset(msg, 0, sizeof(msg));
	return kend_request(nl, v4 ?
		rtrules_build_route(msg, RTM_NEWROUTE, ++nl->seq, AF_INET,
				    mark, &s->nh4, 32, &s->nh4, oif,
				    0) :
		rtrules_build_route(msg, RTM_NEWROUTE, ++nl->seq, AF_INET6,
				    mark, &s->nh6, 128, &s->nh6, oif,
				    0),
		mark, "the next hop's route", err, errlen);
}

/* ---- the catch behind the fwmark rules (markguard.h) ---- */

/* Add `priority P+1 to dst/dst_len lookup table`.  Returns 0 or -1. */
static int catch_rule_add(struct rtnl *nl, const struct config *cfg,
			  uint8_t family, const void *dst, uint8_t dst_len,
			  uint32_t table, char *err, size_t errlen)
{
	uint32_t msg[RTRULES_MSG_SIZE / 4];
	char a[INET6_ADDRSTRLEN], why[256];
	int e;

	e = rtnl_request(nl, rtrules_build_rule_to(msg, RTM_NEWRULE, ++nl->seq,
						   family,
						   markguard_priority(cfg),
						   dst, dst_len, table),
			 why, sizeof(why));
	inet_ntop(family, dst, a, sizeof(a));
	if (e && e != EEXIST) {
		snprintf(err, errlen, "mark guard: cannot add rule priority %u "
			 "to %s/%u lookup %#x: %s", markguard_priority(cfg), a,
			 dst_len, table, why);
		return -1;
	}
	log_debug("mark guard: rule priority %u to %s/%u lookup %#x",
		  markguard_priority(cfg), a, dst_len, table);
	return 0;
}

/* Send route request nlh ("mark guard: cannot add WHAT: why").  Returns
 * 0 or -1. */
static int catch_route_add(struct rtnl *nl, const struct nlmsghdr *nlh,
			   const char *what, char *err, size_t errlen)
{
	char why[256];
	int e = rtnl_request(nl, nlh, why, sizeof(why));

	if (e && e != EEXIST) {
		snprintf(err, errlen, "mark guard: cannot add %s: %s", what,
			 why);
		return -1;
	}
	return 0;
}

static int catch_install_sid(struct rtnl *nl, const struct config *cfg,
			    const struct runstate *rs, const struct sid *s,
			    char *err, size_t errlen)
{
	uint32_t mark = runstate_sid(rs, s).kend_mark;
	uint32_t table = markguard_catch_table(mark);
	uint32_t msg[KENCAP_MSG_SIZE / 4];

	if (!mark)
		return 0;
	/* End.T table main: the result is routed as a marked one finds it
	 * after srv6d's table, not by the mark that replaced srv6d's */
	if (catch_route_add(nl, kencap_routes_end_sid(s) ?
			    kencap_build_end_t_route(msg, ++nl->seq, table,
						     &s->prefix, s->plen,
						     rs->kend_oif,
						     CONFIG_TABLE_MAIN) :
			    kencap_build_decap_route(msg, ++nl->seq, table, s,
						     rs->kend_oif),
			    "the catch table's seg6local route", err,
			    errlen) < 0 ||
	    catch_route_add(nl, kencap_build_blackhole_sid_route(msg,
				++nl->seq, table, &s->prefix, s->plen),
			    "the catch table's blackhole", err, errlen) < 0)
		return -1;
	return catch_rule_add(nl, cfg, AF_INET6, &s->prefix, s->plen, table,
			      err, errlen);
}

/* The kernel-encap catch rules (markguard_rules() but kernel-end's,
 * which kend_install_one() makes with their tables), in their order. */
struct catch_add {
	struct rtnl *nl;
	char *err;
	size_t errlen;
	int ret;
};

static void catch_add_one(void *arg, const struct markguard_rule *m)
{
	struct catch_add *c = arg;
	uint32_t msg[RTRULES_MSG_SIZE / 4];
	char a[INET6_ADDRSTRLEN] = "", what[160], why[256];
	int e;

	if (m->catch_table || c->ret < 0)
		return;
	if (m->dst)
		inet_ntop(m->family, m->dst, a, sizeof(a));
	if (m->action == FR_ACT_NOP)
		snprintf(what, sizeof(what), "priority %u nop", m->priority);
	else if (m->action == FR_ACT_GOTO)
		snprintf(what, sizeof(what), "priority %u iif %s goto %u",
			 m->priority, m->iif, m->target);
	else
		snprintf(what, sizeof(what), "priority %u%s%s to %s/%u lookup "
			 "%#x", m->priority, m->iif[0] ? " iif " : "", m->iif,
			 a, m->dst_len, m->table);
	e = rtnl_request(c->nl, rtrules_build_catch_rule(msg, RTM_NEWRULE,
							 ++c->nl->seq, m),
			 why, sizeof(why));
	if (e && e != EEXIST) {
		snprintf(c->err, c->errlen, "mark guard: cannot add IPv%c rule "
			 "%s: %s", m->family == AF_INET ? '4' : '6', what, why);
		c->ret = -1;
		return;
	}
	log_debug("mark guard: IPv%c rule %s", m->family == AF_INET ? '4' : '6',
		  what);
}

static int catch_install_policies(struct rtnl *nl, const struct config *cfg,
			       const struct runstate *rs, char *err,
			       size_t errlen)
{
	struct catch_add c = { nl, err, errlen, 0 };

	if (rs->kencap_on)
		markguard_rules(cfg, rs, catch_add_one, &c);
	return c.ret;
}

/* The kernel's End or decapsulation for SID s: its seg6local route in
 * table of its kend_mark, End.DX6/DX4's next hop there, its rules (IPv4 too
 * for End.DX4's next hop).  Returns 0 or -1. */
static int kend_install_one(struct rtnl *nl, const struct config *cfg,
			    const struct runstate *rs, const struct sid *s,
			    char *err, size_t errlen)
{
	uint32_t mark = runstate_sid(rs, s).kend_mark;
	uint32_t msg[KENCAP_MSG_SIZE / 4];
	char name[48];

	snprintf(name, sizeof(name), "the seg6local %s route",
		 behavior_desc(s->behavior)->name);
	if (kend_request(nl, kencap_routes_end_sid(s) ?
			 kencap_build_end_route(msg, ++nl->seq, mark,
						&s->prefix, s->plen,
						rs->kend_oif) :
			 kencap_build_decap_route(msg, ++nl->seq, mark,
						  s, rs->kend_oif),
			 mark, name, err, errlen) < 0)
		return -1;
	if (kend_request(nl, kencap_build_blackhole_sid_route(msg, ++nl->seq,
				mark, &s->prefix, s->plen),
			 mark, "the SID's blackhole", err, errlen) < 0)
		return -1;
	if ((s->behavior == BHV_END_DX6 || s->behavior == BHV_END_DX4) &&
	    kend_nexthop_route(nl, s, mark, err, errlen) < 0)
		return -1;
	snprintf(name, sizeof(name), "kernel-end %#x", mark);
	if (s->behavior == BHV_END_DX4 &&
	    rtrules_rule_add_mark(nl, cfg, name, AF_INET, cfg->rule_priority,
				  mark, mark, err, errlen) < 0)
		return -1;
	if (rtrules_rule_add_mark(nl, cfg, name, AF_INET6, cfg->rule_priority,
				  mark, mark, err, errlen) < 0)
		return -1;
	/* what meets routing without the mark (markguard.h) */
	return catch_install_sid(nl, cfg, rs, s, err, errlen);
}

/* Turn feature `name` (on, its why) off after its install failed with
 * err: why says "install failed: ...", and one log line unless owhy (the
 * running state's why, or NULL) says the same already. */
static void kencap_fall_back(const char *name, bool *on, char *why,
			     size_t whylen, const char *err, const char *owhy)
{
	*on = false;
	if (snprintf(why, whylen, "install failed: %s", err) >= (int)whylen &&
	    whylen > 4)
		memcpy(why + whylen - 4, "...", 4);
	if (owhy && !strcmp(owhy, why))
		return;
	log_msg(LOG_WARNING, "%s auto: %s; running without it (a reload "
		"tries again)", name, why);
}

/* The kernel-encap half of kencap_routes_install(). */
static int kencap_install_all(struct rtnl *nl, const struct config *cfg,
			      const struct runstate *rs, char *err,
			      size_t errlen)
{
	for (unsigned i = 0; rs->kencap_on && i < rs->nkencaps; i++)
		if (kencap_install_one(nl, cfg, rs, &rs->kencaps[i], err,
				       errlen) < 0)
			return -1;
	/* what meets routing without its mark (markguard.h) */
	return catch_install_policies(nl, cfg, rs, err, errlen);
}

/* The kernel-end half of kencap_routes_install(). */
static int kend_install_all(struct rtnl *nl, const struct config *cfg,
			    const struct runstate *rs, char *err, size_t errlen)
{
	for (unsigned i = 0; rs->kend_on && i < cfg->nsids; i++)
		if (rs->sids[i].kend_mark &&
		    kend_install_one(nl, cfg, rs, &cfg->sids[i], err,
				     errlen) < 0)
			return -1;
	return 0;
}

int kencap_routes_install(struct runstate *rs, const struct config *cfg,
			  const struct runstate *ors, char *err,
			  size_t errlen)
{
	char e2[512];
	struct rtnl *nl;
	int ret = 0;

	if ((!rs->kencap_on || !rs->nkencaps) &&
	    (!rs->kend_on || !rs->nkends))
		return 0;
	nl = malloc(sizeof(*nl));
	if (!nl || rtnl_open(nl, 0) < 0) {
		snprintf(e2, sizeof(e2), "kernel-encap: cannot open rtnetlink "
			 "socket: %s", strerror(errno));
		free(nl);
		nl = NULL;
	}
	if (rs->kencap_on && rs->nkencaps &&
	    (!nl || kencap_install_all(nl, cfg, rs, e2, sizeof(e2)) < 0)) {
		if (cfg->kernel_encap == KERNEL_ENCAP_YES) {
			snprintf(err, errlen, "%s", e2);
			ret = -1;
			goto out;
		}
		kencap_fall_back("kernel-encap", &rs->kencap_on,
				 rs->kencap_why, sizeof(rs->kencap_why), e2,
				 ors && !ors->kencap_on ? ors->kencap_why :
				 NULL);
		ret = 1;
	}
	if (rs->kend_on && rs->nkends &&
	    (!nl || kend_install_all(nl, cfg, rs, e2, sizeof(e2)) < 0)) {
		if (cfg->kernel_end == KERNEL_ENCAP_YES) {
			snprintf(err, errlen, "%s", e2);
			ret = -1;
			goto out;
		}
		kencap_fall_back("kernel-end", &rs->kend_on, rs->kend_why,
				 sizeof(rs->kend_why), e2,
				 ors && !ors->kend_on ? ors->kend_why : NULL);
		for (unsigned i = 0; i < cfg->nsids; i++)
			rs->sids[i].kend_mark = 0;
		rs->nkends = 0;
		ret = 1;
	}
out:
	if (nl) {
		rtnl_close(nl);
		free(nl);
	}
	return ret;
}
