/* check_seg6route.c - the kernel's seg6 / seg6local route messages, built
 * byte for byte as net/ipv6/seg6_iptunnel.c and seg6_local.c fill them,
 * into srv6d's policies and SIDs; the set the route mirror keeps. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/lwtunnel.h>
#include <linux/rtnetlink.h>
#include <linux/seg6_iptunnel.h>
#include <linux/seg6_local.h>
#include <stdlib.h>
#include <string.h>

#include "routemsg.h"
#include "rtnl.h"
#include "seg6route.h"

static struct seg6route r;

static struct in6_addr a6(const char *s)
{
	struct in6_addr a;

	ck_assert_int_eq(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

static const char *const AB[] = { "fc00::a", "fc00::b" };

static void assert_ab(const struct seglist *sl)
{
	struct in6_addr a = a6("fc00::a"), b = a6("fc00::b");

	ck_assert_uint_eq(sl->nsegs, 2);
	ck_assert(IN6_ARE_ADDR_EQUAL(&sl->segs[0], &a));
	ck_assert(IN6_ARE_ADDR_EQUAL(&sl->segs[1], &b));
}

START_TEST(encap_policy)
{
	struct nlmsghdr *nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6,
					       "fc01::1", 64, RT_TABLE_MAIN);
	struct in6_addr want = a6("fc01::");

	routemsg_put_seg6(nlh, SEG6_IPTUN_MODE_ENCAP, AB, 2, 0);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_ptr_null(r.unsupported);
	ck_assert_int_eq(r.kind, SEG6ROUTE_POLICY);
	ck_assert_uint_eq(r.table, RT_TABLE_MAIN);
	ck_assert_uint_eq(r.priority, 1024);
	ck_assert_int_eq(r.pol.family, AF_INET6);
	ck_assert_uint_eq(r.pol.plen, 64);
	ck_assert(IN6_ARE_ADDR_EQUAL(&r.pol.prefix.v6, &want));	/* masked */
	ck_assert_int_eq(r.pol.mode, ENCAP_MODE_ENCAP);
	ck_assert_uint_eq(r.pol.nlists, 1);
	ck_assert_uint_eq(r.pol.weights[0], 1);
	ck_assert_uint_eq(r.pol.hmac_keyid, 0);
	ck_assert_uint_eq(r.pol.ktable, RT_TABLE_MAIN);
	ck_assert_uint_eq(r.pol.line, 0);
	assert_ab(&r.pol.lists[0]);
}
END_TEST

START_TEST(encap_modes)
{
	struct nlmsghdr *nlh;

	/* inline: iproute2's free slot at segments[0] is not a segment */
	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc01::", 64, 100);
	routemsg_put_seg6(nlh, SEG6_IPTUN_MODE_INLINE, AB, 2, 0);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_ptr_null(r.unsupported);
	ck_assert_int_eq(r.pol.mode, ENCAP_MODE_INLINE);
	ck_assert_uint_eq(r.table, 100);
	ck_assert_uint_eq(r.pol.ktable, 100);
	assert_ab(&r.pol.lists[0]);

	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET, "10.1.2.3", 24,
			      RT_TABLE_MAIN);
	routemsg_put_seg6(nlh, SEG6_IPTUN_MODE_ENCAP_RED, AB, 2, 0);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_ptr_null(r.unsupported);
	ck_assert_int_eq(r.pol.family, AF_INET);
	ck_assert_uint_eq(ntohl(r.pol.prefix.v4.s_addr), 0x0a010200);
	ck_assert_int_eq(r.pol.mode, ENCAP_MODE_ENCAP_RED);
	assert_ab(&r.pol.lists[0]);

	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc01::", 64,
			      RT_TABLE_MAIN);
	routemsg_put_seg6(nlh, SEG6_IPTUN_MODE_L2ENCAP, AB, 2, 0);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_str_eq(r.unsupported,
			 "mode l2encap (srv6d has no L2 encapsulation)");
}
END_TEST

START_TEST(encap_hmac)
{
	struct nlmsghdr *nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc07::",
					       64, RT_TABLE_MAIN);

	routemsg_put_seg6(nlh, SEG6_IPTUN_MODE_ENCAP, AB, 1, 7);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_ptr_null(r.unsupported);
	ck_assert_uint_eq(r.pol.hmac_keyid, 7);
	ck_assert_uint_eq(r.pol.lists[0].nsegs, 1);
}
END_TEST

