/* check_egress.c - the packet path against the route mirror: Packet Too
 * Big / Fragmentation Needed at the headend, End.X's next hop, End.T's
 * table, End.DT6's routes, and the outer source without encap-source.
 * The mirror is fed hand-made rtnetlink messages; the expected errors were
 * built with scapy (checksums included). */
#include <arpa/inet.h>
#include <check.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_ether.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "gso.h"
#include "runstate.h"
#include "kencap.h"
#include "kencap_routes.h"
#include "nfq.h"
#include "pktsock.h"
#include "process.h"
#include "reinject.h"
#include "rtmirror.h"
#include "segment.h"
#include "testutil.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP	0x10000
#endif
#define UP	(IFF_UP | IFF_LOWER_UP | IFF_RUNNING)

static uint8_t nlbuf[8192];

static const char conf[] =
	"queue 0\n"
	"encap-source fc00:1::2\n"
	"icmp-rate 1000\n"
	"icmp-burst 100\n"
	"sid fc00:100::5 action End.X nh6 fc00:3::2\n"
	"sid fc00:100::7 action End.T table 77\n"
	"sid fc00:100::6 action End.DT6 table 100\n"
	"sid fc00:100::8 action End\n"
	"route fc00:9:e1::/48 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2\n"
	"route 10.9.1.0/24 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2\n"
	"route fc00:9:e3::/48 encap seg6 mode encap segs fc00:8::c1\n"
	"sid fc00:100::b action End.B6.Encaps srh segs fc00:9::a1 weight 1 "
	"segs fc00:7::b1 weight 1\n";

static const char conf_nosrc[] =
	"queue 0\n"
	"route fc00:9:e1::/48 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2\n"
	"route fc00:9:e2::/48 encap seg6 mode inline segs fc00:9::c1\n"
	"route fc00:9:e3::/48 encap seg6 mode encap segs fc00:8::c1\n";

static struct config *cfg;
static struct runstate *rs;	/* cfg's, as runstate_new() gives it */
static struct rtmirror *m;
static struct worker_stats ws;
static struct sid_stats sids[8], pols[8];
static struct proc_ctx ctx;
static struct test_slot slot;

static void link_set(int ifindex, const char *name, unsigned flags,
		     uint32_t mtu)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

static void addr_set(uint16_t type, int ifindex, const char *addr,
		     unsigned plen, uint8_t scope)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	struct in6_addr a;

	nlh->nlmsg_type = type;
	ifa->ifa_family = AF_INET6;
	ifa->ifa_prefixlen = (uint8_t)plen;
	ifa->ifa_scope = scope;
	ifa->ifa_index = (uint32_t)ifindex;
	ck_assert_int_eq(inet_pton(AF_INET6, addr, &a), 1);
	mnl_attr_put(nlh, IFA_ADDRESS, 16, &a);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

static void addr4_set(uint16_t type, int ifindex, const char *addr,
		      unsigned plen, uint8_t scope)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	struct in_addr a;

	nlh->nlmsg_type = type;
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = (uint8_t)plen;
	ifa->ifa_scope = scope;
	ifa->ifa_index = (uint32_t)ifindex;
	ck_assert_int_eq(inet_pton(AF_INET, addr, &a), 1);
	mnl_attr_put(nlh, IFA_LOCAL, 4, &a);
	mnl_attr_put(nlh, IFA_ADDRESS, 4, &a);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

/* An IPv4 route dst/plen in the main table dev oif, with a preferred
 * source (NULL: none). */
static void route4(uint16_t type, const char *dst, unsigned plen,
		   uint32_t oif, const char *prefsrc)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	struct in_addr a;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = type == RTM_NEWROUTE ? NLM_F_REPLACE : 0;
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = (uint8_t)plen;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_KERNEL;
	rtm->rtm_scope = RT_SCOPE_LINK;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_TABLE, RT_TABLE_MAIN);
	ck_assert_int_eq(inet_pton(AF_INET, dst, &a), 1);
	mnl_attr_put(nlh, RTA_DST, 4, &a);
	if (prefsrc) {
		ck_assert_int_eq(inet_pton(AF_INET, prefsrc, &a), 1);
		mnl_attr_put(nlh, RTA_PREFSRC, 4, &a);
	}
	mnl_attr_put_u32(nlh, RTA_OIF, oif);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

/* An IPv6 route dst/plen in table via gw (NULL: none) dev oif, with an
 * MTU metric and a preferred source (NULL: none). */
static void route6(uint16_t type, const char *dst, unsigned plen,
		   uint32_t table, const char *gw, uint32_t oif, uint32_t mtu,
		   const char *prefsrc)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	struct in6_addr a;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = type == RTM_NEWROUTE ? NLM_F_REPLACE : 0;
	rtm->rtm_family = AF_INET6;
	rtm->rtm_dst_len = (uint8_t)plen;
	rtm->rtm_table = table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	ck_assert_int_eq(inet_pton(AF_INET6, dst, &a), 1);
	mnl_attr_put(nlh, RTA_DST, 16, &a);
	if (gw) {
		ck_assert_int_eq(inet_pton(AF_INET6, gw, &a), 1);
		mnl_attr_put(nlh, RTA_GATEWAY, 16, &a);
	}
	if (prefsrc) {
		ck_assert_int_eq(inet_pton(AF_INET6, prefsrc, &a), 1);
		mnl_attr_put(nlh, RTA_PREFSRC, 16, &a);
	}
	mnl_attr_put_u32(nlh, RTA_OIF, oif);
	if (mtu) {
		struct nlattr *mx = mnl_attr_nest_start(nlh, RTA_METRICS);

		mnl_attr_put_u32(nlh, RTAX_MTU, mtu);
		mnl_attr_nest_end(nlh, mx);
	}
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

/* Append a multipath next hop via gw dev oif (weight 1) to an open
 * RTA_MULTIPATH. */
static void nexthop_put(struct nlmsghdr *nlh, const char *gw, uint32_t oif)
{
	struct rtnexthop *rtnh = mnl_nlmsg_get_payload_tail(nlh);
	struct in6_addr a;

	memset(rtnh, 0, sizeof(*rtnh));
	nlh->nlmsg_len += MNL_ALIGN(sizeof(*rtnh));
	rtnh->rtnh_ifindex = (int)oif;
	ck_assert_int_eq(inet_pton(AF_INET6, gw, &a), 1);
	mnl_attr_put(nlh, RTA_GATEWAY, 16, &a);
	rtnh->rtnh_len = (unsigned short)((uint8_t *)mnl_nlmsg_get_payload_tail(nlh) -
					  (uint8_t *)rtnh);
}

/* Link 5 core2 (MTU 1400, fc00:5::1/64); fc00:8::/32 by ECMP via fe80::1
 * dev core (listed first: the next hop of flow hash 0) and via fe80::5
 * dev core2; fc00:7::/32 via fe80::5 dev core2 only. */
static void ecmp_build(void)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	struct nlattr *mp;
	struct in6_addr a;

	link_set(5, "core2", UP, 1400);
	addr_set(RTM_NEWADDR, 5, "fc00:5::1", 64, RT_SCOPE_UNIVERSE);
	route6(RTM_NEWROUTE, "fc00:7::", 32, RT_TABLE_MAIN, "fe80::5", 5, 0,
	       NULL);
	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_flags = NLM_F_REPLACE;
	rtm->rtm_family = AF_INET6;
	rtm->rtm_dst_len = 32;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_TABLE, RT_TABLE_MAIN);
	ck_assert_int_eq(inet_pton(AF_INET6, "fc00:8::", &a), 1);
	mnl_attr_put(nlh, RTA_DST, 16, &a);
	mp = mnl_attr_nest_start(nlh, RTA_MULTIPATH);
	nexthop_put(nlh, "fe80::1", 2);
	nexthop_put(nlh, "fe80::5", 5);
	mnl_attr_nest_end(nlh, mp);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

