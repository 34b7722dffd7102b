/* nexthop.c - the kernel's next-hop objects, and route messages that name
 * one rewritten as routes with their next hops (nexthop.h). */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nexthop.h"
#include "rtnl.h"

struct entry {
	struct entry *next;
	struct nexthop_obj o;	/* o.encap: encap_len bytes after it */
};

struct nexthop_table {
	struct entry **bucket;
	size_t nbuckets;	/* power of two */
	size_t n;
};

static size_t bucket_of(const struct nexthop_table *t, uint32_t id)
{
	return (id * 2654435761u) & (t->nbuckets - 1);
}

struct nexthop_table *nexthop_table_new(void)
{
	struct nexthop_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nbuckets = 64;
	t->bucket = calloc(t->nbuckets, sizeof(*t->bucket));
	if (!t->bucket) {
		free(t);
		return NULL;
	}
	return t;
}

void nexthop_table_free(struct nexthop_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct entry *e = t->bucket[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e);
		}
	}
	free(t->bucket);
	free(t);
}

static struct entry **entry_find(const struct nexthop_table *t, uint32_t id)
{
	struct entry **pe = &t->bucket[bucket_of(t, id)];

	while (*pe && (*pe)->o.id != id)
		pe = &(*pe)->next;
	return pe;
}

const struct nexthop_obj *nexthop_table_get(const struct nexthop_table *t,
					    uint32_t id)
{
	struct entry *e = *entry_find(t, id);

	return e ? &e->o : NULL;
}

size_t nexthop_table_count(const struct nexthop_table *t)
{
	return t->n;
}

/* NHA_GROUP: struct nexthop_grp entries (weight - 1 in a byte). */
static int group_parse(struct nexthop_obj *o, const struct nlattr *a)
{
	const struct nexthop_grp *g = mnl_attr_get_payload(a);
	size_t n = mnl_attr_get_payload_len(a) / sizeof(*g);

	if (!n || mnl_attr_get_payload_len(a) % sizeof(*g))
		return -EINVAL;
	for (size_t i = 0; i < n && o->ngroup < NEXTHOP_GROUP_MAX; i++) {
		o->group[o->ngroup].id = g[i].id;
		o->group[o->ngroup++].weight = (uint16_t)(g[i].weight + 1);
	}
	return 0;
}

static int gateway_parse(struct nexthop_obj *o, const struct nlattr *a)
{
	size_t len = mnl_attr_get_payload_len(a);

	if (len == 4)
		o->gw_family = AF_INET;
	else if (len == 16)
		o->gw_family = AF_INET6;
	else
		return -EINVAL;
	memcpy(o->gw.b, mnl_attr_get_payload(a), len);
	return 0;
}

int nexthop_parse(const struct nlmsghdr *nlh, struct nexthop_obj *o)
{
	const struct nlattr *tb[NHA_MAX + 1] = { 0 };
	const struct nhmsg *nhm;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*nhm)))
		return -EINVAL;
	nhm = mnl_nlmsg_get_payload(nlh);
	if (rtnl_attrs(nlh, sizeof(*nhm), tb, NHA_MAX) < 0)
		return -EINVAL;
	memset(o, 0, sizeof(*o));
	o->id = rtnl_attr_u32(tb[NHA_ID], 0);
	if (!o->id)
		return -EINVAL;
	o->family = nhm->nh_family;
	o->flags = nhm->nh_flags & (RTNH_F_DEAD | RTNH_F_LINKDOWN |
				    RTNH_F_ONLINK);
	o->blackhole = tb[NHA_BLACKHOLE] != NULL;
	o->fdb = tb[NHA_FDB] != NULL;
	o->oif = rtnl_attr_u32(tb[NHA_OIF], 0);
	if (tb[NHA_GROUP] && group_parse(o, tb[NHA_GROUP]) < 0)
		return -EINVAL;
	if (tb[NHA_GATEWAY] && gateway_parse(o, tb[NHA_GATEWAY]) < 0)
		return -EINVAL;
	if (tb[NHA_ENCAP_TYPE] && tb[NHA_ENCAP] &&
	    mnl_attr_get_payload_len(tb[NHA_ENCAP_TYPE]) == 2) {
		o->encap_type = mnl_attr_get_u16(tb[NHA_ENCAP_TYPE]);
		o->encap_len = (uint16_t)mnl_attr_get_payload_len(tb[NHA_ENCAP]);
		o->encap = mnl_attr_get_payload(tb[NHA_ENCAP]);
	}
	return 0;
}

static bool obj_equal(const struct nexthop_obj *a, const struct nexthop_obj *b)
{
	return a->family == b->family && a->gw_family == b->gw_family &&
	       a->flags == b->flags && a->blackhole == b->blackhole &&
	       a->fdb == b->fdb && !memcmp(&a->gw, &b->gw, sizeof(a->gw)) &&
	       a->oif == b->oif && a->encap_type == b->encap_type &&
	       a->encap_len == b->encap_len &&
	       (!a->encap_len || !memcmp(a->encap, b->encap, a->encap_len)) &&
	       a->ngroup == b->ngroup &&
	       !memcmp(a->group, b->group, a->ngroup * sizeof(a->group[0]));
}