/* Two seg6 next hops, weights 1 and 3 (rtnh_hops 0 and 2). */
START_TEST(encap_multipath)
{
	struct nlmsghdr *nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc01::",
					       64, RT_TABLE_MAIN);
	static const char *const C[] = { "fc00::c" };
	struct nlattr *mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);

	for (int i = 0; i < 2; i++) {
		struct rtnexthop *nh = routemsg_nexthop_start(nlh, 2,
							      1 + i * 2);

		routemsg_put_seg6(nlh, SEG6_IPTUN_MODE_ENCAP, i ? C : AB,
				  i ? 1 : 2, 0);
		routemsg_nexthop_end(nlh, nh);
	}
	mnl_attr_nest_end(nlh, mp);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_ptr_null(r.unsupported);
	ck_assert_uint_eq(r.pol.nlists, 2);
	ck_assert_uint_eq(r.pol.weights[0], 1);
	ck_assert_uint_eq(r.pol.weights[1], 3);
	assert_ab(&r.pol.lists[0]);
	ck_assert_uint_eq(r.pol.lists[1].nsegs, 1);
}
END_TEST

START_TEST(local_end_x)
{
	struct nlmsghdr *nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6,
					       "fc00:1::2", 128, RT_TABLE_MAIN);
	struct nlattr *e = routemsg_seg6local_start(nlh,
					SEG6_LOCAL_ACTION_END_X), *f;
	struct in6_addr nh = a6("fc00:12::2");

	mnl_attr_put(nlh, SEG6_LOCAL_NH6, 16, &nh);
	f = mnl_attr_nest_start(nlh, SEG6_LOCAL_FLAVORS);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_FLV_OPERATION,
			 1u << SEG6_LOCAL_FLV_OP_PSP);
	mnl_attr_nest_end(nlh, f);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_OIF, 5);
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_ptr_null(r.unsupported);
	ck_assert_int_eq(r.kind, SEG6ROUTE_SID);
	ck_assert_int_eq(r.sid.behavior, BHV_END_X);
	ck_assert_uint_eq(r.sid.plen, 128);
	ck_assert(IN6_ARE_ADDR_EQUAL(&r.sid.nh6, &nh));
	ck_assert_uint_eq(r.sid.flavors, FLV_PSP);
	ck_assert_uint_eq(r.sid_oif, 5);
	ck_assert_uint_eq(r.sid.ktable, RT_TABLE_MAIN);
}
END_TEST

START_TEST(local_tables_and_csid)
{
	struct nlmsghdr *nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6,
					       "fc00:1::", 64, RT_TABLE_MAIN);
	struct nlattr *e = routemsg_seg6local_start(nlh,
					SEG6_LOCAL_ACTION_END_DT6), *f;

	mnl_attr_put_u32(nlh, SEG6_LOCAL_VRFTABLE, 100);
	mnl_attr_put(nlh, SEG6_LOCAL_COUNTERS, 0, NULL);	/* ignored */
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_ptr_null(r.unsupported);
	ck_assert_int_eq(r.sid.behavior, BHV_END_DT6);
	ck_assert_uint_eq(r.sid.table, 100);
	ck_assert(r.sid.vrf);

	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc00:1:2::", 48,
			      RT_TABLE_MAIN);
	e = routemsg_seg6local_start(nlh, SEG6_LOCAL_ACTION_END);
	f = mnl_attr_nest_start(nlh, SEG6_LOCAL_FLAVORS);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_FLV_OPERATION,
			 1u << SEG6_LOCAL_FLV_OP_NEXT_CSID);
	mnl_attr_put_u8(nlh, SEG6_LOCAL_FLV_LCBLOCK_BITS, 32);
	mnl_attr_put_u8(nlh, SEG6_LOCAL_FLV_LCNODE_FN_BITS, 16);
	mnl_attr_nest_end(nlh, f);
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_ptr_null(r.unsupported);
	ck_assert_uint_eq(r.sid.flavors, FLV_NEXT_CSID);
	ck_assert_uint_eq(r.sid.lblen, 32);
	ck_assert_uint_eq(r.sid.nflen, 16);

	/* /40 is shorter than 32 + 16: srv6d refuses it as its config would */
	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc00:1::", 40,
			      RT_TABLE_MAIN);
	e = routemsg_seg6local_start(nlh, SEG6_LOCAL_ACTION_END);
	f = mnl_attr_nest_start(nlh, SEG6_LOCAL_FLAVORS);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_FLV_OPERATION,
			 1u << SEG6_LOCAL_FLV_OP_NEXT_CSID);
	mnl_attr_nest_end(nlh, f);
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_str_eq(r.unsupported, "NEXT-C-SID lengths srv6d cannot use");
}
END_TEST

