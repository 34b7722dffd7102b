/* check_policy.c - weighted policies: the flow hash, the split of many
 * flows over segment lists in proportion to their weights, and flow
 * stickiness (every packet of a flow takes the same list). */
#include <arpa/inet.h>
#include <check.h>
#include <linux/if_ether.h>
#include <stdlib.h>
#include <string.h>

#include "flowhash.h"
#include "testutil.h"

#define NFLOWS 100000

/* Deterministic PRNG (xorshift32) for the random flows. */
static uint32_t rng_state = 0x12345678u;

static uint32_t rnd(void)
{
	uint32_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return rng_state = x;
}

/* A UDP/IPv6 packet (40 + 8 + 4 bytes) of a random flow: random source
 * in fc00:1::/64, random destination in fc00:9::/64, random ports; flow
 * label 0 unless `label`. */
static uint32_t flow6(uint8_t *b, bool label)
{
	uint32_t r;

	memset(b, 0, 52);
	b[0] = 0x60;
	if (label) {
		r = rnd() & 0xfffff;
		b[1] = (uint8_t)(r >> 16);
		b[2] = (uint8_t)(r >> 8);
		b[3] = (uint8_t)r;
	}
	b[5] = 12;
	b[6] = IPPROTO_UDP;
	b[7] = 64;
	b[8] = 0xfc;
	b[11] = 0x01;
	r = rnd();
	memcpy(b + 20, &r, 4);
	r = rnd();
	memcpy(b + 16, &r, 4);
	b[24] = 0xfc;
	b[27] = 0x09;
	r = rnd();
	memcpy(b + 36, &r, 4);
	r = rnd();
	memcpy(b + 40, &r, 4);		/* ports */
	return 52;
}

/* A UDP/IPv4 packet of a random flow in 10.0.0.0/8 -> 10.9.0.0/16. */
static uint32_t flow4(uint8_t *b)
{
	uint32_t r;

	memset(b, 0, 32);
	b[0] = 0x45;
	b[3] = 32;
	b[8] = 64;
	b[9] = IPPROTO_UDP;
	r = rnd();
	b[12] = 10;
	memcpy(b + 13, &r, 3);
	r = rnd();
	b[16] = 10;
	b[17] = 9;
	memcpy(b + 18, &r, 2);
	r = rnd();
	memcpy(b + 20, &r, 4);		/* ports */
	return 32;
}

/* An SRv6 packet of a random flow: IPv6 from fc00:1::1 to the SID
 * fc00:100::c, flow label 0, an SRH of 2 segments (40 bytes), then
 * (inner false) UDP with random ports, or (inner true) an IPv6 packet of
 * a random flow (flow6()): all flows share the outer addresses. */
static uint32_t flow_srv6(uint8_t *b, bool inner)
{
	uint32_t r, n;

	memset(b, 0, 40 + 40);
	b[0] = 0x60;
	b[6] = IPPROTO_ROUTING;
	b[7] = 64;
	b[8] = 0xfc;
	b[23] = 1;
	b[24] = 0xfc;
	b[27] = 0x01;
	b[39] = 0x0c;
	b[40] = inner ? IPPROTO_IPV6 : IPPROTO_UDP;
	b[41] = 4;		/* 40 bytes */
	b[42] = 4;
	b[43] = 1;
	b[44] = 1;
	if (inner) {
		n = 80 + flow6(b + 80, false);
	} else {
		r = rnd();
		memcpy(b + 80, &r, 4);
		n = 88;
	}
	b[5] = (uint8_t)(n - 40);
	return n;
}

/* Spread NFLOWS random flows over lists of `weights`; check each list's
 * share is its weight's share within +-2 percentage points. */