static void table_grow(struct nexthop_table *t)
{
	size_t nb = t->nbuckets * 2;
	struct entry **b;

	if (t->n <= t->nbuckets)
		return;
	b = calloc(nb, sizeof(*b));
	if (!b)
		return;		/* longer chains */
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct entry *e = t->bucket[i], *next;

		for (; e; e = next) {
			size_t k = (e->o.id * 2654435761u) & (nb - 1);

			next = e->next;
			e->next = b[k];
			b[k] = e;
		}
	}
	free(t->bucket);
	t->bucket = b;
	t->nbuckets = nb;
}

/* Put o (its encap copied) in place of the entry *pe (NULL: new). */
static int table_put(struct nexthop_table *t, struct entry **pe,
		     const struct nexthop_obj *o, uint32_t gen)
{
	struct entry *e = malloc(sizeof(*e) + o->encap_len), *old = *pe;

	if (!e)
		return -ENOMEM;
	e->o = *o;
	e->o.gen = gen;
	e->o.encap = o->encap_len ? (uint8_t *)(e + 1) : NULL;
	if (o->encap_len)
		memcpy(e->o.encap, o->encap, o->encap_len);
	e->next = old ? old->next : NULL;
	if (old) {
		*pe = e;
		free(old);
		return 1;
	}
	e->next = t->bucket[bucket_of(t, o->id)];
	t->bucket[bucket_of(t, o->id)] = e;
	t->n++;
	table_grow(t);
	return 1;
}

int nexthop_table_remove(struct nexthop_table *t, uint32_t id)
{
	struct entry **pe = entry_find(t, id), *e = *pe;

	if (!e)
		return 0;
	*pe = e->next;
	free(e);
	t->n--;
	return 1;
}

int nexthop_table_apply(struct nexthop_table *t, const struct nlmsghdr *nlh,
			uint32_t gen, uint32_t *id)
{
	struct nexthop_obj o;
	struct entry **pe;

	if (nexthop_parse(nlh, &o) < 0)
		return -EINVAL;
	*id = o.id;
	if (nlh->nlmsg_type == RTM_DELNEXTHOP)
		return nexthop_table_remove(t, o.id);
	pe = entry_find(t, o.id);
	if (*pe && obj_equal(&(*pe)->o, &o)) {
		(*pe)->o.gen = gen;
		return 0;
	}
	return table_put(t, pe, &o, gen);
}

size_t nexthop_table_select(const struct nexthop_table *t,
			    bool (*fn)(const struct nexthop_obj *o, void *arg),
			    void *arg, uint32_t *ids, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nbuckets; i++)
		for (const struct entry *e = t->bucket[i]; e; e = e->next)
			if (fn(&e->o, arg)) {
				if (n < max)
					ids[n] = e->o.id;
				n++;
			}
	return n;
}

bool nexthop_depends(const struct nexthop_table *t, uint32_t nhid, uint32_t id)
{
	const struct nexthop_obj *o;

	if (nhid == id)
		return true;
	o = nexthop_table_get(t, nhid);
	for (unsigned i = 0; o && i < o->ngroup; i++)
		if (o->group[i].id == id)
			return true;
	return false;
}

size_t nexthop_table_unlink_member(struct nexthop_table *t, uint32_t id)
{
	size_t changed = 0;

	for (size_t i = 0; i < t->nbuckets; i++) {
		struct entry **pe = &t->bucket[i];

		while (*pe) {
			struct nexthop_obj *o = &(*pe)->o;
			unsigned k = 0;

			for (unsigned j = 0; j < o->ngroup; j++)
				if (o->group[j].id != id)
					o->group[k++] = o->group[j];
			if (k == o->ngroup) {
				pe = &(*pe)->next;
				continue;
			}
			changed++;
			o->ngroup = (uint16_t)k;
			if (k) {
				pe = &(*pe)->next;
				continue;
			}
			struct entry *e = *pe;	/* empty: gone */

			*pe = e->next;
			free(e);
			t->n--;
		}
	}
	return changed;
}

uint32_t nexthop_route_id(const struct nlmsghdr *nlh)
{
	const struct nlattr *a;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
		return 0;
	mnl_attr_for_each(a, nlh, sizeof(struct rtmsg))
		if (mnl_attr_get_type(a) == RTA_NH_ID &&
		    mnl_attr_get_payload_len(a) == 4)
			return mnl_attr_get_u32(a);
	return 0;
}

/* What the kernel's nexthop_compat_mode adds to a route with an object,
 * and the object's id: dropped, the table's next hops written instead. */
static bool attr_nexthop(uint16_t type)
{
	return type == RTA_NH_ID || type == RTA_OIF || type == RTA_GATEWAY ||
	       type == RTA_VIA || type == RTA_MULTIPATH ||
	       type == RTA_ENCAP_TYPE || type == RTA_ENCAP || type == RTA_FLOW;
}