START_TEST(local_dx4_dx2)
{
	struct nlmsghdr *nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6,
					       "fc00:1::4", 128, RT_TABLE_MAIN);
	struct nlattr *e = routemsg_seg6local_start(nlh,
					SEG6_LOCAL_ACTION_END_DX4);
	struct in_addr nh4 = { htonl(0x0a000001) };

	mnl_attr_put(nlh, SEG6_LOCAL_NH4, 4, &nh4);
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_ptr_null(r.unsupported);
	ck_assert_int_eq(r.sid.behavior, BHV_END_DX4);
	ck_assert_uint_eq(r.sid.nh4.s_addr, nh4.s_addr);

	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc00:1::5", 128,
			      RT_TABLE_MAIN);
	e = routemsg_seg6local_start(nlh, SEG6_LOCAL_ACTION_END_DX2);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_OIF, 9);
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_ptr_null(r.unsupported);
	ck_assert_int_eq(r.sid.behavior, BHV_END_DX2);
	ck_assert_uint_eq(r.sid_oif, 9);
}
END_TEST

START_TEST(local_binding)
{
	struct nlmsghdr *nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6,
					       "fc00:1::b6", 128,
					       RT_TABLE_MAIN);
	struct nlattr *e = routemsg_seg6local_start(nlh,
					SEG6_LOCAL_ACTION_END_B6_ENCAP);
	uint8_t srh[128];
	size_t len = routemsg_srh(srh, AB, 2, false, 0);

	mnl_attr_put(nlh, SEG6_LOCAL_SRH, len, srh);
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_ptr_null(r.unsupported);
	ck_assert_int_eq(r.sid.behavior, BHV_END_B6_ENCAPS);
	ck_assert(r.pol.binding);
	ck_assert_int_eq(r.pol.mode, ENCAP_MODE_ENCAP);
	assert_ab(&r.pol.lists[0]);

	/* End.B6 inserts: the SRH has the free slot */
	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc00:1::b7", 128,
			      RT_TABLE_MAIN);
	e = routemsg_seg6local_start(nlh, SEG6_LOCAL_ACTION_END_B6);
	len = routemsg_srh(srh, AB, 2, true, 0);
	mnl_attr_put(nlh, SEG6_LOCAL_SRH, len, srh);
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_ptr_null(r.unsupported);
	ck_assert_int_eq(r.pol.mode, ENCAP_MODE_INLINE);
	assert_ab(&r.pol.lists[0]);
}
END_TEST

START_TEST(local_unsupported)
{
	struct nlmsghdr *nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6,
					       "fc00:1::f", 128, RT_TABLE_MAIN);
	struct nlattr *e = routemsg_seg6local_start(nlh,
					SEG6_LOCAL_ACTION_END_BPF);

	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_str_eq(r.unsupported, "action End.BPF (srv6d runs no BPF)");

	/* End.T takes no NEXT-C-SID in srv6d (RFC 9800: End and End.X) */
	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc00:1::", 64,
			      RT_TABLE_MAIN);
	e = routemsg_seg6local_start(nlh, SEG6_LOCAL_ACTION_END_T);
	mnl_attr_put_u32(nlh, SEG6_LOCAL_TABLE, 100);
	{
		struct nlattr *f = mnl_attr_nest_start(nlh, SEG6_LOCAL_FLAVORS);

		mnl_attr_put_u32(nlh, SEG6_LOCAL_FLV_OPERATION,
				 1u << SEG6_LOCAL_FLV_OP_NEXT_CSID);
		mnl_attr_nest_end(nlh, f);
	}
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);
	ck_assert_str_eq(r.unsupported,
			 "a flavor srv6d does not take with its action");
}
END_TEST

START_TEST(not_srv6_and_malformed)
{
	struct nlmsghdr *nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc01::",
					       64, RT_TABLE_MAIN);
	struct nlattr *e;

	ck_assert_int_eq(seg6route_parse(nlh, &r), 0);
	/* seg6 without SEG6_IPTUNNEL_SRH */
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6);
	e = mnl_attr_nest_start(nlh, RTA_ENCAP);
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), -EINVAL);
	/* seg6local on IPv4 */
	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET, "10.0.0.0", 8,
			      RT_TABLE_MAIN);
	e = routemsg_seg6local_start(nlh, SEG6_LOCAL_ACTION_END);
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), -EINVAL);
}
END_TEST

/* srv6d's own routes (protocol RTPROT_SRV6D: kernel-end's seg6local End
 * in its table, kernel-encap's seg6) are not SRv6 routes to take in: not
 * parsed, and a route that becomes srv6d's leaves the set. */
