/* rtmirror.c - rtnetlink mirror of links, addresses and routes.
 *
 * Writer: the mirror thread only.  Routes go to a struct fib_db (fib.c);
 * links (with their addresses) are immutable objects in an open-addressing
 * table by ifindex that is copied and republished on every change.  Old
 * objects are freed after a grace period (rtmirror_reclaim).
 */
#define URCU_INLINE_SMALL_FUNCTIONS
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <net/if_arp.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <urcu-qsbr.h>

#include "kpolicy.h"
#include "log.h"
#include "nexthop.h"
#include "rtmirror.h"
#include "rtnl.h"
#include "seg6route.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP	0x10000	/* linux/if.h; clashes with net/if.h */
#endif

#define ATTR_MAX		63	/* attribute tables: types 0..63 */
#define EVENT_BATCH		256	/* receive buffers per poll round */
#define DEFAULT_RCVBUF		(8 * 1024 * 1024)
#define DEFAULT_INTERVAL_MS	1000
#define DUMP_RETRIES		5

struct link_table {
	uint32_t size;			/* power of two */
	uint32_t n;
	uint64_t version;		/* rtmirror_links_version() */
	struct rtmirror_link *slot[];
};

/* An `ip rule iif NAME lookup TABLE` of either family (writer only). */
struct mirror_rule {
	uint8_t family;
	uint32_t priority;
	uint32_t table;
	uint32_t gen;
	char iif[IFNAMSIZ];
};

struct rtmirror {
	struct fib_db *db;
	struct link_table *links;	/* RCU */
	struct mirror_rule *rules;	/* writer only, unordered */
	size_t nrules, rules_cap;
	struct rtmirror_opts opts;
	struct rtnl ev;			/* events */
	struct rtnl dump;		/* dumps */
	uint32_t gen;
	uint64_t links_version;		/* of the last published link table */
	bool dumping;
	bool dump_intr;
	bool resync_pending;
	uint64_t last_resync_ns;
	void **retired;
	size_t nretired, retired_cap;
	struct rtmirror_stats st;	/* written by the writer only */
	pthread_t thread;
	bool running;
	int stopfd;
	int start_err;
	/* opts.seg6_routes: the kernel's SRv6 routes, written by the writer
	 * under seg6_lock, read by rtmirror_seg6_snapshot(); seg6_fd tells
	 * of a change (once a dump is over: seg6_dirty until then). */
	struct seg6route_set *seg6;
	pthread_mutex_t seg6_lock;
	int seg6_fd;
	bool seg6_dirty;
	/* opts.seg6_routes: the seg6 encap routes' policies, attached to
	 * their FIB routes (kpolicy.h) */
	struct kpolicy_db *kpols;
	struct log_ratelimit kpol_rl;
	int links_fd;			/* rtmirror_links_fd() */
	/* opts.seg6_routes: the seg6 encap routes that came and went since
	 * the daemon last took them (rtmirror_kroutes_take()), under
	 * kroutes_lock; kroutes_fd tells when the list stops being empty */
	pthread_mutex_t kroutes_lock;
	struct rtmirror_kroute *kroutes;
	size_t nkroutes, kroutes_cap;
	bool kroutes_lost;
	int kroutes_fd;
	/* The kernel's next-hop objects, and the routes that name one
	 * (nexthop.h): each such route is in the FIB as its expansion. */
	struct nexthop_table *nexthops;
	struct nhroute **nhroutes;	/* buckets by route key */
	size_t nhroutes_nbuckets, nhroutes_n;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define STAT_ADD(m, field, v) \
	CMM_STORE_SHARED((m)->st.field, (m)->st.field + (v))

static void set_error(struct rtmirror *m, int err)
{
	CMM_STORE_SHARED(m->st.last_error, err < 0 ? -err : err);
}

static void retire(struct rtmirror *m, void *p)
{
	if (!p)
		return;
	if (m->nretired == m->retired_cap) {
		size_t cap = m->retired_cap ? m->retired_cap * 2 : 64;
		void **n = realloc(m->retired, cap * sizeof(*n));

		if (!n) {
			/* Cannot defer the free: leak rather than free early. */
			set_error(m, ENOMEM);
			return;
		}
		m->retired = n;
		m->retired_cap = cap;
	}
	m->retired[m->nretired++] = p;
}

void rtmirror_reclaim(struct rtmirror *m)
{
	if (m->nretired) {
		synchronize_rcu();
		for (size_t i = 0; i < m->nretired; i++)
			free(m->retired[i]);
		m->nretired = 0;
	}
	fib_reclaim(m->db);
	if (m->kpols)	/* after: the routes freed put their policies */
		kpolicy_reclaim(m->kpols);
}

/* ---- links ---- */

static uint32_t link_hash(uint32_t ifindex, uint32_t size)
{
	return (ifindex * 2654435761u) & (size - 1);
}

static struct rtmirror_link *const *link_slot(const struct link_table *t,
					      uint32_t ifindex)
{
	uint32_t i = link_hash(ifindex, t->size);

	while (t->slot[i] && t->slot[i]->ifindex != ifindex)
		i = (i + 1) & (t->size - 1);
	return &t->slot[i];
}

const struct rtmirror_link *rtmirror_link_get(const struct rtmirror *m,
					      uint32_t ifindex)
{
	const struct link_table *t = rcu_dereference(m->links);

	return t ? *link_slot(t, ifindex) : NULL;
}

bool rtmirror_link_usable(const struct rtmirror *m, uint32_t ifindex)
{
	const struct rtmirror_link *l = rtmirror_link_get(m, ifindex);

	return l && (l->flags & IFF_UP) && (l->flags & IFF_LOWER_UP);
}

uint32_t rtmirror_iif_table(const struct rtmirror *m, uint32_t ifindex,
			    int family)
{
	const struct rtmirror_link *l = rtmirror_link_get(m, ifindex);

	if (!l)
		return RT_TABLE_MAIN;
	return family == AF_INET ? l->table4 : l->table6;
}

/* Tell the daemon a link appeared, went, went up or down or was renamed
 * (rtmirror_links_fd()). */
static void links_notify(struct rtmirror *m)
{
	uint64_t one = 1;

	if (m->links_fd >= 0 &&
	    write(m->links_fd, &one, sizeof(one)) != sizeof(one))
		set_error(m, errno);	/* EAGAIN: a notice is pending */
}

/* Publish a copy of the link table where ifindex maps to nl (NULL:
 * removed).  The replaced link object is retired.  Returns 0 or -ENOMEM. */
static int link_publish(struct rtmirror *m, uint32_t ifindex,
			struct rtmirror_link *nl)
{
	struct link_table *old = m->links, *t;
	uint32_t n = (old ? old->n : 0) + 1, size = 16;
	struct rtmirror_link *prev = NULL;

