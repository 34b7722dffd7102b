/* check_srh.c - SRH location and validation (RFC 8754 2, 4.3.1; RFC 8986
 * 4.1 S08-S09), the extension header walk in front of it and the TLVs. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "srh.h"
#include "testutil.h"

#define SEG "fc000001000000000000000000000001"
#define UDP8 "04d2162e00081234"

static uint8_t pkt[1024];
static struct srh_info si;
static struct srh_error err;

/* An IPv6 header with Next Header nh in front of `ext_hex` (extension
 * headers followed by whatever upper layer); returns the length. */
static uint32_t mkpkt(uint8_t nh, const char *ext_hex)
{
	size_t n = hex2bin(ext_hex, pkt + 40, sizeof(pkt) - 40);

	memset(pkt, 0, 40);
	pkt[0] = 0x60;
	pkt[4] = (uint8_t)(n >> 8);
	pkt[5] = (uint8_t)n;
	pkt[6] = nh;
	pkt[7] = 64;
	pkt[8] = 0x20;
	pkt[24] = 0xfc;
	return (uint32_t)(40 + n);
}

static int find(uint32_t len)
{
	memset(&si, 0xa5, sizeof(si));
	memset(&err, 0xa5, sizeof(err));
	return srh_find(pkt, len, &si, &err);
}

/* ---- good SRHs --------------------------------------------------------- */

START_TEST(good_three_segments)
{
	uint32_t len = mkpkt(43, "1106040202000000" SEG SEG SEG UDP8);

	ck_assert_int_eq(find(len), 0);
	ck_assert_ptr_eq(si.srh, pkt + 40);
	ck_assert_uint_eq(si.srh_off, 40);
	ck_assert_uint_eq(si.prev_nh_off, 6);
	ck_assert_uint_eq(si.end_off, 96);
	ck_assert_uint_eq(si.nexthdr, 17);
	ck_assert_uint_eq(si.tlv_off, 96);
	ck_assert_uint_eq(si.tlv_end, 96);
	ck_assert_uint_eq(si.hmac_off, 0);
	ck_assert(srh_validate(si.srh));
}
END_TEST

START_TEST(good_after_hop_by_hop_and_dest_opts)
{
	/* HBH (8, PadN) -> DestOpts (8, PadN) -> SRH (1 segment) -> UDP */
	uint32_t len = mkpkt(0, "3c00010400000000" "2b00010400000000"
			     "1102040000000000" SEG UDP8);

	ck_assert_int_eq(find(len), 0);
	ck_assert_uint_eq(si.srh_off, 56);
	ck_assert_uint_eq(si.prev_nh_off, 48);
	ck_assert_uint_eq(si.end_off, 80);
	ck_assert(srh_validate(si.srh));
}
END_TEST

START_TEST(no_srh)
{
	uint32_t len = mkpkt(17, UDP8);

	ck_assert_int_eq(find(len), 0);
	ck_assert_ptr_null(si.srh);
	ck_assert_uint_eq(si.end_off, 40);
	ck_assert_uint_eq(si.nexthdr, 17);

	len = mkpkt(60, "3a00010400000000" "8000000000000000");
	ck_assert_int_eq(find(len), 0);
	ck_assert_ptr_null(si.srh);
	ck_assert_uint_eq(si.end_off, 48);
	ck_assert_uint_eq(si.nexthdr, 58);
}
END_TEST

/* Segments Left == Last Entry + 1 is the largest valid value. */
START_TEST(sl_equal_le_plus_one)
{
	uint32_t len = mkpkt(43, "1104040201000000" SEG SEG UDP8);

	ck_assert_int_eq(find(len), 0);
	ck_assert(srh_validate(si.srh));
}
END_TEST

/* Odd Hdr Ext Len is legal when what follows the segments is TLVs:
 * 1 segment + an 8-byte PadN, Hdr Ext Len 3. */
START_TEST(odd_hdrlen_with_tlvs)
{
	uint32_t len = mkpkt(43, "1103040100000000" SEG "0406000000000000"
			     UDP8);

	ck_assert_int_eq(find(len), 0);
	ck_assert_uint_eq(si.tlv_off, 64);
	ck_assert_uint_eq(si.tlv_end, 72);
	ck_assert(srh_validate(si.srh));
}
END_TEST

