/* check_gso.c - TCP super-packet segmentation and checksum completion
 * (src/srv6/gso.c) against scapy's segments of the same streams
 * (tests/gso-vectors.py: IPv4; IPv6 with hop-by-hop, SRH and destination
 * options; IPv4 inside IPv6+SRH), byte for byte. */
#include <check.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "gso.h"
#include "testutil.h"
#include "gso-vectors.h"

#define ROOM 2048

static uint8_t segbuf[8][ROOM];
static uint8_t *segs[8];
static uint32_t lens[8];

static void setup(void)
{
	for (unsigned i = 0; i < 8; i++) {
		memset(segbuf[i], 0xee, ROOM);
		segs[i] = segbuf[i];
	}
	memset(lens, 0, sizeof(lens));
}

static void check_case(const uint8_t *super, uint32_t slen,
		       const uint8_t *const *want, const unsigned *wlens)
{
	unsigned n = gso_segment(super, slen, GSO_VEC_SIZE, segs, ROOM, lens, 8);

	ck_assert_uint_eq(n, GSO_VEC_NSEGS);
	for (unsigned i = 0; i < n; i++)
		ck_assert_bytes(segs[i], lens[i], want[i], wlens[i]);
}

START_TEST(segment_ipv4)
{
	check_case(vec_v4_super, sizeof(vec_v4_super), vec_v4_segs,
		   vec_v4_lens);
	/* The flags: CWR only on the first, FIN and PSH only on the last
	 * (the vectors say so too; this names it). */
	ck_assert_uint_eq(segs[0][20 + 13], 0x90);
	ck_assert_uint_eq(segs[1][20 + 13], 0x10);
	ck_assert_uint_eq(segs[3][20 + 13], 0x19);
	/* IPv4 IDs 0xfffe, 0xffff, 0, 1; the last segment is odd. */
	ck_assert_uint_eq(segs[2][4] << 8 | segs[2][5], 0);
	ck_assert_uint_eq(lens[3] & 1, 1);
}
END_TEST

START_TEST(segment_ipv6_ext)
{
	/* The TCP checksum's pseudo header has the SRH's final destination,
	 * not the DA. */
	check_case(vec_v6ext_super, sizeof(vec_v6ext_super), vec_v6ext_segs,
		   vec_v6ext_lens);
}
END_TEST

START_TEST(segment_encap)
{
	/* Outer IPv6 Payload Length and inner IPv4 length, ID, checksum. */
	check_case(vec_encap4_super, sizeof(vec_encap4_super),
		   vec_encap4_segs, vec_encap4_lens);
}
END_TEST

START_TEST(segment_one)
{
	/* A super-packet whose payload fits one segment: itself, with a
	 * full checksum. */
	unsigned n = gso_segment(vec_v4_seg3, sizeof(vec_v4_seg3), 1000, segs,
				 ROOM, lens, 8);

	ck_assert_uint_eq(n, 1);
	ck_assert_bytes(segs[0], lens[0], vec_v4_seg3, sizeof(vec_v4_seg3));
}
END_TEST

START_TEST(segment_refused)
{
	uint8_t udp[28] = { 0x45, 0, 0, 28, 0, 0, 0, 0, 64, IPPROTO_UDP };

	/* Too many segments, too small a buffer, no gso_size, not TCP, and
	 * cut short: nothing written. */
	ck_assert_uint_eq(gso_segment(vec_v4_super, sizeof(vec_v4_super),
				      GSO_VEC_SIZE, segs, ROOM, lens, 3), 0);
	ck_assert_uint_eq(gso_segment(vec_v4_super, sizeof(vec_v4_super),
				      GSO_VEC_SIZE, segs, 251, lens, 8), 0);
	ck_assert_uint_eq(gso_segment(vec_v4_super, sizeof(vec_v4_super), 0,
				      segs, ROOM, lens, 8), 0);
	ck_assert_uint_eq(gso_segment(udp, sizeof(udp), 8, segs, ROOM, lens,
				      8), 0);
	ck_assert_uint_eq(gso_segment(vec_v4_super, 40, GSO_VEC_SIZE, segs,
				      ROOM, lens, 8), 0);
	ck_assert_uint_eq(segbuf[0][0], 0xee);
}
END_TEST

START_TEST(segment_len)
{
	/* Headers (IPv6 40 + HBH 8 + SRH 56 + DO 8 + TCP 32) + gso_size. */
	ck_assert_uint_eq(gso_segment_len(vec_v6ext_super,
					  sizeof(vec_v6ext_super), 1400),
			  144 + 1400);
	ck_assert_uint_eq(gso_segment_len(vec_encap4_super,
					  sizeof(vec_encap4_super), 1400),
			  132 + 1400);
}
END_TEST

