/* check_b6.c - the binding SIDs End.B6.Encaps, End.B6.Encaps.Red (RFC 8986
 * 4.13, 4.14) and End.B6 (Linux insertion), byte for byte, and their
 * error paths.
 *
 * Expected packets were built with scapy and Python's hmac/hashlib
 * (independently of srv6d): the input is UDP from 2001:db8::1 (traffic
 * class 0xb9, flow label 0x12345, hop limit 50) with an SRH
 * (fc00:9::1, fc00:100::c), Segments Left 1, to the binding SID
 * fc00:100::c.  The policy is fc00:a::1, fc00:a::2 (travel order), the
 * encapsulation source fc00:ff::1.  As Linux's seg6local does, the
 * received SRH is advanced (SL 0, DA fc00:9::1) and encapsulated with the
 * outer hop limit equal to the inner one: the kernel decrements the outer
 * one when it forwards the verdict.  End.B6 inserts (fc00:100::c,
 * fc00:a::2, fc00:a::1) in front of the received SRH, left as it was.
 * tests/ns/diff-binding.sh checks End.B6 and End.B6.Encaps against the
 * kernel itself.
 */
#include <arpa/inet.h>
#include <check.h>
#include <linux/if_ether.h>
#include <stdlib.h>
#include <string.h>

#include "behavior_b6.h"
#include "config.h"
#include "headend.h"
#include "hmac.h"
#include "icmp.h"
#include "lpm.h"
#include "process.h"
#include "testutil.h"

static const char IN[] =
	"6b91234500382b3220010db8000000000000000000000001fc00010000000000"
	"000000000000000c1104040101000000fc000009000000000000000000000001"
	"fc00010000000000000000000000000c04d2162e00100afd73727636642d6236";

/* The received packet after End's S13-S14 (SL 0, DA fc00:9::1). */
#define ADVANCED \
	"6b91234500382b3220010db8000000000000000000000001fc00000900000000" \
	"00000000000000011104040001000000fc000009000000000000000000000001" \
	"fc00010000000000000000000000000c04d2162e00100afd73727636642d6236"

static const char ENCAPS[] =
	"6b91234500882b32fc0000ff000000000000000000000001fc00000a00000000"
	"00000000000000012904040101000000fc00000a000000000000000000000002"
	"fc00000a000000000000000000000001" ADVANCED;

static const char ENCAPS_RED2[] =
	"6b91234500782b32fc0000ff000000000000000000000001fc00000a00000000"
	"00000000000000012902040100000000fc00000a000000000000000000000002"
	ADVANCED;

static const char ENCAPS_RED1[] =
	"6b91234500602932fc0000ff000000000000000000000001fc00000a00000000"
	"0000000000000001" ADVANCED;

static const char INSERT[] =
	"6b91234500702b3220010db8000000000000000000000001fc00000a00000000"
	"00000000000000012b06040202000000fc00010000000000000000000000000c"
	"fc00000a000000000000000000000002fc00000a000000000000000000000001"
	"1104040101000000fc000009000000000000000000000001fc00010000000000"
	"000000000000000c04d2162e00100afd73727636642d6236";

/* With `hmac 7` (sha256, secret "srv6d-secret"): H flag, TLV last. */
static const char ENCAPS_HMAC[] =
	"6b91234500b02b32fc0000ff000000000000000000000001fc00000a00000000"
	"00000000000000012909040101080000fc00000a000000000000000000000002"
	"fc00000a0000000000000000000000010526000000000007b777f2e52abcc4ea"
	"99385b79c6db9c4d92f32805e7f6caba5db5f50701cb2b25" ADVANCED;

/* End.B6.Encaps.Red with `hmac 7`: reduced list, D bit set. */
static const char ENCAPS_RED_HMAC[] =
	"6b91234500a02b32fc0000ff000000000000000000000001fc00000a00000000"
	"00000000000000012907040100080000fc00000a000000000000000000000002"
	"0526800000000007338cb0b1ca0e662b22ad642484acbd6edd679816caeba6a6"
	"ba07d3c403937193" ADVANCED;

#define SID_INDEX 2	/* not 0: counters must land in the SID's slot */

