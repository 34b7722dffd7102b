/* check_rtmirror.c - event handling on hand-made rtnetlink messages. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/seg6_iptunnel.h>
#include <linux/seg6_local.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kpolicy.h"
#include "routemsg.h"
#include "rtmirror.h"
#include "seg6route.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP	0x10000
#endif

static uint8_t buf[8192];

static struct nlmsghdr *msg_link(uint16_t type, int ifindex, const char *name,
				 unsigned flags, uint32_t mtu)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct nlattr *li;

	nlh->nlmsg_type = type;
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	mnl_attr_put_u8(nlh, IFLA_OPERSTATE, 6 /* IF_OPER_UP */);
	li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	mnl_attr_nest_end(nlh, li);
	return nlh;
}

static struct nlmsghdr *msg_addr(uint16_t type, int ifindex, int family,
				 const char *addr, unsigned plen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	uint8_t a[16];

	nlh->nlmsg_type = type;
	ifa->ifa_family = (uint8_t)family;
	ifa->ifa_prefixlen = (uint8_t)plen;
	ifa->ifa_index = (uint32_t)ifindex;
	ck_assert_int_eq(inet_pton(family, addr, a), 1);
	mnl_attr_put(nlh, family == AF_INET ? IFA_LOCAL : IFA_ADDRESS,
		     family == AF_INET ? 4 : 16, a);
	return nlh;
}

/* Apply a route of the main table with no next hop. */
static int route_apply(struct rtmirror *m, uint16_t type, int family,
		       const char *dst, unsigned plen, uint8_t rtype)
{
	return rtmirror_apply(m, routemsg_new(type, family, dst, plen,
					      RT_TABLE_MAIN, rtype));
}

static void put_mtu(struct nlmsghdr *nlh, uint32_t mtu)
{
	struct nlattr *mx = mnl_attr_nest_start(nlh, RTA_METRICS);

	mnl_attr_put_u32(nlh, RTAX_MTU, mtu);
	mnl_attr_nest_end(nlh, mx);
}

/* Append a multipath next hop (gw, oif, weight) to an open RTA_MULTIPATH. */
static void put_nexthop(struct nlmsghdr *nlh, int family, const char *gw,
			int oif, unsigned weight)
{
	struct rtnexthop *rtnh = routemsg_nexthop_start(nlh, oif, weight);

	routemsg_put_addr(nlh, RTA_GATEWAY, family, gw);
	routemsg_nexthop_end(nlh, rtnh);
}

static const struct fib_route *get4(struct rtmirror *m, uint32_t table,
				    const char *addr)
{
	struct in_addr a;

	ck_assert_int_eq(inet_pton(AF_INET, addr, &a), 1);
	return fib_route_get4(rtmirror_fib(m), table, a);
}

static const struct fib_route *get6(struct rtmirror *m, uint32_t table,
				    const char *addr)
{
	struct in6_addr a;

	ck_assert_int_eq(inet_pton(AF_INET6, addr, &a), 1);
	return fib_route_get6(rtmirror_fib(m), table, &a);
}

/* Two links up (2: veth0, 3: veth1) with 10.0.0.1/24 and 10.1.0.1/24. */
static struct rtmirror *setup(void)
{
	struct rtmirror *m = rtmirror_new(NULL);
	unsigned up = IFF_UP | IFF_LOWER_UP | IFF_RUNNING;

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 2, "veth0", up, 1500)), 0);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 3, "veth1", up, 9000)), 0);
	ck_assert_int_eq(rtmirror_apply(m, msg_addr(RTM_NEWADDR, 2, AF_INET, "10.0.0.1", 24)), 0);
	ck_assert_int_eq(rtmirror_apply(m, msg_addr(RTM_NEWADDR, 3, AF_INET, "10.1.0.1", 24)), 0);
	return m;
}

