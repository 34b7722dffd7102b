/* check_gso.c - TCP super-packet segmentation and checksum completion
 * (src/srv6/gso.c) against scapy's segments of the same streams
 * (tests/gso-vectors.py: IPv4; IPv6 with hop-by-hop, SRH and destination
 * options; IPv4 inside IPv6+SRH), byte for byte. */
#include <check.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "gso.h"
#include "pkt.h"
#include "testutil.h"
#include "gso-vectors.h"

#define ROOM 2048

static uint8_t segbuf[8][ROOM];
static uint8_t *segs[8];
static uint32_t lens[8];

/* gso_parse() of the len bytes at b, NULL when it fails: the facts the
 * functions of a parsed packet take. */
static const struct gso_info *facts(const uint8_t *b, uint32_t len)
{
	static struct gso_info gi;

	return gso_parse(b, len, &gi) == 0 ? &gi : NULL;
}

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
	ck_assert_uint_eq(gso_segment_len(facts(vec_v6ext_super,
						sizeof(vec_v6ext_super)), 1400),
			  144 + 1400);
	ck_assert_uint_eq(gso_segment_len(facts(vec_encap4_super,
						sizeof(vec_encap4_super)), 1400),
			  132 + 1400);
	/* Not TCP, or no parse: 0. */
	ck_assert_uint_eq(gso_segment_len(NULL, 1400), 0);
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
	ck_assert(!gso_kernel_can_segment(facts(vec_v6ext_super,
						sizeof(vec_v6ext_super))));
	/* Segments Left 0 (the DA is the final destination): yes. */
	memcpy(pkt, vec_v6ext_super, sizeof(pkt));
	pkt[48 + 3] = 0;
	ck_assert(gso_kernel_can_segment(facts(pkt, sizeof(pkt))));
	/* Encapsulated: the inner header is the one summed: yes, whatever
	 * the outer SRH's Segments Left. */
	ck_assert(gso_kernel_can_segment(facts(vec_encap4_super,
					       sizeof(vec_encap4_super))));
	ck_assert(gso_kernel_can_segment(facts(vec_v4_super,
					       sizeof(vec_v4_super))));
	/* Not parsed (not TCP/UDP): no. */
	ck_assert(!gso_kernel_can_segment(NULL));
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
	ck_assert(gso_vnet_can_carry(facts(pkt, sizeof(pkt))));
	ck_assert_int_eq(gso_vnet_prepare(pkt, sizeof(pkt),
					  facts(pkt, sizeof(pkt)), 1000, 14,
					  &vh), 0);
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
	ck_assert_int_eq(gso_vnet_prepare(pkt, sizeof(pkt),
					  facts(pkt, sizeof(pkt)),
					  GSO_VEC_SIZE, 14, &vh), 0);
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

	ck_assert(!gso_vnet_can_carry(facts(vec_encap4_super,
					    sizeof(vec_encap4_super))));
	memcpy(pkt, vec_v4_super, sizeof(pkt));
	ck_assert_int_eq(gso_vnet_prepare(pkt, sizeof(pkt),
					  facts(pkt, sizeof(pkt)), 0, 14, &vh),
			 -1);
	pkt[9] = IPPROTO_UDP;
	ck_assert(!gso_vnet_can_carry(facts(pkt, sizeof(pkt))));
	ck_assert_int_eq(gso_vnet_prepare(pkt, sizeof(pkt),
					  facts(pkt, sizeof(pkt)), 200, 14,
					  &vh), -1);
	pkt[9] = IPPROTO_TCP;
	ck_assert_bytes(pkt, sizeof(pkt), vec_v4_super, sizeof(vec_v4_super));
	ck_assert(gso_vnet_can_carry(facts(vec_v6ext_super,
					   sizeof(vec_v6ext_super))));
}
END_TEST

/* ---- the parse a packet keeps (gso_info.h, gso_pkt_info()) -------------- */