static struct test_slot slot;
static struct config cfg;
static struct sid sids[4];
static struct policy pol;
static struct hmac_key keys[1];
static struct worker_stats ws;
static struct sid_stats sst[4];
static struct proc_ctx ctx;

static void setup(void)
{
	memset(&cfg, 0, sizeof(cfg));
	memset(sids, 0, sizeof(sids));
	memset(&pol, 0, sizeof(pol));
	memset(keys, 0, sizeof(keys));
	memset(&ws, 0, sizeof(ws));
	memset(sst, 0, sizeof(sst));
	memset(&ctx, 0, sizeof(ctx));
	inet_pton(AF_INET6, "fc00:ff::1", &cfg.encap_source);
	cfg.has_encap_source = true;
	cfg.icmp_rate = 100;
	cfg.icmp_burst = 50;
	cfg.sids = sids;
	cfg.nsids = 4;
	keys[0].id = 7;
	keys[0].alg = HMAC_ALG_SHA256;
	memcpy(keys[0].secret, "srv6d-secret", 12);
	keys[0].len = 12;
	ctx.cfg = &cfg;
	ctx.stats = &ws;
	ctx.sid_stats = sst;
	ctx.now_ns = 5000000000ull;
}

/* The binding SID fc00:100::c/128 with policy fc00:a::1 .. fc00:a::n. */
static const struct sid *mkbsid(enum behavior b, unsigned nsegs,
				uint32_t hmac_keyid)
{
	struct sid *s = &sids[SID_INDEX];

	inet_pton(AF_INET6, "fc00:100::c", &s->prefix);
	s->plen = 128;
	s->behavior = b;
	s->index = SID_INDEX;
	s->policy = &pol;
	pol.family = AF_INET6;
	pol.prefix.v6 = s->prefix;
	pol.plen = 128;
	pol.mode = b == BHV_END_B6 ? ENCAP_MODE_INLINE :
		   b == BHV_END_B6_ENCAPS ? ENCAP_MODE_ENCAP :
		   ENCAP_MODE_ENCAP_RED;
	pol.binding = true;
	pol.index = SID_INDEX;
	pol.nlists = 1;
	pol.weights[0] = 1;
	pol.hmac_keyid = hmac_keyid;
	pol.sl.nsegs = nsegs;
	for (unsigned i = 0; i < nsegs; i++) {
		memset(&pol.sl.segs[i], 0, 16);
		pol.sl.segs[i].s6_addr[0] = 0xfc;
		pol.sl.segs[i].s6_addr[3] = 0x0a;
		pol.sl.segs[i].s6_addr[15] = (uint8_t)(i + 1);
	}
	if (hmac_keyid) {
		cfg.hmac_keys = keys;
		cfg.nhmac_keys = 1;
	}
	return s;
}

static struct pkt *load(const char *hex)
{
	static uint8_t buf[2048];
	size_t len = hex2bin(hex, buf, sizeof(buf));

	return test_pkt(&slot, buf, len, ETH_P_IPV6);
}

static void run(const struct sid *s, struct pkt *p)
{
	switch (s->behavior) {
	case BHV_END_B6:
		behavior_end_b6(&ctx, s, p);
		break;
	case BHV_END_B6_ENCAPS:
		behavior_end_b6_encaps(&ctx, s, p);
		break;
	default:
		behavior_end_b6_encaps_red(&ctx, s, p);
		break;
	}
}

static void expect_out(const struct sid *s, const char *in, const char *out)
{
	uint8_t want[2048];
	size_t wlen = hex2bin(out, want, sizeof(want));
	struct pkt *p = load(in);
	uint32_t orig = p->orig_len;

	run(s, p);
	test_pcap_write(p->data, p->len);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert(!p->set_mark);
	ck_assert_bytes(p->data, p->len, want, wlen);
	/* pushed into the headroom: the payload has not moved */
	ck_assert_ptr_eq(p->data + p->len, slot.buf + PKT_HEADROOM + orig);
	ck_assert_uint_eq(sst[SID_INDEX].packets, 1);
	ck_assert_uint_eq(sst[SID_INDEX].bytes, orig);
	ck_assert_uint_eq(sst[SID_INDEX].errors, 0);
	ck_assert_uint_eq(sst[0].packets, 0);
}