START_TEST(test_links_and_addrs)
{
	struct rtmirror *m = setup();
	const struct rtmirror_link *l = rtmirror_link_get(m, 3);

	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(l->name, "veth1");
	ck_assert_str_eq(l->kind, "veth");
	ck_assert_uint_eq(l->mtu, 9000);
	ck_assert_uint_eq(l->naddr, 1);
	ck_assert_uint_eq(l->addr[0].plen, 24);
	ck_assert_mem_eq(l->addr[0].addr.b, ((uint8_t[]){ 10, 1, 0, 1 }), 4);
	ck_assert(rtmirror_link_usable(m, 3));
	ck_assert_ptr_null(rtmirror_link_get(m, 4));
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_DELLINK, 3, "veth1", 0, 9000)), 0);
	ck_assert_ptr_null(rtmirror_link_get(m, 3));
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

/* The count waiting on rtmirror_links_fd() (read and cleared). */
static uint64_t links_notices(struct rtmirror *m)
{
	uint64_t v = 0;

	if (read(rtmirror_links_fd(m), &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/* rtmirror_links_fd() tells of a link that appears, goes, is set up or
 * down, or is renamed (what a SID's oif waits for), not of its carrier,
 * MTU or addresses. */
START_TEST(test_links_fd)
{
	struct rtmirror *m = rtmirror_new(NULL);
	unsigned carrier = IFF_UP | IFF_LOWER_UP | IFF_RUNNING;

	ck_assert_ptr_nonnull(m);
	ck_assert_int_ge(rtmirror_links_fd(m), 0);
	ck_assert_uint_eq(links_notices(m), 0);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 2, "eth1", 0, 1500)), 0);
	ck_assert_uint_eq(links_notices(m), 1);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 2, "eth1", IFF_UP, 1500)), 0);
	ck_assert_uint_eq(links_notices(m), 1);
	/* carrier, another MTU, an address: nothing a SID waits for */
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 2, "eth1", carrier, 9000)), 0);
	ck_assert_int_eq(rtmirror_apply(m, msg_addr(RTM_NEWADDR, 2, AF_INET, "10.0.0.1", 24)), 0);
	ck_assert_uint_eq(links_notices(m), 0);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 2, "eth9", carrier, 9000)), 0);
	ck_assert_uint_eq(links_notices(m), 1);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 2, "eth9", 0, 9000)), 0);
	ck_assert_uint_eq(links_notices(m), 1);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_DELLINK, 2, "eth9", 0, 9000)), 0);
	ck_assert_uint_eq(links_notices(m), 1);
	/* a link it never knew goes: nothing changed */
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_DELLINK, 5, "eth5", 0, 1500)), 0);
	ck_assert_uint_eq(links_notices(m), 0);
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

START_TEST(test_add_replace_delete)
{
	struct rtmirror *m = setup();
	struct nlmsghdr *nlh;
	const struct fib_route *r;

	nlh = routemsg_new(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24,
			   RT_TABLE_MAIN, RTN_UNICAST);
	routemsg_put_addr(nlh, RTA_GATEWAY, AF_INET, "10.0.0.2");
	mnl_attr_put_u32(nlh, RTA_OIF, 2);
	put_mtu(nlh, 1400);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	r = get4(m, 0, "192.0.2.200");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->type, RTN_UNICAST);
	ck_assert_uint_eq(r->plen, 24);
	ck_assert_uint_eq(r->fi->mtu, 1400);
	ck_assert_uint_eq(r->fi->nnh, 1);
	ck_assert_uint_eq(r->fi->nh[0].oif, 2);
	ck_assert_uint_eq(r->fi->nh[0].gw_family, AF_INET);
	ck_assert_mem_eq(r->fi->nh[0].gw.b, ((uint8_t[]){ 10, 0, 0, 2 }), 4);

	/* Replace: same key, new gateway and link. */
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24,
			   RT_TABLE_MAIN, RTN_UNICAST);
	routemsg_put_addr(nlh, RTA_GATEWAY, AF_INET, "10.1.0.2");
	mnl_attr_put_u32(nlh, RTA_OIF, 3);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	r = get4(m, 0, "192.0.2.200");
	ck_assert_uint_eq(r->fi->nh[0].oif, 3);
	ck_assert_uint_eq(r->fi->mtu, 0);
	ck_assert_uint_eq(fib_count(rtmirror_fib(m), 0, AF_INET), 1);

	/* Blackhole, unreachable and prohibit have no next hop. */
	ck_assert_int_eq(route_apply(m, RTM_NEWROUTE, AF_INET, "192.0.2.128", 25,
				     RTN_BLACKHOLE), 0);
	ck_assert_int_eq(route_apply(m, RTM_NEWROUTE, AF_INET6, "2001:db8::", 32,
				     RTN_PROHIBIT), 0);
	r = get4(m, 0, "192.0.2.200");
	ck_assert_uint_eq(r->type, RTN_BLACKHOLE);
	ck_assert_uint_eq(r->fi->nnh, 0);
	ck_assert_uint_eq(get6(m, 0, "2001:db8::5")->type, RTN_PROHIBIT);

	/* Delete: the /24 shows through again, then nothing. */
	ck_assert_int_eq(route_apply(m, RTM_DELROUTE, AF_INET, "192.0.2.128", 25,
				     RTN_BLACKHOLE), 0);
	ck_assert_uint_eq(get4(m, 0, "192.0.2.200")->type, RTN_UNICAST);
	ck_assert_int_eq(route_apply(m, RTM_DELROUTE, AF_INET, "192.0.2.0", 24,
				     RTN_UNICAST), 0);
	ck_assert_ptr_null(get4(m, 0, "192.0.2.200"));
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

