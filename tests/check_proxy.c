/* check_proxy.c - the SR proxies End.AS, End.AD and End.AM
 * (draft-ietf-spring-sr-service-programming-10 6.1, 6.2, 6.4) byte for
 * byte, both ways, through the dispatcher (srv6_process()) with a parsed
 * config; their drops; End.AD's cache across workers; how their results
 * go back (reinject_decide_single()).
 *
 * The packets are those VPP's test/test_srv6_as.py and test_srv6_ad.py
 * build and expect (their addresses, segment lists and headers: src
 * 5678::1 / a0::, segments a1::.. a3::, inner 1234::1 -> 4321::1 and
 * 123.1.1.1 -> 124.1.1.1, UDP 1234 -> 1234), with a 5-byte payload,
 * made once with scapy (tests' generator, independent of srv6d) and
 * pasted as hex.  Toward the service the inner packet is as it was
 * inside (VPP's "hlim - 1" is the kernel's forwarding, after srv6d);
 * back from it, the inner hop limit / TTL is one less (the IPv4
 * checksum redone) under the pushed headers, as VPP expects.  End.AM,
 * which VPP has no test of, is the draft's 6.4 pseudocode: DA =
 * SRH[0] toward the service; SL - 1 and DA = SRH[SL] back.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_ether.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "behavior_proxy.h"
#include "config.h"
#include "nfq.h"
#include "pktsock.h"
#include "process.h"
#include "reinject.h"
#include "rtrules.h"
#include "rtmirror.h"
#include "runstate.h"
#include "testutil.h"

/* ---- vectors ------------------------------------------------------------ */

static const char IN6[] =
	"60000000000d1140123400000000000000000000000000014321000000000000"
	"000000000000000104d204d2000d5d0768656c6c6f";
static const char IN4[] =
	"4500002100010000401181c77b0101017c01010104d204d2000db95968656c6c"
	"6f";
/* VPP test_SRv6_End_AS_IPv6_SRH: the SID a1::a6, then a2::, a3:: */
static const char AS_FWD6[] =
	"60000000006d2b405678000000000000000000000000000100a1000000000000"
	"00000000000000a6290604020200000000a30000000000000000000000000000"
	"00a2000000000000000000000000000000a100000000000000000000000000a6"
	"60000000000d1140123400000000000000000000000000014321000000000000"
	"000000000000000104d204d2000d5d0768656c6c6f";
static const char AS_RET6[] =
	"60000000005d2b4000a1000000000000000000000000000000a2000000000000"
	"0000000000000000290404010100000000a30000000000000000000000000000"
	"00a2000000000000000000000000000060000000000d113f1234000000000000"
	"00000000000000014321000000000000000000000000000104d204d2000d5d07"
	"68656c6c6f";
/* test_SRv6_End_AS_IPv4_SRH */
static const char AS_FWD4[] =
	"6000000000592b401234000000000000000000000000000100a1000000000000"
	"00000000000000a6040604020200000000a30000000000000000000000000000"
	"00a2000000000000000000000000000000a100000000000000000000000000a6"
	"4500002100010000401181c77b0101017c01010104d204d2000db95968656c6c"
	"6f";
static const char AS_RET4[] =
	"6000000000492b4000a1000000000000000000000000000000a2000000000000"
	"0000000000000000040404010100000000a30000000000000000000000000000"
	"00a2000000000000000000000000000045000021000100003f1182c77b010101"
	"7c01010104d204d2000db95968656c6c6f";
/* test_SRv6_End_AS_IPv6_noSRH: one segment after the SID (a3::), src
 * a2::: an IPv6 header only */
static const char AS_RET6_1[] =
	"600000000035294000a2000000000000000000000000000000a3000000000000"
	"000000000000000060000000000d113f12340000000000000000000000000001"
	"4321000000000000000000000000000104d204d2000d5d0768656c6c6f";
/* test_SRv6_End_AD_IPv6: a0:: -> a1::, a2::a6 (the SID), a3:: */
static const char AD_FWD6[] =
	"60000000006d2b4000a0000000000000000000000000000000a2000000000000"
	"00000000000000a6290604010200000000a30000000000000000000000000000"
	"00a200000000000000000000000000a600a10000000000000000000000000000"
	"60000000000d1140123400000000000000000000000000014321000000000000"
	"000000000000000104d204d2000d5d0768656c6c6f";
static const char AD_RET6[] =
	"60000000006d2b4000a0000000000000000000000000000000a3000000000000"
	"0000000000000000290604000200000000a30000000000000000000000000000"
	"00a200000000000000000000000000a600a10000000000000000000000000000"
	"60000000000d113f123400000000000000000000000000014321000000000000"
	"000000000000000104d204d2000d5d0768656c6c6f";
/* test_SRv6_End_AD_IPv4: the SID a2::a4 */
static const char AD_FWD4[] =
	"6000000000592b4000a0000000000000000000000000000000a2000000000000"
	"00000000000000a4040604010200000000a30000000000000000000000000000"
	"00a200000000000000000000000000a400a10000000000000000000000000000"
	"4500002100010000401181c77b0101017c01010104d204d2000db95968656c6c"
	"6f";
static const char AD_RET4[] =
	"6000000000592b4000a0000000000000000000000000000000a3000000000000"
	"0000000000000000040604000200000000a30000000000000000000000000000"
	"00a200000000000000000000000000a400a10000000000000000000000000000"
	"45000021000100003f1182c77b0101017c01010104d204d2000db95968656c6c"
	"6f";
