/* check_checksum.c - the Internet checksum (checksum.h) against a plain
 * bytewise RFC 1071 sum: every length 0-300 and some larger, at every
 * alignment, from several running sums; RFC 1071's own example; the
 * carries of a buffer of 0xff bytes; the pseudo headers; the IPv4
 * header's; the native unfolded sums. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"

#define BUF	70000

static uint8_t buf[BUF + 16];

/* RFC 1071 4.1, a byte at a time: big-endian 16-bit words, the odd last
 * byte padded with zero, the carries folded back; the complement. */
static uint16_t ref_csum(const uint8_t *b, size_t len, uint32_t sum)
{
	uint64_t acc = sum;

	for (size_t i = 0; i + 1 < len; i += 2)
		acc += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		acc += (uint32_t)b[len - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}

static void fill_random(unsigned seed)
{
	srand(seed);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand();
}

START_TEST(rfc1071_example)
{
	/* RFC 1071 3: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2 */
	static const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03,
				     0xf4, 0xf5, 0xf6, 0xf7 };

	ck_assert_uint_eq(csum_fold(csum_partial(b, sizeof(b), 0)), 0x220d);
	ck_assert_uint_eq(csum_fold(csum_partial(b + 1, 7, 0)),
			  ref_csum(b + 1, 7, 0));
	/* at an odd address, odd length: 01f2 + 03f4 + f5f6 + f700 = f2dd */
	ck_assert_uint_eq(ref_csum(b + 1, 7, 0), (uint16_t)~0xf2ddu);
	/* zero bytes sum to 0: its complement 0xffff */
	ck_assert_uint_eq(csum_fold(csum_partial(b, 0, 0)), 0xffff);
	memset(buf, 0, 64);
	ck_assert_uint_eq(csum_fold(csum_partial(buf, 64, 0)), 0xffff);
}
END_TEST

/* Lengths 0-300, every alignment 0-7, four running sums. */
START_TEST(every_length_and_alignment)
{
	static const uint32_t sums[] = { 0, 1, 0xffff, 0xfffffffeu };

	fill_random(1);
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; len <= 300; len++)
			for (size_t s = 0; s < 4; s++)
				ck_assert_msg(csum_fold(csum_partial(buf + off,
								     len,
								     sums[s])) ==
					      ref_csum(buf + off, len, sums[s]),
					      "off %zu len %zu sum %x", off, len,
					      sums[s]);
}
END_TEST

/* Payload lengths (the vectorized loop), odd and even, at odd offsets. */
START_TEST(large)
{
	static const size_t lens[] = { 129, 130, 131, 1000, 1279, 1500, 1501,
				       4093, 9000, 65535, BUF };

	for (unsigned seed = 2; seed < 6; seed++) {
		fill_random(seed);
		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
			for (size_t off = 0; off < 4; off++)
				ck_assert_msg(csum_fold(csum_partial(buf + off,
								     lens[i],
								     7)) ==
					      ref_csum(buf + off, lens[i], 7),
					      "seed %u len %zu off %zu", seed,
					      lens[i], off);
	}
}
END_TEST

/* Every word 0xffff: the carries at their most. */
START_TEST(all_ones)
{
	memset(buf, 0xff, sizeof(buf));
	ck_assert_uint_eq(ref_csum(buf, BUF, 0), 0);
	ck_assert_uint_eq(csum_fold(csum_partial(buf, BUF, 0)), 0);
	ck_assert_uint_eq(csum_fold(csum_partial(buf, BUF, 0xffffffffu)), 0);
	ck_assert_uint_eq(csum_fold(csum_partial(buf + 1, 65535, 0)),
			  ref_csum(buf + 1, 65535, 0));
	ck_assert_uint_eq(ref_csum(buf + 1, 65535, 0), 0x00ff);
	/* a running sum carried across calls (split at an even length:
	 * csum_partial() pads an odd end) */
	ck_assert_uint_eq(csum_fold(csum_partial(buf + 100, 900,
						 csum_partial(buf, 100, 0))),
			  ref_csum(buf, 1000, 0));
}
END_TEST

START_TEST(add)
{
	fill_random(9);
	ck_assert_uint_eq(csum_fold(csum_add(csum_partial(buf, 600, 0),
					     csum_partial(buf + 600, 801, 0))),
			  ref_csum(buf, 1401, 0));
	ck_assert_uint_eq(csum_add(0xffffffffu, 1), 1);
	ck_assert_uint_eq(csum_add(0x80000000u, 0x80000000u), 1);
}
END_TEST

