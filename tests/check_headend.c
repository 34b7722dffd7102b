/* check_headend.c - H.Encaps, H.Encaps.Red, H.Insert, H.Insert.Red, byte
 * for byte against the kernel's own seg6 lwtunnel.
 *
 * Expected bytes were captured once from Linux 6.18 (iproute2 6.1): three
 * namespaces h1 -- r -- h2 joined by veths; on r
 *
 *   ip sr tunsrc set fc00:ff::1
 *   ip -6 route add fc00:a::/64 via fc00:23::3 dev he_c
 *   ip -6 route add fc00:100:N::/64 encap seg6 mode MODE segs SEGS dev he_c
 *   ip    route add 10.100.N.0/24  encap seg6 mode MODE segs SEGS dev he_c
 *
 * for N = 1..9 = (encap, encap.red, inline) x (fc00:a::1 ; fc00:a::1,
 * fc00:a::2 ; fc00:a::1,fc00:a::2,fc00:a::3) (no IPv4 route for inline:
 * the kernel refuses IPv4 there too).  scapy on h1 sent UDP to
 * fc00:100:N::1 (tc 0xb9, flow label 0x12345, hop limit 50) and to
 * 10.100.N.1 (tos 0xb9, ttl 50); `tcpdump -Q out -i he_c` on r captured the
 * result, pasted below without its Ethernet header.
 *
 * The kernel forwarded each result after its seg6 encap and so decremented
 * the outer hop limit once (50 -> 49 for IPv6, 64 -> 63 for IPv4).  srv6d
 * leaves that decrement to the kernel's forwarding after the verdict, so the
 * bytes srv6d must produce are the capture with the outer hop limit + 1:
 * kernel_expect() adds it (byte 7) and nothing else.
 *
 * The kernel has no H.Insert.Red; its expected bytes were built with scapy
 * (IPv6ExtHdrSegmentRouting, the draft's reduced SRH).
 */
#include <arpa/inet.h>
#include <check.h>
#include <linux/if_ether.h>
#include <stdlib.h>
#include <string.h>

#include "headend.h"
#include "hmac.h"
#include "srv6.h"
#include "testutil.h"

/* Packets as sent by h1 (index N as above; same payload for all). */
static const char *const in6[10] = {
	NULL,
	"6b91234500151132fc000012000000000000000000000001fc00010000010000000000000000000104d2162e00150a9f73727636642d68656164656e64",
	"6b91234500151132fc000012000000000000000000000001fc00010000020000000000000000000104d2162e00150a9e73727636642d68656164656e64",
	"6b91234500151132fc000012000000000000000000000001fc00010000030000000000000000000104d2162e00150a9d73727636642d68656164656e64",
	"6b91234500151132fc000012000000000000000000000001fc00010000040000000000000000000104d2162e00150a9c73727636642d68656164656e64",
	"6b91234500151132fc000012000000000000000000000001fc00010000050000000000000000000104d2162e00150a9b73727636642d68656164656e64",
	"6b91234500151132fc000012000000000000000000000001fc00010000060000000000000000000104d2162e00150a9a73727636642d68656164656e64",
	"6b91234500151132fc000012000000000000000000000001fc00010000070000000000000000000104d2162e00150a9973727636642d68656164656e64",
	"6b91234500151132fc000012000000000000000000000001fc00010000080000000000000000000104d2162e00150a9873727636642d68656164656e64",
	"6b91234500151132fc000012000000000000000000000001fc00010000090000000000000000000104d2162e00150a9773727636642d68656164656e64",
};

static const char *const in4[7] = {
	NULL,
	"45b9002912340000321160660a0c00010a64010104d2162e0015ee4373727636642d68656164656e64",
	"45b900291234000032115f660a0c00010a64020104d2162e0015ed4373727636642d68656164656e64",
	"45b900291234000032115e660a0c00010a64030104d2162e0015ec4373727636642d68656164656e64",
	"45b900291234000032115d660a0c00010a64040104d2162e0015eb4373727636642d68656164656e64",
	"45b900291234000032115c660a0c00010a64050104d2162e0015ea4373727636642d68656164656e64",
	"45b900291234000032115b660a0c00010a64060104d2162e0015e94373727636642d68656164656e64",
};