/* AD_FWD6 with Segments Left 0 */
static const char AD_SL0[] =
	"60000000006d2b4000a0000000000000000000000000000000a2000000000000"
	"00000000000000a6290604000200000000a30000000000000000000000000000"
	"00a200000000000000000000000000a600a10000000000000000000000000000"
	"60000000000d1140123400000000000000000000000000014321000000000000"
	"000000000000000104d204d2000d5d0768656c6c6f";
/* End.AM (6.4): a0:: -> a1::, a2::a6 (the SID), a3::, a4:: (last) */
static const char AM_FWD[] =
	"6000000000552b4000a0000000000000000000000000000000a2000000000000"
	"00000000000000a6110804020300000000a40000000000000000000000000000"
	"00a3000000000000000000000000000000a200000000000000000000000000a6"
	"00a1000000000000000000000000000004d20050000db59c68656c6c6f";
static const char AM_FWD_OUT[] =
	"6000000000552b4000a0000000000000000000000000000000a4000000000000"
	"0000000000000000110804020300000000a40000000000000000000000000000"
	"00a3000000000000000000000000000000a200000000000000000000000000a6"
	"00a1000000000000000000000000000004d20050000db59c68656c6c6f";
static const char AM_RET_OUT[] =
	"6000000000552b4000a0000000000000000000000000000000a3000000000000"
	"0000000000000000110804010300000000a40000000000000000000000000000"
	"00a3000000000000000000000000000000a200000000000000000000000000a6"
	"00a1000000000000000000000000000004d20050000db59c68656c6c6f";
/* what a NAT in the service made of AM_FWD_OUT: source port 4321 */
static const char AM_RET_NAT[] =
	"6000000000552b4000a0000000000000000000000000000000a4000000000000"
	"0000000000000000110804020300000000a40000000000000000000000000000"
	"00a3000000000000000000000000000000a200000000000000000000000000a6"
	"00a1000000000000000000000000000010e10050000da98d68656c6c6f";
static const char AM_RET_NAT_OUT[] =
	"6000000000552b4000a0000000000000000000000000000000a3000000000000"
	"0000000000000000110804010300000000a40000000000000000000000000000"
	"00a3000000000000000000000000000000a200000000000000000000000000a6"
	"00a1000000000000000000000000000010e10050000da98d68656c6c6f";
static const char AM_NOSRH[] =
	"60000000000d114000a0000000000000000000000000000000a4000000000000"
	"000000000000000004d20050000db59c68656c6c6f";

/* ---- fixture ------------------------------------------------------------ */

#define IIF	7		/* the service's interface back */
#define OTHER_IF	8

static struct config *cfg;
static struct runstate *rs;
static struct worker_stats ws;
static struct sid_stats sst[4];
static struct sid_runtime srt[4];
static struct proxy_slot slots[2];
static struct proc_ctx ctx;
static struct test_slot slot;
static uint8_t want[2048];

static void use_config(const char *sid_line)
{
	char text[512];

	snprintf(text, sizeof(text), "queue 0-1\nmark-base 0x1000\n%s\n",
		 sid_line);
	config_free(cfg);
	cfg = config_parse_buffer("t.conf", text, strlen(text), NULL, NULL);
	ck_assert_ptr_nonnull(cfg);
	runstate_free(rs);
	rs = runstate_new(cfg);
	ck_assert_ptr_nonnull(rs);
	rs->sids[0].iif_index = IIF;
	ctx.cfg = cfg;
	ctx.rs = rs;
	ctx.sid_rt = srt;
}

static void setup(void)
{
	cfg = NULL;
	rs = NULL;
	memset(&ws, 0, sizeof(ws));
	memset(sst, 0, sizeof(sst));
	memset(srt, 0, sizeof(srt));
	memset(slots, 0, sizeof(slots));
	memset(&ctx, 0, sizeof(ctx));
	ctx.stats = &ws;
	ctx.sid_stats = sst;
	ctx.proxy_slots = slots;
	ctx.proxy_nworkers = 2;
	ctx.now_ns = 5000000000ull;
	ctx.icmp_rl.last_ns = ctx.now_ns;
	ctx.icmp_rl.tokens_milli = 50 * 1000;
}

static void teardown(void)
{
	runstate_free(rs);
	rs = NULL;
	config_free(cfg);
	cfg = NULL;
}

/* Run hex `in`, queued from hook family hw on interface indev. */
static struct pkt *run(const char *in, uint16_t hw, uint32_t indev)
{
	uint8_t buf[2048];
	size_t n = hex2bin(in, buf, sizeof(buf));
	struct pkt *p = test_pkt(&slot, buf, n, hw);

	p->indev = indev;
	test_pcap_write(p->data, p->len);
	srv6_process(&ctx, p);
	if (p->verdict == PKT_NEW_BYTES)
		test_pcap_write(p->data, p->len);
	return p;
}

static void expect_bytes(const struct pkt *p, const char *hex)
{
	size_t n = hex2bin(hex, want, sizeof(want));

	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, n);
	ck_assert(p->data >= p->head);
}

/* Toward the service: `out`, with the SID's mark, counted. */
static void expect_fwd(const struct pkt *p, const char *out)
{
	expect_bytes(p, out);
	ck_assert(p->set_mark);
	ck_assert_uint_eq(p->out_mark, 0x1001);
	ck_assert_uint_eq(sst[0].errors, 0);
}

/* Back from it: `out`, unmarked (the main table), counted. */
static void expect_ret(const struct pkt *p, const char *out)
{
	expect_bytes(p, out);
	ck_assert(!p->set_mark);
	ck_assert_int_eq(p->outcome, PKT_OUT_OK);
	ck_assert_uint_eq(sst[0].errors, 0);
}

static void expect_drop(const struct pkt *p, enum drop_reason r,
			uint64_t n)
{
	ck_assert_int_ne(p->outcome, PKT_OUT_OK);
	ck_assert_uint_eq(sst[0].drops[r], n);
	ck_assert_uint_eq(ws.drops[r], n);
}

