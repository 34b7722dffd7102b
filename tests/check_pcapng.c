/* check_pcapng.c - the pcapng blocks srv6ctl capture writes
 * (src/common/pcapng.c), byte for byte: the Section Header Block with and
 * without shb_userappl, the Interface Description Block with if_name, an
 * Enhanced Packet Block with its padding and opt_comment (the drop
 * reason), and the refusals (no room, caplen over origlen).
 * tests/ns/trace.sh has tshark read a whole capture. */
#include <check.h>
#include <string.h>

#include "pcapng.h"
#include "testutil.h"

START_TEST(shb)
{
	uint8_t buf[128], want[128];
	size_t wl, n;

	n = pcapng_shb(buf, sizeof(buf), NULL);
	wl = hex2bin("0a0d0d0a 1c000000 4d3c2b1a 0100 0000"
		     "ffffffff ffffffff 1c000000", want, sizeof(want));
	ck_assert_bytes(buf, n, want, wl);
	n = pcapng_shb(buf, sizeof(buf), "srv6ctl");
	wl = hex2bin("0a0d0d0a 2c000000 4d3c2b1a 0100 0000"
		     "ffffffff ffffffff"
		     "0400 0700 73727636 63746c00"	/* shb_userappl */
		     "00000000"				/* opt_endofopt */
		     "2c000000", want, sizeof(want));
	ck_assert_bytes(buf, n, want, wl);
	ck_assert_uint_eq(pcapng_shb(buf, 43, "srv6ctl"), 0);
}
END_TEST

START_TEST(idb)
{
	uint8_t buf[128], want[128];
	size_t wl, n;

	n = pcapng_idb(buf, sizeof(buf), PCAPNG_LINKTYPE_RAW, 256, "srv6d");
	wl = hex2bin("01000000 24000000 6500 0000 00010000"
		     "0200 0500 73727636 64000000"	/* if_name */
		     "00000000 24000000", want, sizeof(want));
	ck_assert_bytes(buf, n, want, wl);
	n = pcapng_idb(buf, sizeof(buf), PCAPNG_LINKTYPE_RAW, 65535, NULL);
	wl = hex2bin("01000000 14000000 6500 0000 ffff0000 14000000", want,
		     sizeof(want));
	ck_assert_bytes(buf, n, want, wl);
}
END_TEST

START_TEST(epb)
{
	static const uint8_t pkt[3] = { 0x60, 0x00, 0x00 };
	uint8_t buf[128], want[128];
	size_t wl, n;

	n = pcapng_epb(buf, sizeof(buf), 0, 0x0000000100000002ull, pkt, 3, 40,
		       "drop hop_limit");
	wl = hex2bin("06000000 3c000000 00000000"
		     "01000000 02000000"		/* ts high, low */
		     "03000000 28000000"		/* caplen, origlen */
		     "60000000"				/* data, padded */
		     "0100 0e00 64726f70 20686f70 5f6c696d 69740000"
		     "00000000 3c000000", want, sizeof(want));
	ck_assert_bytes(buf, n, want, wl);
	/* no comment, data a multiple of 4 */
	n = pcapng_epb(buf, sizeof(buf), 2, 5, want, 4, 4, NULL);
	ck_assert_uint_eq(n, 36);
	ck_assert_bytes(buf + 28, 4, want, 4);
	ck_assert_uint_eq(buf[8], 2);
	ck_assert_uint_eq(buf[16], 5);
	ck_assert_uint_eq(buf[32], 36);
	/* refused: no room, more captured than the packet */
	ck_assert_uint_eq(pcapng_epb(buf, 59, 0, 0, pkt, 3, 40,
				     "drop hop_limit"), 0);
	ck_assert_uint_eq(pcapng_epb(buf, sizeof(buf), 0, 0, pkt, 3, 2, NULL),
			  0);
}
END_TEST

static Suite *pcapng_suite(void)
{
	Suite *s = suite_create("pcapng");
	TCase *tc = tcase_create("blocks");

	tcase_add_test(tc, shb);
	tcase_add_test(tc, idb);
	tcase_add_test(tc, epb);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pcapng_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
