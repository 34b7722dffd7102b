/* check_kernel72.c - the test suite's copy of Linux 7.2's verdict payload
 * rule (tests/kernel72/rules.c), on exact bytes: what srv6d's results look
 * like to a current kernel. */
#include <check.h>
#include <linux/if_ether.h>
#include <stdlib.h>
#include <string.h>

#include "kernel72/rules.h"
#include "testutil.h"

/* IPv6, next header 43 (0x2b), payload 48: an SRH (2 segments, SL 1) + UDP 8. */
#define IP6_SRH	"6000000000302b40" \
		"fc000001000000000000000000000001" \
		"fc000100000000000000000000000001"
#define SRH_SL1	"1104040101000000" \
		"fc000009000000000000000000000c01" \
		"fc000100000000000000000000000001"
#define UDP8	"04d2162e00081234"

static uint8_t o[512], n[512];
static size_t olen, nlen;

static void set(uint8_t *b, size_t *len, const char *hex)
{
	*len = hex2bin(hex, b, 512);
}

static enum k72_verdict judge6(void)
{
	return k72_payload_judge(ETH_P_IPV6, o, olen, n, nlen);
}

static enum k72_verdict judge4(void)
{
	return k72_payload_judge(ETH_P_IP, o, olen, n, nlen);
}

START_TEST(ip6_unchanged_ok)
{
	set(o, &olen, IP6_SRH SRH_SL1 UDP8);
	memcpy(n, o, olen);
	nlen = olen;
	ck_assert_int_eq(judge6(), K72_OK);
	ck_assert_uint_eq(k72_header_span(ETH_P_IPV6, o, olen), 40 + 40);
}
END_TEST

/* A C-SID shift or End.X next hop change: the destination, hop limit,
 * traffic class, flow label change; the SRH stays. */
START_TEST(ip6_addresses_hlim_ok)
{
	set(o, &olen, IP6_SRH SRH_SL1 UDP8);
	set(n, &nlen, "6b8abcde00302b01"
		      "fc000001000000000000000000000002"
		      "fc000100000b000c0000000000000000" SRH_SL1 UDP8);
	ck_assert_int_eq(judge6(), K72_OK);
}
END_TEST

/* End: Segments Left 1 -> 0 inside the SRH. */
START_TEST(ip6_end_sl_refused)
{
	set(o, &olen, IP6_SRH SRH_SL1 UDP8);
	set(n, &nlen, "6000000000302b40"
		      "fc000001000000000000000000000001"
		      "fc000009000000000000000000000c01"
		      "1104040100000000"
		      "fc000009000000000000000000000c01"
		      "fc000100000000000000000000000001" UDP8);
	ck_assert_int_eq(judge6(), K72_EXT_CHANGED);
}
END_TEST

/* Decapsulation or PSP: the first next header changes. */
START_TEST(ip6_first_nh_refused)
{
	set(o, &olen, IP6_SRH SRH_SL1 UDP8);
	set(n, &nlen, "6000000000081140"
		      "fc000001000000000000000000000001"
		      "fc000009000000000000000000000c01" UDP8);
	ck_assert_int_eq(judge6(), K72_FIRST_NH);
}
END_TEST

/* Payload Length that does not match the length handed back. */
START_TEST(ip6_length_refused)
{
	set(o, &olen, IP6_SRH SRH_SL1 UDP8);
	memcpy(n, o, olen);
	nlen = olen - 1;
	ck_assert_int_eq(judge6(), K72_BAD_LENGTH);
}
END_TEST

/* What follows the last extension header may change, length too. */
START_TEST(ip6_upper_layer_free)
{
	set(o, &olen, IP6_SRH SRH_SL1 UDP8);
	set(n, &nlen, "6000000000342b40"
		      "fc000001000000000000000000000001"
		      "fc000100000000000000000000000001" SRH_SL1
		      "04d2162e000c5678abcdabcd");
	ck_assert_int_eq(judge6(), K72_OK);
}
END_TEST