#define AS6_LINE "sid a1::a6/128 action End.AS nh6 fc00:9::2 oif svc0 " \
		 "iif svc1 source a1:: segs a2::,a3::"
#define AS4_LINE "sid a1::a6/128 action End.AS nh4 10.9.0.2 oif svc0 " \
		 "iif svc1 source a1:: segs a2::,a3::"
#define AD6_LINE "sid a2::a6/128 action End.AD nh6 fc00:9::2 oif svc0 iif svc1"
#define AD4_LINE "sid a2::a4/128 action End.AD nh4 10.9.0.2 oif svc0 iif svc1"
#define AM_LINE	 "sid a2::a6/128 action End.AM nh6 fc00:9::2 oif svc0 iif svc1"

/* ---- End.AS ------------------------------------------------------------- */

START_TEST(as_ipv6)
{
	struct pkt *p;

	use_config(AS6_LINE);
	ck_assert_int_eq(cfg->sids[0].behavior, BHV_END_AS);
	p = run(AS_FWD6, ETH_P_IPV6, OTHER_IF);
	expect_fwd(p, IN6);
	ck_assert_uint_eq(sst[0].packets, 1);
	p = run(IN6, ETH_P_IPV6, IIF);
	expect_ret(p, AS_RET6);
	ck_assert_uint_eq(sst[0].packets, 2);
}
END_TEST

START_TEST(as_ipv4)
{
	struct pkt *p;

	use_config(AS4_LINE);
	ck_assert_int_eq(cfg->sids[0].behavior, BHV_END_AS4);
	p = run(AS_FWD4, ETH_P_IPV6, OTHER_IF);
	expect_fwd(p, IN4);
	p = run(IN4, ETH_P_IP, IIF);
	expect_ret(p, AS_RET4);
	ck_assert_uint_eq(sst[0].packets, 2);
}
END_TEST

START_TEST(as_one_segment)
{
	use_config("sid a2::a6/128 action End.AS nh6 fc00:9::2 oif svc0 "
		   "iif svc1 source a2:: segs a3::");
	expect_ret(run(IN6, ETH_P_IPV6, IIF), AS_RET6_1);
}
END_TEST

/* The service answers garbage: counted drops, one reason each. */
START_TEST(as_garbage)
{
	struct pkt *p;

	use_config(AS4_LINE);
	/* IPv6 back at an IPv4 proxy */
	p = run(IN6, ETH_P_IPV6, IIF);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	expect_drop(p, DROP_PROXY_RETURN, 1);
	/* cut short: Total Length 33, 20 bytes here */
	p = run("4500002100010000401181c77b0101017c010101", ETH_P_IP, IIF);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	expect_drop(p, DROP_TRUNCATED, 1);
	/* not IPv4 at all */
	p = run("0000000000000000000000000000000000000000ffff", ETH_P_IP, IIF);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	expect_drop(p, DROP_BAD_IP, 1);
	/* TTL 1: no hop left */
	p = run("4500002100010000011181c77b0101017c01010104d204d2000db95968656c6c"
		"6f", ETH_P_IP, IIF);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	expect_drop(p, DROP_HOP_LIMIT, 1);
	/* an empty packet */
	p = run("", ETH_P_IP, IIF);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	expect_drop(p, DROP_TRUNCATED, 2);
	ck_assert_uint_eq(sst[0].packets, 0);
	ck_assert_uint_eq(sst[0].errors, 5);
	/* an inner IPv6 at the IPv4 SID: RFC 8986 4.1.1 as End.DX4 */
	p = run(AS_FWD6, ETH_P_IPV6, OTHER_IF);
	expect_drop(p, DROP_UPPER_LAYER, 1);
}
END_TEST

/* A packet that did not come in on iif is not the proxy's. */
START_TEST(as_other_interface)
{
	struct pkt *p;

	use_config(AS6_LINE);
	p = run(IN6, ETH_P_IPV6, OTHER_IF);
	ck_assert_int_eq(p->verdict, PKT_ACCEPT);
	ck_assert_uint_eq(ws.unmatched, 1);
	/* a Neighbor Advertisement on iif is the kernel's */
	p = run("6000000000203aff" "fc00000000000000000000000000000b"
		"fc00000000000000000000000000000a" "8800000060000000"
		"fc00000000000000000000000000000b" "0201020000000b02",
		ETH_P_IPV6, IIF);
	ck_assert_int_eq(p->verdict, PKT_ACCEPT);
	ck_assert_uint_eq(ws.unmatched, 2);
	ck_assert_uint_eq(sst[0].packets + sst[0].errors, 0);
}
END_TEST

/* An IPv4 and an IPv6 End.AS on one iif: each packet back to the SID of
 * its family. */
START_TEST(as_both_families)
{
	use_config(AS4_LINE "\nsid a1::a7/128 action End.AS nh6 fc00:9::2 "
		   "oif svc0 iif svc1 source a1:: segs a2::,a3::");
	rs->sids[1].iif_index = IIF;
	expect_ret(run(IN6, ETH_P_IPV6, IIF), AS_RET6);
	ck_assert_uint_eq(sst[1].packets, 1);
	ck_assert_uint_eq(sst[0].packets, 0);
	expect_ret(run(IN4, ETH_P_IP, IIF), AS_RET4);
	ck_assert_uint_eq(sst[0].packets, 1);
	ck_assert_uint_eq(sst[1].packets, 1);
}
END_TEST

/* ---- End.AD ------------------------------------------------------------- */