/* What the kernel sent out of he_c (outer hop limit already decremented). */
static const char *const cap6[10] = {
	NULL,
	/* 1: encap, 1 segment */
	"6b91234500552b31fc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"2902040000000000fc00000a000000000000000000000001"
	"6b91234500151132fc000012000000000000000000000001fc00010000010000000000000000000104d2162e00150a9f73727636642d68656164656e64",
	/* 2: encap, 2 segments */
	"6b91234500652b31fc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"2904040101000000fc00000a000000000000000000000002fc00000a000000000000000000000001"
	"6b91234500151132fc000012000000000000000000000001fc00010000020000000000000000000104d2162e00150a9e73727636642d68656164656e64",
	/* 3: encap, 3 segments */
	"6b91234500752b31fc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"2906040202000000fc00000a000000000000000000000003fc00000a000000000000000000000002fc00000a000000000000000000000001"
	"6b91234500151132fc000012000000000000000000000001fc00010000030000000000000000000104d2162e00150a9d73727636642d68656164656e64",
	/* 4: encap.red, 1 segment: no SRH */
	"6b912345003d2931fc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"6b91234500151132fc000012000000000000000000000001fc00010000040000000000000000000104d2162e00150a9c73727636642d68656164656e64",
	/* 5: encap.red, 2 segments */
	"6b91234500552b31fc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"2902040100000000fc00000a000000000000000000000002"
	"6b91234500151132fc000012000000000000000000000001fc00010000050000000000000000000104d2162e00150a9b73727636642d68656164656e64",
	/* 6: encap.red, 3 segments */
	"6b91234500652b31fc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"2904040201000000fc00000a000000000000000000000003fc00000a000000000000000000000002"
	"6b91234500151132fc000012000000000000000000000001fc00010000060000000000000000000104d2162e00150a9a73727636642d68656164656e64",
	/* 7: inline, 1 segment */
	"6b912345003d2b31fc000012000000000000000000000001fc00000a000000000000000000000001"
	"1104040101000000fc000100000700000000000000000001fc00000a000000000000000000000001"
	"04d2162e00150a9973727636642d68656164656e64",
	/* 8: inline, 2 segments */
	"6b912345004d2b31fc000012000000000000000000000001fc00000a000000000000000000000001"
	"1106040202000000fc000100000800000000000000000001fc00000a000000000000000000000002fc00000a000000000000000000000001"
	"04d2162e00150a9873727636642d68656164656e64",
	/* 9: inline, 3 segments */
	"6b912345005d2b31fc000012000000000000000000000001fc00000a000000000000000000000001"
	"1108040303000000fc000100000900000000000000000001fc00000a000000000000000000000003fc00000a000000000000000000000002fc00000a000000000000000000000001"
	"04d2162e00150a9773727636642d68656164656e64",
};

static const char *const cap4[7] = {
	NULL,
	/* 1: encap, 1 segment */
	"6000000000412b3ffc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"0402040000000000fc00000a000000000000000000000001"
	"45b9002912340000321160660a0c00010a64010104d2162e0015ee4373727636642d68656164656e64",
	/* 2: encap, 2 segments */
	"6000000000512b3ffc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"0404040101000000fc00000a000000000000000000000002fc00000a000000000000000000000001"
	"45b900291234000032115f660a0c00010a64020104d2162e0015ed4373727636642d68656164656e64",
	/* 3: encap, 3 segments */
	"6000000000612b3ffc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"0406040202000000fc00000a000000000000000000000003fc00000a000000000000000000000002fc00000a000000000000000000000001"
	"45b900291234000032115e660a0c00010a64030104d2162e0015ec4373727636642d68656164656e64",
	/* 4: encap.red, 1 segment: no SRH, next header 4 */
	"600000000029043ffc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"45b900291234000032115d660a0c00010a64040104d2162e0015eb4373727636642d68656164656e64",
	/* 5: encap.red, 2 segments */
	"6000000000412b3ffc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"0402040100000000fc00000a000000000000000000000002"
	"45b900291234000032115c660a0c00010a64050104d2162e0015ea4373727636642d68656164656e64",
	/* 6: encap.red, 3 segments */
	"6000000000512b3ffc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"0404040201000000fc00000a000000000000000000000003fc00000a000000000000000000000002"
	"45b900291234000032115b660a0c00010a64060104d2162e0015e94373727636642d68656164656e64",
};