START_TEST(test_cloned_ignored)
{
	struct rtmirror *m = setup();
	struct nlmsghdr *nlh;

	nlh = routemsg_new(RTM_NEWROUTE, AF_INET6, "2001:db8::7", 128,
			   RT_TABLE_MAIN, RTN_UNICAST);
	((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_flags |= RTM_F_CLONED;
	ck_assert_int_eq(rtmirror_apply(m, nlh), 1);
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET6, "2001:db8::8", 128,
			   RT_TABLE_MAIN, RTN_UNICAST);
	((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_protocol = RTPROT_REDIRECT;
	ck_assert_int_eq(rtmirror_apply(m, nlh), 1);
	ck_assert_uint_eq(fib_count(rtmirror_fib(m), 0, AF_INET6), 0);
	rtmirror_free(m);
}
END_TEST

START_TEST(test_multipath_and_big_table)
{
	struct rtmirror *m = setup();
	struct nlmsghdr *nlh;
	struct nlattr *mp;
	const struct fib_route *r;

	nlh = routemsg_new(RTM_NEWROUTE, AF_INET6, "2001:db8:97::", 48, 100000,
			   RTN_UNICAST);
	mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	put_nexthop(nlh, AF_INET6, "fe80::1", 2, 1);
	put_nexthop(nlh, AF_INET6, "fe80::2", 3, 5);
	mnl_attr_nest_end(nlh, mp);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	ck_assert_ptr_null(get6(m, 0, "2001:db8:97::1"));
	r = get6(m, 100000, "2001:db8:97::1");
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->table, 100000);
	ck_assert_uint_eq(r->fi->nnh, 2);
	ck_assert_uint_eq(r->fi->nh[0].oif, 2);
	ck_assert_uint_eq(r->fi->nh[0].weight, 1);
	ck_assert_uint_eq(r->fi->nh[1].oif, 3);
	ck_assert_uint_eq(r->fi->nh[1].weight, 5);
	ck_assert_uint_eq(r->fi->nh[1].gw.b[15], 2);

	/* IPv6 link down: the kernel marks the next hop dead silently. */
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 2, "veth0", 0, 1500)), 0);
	r = get6(m, 100000, "2001:db8:97::1");
	ck_assert_uint_eq(r->fi->nnh, 2);
	ck_assert(r->fi->nh[0].flags & RTNH_F_DEAD);
	ck_assert(!(r->fi->nh[1].flags & RTNH_F_DEAD));
	ck_assert_uint_eq(fib_route_nexthop(r, 12345)->oif, 3);
	/* Up again: alive again. */
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 2, "veth0",
						    IFF_UP | IFF_LOWER_UP, 1500)), 0);
	r = get6(m, 100000, "2001:db8:97::1");
	ck_assert(!(r->fi->nh[0].flags & RTNH_F_DEAD));
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