START_TEST(own_routes_left_out)
{
	struct seg6route_set *set = seg6route_set_new();
	struct nlmsghdr *nlh;
	struct nlattr *e;

	ck_assert_ptr_nonnull(set);
	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc00:100::1", 128,
			      0x5d6fffff);
	e = routemsg_seg6local_start(nlh, SEG6_LOCAL_ACTION_END);
	mnl_attr_nest_end(nlh, e);
	ck_assert_int_eq(seg6route_parse(nlh, &r), 1);	/* proto boot */
	ck_assert_int_eq(seg6route_set_apply(set, nlh, 1), 1);
	((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_protocol =
		RTPROT_SRV6D;
	ck_assert_int_eq(seg6route_parse(nlh, &r), 0);
	ck_assert_int_eq(seg6route_set_apply(set, nlh, 1), 1);	/* removed */
	ck_assert_uint_eq(seg6route_set_count(set), 0);
	ck_assert_int_eq(seg6route_set_apply(set, nlh, 2), 0);
	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "::", 0, 0x5d6ffffe);
	routemsg_put_seg6(nlh, SEG6_IPTUN_MODE_ENCAP, AB, 2, 0);
	((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_protocol =
		RTPROT_SRV6D;
	ck_assert_int_eq(seg6route_parse(nlh, &r), 0);
	ck_assert_int_eq(seg6route_set_apply(set, nlh, 2), 0);
	seg6route_set_free(set);
}
END_TEST

static struct nlmsghdr *policy_msg(uint16_t type, const char *dst,
				   const char *const *segs, unsigned n)
{
	struct nlmsghdr *nlh = routemsg_kernel(type, AF_INET6, dst, 64,
					       RT_TABLE_MAIN);

	if (segs)
		routemsg_put_seg6(nlh, SEG6_IPTUN_MODE_ENCAP, segs, n, 0);
	return nlh;
}

START_TEST(set_changes)
{
	struct seg6route_set *set = seg6route_set_new();
	static const char *const C[] = { "fc00::c" };
	struct nlmsghdr **msgs, *nlh;
	long n;

	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(seg6route_set_apply(set, policy_msg(RTM_NEWROUTE,
				"fc02::", AB, 2), 1), 1);
	ck_assert_int_eq(seg6route_set_apply(set, policy_msg(RTM_NEWROUTE,
				"fc01::", AB, 2), 1), 1);
	/* the same route again (a dump): no change */
	ck_assert_int_eq(seg6route_set_apply(set, policy_msg(RTM_NEWROUTE,
				"fc01::", AB, 2), 2), 0);
	/* a replace with another segment list */
	ck_assert_int_eq(seg6route_set_apply(set, policy_msg(RTM_NEWROUTE,
				"fc01::", C, 1), 2), 1);
	ck_assert_uint_eq(seg6route_set_count(set), 2);
	n = seg6route_set_snapshot(set, &msgs);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(seg6route_parse(msgs[0], &r), 1);	/* fc01:: first */
	ck_assert_uint_eq(r.pol.lists[0].nsegs, 1);
	ck_assert_int_eq(seg6route_parse(msgs[1], &r), 1);
	assert_ab(&r.pol.lists[0]);
	seg6route_snapshot_free(msgs, (size_t)n);
	/* fc02:: was not seen in gen 2's dump */
	ck_assert_uint_eq(seg6route_set_sweep(set, 2), 1);
	/* replaced by a plain route: out of the set */
	ck_assert_int_eq(seg6route_set_apply(set, policy_msg(RTM_NEWROUTE,
				"fc01::", NULL, 0), 3), 1);
	ck_assert_uint_eq(seg6route_set_count(set), 0);
	/* an MPLS route (family 28): not an error, not SRv6 */
	nlh = policy_msg(RTM_NEWROUTE, "fc01::", AB, 2);
	((struct rtmsg *)mnl_nlmsg_get_payload(nlh))->rtm_family = 28;
	ck_assert_int_eq(seg6route_set_apply(set, nlh, 3), 0);
	ck_assert_int_eq(seg6route_set_apply(set, policy_msg(RTM_DELROUTE,
				"fc01::", AB, 2), 3), 0);
	/* many: the buckets grow */
	for (unsigned i = 0; i < 300; i++) {
		char p[64];

		snprintf(p, sizeof(p), "fc03:%x::", i);
		ck_assert_int_eq(seg6route_set_apply(set, policy_msg(RTM_NEWROUTE,
					p, AB, 2), 4), 1);
	}
	ck_assert_int_eq(seg6route_set_apply(set, policy_msg(RTM_DELROUTE,
				"fc03:7::", AB, 2), 4), 1);
	ck_assert_uint_eq(seg6route_set_count(set), 299);
	ck_assert_uint_eq(seg6route_set_clear(set), 299);
	seg6route_set_free(set);
}
END_TEST

static Suite *seg6route_suite(void)
{
	Suite *s = suite_create("seg6route");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, encap_policy);
	tcase_add_test(tc, encap_modes);
	tcase_add_test(tc, encap_hmac);
	tcase_add_test(tc, encap_multipath);
	tcase_add_test(tc, local_end_x);
	tcase_add_test(tc, local_tables_and_csid);
	tcase_add_test(tc, local_dx4_dx2);
	tcase_add_test(tc, local_binding);
	tcase_add_test(tc, local_unsupported);
	tcase_add_test(tc, not_srv6_and_malformed);
	tcase_add_test(tc, set_changes);
	tcase_add_test(tc, own_routes_left_out);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(seg6route_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