	while (size < n * 2)
		size *= 2;
	t = calloc(1, sizeof(*t) + size * sizeof(t->slot[0]));
	if (!t)
		return -ENOMEM;
	t->size = size;
	t->version = ++m->links_version;
	for (uint32_t i = 0; old && i < old->size; i++) {
		struct rtmirror_link *l = old->slot[i];

		if (!l)
			continue;
		if (l->ifindex == ifindex) {
			prev = l;
			continue;
		}
		*(struct rtmirror_link **)link_slot(t, l->ifindex) = l;
		t->n++;
	}
	if (nl) {
		*(struct rtmirror_link **)link_slot(t, ifindex) = nl;
		t->n++;
	}
	rcu_assign_pointer(m->links, t);
	if (!prev != !nl || (prev && (strcmp(prev->name, nl->name) ||
				      ((prev->flags ^ nl->flags) & IFF_UP))))
		links_notify(m);
	retire(m, old);
	retire(m, prev);
	return 0;
}

static struct rtmirror_link *link_copy(const struct rtmirror_link *l,
				       unsigned naddr)
{
	struct rtmirror_link *c = calloc(1, sizeof(*c) + naddr * sizeof(c->addr[0]));

	if (c && l) {
		unsigned n = l->naddr < naddr ? l->naddr : naddr;

		memcpy(c, l, sizeof(*c) + n * sizeof(c->addr[0]));
		c->naddr = (uint16_t)n;
	}
	return c;
}

void rtmirror_links_read(const struct rtmirror *m,
			 void (*fn)(const struct rtmirror_link *l, void *arg),
			 void *arg)
{
	const struct link_table *t = rcu_dereference(m->links);

	for (uint32_t i = 0; t && i < t->size; i++)
		if (t->slot[i])
			fn(t->slot[i], arg);
}

uint64_t rtmirror_links_version(const struct rtmirror *m)
{
	const struct link_table *t = rcu_dereference(m->links);

	return t ? t->version : 0;
}

/* ---- the table of each link's packets: VRFs and iif rules ---- */

/* The table of the first (lowest priority) iif rule of family for link
 * name, or RT_TABLE_MAIN. */
static uint32_t rules_table(const struct rtmirror *m, int family,
			    const char *name)
{
	const struct mirror_rule *best = NULL;

	for (size_t i = 0; i < m->nrules; i++) {
		const struct mirror_rule *r = &m->rules[i];

		if (r->family == family && !strcmp(r->iif, name) &&
		    (!best || r->priority < best->priority))
			best = r;
	}
	return best ? best->table : RT_TABLE_MAIN;
}

/* The VRF table of l (a VRF, or enslaved to one), 0 when none. */
static uint32_t link_vrf_table(const struct rtmirror *m,
			       const struct rtmirror_link *l)
{
	const struct rtmirror_link *master;

	if (!strcmp(l->kind, "vrf"))
		return l->vrf_table;
	if (!l->master || !m->links)
		return 0;
	master = *link_slot(m->links, l->master);
	return master && !strcmp(master->kind, "vrf") ? master->vrf_table : 0;
}

/* Set l->table4 and l->table6 from its VRF or the rules. */
static void link_set_tables(const struct rtmirror *m, struct rtmirror_link *l)
{
	uint32_t vrf = link_vrf_table(m, l);

	l->table4 = vrf ? vrf : rules_table(m, AF_INET, l->name);
	l->table6 = vrf ? vrf : rules_table(m, AF_INET6, l->name);
}

/* After a rule or a VRF changed: publish one new link table in which every
 * link whose tables changed is a new copy.  Returns 0 or -ENOMEM (the
 * links keep their old tables). */
static int links_retable(struct rtmirror *m)
{
	struct link_table *old = m->links, *t;
	size_t bytes;

	if (!old)
		return 0;
	bytes = sizeof(*t) + old->size * sizeof(t->slot[0]);
	t = malloc(bytes);
	if (!t)
		return -ENOMEM;
	memcpy(t, old, bytes);
	for (uint32_t i = 0; i < t->size; i++) {
		struct rtmirror_link *l = t->slot[i], tmp, *c;

		if (!l)
			continue;
		memcpy(&tmp, l, sizeof(tmp));
		link_set_tables(m, &tmp);
		if (tmp.table4 == l->table4 && tmp.table6 == l->table6)
			continue;
		c = link_copy(l, l->naddr);
		if (!c) {
			while (i--)
				if (t->slot[i] != old->slot[i])
					free(t->slot[i]);
			free(t);
			return -ENOMEM;
		}
		c->table4 = tmp.table4;
		c->table6 = tmp.table6;
		t->slot[i] = c;
	}
	if (!memcmp(t, old, bytes)) {
		free(t);
		return 0;
	}
	t->version = ++m->links_version;
	rcu_assign_pointer(m->links, t);
	for (uint32_t i = 0; i < t->size; i++)
		if (t->slot[i] != old->slot[i])
			retire(m, old->slot[i]);
	retire(m, old);
	links_notify(m);	/* a link's table changed: steering's rules */
	return 0;
}

/* ---- purges: what the kernel does without a message ---- */

enum purge_mode {
	PURGE_DOWN,		/* link down: next hops dead */
	PURGE_FORCE,		/* link gone / no IPv4 address left */
	PURGE_UP,		/* link up: next hops alive again */
	PURGE_PREFSRC,		/* address gone: routes using it as source */
};

struct purge {
	enum purge_mode mode;
	int family;
	uint32_t ifindex;
	union fib_addr src;
	const struct fib_route **hit;
	size_t n, cap;
};

static bool purge_applies(const struct purge *p, const struct fib_route *r)
{
	const struct fib_info *fi = r->fi;

	if (r->family != p->family)
		return false;
	if (p->mode == PURGE_PREFSRC)
		return r->table == FIB_TABLE_MAIN && fi->prefsrc_set &&
		       !memcmp(&fi->prefsrc, &p->src, 4);
	/* IPv4 keeps host-scope (local) routes on a plain link down. */
	if (p->mode == PURGE_DOWN && r->family == AF_INET &&
	    fi->scope == RT_SCOPE_HOST)
		return false;
	for (unsigned i = 0; i < fi->nnh; i++)
		if (fi->nh[i].oif == p->ifindex)
			return true;
	return false;
}

static int purge_collect(const struct fib_route *r, void *arg)
{
	struct purge *p = arg;

	if (!purge_applies(p, r))
		return 0;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		const struct fib_route **n = realloc(p->hit, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->hit = n;
		p->cap = cap;
	}
	p->hit[p->n++] = r;
	return 0;
}

/* Tell the daemon the SRv6 routes changed (rtmirror_seg6_fd()). */
static void seg6_notify(struct rtmirror *m)
{
	uint64_t one = 1;

	m->seg6_dirty = false;
	if (write(m->seg6_fd, &one, sizeof(one)) != sizeof(one))
		set_error(m, errno);	/* EAGAIN: a notice is pending */
}

/* An IPv4 seg6 route the kernel removed without a message. */
static void seg6_purge(struct rtmirror *m, const struct fib_route_spec *s)
{
	int rc;

	if (!m->seg6)
		return;
	pthread_mutex_lock(&m->seg6_lock);
	rc = seg6route_set_remove(m->seg6, s->family, s->table, s->dst.b,
				  s->plen, s->tos, s->priority);
	pthread_mutex_unlock(&m->seg6_lock);
	if (rc)
		seg6_notify(m);
}

/* Rewrite one route as the kernel would after the purge event. */
static void purge_route(struct rtmirror *m, const struct purge *p,
			const struct fib_route *r)
{
	static struct fib_route_spec s;
	unsigned dead = 0;
	bool changed = false;

	fib_route_to_spec(r, &s);
	for (unsigned i = 0; i < s.nnh; i++) {
		struct fib_nexthop *nh = &s.nh[i];
		uint8_t was = nh->flags;

		if (nh->oif == p->ifindex) {
			if (p->mode == PURGE_UP)
				nh->flags &= (uint8_t)~(RTNH_F_DEAD | RTNH_F_LINKDOWN);
			else if (p->mode != PURGE_PREFSRC)
				nh->flags |= RTNH_F_DEAD | RTNH_F_LINKDOWN;
		}
		changed |= nh->flags != was;
		dead += !!(nh->flags & RTNH_F_DEAD);
	}
	if (p->mode == PURGE_PREFSRC || (p->mode != PURGE_UP && dead == s.nnh)) {
		fib_route_del(m->db, &s);
		if (s.family == AF_INET)	/* the kernel deleted it */
			seg6_purge(m, &s);
	} else if (changed) {
		if (fib_route_add(m->db, &s, r->gen) < 0)
			STAT_ADD(m, errors, 1);
	} else {
		return;
	}
	STAT_ADD(m, purged, 1);
}

static void purge_run(struct rtmirror *m, enum purge_mode mode, int family,
		      uint32_t ifindex, const union fib_addr *src)
{
	struct purge p = { .mode = mode, .family = family, .ifindex = ifindex };

	if (m->dumping)
		return;		/* the dump is the truth; the sweep follows */
	if (src)
		p.src = *src;
	if (fib_foreach(m->db, purge_collect, &p) < 0)
		STAT_ADD(m, errors, 1);
	/* Each rewrite retires r without freeing it: the pointers stay
	 * valid until the next reclaim. */
	for (size_t i = 0; i < p.n; i++)
		purge_route(m, &p, p.hit[i]);
	free(p.hit);
}

static void purge_link(struct rtmirror *m, enum purge_mode mode,
		       uint32_t ifindex)
{
	purge_run(m, mode, AF_INET, ifindex, NULL);
	purge_run(m, mode, AF_INET6, ifindex, NULL);
}

/* ---- messages ---- */

static void copy_str(char *dst, size_t cap, const struct nlattr *a)
{
	size_t len = mnl_attr_get_payload_len(a);
	const char *s = mnl_attr_get_str(a);

	len = strnlen(s, len < cap ? len : cap - 1);
	memcpy(dst, s, len);
	dst[len] = 0;
}

/* IFLA_VRF_TABLE of a VRF's IFLA_INFO_DATA, 0 when absent. */
static uint32_t vrf_table_of(const struct nlattr *data)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, data)
		if (mnl_attr_get_type(a) == IFLA_VRF_TABLE &&
		    mnl_attr_get_payload_len(a) == 4)
			return mnl_attr_get_u32(a);
	return 0;
}

static void link_kind(struct rtmirror_link *l, const struct nlattr *info)
{
	const struct nlattr *a, *data = NULL;

	mnl_attr_for_each_nested(a, info) {
		if (mnl_attr_get_type(a) == IFLA_INFO_KIND)
			copy_str(l->kind, sizeof(l->kind), a);
		else if (mnl_attr_get_type(a) == IFLA_INFO_DATA)
			data = a;
	}
	l->vrf_table = 0;
	if (data && !strcmp(l->kind, "vrf"))
		l->vrf_table = vrf_table_of(data);
}