START_TEST(csum_complete)
{
	uint8_t pkt[sizeof(vec_partial)];

	memcpy(pkt, vec_partial, sizeof(pkt));
	ck_assert_int_eq(gso_csum_complete(pkt, sizeof(pkt)), 0);
	ck_assert_bytes(pkt, sizeof(pkt), vec_partial_full,
		     sizeof(vec_partial_full));
}
END_TEST

START_TEST(csum_complete_after_end)
{
	uint8_t pkt[sizeof(vec_partial)];

	/* An End changed the DA (and SL) after the kernel had summed the
	 * pseudo header: the completion must not read the addresses again. */
	memcpy(pkt, vec_partial, sizeof(pkt));
	memcpy(pkt + 24, pkt + 48, 16);
	pkt[40 + 3] = 0;
	ck_assert_int_eq(gso_csum_complete(pkt, sizeof(pkt)), 0);
	ck_assert_uint_eq(pkt[sizeof(pkt) - 77 - 32 + 16],
			  vec_partial_full[sizeof(pkt) - 77 - 32 + 16]);
	ck_assert_uint_eq(pkt[sizeof(pkt) - 77 - 32 + 17],
			  vec_partial_full[sizeof(pkt) - 77 - 32 + 17]);
}
END_TEST

START_TEST(csum_seed)
{
	uint8_t pkt[sizeof(vec_partial_full)];

	/* The seed is the final destination's pseudo-header sum (the SRH's
	 * Segment List[0], not the DA): what the kernel left in vec_partial. */
	memcpy(pkt, vec_partial_full, sizeof(pkt));
	ck_assert_int_eq(gso_csum_seed(pkt, sizeof(pkt)), 0);
	ck_assert_bytes(pkt, sizeof(pkt), vec_partial, sizeof(vec_partial));
	/* And back. */
	ck_assert_int_eq(gso_csum_complete(pkt, sizeof(pkt)), 0);
	ck_assert_bytes(pkt, sizeof(pkt), vec_partial_full,
			sizeof(vec_partial_full));
	ck_assert_int_eq(gso_csum_seed(pkt, 40), -1);
}
END_TEST

START_TEST(kernel_can_segment)
{
	uint8_t pkt[sizeof(vec_v6ext_super)];

	/* Segments Left 2: the kernel would sum the DA: no. */
	ck_assert(!gso_kernel_can_segment(vec_v6ext_super,
					  sizeof(vec_v6ext_super)));
	/* Segments Left 0 (the DA is the final destination): yes. */
	memcpy(pkt, vec_v6ext_super, sizeof(pkt));
	pkt[48 + 3] = 0;
	ck_assert(gso_kernel_can_segment(pkt, sizeof(pkt)));
	/* Encapsulated: the inner header is the one summed: yes, whatever
	 * the outer SRH's Segments Left. */
	ck_assert(gso_kernel_can_segment(vec_encap4_super,
					 sizeof(vec_encap4_super)));
	ck_assert(gso_kernel_can_segment(vec_v4_super, sizeof(vec_v4_super)));
}
END_TEST

/* The virtio_net_hdr's bytes as a little-endian host sends them (the
 * packet socket's legacy header is in the host's byte order). */
static void check_vnet(const struct virtio_net_hdr *vh, const uint8_t *want)
{
	uint8_t got[sizeof(*vh)];

	ck_assert_uint_eq(sizeof(*vh), 10);
	memcpy(got, vh, sizeof(got));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	ck_assert_bytes(got, sizeof(got), want, 10);
#else
	for (unsigned i = 2; i < 10; i += 2) {
		uint8_t t = got[i];

		got[i] = got[i + 1];
		got[i + 1] = t;
	}
	ck_assert_bytes(got, sizeof(got), want, 10);
#endif
}

/* TCPv6 with an SRH still on its way (SL 1): TCPV6, NEEDS_CSUM at the TCP
 * header behind a 14-byte Ethernet header, and the checksum field seeded
 * with the final destination's pseudo-header sum (vec_partial: what the
 * kernel itself left there). */