START_TEST(pad1_accepted)
{
	uint32_t len = mkpkt(43, "1103040100000000" SEG "0000000000000000"
			     UDP8);

	ck_assert_int_eq(find(len), 0);
	ck_assert_uint_eq(si.hmac_off, 0);
	/* Pad1, then a PadN of 5 bytes. */
	len = mkpkt(43, "1103040100000000" SEG "0004050000000000" UDP8);
	ck_assert_int_eq(find(len), 0);
}
END_TEST

/* RFC 8754 2.1.2 HMAC TLV: type 5, length 38 (reserved, key id, 32-byte
 * HMAC), here after two Pad1 and followed by a PadN: found wherever it is
 * (Linux only finds it last and with its H flag). */
START_TEST(hmac_tlv_located)
{
	uint32_t len = mkpkt(43, "1108040100000000" SEG "0000"
			     "0526" "0000" "00000007"
			     "0102030405060708090a0b0c0d0e0f10"
			     "1112131415161718191a1b1c1d1e1f20"
			     "0404" "00000000" UDP8);

	ck_assert_int_eq(find(len), 0);
	ck_assert_uint_eq(si.tlv_off, 64);
	ck_assert_uint_eq(si.tlv_end, 112);
	ck_assert_uint_eq(si.hmac_off, 66);
	ck_assert_uint_eq(pkt[si.hmac_off], 5);
}
END_TEST

/* A routing header of another type with Segments Left 0 is ignored
 * (RFC 8200 4.4) and the walk goes on. */
START_TEST(other_routing_type_sl0_ignored)
{
	uint32_t len = mkpkt(43, "1102030000000000" SEG UDP8);

	ck_assert_int_eq(find(len), 0);
	ck_assert_ptr_null(si.srh);
	ck_assert_uint_eq(si.end_off, 64);
	ck_assert_uint_eq(si.nexthdr, 17);
}
END_TEST

/* ---- malformed --------------------------------------------------------- */

START_TEST(short_packet)
{
	uint32_t len = mkpkt(43, "1106040202000000" SEG SEG SEG UDP8);

	ck_assert_int_eq(find(44), -1);		/* SRH's first 8 bytes cut */
	ck_assert_int_eq(err.reason, DROP_TRUNCATED);
	ck_assert_int_eq(find(len - 8 - 1), -1);	/* last segment cut */
	ck_assert_int_eq(err.reason, DROP_TRUNCATED);
	ck_assert(!err.icmp);
	len = mkpkt(0, "2b00010400000000");		/* HBH, then nothing */
	ck_assert_int_eq(find(len - 1), -1);
	ck_assert_int_eq(err.reason, DROP_TRUNCATED);
	ck_assert_int_eq(find(len), -1);		/* routing hdr < 4 */
	ck_assert_int_eq(err.reason, DROP_TRUNCATED);
}
END_TEST

START_TEST(hdrlen_too_big)
{
	uint32_t len = mkpkt(43, "1108040202000000" SEG SEG SEG UDP8);

	ck_assert_int_eq(find(len), -1);
	ck_assert_int_eq(err.reason, DROP_TRUNCATED);
}
END_TEST

/* Hdr Ext Len 1: max_LE = 1/2 - 1 = -1, so no Last Entry fits. */
START_TEST(hdrlen_odd_too_small)
{
	uint32_t len = mkpkt(43, "1101040100000000" "0000000000000000" UDP8);

	ck_assert_int_eq(find(len), 0);
	ck_assert_uint_eq(si.tlv_off, si.tlv_end);
	ck_assert(!srh_validate(si.srh));
	len = mkpkt(43, "1100040100000000" UDP8);	/* Hdr Ext Len 0 */
	ck_assert_int_eq(find(len), 0);
	ck_assert(!srh_validate(si.srh));
}
END_TEST

START_TEST(sl_above_le_plus_one)
{
	uint32_t len = mkpkt(43, "1106040402000000" SEG SEG SEG UDP8);

	ck_assert_int_eq(find(len), 0);
	ck_assert(!srh_validate(si.srh));
}
END_TEST

/* Last Entry 3 but Hdr Ext Len 6 holds 3 segments (max_LE 2). */
START_TEST(le_above_max_le)
{
	uint32_t len = mkpkt(43, "1106040103000000" SEG SEG SEG UDP8);

	ck_assert_int_eq(find(len), 0);
	ck_assert_uint_eq(si.tlv_off, si.tlv_end);	/* no TLV area */
	ck_assert(!srh_validate(si.srh));
}
END_TEST