static void nexthops_flush_link(struct rtmirror *m, uint32_t ifindex);

/* The link's Ethernet address (IFLA_ADDRESS of an ARPHRD_ETHER link),
 * unset for any other link. */
static void link_hwaddr(struct rtmirror_link *l, const struct ifinfomsg *ifi,
			const struct nlattr *a)
{
	l->has_hwaddr = ifi->ifi_type == ARPHRD_ETHER && a &&
			mnl_attr_get_payload_len(a) == sizeof(l->hwaddr);
	if (l->has_hwaddr)
		memcpy(l->hwaddr, mnl_attr_get_payload(a), sizeof(l->hwaddr));
}

static int link_msg(struct rtmirror *m, const struct nlmsghdr *nlh)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[ATTR_MAX + 1] = { 0 };
	const struct rtmirror_link *old = rtmirror_link_get(m, (uint32_t)ifi->ifi_index);
	struct rtmirror_link *l;
	uint32_t idx = (uint32_t)ifi->ifi_index;

	if (nlh->nlmsg_type == RTM_DELLINK) {
		bool vrf = old && !strcmp(old->kind, "vrf");

		if (!old)
			return 0;
		nexthops_flush_link(m, idx);
		purge_link(m, PURGE_FORCE, idx);
		if (link_publish(m, idx, NULL) < 0)
			return -ENOMEM;
		return vrf && !m->dumping ? links_retable(m) : 0;
	}
	rtnl_attrs(nlh, sizeof(*ifi), tb, ATTR_MAX);
	l = link_copy(old, old ? old->naddr : 0);
	if (!l)
		return -ENOMEM;
	l->ifindex = idx;
	l->flags = ifi->ifi_flags;
	l->gen = m->gen;
	if (tb[IFLA_IFNAME])
		copy_str(l->name, sizeof(l->name), tb[IFLA_IFNAME]);
	if (tb[IFLA_MTU])
		l->mtu = mnl_attr_get_u32(tb[IFLA_MTU]);
	if (tb[IFLA_OPERSTATE])
		l->operstate = mnl_attr_get_u8(tb[IFLA_OPERSTATE]);
	if (tb[IFLA_LINKINFO])
		link_kind(l, tb[IFLA_LINKINFO]);
	l->master = tb[IFLA_MASTER] ? mnl_attr_get_u32(tb[IFLA_MASTER]) : 0;
	link_hwaddr(l, ifi, tb[IFLA_ADDRESS]);
	link_set_tables(m, l);
	if (link_publish(m, idx, l) < 0) {
		free(l);
		return -ENOMEM;
	}
	if (!strcmp(l->kind, "vrf") && !m->dumping &&
	    (!old || old->vrf_table != l->vrf_table) && links_retable(m) < 0)
		return -ENOMEM;
	/* The kernel's nexthop_flush_dev() on NETDEV_DOWN and on a
	 * NETDEV_CHANGE that leaves neither IFF_RUNNING nor IFF_LOWER_UP */
	if (!(l->flags & IFF_UP) || !(l->flags & (IFF_RUNNING | IFF_LOWER_UP)))
		nexthops_flush_link(m, idx);
	if (old && (old->flags & IFF_UP) && !(l->flags & IFF_UP))
		purge_link(m, PURGE_DOWN, idx);
	else if (old && !(old->flags & IFF_UP) && (l->flags & IFF_UP))
		purge_link(m, PURGE_UP, idx);
	return 0;
}

static bool link_has_family(const struct rtmirror_link *l, int family)
{
	for (unsigned i = 0; i < l->naddr; i++)
		if (l->addr[i].family == family)
			return true;
	return false;
}

static int addr_msg(struct rtmirror *m, const struct nlmsghdr *nlh)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[ATTR_MAX + 1] = { 0 };
	const struct rtmirror_link *old = rtmirror_link_get(m, ifa->ifa_index);
	const struct nlattr *aa;
	struct rtmirror_addr a = { 0 };
	struct rtmirror_link *l;
	unsigned i, alen = ifa->ifa_family == AF_INET ? 4 : 16;

	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return 1;
	if (!old)
		return 1;	/* its link comes first in every dump */
	rtnl_attrs(nlh, sizeof(*ifa), tb, ATTR_MAX);
	aa = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if (!aa || mnl_attr_get_payload_len(aa) != alen)
		return -EINVAL;
	memcpy(a.addr.b, mnl_attr_get_payload(aa), alen);
	a.family = ifa->ifa_family;
	a.plen = ifa->ifa_prefixlen;
	a.scope = ifa->ifa_scope;
	a.flags = ifa->ifa_flags;
	a.gen = m->gen;
	for (i = 0; i < old->naddr; i++)
		if (old->addr[i].family == a.family &&
		    !memcmp(&old->addr[i].addr, &a.addr, sizeof(a.addr)))
			break;
	if (nlh->nlmsg_type == RTM_DELADDR) {
		if (i == old->naddr)
			return 0;
		l = link_copy(old, old->naddr);
		if (!l)
			return -ENOMEM;
		l->addr[i] = l->addr[--l->naddr];
	} else {
		if (i == RTMIRROR_MAX_ADDRS)
			return -ENOSPC;
		l = link_copy(old, old->naddr + (i == old->naddr));
		if (!l)
			return -ENOMEM;
		l->addr[i] = a;
		if (i == old->naddr)
			l->naddr++;
	}
	if (link_publish(m, l->ifindex, l) < 0) {
		free(l);
		return -ENOMEM;
	}
	if (nlh->nlmsg_type == RTM_DELADDR && a.family == AF_INET) {
		purge_run(m, PURGE_PREFSRC, AF_INET, 0, &a.addr);
		if (!link_has_family(l, AF_INET))
			purge_run(m, PURGE_FORCE, AF_INET, l->ifindex, NULL);
	}
	return 0;
}

static void nh_gateway(struct fib_nexthop *nh, const struct nlattr *gw,
		       const struct nlattr *via, int family)
{
	if (gw && mnl_attr_get_payload_len(gw) == (family == AF_INET ? 4u : 16u)) {
		nh->gw_family = (uint8_t)family;
		memcpy(nh->gw.b, mnl_attr_get_payload(gw),
		       mnl_attr_get_payload_len(gw));
	} else if (via && mnl_attr_get_payload_len(via) >= 2) {
		const struct rtvia *v = mnl_attr_get_payload(via);
		size_t len = mnl_attr_get_payload_len(via) - sizeof(v->rtvia_family);

		if ((v->rtvia_family == AF_INET && len == 4) ||
		    (v->rtvia_family == AF_INET6 && len == 16)) {
			nh->gw_family = (uint8_t)v->rtvia_family;
			memcpy(nh->gw.b, v->rtvia_addr, len);
		}
	}
}

static int multipath_parse(struct fib_route_spec *s, const struct nlattr *mp)
{
	const uint8_t *p = mnl_attr_get_payload(mp);
	size_t left = mnl_attr_get_payload_len(mp);

	while (left >= sizeof(struct rtnexthop) && s->nnh < FIB_MAX_NH) {
		const struct rtnexthop *rtnh = (const struct rtnexthop *)p;
		const struct nlattr *gw = NULL, *via = NULL;
		struct fib_nexthop *nh = &s->nh[s->nnh++];
		size_t len = rtnh->rtnh_len, off = RTNH_ALIGN(sizeof(*rtnh));

		if (len < sizeof(*rtnh) || len > left)
			return -EINVAL;
		while (off + sizeof(struct nlattr) <= len) {
			const struct nlattr *a = (const struct nlattr *)(p + off);

			if (a->nla_len < sizeof(*a) || off + a->nla_len > len)
				return -EINVAL;
			if (mnl_attr_get_type(a) == RTA_GATEWAY)
				gw = a;
			else if (mnl_attr_get_type(a) == RTA_VIA)
				via = a;
			off += MNL_ALIGN(a->nla_len);
		}
		nh->oif = (uint32_t)rtnh->rtnh_ifindex;
		nh->weight = (uint16_t)(rtnh->rtnh_hops + 1);
		nh->flags = rtnh->rtnh_flags &
			    (RTNH_F_DEAD | RTNH_F_LINKDOWN | RTNH_F_ONLINK);
		nh_gateway(nh, gw, via, s->family);
		len = RTNH_ALIGN(len);
		if (len >= left)
			break;
		p += len;
		left -= len;
	}
	return 0;
}

static void metrics_parse(struct fib_route_spec *s, const struct nlattr *mx)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, mx)
		if (mnl_attr_get_type(a) == RTAX_MTU &&
		    mnl_attr_get_payload_len(a) == 4)
			s->mtu = mnl_attr_get_u32(a);
}