/* Links 1 lo, 2 core (MTU 1500, to the segments), 3 adj (End.X's nh6),
 * 4 edge (the senders: fc00:1::/64, 192.0.2.0/24); fc00:9::/32 via
 * fe80::1 dev core, fc00:3::/64 dev adj, and table 100 with
 * 2001:db8:6::/48 only. */
static void mirror_build(void)
{
	m = rtmirror_new(NULL);
	ck_assert_ptr_nonnull(m);
	link_set(1, "lo", UP | IFF_LOOPBACK, 65536);
	link_set(2, "core", UP, 1500);
	link_set(3, "adj", UP, 1500);
	addr_set(RTM_NEWADDR, 1, "fc00:ff::1", 128, RT_SCOPE_UNIVERSE);
	addr_set(RTM_NEWADDR, 2, "fe80::2", 64, RT_SCOPE_LINK);
	addr_set(RTM_NEWADDR, 2, "fc00:2::1", 64, RT_SCOPE_UNIVERSE);
	route6(RTM_NEWROUTE, "fc00:9::", 32, RT_TABLE_MAIN, "fe80::1", 2, 0,
	       NULL);
	route6(RTM_NEWROUTE, "fc00:3::", 64, RT_TABLE_MAIN, NULL, 3, 0, NULL);
	route6(RTM_NEWROUTE, "2001:db8:6::", 48, 100, NULL, 2, 0, NULL);
	link_set(4, "edge", UP, 1500);
	addr_set(RTM_NEWADDR, 4, "fc00:1::2", 64, RT_SCOPE_UNIVERSE);
	addr4_set(RTM_NEWADDR, 1, "127.0.0.1", 8, RT_SCOPE_HOST);
	addr4_set(RTM_NEWADDR, 2, "10.0.2.1", 24, RT_SCOPE_UNIVERSE);
	addr4_set(RTM_NEWADDR, 4, "192.0.2.2", 24, RT_SCOPE_UNIVERSE);
	route6(RTM_NEWROUTE, "fc00:1::", 64, RT_TABLE_MAIN, NULL, 4, 0, NULL);
	route4(RTM_NEWROUTE, "192.0.2.0", 24, 4, NULL);
}

static void setup_with(const char *text, size_t len)
{
	cfg = config_parse_buffer("t.conf", text, len, NULL, NULL);
	ck_assert_ptr_nonnull(cfg);
	rs = runstate_new(cfg);
	ck_assert_ptr_nonnull(rs);
	mirror_build();
	memset(&ws, 0, sizeof(ws));
	memset(sids, 0, sizeof(sids));
	memset(pols, 0, sizeof(pols));
	memset(&ctx, 0, sizeof(ctx));
	ctx.cfg = cfg;
	ctx.rs = rs;
	ctx.mirror = m;
	ctx.stats = &ws;
	ctx.sid_stats = sids;
	ctx.policy_stats = pols;
	ctx.icmp_rl.tokens_milli = (uint64_t)cfg->icmp_burst * 1000;
}

static void setup(void)
{
	setup_with(conf, sizeof(conf) - 1);
}

static void setup_nosrc(void)
{
	setup_with(conf_nosrc, sizeof(conf_nosrc) - 1);
}

static void teardown(void)
{
	rtmirror_free(m);
	runstate_free(rs);
	config_free(cfg);
}

/* hex + `fill` up to total bytes. */
static struct pkt *packet(const char *hex, uint8_t fill, size_t total,
			  uint16_t hw_proto, uint8_t *bytes)
{
	size_t n = hex2bin(hex, bytes, 2048);

	memset(bytes + n, fill, total > n ? total - n : 0);
	return test_pkt(&slot, bytes, total > n ? total : n, hw_proto);
}

/* The bytes of an error: its headers (hex), then the first bytes of the
 * invoking packet `in` up to total. */
static void expect_error(const struct pkt *p, const char *hdr_hex,
			 const uint8_t *in, size_t total)
{
	uint8_t want[2048];
	size_t n = hex2bin(hdr_hex, want, sizeof(want));

	memcpy(want + n, in, total - n);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert(!p->set_mark);
	ck_assert_bytes(p->data, p->len, want, total);
}

#define IN6_HDR "60000000058c1140fc000001000000000000000000000001" \
		"fc00000900e10000000000000000000104d2162e058c7178"
/* From fc00:1::2, the address the kernel picks for fc00:1::1 (the edge
 * link's), not from the steered packet's remote destination. */
#define PTB6_HDR "6000000004d83a40fc000001000000000000000000000002" \
		 "fc0000010000000000000000000000010200fc9d0000058c"
#define PTB6_1320_HDR "6000000004d83a40fc000001000000000000000000000002" \
		      "fc0000010000000000000000000000010200fd0100000528"
#define IN4_HDR "450005b40007400040116827c00002010a09010104d2162e05a07107"
/* From 192.0.2.2 (the edge link's), then 192.0.2.9 (a route's prefsrc),
 * then 10.0.2.1 (another link's: no route, no address on the ingress). */
#define FN4_HDR "45000240000000004001f4b9c0000202c0000201030460c30000058c"
#define FN4_PREFSRC_HDR \
	"45000240000000004001f4b2c0000209c0000201030460c30000058c"
#define FN4_OTHER_HDR \
	"45000240000000004001aabb0a000201c0000201030460c30000058c"

/* RFC 4443 3.2: 1460 bytes + 80 of H.Encaps > MTU 1500: Packet Too Big,
 * MTU 1420, to the source, the invoking packet cut to fit 1280 bytes,
 * from an address of this node (RFC 4443 2.2). */
START_TEST(test_ptb6)
{
	static uint8_t in[1460];
	struct pkt *p = packet(IN6_HDR, 0xab, sizeof(in), ETH_P_IPV6, in);

	srv6_process(&ctx, p);
	expect_error(p, PTB6_HDR, in, 1280);
	ck_assert_uint_eq(pols[0].drops[DROP_TOO_BIG], 1);
	ck_assert_uint_eq(pols[0].errors, 1);
	ck_assert_uint_eq(pols[0].packets, 0);
	ck_assert_uint_eq(ws.icmp_sent, 1);

	/* The route's MTU metric wins over the link's: 1400 - 80. */
	route6(RTM_NEWROUTE, "fc00:9::", 32, RT_TABLE_MAIN, "fe80::1", 2,
	       1400, NULL);
	p = packet(IN6_HDR, 0xab, sizeof(in), ETH_P_IPV6, in);
	srv6_process(&ctx, p);
	expect_error(p, PTB6_1320_HDR, in, 1280);

	/* 1420 bytes fit exactly: encapsulated (1500 bytes). */
	route6(RTM_NEWROUTE, "fc00:9::", 32, RT_TABLE_MAIN, "fe80::1", 2, 0,
	       NULL);
	p = packet(IN6_HDR, 0xab, 1420, ETH_P_IPV6, in);
	p->data[5] = 0x64;	/* payload length 1380 */
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->len, 1500);
	ck_assert_uint_eq(pols[0].packets, 1);
}
END_TEST

/* A 9000-byte TCP super-packet to the same steered destination. */
#define IN6_TCP_HDR "6000000023000640fc000001000000000000000000000001" \
		    "fc00000900e100000000000000000001" \
		    "04d2162e00000001000000005010020000000000"

/* Issue 10: the MTU judges a super-packet (GSO) by its segments (headers
 * + gso_size), not by its length.  NFQUEUE never says the sender's
 * segment size: the headend chooses the largest that fits the egress MTU
 * with the 80 bytes it pushes (1500 - 80 - 60 = 1360), and the way out
 * cuts it so.  Judged by its 9000 bytes, it got Packet Too Big. */
