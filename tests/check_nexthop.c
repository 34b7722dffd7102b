/* check_nexthop.c - next-hop objects (RTM_NEWNEXTHOP) and the routes that
 * name them (RTA_NH_ID), on hand-made rtnetlink messages laid out as the
 * kernel's net/ipv4/nexthop.c sends them. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/lwtunnel.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <linux/seg6_iptunnel.h>
#include <linux/seg6_local.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpolicy.h"
#include "nexthop.h"
#include "routemsg.h"
#include "rtmirror.h"
#include "seg6route.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP	0x10000
#endif

#define UP	(IFF_UP | IFF_LOWER_UP | IFF_RUNNING)

static uint32_t nhbuf[1024];

static struct nlmsghdr *msg_link(int ifindex, const char *name, unsigned flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nhbuf);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_MTU, 1500);
	return nlh;
}

/* RTM_NEWNEXTHOP / RTM_DELNEXTHOP id: nhmsg, NHA_ID, then what the
 * caller adds. */
static struct nlmsghdr *msg_nh(uint16_t type, int family, uint32_t id)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nhbuf);
	struct nhmsg *nhm = mnl_nlmsg_put_extra_header(nlh, sizeof(*nhm));

	nlh->nlmsg_type = type;
	nhm->nh_family = (uint8_t)family;
	nhm->nh_protocol = RTPROT_BOOT;
	mnl_attr_put_u32(nlh, NHA_ID, id);
	return nlh;
}

/* `ip nexthop add id ID via GW dev OIF` as the kernel tells of it. */
static struct nlmsghdr *msg_nh_via(int family, uint32_t id, const char *gw,
				   uint32_t oif)
{
	struct nlmsghdr *nlh = msg_nh(RTM_NEWNEXTHOP, family, id);
	uint8_t a[16];

	ck_assert_int_eq(inet_pton(family, gw, a), 1);
	mnl_attr_put_u32(nlh, NHA_OIF, oif);
	mnl_attr_put(nlh, NHA_GATEWAY, family == AF_INET ? 4 : 16, a);
	return nlh;
}

/* `ip nexthop add id ID group A,WA/B,WB` (weights 1..256). */
static struct nlmsghdr *msg_nh_group(uint32_t id, uint32_t a, unsigned wa,
				     uint32_t b, unsigned wb)
{
	struct nlmsghdr *nlh = msg_nh(RTM_NEWNEXTHOP, AF_UNSPEC, id);
	struct nexthop_grp g[2] = {
		{ .id = a, .weight = (uint8_t)(wa - 1) },
		{ .id = b, .weight = (uint8_t)(wb - 1) },
	};

	mnl_attr_put(nlh, NHA_GROUP, b ? sizeof(g) : sizeof(g[0]), g);
	mnl_attr_put_u16(nlh, NHA_GROUP_TYPE, NEXTHOP_GRP_TYPE_MPATH);
	return nlh;
}

static int apply(struct rtmirror *m, const struct nlmsghdr *nlh)
{
	return rtmirror_apply(m, nlh);
}

/* A route of table 100 naming object nhid, with what nexthop_compat_mode
 * adds (an RTA_OIF that the table must override). */
static struct nlmsghdr *msg_route(uint16_t type, int family, const char *dst,
				  unsigned plen, uint32_t nhid)
{
	struct nlmsghdr *nlh = routemsg_new(type, family, dst, plen, 100,
					    RTN_UNICAST);

	mnl_attr_put_u32(nlh, RTA_PRIORITY, 1024);
	mnl_attr_put_u32(nlh, RTA_NH_ID, nhid);
	mnl_attr_put_u32(nlh, RTA_OIF, 99);
	return nlh;
}

static const struct fib_route *get(struct rtmirror *m, int family,
				   const char *addr)
{
	union fib_addr a;

	ck_assert_int_eq(inet_pton(family, addr, &a), 1);
	return family == AF_INET ? fib_route_get4(rtmirror_fib(m), 100, a.v4)
				 : fib_route_get6(rtmirror_fib(m), 100, &a.v6);
}