/* Parse a route message.  Returns 0, 1 if it is one we leave out on
 * purpose, or -EINVAL. */
static int route_parse(const struct nlmsghdr *nlh, struct fib_route_spec *s)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[ATTR_MAX + 1] = { 0 };
	unsigned alen = rtm->rtm_family == AF_INET ? 4 : 16;

	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return 1;
	if ((rtm->rtm_flags & RTM_F_CLONED) || rtm->rtm_protocol == RTPROT_REDIRECT)
		return 1;
	memset(s, 0, offsetof(struct fib_route_spec, nh));
	if (rtnl_attrs(nlh, sizeof(*rtm), tb, ATTR_MAX) < 0)
		return -EINVAL;
	if (tb[RTA_NH_ID])
		return 1;	/* route_msg() expands it first */
	s->family = rtm->rtm_family;
	s->plen = rtm->rtm_dst_len;
	s->tos = rtm->rtm_tos;
	s->type = rtm->rtm_type;
	s->protocol = rtm->rtm_protocol;
	s->scope = rtm->rtm_scope;
	s->table = tb[RTA_TABLE] ? mnl_attr_get_u32(tb[RTA_TABLE]) : rtm->rtm_table;
	if (tb[RTA_DST]) {
		if (mnl_attr_get_payload_len(tb[RTA_DST]) != alen)
			return -EINVAL;
		memcpy(s->dst.b, mnl_attr_get_payload(tb[RTA_DST]), alen);
	}
	if (tb[RTA_PRIORITY])
		s->priority = mnl_attr_get_u32(tb[RTA_PRIORITY]);
	if (tb[RTA_PREFSRC] && mnl_attr_get_payload_len(tb[RTA_PREFSRC]) == alen) {
		memcpy(s->prefsrc.b, mnl_attr_get_payload(tb[RTA_PREFSRC]), alen);
		s->prefsrc_set = 1;
	}
	if (tb[RTA_METRICS])
		metrics_parse(s, tb[RTA_METRICS]);
	if (tb[RTA_MULTIPATH])
		return multipath_parse(s, tb[RTA_MULTIPATH]);
	if (tb[RTA_OIF] || tb[RTA_GATEWAY] || tb[RTA_VIA]) {
		struct fib_nexthop *nh = &s->nh[0];

		memset(nh, 0, sizeof(*nh));
		s->nnh = 1;
		nh->weight = 1;
		nh->oif = tb[RTA_OIF] ? mnl_attr_get_u32(tb[RTA_OIF]) : 0;
		nh->flags = rtm->rtm_flags &
			    (RTNH_F_DEAD | RTNH_F_LINKDOWN | RTNH_F_ONLINK);
		nh_gateway(nh, tb[RTA_GATEWAY], tb[RTA_VIA], s->family);
	}
	return 0;
}

/* A seg6local route (or a route that is not SRv6 any more, or a
 * deletion) into m->seg6, the set the daemon merges SIDs from. */
static void seg6_set_apply(struct rtmirror *m, const struct nlmsghdr *nlh)
{
	int rc;

	pthread_mutex_lock(&m->seg6_lock);
	rc = seg6route_set_apply(m->seg6, nlh, m->gen);
	pthread_mutex_unlock(&m->seg6_lock);
	if (rc < 0) {
		STAT_ADD(m, errors, 1);
		set_error(m, rc);
	} else if (rc > 0) {
		m->seg6_dirty = true;
		if (!m->dumping)
			seg6_notify(m);
	}
}

/* A seg6 encap route r is not a seg6local one (any more): out of the set
 * if it was there. */
static void seg6_set_drop(struct rtmirror *m, const struct seg6route *r)
{
	int rc;

	pthread_mutex_lock(&m->seg6_lock);
	rc = seg6route_set_remove(m->seg6, r->family, r->table, &r->pol.prefix,
				  r->pol.plen, r->tos, r->priority);
	pthread_mutex_unlock(&m->seg6_lock);
	if (rc) {
		m->seg6_dirty = true;
		if (!m->dumping)
			seg6_notify(m);
	}
}

/* The policy of seg6 encap route r (s: its FIB spec), held once, or
 * NULL: srv6d cannot apply it (logged, rate-limited, and counted, once:
 * not again when a resync's dump brings the route back; the kernel's own
 * encapsulation applies), or memory ran out (counted).  The
 * route's policy now when it is the same (a resync's dump of a full
 * table builds nothing). */
static struct kpolicy *seg6_policy(struct rtmirror *m,
				   const struct seg6route *r,
				   const struct fib_route_spec *s)
{
	const struct fib_route *old = s ? fib_route_find(m->db, s) : NULL;
	char a[INET6_ADDRSTRLEN] = "?";
	struct kpolicy *kp;

	if (r->unsupported) {
		if (m->dumping && old && !old->encap)
			return NULL;	/* a resync's: said already */
		STAT_ADD(m, kpol_unsupported, 1);
		inet_ntop(r->family, &r->pol.prefix, a, sizeof(a));
		log_ratelimited(&m->kpol_rl, LOG_WARNING, "kernel route seg6 "
				"%s/%u (table %u) not applied: %s", a,
				r->pol.plen, r->table, r->unsupported);
		return NULL;
	}
	if (old && old->encap && kpolicy_is(old->encap, &r->pol)) {
		kp = (struct kpolicy *)old->encap;
		kpolicy_hold(kp);
		return kp;
	}
	kp = kpolicy_new(m->kpols, &r->pol);
	if (!kp) {
		STAT_ADD(m, errors, 1);
		set_error(m, ENOMEM);
	}
	return kp;
}

/* The SRv6 part of a route message (s: its FIB spec, NULL if it has
 * none): a seg6 encap route's policy, to attach to its FIB route (NULL:
 * none), or a seg6local route into m->seg6. */
static struct kpolicy *seg6_msg(struct rtmirror *m, const struct nlmsghdr *nlh,
				const struct fib_route_spec *s)
{
	static struct seg6route r;	/* the writer's */
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);

	if ((rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    (rtm->rtm_flags & RTM_F_CLONED))
		return NULL;	/* multicast, MPLS, route cache entries */
	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    seg6route_parse(nlh, &r) != 1 || r.kind != SEG6ROUTE_POLICY) {
		seg6_set_apply(m, nlh);
		return NULL;
	}
	seg6_set_drop(m, &r);
	return seg6_policy(m, &r, s);
}

/* A route message with its next hops in it (no RTA_NH_ID) into the FIB
 * and, with opts.seg6_routes, the SRv6 sets. */
static int route_apply(struct rtmirror *m, const struct nlmsghdr *nlh)
{
	static struct fib_route_spec s;	/* writer thread only */
	struct kpolicy *kp = NULL;
	int rc;

	rc = route_parse(nlh, &s);
	if (m->seg6)
		kp = seg6_msg(m, nlh, rc ? NULL : &s);
	if (rc)
		goto out;
	s.encap = kp;
	if (nlh->nlmsg_type == RTM_DELROUTE) {
		rc = fib_route_del(m->db, &s);
		rc = rc == -ESRCH ? 0 : rc;
		goto out;
	}
	rc = fib_route_add(m->db, &s, m->gen);
	/* An IPv6 replace may change the oif, which is in the key: the
	 * routes of the old oifs go after the new one is in (a reader
	 * finds one or the other, never none). */
	if (rc >= 0 && s.family == AF_INET6 &&
	    (nlh->nlmsg_flags & NLM_F_REPLACE))
		fib_route_del_others(m->db, &s);
	rc = rc < 0 ? rc : 0;
out:
	kpolicy_put(m->kpols, kp);	/* the route holds its own */
	return rc;
}

/* ---- routes through next-hop objects ---- */

/* What the kernel keys a route by, and the object it names. */
struct nhroute_key {
	uint32_t table;
	uint32_t priority;
	uint32_t nhid;
	uint8_t family;
	uint8_t plen;
	uint8_t tos;
	uint8_t pad;
	uint8_t dst[16];
};

/* A route that names a next-hop object: the message as the kernel sent
 * it, and its expansion now in the FIB (NULL: none). */
struct nhroute {
	struct nhroute *next;
	struct nhroute_key key;
	uint32_t gen;
	bool dirty;		/* to resolve again (nhroutes_mark()) */
	struct nlmsghdr *applied;
	uint32_t msg[];		/* struct nlmsghdr */
};