START_TEST(test_ptb6_gso_segment_size)
{
	static uint8_t in[9000];
	struct pkt *sp = packet(IN6_TCP_HDR, 0xab, sizeof(in), ETH_P_IPV6,
				in);

	sp->gso = true;
	srv6_process(&ctx, sp);
	ck_assert_msg(sp->verdict == PKT_NEW_BYTES, "verdict %d reason %s",
		      sp->verdict, drop_reason_name(sp->reason));
	ck_assert_uint_eq(sp->len, 9000 + 80);
	ck_assert_uint_eq(sp->facts.gso_size, 1360);
	ck_assert(!sp->facts.gso_size_in);	/* no in-interface known */
	ck_assert_uint_eq(pols[0].drops[DROP_TOO_BIG], 0);
	ck_assert_uint_eq(pols[0].packets, 1);

	/* In on a link of MTU 1400: the sender's segments (at most 1340)
	 * fit the egress with the 80 bytes pushed, gso_size is the
	 * in-interface's (gso_size_in: the original may go as it came,
	 * headend_kernel_facts()).  In on one of 1500: cut to 1360 for the
	 * egress, not the in-interface's. */
	link_set(6, "in1400", UP, 1400);
	for (unsigned i = 0; i < 2; i++) {
		struct pkt *p = packet(IN6_TCP_HDR, 0xab, sizeof(in),
				       ETH_P_IPV6, in);

		p->gso = true;
		p->indev = i ? 4 : 6;
		srv6_process(&ctx, p);
		ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
		ck_assert_uint_eq(p->facts.gso_size, i ? 1360 : 1340);
		ck_assert(p->facts.gso_size_in == !i);
	}

	/* Not a super-packet: judged by its length, as before. */
	srv6_process(&ctx, packet(IN6_TCP_HDR, 0xab, sizeof(in), ETH_P_IPV6,
				  in));
	ck_assert_uint_eq(pols[0].drops[DROP_TOO_BIG], 1);
}
END_TEST

/* RFC 1191: an IPv4 DF packet gets Fragmentation Needed, next-hop MTU
 * 1420, the invoking packet cut to fit 576 bytes. */
START_TEST(test_frag_needed4)
{
	static uint8_t in[1460];
	struct pkt *p = packet(IN4_HDR, 0xcd, sizeof(in), ETH_P_IP, in);

	enum drop_reason r = DROP__COUNT;

	srv6_process(&ctx, p);
	expect_error(p, FN4_HDR, in, 576);
	ck_assert_uint_eq(pols[1].drops[DROP_TOO_BIG], 1);
	ck_assert_uint_eq(ws.drops[DROP_TOO_BIG], 1);
	/* From gw's own address: sent as a local packet, never the
	 * verdict (back from PREROUTING it would be a martian). */
	ck_assert(p->local_out);
	ck_assert_int_eq(reinject_decide(ctx.cfg, ctx.rs, NULL, p, &r), REINJECT_LOCAL);
}
END_TEST

/* RFC 1812 4.3.2.4: the source of Fragmentation Needed is an address of
 * this node, picked as the kernel's __icmp_send() does for a forwarded
 * packet (so the sender's rp_filter accepts it): the route to the
 * sender's prefsrc; without a route, the ingress link's address; with
 * none there, any universe-scope one (never 127.0.0.1); with none at
 * all, a counted drop and no error. */
START_TEST(test_frag_needed4_source)
{
	static uint8_t in[1460];
	struct pkt *p;

	route4(RTM_NEWROUTE, "192.0.2.0", 24, 4, "192.0.2.9");
	p = packet(IN4_HDR, 0xcd, sizeof(in), ETH_P_IP, in);
	srv6_process(&ctx, p);
	expect_error(p, FN4_PREFSRC_HDR, in, 576);

	route4(RTM_DELROUTE, "192.0.2.0", 24, 4, "192.0.2.9");
	p = packet(IN4_HDR, 0xcd, sizeof(in), ETH_P_IP, in);
	p->indev = 4;
	srv6_process(&ctx, p);
	expect_error(p, FN4_HDR, in, 576);

	addr4_set(RTM_DELADDR, 4, "192.0.2.2", 24, RT_SCOPE_UNIVERSE);
	p = packet(IN4_HDR, 0xcd, sizeof(in), ETH_P_IP, in);
	p->indev = 4;
	srv6_process(&ctx, p);
	expect_error(p, FN4_OTHER_HDR, in, 576);
	ck_assert_uint_eq(ws.icmp_sent, 3);

	addr4_set(RTM_DELADDR, 2, "10.0.2.1", 24, RT_SCOPE_UNIVERSE);
	p = packet(IN4_HDR, 0xcd, sizeof(in), ETH_P_IP, in);
	p->indev = 4;
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.icmp_sent, 3);
	ck_assert_uint_eq(pols[1].drops[DROP_TOO_BIG], 4);
	ck_assert_uint_eq(pols[1].errors, 4);
}
END_TEST

#define INX "6000000000342b40fc000001000000000000000000000001fc000100000000" \
	    "0000000000000000051104040101000000fc0000090000000000000000000000" \
	    "c2fc00010000000000000000000000000500010002000c3d1e656e6478"
#define UNREACH_HDR(code, ck) "6000000000643a40fc00010000000000000000000000" \
	"0005fc000001000000000000000000000001010" code ck "00000000"

/* End.X: nh6's link without carrier, then no route to nh6: ICMPv6
 * Destination Unreachable, code 3 then code 0; with both, forwarded. */
START_TEST(test_end_x_nexthop)
{
	uint8_t in[256];
	struct pkt *p;
	size_t n;

	link_set(3, "adj", IFF_UP, 1500);	/* no carrier */
	p = packet(INX, 0, 0, ETH_P_IPV6, in);
	n = p->len;
	srv6_process(&ctx, p);
	expect_error(p, UNREACH_HDR("3", "69ed"), in, 48 + n);
	ck_assert_uint_eq(sids[0].drops[DROP_NEXTHOP_UNREACHABLE], 1);

	link_set(3, "adj", UP, 1500);
	route6(RTM_DELROUTE, "fc00:3::", 64, RT_TABLE_MAIN, NULL, 3, 0, NULL);
	p = packet(INX, 0, 0, ETH_P_IPV6, in);
	srv6_process(&ctx, p);
	expect_error(p, UNREACH_HDR("0", "69f0"), in, 48 + n);
	ck_assert_uint_eq(sids[0].drops[DROP_NO_ROUTE], 1);
	ck_assert_uint_eq(sids[0].errors, 2);

	route6(RTM_NEWROUTE, "fc00:3::", 64, RT_TABLE_MAIN, NULL, 3, 0, NULL);
	p = packet(INX, 0, 0, ETH_P_IPV6, in);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert(p->set_mark);
	ck_assert_uint_eq(p->out_mark, rs->sids[0].mark);
	ck_assert_uint_eq(p->data[43], 0);	/* Segments Left 1 -> 0 */
	ck_assert_uint_eq(sids[0].packets, 1);
}
END_TEST

/* End.X with oif: its link is the one rule installation resolved, read
 * from the generation's struct sid_runtime table (rtrules.h), not from
 * the config.  Unknown (no table, or index 0) is nexthop_unreachable;
 * adj (3) up, forwarded; adj without carrier, unreachable again. */
START_TEST(test_end_x_oif_runtime)
{
	static const char text[] =
		"queue 0\nencap-source fc00:1::2\n"
		"icmp-rate 1000\nicmp-burst 100\n"
		"sid fc00:100::5 action End.X nh6 fc00:3::2 oif adj\n";
	struct sid_runtime rt[1] = { { 0 } };
	uint8_t in[256];
	struct pkt *p;

	config_free(cfg);
	runstate_free(rs);
	cfg = config_parse_buffer("t.conf", text, sizeof(text) - 1, NULL, NULL);
	ck_assert_ptr_nonnull(cfg);
	rs = runstate_new(cfg);
	ctx.cfg = cfg;
	ctx.rs = rs;
	p = packet(INX, 0, 0, ETH_P_IPV6, in);
	srv6_process(&ctx, p);			/* ctx.sid_rt NULL */
	ck_assert_uint_eq(sids[0].drops[DROP_NEXTHOP_UNREACHABLE], 1);
	ctx.sid_rt = rt;			/* oif_index 0 */
	p = packet(INX, 0, 0, ETH_P_IPV6, in);
	srv6_process(&ctx, p);
	ck_assert_uint_eq(sids[0].drops[DROP_NEXTHOP_UNREACHABLE], 2);
	rt[0].oif_index = 3;
	p = packet(INX, 0, 0, ETH_P_IPV6, in);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert(p->set_mark);
	ck_assert_uint_eq(p->out_mark, rs->sids[0].mark);
	ck_assert_uint_eq(sids[0].packets, 1);
	link_set(3, "adj", IFF_UP, 1500);	/* no carrier */
	p = packet(INX, 0, 0, ETH_P_IPV6, in);
	srv6_process(&ctx, p);
	ck_assert_uint_eq(sids[0].drops[DROP_NEXTHOP_UNREACHABLE], 3);
	ck_assert_uint_eq(sids[0].packets, 1);
}
END_TEST