/* ---- RFC 8986 4.13 End.B6.Encaps ---------------------------------------- */

START_TEST(test_encaps)
{
	expect_out(mkbsid(BHV_END_B6_ENCAPS, 2, 0), IN, ENCAPS);
}
END_TEST

START_TEST(test_encaps_hmac)
{
	expect_out(mkbsid(BHV_END_B6_ENCAPS, 2, 7), IN, ENCAPS_HMAC);
}
END_TEST

/* ---- RFC 8986 4.14 End.B6.Encaps.Red ------------------------------------ */

START_TEST(test_encaps_red)
{
	expect_out(mkbsid(BHV_END_B6_ENCAPS_RED, 2, 0), IN, ENCAPS_RED2);
}
END_TEST

START_TEST(test_encaps_red_one_segment)
{
	expect_out(mkbsid(BHV_END_B6_ENCAPS_RED, 1, 0), IN, ENCAPS_RED1);
}
END_TEST

START_TEST(test_encaps_red_hmac)
{
	expect_out(mkbsid(BHV_END_B6_ENCAPS_RED, 2, 7), IN, ENCAPS_RED_HMAC);
}
END_TEST

/* ---- End.B6 (Linux insertion) -------------------------------------------- */

START_TEST(test_insert)
{
	expect_out(mkbsid(BHV_END_B6, 2, 0), IN, INSERT);
}
END_TEST

/* ---- error paths ------------------------------------------------------------ */

/* Expect an ICMPv6 error of type/code/param to 2001:db8::1 from the SID. */
static void expect_icmp(const struct sid *s, struct pkt *p, uint8_t type,
			uint8_t code, uint32_t param, enum drop_reason why)
{
	uint8_t sidaddr[16];
	uint32_t got;

	inet_pton(AF_INET6, "fc00:100::c", sidaddr);
	run(s, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->data[6], IPPROTO_ICMPV6);
	ck_assert_mem_eq(p->data + 8, sidaddr, 16);
	ck_assert_uint_eq(p->data[40], type);
	ck_assert_uint_eq(p->data[41], code);
	memcpy(&got, p->data + 44, 4);
	ck_assert_uint_eq(ntohl(got), param);
	ck_assert_uint_eq(ws.icmp_sent, 1);
	ck_assert_uint_eq(ws.drops[why], 1);
	ck_assert_uint_eq(sst[SID_INDEX].drops[why], 1);
	ck_assert_uint_eq(sst[SID_INDEX].errors, 1);
	ck_assert_uint_eq(sst[SID_INDEX].packets, 0);
}

static const enum behavior b6s[3] = {
	BHV_END_B6_ENCAPS, BHV_END_B6_ENCAPS_RED, BHV_END_B6,
};

/* S02-S04 + RFC 8986 4.1.1: Segments Left 0 -> Parameter Problem code 4
 * at the upper-layer header (Linux drops silently). */
START_TEST(test_sl_zero)
{
	const struct sid *s = mkbsid(b6s[_i], 2, 0);
	struct pkt *p = load(IN);

	p->data[43] = 0;	/* SL */
	expect_icmp(s, p, ICMP6_T_PARAM_PROB, ICMP6_C_SR_UPPER_LAYER, 80,
		    DROP_UPPER_LAYER);
}
END_TEST

/* No SRH at all: the same, at offset 40. */
START_TEST(test_no_srh)
{
	static const char udp[] =
		"6000000000101132" "20010db8000000000000000000000001"
		"fc00010000000000000000000000000c"
		"04d2162e00100afd73727636642d6236";
	const struct sid *s = mkbsid(b6s[_i], 2, 0);

	expect_icmp(s, load(udp), ICMP6_T_PARAM_PROB, ICMP6_C_SR_UPPER_LAYER,
		    40, DROP_UPPER_LAYER);
}
END_TEST