static int nhroute_key_of(const struct nlmsghdr *nlh, struct nhroute_key *k)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[ATTR_MAX + 1] = { 0 };
	unsigned alen = rtm->rtm_family == AF_INET ? 4 : 16;

	if (rtnl_attrs(nlh, sizeof(*rtm), tb, ATTR_MAX) < 0 ||
	    rtm->rtm_dst_len > alen * 8)
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	k->family = rtm->rtm_family;
	k->plen = rtm->rtm_dst_len;
	k->tos = rtm->rtm_tos;
	k->table = tb[RTA_TABLE] ? mnl_attr_get_u32(tb[RTA_TABLE])
				 : rtm->rtm_table;
	k->priority = rtnl_attr_u32(tb[RTA_PRIORITY], 0);
	k->nhid = rtnl_attr_u32(tb[RTA_NH_ID], 0);
	if (tb[RTA_DST]) {
		if (mnl_attr_get_payload_len(tb[RTA_DST]) != alen)
			return -EINVAL;
		memcpy(k->dst, mnl_attr_get_payload(tb[RTA_DST]), alen);
	}
	for (unsigned i = 0; i < alen; i++) {
		unsigned keep = k->plen > i * 8 ? k->plen - i * 8 : 0;

		if (keep < 8)
			k->dst[i] &= (uint8_t)(0xff00u >> keep);
	}
	return 0;
}

/* The route key without the object: routes that replace each other. */
static bool nhroute_same_route(const struct nhroute_key *a,
			       const struct nhroute_key *b)
{
	return a->table == b->table && a->priority == b->priority &&
	       a->family == b->family && a->plen == b->plen &&
	       a->tos == b->tos && !memcmp(a->dst, b->dst, sizeof(a->dst));
}

static size_t nhroute_bucket(const struct rtmirror *m,
			     const struct nhroute_key *k)
{
	uint32_t h = 2166136261u;	/* FNV-1a of the key without nhid */
	const uint8_t *p = k->dst;

	for (unsigned i = 0; i < sizeof(k->dst); i++)
		h = (h ^ p[i]) * 16777619u;
	h = (h ^ k->table ^ (k->priority << 7) ^ ((uint32_t)k->plen << 24) ^
	     k->family ^ ((uint32_t)k->tos << 16)) * 16777619u;
	return h & (m->nhroutes_nbuckets - 1);
}

/* Room for more routes: twice the buckets once they are more than the
 * buckets (a failed allocation keeps the longer chains). */
static void nhroutes_grow(struct rtmirror *m)
{
	struct nhroute **old = m->nhroutes;
	size_t n = m->nhroutes_nbuckets;

	if (old && m->nhroutes_n < n)
		return;
	m->nhroutes_nbuckets = n ? n * 2 : 256;
	m->nhroutes = calloc(m->nhroutes_nbuckets, sizeof(*m->nhroutes));
	if (!m->nhroutes) {
		m->nhroutes = old;
		m->nhroutes_nbuckets = n;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct nhroute *r = old[i], *next;

		for (; r; r = next) {
			size_t b = nhroute_bucket(m, &r->key);

			next = r->next;
			r->next = m->nhroutes[b];
			m->nhroutes[b] = r;
		}
	}
	free(old);
}

static struct nlmsghdr *msg_copy(const struct nlmsghdr *nlh)
{
	struct nlmsghdr *c = malloc(nlh->nlmsg_len);

	if (c)
		memcpy(c, nlh, nlh->nlmsg_len);
	return c;
}

/* Take r's expansion out of the FIB (and the SRv6 sets). */
static void nhroute_withdraw(struct rtmirror *m, struct nhroute *r)
{
	if (!r->applied)
		return;
	r->applied->nlmsg_type = RTM_DELROUTE;
	if (route_apply(m, r->applied) < 0)
		STAT_ADD(m, errors, 1);
	free(r->applied);
	r->applied = NULL;
}

/* Unlink and free the route *pe (its FIB route withdrawn if withdraw). */
static void nhroute_unlink(struct rtmirror *m, struct nhroute **pe,
			   bool withdraw)
{
	struct nhroute *r = *pe;

	if (withdraw)
		nhroute_withdraw(m, r);
	free(r->applied);
	*pe = r->next;
	free(r);
	m->nhroutes_n--;
}

/* Resolve r against the objects now and put the result in force, with
 * extra nlmsg_flags.  Returns 0, or -ENOENT when its object is gone
 * (the route must go: the kernel deleted it), or another -errno. */
static int nhroute_resolve(struct rtmirror *m, struct nhroute *r,
			   uint16_t flags)
{
	static uint32_t buf[RTNL_BUF_SIZE / 4];	/* the writer's */
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)r->msg;
	struct nlmsghdr *x, *c;
	int rc;

	x = nexthop_route_expand(m->nexthops, nlh, buf, sizeof(buf), &rc);
	if (!x)
		return rc;
	x->nlmsg_type = RTM_NEWROUTE;
	x->nlmsg_flags |= flags;
	rc = route_apply(m, x);
	if (rc < 0)
		return rc;
	c = msg_copy(x);
	if (!c)
		return -ENOMEM;
	free(r->applied);
	r->applied = c;
	return 0;
}

/* Free the routes of key k naming another object than k->nhid (the
 * route replaced them in the FIB already); keep routes of other oifs of
 * an IPv6 key unless replace. */
static void nhroutes_drop_replaced(struct rtmirror *m,
				   const struct nhroute_key *k, bool replace)
{
	struct nhroute **pe;

	if (!m->nhroutes || (k->family == AF_INET6 && !replace))
		return;
	pe = &m->nhroutes[nhroute_bucket(m, k)];
	while (*pe) {
		if (nhroute_same_route(&(*pe)->key, k) &&
		    (*pe)->key.nhid != k->nhid)
			nhroute_unlink(m, pe, false);
		else
			pe = &(*pe)->next;
	}
}

static struct nhroute **nhroute_find(struct rtmirror *m,
				     const struct nhroute_key *k)
{
	struct nhroute **pe = &m->nhroutes[nhroute_bucket(m, k)];

	while (*pe && ((*pe)->key.nhid != k->nhid ||
		       !nhroute_same_route(&(*pe)->key, k)))
		pe = &(*pe)->next;
	return pe;
}

/* A route message naming a next-hop object.  Returns 0 or -errno. */
static int nhroute_msg(struct rtmirror *m, const struct nlmsghdr *nlh)
{
	struct nhroute_key k;
	struct nhroute **pe, *r;
	int rc;

	if (nhroute_key_of(nlh, &k) < 0)
		return -EINVAL;
	nhroutes_grow(m);
	if (!m->nhroutes)
		return -ENOMEM;
	pe = nhroute_find(m, &k);
	if (nlh->nlmsg_type == RTM_DELROUTE) {
		if (*pe)
			nhroute_unlink(m, pe, true);
		return 0;
	}
	nhroutes_drop_replaced(m, &k, nlh->nlmsg_flags & NLM_F_REPLACE);
	pe = nhroute_find(m, &k);
	r = malloc(sizeof(*r) + nlh->nlmsg_len);
	if (!r)
		return -ENOMEM;
	memcpy(r->msg, nlh, nlh->nlmsg_len);
	r->key = k;
	r->gen = m->gen;
	r->dirty = false;
	r->applied = NULL;
	if (*pe) {		/* the same route again: in its place */
		r->applied = (*pe)->applied;
		r->next = (*pe)->next;
		free(*pe);
	} else {
		r->next = NULL;
		m->nhroutes_n++;
	}
	*pe = r;
	rc = nhroute_resolve(m, r, nlh->nlmsg_flags & NLM_F_REPLACE);
	if (rc == -ENOENT)	/* an object we do not have (yet) */
		nhroute_unlink(m, pe, true);
	return rc;
}

/* Mark every route that depends on object id as the table is now
 * (nexthop_depends()): to resolve again once it has changed. */
static void nhroutes_mark(struct rtmirror *m, uint32_t id)
{
	for (size_t b = 0; m->nhroutes && b < m->nhroutes_nbuckets; b++)
		for (struct nhroute *r = m->nhroutes[b]; r; r = r->next)
			if (nexthop_depends(m->nexthops, r->key.nhid, id))
				r->dirty = true;
}

/* Resolve the marked routes again; those whose object went are
 * withdrawn and forgotten (the kernel deleted them). */
static void nhroutes_resolve_marked(struct rtmirror *m)
{
	for (size_t b = 0; m->nhroutes && b < m->nhroutes_nbuckets; b++) {
		struct nhroute **pe = &m->nhroutes[b];

		while (*pe) {
			int rc;

			if (!(*pe)->dirty) {
				pe = &(*pe)->next;
				continue;
			}
			(*pe)->dirty = false;
			rc = nhroute_resolve(m, *pe, NLM_F_REPLACE);
			if (rc == -ENOENT) {
				nhroute_unlink(m, pe, true);
				continue;
			}
			if (rc < 0)
				STAT_ADD(m, errors, 1);
			pe = &(*pe)->next;
		}
	}
}

#define NH_BATCH	64	/* objects handled per table scan */

/* Object id is gone (a message, or the kernel's silent flush): out of
 * its groups (an empty group goes), and every route that used it,
 * directly or through a group, resolved again or withdrawn. */