/* a and b, field by field. */
static void same_facts(const struct gso_info *a, const struct gso_info *b)
{
	ck_assert_uint_eq(a->nlayers, b->nlayers);
	for (unsigned i = 0; i < GSO_MAX_LAYERS; i++) {
		ck_assert_uint_eq(a->layer_off[i], b->layer_off[i]);
		ck_assert_uint_eq(a->layer_ver[i], b->layer_ver[i]);
	}
	ck_assert_uint_eq(a->l4_off, b->l4_off);
	ck_assert_uint_eq(a->l4_proto, b->l4_proto);
	ck_assert_uint_eq(a->hdr_len, b->hdr_len);
	ck_assert_uint_eq(a->rh_pending, b->rh_pending);
	ck_assert_uint_eq(a->final_dst_off, b->final_dst_off);
}

/* What a packet of the len bytes at b keeps once parsed. */
static struct gso_cache cache_of(const uint8_t *b, uint32_t len)
{
	struct gso_cache c = { .valid = true };

	c.ok = gso_parse(b, len, &c.info) == 0;
	return c;
}

/* c is the parse of the len bytes at b. */
static void cache_is_parse(const struct gso_cache *c, const uint8_t *b,
			   uint32_t len)
{
	struct gso_cache want = cache_of(b, len);

	ck_assert(c->valid);
	ck_assert_int_eq(c->ok, want.ok);
	if (want.ok)
		same_facts(&c->info, &want.info);
}

/* An encapsulation (gso_cache_encap()) and taking outer headers off
 * (gso_cache_pull()) give what gso_parse() finds in the bytes: each
 * vector put behind one more outer IPv6 header (the outer headers of the
 * encapsulated vectors: with an SRH to IPv6 or IPv4, without one to
 * IPv4) up to one more than GSO_MAX_LAYERS, and from each every inner
 * header on. */
START_TEST(cache_follows_layers)
{
	static uint8_t buf[2][16384];
	static const struct {
		const uint8_t *b;
		uint32_t len;
	} vecs[] = {
		{ vec_v4_super, sizeof(vec_v4_super) },
		{ vec_v6ext_super, sizeof(vec_v6ext_super) },
		{ vec_encap4_super, sizeof(vec_encap4_super) },
		{ vec_encap6_super, sizeof(vec_encap6_super) },
		{ vec_encap4red_super, sizeof(vec_encap4red_super) },
	};
	/* The outer headers: IPv6 + SRH naming IPv6 (vec_encap6's), IPv6
	 * + SRH naming IPv4 (vec_encap4's), IPv6 naming IPv4. */
	uint32_t o6 = facts(vec_encap6_super,
			    sizeof(vec_encap6_super))->layer_off[1];
	uint32_t o4 = facts(vec_encap4_super,
			    sizeof(vec_encap4_super))->layer_off[1];
	unsigned ok = 0, refused = 0;

	ck_assert_uint_eq(facts(vec_encap4red_super,
				sizeof(vec_encap4red_super))->layer_off[1], 40);
	for (unsigned v = 0; v < 2 * (sizeof(vecs) / sizeof(vecs[0])); v++) {
		const uint8_t *cur = vecs[v / 2].b;
		uint32_t len = vecs[v / 2].len;

		for (unsigned d = 0; d <= GSO_MAX_LAYERS; d++) {
			uint8_t *w = buf[d % 2];
			bool v4 = cur[0] >> 4 == 4;
			const uint8_t *outer = !v4 ? vec_encap6_super :
					       v % 2 ? vec_encap4red_super :
						       vec_encap4_super;
			uint32_t olen = !v4 ? o6 : v % 2 ? 40 : o4;
			struct gso_cache in = cache_of(cur, len), got, back;

			memcpy(w, outer, olen);
			memcpy(w + olen, cur, len);
			got = gso_cache_encap(in, olen, olen + len);
			cache_is_parse(&got, w, olen + len);
			if (!got.ok) {
				refused++;
				break;
			}
			ok++;
			/* And off again, one inner header after another. */
			for (unsigned k = 1; k < got.info.nlayers; k++) {
				uint32_t off = got.info.layer_off[k];

				back = got;
				gso_cache_pull(&back, off);
				cache_is_parse(&back, w + off, olen + len - off);
			}
			cur = w;
			len += olen;
		}
	}
	/* Every vector went down to GSO_MAX_LAYERS layers, and one more
	 * was refused as gso_parse() refuses it. */
	ck_assert_uint_eq(refused, 10);
	ck_assert_uint_eq(ok, 2 * (3 + 3 + 2 + 2 + 2));
}
END_TEST