#define INT "6000000000342b40fc000001000000000000000000000001fc000100000000" \
	    "0000000000000000071104040101000000fc0000090000000000000000000000" \
	    "c2fc00010000000000000000000000000700010002000c3d22656e6474"

/* End.T: table 77 does not exist: a counted drop, no error (the kernel's
 * seg6local blackholes it); once it routes the next segment, forwarded. */
START_TEST(test_end_t_table)
{
	uint8_t in[256];
	struct pkt *p = packet(INT, 0, 0, ETH_P_IPV6, in);

	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(sids[1].drops[DROP_NO_TABLE], 1);
	ck_assert_uint_eq(ws.icmp_sent, 0);

	route6(RTM_NEWROUTE, "fc00:9::", 32, 77, "fe80::1", 2, 0, NULL);
	p = packet(INT, 0, 0, ETH_P_IPV6, in);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->out_mark, rs->sids[1].mark);
}
END_TEST

#define INDT6 "6000000000342940fc000001000000000000000000000001fc000100000000" \
	      "00000000000000000660000000000c113f20010db800060000000000000000" \
	      "000120010db800050000000000000000000100030004000c09bb64743621"
/* End.DT6: the inner destination has no route in table 100: counted as
 * no_route, and the inner packet goes on with the SID's mark to the
 * daemon's unreachable rule, so the kernel answers with its own bytes. */
START_TEST(test_end_dt6_no_route)
{
	uint8_t in[256];
	struct pkt *p = packet(INDT6, 0, 0, ETH_P_IPV6, in);
	size_t n = p->len;

	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, in + 40, n - 40);
	ck_assert(p->set_mark);
	ck_assert_uint_eq(p->out_mark, rs->sids[2].mark);
	ck_assert_uint_eq(sids[2].drops[DROP_NO_ROUTE], 1);
	ck_assert_uint_eq(sids[2].errors, 1);
	ck_assert_uint_eq(sids[2].packets, 0);
	ck_assert_uint_eq(ws.drops[DROP_NO_ROUTE], 1);
}
END_TEST

#define INSMALL "60000000000c1140fc000001000000000000000000000001fc000009" \
		"00e10000000000000000000104d2162e000c15367372633f"

static void expect_source(const char *want)
{
	uint8_t in[128];
	struct in6_addr a;
	struct pkt *p = packet(INSMALL, 0, 0, ETH_P_IPV6, in);

	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_int_eq(inet_pton(AF_INET6, want, &a), 1);
	ck_assert_bytes(p->data + 8, 16, a.s6_addr, 16);
}

/* No encap-source: the egress link's global address (not its link-local,
 * not lo's), then the route's prefsrc, then, the address gone, lo's. */
START_TEST(test_source_selection)
{
	addr_set(RTM_DELADDR, 4, "fc00:1::2", 64, RT_SCOPE_UNIVERSE);
	expect_source("fc00:2::1");
	expect_source("fc00:2::1");	/* from the worker's cache */
	route6(RTM_NEWROUTE, "fc00:9::", 32, RT_TABLE_MAIN, "fe80::1", 2, 0,
	       "fc00:ff::1");
	expect_source("fc00:ff::1");
	route6(RTM_NEWROUTE, "fc00:9::", 32, RT_TABLE_MAIN, "fe80::1", 2, 0,
	       NULL);
	addr_set(RTM_DELADDR, 2, "fc00:2::1", 64, RT_SCOPE_UNIVERSE);
	expect_source("fc00:ff::1");
	addr_set(RTM_DELADDR, 1, "fc00:ff::1", 128, RT_SCOPE_UNIVERSE);
	{
		uint8_t in[128];
		struct pkt *p = packet(INSMALL, 0, 0, ETH_P_IPV6, in);

		srv6_process(&ctx, p);	/* only fe80::2 left: no source */
		ck_assert_int_eq(p->verdict, PKT_DROP);
		ck_assert_uint_eq(pols[0].drops[DROP_NO_SOURCE], 1);
		ck_assert_uint_eq(pols[0].packets, 4);
	}
}
END_TEST

/* p is a Packet Too Big, MTU 1336, from `from` to fc00:1::1, quoting the
 * invoking packet `in` (its checksum is not looked at). */
static void expect_ptb1336(struct pkt *p, const struct in6_addr *from,
			   const uint8_t *in)
{
	static const uint8_t ptb[] = { 2, 0, 0, 0, 0, 0, 0x05, 0x38 };
	struct in6_addr to;

	ck_assert_int_eq(inet_pton(AF_INET6, "fc00:1::1", &to), 1);
	ck_assert_uint_eq(p->len, 1280);
	ck_assert_bytes(p->data + 8, 16, from->s6_addr, 16);
	ck_assert_bytes(p->data + 24, 16, to.s6_addr, 16);
	p->data[42] = p->data[43] = 0;
	ck_assert_bytes(p->data + 40, 8, ptb, sizeof(ptb));
	ck_assert_bytes(p->data + 48, 1232, in, 1232);
}

/* A 1400-byte UDP packet from fc00:1::1 to fc00:9:e3::1 (steered to
 * fc00:8::c1: 64 bytes of H.Encaps), source port 0 (the flow: set it). */
#define IN6_ECMP_HDR "6000000005501140fc000001000000000000000000000001" \
		     "fc00000900e3000000000000000000010000162e05500000"

/* ECMP (issue 8): the MTU a steered packet meets is that of the next hop
 * its flow takes.  fc00:8::/32 leaves by core (MTU 1500) or core2 (MTU
 * 1400), so of 64 flows of 1400 bytes (1464 encapsulated) some fit and
 * some get Packet Too Big, MTU 1336, from the edge link's fc00:1::2; each
 * flow always the same answer.  Before, every flow was checked against
 * the next hop of flow hash 0 (core): all fit. */
START_TEST(test_ptb6_ecmp)
{
	static uint8_t in[1400];
	unsigned fit = 0, big = 0;
	struct in6_addr edge;

	ck_assert_int_eq(inet_pton(AF_INET6, "fc00:1::2", &edge), 1);
	ecmp_build();
	for (unsigned f = 0; f < 64; f++) {
		bool fits = false;

		for (unsigned rep = 0; rep < 2; rep++) {
			struct pkt *p = packet(IN6_ECMP_HDR, 0xab, sizeof(in),
					       ETH_P_IPV6, in);

			p->data[40] = in[40] = (uint8_t)(f >> 8);
			p->data[41] = in[41] = (uint8_t)f;
			srv6_process(&ctx, p);
			ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
			if (rep == 1) {
				ck_assert_int_eq(p->len == 1464, fits);
				continue;
			}
			fits = p->len == 1464;
			if (fits) {
				fit++;
				continue;
			}
			big++;
			expect_ptb1336(p, &edge, in);
		}
	}
	ck_assert_uint_gt(fit, 0);
	ck_assert_uint_gt(big, 0);
	ck_assert_uint_eq(pols[2].packets, 2 * fit);
	ck_assert_uint_eq(pols[2].drops[DROP_TOO_BIG], 2 * big);
}
END_TEST

/* A 1400-byte packet from fc00:1::1 to the End.B6.Encaps SID fc00:100::b
 * (SRH: fc00:100::b, then fc00:9::99; SL 1), flow label 0 (the flow: set
 * it). */
#define IN6_B6_HDR "6000000005502b40fc000001000000000000000000000001" \
		   "fc00010000000000000000000000000b" \
		   "1104040101000000fc000009000000000000000000000099" \
		   "fc00010000000000000000000000000b04d2162e05280000"