static void check_split(const uint16_t *weights, unsigned n, int kind)
{
	unsigned count[8] = { 0 }, total = 0;
	uint8_t b[160];

	ck_assert_uint_le(n, 8);
	for (unsigned i = 0; i < n; i++)
		total += weights[i];
	for (unsigned f = 0; f < NFLOWS; f++) {
		uint32_t len, h;

		if (kind == 4)
			len = flow4(b);
		else if (kind >= 2)
			len = flow_srv6(b, kind == 3);
		else
			len = flow6(b, kind == 1);
		h = flowhash_packet(b, len,
				    kind == 4 ? ETH_P_IP : ETH_P_IPV6);
		count[flowhash_pick(h, weights, n)]++;
	}
	for (unsigned i = 0; i < n; i++) {
		double got = (double)count[i] / NFLOWS;
		double want = (double)weights[i] / total;

		ck_assert_msg(got > want - 0.02 && got < want + 0.02,
			      "list %u: %.4f of the flows, want %.4f +- 0.02",
			      i, got, want);
		if (weights[i] == 0)
			ck_assert_uint_eq(count[i], 0);
	}
}

/* ---- the split ------------------------------------------------------------ */

START_TEST(test_split_3_1)
{
	static const uint16_t w[2] = { 3, 1 };

	/* 0: IPv6 ports, 1: IPv6 flow label, 2: ports behind an SRH,
	 * 3: IPv6 inside SRv6 (binding SID), 4: IPv4 */
	check_split(w, 2, _i);
}
END_TEST

START_TEST(test_split_many)
{
	static const uint16_t w1[3] = { 1, 1, 2 };
	static const uint16_t w2[4] = { 5, 3, 1, 1 };
	static const uint16_t w3[3] = { 1, 0, 1 };
	static const uint16_t w4[2] = { 1000, 1 };

	check_split(w1, 3, 0);
	check_split(w2, 4, 4);
	check_split(w3, 3, 1);
	check_split(w4, 2, 0);
}
END_TEST

/* The picks cover the hash space exactly: boundaries at the weights. */
START_TEST(test_pick_bounds)
{
	static const uint16_t w[2] = { 3, 1 };
	static const uint16_t zero[2] = { 0, 0 };

	ck_assert_uint_eq(flowhash_pick(0, w, 2), 0);
	ck_assert_uint_eq(flowhash_pick(0xbfffffffu, w, 2), 0);
	ck_assert_uint_eq(flowhash_pick(0xc0000000u, w, 2), 1);
	ck_assert_uint_eq(flowhash_pick(0xffffffffu, w, 2), 1);
	ck_assert_uint_eq(flowhash_pick(0xffffffffu, w, 1), 0);
	ck_assert_uint_eq(flowhash_pick(0xffffffffu, w, 0), 0);
	ck_assert_uint_eq(flowhash_pick(0x80000000u, zero, 2), 0);
}
END_TEST

/* ---- stickiness ----------------------------------------------------------- */

/* Fields that do not name the flow (hop limit, payload length, traffic
 * class, payload bytes) leave the hash unchanged; those that do change it. */
START_TEST(test_sticky_v6)
{
	uint8_t a[64], b[64];
	uint32_t len = flow6(a, false), h = flowhash_packet(a, len, ETH_P_IPV6);

	for (unsigned i = 0; i < 100; i++)
		ck_assert_uint_eq(flowhash_packet(a, len, ETH_P_IPV6), h);
	memcpy(b, a, len);
	b[7] = 3;			/* hop limit */
	b[0] = 0x6f;			/* traffic class */
	b[44] = 0x55;			/* UDP length, checksum, payload */
	b[51] = 0x99;
	ck_assert_uint_eq(flowhash_packet(b, len, ETH_P_IPV6), h);
	ck_assert_uint_eq(flowhash_packet(b, len - 4, ETH_P_IPV6), h);
	memcpy(b, a, len);
	b[41] ^= 1;			/* source port */
	ck_assert_uint_ne(flowhash_packet(b, len, ETH_P_IPV6), h);
	memcpy(b, a, len);
	b[39] ^= 1;			/* destination */
	ck_assert_uint_ne(flowhash_packet(b, len, ETH_P_IPV6), h);
	memcpy(b, a, len);
	b[6] = IPPROTO_TCP;		/* protocol */
	ck_assert_uint_ne(flowhash_packet(b, len, ETH_P_IPV6), h);
}
END_TEST