START_TEST(test_link_down_purge_v4)
{
	struct rtmirror *m = setup();
	struct nlmsghdr *nlh;
	struct nlattr *mp;
	const struct fib_route *r;

	nlh = routemsg_new(RTM_NEWROUTE, AF_INET, "192.0.2.0", 24, 1000,
			   RTN_UNICAST);
	routemsg_put_addr(nlh, RTA_GATEWAY, AF_INET, "10.0.0.2");
	mnl_attr_put_u32(nlh, RTA_OIF, 2);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET, "10.0.0.1", 32,
			   RT_TABLE_LOCAL, RTN_LOCAL);
	((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_scope = RT_SCOPE_HOST;
	mnl_attr_put_u32(nlh, RTA_OIF, 2);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET, "198.51.100.0", 24,
			   RT_TABLE_MAIN, RTN_UNICAST);
	mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	put_nexthop(nlh, AF_INET, "10.0.0.2", 2, 2);
	put_nexthop(nlh, AF_INET, "10.1.0.2", 3, 3);
	mnl_attr_nest_end(nlh, mp);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);

	/* veth0 down: no message for the routes, as from the kernel. */
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 2, "veth0", 0, 1500)), 0);
	ck_assert_ptr_null(get4(m, 1000, "192.0.2.1"));
	r = get4(m, 0, "10.0.0.1");	/* host-scope local route kept */
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->type, RTN_LOCAL);
	r = get4(m, 0, "198.51.100.1");	/* one next hop dead */
	ck_assert_ptr_nonnull(r);
	ck_assert(r->fi->nh[0].flags & RTNH_F_DEAD);
	ck_assert(!rtmirror_link_usable(m, 2));

	/* 10.1.0.1 removed: veth1 has no IPv4 address left, so the kernel
	 * drops IPv4 routes via it (the multipath one has no live hop). */
	ck_assert_int_eq(rtmirror_apply(m, msg_addr(RTM_DELADDR, 3, AF_INET, "10.1.0.1", 24)), 0);
	ck_assert_uint_eq(rtmirror_link_get(m, 3)->naddr, 0);
	ck_assert_ptr_null(get4(m, 0, "198.51.100.1"));
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

START_TEST(test_addr_removal_prefsrc)
{
	struct rtmirror *m = setup();
	struct nlmsghdr *nlh;

	ck_assert_int_eq(rtmirror_apply(m, msg_addr(RTM_NEWADDR, 2, AF_INET, "10.0.0.9", 24)), 0);
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET, "203.0.113.0", 24,
			   RT_TABLE_MAIN, RTN_UNICAST);
	mnl_attr_put_u32(nlh, RTA_OIF, 2);
	routemsg_put_addr(nlh, RTA_PREFSRC, AF_INET, "10.0.0.1");
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET, "203.0.114.0", 24,
			   RT_TABLE_MAIN, RTN_UNICAST);
	mnl_attr_put_u32(nlh, RTA_OIF, 2);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	ck_assert_ptr_nonnull(get4(m, 0, "203.0.113.1"));
	ck_assert_int_eq(rtmirror_apply(m, msg_addr(RTM_DELADDR, 2, AF_INET, "10.0.0.1", 24)), 0);
	ck_assert_ptr_null(get4(m, 0, "203.0.113.1"));	/* used 10.0.0.1 */
	ck_assert_ptr_nonnull(get4(m, 0, "203.0.114.1"));	/* 10.0.0.9 is left */
	ck_assert_uint_eq(rtmirror_link_get(m, 2)->naddr, 1);
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

/* An `ip rule [priority P] iif IIF lookup TABLE` message; action,
 * dst_len and an extra attribute (0: none) make it another rule. */