START_TEST(ad_ipv6)
{
	struct pkt *p;

	use_config(AD6_LINE);
	ck_assert_int_eq(cfg->sids[0].behavior, BHV_END_AD);
	p = run(IN6, ETH_P_IPV6, IIF);	/* nothing learned yet */
	ck_assert_int_eq(p->verdict, PKT_DROP);
	expect_drop(p, DROP_PROXY_NO_CACHE, 1);
	memset(sst, 0, sizeof(sst));
	p = run(AD_FWD6, ETH_P_IPV6, OTHER_IF);
	expect_fwd(p, IN6);
	ck_assert_uint_eq(slots[0].len, 40 + 56);
	ck_assert_uint_eq(slots[0].seq, 2);
	ck_assert_uint_eq(slots[1].len, 0);
	p = run(IN6, ETH_P_IPV6, IIF);
	expect_ret(p, AD_RET6);
	ck_assert_uint_eq(sst[0].packets, 2);
	ck_assert_uint_eq(ws.drops[DROP_PROXY_NO_CACHE], 1);
	/* the same headers again within PROXY_RESTAMP_NS: not rewritten */
	run(AD_FWD6, ETH_P_IPV6, OTHER_IF);
	ck_assert_uint_eq(slots[0].seq, 2);
	ctx.now_ns += PROXY_RESTAMP_NS;
	run(AD_FWD6, ETH_P_IPV6, OTHER_IF);
	ck_assert_uint_eq(slots[0].seq, 4);
}
END_TEST

START_TEST(ad_ipv4)
{
	use_config(AD4_LINE);
	ck_assert_int_eq(cfg->sids[0].behavior, BHV_END_AD4);
	expect_fwd(run(AD_FWD4, ETH_P_IPV6, OTHER_IF), IN4);
	expect_ret(run(IN4, ETH_P_IP, IIF), AD_RET4);
}
END_TEST

/* Worker 1 learned last: worker 0's way back takes its headers, and
 * never writes worker 1's slot. */
START_TEST(ad_newest_worker)
{
	struct pkt *p;

	use_config(AD6_LINE);
	run(AD_SL0, ETH_P_IPV6, OTHER_IF);	/* dropped: learns nothing */
	expect_drop(&slot.p, DROP_BAD_SRH, 1);
	ck_assert_uint_eq(ws.icmp_sent, 1);
	ck_assert_uint_eq(slots[0].len, 0);
	memset(sst, 0, sizeof(sst));
	ctx.worker = 1;
	ctx.now_ns += 10;
	run(AD_FWD6, ETH_P_IPV6, OTHER_IF);
	ck_assert_uint_eq(slots[1].len, 96);
	ck_assert_uint_eq(slots[0].len, 0);
	/* an older, different entry in worker 0's slot */
	memcpy(slots[0].hdr, slots[1].hdr, 96);
	slots[0].hdr[8] = 0xee;
	slots[0].len = 96;
	slots[0].stamp = ctx.now_ns - 5;
	ctx.worker = 0;
	p = run(IN6, ETH_P_IPV6, IIF);
	expect_ret(p, AD_RET6);
	/* a slot being written (odd sequence) is not read */
	slots[1].seq = 5;
	p = run(IN6, ETH_P_IPV6, IIF);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(sst[0].drops[DROP_PROXY_NO_CACHE], 1);
}
END_TEST

/* No SRH at End.AD: a counted drop, no error. */
START_TEST(ad_no_srh)
{
	struct pkt *p;

	use_config(AD6_LINE);
	p = run("60000000003529400" "0a00000000000000000000000000000"
		"00a200000000000000000000000000a6" "60000000000d1140123400000000"
		"000000000000000000014321000000000000000000000000000104d204d2000d"
		"5d0768656c6c6f", ETH_P_IPV6, OTHER_IF);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	expect_drop(p, DROP_BAD_SRH, 1);
}
END_TEST

/* ---- End.AM ------------------------------------------------------------- */

START_TEST(am_both_ways)
{
	use_config(AM_LINE);
	expect_fwd(run(AM_FWD, ETH_P_IPV6, OTHER_IF), AM_FWD_OUT);
	ck_assert(slot.p.chain_kept);	/* only the DA changed */
	expect_ret(run(AM_FWD_OUT, ETH_P_IPV6, IIF), AM_RET_OUT);
	ck_assert(!slot.p.chain_kept);	/* Segments Left did */
	expect_ret(run(AM_RET_NAT, ETH_P_IPV6, IIF), AM_RET_NAT_OUT);
	ck_assert_uint_eq(sst[0].packets, 3);
}
END_TEST

START_TEST(am_garbage)
{
	struct pkt *p;

	use_config(AM_LINE);
	p = run(AM_NOSRH, ETH_P_IPV6, IIF);	/* the SRH stripped */
	expect_drop(p, DROP_PROXY_RETURN, 1);
	p = run(AM_RET_OUT, ETH_P_IPV6, IIF);	/* fine: SL 1 -> 0 */
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	{
		uint8_t buf[256];
		size_t n = hex2bin(AM_RET_OUT, buf, sizeof(buf));

		buf[43] = 0;	/* SL 0 */
		p = test_pkt(&slot, buf, n, ETH_P_IPV6);
		p->indev = IIF;
		srv6_process(&ctx, p);
	}
	expect_drop(p, DROP_PROXY_RETURN, 2);
	p = run(IN4, ETH_P_IP, IIF);
	expect_drop(p, DROP_PROXY_RETURN, 3);
	p = run("6000000000552b4000a0", ETH_P_IPV6, IIF);
	expect_drop(p, DROP_TRUNCATED, 1);
}
END_TEST

/* ---- the way back into the kernel ---------------------------------------- */