/* Issue 8: a binding SID with two weighted lists, fc00:9::a1 (by core,
 * MTU 1500) and fc00:7::b1 (by core2, MTU 1400): the list the MTU check
 * looks at is the one the packet takes.  1400 + 64 bytes fit core only:
 * a flow on the first list leaves by it, one on the second gets Packet
 * Too Big (MTU 1336) from the SID.  Before, the check hashed the packet
 * as received and the push after S14 (a new DA): a flow checked against
 * the first list could leave by the second, too big for it. */
START_TEST(test_binding_weighted_mtu)
{
	static uint8_t in[1400];
	struct in6_addr a1, sid;
	unsigned fit = 0, big = 0;

	ck_assert_int_eq(inet_pton(AF_INET6, "fc00:9::a1", &a1), 1);
	ck_assert_int_eq(inet_pton(AF_INET6, "fc00:100::b", &sid), 1);
	ecmp_build();
	for (unsigned f = 1; f <= 64; f++) {
		struct pkt *p = packet(IN6_B6_HDR, 0xab, sizeof(in),
				       ETH_P_IPV6, in);

		p->data[3] = in[3] = (uint8_t)f;	/* flow label */
		srv6_process(&ctx, p);
		ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
		if (p->len == 1464) {
			fit++;
			ck_assert_bytes(p->data + 24, 16, a1.s6_addr, 16);
			continue;
		}
		big++;
		expect_ptb1336(p, &sid, in);
	}
	ck_assert_uint_gt(fit, 0);
	ck_assert_uint_gt(big, 0);
	ck_assert_uint_eq(sids[4].packets, fit);
	ck_assert_uint_eq(sids[4].drops[DROP_TOO_BIG], big);
}
END_TEST

/* No encap-source, ECMP (issue 8): the outer source is that of the link
 * the flow's next hop leaves by: core's fc00:2::1 or core2's fc00:5::1,
 * each seen over 64 flows.  Before, always the one of flow hash 0's. */
START_TEST(test_source_ecmp)
{
	struct in6_addr core, core2;
	unsigned n1 = 0, n2 = 0;

	ck_assert_int_eq(inet_pton(AF_INET6, "fc00:2::1", &core), 1);
	ck_assert_int_eq(inet_pton(AF_INET6, "fc00:5::1", &core2), 1);
	ecmp_build();
	for (unsigned f = 0; f < 64; f++) {
		uint8_t in[128];
		struct pkt *p = packet(INSMALL, 0, 0, ETH_P_IPV6, in);

		p->data[29] = 0xe3;	/* fc00:9:e3::1: by fc00:8::c1 */
		p->data[40] = (uint8_t)(f >> 8);
		p->data[41] = (uint8_t)f;
		srv6_process(&ctx, p);
		ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
		if (!memcmp(p->data + 8, &core, 16))
			n1++;
		else if (!memcmp(p->data + 8, &core2, 16))
			n2++;
		else
			ck_abort_msg("unexpected outer source");
	}
	ck_assert_uint_gt(n1, 0);
	ck_assert_uint_gt(n2, 0);
}
END_TEST

/* H.Insert keeps the packet's own source, even the unspecified one
 * (issue 8): exact bytes.  Before, the `::` left for a source to be
 * chosen was taken for the headend's and replaced by fc00:1::2. */
START_TEST(test_insert_unspecified_source)
{
	uint8_t in[128], want[128];
	struct pkt *p = packet("60000000000c114000000000000000000000000000000000"
			       "fc00000900e20000000000000000000104d2162e000c0000"
			       "7372633f", 0, 0, ETH_P_IPV6, in);
	size_t n = hex2bin("6000000000342b4000000000000000000000000000000000"
			   "fc0000090000000000000000000000c1"
			   "1104040101000000fc00000900e20000000000000000000"
			   "1fc0000090000000000000000000000c1"
			   "04d2162e000c00007372633f", want, sizeof(want));

	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, n);
	ck_assert_uint_eq(pols[1].packets, 1);
	ck_assert_uint_eq(pols[1].errors, 0);
}
END_TEST

/* ---- every packet counted exactly once (issue 8.4, issue 12.4) ------- */

/* The worker's drops add up to its dropped, every SID's to its errors,
 * and the packets are all in one of accepted, forwarded, injected,
 * dropped. */
static void expect_counted_once(uint64_t packets)
{
	uint64_t sum = 0;

	for (unsigned r = 0; r < DROP__COUNT; r++)
		sum += ws.drops[r];
	ck_assert_uint_eq(sum, ws.dropped);
	for (unsigned i = 0; i < cfg->nsids; i++) {
		sum = 0;
		for (unsigned r = 0; r < DROP__COUNT; r++)
			sum += sids[i].drops[r];
		ck_assert_uint_eq(sum, sids[i].errors);
	}
	ck_assert_uint_eq(ws.accepted + ws.forwarded + ws.injected +
			  ws.dropped, packets);
}

/* The one packet was dropped for reason, under it for the worker and for
 * SID sid, and nothing else. */
static void expect_one_drop(unsigned sid, enum drop_reason reason)
{
	ck_assert_uint_eq(ws.drops[reason], 1);
	ck_assert_uint_eq(sids[sid].drops[reason], 1);
	ck_assert_uint_eq(ws.forwarded, 0);
	ck_assert_uint_eq(ws.dropped, 1);
	expect_counted_once(1);
}

/* kernel-encap (headend.c's headend_kernel_facts()): an H.Encaps of a
 * super-packet records the mark of the kernel's seg6 route of its list,
 * and whether the kernel makes it from the original (the sender's
 * segments fit the egress: gso_size_in) or from the inner packet; else
 * why not; reinject_decide() takes it from there, no SRH parsed again. */