static void check_nh(const struct fib_nexthop *nh, int family, const char *gw,
		     uint32_t oif, unsigned weight)
{
	uint8_t a[16] = { 0 };

	ck_assert_int_eq(inet_pton(family, gw, a), 1);
	ck_assert_uint_eq(nh->gw_family, family);
	ck_assert_mem_eq(nh->gw.b, a, family == AF_INET ? 4 : 16);
	ck_assert_uint_eq(nh->oif, oif);
	ck_assert_uint_eq(nh->weight, weight);
}

static struct rtmirror *setup(const struct rtmirror_opts *o)
{
	struct rtmirror *m = rtmirror_new(o);

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(apply(m, msg_link(2, "veth0", UP)), 0);
	ck_assert_int_eq(apply(m, msg_link(3, "veth1", UP)), 0);
	ck_assert_int_eq(apply(m, msg_nh_via(AF_INET, 10, "10.0.0.2", 2)), 0);
	ck_assert_int_eq(apply(m, msg_nh_via(AF_INET, 11, "10.1.0.3", 3)), 0);
	ck_assert_int_eq(apply(m, msg_nh_group(20, 10, 3, 11, 1)), 0);
	ck_assert_int_eq(apply(m, msg_nh(RTM_NEWNEXTHOP, AF_UNSPEC, 30)), 0);
	mnl_attr_put((struct nlmsghdr *)nhbuf, NHA_BLACKHOLE, 0, NULL);
	ck_assert_int_eq(apply(m, (struct nlmsghdr *)nhbuf), 0);
	return m;
}

/* The expansion of a group's route, byte for byte: the route's own
 * attributes (the compat-mode RTA_OIF and RTA_NH_ID dropped), then
 * RTA_MULTIPATH with each member's gateway, oif and weight - 1 in
 * rtnh_hops, as the kernel writes a `nexthop via ... weight 3` route. */
START_TEST(test_expand_group_bytes)
{
	struct nexthop_table *t = nexthop_table_new();
	static uint32_t in[256], out[1024], want[256];
	struct nlmsghdr *nlh, *x;
	struct nlattr *mp;
	struct rtnexthop *rtnh;
	uint32_t id;
	int err;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(nexthop_table_apply(t, msg_nh_via(AF_INET, 10, "10.0.0.2", 2), 1, &id), 1);
	ck_assert_uint_eq(id, 10);
	ck_assert_int_eq(nexthop_table_apply(t, msg_nh_via(AF_INET, 11, "10.1.0.3", 3), 1, &id), 1);
	ck_assert_int_eq(nexthop_table_apply(t, msg_nh_group(20, 10, 3, 11, 1), 1, &id), 1);
	/* the same object again: no change */
	ck_assert_int_eq(nexthop_table_apply(t, msg_nh_group(20, 10, 3, 11, 1), 2, &id), 0);
	nlh = msg_route(RTM_NEWROUTE, AF_INET, "198.51.100.0", 24, 20);
	memcpy(in, nlh, nlh->nlmsg_len);
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET, "198.51.100.0", 24, 100,
			   RTN_UNICAST);
	mnl_attr_put_u32(nlh, RTA_PRIORITY, 1024);
	mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	rtnh = routemsg_nexthop_start(nlh, 2, 3);
	routemsg_put_addr(nlh, RTA_GATEWAY, AF_INET, "10.0.0.2");
	routemsg_nexthop_end(nlh, rtnh);
	rtnh = routemsg_nexthop_start(nlh, 3, 1);
	routemsg_put_addr(nlh, RTA_GATEWAY, AF_INET, "10.1.0.3");
	routemsg_nexthop_end(nlh, rtnh);
	mnl_attr_nest_end(nlh, mp);
	memcpy(want, nlh, nlh->nlmsg_len);
	x = nexthop_route_expand(t, (struct nlmsghdr *)in, out, sizeof(out), &err);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->nlmsg_len, ((struct nlmsghdr *)want)->nlmsg_len);
	ck_assert_mem_eq(x, want, x->nlmsg_len);
	/* an unknown object: no route */
	nlh = msg_route(RTM_NEWROUTE, AF_INET, "198.51.100.0", 24, 77);
	ck_assert_ptr_null(nexthop_route_expand(t, nlh, out, sizeof(out), &err));
	ck_assert_int_eq(err, -ENOENT);
	/* too small a buffer */
	nlh = msg_route(RTM_NEWROUTE, AF_INET, "198.51.100.0", 24, 20);
	ck_assert_ptr_null(nexthop_route_expand(t, nlh, out, 72, &err));
	ck_assert_int_eq(err, -ENOSPC);
	nexthop_table_free(t);
}
END_TEST