/* inline, 2 segments (route N = 8), on a packet with a Hop-by-Hop header
 * (tc 0, flow label 0): Linux inserts the SRH in front of it. */
static const char in6_hbh[] =
	"60000000001d0032fc000012000000000000000000000001fc000100000800000000000000000001"
	"110001040000000004d2162e00150a9873727636642d68656164656e64";
static const char cap6_hbh[] =
	"6000000000552b31fc000012000000000000000000000001fc00000a000000000000000000000001"
	"0006040202000000fc000100000800000000000000000001fc00000a000000000000000000000002fc00000a000000000000000000000001"
	"110001040000000004d2162e00150a9873727636642d68656164656e64";

/* H.Insert.Red of in6[7] (scapy-built, no kernel counterpart): SRH holds
 * (D, Sn..S2), SL = n, Last Entry = n - 1, DA = S1; hop limit untouched. */
static const char *const insred[4] = {
	NULL,
	"6b912345002d2b32fc000012000000000000000000000001fc00000a000000000000000000000001"
	"1102040100000000fc000100000700000000000000000001"
	"04d2162e00150a9973727636642d68656164656e64",
	"6b912345003d2b32fc000012000000000000000000000001fc00000a000000000000000000000001"
	"1104040201000000fc000100000700000000000000000001fc00000a000000000000000000000002"
	"04d2162e00150a9973727636642d68656164656e64",
	"6b912345004d2b32fc000012000000000000000000000001fc00000a000000000000000000000001"
	"1106040302000000fc000100000700000000000000000001fc00000a000000000000000000000003fc00000a000000000000000000000002"
	"04d2162e00150a9973727636642d68656164656e64",
};

#define POL_INDEX 1	/* not 0: the counters must land in the right slot */

static struct test_slot slot;
static struct config cfg;
static struct policy pol;
static struct worker_stats wstats;
static struct sid_stats pstats[3];
static struct proc_ctx ctx;

static void setup(void)
{
	memset(&cfg, 0, sizeof(cfg));
	memset(&pol, 0, sizeof(pol));
	memset(&wstats, 0, sizeof(wstats));
	memset(pstats, 0, sizeof(pstats));
	memset(&ctx, 0, sizeof(ctx));
	inet_pton(AF_INET6, "fc00:ff::1", &cfg.encap_source);
	cfg.has_encap_source = true;
	cfg.policies = &pol;
	cfg.npolicies = 1;
	ctx.cfg = &cfg;
	ctx.stats = &wstats;
	ctx.policy_stats = pstats;
}

/* Policy with segments fc00:a::1 .. fc00:a::n. */
static void set_policy(enum encap_mode mode, int family, unsigned nsegs)
{
	pol.family = family;
	pol.mode = mode;
	pol.index = POL_INDEX;
	pol.nlists = 1;
	pol.weights[0] = 1;
	pol.sl.nsegs = nsegs;
	for (unsigned i = 0; i < nsegs; i++) {
		memset(&pol.sl.segs[i], 0, 16);
		pol.sl.segs[i].s6_addr[0] = 0xfc;
		pol.sl.segs[i].s6_addr[3] = 0x0a;
		pol.sl.segs[i].s6_addr[15] = (uint8_t)(i + 1);
	}
}

static struct pkt *load(const char *hex, uint16_t hw_proto)
{
	static uint8_t buf[2048];
	size_t len = hex2bin(hex, buf, sizeof(buf));

	return test_pkt(&slot, buf, len, hw_proto);
}

/* The kernel's capture with its forwarding decrement undone (see top). */
static size_t kernel_expect(const char *hex, uint8_t *buf, size_t cap)
{
	size_t len = hex2bin(hex, buf, cap);

	ck_assert_uint_ge(len, IPV6_HDR_LEN);
	buf[7]++;
	return len;
}