/* With a flow label, the label names the flow: ports (e.g. behind an
 * extension header, or ESP) are not looked at. */
START_TEST(test_sticky_flowlabel)
{
	uint8_t a[64];
	uint32_t len = flow6(a, true), h;

	a[3] |= 1;			/* label never 0 */
	h = flowhash_packet(a, len, ETH_P_IPV6);
	a[40] ^= 0xff;			/* ports */
	a[6] = IPPROTO_ROUTING;
	ck_assert_uint_eq(flowhash_packet(a, len, ETH_P_IPV6), h);
	a[3] ^= 2;			/* another label */
	ck_assert_uint_ne(flowhash_packet(a, len, ETH_P_IPV6), h);
}
END_TEST

/* SRv6 traffic: the flow behind the SRH names it; the SRH's Segments
 * Left and the inner hop limit do not. */
START_TEST(test_sticky_srv6)
{
	uint8_t a[160];
	uint32_t len = flow_srv6(a, true), h;

	h = flowhash_packet(a, len, ETH_P_IPV6);
	a[43] = 0;			/* SL */
	a[7] = 9;			/* outer hop limit */
	a[80 + 7] = 1;			/* inner hop limit */
	ck_assert_uint_eq(flowhash_packet(a, len, ETH_P_IPV6), h);
	a[80 + 41] ^= 1;		/* inner source port */
	ck_assert_uint_ne(flowhash_packet(a, len, ETH_P_IPV6), h);
	a[80 + 41] ^= 1;
	a[41] = 200;			/* SRH longer than the packet */
	(void)flowhash_packet(a, len, ETH_P_IPV6);
}
END_TEST

/* IPv4: every fragment of a datagram hashes like the others (no ports). */
START_TEST(test_sticky_v4_fragments)
{
	uint8_t a[64];
	uint32_t len = flow4(a), whole, first, later;

	whole = flowhash_packet(a, len, ETH_P_IP);
	a[6] = 0x20;			/* MF: first fragment */
	first = flowhash_packet(a, len, ETH_P_IP);
	a[6] = 0x00;
	a[7] = 0x10;			/* offset 128: later fragment */
	a[20] ^= 0xff;			/* payload, not ports */
	later = flowhash_packet(a, len, ETH_P_IP);
	ck_assert_uint_eq(first, later);
	ck_assert_uint_ne(first, whole);
	a[7] = 0;
	a[20] ^= 0xff;
	a[8] = 1;			/* TTL */
	a[10] = 0x12;			/* checksum */
	ck_assert_uint_eq(flowhash_packet(a, len, ETH_P_IP), whole);
}
END_TEST

/* Short packets hash without reading past their end. */
START_TEST(test_short)
{
	uint8_t a[64];
	uint32_t len = flow6(a, false);

	(void)flowhash_packet(a, 42, ETH_P_IPV6);	/* half a port word */
	(void)flowhash_packet(a, 10, ETH_P_IPV6);
	(void)flowhash_packet(a, 0, ETH_P_IP);
	len = flow4(a);
	a[0] = 0x4f;			/* IHL 60 > len */
	(void)flowhash_packet(a, len, ETH_P_IP);
	ck_assert_uint_eq(flowhash_packet(a, 10, ETH_P_IP),
			  flowhash_packet(a, 10, ETH_P_IP));
}
END_TEST

static Suite *policy_suite(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("split");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_split_3_1);
	tcase_add_loop_test(tc, test_split_3_1, 1, 5);
	tcase_add_test(tc, test_split_many);
	tcase_add_test(tc, test_pick_bounds);
	suite_add_tcase(s, tc);
	tc = tcase_create("sticky");
	tcase_add_test(tc, test_sticky_v6);
	tcase_add_test(tc, test_sticky_flowlabel);
	tcase_add_test(tc, test_sticky_srv6);
	tcase_add_test(tc, test_sticky_v4_fragments);
	tcase_add_test(tc, test_short);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(policy_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