/* S05-S07: hop limit 1 -> Time Exceeded. */
START_TEST(test_hop_limit)
{
	const struct sid *s = mkbsid(b6s[_i], 2, 0);
	struct pkt *p = load(IN);

	p->data[7] = 1;
	expect_icmp(s, p, ICMP6_T_TIME_EXCEEDED, ICMP6_C_HOP_LIMIT, 0,
		    DROP_HOP_LIMIT);
}
END_TEST

/* S08-S11: Segments Left > Last Entry + 1 -> Parameter Problem code 0 at
 * Segments Left (offset 43). */
START_TEST(test_bad_srh)
{
	const struct sid *s = mkbsid(b6s[_i], 2, 0);
	struct pkt *p = load(IN);

	p->data[43] = 3;
	expect_icmp(s, p, ICMP6_T_PARAM_PROB, ICMP6_C_HDR_FIELD, 43,
		    DROP_BAD_SRH);
}
END_TEST

static void expect_drop(const struct sid *s, struct pkt *p,
			enum drop_reason why)
{
	run(s, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.drops[why], 1);
	ck_assert_uint_eq(sst[SID_INDEX].drops[why], 1);
	ck_assert_uint_eq(sst[SID_INDEX].errors, 1);
	ck_assert_uint_eq(sst[SID_INDEX].packets, 0);
	ck_assert_uint_eq(ws.icmp_sent, 0);
}

/* Headroom one byte short of what the policy pushes. */
START_TEST(test_no_headroom)
{
	const struct sid *s = mkbsid(b6s[_i], 2, 7);
	struct pkt *p = load(IN);
	uint32_t need = headend_push_len(&pol, ETH_P_IPV6);

	ck_assert_uint_eq(need, _i == 2 ? 8 + 48 + 40 :
			  _i == 1 ? 40 + 8 + 16 + 40 : 40 + 8 + 32 + 40);
	p->head = p->data - (need - 1);
	expect_drop(s, p, DROP_NO_HEADROOM);
}
END_TEST

/* A truncated SRH is End's DROP_TRUNCATED. */
START_TEST(test_truncated)
{
	const struct sid *s = mkbsid(b6s[_i], 2, 0);
	struct pkt *p = load(IN);

	p->len = 40 + 20;
	expect_drop(s, p, DROP_TRUNCATED);
}
END_TEST

/* A policy whose HMAC key is gone (never from the parser) drops. */
START_TEST(test_unknown_key)
{
	const struct sid *s = mkbsid(b6s[_i], 2, 8);

	expect_drop(s, load(IN), DROP_HMAC_UNKNOWN);
}
END_TEST

/* A binding SID without policy (never from the parser) drops. */
START_TEST(test_no_policy)
{
	struct sid *s = (struct sid *)mkbsid(b6s[_i], 2, 0);

	s->policy = NULL;
	expect_drop(s, load(IN), DROP_FAMILY);
}
END_TEST

/* A ping to the binding SID is answered (RFC 8986 4.1.1 S01-S02). */
START_TEST(test_echo)
{
	static const char ping[] =
		"60000000000c3a40" "20010db8000000000000000000000001"
		"fc00010000000000000000000000000c"
		"800063ec12340001" "70696e67";
	const struct sid *s = mkbsid(b6s[_i], 2, 0);
	struct pkt *p = load(ping);

	run(s, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->data[40], ICMP6_T_ECHO_REPLY);
	ck_assert_uint_eq(sst[SID_INDEX].packets, 1);
}
END_TEST

/* ---- weighted binding policy ---------------------------------------------- */

/* Two lists (fc00:a::1,fc00:a::2 weight 3; fc00:b::1 weight 1): every
 * packet leaves by one of them, a flow always by the same one, and many
 * flows split 3:1. */