/* The pseudo headers against their bytes summed (RFC 8200 8.1, RFC 768),
 * from buffers at odd addresses. */
START_TEST(pseudo)
{
	uint8_t ph[40 + 1];

	fill_random(11);
	memset(ph, 0, sizeof(ph));
	memcpy(ph + 1, buf, 32);
	ph[1 + 32] = 0x00; ph[1 + 33] = 0x01;	/* length 0x1a2b3 */
	ph[1 + 34] = 0xa2; ph[1 + 35] = 0xb3;
	ph[1 + 39] = 17;
	ck_assert_uint_eq(csum_fold(csum_ipv6_pseudo(ph + 1, ph + 17, 0x1a2b3,
						     17)),
			  ref_csum(ph + 1, 40, 0));
	/* 2001:db8::1 -> fc00::2, the value python's struct sums */
	memset(ph, 0, sizeof(ph));
	ph[1] = 0x20; ph[2] = 0x01; ph[3] = 0x0d; ph[4] = 0xb8; ph[16] = 1;
	ph[17] = 0xfc; ph[32] = 2;
	ck_assert_uint_eq(csum_fold(csum_ipv6_pseudo(ph + 1, ph + 17, 0x1a2b3,
						     17)),
			  0x337d);
	memset(ph, 0, sizeof(ph));
	memcpy(ph + 1, buf + 40, 8);
	ph[1 + 9] = 17;
	ph[1 + 10] = 0x05; ph[1 + 11] = 0xdc;	/* 1500 */
	ck_assert_uint_eq(csum_fold(csum_ipv4_pseudo(ph + 1, ph + 5, 1500, 17)),
			  ref_csum(ph + 1, 12, 0));
}
END_TEST

/* csum_ip4_hdr() against the bytewise sum of 20 bytes, random headers
 * (checksum field zero) at every alignment, and a header of 0xff bytes
 * (the carries). */
START_TEST(ip4_header)
{
	uint8_t h[20 + 8];

	fill_random(13);
	for (size_t n = 0; n < 1000; n++)
		for (size_t off = 0; off < 8; off++) {
			memcpy(h + off, buf + 20 * n, 20);
			h[off + 10] = h[off + 11] = 0;
			ck_assert_uint_eq(csum_ip4_hdr(h + off),
					  ref_csum(h + off, 20, 0));
		}
	memset(h, 0xff, sizeof(h));
	h[10] = h[11] = 0;
	ck_assert_uint_eq(csum_ip4_hdr(h), ref_csum(h, 20, 0));
}
END_TEST

/* csum_native() folded once, every length 0-300 at every alignment, a
 * network-order word (csum_native_word()) added and a sum subtracted
 * (its complement), against the bytewise sum. */
START_TEST(native)
{
	uint8_t two[2];

	fill_random(17);
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; len <= 300; len++) {
			uint64_t a = csum_native(buf + off, len);
			uint16_t w = (uint16_t)(buf[off + len] << 8 |
						buf[off + len + 1]);

			ck_assert_uint_eq(csum_native_fold(a),
					  ref_csum(buf + off, len, 0));
			/* the word after an even length: the bytes' sum */
			if (len % 2 == 0)
				ck_assert_uint_eq(csum_native_fold(csum_native_add(
						a, csum_native_word(w))),
					ref_csum(buf + off, len + 2, 0));
			/* less the word: the sum of the bytes, modulo 0xffff
			 * (a sum of 0 may come out as either form) */
			two[0] = (uint8_t)(w >> 8);
			two[1] = (uint8_t)w;
			ck_assert_uint_eq(csum_native_fold(csum_native_add(
					csum_native_add(a, csum_native_word(w)),
					~csum_native(two, 2))) % 0xffff,
				ref_csum(buf + off, len, 0) % 0xffff);
		}
}
END_TEST

static Suite *checksum_suite(void)
{
	Suite *s = suite_create("checksum");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, rfc1071_example);
	tcase_add_test(tc, every_length_and_alignment);
	tcase_add_test(tc, large);
	tcase_add_test(tc, all_ones);
	tcase_add_test(tc, add);
	tcase_add_test(tc, pseudo);
	tcase_add_test(tc, ip4_header);
	tcase_add_test(tc, native);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(checksum_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