/* Apply the policy to `in` and compare with `want`; check the counters. */
static void expect_forward(const char *in, uint16_t hw_proto,
			   const uint8_t *want, size_t wlen)
{
	struct pkt *p = load(in, hw_proto);
	uint32_t orig = p->orig_len;

	headend_apply(&ctx, &pol, p);
	test_pcap_write(p->data, p->len);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, wlen);
	ck_assert_ptr_eq(p->data + p->len, slot.buf + PKT_HEADROOM + orig);
	ck_assert_uint_eq(pstats[POL_INDEX].packets, 1);
	ck_assert_uint_eq(pstats[POL_INDEX].bytes, orig);
	ck_assert_uint_eq(pstats[POL_INDEX].errors, 0);
	ck_assert_uint_eq(pstats[0].packets, 0);
}

static void expect_kernel(enum encap_mode mode, unsigned nsegs, unsigned n,
			  bool v4)
{
	uint8_t want[2048];
	size_t wlen;

	set_policy(mode, v4 ? AF_INET : AF_INET6, nsegs);
	wlen = kernel_expect(v4 ? cap4[n] : cap6[n], want, sizeof(want));
	expect_forward(v4 ? in4[n] : in6[n], v4 ? ETH_P_IP : ETH_P_IPV6,
		       want, wlen);
}