START_TEST(test_kencap_facts)
{
	static uint8_t in[9000];
	bool held = true;
	const struct kencap_entry *e;
	enum drop_reason r;
	struct pkt *p;

	cfg->gso = true;	/* what kencap_routes_assign() needs */
	ck_assert_int_eq(kencap_routes_assign(rs, cfg, NULL, NULL), 0);
	ck_assert_uint_ge(rs->nkencaps, 1);
	e = runstate_kencap_find(rs, ENCAP_MODE_ENCAP, &cfg->policies[0].sl);
	ck_assert_ptr_nonnull(e);
	rs->kencap_on = true;
	inet_pton(AF_INET6, "fc00:1::2", &rs->kencap_tunsrc);
	link_set(6, "in1400", UP, 1400);
	for (unsigned i = 0; i < 2; i++) {
		p = packet(IN6_TCP_HDR, 0xab, sizeof(in), ETH_P_IPV6, in);
		p->gso = true;
		p->indev = i ? 4 : 6;
		srv6_process(&ctx, p);
		ck_assert_msg(p->facts.kernel == PKT_KERNEL_ENCAP, "fallback %d gso %u", p->facts.kencap_fallback, p->facts.gso_size);
		ck_assert_uint_eq(p->facts.kernel_mark, e->mark);
		ck_assert(p->facts.kernel_from_original == !i);
		ck_assert_int_eq(reinject_decide(cfg, rs, NULL, p, &r),
				 i ? REINJECT_KERNEL_INNER : REINJECT_KERNEL);
		/* the mark probe finds the verdict's marks lost
		 * (markprobe.h): one list's original still goes by the
		 * mark (its catch encapsulates it as the kernel would);
		 * a policy of two lists has its inner packet go by the
		 * device, never the original its catch would encapsulate
		 * with the first list; lost to a foreign mark (the probe's
		 * `lost`, not `zeroed`), one list's goes by the device too:
		 * its catch would count it and hold kernel-encap */
		for (unsigned n = 1; n <= 4; n++) {
			bool foreign = n > 2, one = n % 2 == 1;

			cfg->policies[0].nlists = one ? 1 : 2;
			cfg->policies[0].lists[1] = cfg->policies[0].lists[0];
			cfg->policies[0].weights[1] = 1;
			p = packet(IN6_TCP_HDR, 0xab, sizeof(in), ETH_P_IPV6,
				   in);
			p->gso = true;
			p->indev = i ? 4 : 6;
			p->carrier_lost = true;
			p->carrier_foreign = foreign;
			srv6_process(&ctx, p);
			ck_assert(p->facts.kernel == PKT_KERNEL_ENCAP);
			ck_assert(p->facts.kernel_from_original ==
				  (!i && one && !foreign));
			ck_assert_int_eq(reinject_decide(cfg, rs, NULL, p, &r),
					 !i && one && !foreign ?
					 REINJECT_KERNEL :
					 REINJECT_KERNEL_INNER);
		}
		cfg->policies[0].nlists = 1;
	}
	/* and a header queue's of two lists is not done from its headers
	 * then (it is bounced, to come back whole); one list's is */
	p = packet(IN6_TCP_HDR, 0xab, sizeof(in), ETH_P_IPV6, in);
	p->gso = p->truncated = true;
	ck_assert(kencap_from_headers(&ctx, p));
	p->carrier_lost = true;
	ck_assert(kencap_from_headers(&ctx, p));
	p->carrier_foreign = true;
	ck_assert(!kencap_from_headers(&ctx, p));
	p->carrier_foreign = false;
	cfg->policies[0].nlists = 2;
	ck_assert(!kencap_from_headers(&ctx, p));
	p->carrier_lost = false;
	ck_assert(kencap_from_headers(&ctx, p));
	cfg->policies[0].nlists = 1;
	/* The kernel's tunsrc is another source: cut, and why. */
	inet_pton(AF_INET6, "fc00:1::9", &rs->kencap_tunsrc);
	p = packet(IN6_TCP_HDR, 0xab, sizeof(in), ETH_P_IPV6, in);
	p->gso = true;
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->facts.kernel, PKT_KERNEL_NONE);
	ck_assert_int_eq(p->facts.kencap_fallback, KENCAP_FB_SOURCE);
	ck_assert_int_eq(reinject_decide(cfg, rs, NULL, p, &r), REINJECT_SEGMENT);
	/* The same source again, but held back (the daemon saw the kernel's
	 * tunsrc change under srv6d: engine_set_kencap_held()): cut. */
	inet_pton(AF_INET6, "fc00:1::2", &rs->kencap_tunsrc);
	ctx.kencap_held = &held;
	p = packet(IN6_TCP_HDR, 0xab, sizeof(in), ETH_P_IPV6, in);
	p->gso = true;
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->facts.kernel, PKT_KERNEL_NONE);
	ck_assert_int_eq(p->facts.kencap_fallback, KENCAP_FB_SOURCE);
	held = false;	/* let go: to the kernel again */
	p = packet(IN6_TCP_HDR, 0xab, sizeof(in), ETH_P_IPV6, in);
	p->gso = true;
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->facts.kernel, PKT_KERNEL_ENCAP);
	ctx.kencap_held = NULL;
	/* Off. */
	rs->kencap_on = false;
	p = packet(IN6_TCP_HDR, 0xab, sizeof(in), ETH_P_IPV6, in);
	p->gso = true;
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->facts.kencap_fallback, KENCAP_FB_OFF);
	/* Encapsulated already (IPv6 in IPv6, then TCP): the kernel's seg6
	 * would take it as no TCP super-packet of its own; cut. */
	p = packet("6000000023002940fc000001000000000000000000000001"
		   "fc00000900e100000000000000000001"
		   "6000000022d80640fc000001000000000000000000000001"
		   "fc00000900e100000000000000000001"
		   "04d2162e00000001000000005010020000000000", 0xab,
		   sizeof(in), ETH_P_IPV6, in);
	p->gso = true;
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_int_eq(p->facts.kernel, PKT_KERNEL_NONE);
	ck_assert_int_eq(p->facts.kencap_fallback, KENCAP_FB_SHAPE);
	ck_assert_int_eq(reinject_decide(cfg, rs, NULL, p, &r), REINJECT_SEGMENT);
	/* Not a super-packet: no facts at all. */
	rs->kencap_on = true;
	inet_pton(AF_INET6, "fc00:1::2", &rs->kencap_tunsrc);
	p = packet(IN6_TCP_HDR, 0xab, 1400, ETH_P_IPV6, in);
	p->data[4] = (1400 - 40) >> 8;
	p->data[5] = (1400 - 40) & 0xff;
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_int_eq(p->facts.kernel, PKT_KERNEL_NONE);
}
END_TEST

/* Issue 18: a policy whose first segment is a local End.DT6 SID; the
 * customer's packet is itself SRv6-encapsulated (an SRH with Segments
 * Left = Last Entry = 40, then IPv6 and TCP), a super-packet.  The SID
 * that runs after the headend (sid_chain()) starts from no facts: its
 * decapsulated result is not the headend's encapsulation.  Before, the
 * headend's gso_size stayed on the packet, the way back took the
 * decapsulated packet for the headend's and parsed its SRH as one
 * (kencap_parse()), writing 41 segments into a 16-entry array on the
 * stack. */
START_TEST(test_chain_decap_after_headend)
{
	static const char text[] =
		"queue 0\nencap-source fc00:1::2\ngso yes\n"
		"sid fc00:100::6 action End.DT6 table 100\n"
		"route 2001:db8:6::/48 encap seg6 mode encap segs fc00:100::6\n";
	static uint8_t b[9000];
	struct sid_runtime rt[1] = { { .ifindex = 0x7ffffff0 } };
	struct reinject_io io = { .pkt_fd = -1, .raw_fd = -1 };
	struct nfq *q = nfq_alloc(0);
	uint8_t *srh = b + 40, *in2 = srh + 8 + 41 * 16;
	uint32_t l2 = sizeof(b) - (uint32_t)(in2 - b);
	enum drop_reason r;
	struct pkt *p;
	uint64_t fb = 0;

	config_free(cfg);
	runstate_free(rs);
	cfg = config_parse_buffer("t.conf", text, sizeof(text) - 1, NULL,
				  NULL);
	ck_assert_ptr_nonnull(cfg);
	rs = runstate_new(cfg);
	ctx.cfg = cfg;
	ctx.rs = rs;
	ck_assert_int_eq(kencap_routes_assign(rs, cfg, NULL, NULL), 0);
	rs->kencap_on = true;
	inet_pton(AF_INET6, "fc00:1::2", &rs->kencap_tunsrc);
	memset(b, 0xab, sizeof(b));
	b[0] = 0x60;
	b[1] = b[2] = b[3] = 0;
	b[4] = (sizeof(b) - 40) >> 8;
	b[5] = (sizeof(b) - 40) & 0xff;
	b[6] = 43;
	b[7] = 64;
	inet_pton(AF_INET6, "fc00:1::1", b + 8);
	inet_pton(AF_INET6, "2001:db8:6::1", b + 24);
	srh[0] = 41;
	srh[1] = 41 * 2;
	srh[2] = 4;
	srh[3] = srh[4] = 40;
	srh[5] = srh[6] = srh[7] = 0;
	for (unsigned i = 0; i <= 40; i++)
		memcpy(srh + 8 + 16 * i, b + 24, 16);
	memcpy(in2, b, 40);
	in2[4] = (uint8_t)((l2 - 40) >> 8);
	in2[5] = (uint8_t)((l2 - 40) & 0xff);
	in2[6] = 6;
	hex2bin("04d2162e00000001000000005010020000000000", in2 + 40, 20);
	p = test_pkt(&slot, b, sizeof(b), ETH_P_IPV6);
	p->gso = true;
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->len, sizeof(b));	/* decapsulated again */
	ck_assert(p->chained);
	ck_assert_int_eq(p->facts.kernel, PKT_KERNEL_NONE);
	ck_assert_uint_eq(p->facts.gso_size, 0);
	ck_assert_int_eq(reinject_decide(cfg, rs, rt, p, &r), REINJECT_SEGMENT);
	reinject_packet(cfg, rs, rt, p, q, &io, &ws);
	reinject_flush(&io, &ws);
	ck_assert_uint_eq(ws.drops[DROP_REINJECT], 1);	/* no socket here */
	for (unsigned i = 0; i < KENCAP_FB__COUNT; i++)
		fb += ws.kencap_fallback[i];
	ck_assert_uint_eq(fb, 0);	/* not the headend's to count */
	nfq_socket_close(q);
}
END_TEST