/* Not at an IP header's offset, or of a failed parse: no facts kept; a
 * trim keeps them while the headers stay whole. */
START_TEST(cache_ends)
{
	struct gso_cache c = cache_of(vec_encap6_super,
				      sizeof(vec_encap6_super));
	uint16_t hdr = c.info.hdr_len;

	gso_cache_pull(&c, 8);
	ck_assert(!c.valid);
	c = cache_of(vec_encap6_super, 100);	/* cut short: no TCP */
	ck_assert(c.valid && !c.ok);
	gso_cache_pull(&c, 40);
	ck_assert(!c.valid);
	c = cache_of(vec_encap6_super, sizeof(vec_encap6_super));
	gso_cache_trim(&c, hdr);
	cache_is_parse(&c, vec_encap6_super, hdr);
	gso_cache_trim(&c, hdr - 1u);
	ck_assert(!c.valid);
	/* The innermost header IPv4: no final destination offset. */
	ck_assert_uint_eq(facts(vec_encap4_super,
				sizeof(vec_encap4_super))->final_dst_off, 0);
}
END_TEST

/* The parse is made once and then read from the packet: bytes changed
 * behind its back do not show until a step that moves or rewrites the
 * headers says so (what the packet path does, pkt.h); pkt_pull() of the
 * outer header hands on the inner packet's facts without a walk. */
START_TEST(pkt_info_kept)
{
	static struct test_slot s;
	struct pkt *p = test_pkt(&s, vec_encap6_super, sizeof(vec_encap6_super),
				 ETH_P_IPV6);
	struct gso_info want = *facts(vec_encap6_super,
				      sizeof(vec_encap6_super));
	const struct gso_info *gi = gso_pkt_info(p);
	uint32_t inner = want.layer_off[1];

	ck_assert_ptr_nonnull(gi);
	same_facts(gi, &want);
	/* The inner header's version broken unannounced: still the facts
	 * of the first parse. */
	p->data[inner] = 0x00;
	ck_assert_ptr_eq(gso_pkt_info(p), gi);
	same_facts(gso_pkt_info(p), &want);
	/* Announced (pkt_chain_write()): parsed again, no TCP found, and
	 * that kept too. */
	pkt_chain_write(p);
	ck_assert_ptr_null(gso_pkt_info(p));
	p->data[inner] = 0x60;
	ck_assert_ptr_null(gso_pkt_info(p));
	/* pkt_push() ends it: the bytes parse again. */
	ck_assert_ptr_nonnull(pkt_push(p, 8));
	pkt_pull(p, 8);
	same_facts(gso_pkt_info(p), &want);
	/* The TCP header's length broken unannounced, then the outer
	 * header pulled: the inner packet's facts are the first parse's,
	 * shifted (a walk would find 60 bytes of TCP header). */
	p->data[want.l4_off + 12] = 0xf0;
	pkt_pull(p, inner);
	ck_assert(p->gso_cache.valid);
	ck_assert_uint_eq(gso_pkt_info(p)->hdr_len, want.hdr_len - inner);
	ck_assert_uint_eq(gso_pkt_info(p)->nlayers, 1);
	/* A header pushed in front: parsed again, the break seen. */
	ck_assert_ptr_nonnull(pkt_push(p, inner));
	ck_assert_uint_eq(gso_pkt_info(p)->hdr_len, want.l4_off + 60);
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
	tcase_add_test(tc, cache_follows_layers);
	tcase_add_test(tc, cache_ends);
	tcase_add_test(tc, pkt_info_kept);
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