START_TEST(reinject_ways)
{
	enum drop_reason why;
	struct pkt *p;

	srt[0].ifindex = 33;
	use_config(AS4_LINE);
	p = run(AS_FWD4, ETH_P_IPV6, OTHER_IF);	/* IPv4 of the IPv6 hook */
	ck_assert_int_eq(reinject_decide_single(cfg, rs, srt, p, &why),
			 REINJECT_DEV);
	p = run(IN4, ETH_P_IP, IIF);		/* IPv6 of the IPv4 hook */
	ck_assert_int_eq(reinject_decide_single(cfg, rs, srt, p, &why),
			 REINJECT_OWN_DEV);
	use_config(AS6_LINE);
	p = run(AS_FWD6, ETH_P_IPV6, OTHER_IF);
	ck_assert_int_eq(reinject_decide_single(cfg, rs, srt, p, &why),
			 REINJECT_PAYLOAD);
	use_config(AM_LINE);
	rs->payload = PAYLOAD_KEEP_CHAIN;	/* Linux 7.2 */
	p = run(AM_FWD, ETH_P_IPV6, OTHER_IF);
	ck_assert_int_eq(reinject_decide_single(cfg, rs, srt, p, &why),
			 REINJECT_PAYLOAD);
	p = run(AM_FWD_OUT, ETH_P_IPV6, IIF);
	ck_assert_int_eq(reinject_decide_single(cfg, rs, srt, p, &why),
			 REINJECT_OWN_DEV);
}
END_TEST

/* ---- a TCP super-packet's way back (kernel-encap) ------------------------ */

/* 1234::1 -> 4321::1, TCP 1234 -> 80 (ACK), 8 bytes of payload: what
 * the service sends back, a super-packet as NFQUEUE marks one. */
static const char TCP6[] =
	"60000000001c0640123400000000000000000000000000014321000000000000"
	"000000000000000104d2005000000001000000015010ffff00000000"
	"6461746164617461";
/* End.AS's result (AS6_LINE): as AS_RET6, Payload Length 108, the inner
 * hop limit 63 */
static const char TCP6_RET[] =
	"60000000006c2b4000a1000000000000000000000000000000a2000000000000"
	"0000000000000000290404010100000000a30000000000000000000000000000"
	"00a2000000000000000000000000000060000000001c063f1234000000000000"
	"00000000000000014321000000000000000000000000000104d2005000000001"
	"000000015010ffff000000006461746164617461";

/* The kernel's seg6 route of End.AS's list (a2::, a3::; encap), mark
 * 0x1ffe, and its source a1:: (rs->kencap_tunsrc) or another. */
static void use_kencap(const char *tunsrc)
{
	struct kencap_entry *e = calloc(1, sizeof(*e));

	ck_assert_ptr_nonnull(e);
	e->mode = ENCAP_MODE_ENCAP;
	e->sl = cfg->proxies[0].segs;
	e->mark = 0x1ffe;
	rs->kencaps = e;
	rs->nkencaps = 1;
	rs->kencap_on = true;
	ck_assert_int_eq(inet_pton(AF_INET6, tunsrc, &rs->kencap_tunsrc), 1);
}

static struct pkt *run_gso(const char *in)
{
	uint8_t buf[2048];
	size_t n = hex2bin(in, buf, sizeof(buf));
	struct pkt *p = test_pkt(&slot, buf, n, ETH_P_IPV6);

	p->indev = IIF;
	p->gso = true;
	srv6_process(&ctx, p);
	return p;
}

/* Issue 22: End.AS's result of a TCP super-packet is the kernel's
 * encapsulation of its list (the inner super-packet whole with the
 * route's mark, REINJECT_KERNEL_INNER), never cut; the bytes are
 * End.AS's all the same.  With another outer source than the kernel's,
 * or no route, the cut's reason. */
START_TEST(as_super_packet_kernel_encap)
{
	enum drop_reason why;
	struct pkt *p;

	use_config(AS6_LINE);
	use_kencap("a1::");
	p = run_gso(TCP6);
	expect_ret(p, TCP6_RET);
	ck_assert_int_eq(p->facts.kernel, PKT_KERNEL_ENCAP);
	ck_assert_uint_eq(p->facts.kernel_mark, 0x1ffe);
	ck_assert(!p->facts.kernel_from_original);
	ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &why),
			 REINJECT_KERNEL_INNER);

	use_config(AS6_LINE);
	use_kencap("a9::");			/* not End.AS's source */
	p = run_gso(TCP6);
	expect_ret(p, TCP6_RET);
	ck_assert_int_eq(p->facts.kernel, PKT_KERNEL_NONE);
	ck_assert_int_eq(p->facts.kencap_fallback, KENCAP_FB_SOURCE);
	ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &why),
			 REINJECT_SEGMENT);

	use_config(AS6_LINE);			/* no kernel route */
	p = run_gso(TCP6);
	ck_assert_int_eq(p->facts.kernel, PKT_KERNEL_NONE);
	ck_assert_int_eq(p->facts.kencap_fallback, KENCAP_FB_OFF);
}
END_TEST

/* Issue 19: while kernel-encap's mark guard holds (its marks do not
 * survive), End.AS's super-packets back are cut (KENCAP_FB_HELD), not
 * handed by a mark; a worker's probe token lets one through, taken. */