static void expect_drop(struct pkt *p, enum drop_reason why)
{
	uint8_t *data = p->data;
	uint32_t len = p->len;

	headend_apply(&ctx, &pol, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_ptr_eq(p->data, data);	/* untouched */
	ck_assert_uint_eq(p->len, len);
	ck_assert_uint_eq(wstats.drops[why], 1);
	ck_assert_uint_eq(pstats[POL_INDEX].drops[why], 1);
	ck_assert_uint_eq(pstats[POL_INDEX].errors, 1);
	ck_assert_uint_eq(pstats[POL_INDEX].packets, 0);
}

/* ---- RFC 8986 5.1 H.Encaps ---------------------------------------------- */

START_TEST(test_encaps_v6)
{
	expect_kernel(ENCAP_MODE_ENCAP, (unsigned)_i, (unsigned)_i, false);
}
END_TEST

START_TEST(test_encaps_v4)
{
	expect_kernel(ENCAP_MODE_ENCAP, (unsigned)_i, (unsigned)_i, true);
}
END_TEST

/* ---- RFC 8986 5.2 H.Encaps.Red ------------------------------------------ */

START_TEST(test_encaps_red_v6)
{
	expect_kernel(ENCAP_MODE_ENCAP_RED, (unsigned)_i, 3 + (unsigned)_i,
		      false);
}
END_TEST

START_TEST(test_encaps_red_v4)
{
	expect_kernel(ENCAP_MODE_ENCAP_RED, (unsigned)_i, 3 + (unsigned)_i,
		      true);
}
END_TEST

/* ---- H.Insert (Linux inline) -------------------------------------------- */

START_TEST(test_insert_v6)
{
	expect_kernel(ENCAP_MODE_INLINE, (unsigned)_i, 6 + (unsigned)_i,
		      false);
}
END_TEST

START_TEST(test_insert_before_hbh)
{
	uint8_t want[256];
	size_t wlen = kernel_expect(cap6_hbh, want, sizeof(want));

	set_policy(ENCAP_MODE_INLINE, AF_INET6, 2);
	expect_forward(in6_hbh, ETH_P_IPV6, want, wlen);
}
END_TEST

/* ---- H.Insert.Red (no kernel counterpart) ------------------------------- */

START_TEST(test_insert_red_v6)
{
	uint8_t want[256];
	size_t wlen = hex2bin(insred[_i], want, sizeof(want));

	set_policy(ENCAP_MODE_INLINE_RED, AF_INET6, (unsigned)_i);
	expect_forward(in6[7], ETH_P_IPV6, want, wlen);
}
END_TEST

/* An inline policy on IPv4 is refused by the config; if one arrives anyway
 * the packet is dropped as DROP_FAMILY. */
START_TEST(test_insert_v4_family)
{
	set_policy(_i ? ENCAP_MODE_INLINE_RED : ENCAP_MODE_INLINE, AF_INET, 2);
	expect_drop(load(in4[1], ETH_P_IP), DROP_FAMILY);
}
END_TEST

/* ---- limits --------------------------------------------------------------- */

/* Leave exactly one byte less headroom than the policy needs. */
START_TEST(test_no_headroom)
{
	static const enum encap_mode modes[4] = {
		ENCAP_MODE_ENCAP, ENCAP_MODE_ENCAP_RED,
		ENCAP_MODE_INLINE, ENCAP_MODE_INLINE_RED,
	};
	struct pkt *p;
	uint32_t need;

	set_policy(modes[_i], AF_INET6, 3);
	p = load(in6[1], ETH_P_IPV6);
	need = headend_push_len(&pol, ETH_P_IPV6);
	ck_assert_uint_gt(need, 0);
	p->head = p->data - (need - 1);
	expect_drop(p, DROP_NO_HEADROOM);

	/* with exactly enough it goes through */
	setup();
	set_policy(modes[_i], AF_INET6, 3);
	p = load(in6[1], ETH_P_IPV6);
	p->head = p->data - need;
	headend_apply(&ctx, &pol, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_ptr_eq(p->data, p->head);
}
END_TEST

/* A 16-segment policy fits PKT_HEADROOM. */
START_TEST(test_max_segments)
{
	struct pkt *p;
	const uint8_t *srh;

	set_policy(ENCAP_MODE_ENCAP, AF_INET6, SRV6_MAX_SEGS);
	p = load(in6[1], ETH_P_IPV6);
	headend_apply(&ctx, &pol, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->len, 61 + 40 + 8 + 16 * SRV6_MAX_SEGS);
	ck_assert_uint_eq((unsigned)(p->data[4] << 8 | p->data[5]),
			  p->len - 40);
	ck_assert_mem_eq(p->data + 24, &pol.sl.segs[0], 16);
	srh = p->data + 40;
	ck_assert_uint_eq(srh[1], 2 * SRV6_MAX_SEGS);
	ck_assert_uint_eq(srh[3], SRV6_MAX_SEGS - 1);
	ck_assert_uint_eq(srh[4], SRV6_MAX_SEGS - 1);
	for (unsigned i = 0; i < SRV6_MAX_SEGS; i++)
		ck_assert_mem_eq(srh + 8 + 16 * i,
				 &pol.sl.segs[SRV6_MAX_SEGS - 1 - i], 16);
}
END_TEST

/* An IPv6 packet of `len` bytes (zero payload, UDP next header). */
static struct pkt *big_v6(uint32_t len)
{
	uint8_t *d;

	memset(slot.buf, 0, sizeof(slot.buf));
	slot.p.head = slot.buf;
	slot.p.data = d = slot.buf + PKT_HEADROOM;
	slot.p.end = slot.buf + sizeof(slot.buf);
	slot.p.len = slot.p.orig_len = len;
	slot.p.hw_proto = ETH_P_IPV6;
	slot.p.verdict = PKT_ACCEPT;
	d[0] = 0x60;
	d[4] = (uint8_t)((len - 40) >> 8);
	d[5] = (uint8_t)(len - 40);
	d[6] = IPPROTO_UDP;
	d[7] = 64;
	return &slot.p;
}

/* The result may be at most 65531 bytes, the most an NFQUEUE verdict
 * carries (PKT_MAX_LEN): one byte more is DROP_TOO_BIG at the headend
 * (issue 8: it was built up to 65535 bytes, then dropped at the
 * verdict). */
START_TEST(test_too_big)
{
	static const enum encap_mode modes[4] = {
		ENCAP_MODE_ENCAP, ENCAP_MODE_ENCAP_RED,
		ENCAP_MODE_INLINE, ENCAP_MODE_INLINE_RED,
	};
	struct pkt *p;
	uint32_t push;

	set_policy(modes[_i], AF_INET6, 2);
	push = headend_push_len(&pol, ETH_P_IPV6);
	p = big_v6(65531 - push + 1);
	expect_drop(p, DROP_TOO_BIG);

	setup();
	set_policy(modes[_i], AF_INET6, 2);
	p = big_v6(65531 - push);
	headend_apply(&ctx, &pol, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->len, 65531);
	ck_assert_uint_eq((unsigned)(p->data[4] << 8 | p->data[5]), 65531 - 40);
}
END_TEST

START_TEST(test_truncated_and_bad_version)
{
	static const uint8_t shortpkt[39] = { 0x60 };
	static const uint8_t v4as6[40] = { 0x45 };
	static const uint8_t shortv4[19] = { 0x45 };

	set_policy(ENCAP_MODE_ENCAP, AF_INET6, 1);
	expect_drop(test_pkt(&slot, shortpkt, sizeof(shortpkt), ETH_P_IPV6),
		    DROP_TRUNCATED);
	setup();
	set_policy(ENCAP_MODE_INLINE, AF_INET6, 1);
	expect_drop(test_pkt(&slot, shortpkt, sizeof(shortpkt), ETH_P_IPV6),
		    DROP_TRUNCATED);
	setup();
	set_policy(ENCAP_MODE_ENCAP, AF_INET6, 1);
	expect_drop(test_pkt(&slot, v4as6, sizeof(v4as6), ETH_P_IPV6),
		    DROP_BAD_IP);
	setup();
	set_policy(ENCAP_MODE_ENCAP, AF_INET, 1);
	expect_drop(test_pkt(&slot, shortv4, sizeof(shortv4), ETH_P_IP),
		    DROP_TRUNCATED);
	setup();
	set_policy(ENCAP_MODE_ENCAP, AF_INET, 1);
	expect_drop(test_pkt(&slot, v4as6, 20, ETH_P_ARP), DROP_FAMILY);
}
END_TEST

/* Counters add up over several packets, per policy slot. */
START_TEST(test_counters)
{
	struct pkt *p;
	uint64_t bytes = 0;

	set_policy(ENCAP_MODE_ENCAP, AF_INET6, 2);
	for (unsigned n = 1; n <= 3; n++) {
		p = load(in6[n], ETH_P_IPV6);
		bytes += p->orig_len;
		headend_apply(&ctx, &pol, p);
		ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	}
	p = load(in6[1], ETH_P_IPV6);
	p->head = p->data;	/* no headroom at all */
	headend_apply(&ctx, &pol, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);

	ck_assert_uint_eq(pstats[POL_INDEX].packets, 3);
	ck_assert_uint_eq(pstats[POL_INDEX].bytes, bytes);
	ck_assert_uint_eq(pstats[POL_INDEX].errors, 1);
	ck_assert_uint_eq(pstats[POL_INDEX].drops[DROP_NO_HEADROOM], 1);
	ck_assert_uint_eq(wstats.drops[DROP_NO_HEADROOM], 1);
	ck_assert_uint_eq(pstats[0].packets + pstats[2].packets, 0);
	ck_assert_uint_eq(pstats[0].errors + pstats[2].errors, 0);
}
END_TEST

START_TEST(test_push_len)
{
	set_policy(ENCAP_MODE_ENCAP, AF_INET6, 3);
	ck_assert_uint_eq(headend_push_len(&pol, ETH_P_IPV6), 40 + 8 + 48);
	ck_assert_uint_eq(headend_push_len(&pol, ETH_P_IP), 40 + 8 + 48);
	set_policy(ENCAP_MODE_ENCAP_RED, AF_INET6, 3);
	ck_assert_uint_eq(headend_push_len(&pol, ETH_P_IPV6), 40 + 8 + 32);
	set_policy(ENCAP_MODE_ENCAP_RED, AF_INET6, 1);
	ck_assert_uint_eq(headend_push_len(&pol, ETH_P_IP), 40);
	set_policy(ENCAP_MODE_INLINE, AF_INET6, 3);
	ck_assert_uint_eq(headend_push_len(&pol, ETH_P_IPV6), 8 + 64);
	ck_assert_uint_eq(headend_push_len(&pol, ETH_P_IP), 0);
	set_policy(ENCAP_MODE_INLINE_RED, AF_INET6, 1);
	ck_assert_uint_eq(headend_push_len(&pol, ETH_P_IPV6), 8 + 16);
}
END_TEST

/* ---- HMAC TLV (RFC 8754 2.1.2), Linux's layout ------------------------------ */

/* Expected bytes: Python's struct/hmac/hashlib over the RFC 8754 2.1.2.1
 * text (source, Last Entry, Flags 0x08, Key ID 7, segments) with key 7 =
 * sha256 "srv6d-secret"; hop limits as srv6d leaves them (no decrement). */
static const char ins_hmac[] =	/* H.Insert of in6[8], 2 segments */
	"6b91234500752b32fc000012000000000000000000000001fc00000a000000000000000000000001"
	"110b040202080000fc000100000800000000000000000001fc00000a000000000000000000000002"
	"fc00000a000000000000000000000001"
	"05260000000000076de6247c4a59827b298f8527b5423489d0fe0896c90c1cfd1c01da17f27f7544"
	"04d2162e00150a9873727636642d68656164656e64";
/* H.Encaps.Red of in6[4], 1 segment: the HMAC needs an SRH, so the one
 * segment stays in it (no D bit), as Linux's seg6_do_srh_encap_red. */
static const char red1_hmac[] =
	"6b912345007d2b32fc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"2907040000080000fc00000a000000000000000000000001"
	"05260000000000070ef7db10ed56faa626296df476e8acafafaba17bcba08af305ca7948ef5b6b15"
	"6b91234500151132fc000012000000000000000000000001fc00010000040000000000000000000104d2162e00150a9c73727636642d68656164656e64";
static const char v4_hmac[] =	/* H.Encaps of in4[2], 2 segments */
	"6000000000792b40fc0000ff000000000000000000000001fc00000a000000000000000000000001"
	"0409040101080000fc00000a000000000000000000000002fc00000a000000000000000000000001"
	"0526000000000007b777f2e52abcc4ea99385b79c6db9c4d92f32805e7f6caba5db5f50701cb2b25"
	"45b900291234000032115f660a0c00010a64020104d2162e0015ed4373727636642d68656164656e64";

static struct hmac_key key7;

static void set_hmac(void)
{
	memset(&key7, 0, sizeof(key7));
	key7.id = 7;
	key7.alg = HMAC_ALG_SHA256;
	memcpy(key7.secret, "srv6d-secret", 12);
	key7.len = 12;
	cfg.hmac_keys = &key7;
	cfg.nhmac_keys = 1;
	pol.hmac_keyid = 7;
}

static void expect_hex(const char *in, uint16_t hw_proto, const char *out)
{
	uint8_t want[1024];
	size_t wlen = hex2bin(out, want, sizeof(want));

	expect_forward(in, hw_proto, want, wlen);
}

START_TEST(test_hmac_insert)
{
	set_policy(ENCAP_MODE_INLINE, AF_INET6, 2);
	set_hmac();
	expect_hex(in6[8], ETH_P_IPV6, ins_hmac);
	ck_assert_uint_eq(headend_push_len(&pol, ETH_P_IPV6), 8 + 48 + 40);
}
END_TEST

START_TEST(test_hmac_encap_red_one)
{
	set_policy(ENCAP_MODE_ENCAP_RED, AF_INET6, 1);
	set_hmac();
	expect_hex(in6[4], ETH_P_IPV6, red1_hmac);
	ck_assert_uint_eq(headend_push_len(&pol, ETH_P_IPV6), 40 + 8 + 16 + 40);
}
END_TEST

START_TEST(test_hmac_v4)
{
	set_policy(ENCAP_MODE_ENCAP, AF_INET, 2);
	set_hmac();
	expect_hex(in4[2], ETH_P_IP, v4_hmac);
	ck_assert_uint_eq(headend_push_len(&pol, ETH_P_IP), 40 + 8 + 32 + 40);
}
END_TEST

/* The key a policy names is gone (the parser never allows it): dropped,
 * the packet untouched. */
START_TEST(test_hmac_unknown_key)
{
	static const enum encap_mode modes[4] = {
		ENCAP_MODE_ENCAP, ENCAP_MODE_ENCAP_RED,
		ENCAP_MODE_INLINE, ENCAP_MODE_INLINE_RED,
	};

	set_policy(modes[_i], AF_INET6, 2);
	set_hmac();
	pol.hmac_keyid = 8;
	expect_drop(load(in6[1], ETH_P_IPV6), DROP_HMAC_UNKNOWN);
}
END_TEST

/* ---- weighted segment lists ------------------------------------------------ */

/* Lists fc00:a::1,fc00:a::2 (weight 3) and fc00:b::1 (weight 1): each
 * flow (source port) always takes the same one, 3:1 over 8000 flows, and
 * headend_push_len() is the longer list's. */
START_TEST(test_weighted)
{
	unsigned na = 0, nb = 0;
	uint8_t first[16];

	set_policy(ENCAP_MODE_ENCAP, AF_INET6, 2);
	pol.nlists = 2;
	pol.weights[0] = 3;
	pol.weights[1] = 1;
	pol.lists[1].nsegs = 1;
	inet_pton(AF_INET6, "fc00:b::1", &pol.lists[1].segs[0]);
	ck_assert_uint_eq(headend_push_len(&pol, ETH_P_IPV6), 40 + 8 + 32);
	for (unsigned f = 0; f < 8000; f++) {
		for (unsigned rep = 0; rep < 2; rep++) {
			struct pkt *p = load(in6[1], ETH_P_IPV6);

			p->data[1] &= 0xf0;	/* flow label 0: ports count */
			p->data[2] = p->data[3] = 0;
			p->data[40] = (uint8_t)(f >> 8);
			p->data[41] = (uint8_t)f;
			p->data[7] = (uint8_t)(10 + rep);
			headend_apply(&ctx, &pol, p);
			ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
			if (rep) {
				ck_assert_mem_eq(p->data + 24, first, 16);
				continue;
			}
			memcpy(first, p->data + 24, 16);
			if (!memcmp(first, &pol.lists[0].segs[0], 16)) {
				na++;
				ck_assert_uint_eq(p->len, 61 + 40 + 8 + 32);
			} else {
				ck_assert_mem_eq(first, &pol.lists[1].segs[0], 16);
				nb++;
				ck_assert_uint_eq(p->len, 61 + 40 + 8 + 16);
			}
		}
	}
	ck_assert_msg(na > 8000 * 0.73 && na < 8000 * 0.77,
		      "%u of 8000 flows on the weight-3 list", na);
	ck_assert_uint_eq(na + nb, 8000);
	ck_assert_uint_eq(pstats[POL_INDEX].packets, 16000);
}
END_TEST

static Suite *headend_suite(void)
{
	Suite *s = suite_create("headend");
	TCase *tc;

	tc = tcase_create("kernel");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_loop_test(tc, test_encaps_v6, 1, 4);
	tcase_add_loop_test(tc, test_encaps_v4, 1, 4);
	tcase_add_loop_test(tc, test_encaps_red_v6, 1, 4);
	tcase_add_loop_test(tc, test_encaps_red_v4, 1, 4);
	tcase_add_loop_test(tc, test_insert_v6, 1, 4);
	tcase_add_test(tc, test_insert_before_hbh);
	suite_add_tcase(s, tc);

	tc = tcase_create("insert_red");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_loop_test(tc, test_insert_red_v6, 1, 4);
	tcase_add_loop_test(tc, test_insert_v4_family, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_loop_test(tc, test_no_headroom, 0, 4);
	tcase_add_test(tc, test_max_segments);
	tcase_add_loop_test(tc, test_too_big, 0, 4);
	tcase_add_test(tc, test_truncated_and_bad_version);
	tcase_add_test(tc, test_counters);
	tcase_add_test(tc, test_push_len);
	suite_add_tcase(s, tc);

	tc = tcase_create("hmac");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_hmac_insert);
	tcase_add_test(tc, test_hmac_encap_red_one);
	tcase_add_test(tc, test_hmac_v4);
	tcase_add_loop_test(tc, test_hmac_unknown_key, 0, 4);
	suite_add_tcase(s, tc);

	tc = tcase_create("weighted");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_weighted);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(headend_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