START_TEST(test_weighted)
{
	const struct sid *s = mkbsid(BHV_END_B6_ENCAPS, 2, 0);
	uint8_t a1[16], b1[16], first[16], in[2048];
	size_t len = hex2bin(IN, in, sizeof(in));
	unsigned na = 0, nb = 0, other = 0, unmoved = 0, moved = 0;

	inet_pton(AF_INET6, "fc00:a::1", a1);
	inet_pton(AF_INET6, "fc00:b::1", b1);
	pol.nlists = 2;
	pol.weights[0] = 3;
	pol.weights[1] = 1;
	pol.lists[1].nsegs = 1;
	memcpy(&pol.lists[1].segs[0], b1, 16);
	/* counted in the loop, asserted after it: each passing Check
	 * assertion is a system call, 40,000 packets' took 40 s under
	 * load */
	for (unsigned f = 0; f < 20000; f++) {
		for (unsigned rep = 0; rep < 2; rep++) {
			struct pkt *p = test_pkt(&slot, in, len, ETH_P_IPV6);

			p->data[3] = (uint8_t)f;	/* flow label */
			p->data[2] = (uint8_t)(f >> 8);
			p->data[7] = (uint8_t)(50 + rep);	/* not the flow */
			run(s, p);
			if (p->verdict != PKT_NEW_BYTES)
				unmoved++;
			else if (rep == 0)
				memcpy(first, p->data + 24, 16);
			else if (memcmp(p->data + 24, first, 16))
				moved++;	/* the flow changed list */
			if (rep || p->verdict != PKT_NEW_BYTES)
				continue;
			if (!memcmp(first, a1, 16))
				na++;
			else if (!memcmp(first, b1, 16))
				nb++;
			else
				other++;
		}
	}
	ck_assert_uint_eq(unmoved, 0);
	ck_assert_uint_eq(moved, 0);
	ck_assert_msg(other == 0, "%u flows with an unexpected outer DA",
		      other);
	ck_assert_msg(na > 20000 * 0.73 && na < 20000 * 0.77,
		      "%u of 20000 flows on the weight-3 list", na);
	ck_assert_uint_eq(na + nb, 20000);
	ck_assert_uint_eq(sst[SID_INDEX].packets, 40000);
}
END_TEST

/* ---- through the dispatcher ---------------------------------------------- */

/* srv6_process() finds the binding SID and runs it; with hmac-require
 * the received SRH (no HMAC TLV) is dropped first, as hmac_missing. */
START_TEST(test_dispatch)
{
	const struct sid *s = mkbsid(b6s[_i], 2, 0);
	uint8_t want[2048];
	size_t wlen;
	struct pkt *p;

	cfg.sid_table = lpm_new();
	ck_assert_ptr_nonnull(cfg.sid_table);
	ck_assert_int_eq(lpm_insert(cfg.sid_table, &s->prefix, 128,
				    (void *)s), 0);
	p = load(IN);
	srv6_process(&ctx, p);
	wlen = hex2bin(_i == 0 ? ENCAPS : _i == 1 ? ENCAPS_RED2 : INSERT,
		       want, sizeof(want));
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, wlen);

	cfg.hmac_require = true;
	p = load(IN);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(sst[SID_INDEX].drops[DROP_HMAC_MISSING], 1);
	ck_assert_uint_eq(ws.drops[DROP_HMAC_MISSING], 1);
	lpm_free(cfg.sid_table);
	cfg.sid_table = NULL;
}
END_TEST

static Suite *b6_suite(void)
{
	Suite *s = suite_create("b6");
	TCase *tc = tcase_create("bytes");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_encaps);
	tcase_add_test(tc, test_encaps_hmac);
	tcase_add_test(tc, test_encaps_red);
	tcase_add_test(tc, test_encaps_red_one_segment);
	tcase_add_test(tc, test_encaps_red_hmac);
	tcase_add_test(tc, test_insert);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_loop_test(tc, test_sl_zero, 0, 3);
	tcase_add_loop_test(tc, test_no_srh, 0, 3);
	tcase_add_loop_test(tc, test_hop_limit, 0, 3);
	tcase_add_loop_test(tc, test_bad_srh, 0, 3);
	tcase_add_loop_test(tc, test_no_headroom, 0, 3);
	tcase_add_loop_test(tc, test_truncated, 0, 3);
	tcase_add_loop_test(tc, test_unknown_key, 0, 3);
	tcase_add_loop_test(tc, test_no_policy, 0, 3);
	tcase_add_loop_test(tc, test_echo, 0, 3);
	suite_add_tcase(s, tc);

	tc = tcase_create("dispatch");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_loop_test(tc, test_dispatch, 0, 3);
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
	SRunner *sr = srunner_create(b6_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