START_TEST(tlv_overrun)
{
	/* PadN of 10 bytes in an 8-byte TLV area */
	uint32_t len = mkpkt(43, "1103040100000000" SEG "040a000000000000"
			     UDP8);

	ck_assert_int_eq(find(len), -1);
	ck_assert_int_eq(err.reason, DROP_BAD_TLV);
	/* a TLV whose length byte is past the SRH: 7 Pad1 then type 4 */
	len = mkpkt(43, "1103040100000000" SEG "0000000000000004" UDP8);
	ck_assert_int_eq(find(len), -1);
	ck_assert_int_eq(err.reason, DROP_BAD_TLV);
}
END_TEST

START_TEST(tlv_walk_direct)
{
	static const uint8_t ok[] = { 0, 4, 1, 0, 5, 0, 0 };
	static const uint8_t over[] = { 4, 3, 0, 0 };
	static const uint8_t lone[] = { 0, 0, 7 };
	uint32_t hmac;

	ck_assert_int_eq(srh_tlv_walk(ok, sizeof(ok), &hmac), 0);
	ck_assert_uint_eq(hmac, 4);
	ck_assert_int_eq(srh_tlv_walk(ok, 0, &hmac), 0);
	ck_assert_uint_eq(hmac, UINT32_MAX);
	ck_assert_int_eq(srh_tlv_walk(over, sizeof(over), &hmac), -1);
	ck_assert_int_eq(srh_tlv_walk(lone, sizeof(lone), &hmac), -1);
}
END_TEST

START_TEST(fragment_before_srh)
{
	uint32_t len = mkpkt(44, "2b00000100000001" "1102040000000000" SEG
			     UDP8);

	ck_assert_int_eq(find(len), -1);
	ck_assert_int_eq(err.reason, DROP_FRAGMENT);
}
END_TEST

START_TEST(other_ext_headers)
{
	/* AH before the SRH */
	uint32_t len = mkpkt(51, "2b01000000000000" "0000000000000000"
			     "1102040000000000" SEG UDP8);

	ck_assert_int_eq(find(len), -1);
	ck_assert_int_eq(err.reason, DROP_EXT_HEADERS);
	/* Hop-by-Hop anywhere but first (RFC 8200 4.1) */
	len = mkpkt(60, "0000010400000000" "2b00010400000000"
		    "1102040000000000" SEG UDP8);
	ck_assert_int_eq(find(len), -1);
	ck_assert_int_eq(err.reason, DROP_EXT_HEADERS);
}
END_TEST

/* RFC 8200 4.4: unknown Routing Type with Segments Left > 0: Parameter
 * Problem code 0 pointing at the Routing Type field. */
START_TEST(other_routing_type_sl_nonzero)
{
	uint32_t len = mkpkt(60, "2b00010400000000" "1102000100000000" SEG
			     UDP8);

	ck_assert_int_eq(find(len), -1);
	ck_assert_int_eq(err.reason, DROP_BAD_SRH);
	ck_assert(err.icmp);
	ck_assert_uint_eq(err.code, 0);
	ck_assert_uint_eq(err.pointer, 48 + 2);
}
END_TEST

static Suite *srh_suite(void)
{
	Suite *s = suite_create("srh");
	TCase *tg = tcase_create("good");
	TCase *tb = tcase_create("malformed");

	tcase_add_test(tg, good_three_segments);
	tcase_add_test(tg, good_after_hop_by_hop_and_dest_opts);
	tcase_add_test(tg, no_srh);
	tcase_add_test(tg, sl_equal_le_plus_one);
	tcase_add_test(tg, odd_hdrlen_with_tlvs);
	tcase_add_test(tg, pad1_accepted);
	tcase_add_test(tg, hmac_tlv_located);
	tcase_add_test(tg, other_routing_type_sl0_ignored);
	suite_add_tcase(s, tg);

	tcase_add_test(tb, short_packet);
	tcase_add_test(tb, hdrlen_too_big);
	tcase_add_test(tb, hdrlen_odd_too_small);
	tcase_add_test(tb, sl_above_le_plus_one);
	tcase_add_test(tb, le_above_max_le);
	tcase_add_test(tb, tlv_overrun);
	tcase_add_test(tb, tlv_walk_direct);
	tcase_add_test(tb, fragment_before_srh);
	tcase_add_test(tb, other_ext_headers);
	tcase_add_test(tb, other_routing_type_sl_nonzero);
	suite_add_tcase(s, tb);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(srh_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