START_TEST(vnet_ipv6_srh)
{
	static const uint8_t want[10] = {
		0x01,		/* VIRTIO_NET_HDR_F_NEEDS_CSUM */
		0x04,		/* VIRTIO_NET_HDR_GSO_TCPV6 */
		0x7e, 0x00,	/* hdr_len 126: 14 + 40 + 40 (SRH) + 32 */
		0xe8, 0x03,	/* gso_size 1000 */
		0x5e, 0x00,	/* csum_start 94: 14 + 80 */
		0x10, 0x00,	/* csum_offset 16 */
	};
	uint8_t pkt[sizeof(vec_partial_full)];
	struct virtio_net_hdr vh;

	memcpy(pkt, vec_partial_full, sizeof(pkt));
	ck_assert(gso_vnet_can_carry(pkt, sizeof(pkt)));
	ck_assert_int_eq(gso_vnet_prepare(pkt, sizeof(pkt), 1000, 14, &vh), 0);
	check_vnet(&vh, want);
	ck_assert_bytes(pkt, sizeof(pkt), vec_partial, sizeof(vec_partial));
}
END_TEST

/* TCPv4 with CWR: TCPV4 | ECN; completing the seed gives the checksum a
 * receiver verifies (pseudo header + segment sum to 0xffff). */
START_TEST(vnet_ipv4_ecn)
{
	static const uint8_t want[10] = {
		0x01, 0x81,	/* NEEDS_CSUM; GSO_TCPV4 | GSO_ECN */
		0x42, 0x00,	/* hdr_len 66: 14 + 20 + 32 */
		0xc8, 0x00,	/* gso_size 200 */
		0x22, 0x00,	/* csum_start 34 */
		0x10, 0x00,
	};
	uint8_t pkt[sizeof(vec_v4_super)];
	struct virtio_net_hdr vh;
	uint32_t l4len = sizeof(pkt) - 20, sum;

	memcpy(pkt, vec_v4_super, sizeof(pkt));
	ck_assert_int_eq(gso_vnet_prepare(pkt, sizeof(pkt), GSO_VEC_SIZE, 14,
					  &vh), 0);
	check_vnet(&vh, want);
	/* Only the checksum field changed. */
	ck_assert_bytes(pkt, 36, vec_v4_super, 36);
	ck_assert_bytes(pkt + 38, sizeof(pkt) - 38, vec_v4_super + 38,
			sizeof(pkt) - 38);
	ck_assert_int_eq(gso_csum_complete(pkt, sizeof(pkt)), 0);
	sum = csum_partial(pkt + 12, 8, IPPROTO_TCP + l4len);
	ck_assert_uint_eq(csum_fold(csum_partial(pkt + 20, l4len, sum)), 0);
}
END_TEST

/* What a virtio_net_hdr cannot describe: IP in IP (no gso_type for the
 * encapsulation), not TCP, no gso_size.  The packet is left as it was. */
START_TEST(vnet_refused)
{
	uint8_t pkt[sizeof(vec_v4_super)];
	struct virtio_net_hdr vh;

	ck_assert(!gso_vnet_can_carry(vec_encap4_super,
				      sizeof(vec_encap4_super)));
	memcpy(pkt, vec_v4_super, sizeof(pkt));
	ck_assert_int_eq(gso_vnet_prepare(pkt, sizeof(pkt), 0, 14, &vh), -1);
	pkt[9] = IPPROTO_UDP;
	ck_assert(!gso_vnet_can_carry(pkt, sizeof(pkt)));
	ck_assert_int_eq(gso_vnet_prepare(pkt, sizeof(pkt), 200, 14, &vh), -1);
	pkt[9] = IPPROTO_TCP;
	ck_assert_bytes(pkt, sizeof(pkt), vec_v4_super, sizeof(vec_v4_super));
	ck_assert(gso_vnet_can_carry(vec_v6ext_super, sizeof(vec_v6ext_super)));
}
END_TEST

static Suite *gso_suite(void)
{
	Suite *s = suite_create("gso");
	TCase *tc = tcase_create("gso");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, segment_ipv4);
	tcase_add_test(tc, segment_ipv6_ext);
	tcase_add_test(tc, segment_encap);
	tcase_add_test(tc, segment_one);
	tcase_add_test(tc, segment_refused);
	tcase_add_test(tc, segment_len);
	tcase_add_test(tc, csum_complete);
	tcase_add_test(tc, csum_complete_after_end);
	tcase_add_test(tc, csum_seed);
	tcase_add_test(tc, kernel_can_segment);
	tcase_add_test(tc, vnet_ipv6_srh);
	tcase_add_test(tc, vnet_ipv4_ecn);
	tcase_add_test(tc, vnet_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gso_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