/* Hop-by-Hop in front of the SRH: both are part of the chain. */
START_TEST(ip6_hbh_chain)
{
	set(o, &olen, "6000000000380040"
		      "fc000001000000000000000000000001"
		      "fc000100000000000000000000000001"
		      "2b00010400000000" SRH_SL1 UDP8);
	ck_assert_uint_eq(k72_header_span(ETH_P_IPV6, o, olen), 40 + 8 + 40);
	memcpy(n, o, olen);
	nlen = olen;
	n[40 + 8 + 3] = 0;	/* SL in the SRH behind the HBH */
	ck_assert_int_eq(judge6(), K72_EXT_CHANGED);
	n[40 + 8 + 3] = 1;
	n[40 + 2] = 0x05;	/* an option byte of the HBH */
	ck_assert_int_eq(judge6(), K72_EXT_CHANGED);
}
END_TEST

/* An IPv4 payload for a packet queued as IPv6 (a family change). */
START_TEST(ip6_family_refused)
{
	set(o, &olen, IP6_SRH SRH_SL1 UDP8);
	set(n, &nlen, "4500001c000000004011000002000001c0000201" UDP8);
	ck_assert_int_eq(judge6(), K72_BAD_FAMILY);
}
END_TEST

#define IP4_HDR	"4500001c00004000" "4011000002000001c0000201"

START_TEST(ip4_ttl_dst_df_ok)
{
	set(o, &olen, IP4_HDR UDP8);
	set(n, &nlen, "4500001c00000000" "3f11000002000001c0000299" UDP8);
	ck_assert_int_eq(judge4(), K72_OK);
}
END_TEST

START_TEST(ip4_frag_refused)
{
	set(o, &olen, IP4_HDR UDP8);
	set(n, &nlen, "4500001c00002001" "4011000002000001c0000201" UDP8);
	ck_assert_int_eq(judge4(), K72_FRAG);
}
END_TEST

START_TEST(ip4_options_refused)
{
	set(o, &olen, "46000020000040004011000002000001c000020101010100" UDP8);
	memcpy(n, o, olen);
	nlen = olen;
	n[21] = 0x44;
	ck_assert_int_eq(judge4(), K72_IHL_OPTIONS);
	set(n, &nlen, IP4_HDR UDP8);	/* options removed */
	ck_assert_int_eq(judge4(), K72_IHL_OPTIONS);
}
END_TEST

START_TEST(ip4_total_length_refused)
{
	set(o, &olen, IP4_HDR UDP8);
	set(n, &nlen, "4500001d00004000" "4011000002000001c0000201" UDP8);
	ck_assert_int_eq(judge4(), K72_BAD_LENGTH);
	ck_assert_str_eq(k72_verdict_name(K72_BAD_LENGTH), "length");
}
END_TEST

static Suite *kernel72_suite(void)
{
	Suite *s = suite_create("kernel72");
	TCase *t6 = tcase_create("ipv6");
	TCase *t4 = tcase_create("ipv4");

	tcase_add_test(t6, ip6_unchanged_ok);
	tcase_add_test(t6, ip6_addresses_hlim_ok);
	tcase_add_test(t6, ip6_end_sl_refused);
	tcase_add_test(t6, ip6_first_nh_refused);
	tcase_add_test(t6, ip6_length_refused);
	tcase_add_test(t6, ip6_upper_layer_free);
	tcase_add_test(t6, ip6_hbh_chain);
	tcase_add_test(t6, ip6_family_refused);
	suite_add_tcase(s, t6);
	tcase_add_test(t4, ip4_ttl_dst_df_ok);
	tcase_add_test(t4, ip4_frag_refused);
	tcase_add_test(t4, ip4_options_refused);
	tcase_add_test(t4, ip4_total_length_refused);
	suite_add_tcase(s, t4);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kernel72_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