/* Process p and reinject it as the worker does; false when there is no
 * queue socket (not root: skipped). */
static bool process_and_reinject(struct pkt *p, const char *test)
{
	struct reinject_io io = { .pkt_fd = -1, .raw_fd = -1 };
	char err[256];
	struct nfq *q = nfq_socket_open(64000 + (unsigned)getpid() % 500,
					NFQ_DEFAULT_MAXLEN, err, sizeof(err));

	if (!q) {
		fprintf(stderr, "%s: skipped (%s)\n", test, err);
		return false;
	}
	srv6_process(&ctx, p);
	reinject_packet(cfg, rs, NULL, p, q, &io, &ws);
	reinject_flush(&io, &ws);
	nfq_socket_close(q);
	return true;
}

/* End, then in the SID chain End.DT6 without a route for the inner
 * destination: End's success, End.DT6's error, and for the worker one
 * drop for no_route, not also a forwarded packet (before: drops[no_route]
 * and forwarded both, the hand-off recognised by p->st == NULL). */
#define INCHAIN "60000000005c2b40fc000001000000000000000000000001fc0001000000" \
	"000000000000000000082904040101000000fc0001000000000000000000" \
	"00000006fc00010000000000000000000000000860000000000c113f2001" \
	"0db800060000000000000000000120010db8000500000000000000000001" \
	"00030004000c09bb64743621"
START_TEST(test_chain_no_route_once)
{
	uint8_t in[256];
	struct pkt *p = packet(INCHAIN, 0, 0, ETH_P_IPV6, in);

	if (!process_and_reinject(p, "test_chain_no_route_once"))
		return;
	ck_assert_int_eq(p->outcome, PKT_OUT_HANDOFF);
	ck_assert_uint_eq(p->out_mark, rs->sids[2].mark);
	ck_assert_uint_eq(sids[3].packets, 1);
	ck_assert_uint_eq(sids[3].errors, 0);
	ck_assert_uint_eq(sids[2].packets, 0);
	ck_assert_uint_eq(sids[2].errors, 1);
	expect_one_drop(2, DROP_NO_ROUTE);
}
END_TEST

/* A packet answered with an ICMPv6 error (End.X's next hop without
 * carrier): a drop for its reason, the error sent, not also forwarded
 * (before: drops[nexthop_unreachable] and forwarded). */
START_TEST(test_icmp_answered_once)
{
	uint8_t in[256];
	struct pkt *p;

	link_set(3, "adj", IFF_UP, 1500);	/* no carrier */
	p = packet(INX, 0, 0, ETH_P_IPV6, in);
	if (!process_and_reinject(p, "test_icmp_answered_once"))
		return;
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);	/* the error */
	ck_assert_int_eq(p->outcome, PKT_OUT_ICMP);
	ck_assert_uint_eq(ws.icmp_sent, 1);
	expect_one_drop(0, DROP_NEXTHOP_UNREACHABLE);
}
END_TEST

/* The same with the bucket empty: no error, the reason counted all the
 * same, the error owed counted apart (before: drops[icmp_ratelimit]
 * instead of the reason). */
START_TEST(test_icmp_ratelimited_once)
{
	uint8_t in[256];
	struct pkt *p;

	link_set(3, "adj", IFF_UP, 1500);
	ctx.icmp_rl.tokens_milli = 0;
	ctx.icmp_rl.last_ns = ctx.now_ns;
	p = packet(INX, 0, 0, ETH_P_IPV6, in);
	if (!process_and_reinject(p, "test_icmp_ratelimited_once"))
		return;
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.icmp_sent, 0);
	ck_assert_uint_eq(ws.icmp_ratelimited, 1);
	expect_one_drop(0, DROP_NEXTHOP_UNREACHABLE);
}
END_TEST

/* ---- GSO parses per super-packet ------------------------------------------ */

/* This program's gso.c counts every gso_parse() (gso_parse_count,
 * Makefile.am): a super-packet received as NFQUEUE queues it
 * (NFQA_SKB_GSO), processed and sent on as the worker does, by each of
 * the ways a super-packet goes, and the parses it took, wherever they
 * were made (nfq.c, the behavior or the headend, reinject.c, kencap.c,
 * segment.c, gso.c's own). */
static const char conf_parses[] =
	"queue 0\n"
	"encap-source fc00:1::2\n"
	"gso yes\n"
	"sid fc00:100::8 action End\n"
	"sid fc00:100::6 action End.DT6 table 100\n"
	"sid fc00:100::b action End.B6.Encaps srh segs fc00:9::a1\n"
	"route fc00:9:e1::/48 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2\n"
	"route fc00:9:e2::/48 encap seg6 mode inline segs fc00:9::c1\n";

static uint8_t rx_slot[NFQ_SLOT_SIZE];
static struct pkt rx_pkt;
static struct seg_area rx_area;
static struct reinject_io rx_io;
static struct nfq *rx_q;

static void setup_parses(void)
{
	setup_with(conf_parses, sizeof(conf_parses) - 1);
	link_set(6, "in1400", UP, 1400);
	ck_assert_int_eq(seg_area_init(&rx_area, SEG_AREA_BYTES), 0);
	/* Frames are queued, then refused by the flush: what is counted
	 * here is the parses, not the sends. */
	rx_io = (struct reinject_io){ .dev_ifindex = 1,
				      .pkt_fd = open("/dev/null", O_WRONLY),
				      .raw_fd = -1, .tx = pkt_tx_new_vnet(),
				      .seg = &rx_area, .mirror = m };
	ck_assert_int_ge(rx_io.pkt_fd, 0);
	ck_assert_ptr_nonnull(rx_io.tx);
	rx_q = nfq_alloc(0);
	ck_assert_ptr_nonnull(rx_q);
}

static void teardown_parses(void)
{
	nfq_socket_close(rx_q);
	pkt_tx_free(rx_io.tx);
	close(rx_io.pkt_fd);
	seg_area_fini(&rx_area);
	teardown();
}

/* hex + 0xab up to 9000 bytes, queued from the IPv6 hook as a
 * super-packet in from indev, parsed by nfq_parse(). */
static struct pkt *receive(const char *hex, uint32_t indev)
{
	static uint8_t bytes[9000];
	struct nfqnl_msg_packet_hdr ph = { .packet_id = htonl(1),
					   .hw_protocol = htons(ETH_P_IPV6) };
	size_t n = hex2bin(hex, bytes, sizeof(bytes));
	struct worker_stats st = { 0 };
	struct nlmsghdr *nlh;
	struct nfgenmsg *nfg;