static void nexthop_gone(struct rtmirror *m, uint32_t id)
{
	if (!m->dumping)	/* else the dump's routes follow */
		nhroutes_mark(m, id);
	nexthop_table_remove(m->nexthops, id);
	nexthop_table_unlink_member(m->nexthops, id);
	if (!m->dumping)
		nhroutes_resolve_marked(m);
}

static int nexthop_msg(struct rtmirror *m, const struct nlmsghdr *nlh)
{
	struct nexthop_obj o;
	uint32_t id;
	int rc;

	if (nlh->nlmsg_type == RTM_DELNEXTHOP) {
		if (nexthop_parse(nlh, &o) < 0)
			return -EINVAL;
		nexthop_gone(m, o.id);
		return 0;
	}
	rc = nexthop_table_apply(m->nexthops, nlh, m->gen, &id);
	if (rc > 0 && !m->dumping) {	/* its routes and its groups' */
		nhroutes_mark(m, id);
		nhroutes_resolve_marked(m);
	}
	return rc < 0 ? rc : 0;
}

struct oif_match {
	uint32_t ifindex;
};

static bool nexthop_on_link(const struct nexthop_obj *o, void *arg)
{
	return !o->ngroup && !o->fdb &&
	       o->oif == ((const struct oif_match *)arg)->ifindex;
}

/* The kernel removes the objects of a link that goes down, loses its
 * carrier or goes (nexthop_flush_dev()), without a message. */
static void nexthops_flush_link(struct rtmirror *m, uint32_t ifindex)
{
	struct oif_match om = { ifindex };
	uint32_t ids[NH_BATCH];
	size_t n;

	if (m->dumping)
		return;
	do {
		n = nexthop_table_select(m->nexthops, nexthop_on_link, &om,
					 ids, NH_BATCH);
		for (size_t i = 0; i < n && i < NH_BATCH; i++)
			nexthop_gone(m, ids[i]);
	} while (n > NH_BATCH);
}

static bool nexthop_stale(const struct nexthop_obj *o, void *arg)
{
	return o->gen != *(const uint32_t *)arg;
}

/* After a full dump: the objects and routes it did not show. */
static uint64_t nexthops_sweep(struct rtmirror *m)
{
	uint32_t ids[NH_BATCH];
	uint64_t swept = 0;
	size_t n;

	do {
		n = nexthop_table_select(m->nexthops, nexthop_stale, &m->gen,
					 ids, NH_BATCH);
		for (size_t i = 0; i < n && i < NH_BATCH; i++)
			swept += (uint64_t)nexthop_table_remove(m->nexthops,
								ids[i]);
	} while (n > NH_BATCH);
	for (size_t b = 0; m->nhroutes && b < m->nhroutes_nbuckets; b++) {
		struct nhroute **pe = &m->nhroutes[b];

		while (*pe) {
			if ((*pe)->gen == m->gen) {
				pe = &(*pe)->next;
				continue;
			}
			nhroute_unlink(m, pe, false);	/* fib_sweep()'s */
			swept++;
		}
	}
	return swept;
}

static void nhroutes_free(struct rtmirror *m)
{
	for (size_t b = 0; m->nhroutes && b < m->nhroutes_nbuckets; b++)
		while (m->nhroutes[b])
			nhroute_unlink(m, &m->nhroutes[b], false);
	free(m->nhroutes);
}

/* A route message: one that names a next-hop object through its
 * expansion, any other as it is. */
static int route_msg(struct rtmirror *m, const struct nlmsghdr *nlh)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct nhroute_key k;

	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return route_apply(m, nlh);	/* MPLS, multicast: left out */
	if (nexthop_route_id(nlh) && !(rtm->rtm_flags & RTM_F_CLONED))
		return nhroute_msg(m, nlh);
	if (nlh->nlmsg_type == RTM_NEWROUTE && m->nhroutes &&
	    nhroute_key_of(nlh, &k) == 0)
		nhroutes_drop_replaced(m, &k, nlh->nlmsg_flags & NLM_F_REPLACE);
	return route_apply(m, nlh);
}

/* The attributes a plain `ip rule add [priority P] iif NAME lookup T`
 * carries (the kernel always adds FRA_SUPPRESS_PREFIXLEN, -1 when
 * unset); a rule with any other has another selector (from, to, fwmark,
 * oif, l3mdev, ...) or a suppressor, and is left out. */
static bool rule_attr_plain(const struct nlattr *a)
{
	switch (mnl_attr_get_type(a)) {
	case FRA_IIFNAME:
	case FRA_PRIORITY:
	case FRA_TABLE:
	case FRA_PROTOCOL:
		return true;
	case FRA_SUPPRESS_PREFIXLEN:
	case FRA_SUPPRESS_IFGROUP:
		return mnl_attr_get_payload_len(a) == 4 &&
		       mnl_attr_get_u32(a) == UINT32_MAX;
	default:
		return false;
	}
}

/* Parse a rule message into r.  Returns 0, or 1 when it is not a plain
 * iif rule that looks a table up. */
static int rule_parse(const struct nlmsghdr *nlh, struct mirror_rule *r)
{
	const struct fib_rule_hdr *frh = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[ATTR_MAX + 1] = { 0 };

	if (frh->family != AF_INET && frh->family != AF_INET6)
		return 1;
	if (frh->action != FR_ACT_TO_TBL || frh->dst_len || frh->src_len ||
	    frh->tos || (frh->flags & FIB_RULE_INVERT))
		return 1;
	if (rtnl_attrs(nlh, sizeof(*frh), tb, ATTR_MAX) < 0)
		return 1;
	for (unsigned t = 1; t <= ATTR_MAX; t++)
		if (tb[t] && !rule_attr_plain(tb[t]))
			return 1;
	if (!tb[FRA_IIFNAME])
		return 1;
	memset(r, 0, sizeof(*r));
	r->family = frh->family;
	copy_str(r->iif, sizeof(r->iif), tb[FRA_IIFNAME]);
	r->priority = tb[FRA_PRIORITY] ? mnl_attr_get_u32(tb[FRA_PRIORITY]) : 0;
	r->table = tb[FRA_TABLE] ? mnl_attr_get_u32(tb[FRA_TABLE]) : frh->table;
	return r->table ? 0 : 1;
}

static struct mirror_rule *rule_find(struct rtmirror *m,
				     const struct mirror_rule *r)
{
	for (size_t i = 0; i < m->nrules; i++) {
		struct mirror_rule *o = &m->rules[i];

		if (o->family == r->family && o->priority == r->priority &&
		    o->table == r->table && !strcmp(o->iif, r->iif))
			return o;
	}
	return NULL;
}

static int rule_add(struct rtmirror *m, const struct mirror_rule *r)
{
	struct mirror_rule *o = rule_find(m, r);

	if (o) {
		o->gen = m->gen;
		return 0;
	}
	if (m->nrules == m->rules_cap) {
		size_t cap = m->rules_cap ? m->rules_cap * 2 : 16;
		struct mirror_rule *n = realloc(m->rules, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		m->rules = n;
		m->rules_cap = cap;
	}
	m->rules[m->nrules] = *r;
	m->rules[m->nrules++].gen = m->gen;
	return 0;
}

static int rule_msg(struct rtmirror *m, const struct nlmsghdr *nlh)
{
	struct mirror_rule r, *o;
	int rc = rule_parse(nlh, &r);

	if (rc)
		return rc;
	if (nlh->nlmsg_type == RTM_DELRULE) {
		o = rule_find(m, &r);
		if (!o)
			return 0;
		*o = m->rules[--m->nrules];
	} else if (rule_add(m, &r) < 0) {
		return -ENOMEM;
	}
	return m->dumping ? 0 : links_retable(m);
}

/* Drop the rules the last dump did not show.  Returns how many. */
static uint64_t rules_sweep(struct rtmirror *m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->nrules;) {
		if (m->rules[i].gen == m->gen) {
			i++;
			continue;
		}
		m->rules[i] = m->rules[--m->nrules];
		n++;
	}
	return n;
}

int rtmirror_apply(struct rtmirror *m, const struct nlmsghdr *nlh)
{
	size_t need;

	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		need = sizeof(struct ifinfomsg);
		break;
	case RTM_NEWADDR:
	case RTM_DELADDR:
		need = sizeof(struct ifaddrmsg);
		break;
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		need = sizeof(struct rtmsg);
		break;
	case RTM_NEWRULE:
	case RTM_DELRULE:
		need = sizeof(struct fib_rule_hdr);
		break;
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP:
		need = sizeof(struct nhmsg);
		break;
	default:
		return 1;
	}
	if (nlh->nlmsg_len < NLMSG_LENGTH(need))
		return -EINVAL;
	if (nlh->nlmsg_type >= RTM_NEWNEXTHOP)
		return nexthop_msg(m, nlh);
	if (nlh->nlmsg_type <= RTM_DELLINK)
		return link_msg(m, nlh);
	if (nlh->nlmsg_type <= RTM_DELADDR)
		return addr_msg(m, nlh);
	if (nlh->nlmsg_type <= RTM_DELROUTE)
		return route_msg(m, nlh);
	return rule_msg(m, nlh);
}