/* A single object, a group (weights 3 and 1) and a blackhole, resolved
 * into the FIB as the kernel resolves them. */
START_TEST(test_resolve)
{
	struct rtmirror *m = setup(NULL);
	const struct fib_route *r;

	ck_assert_int_eq(apply(m, msg_route(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24, 10)), 0);
	ck_assert_int_eq(apply(m, msg_route(RTM_NEWROUTE, AF_INET, "198.51.100.0", 24, 20)), 0);
	ck_assert_int_eq(apply(m, msg_route(RTM_NEWROUTE, AF_INET, "203.0.113.0", 24, 30)), 0);
	r = get(m, AF_INET, "192.0.2.7");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->type, RTN_UNICAST);
	ck_assert_uint_eq(r->fi->priority, 1024);
	ck_assert_uint_eq(r->fi->nnh, 1);
	check_nh(&r->fi->nh[0], AF_INET, "10.0.0.2", 2, 1);
	r = get(m, AF_INET, "198.51.100.1");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->fi->nnh, 2);
	check_nh(&r->fi->nh[0], AF_INET, "10.0.0.2", 2, 3);
	check_nh(&r->fi->nh[1], AF_INET, "10.1.0.3", 3, 1);
	r = get(m, AF_INET, "203.0.113.9");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->type, RTN_BLACKHOLE);
	ck_assert_uint_eq(r->fi->nnh, 0);
	ck_assert_uint_eq(fib_count(rtmirror_fib(m), 100, AF_INET), 3);
	/* an MPLS route naming an object: not the mirror's */
	{
		static uint32_t b[64];
		struct nlmsghdr *nlh = mnl_nlmsg_put_header(b);
		struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

		nlh->nlmsg_type = RTM_NEWROUTE;
		rtm->rtm_family = AF_MPLS;
		rtm->rtm_type = RTN_UNICAST;
		mnl_attr_put_u32(nlh, RTA_NH_ID, 10);
		ck_assert_int_eq(apply(m, nlh), 1);
	}
	/* the kernel's delete of a route */
	ck_assert_int_eq(apply(m, msg_route(RTM_DELROUTE, AF_INET, "203.0.113.0", 24, 30)), 0);
	ck_assert_ptr_null(get(m, AF_INET, "203.0.113.9"));
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

/* An object replaced: every route using it, directly or through a group,
 * resolved again (the kernel need not tell of the routes).  Deleted: its
 * routes go (IPv4: without a message), its groups lose it, an empty
 * group goes with its routes. */
START_TEST(test_change_and_delete)
{
	struct rtmirror *m = setup(NULL);
	const struct fib_route *r;

	ck_assert_int_eq(apply(m, msg_route(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24, 10)), 0);
	ck_assert_int_eq(apply(m, msg_route(RTM_NEWROUTE, AF_INET, "198.51.100.0", 24, 20)), 0);
	ck_assert_int_eq(apply(m, msg_nh_via(AF_INET, 10, "10.1.0.9", 3)), 0);
	r = get(m, AF_INET, "192.0.2.7");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->fi->nnh, 1);
	check_nh(&r->fi->nh[0], AF_INET, "10.1.0.9", 3, 1);
	r = get(m, AF_INET, "198.51.100.1");
	ck_assert_uint_eq(r->fi->nnh, 2);
	check_nh(&r->fi->nh[0], AF_INET, "10.1.0.9", 3, 3);
	ck_assert_int_eq(apply(m, msg_nh(RTM_DELNEXTHOP, AF_INET, 10)), 0);
	ck_assert_ptr_null(get(m, AF_INET, "192.0.2.7"));
	r = get(m, AF_INET, "198.51.100.1");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->fi->nnh, 1);
	check_nh(&r->fi->nh[0], AF_INET, "10.1.0.3", 3, 1);
	ck_assert_int_eq(apply(m, msg_nh(RTM_DELNEXTHOP, AF_INET, 11)), 0);
	ck_assert_ptr_null(get(m, AF_INET, "198.51.100.1"));
	ck_assert_uint_eq(fib_count(rtmirror_fib(m), 100, AF_INET), 0);
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