START_TEST(as_super_packet_mark_held)
{
	bool held = true, probe = false;
	struct pkt *p;

	use_config(AS6_LINE);
	use_kencap("a1::");
	ctx.kencap_mark_held = &held;
	ctx.kencap_probe = &probe;
	p = run_gso(TCP6);
	expect_ret(p, TCP6_RET);
	ck_assert_int_eq(p->facts.kernel, PKT_KERNEL_NONE);
	ck_assert_int_eq(p->facts.kencap_fallback, KENCAP_FB_HELD);

	use_config(AS6_LINE);
	use_kencap("a1::");
	probe = true;
	ctx.kencap_mark_held = &held;
	ctx.kencap_probe = &probe;
	p = run_gso(TCP6);
	ck_assert_int_eq(p->facts.kernel, PKT_KERNEL_ENCAP);
	ck_assert(!probe);			/* the probe taken */
}
END_TEST

/* ---- the MTU of the way back --------------------------------------------- */

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP	0x10000
#endif
#define UP	(IFF_UP | IFF_LOWER_UP | IFF_RUNNING)

static uint8_t nlbuf[8192];

static void mirror_link(struct rtmirror *m, int ifindex, const char *name,
			uint32_t mtu, const char *addr, unsigned plen)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct ifaddrmsg *ifa;
	struct in6_addr a;

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = UP;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	nlh = mnl_nlmsg_put_header(nlbuf);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	nlh->nlmsg_type = RTM_NEWADDR;
	ifa->ifa_family = AF_INET6;
	ifa->ifa_prefixlen = (uint8_t)plen;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (uint32_t)ifindex;
	ck_assert_int_eq(inet_pton(AF_INET6, addr, &a), 1);
	mnl_attr_put(nlh, IFA_ADDRESS, 16, &a);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

/* dst/plen in the main table dev oif. */
static void mirror_route(struct rtmirror *m, const char *dst, unsigned plen,
			 uint32_t oif)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	struct in6_addr a;

	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_flags = NLM_F_REPLACE;
	rtm->rtm_family = AF_INET6;
	rtm->rtm_dst_len = (uint8_t)plen;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_TABLE, RT_TABLE_MAIN);
	ck_assert_int_eq(inet_pton(AF_INET6, dst, &a), 1);
	mnl_attr_put(nlh, RTA_DST, 16, &a);
	mnl_attr_put_u32(nlh, RTA_OIF, oif);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

/* End.AS's way back toward a2:: over a link of MTU 1400: a packet that
 * fits goes (the bytes of as_ipv6), one that would not with the 80 bytes
 * pushed is answered with Packet Too Big, MTU 1320, to its source, from
 * the gateway's address toward it, quoting it as it came back. */
START_TEST(as_too_big)
{
	struct rtmirror *m = rtmirror_new(NULL);
	uint8_t big[1400];
	size_t n;
	struct pkt *p;

	ck_assert_ptr_nonnull(m);
	mirror_link(m, 2, "core", 1400, "fc00:2::1", 64);
	mirror_link(m, IIF, "svc1", 1500, "fc00:7::1", 64);
	mirror_route(m, "a2::", 16, 2);
	mirror_route(m, "1234::", 16, IIF);
	use_config(AS6_LINE);
	ctx.mirror = m;
	expect_ret(run(IN6, ETH_P_IPV6, IIF), AS_RET6);
	n = hex2bin(IN6, big, sizeof(big));
	memset(big + n, 0x55, sizeof(big) - n);
	big[4] = (sizeof(big) - 40) >> 8;	/* Payload Length */
	big[5] = (sizeof(big) - 40) & 0xff;
	p = test_pkt(&slot, big, sizeof(big), ETH_P_IPV6);
	p->indev = IIF;
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_int_eq(p->outcome, PKT_OUT_ICMP);
	ck_assert_uint_eq(p->data[6], 58);		/* ICMPv6 */
	ck_assert_uint_eq(p->data[40], 2);		/* Packet Too Big */
	ck_assert_uint_eq((uint32_t)p->data[44] << 24 | p->data[45] << 16 |
			  p->data[46] << 8 | p->data[47], 1400 - 80);
	n = hex2bin("12340000000000000000000000000001", want, sizeof(want));
	ck_assert_bytes(p->data + 24, 16, want, n);	/* to the source */
	n = hex2bin("fc000007000000000000000000000001", want, sizeof(want));
	ck_assert_bytes(p->data + 8, 16, want, n);	/* from fc00:7::1 */
	/* the quoted packet: hop limit as it came (64), not decremented */
	ck_assert_uint_eq(p->data[48 + 7], 64);
	ck_assert_uint_eq(sst[0].drops[DROP_TOO_BIG], 1);
	ctx.mirror = NULL;
	rtmirror_free(m);
}
END_TEST

/* ---- an error back into the service -------------------------------------- */

/* The service's link svc1 (IIF) as the mirror knows it: an Ethernet link
 * of MTU 1500, 02:00:00:00:07:01, fc00:7::1/64 and 10.7.0.1/24. */
static void mirror_service_link(struct rtmirror *m)
{
	static const uint8_t mac[ETH_ALEN] = { 2, 0, 0, 0, 7, 1 };
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	struct ifaddrmsg *ifa;
	struct in_addr a4;

	mirror_link(m, IIF, "svc1", 1500, "fc00:7::1", 64);
	nlh = mnl_nlmsg_put_header(nlbuf);
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	nlh->nlmsg_type = RTM_NEWLINK;
	ifi->ifi_index = IIF;
	ifi->ifi_type = ARPHRD_ETHER;
	ifi->ifi_flags = UP;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "svc1");
	mnl_attr_put_u32(nlh, IFLA_MTU, 1500);
	mnl_attr_put(nlh, IFLA_ADDRESS, ETH_ALEN, mac);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	nlh = mnl_nlmsg_put_header(nlbuf);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	nlh->nlmsg_type = RTM_NEWADDR;
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = 24;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = IIF;
	ck_assert_int_eq(inet_pton(AF_INET, "10.7.0.1", &a4), 1);
	mnl_attr_put(nlh, IFA_LOCAL, 4, &a4);
	mnl_attr_put(nlh, IFA_ADDRESS, 4, &a4);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