/* ---- life ---- */

static void kpol_hold(void *arg, const void *encap)
{
	(void)arg;
	kpolicy_hold((struct kpolicy *)encap);
}

static void kpol_put(void *arg, const void *encap)
{
	kpolicy_put(((struct rtmirror *)arg)->kpols, (struct kpolicy *)encap);
}

/* A seg6 encap route came (delta 1) or went (-1): recorded for the
 * daemon's steering (rtmirror_kroutes_take()). */
static void kpol_change(void *arg, const struct fib_route *r, int delta)
{
	struct rtmirror *m = arg;
	struct rtmirror_kroute *k;
	uint64_t one = 1;
	bool first;

	pthread_mutex_lock(&m->kroutes_lock);
	if (m->nkroutes == m->kroutes_cap) {
		size_t cap = m->kroutes_cap ? 2 * m->kroutes_cap : 1024;
		void *n = realloc(m->kroutes, cap * sizeof(*m->kroutes));

		if (!n) {
			m->kroutes_lost = true;
			pthread_mutex_unlock(&m->kroutes_lock);
			return;
		}
		m->kroutes = n;
		m->kroutes_cap = cap;
	}
	first = m->nkroutes == 0;
	k = &m->kroutes[m->nkroutes++];
	memset(k, 0, sizeof(*k));
	k->family = r->family;
	k->plen = r->plen;
	k->delta = (int8_t)delta;
	k->table = r->table;
	memcpy(k->addr, r->dst.b, r->family == AF_INET ? 4 : 16);
	pthread_mutex_unlock(&m->kroutes_lock);
	if (first && write(m->kroutes_fd, &one, sizeof(one)) != sizeof(one))
		set_error(m, errno);	/* EAGAIN: a notice is pending */
}

static bool kpol_equal(const void *a, const void *b)
{
	return kpolicy_equal(a, b);
}

/* opts.seg6_routes: the set of seg6local routes, its eventfd and the
 * policies of seg6 routes.  Returns 0 or -1. */
static int seg6_open(struct rtmirror *m)
{
	struct fib_encap_ops ops = { .hold = kpol_hold, .put = kpol_put,
				     .equal = kpol_equal,
				     .change = kpol_change };
	struct log_ratelimit rl = LOG_RATELIMIT_INIT(10, 10);

	pthread_mutex_init(&m->seg6_lock, NULL);
	pthread_mutex_init(&m->kroutes_lock, NULL);
	m->kroutes_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	m->kpol_rl = rl;
	m->seg6 = seg6route_set_new();
	m->seg6_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	m->kpols = kpolicy_db_new(m->opts.nworkers ? m->opts.nworkers : 1);
	if (!m->seg6 || m->seg6_fd < 0 || !m->kpols || m->kroutes_fd < 0)
		return -1;
	ops.arg = m;
	fib_db_set_encap_ops(m->db, &ops);
	return 0;
}

struct rtmirror *rtmirror_new(const struct rtmirror_opts *opts)
{
	struct rtmirror *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->db = fib_db_new();
	if (!m->db) {
		free(m);
		return NULL;
	}
	if (opts)
		m->opts = *opts;
	if (!m->opts.rcvbuf)
		m->opts.rcvbuf = DEFAULT_RCVBUF;
	if (!m->opts.resync_interval_ms)
		m->opts.resync_interval_ms = DEFAULT_INTERVAL_MS;
	m->stopfd = -1;
	m->seg6_fd = -1;
	m->kroutes_fd = -1;
	m->gen = 1;
	m->links_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	m->nexthops = nexthop_table_new();
	if (m->links_fd < 0 || !m->nexthops) {
		rtmirror_free(m);
		return NULL;
	}
	if (m->opts.seg6_routes && seg6_open(m) < 0) {
		rtmirror_free(m);
		return NULL;
	}
	return m;
}

void rtmirror_free(struct rtmirror *m)
{
	if (!m)
		return;
	rtmirror_stop(m);
	rtnl_close(&m->ev);
	rtnl_close(&m->dump);
	for (size_t i = 0; i < m->nretired; i++)
		free(m->retired[i]);
	free(m->retired);
	if (m->links) {
		for (uint32_t i = 0; i < m->links->size; i++)
			free(m->links->slot[i]);
		free(m->links);
	}
	nhroutes_free(m);
	nexthop_table_free(m->nexthops);
	fib_db_free(m->db);
	kpolicy_db_free(m->kpols);	/* after: the routes held them */
	free(m->rules);
	seg6route_set_free(m->seg6);
	if (m->opts.seg6_routes) {
		pthread_mutex_destroy(&m->seg6_lock);
		pthread_mutex_destroy(&m->kroutes_lock);
	}
	free(m->kroutes);
	if (m->kroutes_fd >= 0)
		close(m->kroutes_fd);
	if (m->seg6_fd >= 0)
		close(m->seg6_fd);
	if (m->links_fd >= 0)
		close(m->links_fd);
	free(m);
}

const struct kpolicy_db *rtmirror_kpolicies(const struct rtmirror *m)
{
	return m->kpols;
}

int rtmirror_seg6_fd(const struct rtmirror *m)
{
	return m->seg6_fd;
}

int rtmirror_kroutes_fd(const struct rtmirror *m)
{
	return m->kroutes_fd;
}

size_t rtmirror_kroutes_take(struct rtmirror *m,
			     struct rtmirror_kroute **list, bool *lost)
{
	size_t n;
	uint64_t count;

	*list = NULL;
	*lost = false;
	if (m->kroutes_fd < 0)
		return 0;
	if (read(m->kroutes_fd, &count, sizeof(count)) < 0)
		count = 0;	/* EAGAIN: nothing told yet */
	pthread_mutex_lock(&m->kroutes_lock);
	*list = m->kroutes;
	n = m->nkroutes;
	*lost = m->kroutes_lost;
	m->kroutes = NULL;
	m->nkroutes = m->kroutes_cap = 0;
	m->kroutes_lost = false;
	pthread_mutex_unlock(&m->kroutes_lock);
	return n;
}

int rtmirror_links_fd(const struct rtmirror *m)
{
	return m->links_fd;
}

long rtmirror_seg6_snapshot(struct rtmirror *m, struct nlmsghdr ***msgs)
{
	long n;

	*msgs = NULL;
	if (!m->seg6)
		return 0;
	pthread_mutex_lock(&m->seg6_lock);
	n = seg6route_set_snapshot(m->seg6, msgs);
	pthread_mutex_unlock(&m->seg6_lock);
	return n;
}

const struct fib_db *rtmirror_fib(const struct rtmirror *m)
{
	return m->db;
}

/* struct rtmirror_stats starts with uint64_t counters, up to
 * last_sync_ns. */
#define MIRROR_STAT_WORDS \
	(offsetof(struct rtmirror_stats, last_sync_ns) / sizeof(uint64_t) + 1)

void rtmirror_get_stats(const struct rtmirror *m, struct rtmirror_stats *st)
{
	const uint64_t *src = (const uint64_t *)&m->st;
	uint64_t *dst = (uint64_t *)st;

	for (size_t i = 0; i < MIRROR_STAT_WORDS; i++)
		dst[i] = CMM_LOAD_SHARED(src[i]);
	st->last_error = CMM_LOAD_SHARED(m->st.last_error);
	st->stale = CMM_LOAD_SHARED(m->st.stale);
	st->synced = CMM_LOAD_SHARED(m->st.synced);
}