/* More groups than one table scan takes (NH_BATCH, 64) share a member
 * that goes: every one of their routes loses it. */
START_TEST(test_many_groups)
{
	struct rtmirror *m = setup(NULL);
	struct rtmirror_stats st;
	char dst[32];

	for (unsigned i = 0; i < 100; i++) {
		ck_assert_int_eq(apply(m, msg_nh_group(1000 + i, 10, 1, 11, 1)), 0);
		snprintf(dst, sizeof(dst), "10.%u.0.0", 100 + i);
		ck_assert_int_eq(apply(m, msg_route(RTM_NEWROUTE, AF_INET, dst, 16, 1000 + i)), 0);
	}
	ck_assert_int_eq(apply(m, msg_nh(RTM_DELNEXTHOP, AF_INET, 11)), 0);
	for (unsigned i = 0; i < 100; i++) {
		const struct fib_route *r;

		snprintf(dst, sizeof(dst), "10.%u.1.1", 100 + i);
		r = get(m, AF_INET, dst);
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(r->fi->nnh, 1);
		check_nh(&r->fi->nh[0], AF_INET, "10.0.0.2", 2, 1);
	}
	rtmirror_get_stats(m, &st);
	ck_assert_uint_eq(st.errors, 0);
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

/* IPv6: the oif of a single next hop is in the route's key; an object
 * moved to another link leaves one route, not two.  A link losing its
 * carrier takes its objects and their routes (nexthop_flush_dev(), no
 * message). */
START_TEST(test_v6_and_link_flush)
{
	struct rtmirror *m = setup(NULL);
	const struct fib_route *r;

	ck_assert_int_eq(apply(m, msg_nh_via(AF_INET6, 60, "fc00::2", 2)), 0);
	ck_assert_int_eq(apply(m, msg_route(RTM_NEWROUTE, AF_INET6, "2001:db8::", 64, 60)), 0);
	ck_assert_int_eq(apply(m, msg_nh_via(AF_INET6, 60, "fc00:1::2", 3)), 0);
	ck_assert_uint_eq(fib_count(rtmirror_fib(m), 100, AF_INET6), 1);
	r = get(m, AF_INET6, "2001:db8::1");
	ck_assert_ptr_nonnull(r);
	check_nh(&r->fi->nh[0], AF_INET6, "fc00:1::2", 3, 1);
	ck_assert_int_eq(apply(m, msg_route(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24, 10)), 0);
	ck_assert_int_eq(apply(m, msg_link(3, "veth1", IFF_UP)), 0);
	ck_assert_ptr_null(get(m, AF_INET6, "2001:db8::1"));
	ck_assert_ptr_nonnull(get(m, AF_INET, "192.0.2.7"));	/* via veth0 */
	r = get(m, AF_INET, "192.0.2.7");
	ck_assert_uint_eq(r->fi->nnh, 1);
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

/* A full dump replaces what the mirror had: objects and routes it does
 * not show are swept. */
START_TEST(test_resync_sweep)
{
	struct rtmirror *m = rtmirror_new(NULL);
	static uint32_t a[256], b[256], c[256];
	const struct nlmsghdr *msgs[3] = {
		(struct nlmsghdr *)a, (struct nlmsghdr *)b, (struct nlmsghdr *)c,
	};
	struct nlmsghdr *nlh;

	nlh = msg_link(2, "veth0", UP);
	memcpy(a, nlh, nlh->nlmsg_len);
	nlh = msg_nh_via(AF_INET, 10, "10.0.0.2", 2);
	memcpy(b, nlh, nlh->nlmsg_len);
	nlh = msg_route(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24, 10);
	memcpy(c, nlh, nlh->nlmsg_len);
	rtmirror_dump_apply(m, msgs, 3);
	ck_assert_ptr_nonnull(get(m, AF_INET, "192.0.2.7"));
	rtmirror_dump_apply(m, msgs, 1);
	ck_assert_ptr_null(get(m, AF_INET, "192.0.2.7"));
	/* the object is gone too: a route naming it resolves to nothing */
	ck_assert_int_eq(apply(m, (struct nlmsghdr *)c), -ENOENT);
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

/* The route message into an object's NHA_ENCAP_TYPE/NHA_ENCAP: the
 * RTA_ENCAP of a route message built by routemsg. */
static void nh_put_encap_of(struct nlmsghdr *nh, const struct nlmsghdr *rt)
{
	const struct nlattr *at;

	mnl_attr_for_each(at, rt, sizeof(struct rtmsg))
		if (mnl_attr_get_type(at) == RTA_ENCAP_TYPE)
			mnl_attr_put_u16(nh, NHA_ENCAP_TYPE, mnl_attr_get_u16(at));
		else if (mnl_attr_get_type(at) == RTA_ENCAP)
			mnl_attr_put(nh, NHA_ENCAP | NLA_F_NESTED,
				     mnl_attr_get_payload_len(at),
				     mnl_attr_get_payload(at));
}

/* kernel-routes: a seg6 encapsulation held in an object is the route's
 * policy; a seg6local one makes the route a SID; replacing the object
 * replaces the policy. */
START_TEST(test_seg6_in_object)
{
	struct rtmirror_opts o = { .seg6_routes = true };
	struct rtmirror *m = setup(&o);
	static const char *const segs[] = { "fc00::a" };
	static const char *const segs2[] = { "fc00::b", "fc00::c" };
	static uint32_t rt[256];
	struct nlmsghdr *nlh, **msgs;
	struct nlattr *nest;
	const struct fib_route *r;
	struct seg6route sr;
	long n;

	/* `ip nexthop add id 5 encap seg6 mode encap segs fc00::a dev veth0` */
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET, "0.0.0.0", 0, 100, RTN_UNICAST);
	routemsg_put_seg6(nlh, SEG6_IPTUN_MODE_ENCAP, segs, 1, 0);
	memcpy(rt, nlh, nlh->nlmsg_len);
	nlh = msg_nh(RTM_NEWNEXTHOP, AF_INET, 5);
	mnl_attr_put_u32(nlh, NHA_OIF, 2);
	nh_put_encap_of(nlh, (struct nlmsghdr *)rt);
	ck_assert_int_eq(apply(m, nlh), 0);
	ck_assert_int_eq(apply(m, msg_route(RTM_NEWROUTE, AF_INET, "10.9.0.0", 16, 5)), 0);
	r = get(m, AF_INET, "10.9.1.1");
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(r->encap);
	ck_assert_uint_eq(r->fi->nh[0].oif, 2);
	ck_assert_uint_eq(kpolicy_count(rtmirror_kpolicies(m)), 1);
	ck_assert_uint_eq(o.seg6_routes, 1);
	/* replaced with two segments: a new policy for the route */
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET, "0.0.0.0", 0, 100, RTN_UNICAST);
	routemsg_put_seg6(nlh, SEG6_IPTUN_MODE_ENCAP, segs2, 2, 0);
	memcpy(rt, nlh, nlh->nlmsg_len);
	nlh = msg_nh(RTM_NEWNEXTHOP, AF_INET, 5);
	mnl_attr_put_u32(nlh, NHA_OIF, 2);
	nh_put_encap_of(nlh, (struct nlmsghdr *)rt);
	ck_assert_int_eq(apply(m, nlh), 0);
	r = get(m, AF_INET, "10.9.1.1");
	ck_assert_ptr_nonnull(r->encap);
	ck_assert_uint_eq(((const struct kpolicy *)r->encap)->pol.lists[0].nsegs, 2);
	/* `ip -6 nexthop add id 6 encap seg6local action End.DT6 table 100
	 * dev veth0` and a SID route naming it */
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET6, "::", 0, 254, RTN_UNICAST);
	nest = routemsg_seg6local_start(nlh, SEG6_LOCAL_ACTION_END_DT6);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_TABLE, 100);
	mnl_attr_nest_end(nlh, nest);
	memcpy(rt, nlh, nlh->nlmsg_len);
	nlh = msg_nh(RTM_NEWNEXTHOP, AF_INET6, 6);
	mnl_attr_put_u32(nlh, NHA_OIF, 2);
	nh_put_encap_of(nlh, (struct nlmsghdr *)rt);
	ck_assert_int_eq(apply(m, nlh), 0);
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET6, "fc00:100::", 64, 254,
			   RTN_UNICAST);
	mnl_attr_put_u32(nlh, RTA_PRIORITY, 1024);
	mnl_attr_put_u32(nlh, RTA_NH_ID, 6);
	ck_assert_int_eq(apply(m, nlh), 0);
	n = rtmirror_seg6_snapshot(m, &msgs);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(seg6route_parse(msgs[0], &sr), 1);
	ck_assert_ptr_null(sr.unsupported);
	ck_assert_int_eq(sr.kind, SEG6ROUTE_SID);
	ck_assert_int_eq(sr.sid.behavior, BHV_END_DT6);
	ck_assert_uint_eq(sr.sid.table, 100);
	ck_assert_uint_eq(sr.sid.plen, 64);
	seg6route_snapshot_free(msgs, (size_t)n);
	/* the object deleted: the SID goes (IPv6: the kernel's DELROUTE
	 * follows, and finds nothing left) */
	ck_assert_int_eq(apply(m, msg_nh(RTM_DELNEXTHOP, AF_INET6, 6)), 0);
	ck_assert_int_eq(rtmirror_seg6_snapshot(m, &msgs), 0);
	seg6route_snapshot_free(msgs, 0);
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