/* The frame the service sent p in came from 02:00:00:00:07:02. */
static void from_service(struct pkt *p)
{
	static const uint8_t mac[ETH_ALEN] = { 2, 0, 0, 0, 7, 2 };

	memcpy(p->hw_src, mac, ETH_ALEN);
	p->hw_src_len = ETH_ALEN;
}

/* IN6 / IN4 grown to 1400 bytes (0x55 after it; IPv4 with DF), as the
 * service sends it back. */
static size_t big_packet(uint8_t *b, size_t size, bool v4)
{
	size_t n = hex2bin(v4 ? IN4 : IN6, b, size);

	memset(b + n, 0x55, size - n);
	if (v4) {
		n = hex2bin("450005780001400040113c707b0101017c010101", b,
			    size);
		ck_assert_uint_eq(n, 20);
	} else {
		b[4] = (size - 40) >> 8;	/* Payload Length */
		b[5] = (size - 40) & 0xff;
	}
	return size;
}

/* pkt_tx_failed_fn: the test's frames are not sent (fd -1). */
static void frame_unsent(void *cookie, int err, void *arg)
{
	(void)cookie;
	(void)arg;
	ck_assert_int_eq(err, EBADF);
}

/* The frame reinject_packet() queued for p: out of IIF, exactly
 * eth + hdr (hex) + the first qlen bytes of `quoted`. */
static void expect_service_frame(const struct pkt_tx *tx, const char *hdr,
				 const uint8_t *quoted, size_t qlen)
{
	const struct iovec *iov;
	size_t n, niov;

	ck_assert_uint_eq(pkt_tx_count(tx), 1);
	ck_assert_uint_eq(pkt_tx_ifindex(tx, 0), IIF);
	iov = pkt_tx_iov(tx, 0, &niov);
	ck_assert_uint_eq(niov, 1);
	n = hex2bin(hdr, want, sizeof(want));
	memcpy(want + n, quoted, qlen);
	ck_assert_bytes(iov[0].iov_base, iov[0].iov_len, want, n + qlen);
}

/* One case of as_too_big_back_to_service: the error of `line`'s SID
 * (End.AD: once it learned the headers of `fwd`, whose inner packet is
 * IN6; NULL for none) about
 * the 1400-byte packet from the service is REINJECT_SERVICE
 * and, with a queue socket q, the frame of `eth` + `hdr` + the first qlen
 * bytes of the packet out of IIF; the same packet without its frame's
 * source goes the way `without` says. */
static void back_to_service(const char *line, const char *fwd, bool v4,
			    struct nfq *q,
			    struct reinject_io *io, const char *eth,
			    const char *hdr, size_t qlen,
			    enum reinject_action without)
{
	uint16_t hw = v4 ? ETH_P_IP : ETH_P_IPV6;
	char frame[256];
	uint8_t big[1400];
	enum drop_reason why;
	struct pkt *p;

	use_config(line);
	memset(sst, 0, sizeof(sst));
	if (fwd) {	/* toward the service, its next hop not in m */
		const struct rtmirror *m = ctx.mirror;

		ctx.mirror = NULL;
		expect_fwd(run(fwd, ETH_P_IPV6, OTHER_IF), IN6);
		ctx.mirror = m;
	}
	p = test_pkt(&slot, big, big_packet(big, sizeof(big), v4), hw);
	p->indev = IIF;
	from_service(p);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->outcome, PKT_OUT_ICMP);
	ck_assert(p->facts.icmp_to_service);
	ck_assert_uint_eq(sst[0].drops[DROP_TOO_BIG], 1);
	ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &why),
			 REINJECT_SERVICE);
	if (q && io->pkt_fd >= 0) {
		reinject_packet(cfg, rs, srt, p, q, io, &ws);
		snprintf(frame, sizeof(frame), "%s%s", eth, hdr);
		expect_service_frame(io->tx, frame, big, qlen);
		pkt_tx_flush(-1, io->tx, frame_unsent, NULL);	/* none sent */
	}
	p = test_pkt(&slot, big, sizeof(big), hw);
	p->indev = IIF;				/* no frame source */
	srv6_process(&ctx, p);
	ck_assert(p->facts.icmp_to_service);
	ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &why), without);
}

/* Issue 22: End.AS's Packet Too Big / Fragmentation Needed about a packet
 * back from the service goes back the way it came, into the service
 * (its NAT translates it): out of the in-interface (IIF) to the
 * service's 02:00:00:00:07:02 from svc1's own 02:00:00:00:07:01, from
 * svc1's address, although the route to the sender is another link's
 * (the old code sent it there by routing, from that link's address:
 * REINJECT_PAYLOAD / REINJECT_LOCAL).  Expected bytes: scapy's
 * IPv6()/ICMPv6PacketTooBig(mtu=1320), IP()/ICMP(type=3, code=4,
 * nexthopmtu=1320) of the quoted packet.  Without the frame's source
 * address, the ways of before. */