/* Room for an attribute of len bytes in nlh (cap bytes in all)? */
static bool room(const struct nlmsghdr *nlh, size_t cap, size_t len)
{
	return nlh->nlmsg_len + MNL_ATTR_HDRLEN + MNL_ALIGN(len) <= cap;
}

/* The gateway (RTA_GATEWAY of the route's family, else RTA_VIA), the
 * encap of single next hop o into nlh.  Returns 0 or -ENOSPC. */
static int put_nexthop_attrs(struct nlmsghdr *nlh, size_t cap, int family,
			     const struct nexthop_obj *o)
{
	size_t alen = o->gw_family == AF_INET ? 4 : 16;

	if (!room(nlh, cap, 18 + 8 + 4 + o->encap_len))
		return -ENOSPC;
	if (o->gw_family == family) {
		mnl_attr_put(nlh, RTA_GATEWAY, alen, o->gw.b);
	} else if (o->gw_family) {
		uint8_t via[18];
		uint16_t f = o->gw_family;

		memcpy(via, &f, 2);	/* struct rtvia */
		memcpy(via + 2, o->gw.b, alen);
		mnl_attr_put(nlh, RTA_VIA, 2 + alen, via);
	}
	if (o->encap_type) {
		mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, o->encap_type);
		mnl_attr_put(nlh, RTA_ENCAP, o->encap_len, o->encap);
	}
	return 0;
}

/* RTA_MULTIPATH of group g's known members.  Returns how many, or
 * -ENOSPC. */
static int put_group(const struct nexthop_table *t, struct nlmsghdr *nlh,
		     size_t cap, int family, const struct nexthop_obj *g)
{
	struct nlattr *mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	int n = 0;

	for (unsigned i = 0; i < g->ngroup; i++) {
		const struct nexthop_obj *o = nexthop_table_get(t, g->group[i].id);
		struct rtnexthop *rtnh;

		if (!o || o->ngroup || o->blackhole || o->fdb)
			continue;	/* the kernel refuses such members */
		if (!room(nlh, cap, sizeof(*rtnh)))
			return -ENOSPC;
		rtnh = (struct rtnexthop *)((uint8_t *)nlh + nlh->nlmsg_len);
		memset(rtnh, 0, sizeof(*rtnh));
		rtnh->rtnh_flags = o->flags;
		rtnh->rtnh_hops = (uint8_t)(g->group[i].weight - 1);
		rtnh->rtnh_ifindex = (int)o->oif;
		nlh->nlmsg_len += RTNH_ALIGN(sizeof(*rtnh));
		if (put_nexthop_attrs(nlh, cap, family, o) < 0)
			return -ENOSPC;
		rtnh->rtnh_len = (unsigned short)((uint8_t *)nlh + nlh->nlmsg_len -
						  (uint8_t *)rtnh);
		n++;
	}
	mnl_attr_nest_end(nlh, mp);
	return n;
}

struct nlmsghdr *nexthop_route_expand(const struct nexthop_table *t,
				      const struct nlmsghdr *nlh, void *buf,
				      size_t len, int *err)
{
	const struct nexthop_obj *o;
	const struct nlattr *a;
	struct nlmsghdr *n;
	struct rtmsg *rtm;
	uint32_t id = nexthop_route_id(nlh);
	int rc;

	*err = -EINVAL;
	if (!id || len < NLMSG_LENGTH(sizeof(*rtm)) || nlh->nlmsg_len > len)
		return NULL;
	o = nexthop_table_get(t, id);
	*err = -ENOENT;
	if (!o)
		return NULL;
	*err = -EINVAL;
	if (o->fdb)
		return NULL;
	n = mnl_nlmsg_put_header(buf);
	n->nlmsg_type = nlh->nlmsg_type;
	n->nlmsg_flags = nlh->nlmsg_flags;
	n->nlmsg_seq = nlh->nlmsg_seq;
	rtm = mnl_nlmsg_put_extra_header(n, sizeof(*rtm));
	memcpy(rtm, mnl_nlmsg_get_payload(nlh), sizeof(*rtm));
	mnl_attr_for_each(a, nlh, sizeof(*rtm))
		if (!attr_nexthop(mnl_attr_get_type(a)))
			mnl_attr_put(n, mnl_attr_get_type(a),
				     mnl_attr_get_payload_len(a),
				     mnl_attr_get_payload(a));
	*err = -ENOSPC;
	if (o->blackhole) {
		rtm->rtm_type = RTN_BLACKHOLE;
		return n;
	}
	if (o->ngroup) {
		rc = put_group(t, n, len, rtm->rtm_family, o);
		if (rc <= 0) {
			*err = rc ? rc : -ENOENT;
			return NULL;
		}
		return n;
	}
	if (!room(n, len, 4))
		return NULL;
	if (o->oif)
		mnl_attr_put_u32(n, RTA_OIF, o->oif);
	rtm->rtm_flags = (rtm->rtm_flags & ~(unsigned)(RTNH_F_DEAD |
		RTNH_F_LINKDOWN | RTNH_F_ONLINK)) | o->flags;
	if (put_nexthop_attrs(n, len, rtm->rtm_family, o) < 0)
		return NULL;
	return n;
}