static void set_rcvbuf(int fd, int bytes)
{
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

int rtmirror_open(struct rtmirror *m)
{
	unsigned groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR |
			  RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE |
			  RTMGRP_IPV4_RULE | 1u << (RTNLGRP_IPV6_RULE - 1);
	int fd, nhgrp = RTNLGRP_NEXTHOP;

	/* Subscribe first: what changes during the dump is queued here. */
	if (rtnl_open(&m->ev, groups) < 0 || rtnl_open(&m->dump, 0) < 0)
		return -errno;
	/* Next-hop objects (group 32: beyond the bind() mask).  A kernel
	 * without them (before 5.3) has none to tell of. */
	mnl_socket_setsockopt(m->ev.sock, NETLINK_ADD_MEMBERSHIP, &nhgrp,
			      sizeof(nhgrp));
	fd = rtnl_fd(&m->ev);
	set_rcvbuf(fd, m->opts.rcvbuf);
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rtmirror *m = data;
	int rc;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		m->dump_intr = true;
	rc = rtmirror_apply(m, nlh);
	if (rc < 0) {
		STAT_ADD(m, errors, 1);
		set_error(m, rc);
	} else if (rc == 1) {
		STAT_ADD(m, ignored, 1);
	}
	return MNL_CB_OK;
}

/* One dump into the mirror.  Returns 0 or -errno (none for next-hop
 * objects on a kernel without them). */
static int dump_one(struct rtmirror *m, uint16_t type, uint8_t family)
{
	if (rtnl_dump(&m->dump, type, family, dump_cb, m) == 0)
		return 0;
	if (type == RTM_GETNEXTHOP && (errno == EOPNOTSUPP || errno == EINVAL))
		return 0;
	return -errno;
}

static void sweep_links(struct rtmirror *m)
{
	const struct link_table *t = m->links;
	uint32_t drop[64], ndrop = 0;

	for (uint32_t i = 0; t && i < t->size; i++) {
		const struct rtmirror_link *l = t->slot[i];
		struct rtmirror_link *c;
		unsigned keep = 0;

		if (!l)
			continue;
		if (l->gen != m->gen) {
			if (ndrop < 64)
				drop[ndrop++] = l->ifindex;
			continue;
		}
		for (unsigned k = 0; k < l->naddr; k++)
			keep += l->addr[k].gen == m->gen;
		if (keep == l->naddr)
			continue;
		c = link_copy(l, l->naddr);
		if (!c)
			continue;
		c->naddr = 0;
		for (unsigned k = 0; k < l->naddr; k++)
			if (l->addr[k].gen == m->gen)
				c->addr[c->naddr++] = l->addr[k];
		STAT_ADD(m, swept, l->naddr - keep);
		if (link_publish(m, c->ifindex, c) < 0)
			free(c);
		t = m->links;	/* republished: continue on the new copy */
	}
	for (uint32_t i = 0; i < ndrop; i++)
		link_publish(m, drop[i], NULL);
	STAT_ADD(m, swept, ndrop);
}

/* A new generation: what the dump now starting does not show is swept. */
static void dump_begin(struct rtmirror *m)
{
	m->gen++;
	m->dumping = true;
	m->dump_intr = false;
}

static int resync_once(struct rtmirror *m)
{
	static const struct {
		uint16_t type;
		uint8_t family;
	} dumps[] = {
		{ RTM_GETLINK, AF_UNSPEC },
		{ RTM_GETADDR, AF_UNSPEC },
		{ RTM_GETNEXTHOP, AF_UNSPEC },	/* before the routes naming them */
		{ RTM_GETROUTE, AF_INET },
		{ RTM_GETROUTE, AF_INET6 },
		{ RTM_GETRULE, AF_INET },
		{ RTM_GETRULE, AF_INET6 },
	};
	int rc = 0;

	dump_begin(m);
	for (unsigned i = 0; i < sizeof(dumps) / sizeof(dumps[0]) && !rc; i++)
		rc = dump_one(m, dumps[i].type, dumps[i].family);
	m->dumping = false;
	return rc;
}

/* After a complete dump: sweep what it did not show, tell of seg6local
 * changes, and say the mirror is in sync (t0: when the resync began). */
static void resync_finish(struct rtmirror *m, uint64_t t0)
{
	STAT_ADD(m, swept, fib_sweep(m->db, m->gen));
	STAT_ADD(m, swept, nexthops_sweep(m));
	sweep_links(m);
	STAT_ADD(m, swept, rules_sweep(m));
	if (links_retable(m) < 0)
		STAT_ADD(m, errors, 1);
	if (m->seg6) {
		pthread_mutex_lock(&m->seg6_lock);
		if (seg6route_set_sweep(m->seg6, m->gen))
			m->seg6_dirty = true;
		pthread_mutex_unlock(&m->seg6_lock);
		if (m->seg6_dirty)
			seg6_notify(m);
	}
	CMM_STORE_SHARED(m->st.last_sync_ns, now_ns() - t0);
	STAT_ADD(m, resyncs, 1);
	CMM_STORE_SHARED(m->st.stale, false);
	CMM_STORE_SHARED(m->st.synced, true);
}

int rtmirror_resync(struct rtmirror *m)
{
	uint64_t t0 = now_ns();
	int rc = -EAGAIN;

	if (!m->dump.sock)
		return -ENOTCONN;
	m->last_resync_ns = t0;
	m->resync_pending = false;
	for (unsigned i = 0; i < DUMP_RETRIES; i++) {
		rc = resync_once(m);
		if (rc < 0)
			break;
		if (!m->dump_intr)
			break;
		STAT_ADD(m, dump_restarts, 1);
		rc = -EAGAIN;
	}
	if (rc < 0) {
		set_error(m, rc);
		CMM_STORE_SHARED(m->st.stale, true);
		m->resync_pending = true;
		return rc;
	}
	resync_finish(m, t0);
	return 0;
}

void rtmirror_dump_apply(struct rtmirror *m,
			 const struct nlmsghdr *const *msgs, size_t n)
{
	uint64_t t0 = now_ns();

	dump_begin(m);
	for (size_t i = 0; i < n; i++)
		dump_cb(msgs[i], m);
	m->dumping = false;
	resync_finish(m, t0);
}

/* Lost events: resync now if the rate limit allows, else mark pending. */
static void resync_request(struct rtmirror *m)
{
	uint64_t gap = (uint64_t)m->opts.resync_interval_ms * 1000000u;

	CMM_STORE_SHARED(m->st.stale, true);
	if (now_ns() - m->last_resync_ns >= gap)
		rtmirror_resync(m);
	else
		m->resync_pending = true;
}

static void drain(struct rtmirror *m)
{
	int fd = rtnl_fd(&m->ev);

	while (recv(fd, m->ev.buf, sizeof(m->ev.buf), MSG_DONTWAIT) > 0 ||
	       errno == ENOBUFS)
		;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rtmirror *m = data;
	int rc = rtmirror_apply(m, nlh);

	if (rc < 0) {
		STAT_ADD(m, errors, 1);
		set_error(m, rc);
	} else if (rc == 1) {
		STAT_ADD(m, ignored, 1);
	} else {
		STAT_ADD(m, events, 1);
	}
	return MNL_CB_OK;
}

int rtmirror_poll_events(struct rtmirror *m)
{
	int fd = rtnl_fd(&m->ev), applied = 0;

	for (unsigned i = 0; i < EVENT_BATCH; i++) {
		ssize_t n = recv(fd, m->ev.buf, sizeof(m->ev.buf),
				 MSG_DONTWAIT);

		if (n < 0 && errno == ENOBUFS) {
			STAT_ADD(m, enobufs, 1);
			drain(m);
			resync_request(m);
			return applied;
		}
		if (n < 0)
			return errno == EAGAIN ? applied : -errno;
		if (n == 0)
			break;
		mnl_cb_run(m->ev.buf, (size_t)n, 0, 0, event_cb, m);
		applied++;
	}
	return applied;
}

static int poll_timeout(const struct rtmirror *m)
{
	uint64_t gap = (uint64_t)m->opts.resync_interval_ms * 1000000u;
	uint64_t now = now_ns(), due = m->last_resync_ns + gap;

	if (!m->resync_pending)
		return -1;
	return now >= due ? 0 : (int)((due - now) / 1000000u) + 1;
}

static void *mirror_thread(void *arg)
{
	struct rtmirror *m = arg;
	struct pollfd pfd[2] = {
		{ .fd = rtnl_fd(&m->ev), .events = POLLIN },
		{ .fd = m->stopfd, .events = POLLIN },
	};

	rtmirror_resync(m);
	rtmirror_reclaim(m);
	for (;;) {
		int rc = poll(pfd, 2, poll_timeout(m));

		if (rc < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (m->resync_pending && poll_timeout(m) == 0)
			rtmirror_resync(m);
		if (pfd[0].revents) {
			rc = rtmirror_poll_events(m);
			if (rc < 0)
				set_error(m, rc);
		}
		rtmirror_reclaim(m);
	}
	return NULL;
}

int rtmirror_start(struct rtmirror *m)
{
	int rc;

	if (m->running)
		return -EALREADY;
	m->stopfd = eventfd(0, EFD_CLOEXEC);
	if (m->stopfd < 0)
		return -errno;
	rc = rtmirror_open(m);
	if (rc == 0)
		rc = -pthread_create(&m->thread, NULL, mirror_thread, m);
	if (rc < 0) {
		close(m->stopfd);
		m->stopfd = -1;
		return rc;
	}
	m->running = true;
	return 0;
}

void rtmirror_stop(struct rtmirror *m)
{
	uint64_t one = 1;

	if (!m->running)
		return;
	if (write(m->stopfd, &one, sizeof(one)) != sizeof(one))
		set_error(m, errno);
	pthread_join(m->thread, NULL);
	close(m->stopfd);
	m->stopfd = -1;
	m->running = false;
}