START_TEST(as_too_big_back_to_service)
{
	struct rtmirror *m = rtmirror_new(NULL);
	char err[256];
	struct nfq *q = nfq_socket_open(64000 + (unsigned)getpid() % 500,
					NFQ_DEFAULT_MAXLEN, err, sizeof(err));
	struct reinject_io io = { .pkt_fd = pkt_sock_open(), .raw_fd = -1,
				  .tx = pkt_tx_new(), .mirror = m };

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(io.tx);
	if (!q || io.pkt_fd < 0)
		fprintf(stderr, "as_too_big_back_to_service: frames skipped "
			"(%s)\n", q ? strerror(errno) : err);
	mirror_link(m, 2, "core", 1400, "fc00:2::1", 64);
	mirror_service_link(m);
	mirror_route(m, "a2::", 16, 2);
	mirror_route(m, "a3::", 16, 2);
	mirror_route(m, "1234::", 16, 2);	/* the sender: not by svc1 */
	ctx.mirror = m;
	back_to_service(AS6_LINE, NULL, false, q, &io, "02000000070202000000070186dd",
			"6000000004d83a40fc000007000000000000000000000001"
			"123400000000000000000000000000010200196b00000528",
			1232, REINJECT_PAYLOAD);
	back_to_service(AS4_LINE, NULL, true, q, &io, "0200000007020200000007010800",
			"45000240000000004001f2b30a0700017b010101"
			"030445f700000528", 548, REINJECT_LOCAL);
	/* End.AD pushes what it learned (96 bytes toward a3::) */
	back_to_service(AD6_LINE, AD_FWD6, false, q, &io,
			"02000000070202000000070186dd",
			"6000000004d83a40fc000007000000000000000000000001"
			"123400000000000000000000000000010200197b00000518",
			1232, REINJECT_PAYLOAD);
	ctx.mirror = NULL;
	rtmirror_free(m);
	if (io.pkt_fd >= 0)
		close(io.pkt_fd);
	pkt_tx_free(io.tx);
	if (q)
		nfq_socket_close(q);
}
END_TEST

/* ---- the config --------------------------------------------------------- */

static unsigned nerrors;

static void count_error(void *arg, const char *file, unsigned line,
			const char *msg)
{
	(void)arg;
	(void)file;
	(void)line;
	(void)msg;
	nerrors++;
}

static bool parses(const char *lines)
{
	char text[1024];
	struct config *c;

	snprintf(text, sizeof(text), "queue 0\n%s\n", lines);
	nerrors = 0;
	c = config_parse_buffer("t.conf", text, strlen(text), count_error,
				NULL);
	config_free(c);
	return c != NULL;
}

START_TEST(config_lines)
{
	const struct proxy_conf *pc;

	ck_assert(parses(AS6_LINE));
	ck_assert(parses(AD4_LINE));
	ck_assert(parses(AM_LINE));
	ck_assert(!parses("sid a1::a6/128 action End.AS nh6 fc00:9::2 oif svc0 "
			  "iif svc1 segs a2::"));	/* no source */
	ck_assert(!parses("sid a1::a6/128 action End.AD nh6 fc00:9::2 "
			  "oif svc0"));			/* no iif */
	ck_assert(!parses("sid a1::a6/128 action End.AD nh6 fc00:9::2 "
			  "nh4 10.0.0.1 oif svc0 iif svc1"));	/* both */
	ck_assert(!parses("sid a1::a6/128 action End.AM nh4 10.0.0.1 "
			  "oif svc0 iif svc1"));
	ck_assert(!parses("sid a1::a6/128 action End.AD nh6 fc00:9::2 "
			  "oif svc0 iif svc1 segs a2::"));
	ck_assert(!parses("sid a1::a6/128 action End.X nh6 fc00:9::2 "
			  "iif svc1"));
	ck_assert(!parses(AD6_LINE "\n" "sid a3::/128 action End.AM nh6 "
			  "fc00:9::2 oif svc0 iif svc1"));	/* same iif */
	ck_assert(parses(AD6_LINE "\n" "sid a3::/128 action End.AD nh4 "
			 "10.9.0.2 oif svc0 iif svc1"));	/* IPv4 too */
	ck_assert(!parses("sid a1::a6/128 action End.AS4 nh4 10.0.0.1 "
			  "oif svc0 iif svc1 source a1:: segs a2::"));
	use_config(AS6_LINE);
	ck_assert_uint_eq(cfg->nproxies, 1);
	pc = &cfg->proxies[0];
	ck_assert_uint_eq(pc->sid, 0);
	ck_assert_uint_eq(pc->hdr_len, 40 + 8 + 32);
	ck_assert_str_eq(cfg->sids[0].iif, "svc1");
}
END_TEST

static Suite *proxy_suite(void)
{
	Suite *s = suite_create("proxy");
	TCase *as = tcase_create("End.AS");
	TCase *ad = tcase_create("End.AD");
	TCase *am = tcase_create("End.AM");
	TCase *misc = tcase_create("misc");

	tcase_add_checked_fixture(as, setup, teardown);
	tcase_add_checked_fixture(ad, setup, teardown);
	tcase_add_checked_fixture(am, setup, teardown);
	tcase_add_checked_fixture(misc, setup, teardown);
	tcase_add_test(as, as_ipv6);
	tcase_add_test(as, as_ipv4);
	tcase_add_test(as, as_one_segment);
	tcase_add_test(as, as_garbage);
	tcase_add_test(as, as_other_interface);
	tcase_add_test(as, as_too_big);
	tcase_add_test(as, as_too_big_back_to_service);
	tcase_add_test(as, as_both_families);
	tcase_add_test(ad, ad_ipv6);
	tcase_add_test(ad, ad_ipv4);
	tcase_add_test(ad, ad_newest_worker);
	tcase_add_test(ad, ad_no_srh);
	tcase_add_test(am, am_both_ways);
	tcase_add_test(am, am_garbage);
	tcase_add_test(misc, reinject_ways);
	tcase_add_test(misc, as_super_packet_kernel_encap);
	tcase_add_test(misc, as_super_packet_mark_held);
	tcase_add_test(misc, config_lines);
	suite_add_tcase(s, as);
	suite_add_tcase(s, ad);
	suite_add_tcase(s, am);
	suite_add_tcase(s, misc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(proxy_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