	memset(bytes + n, 0xab, sizeof(bytes) - n);
	nlh = mnl_nlmsg_put_header(rx_slot + PKT_HEADROOM);
	nlh->nlmsg_type = (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = AF_INET6;
	mnl_attr_put(nlh, NFQA_PACKET_HDR, sizeof(ph), &ph);
	mnl_attr_put_u32(nlh, NFQA_IFINDEX_INDEV, htonl(indev));
	mnl_attr_put_u32(nlh, NFQA_SKB_INFO, htonl(NFQA_SKB_GSO));
	mnl_attr_put(nlh, NFQA_PAYLOAD, sizeof(bytes), bytes);
	ck_assert_int_eq(nfq_parse(rx_slot, rx_slot + sizeof(rx_slot),
				   rx_slot + PKT_HEADROOM, nlh->nlmsg_len,
				   &rx_pkt, &st), NFQ_PARSE_PACKET);
	ck_assert(rx_pkt.gso);
	return &rx_pkt;
}

/* The parse p keeps, when it keeps one, is what gso_parse() finds in
 * its bytes now (this parse not counted): what an encapsulation or a
 * decapsulation carried over is right. */
static void cache_true(const struct pkt *p)
{
	unsigned long n = gso_parse_count;
	const struct gso_info *c = &p->gso_cache.info;
	struct gso_info gi;
	int rc;

	if (!p->gso_cache.valid)
		return;
	rc = gso_parse(p->data, p->len, &gi);
	gso_parse_count = n;
	ck_assert_int_eq(rc == 0, p->gso_cache.ok);
	if (rc < 0)
		return;
	ck_assert_uint_eq(c->nlayers, gi.nlayers);
	for (unsigned i = 0; i < GSO_MAX_LAYERS; i++) {
		ck_assert_uint_eq(c->layer_off[i], gi.layer_off[i]);
		ck_assert_uint_eq(c->layer_ver[i], gi.layer_ver[i]);
	}
	ck_assert_uint_eq(c->l4_off, gi.l4_off);
	ck_assert_uint_eq(c->l4_proto, gi.l4_proto);
	ck_assert_uint_eq(c->hdr_len, gi.hdr_len);
	ck_assert_uint_eq(c->rh_pending, gi.rh_pending);
	ck_assert_uint_eq(c->final_dst_off, gi.final_dst_off);
}

/* The super-packet hex (from indev) received, processed and sent on its
 * way, which must be `way`: the gso_parse() calls it took. */
static unsigned long parses(const char *hex, uint32_t indev,
			    const struct sid_runtime *rt,
			    enum reinject_action way)
{
	struct worker_stats st = { 0 };
	unsigned long n;
	struct pkt *p;

	gso_parse_count = 0;
	p = receive(hex, indev);
	srv6_process(&ctx, p);
	ck_assert_msg(p->verdict == PKT_NEW_BYTES, "verdict %d reason %s",
		      p->verdict, drop_reason_name(p->reason));
	cache_true(p);
	reinject_packet(cfg, rs, rt, p, rx_q, &rx_io, &st);
	ck_assert_int_eq(p->way.action, way);
	ck_assert_msg(!p->way.failed || p->way.reason == DROP_REINJECT,
		      "failed for %s", drop_reason_name(p->way.reason));
	n = gso_parse_count;
	reinject_flush(&rx_io, &st);
	nfq_verdict_flush(rx_q, &st);
	return n;
}

/* End on a packet with an SRH, TCP after it: 9000 bytes from fc00:1::1
 * to the End SID, Segments Left 2 (fc00:9::c3, fc00:9::c2, the SID) and
 * Segments Left 1 (fc00:9::c2, the SID). */
#define END_SL2 "6000000023002b40fc000001000000000000000000000001" \
	"fc000100000000000000000000000008" \
	"0606040202000000fc0000090000000000000000000000c3" \
	"fc0000090000000000000000000000c2fc000100000000000000000000000008" \
	"04d2162e00000001000000005010020000000000"
#define END_SL1 "6000000023002b40fc000001000000000000000000000001" \
	"fc000100000000000000000000000008" \
	"0604040101000000fc0000090000000000000000000000c2" \
	"fc000100000000000000000000000008" \
	"04d2162e00000001000000005010020000000000"
/* End.DT6: IPv6 in IPv6 (no SRH) to the SID, the inner packet to
 * 2001:db8:6::1 (table 100's). */
#define DT6_IN "6000000023002940fc000001000000000000000000000001" \
	"fc000100000000000000000000000006" \
	"6000000022d80640fc000001000000000000000000000001" \
	"20010db8000600000000000000000001" \
	"04d2162e00000001000000005010020000000000"
/* End.B6.Encaps: SL 1 (fc00:9::c2, the SID). */
#define B6_IN "6000000023002b40fc000001000000000000000000000001" \
	"fc00010000000000000000000000000b" \
	"0604040101000000fc0000090000000000000000000000c2" \
	"fc00010000000000000000000000000b" \
	"04d2162e00000001000000005010020000000000"
/* Steered to the inline policy. */
#define INSERT_IN "6000000023000640fc000001000000000000000000000001" \
	"fc00000900e200000000000000000001" \
	"04d2162e00000001000000005010020000000000"

/* Each super-packet is parsed once, at receipt (nfq.c), and once more
 * only where a behavior rewrote its header chain in place (End's
 * Segments Left, End.B6.Encaps' before it encapsulates, H.Insert's SRH)
 * and the way back needs the result's headers.  Decapsulation
 * (pkt_pull()) and encapsulation (headend.c) carry the parse over.  Before the parse was kept on the packet (issue
 * 18): 7, 3, 5, 7, 7, 7, 3 and 9. */
START_TEST(test_gso_parses)
{
	struct sid_runtime rt[2] = { { 0 }, { .ifindex = 0x7ffffff0 } };

	/* End, the result still on its way (SL 1): the vnet way. */
	ck_assert_uint_eq(parses(END_SL2, 4, NULL, REINJECT_VNET_OWN_DEV), 2);
	/* End, SL 0 after it: the payload, segmented by the kernel. */
	ck_assert_uint_eq(parses(END_SL1, 4, NULL, REINJECT_PAYLOAD), 2);
	/* End.DT6: the inner super-packet into the SID's device. */
	ck_assert_uint_eq(parses(DT6_IN, 4, rt, REINJECT_VNET_DEV), 1);
	/* H.Insert: one IPv6 header still, the vnet way. */
	ck_assert_uint_eq(parses(INSERT_IN, 4, NULL, REINJECT_VNET_OWN_DEV),
			  2);
	/* H.Encaps, cut in userspace (7 segments of 1360 bytes). */
	ck_assert_uint_eq(parses(IN6_TCP_HDR, 4, NULL, REINJECT_SEGMENT), 1);
	/* End.B6.Encaps: its Segments Left write ends the parse before
	 * the encapsulation, the result is parsed once more (cut). */
	ck_assert_uint_eq(parses(B6_IN, 4, NULL, REINJECT_SEGMENT), 2);
	/* H.Encaps by the kernel's seg6: the original with the mark (in
	 * on the link of MTU 1400), the inner packet whole (in on the
	 * one of 1500: smaller segments than the sender's). */
	ck_assert_int_eq(kencap_routes_assign(rs, cfg, NULL, NULL), 0);
	rs->kencap_on = true;
	inet_pton(AF_INET6, "fc00:1::2", &rs->kencap_tunsrc);
	ck_assert_uint_eq(parses(IN6_TCP_HDR, 6, NULL, REINJECT_KERNEL), 1);
	ck_assert_uint_eq(parses(IN6_TCP_HDR, 4, NULL, REINJECT_KERNEL_INNER),
			  1);
}
END_TEST

static Suite *egress_suite(void)
{
	Suite *s = suite_create("egress");
	TCase *tc = tcase_create("mirror");
	TCase *ns = tcase_create("no encap-source");
	TCase *gp = tcase_create("gso parses");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_ptb6);
	tcase_add_test(tc, test_frag_needed4);
	tcase_add_test(tc, test_frag_needed4_source);
	tcase_add_test(tc, test_end_x_nexthop);
	tcase_add_test(tc, test_end_x_oif_runtime);
	tcase_add_test(tc, test_end_t_table);
	tcase_add_test(tc, test_end_dt6_no_route);
	tcase_add_test(tc, test_ptb6_ecmp);
	tcase_add_test(tc, test_binding_weighted_mtu);
	tcase_add_test(tc, test_ptb6_gso_segment_size);
	tcase_add_test(tc, test_kencap_facts);
	tcase_add_test(tc, test_chain_decap_after_headend);
	tcase_add_test(tc, test_chain_no_route_once);
	tcase_add_test(tc, test_icmp_answered_once);
	tcase_add_test(tc, test_icmp_ratelimited_once);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(ns, setup_nosrc, teardown);
	tcase_add_test(ns, test_source_selection);
	tcase_add_test(ns, test_source_ecmp);
	tcase_add_test(ns, test_insert_unspecified_source);
	suite_add_tcase(s, ns);
	tcase_add_checked_fixture(gp, setup_parses, teardown_parses);
	tcase_add_test(gp, test_gso_parses);
	suite_add_tcase(s, gp);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(egress_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