/* A group of objects that each hold a seg6 encapsulation: one policy
 * with a weighted segment list per member, as a multipath seg6 route. */
START_TEST(test_seg6_group)
{
	struct rtmirror_opts o = { .seg6_routes = true };
	struct rtmirror *m = setup(&o);
	static const char *const sa[] = { "fc00::a" };
	static const char *const sb[] = { "fc00::b" };
	static uint32_t rt[256];
	const struct kpolicy *kp;
	struct nlmsghdr *nlh;
	const struct fib_route *r;

	for (unsigned i = 0; i < 2; i++) {
		nlh = routemsg_new(RTM_NEWROUTE, AF_INET, "0.0.0.0", 0, 100,
				   RTN_UNICAST);
		routemsg_put_seg6(nlh, SEG6_IPTUN_MODE_ENCAP, i ? sb : sa, 1, 0);
		memcpy(rt, nlh, nlh->nlmsg_len);
		nlh = msg_nh(RTM_NEWNEXTHOP, AF_INET, 40 + i);
		mnl_attr_put_u32(nlh, NHA_OIF, 2 + i);
		nh_put_encap_of(nlh, (struct nlmsghdr *)rt);
		ck_assert_int_eq(apply(m, nlh), 0);
	}
	ck_assert_int_eq(apply(m, msg_nh_group(42, 40, 2, 41, 1)), 0);
	ck_assert_int_eq(apply(m, msg_route(RTM_NEWROUTE, AF_INET, "10.10.0.0", 16, 42)), 0);
	r = get(m, AF_INET, "10.10.1.1");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->fi->nnh, 2);
	ck_assert_ptr_nonnull(r->encap);
	kp = r->encap;
	ck_assert_uint_eq(kp->pol.nlists, 2);
	ck_assert_uint_eq(kp->pol.weights[0], 2);
	ck_assert_uint_eq(kp->pol.weights[1], 1);
	ck_assert_uint_eq(kp->pol.lists[0].segs[0].s6_addr[15], 0xa);
	ck_assert_uint_eq(kp->pol.lists[1].segs[0].s6_addr[15], 0xb);
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

static Suite *nexthop_suite(void)
{
	Suite *s = suite_create("nexthop");
	TCase *tc = tcase_create("objects");

	tcase_add_test(tc, test_expand_group_bytes);
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_change_and_delete);
	tcase_add_test(tc, test_many_groups);
	tcase_add_test(tc, test_v6_and_link_flush);
	tcase_add_test(tc, test_resync_sweep);
	tcase_add_test(tc, test_seg6_in_object);
	tcase_add_test(tc, test_seg6_group);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(nexthop_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