static struct nlmsghdr *msg_rule(uint16_t type, int family, uint32_t prio,
				 const char *iif, uint32_t table,
				 uint8_t action, uint8_t dst_len,
				 uint16_t extra)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct fib_rule_hdr *frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));

	nlh->nlmsg_type = type;
	frh->family = (uint8_t)family;
	frh->action = action;
	frh->dst_len = dst_len;
	frh->table = table < 256 ? (uint8_t)table : RT_TABLE_COMPAT;
	mnl_attr_put_u32(nlh, FRA_TABLE, table);
	mnl_attr_put_u32(nlh, FRA_PRIORITY, prio);
	if (iif)
		mnl_attr_put_strz(nlh, FRA_IIFNAME, iif);
	mnl_attr_put_u8(nlh, FRA_PROTOCOL, 3 /* RTPROT_BOOT */);
	mnl_attr_put_u32(nlh, FRA_SUPPRESS_PREFIXLEN, UINT32_MAX);	/* unset */
	if (extra)
		mnl_attr_put_u32(nlh, extra, 1);
	return nlh;
}

static int rule(struct rtmirror *m, uint16_t type, int family, uint32_t prio,
		const char *iif, uint32_t table)
{
	return rtmirror_apply(m, msg_rule(type, family, prio, iif, table,
					  FR_ACT_TO_TBL, 0, 0));
}

/* A link of kind vrf with table `table`, or (table 0) a veth enslaved
 * to master (0: none). */
static struct nlmsghdr *msg_link_vrf(int ifindex, const char *name,
				     uint32_t table, uint32_t master)
{
	unsigned up = IFF_UP | IFF_LOWER_UP | IFF_RUNNING;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct nlattr *li, *data;

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = up;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, table ? "vrf" : "veth");
	if (table) {
		data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
		mnl_attr_put_u32(nlh, IFLA_VRF_TABLE, table);
		mnl_attr_nest_end(nlh, data);
	}
	mnl_attr_nest_end(nlh, li);
	if (master)
		mnl_attr_put_u32(nlh, IFLA_MASTER, master);
	return nlh;
}

/* Tenants: each link's table from the first plain iif rule of each
 * family, following rule changes and renames; other rules ignored. */
START_TEST(test_iif_rules)
{
	struct rtmirror *m = setup();
	unsigned up = IFF_UP | IFF_LOWER_UP | IFF_RUNNING;

	ck_assert_uint_eq(rtmirror_iif_table(m, 2, AF_INET), 254);
	ck_assert_uint_eq(rtmirror_iif_table(m, 2, AF_INET6), 254);
	ck_assert_uint_eq(rtmirror_iif_table(m, 99, AF_INET), 254);
	ck_assert_int_eq(rule(m, RTM_NEWRULE, AF_INET, 2000, "veth0", 101), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 2, AF_INET), 101);
	ck_assert_uint_eq(rtmirror_iif_table(m, 2, AF_INET6), 254);
	ck_assert_uint_eq(rtmirror_iif_table(m, 3, AF_INET), 254);
	ck_assert_int_eq(rule(m, RTM_NEWRULE, AF_INET6, 2000, "veth0", 70000), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 2, AF_INET6), 70000);
	/* Rules with another selector or action are left out. */
	ck_assert_int_eq(rtmirror_apply(m, msg_rule(RTM_NEWRULE, AF_INET, 10,
		"veth0", 254, FR_ACT_TO_TBL, 16, 0)), 1);
	ck_assert_int_eq(rtmirror_apply(m, msg_rule(RTM_NEWRULE, AF_INET, 10,
		"veth0", 254, FR_ACT_TO_TBL, 0, FRA_FWMARK)), 1);
	ck_assert_int_eq(rtmirror_apply(m, msg_rule(RTM_NEWRULE, AF_INET, 10,
		"veth0", 254, FR_ACT_TO_TBL, 0, FRA_OIFNAME)), 1);
	ck_assert_int_eq(rtmirror_apply(m, msg_rule(RTM_NEWRULE, AF_INET, 10,
		"veth0", 254, FR_ACT_TO_TBL, 0, FRA_SUPPRESS_PREFIXLEN)), 1);
	ck_assert_int_eq(rtmirror_apply(m, msg_rule(RTM_NEWRULE, AF_INET, 10,
		"veth0", 0, FR_ACT_UNREACHABLE, 0, 0)), 1);
	ck_assert_int_eq(rtmirror_apply(m, msg_rule(RTM_NEWRULE, AF_INET, 10,
		NULL, 255, FR_ACT_TO_TBL, 0, 0)), 1);
	ck_assert_uint_eq(rtmirror_iif_table(m, 2, AF_INET), 101);
	/* The first by priority wins; its deletion gives the next. */
	ck_assert_int_eq(rule(m, RTM_NEWRULE, AF_INET, 100, "veth0", 300), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 2, AF_INET), 300);
	ck_assert_int_eq(rule(m, RTM_DELRULE, AF_INET, 100, "veth0", 300), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 2, AF_INET), 101);
	ck_assert_int_eq(rule(m, RTM_DELRULE, AF_INET, 100, "veth0", 300), 0);
	/* A rule names a link: a rename moves it, as in the kernel. */
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 2, "ceX", up, 1500)), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 2, AF_INET), 254);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 3, "veth0", up, 1500)), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 3, AF_INET), 101);
	ck_assert_uint_eq(rtmirror_iif_table(m, 3, AF_INET6), 70000);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_DELLINK, 3, "veth0", 0, 1500)), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 3, AF_INET), 254);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 4, "veth0", up, 1500)), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 4, AF_INET), 101);
	ck_assert_int_eq(rule(m, RTM_DELRULE, AF_INET, 2000, "veth0", 101), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 4, AF_INET), 254);
	ck_assert_uint_eq(rtmirror_iif_table(m, 4, AF_INET6), 70000);
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

/* A VRF's slaves (and the VRF itself) take its table, before any rule. */
START_TEST(test_vrf_table)
{
	struct rtmirror *m = setup();

	ck_assert_int_eq(rule(m, RTM_NEWRULE, AF_INET, 2000, "veth1", 101), 0);
	ck_assert_int_eq(rtmirror_apply(m, msg_link_vrf(10, "vrf-a", 500, 0)), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 10, AF_INET6), 500);
	ck_assert_int_eq(rtmirror_apply(m, msg_link_vrf(3, "veth1", 0, 10)), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 3, AF_INET), 500);
	ck_assert_uint_eq(rtmirror_iif_table(m, 3, AF_INET6), 500);
	ck_assert_int_eq(rtmirror_apply(m, msg_link_vrf(10, "vrf-a", 501, 0)), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 3, AF_INET), 501);
	ck_assert_uint_eq(rtmirror_iif_table(m, 2, AF_INET), 254);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_DELLINK, 10, "vrf-a", 0, 1500)), 0);
	ck_assert_uint_eq(rtmirror_iif_table(m, 3, AF_INET), 101);
	ck_assert_uint_eq(rtmirror_iif_table(m, 3, AF_INET6), 254);
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

START_TEST(test_truncated)
{
	struct rtmirror *m = setup();
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = RTM_NEWROUTE;
	ck_assert_int_eq(rtmirror_apply(m, nlh), -EINVAL);
	nlh->nlmsg_type = NLMSG_DONE;
	ck_assert_int_eq(rtmirror_apply(m, nlh), 1);
	rtmirror_free(m);
}
END_TEST

/* A seg6local End route: in the fib as any route, and in the SRv6 set,
 * whose eventfd tells of each change (and not of a repeat). */
START_TEST(test_seg6_routes)
{
	struct rtmirror_opts o = { .seg6_routes = true };
	struct rtmirror *m = rtmirror_new(&o), *plain = rtmirror_new(NULL);
	struct nlmsghdr *nlh, **msgs;
	struct nlattr *e;
	uint64_t v;
	long n;

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(rtmirror_seg6_fd(plain), -1);
	ck_assert_int_ge(rtmirror_seg6_fd(m), 0);
	ck_assert_int_lt(read(rtmirror_seg6_fd(m), &v, sizeof(v)), 0);
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET6, "fc00:1::1", 128,
			   RT_TABLE_MAIN, RTN_UNICAST);
	mnl_attr_put_u32(nlh, RTA_OIF, 2);
	e = routemsg_seg6local_start(nlh, SEG6_LOCAL_ACTION_END);
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	ck_assert_int_eq(rtmirror_apply(plain, nlh), 0);
	ck_assert_ptr_nonnull(get6(m, 0, "fc00:1::1"));
	ck_assert_int_eq(read(rtmirror_seg6_fd(m), &v, sizeof(v)), sizeof(v));
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);	/* the same again */
	ck_assert_int_lt(read(rtmirror_seg6_fd(m), &v, sizeof(v)), 0);
	n = rtmirror_seg6_snapshot(m, &msgs);
	ck_assert_int_eq(n, 1);
	seg6route_snapshot_free(msgs, (size_t)n);
	ck_assert_int_eq(rtmirror_seg6_snapshot(plain, &msgs), 0);
	nlh->nlmsg_type = RTM_DELROUTE;
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	ck_assert_int_eq(read(rtmirror_seg6_fd(m), &v, sizeof(v)), sizeof(v));
	ck_assert_int_eq(rtmirror_seg6_snapshot(m, &msgs), 0);
	seg6route_snapshot_free(msgs, 0);
	rtmirror_reclaim(m);
	rtmirror_reclaim(plain);
	rtmirror_free(m);
	rtmirror_free(plain);
}
END_TEST

/* An IPv4 seg6 route via veth0: its policy is its FIB route's (not in
 * the seg6local set: no notice); the kernel deletes the route, without a
 * message, when veth0 goes down; so does the mirror, and the policy goes
 * with it. */
START_TEST(test_seg6_purge_v4)
{
	struct rtmirror_opts o = { .seg6_routes = true };
	struct rtmirror *m = rtmirror_new(&o);
	unsigned up = IFF_UP | IFF_LOWER_UP | IFF_RUNNING;
	static const char *const segs[] = { "fc00::a" };
	struct nlmsghdr *nlh, **msgs;
	uint64_t v;

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 2, "veth0", up, 1500)), 0);
	ck_assert_int_eq(rtmirror_apply(m, msg_addr(RTM_NEWADDR, 2, AF_INET, "10.0.0.1", 24)), 0);
	nlh = routemsg_new(RTM_NEWROUTE, AF_INET, "10.9.0.0", 16, RT_TABLE_MAIN,
			   RTN_UNICAST);
	mnl_attr_put_u32(nlh, RTA_OIF, 2);
	routemsg_put_seg6(nlh, SEG6_IPTUN_MODE_ENCAP, segs, 1, 0);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	ck_assert_int_lt(read(rtmirror_seg6_fd(m), &v, sizeof(v)), 0);
	ck_assert_int_eq(rtmirror_seg6_snapshot(m, &msgs), 0);
	seg6route_snapshot_free(msgs, 0);
	ck_assert_ptr_nonnull(get4(m, 0, "10.9.1.1"));
	ck_assert_ptr_nonnull(get4(m, 0, "10.9.1.1")->encap);
	ck_assert_uint_eq(kpolicy_count(rtmirror_kpolicies(m)), 1);
	ck_assert_int_eq(rtmirror_apply(m, msg_link(RTM_NEWLINK, 2, "veth0", 0, 1500)), 0);
	ck_assert_ptr_null(get4(m, 0, "10.9.1.1"));
	rtmirror_reclaim(m);
	ck_assert_uint_eq(kpolicy_count(rtmirror_kpolicies(m)), 0);
	rtmirror_free(m);
}
END_TEST

static Suite *rtmirror_suite(void)
{
	Suite *s = suite_create("rtmirror");
	TCase *tc = tcase_create("events");

	tcase_add_test(tc, test_links_and_addrs);
	tcase_add_test(tc, test_links_fd);
	tcase_add_test(tc, test_add_replace_delete);
	tcase_add_test(tc, test_cloned_ignored);
	tcase_add_test(tc, test_multipath_and_big_table);
	tcase_add_test(tc, test_link_down_purge_v4);
	tcase_add_test(tc, test_addr_removal_prefsrc);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_iif_rules);
	tcase_add_test(tc, test_vrf_table);
	tcase_add_test(tc, test_seg6_routes);
	tcase_add_test(tc, test_seg6_purge_v4);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rtmirror_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
