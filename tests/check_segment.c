/* check_segment.c - encapsulated super-packets cut into frames
 * (src/io/segment.c) against scapy's segments of the same streams
 * (tests/gso-vectors.py: IPv4 and IPv6 TCP inside an outer IPv6+SRH,
 * IPv4 inside an outer IPv6 without SRH: H.Encaps.Red),
 * byte for byte, behind their Ethernet header; the segment size the
 * headend chooses (headend_seg_size()); reinject_decide()'s choice of
 * the segmenting way (REINJECT_SEGMENT); and reinject_packet() sending the
 * segments of two super-packets, more than a batch of frames holds, onto
 * lo in a network namespace of its own (root only), read back there. */
#define _GNU_SOURCE	/* unshare() */
#include <check.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gso.h"
#include "headend.h"
#include "reinject.h"
#include "segment.h"
#include "testutil.h"
#include "gso-vectors.h"

static struct seg_area area;
static uint8_t *frames[8];
static uint32_t lens[8];
static const uint8_t eth[ETH_HLEN] = {
	0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x86, 0xdd,
};

/* gso_parse() of the len bytes at b, NULL when it fails: the facts
 * seg_cut() takes (a packet's gso_pkt_info()). */
static const struct gso_info *facts(const uint8_t *b, uint32_t len)
{
	static struct gso_info gi;

	return gso_parse(b, len, &gi) == 0 ? &gi : NULL;
}

static void setup(void)
{
	ck_assert_int_eq(seg_area_init(&area, SEG_AREA_BYTES), 0);
	memset(area.buf, 0xee, area.size);
	memset(lens, 0, sizeof(lens));
	memset(frames, 0, sizeof(frames));
}

static void teardown(void)
{
	seg_area_fini(&area);
}

/* frames[k] is eth followed by want's segment `seg`. */
static void check_frame(unsigned k, const uint8_t *want, uint32_t wlen)
{
	ck_assert_uint_eq(lens[k], ETH_HLEN + wlen);
	ck_assert_bytes(frames[k], ETH_HLEN, eth, ETH_HLEN);
	ck_assert_bytes(frames[k] + ETH_HLEN, lens[k] - ETH_HLEN, want, wlen);
}

START_TEST(cut_encap6)
{
	/* IPv6 in IPv6+SRH: both Payload Lengths, sequence numbers, FIN
	 * and PSH on the last (short, odd-length) segment only, CWR on the
	 * first only, the full checksum whatever the super-packet held. */
	unsigned total = 0;
	unsigned n = seg_cut(&area, vec_encap6_super, sizeof(vec_encap6_super),
			     facts(vec_encap6_super, sizeof(vec_encap6_super)),
			     GSO_VEC_SIZE, eth, 0, 8, frames, lens, &total);

	ck_assert_uint_eq(total, GSO_VEC_NSEGS);
	ck_assert_uint_eq(n, GSO_VEC_NSEGS);
	for (unsigned k = 0; k < n; k++)
		check_frame(k, vec_encap6_segs[k], vec_encap6_lens[k]);
	ck_assert_uint_gt(area.used, 0);
}
END_TEST

START_TEST(cut_encap4)
{
	/* IPv4 in IPv6+SRH: the inner Total Length, ID + i, header
	 * checksum too. */
	unsigned total = 0;
	unsigned n = seg_cut(&area, vec_encap4_super, sizeof(vec_encap4_super),
			     facts(vec_encap4_super, sizeof(vec_encap4_super)),
			     GSO_VEC_SIZE, eth, 0, 8, frames, lens, &total);

	ck_assert_uint_eq(n, GSO_VEC_NSEGS);
	for (unsigned k = 0; k < n; k++)
		check_frame(k, vec_encap4_segs[k], vec_encap4_lens[k]);
}
END_TEST

START_TEST(cut_encap_red)
{
	/* H.Encaps.Red of one segment: the outer IPv6 header alone in
	 * front of the IPv4 packet. */
	unsigned total = 0;
	unsigned n = seg_cut(&area, vec_encap4red_super,
			     sizeof(vec_encap4red_super),
			     facts(vec_encap4red_super,
				   sizeof(vec_encap4red_super)),
			     GSO_VEC_SIZE, eth, 0, 8, frames, lens, &total);

	ck_assert_uint_eq(n, GSO_VEC_NSEGS);
	for (unsigned k = 0; k < n; k++)
		check_frame(k, vec_encap4red_segs[k], vec_encap4red_lens[k]);
}
END_TEST

START_TEST(cut_in_parts)
{
	/* An area of two frames: two, then nothing until it is emptied
	 * (the flush), then the last two, the same bytes as in one go,
	 * from one parse. */
	const struct gso_info *gi = facts(vec_encap6_super,
					  sizeof(vec_encap6_super));
	unsigned total = 0, n;

	seg_area_fini(&area);
	ck_assert_int_eq(seg_area_init(&area, 2 * 512), 0);
	n = seg_cut(&area, vec_encap6_super, sizeof(vec_encap6_super), gi,
		    GSO_VEC_SIZE, eth, 0, 8, frames, lens, &total);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(total, GSO_VEC_NSEGS);
	check_frame(0, vec_encap6_segs[0], vec_encap6_lens[0]);
	check_frame(1, vec_encap6_segs[1], vec_encap6_lens[1]);
	total = 0;
	n = seg_cut(&area, vec_encap6_super, sizeof(vec_encap6_super), gi,
		    GSO_VEC_SIZE, eth, 2, 8, frames, lens, &total);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(total, GSO_VEC_NSEGS);	/* no room, not refused */
	seg_area_reset(&area);
	n = seg_cut(&area, vec_encap6_super, sizeof(vec_encap6_super), gi,
		    GSO_VEC_SIZE, eth, 2, 8, frames, lens, &total);
	ck_assert_uint_eq(n, 2);
	check_frame(0, vec_encap6_segs[2], vec_encap6_lens[2]);
	check_frame(1, vec_encap6_segs[3], vec_encap6_lens[3]);
}
END_TEST

START_TEST(cut_max)
{
	/* At most max frames (what the batch has room for), from `first`. */
	unsigned total = 0;
	unsigned n = seg_cut(&area, vec_encap4_super, sizeof(vec_encap4_super),
			     facts(vec_encap4_super, sizeof(vec_encap4_super)),
			     GSO_VEC_SIZE, eth, 1, 1, frames, lens, &total);

	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(total, GSO_VEC_NSEGS);
	check_frame(0, vec_encap4_segs[1], vec_encap4_lens[1]);
	ck_assert_ptr_null(frames[1]);
}
END_TEST

START_TEST(cut_refused)
{
	/* Not TCP (a truncated header), or no segment size: *total 0. */
	unsigned total = 7;

	ck_assert_uint_eq(seg_cut(&area, vec_encap6_super, 100,
				  facts(vec_encap6_super, 100), GSO_VEC_SIZE,
				  eth, 0, 8, frames, lens, &total), 0);
	ck_assert_uint_eq(total, 0);
	total = 7;
	ck_assert_uint_eq(seg_cut(&area, vec_encap6_super,
				  sizeof(vec_encap6_super),
				  facts(vec_encap6_super,
					sizeof(vec_encap6_super)), 0, eth, 0, 8,
				  frames, lens, &total), 0);
	ck_assert_uint_eq(total, 0);
	ck_assert_uint_eq(area.used, 0);
}
END_TEST

START_TEST(size_default)
{
	/* 40 + 8 + 32 (outer, SRH) + 40 + 32 (inner IPv6, TCP with
	 * timestamps) = 152 bytes of headers: 1128 fit 1280. */
	ck_assert_uint_eq(seg_size_default(facts(vec_encap6_super,
						 sizeof(vec_encap6_super))),
			  1128);
	ck_assert_uint_eq(seg_size_default(facts(vec_encap6_super, 100)), 0);
}
END_TEST

START_TEST(headend_size)
{
	/* hosts at 1500 (an inner IPv6 TCP header with timestamps: 72
	 * bytes, 1428 of payload), an outer of 64 bytes (IPv6 + an SRH of
	 * one segment): a core of 9000 keeps the sender's size, one of
	 * 1500 makes it smaller. */
	ck_assert_uint_eq(headend_seg_size(1500, 9000, 64, 72), 1428);
	ck_assert_uint_eq(headend_seg_size(1500, 1500, 64, 72), 1364);
	/* No in-interface MTU: the egress alone. */
	ck_assert_uint_eq(headend_seg_size(0, 9000, 64, 72), 9000 - 136);
	/* No egress MTU: IPv6's minimum. */
	ck_assert_uint_eq(headend_seg_size(1500, 0, 64, 72), 1280 - 136);
	/* A 64 KiB in-interface (lo); no larger than 16 bits say. */
	ck_assert_uint_eq(headend_seg_size(65536, 65536, 64, 72), 65536 - 136);
	ck_assert_uint_eq(headend_seg_size(0, 200000, 64, 72), 0xffff);
	/* Not one byte of payload fits: 0 (Packet Too Big). */
	ck_assert_uint_eq(headend_seg_size(1500, 136, 64, 72), 0);
	ck_assert_uint_eq(headend_seg_size(1500, 137, 64, 72), 1);
}
END_TEST

START_TEST(decide_segment)
{
	static struct test_slot s;
	struct config cfg = { 0 };
	struct runstate rs = { .payload = PAYLOAD_ANY };
	enum drop_reason why = DROP__COUNT;
	struct pkt *p = test_pkt(&s, vec_encap6_super, sizeof(vec_encap6_super),
				 ETH_P_IPV6);

	p->verdict = PKT_NEW_BYTES;
	p->outcome = PKT_OUT_OK;
	p->gso = true;
	/* Queued as the bare inner IPv6 packet: TCP at 40, now at 120. */
	p->gso_l4_off = 40;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &why),
			 REINJECT_SEGMENT);
	rs.payload = PAYLOAD_NONE;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &why),
			 REINJECT_SEGMENT);
	/* Queued encapsulated already (a transit rewrite): not cut. */
	rs.payload = PAYLOAD_ANY;
	p->gso_l4_off = 120;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &why),
			 REINJECT_PAYLOAD);
	/* Not a super-packet, or not a success: as any result. */
	p->gso_l4_off = 40;
	p->gso = false;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &why),
			 REINJECT_PAYLOAD);
	p->gso = true;
	p->outcome = PKT_OUT_ICMP;
	ck_assert_int_ne(reinject_decide(&cfg, &rs, NULL, p, &why),
			 REINJECT_SEGMENT);
}
END_TEST


/* A network namespace of the test's own with lo up: what is sent on lo
 * there is all there is.  Returns lo's ifindex, 0 when not root. */
static unsigned private_lo(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd;

	if (unshare(CLONE_NEWNET) < 0)
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	ifr.ifr_flags = IFF_UP | IFF_LOOPBACK | IFF_RUNNING;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) {
		close(fd);
		return 0;
	}
	close(fd);
	return if_nametoindex("lo");
}

/* The next frame sent on the capture socket fd (PACKET_OUTGOING), or 0
 * when none is left. */
static ssize_t next_sent(int fd, uint8_t *buf, size_t cap)
{
	for (;;) {
		struct sockaddr_ll sll;
		socklen_t sl = sizeof(sll);
		ssize_t n = recvfrom(fd, buf, cap, MSG_DONTWAIT,
				     (struct sockaddr *)&sll, &sl);

		if (n < 0)
			return 0;
		if (sll.sll_pkttype == PACKET_OUTGOING)
			return n;
	}
}

START_TEST(segment_sent)
{
	static struct test_slot slots[3];
	static uint8_t want[80][1024];
	static uint8_t got[2048];
	uint8_t *wsegs[80];
	uint32_t wlens[80];
	struct worker_stats ws = { 0 };
	struct config cfg = { 0 };
	struct runstate rs = { .payload = PAYLOAD_ANY };
	char err[256];
	unsigned lo = private_lo(), nseg;
	struct nfq *q;
	struct reinject_io io;
	int cap, rcvbuf = 4 << 20;

	if (!lo) {
		fprintf(stderr, "segment_sent: skipped (%s)\n", strerror(errno));
		return;
	}
	q = nfq_socket_open(3, NFQ_DEFAULT_MAXLEN, err, sizeof(err));
	ck_assert_msg(q != NULL, "%s", err);
	cap = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	ck_assert_int_ge(cap, 0);
	setsockopt(cap, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	io = (struct reinject_io){ .dev_ifindex = lo, .pkt_fd = pkt_sock_open(),
				   .raw_fd = -1, .tx = pkt_tx_new(),
				   .seg = &area };
	ck_assert_int_ge(io.pkt_fd, 0);
	ck_assert_ptr_nonnull(io.tx);
	/* 677 bytes of payload at 10 a segment: 68 segments each, 136 in
	 * all, more than the 64 a batch holds: flushed on the way. */
	for (unsigned k = 0; k < 80; k++)
		wsegs[k] = want[k];
	nseg = gso_segment(vec_encap6_super, sizeof(vec_encap6_super), 10,
			   wsegs, sizeof(want[0]), wlens, 80);
	ck_assert_uint_eq(nseg, 68);
	for (unsigned i = 0; i < 3; i++) {
		struct pkt *p = test_pkt(&slots[i], vec_encap6_super,
					 sizeof(vec_encap6_super), ETH_P_IPV6);

		p->verdict = PKT_NEW_BYTES;
		p->outcome = PKT_OUT_OK;
		p->gso = true;
		p->gso_l4_off = 40;
		p->facts.gso_size = 10;
		p->id = i + 1;
		if (i == 2)	/* UDP inside (the inner Next Header at
				 * 40 + 40 + 6): no way carries it
				 * (reinject_decide_gso()): dropped */
			p->data[86] = IPPROTO_UDP;
		reinject_packet(&cfg, &rs, NULL, p, q, &io, &ws);
	}
	reinject_flush(&io, &ws);
	ck_assert_uint_eq(ws.injected, 2);
	ck_assert_uint_eq(ws.gso_segments, 2 * 68);
	ck_assert_uint_eq(ws.dropped, 1);
	ck_assert_uint_eq(ws.drops[DROP_GSO], 1);
	ck_assert_uint_eq(ws.gso_refused, 1);
	ck_assert_uint_eq(area.used, 0);	/* emptied by the flush */
	/* On the wire, in order: each segment behind the reinjection
	 * device's Ethernet header. */
	for (unsigned i = 0; i < 2 * 68; i++) {
		ssize_t n = next_sent(cap, got, sizeof(got));

		ck_assert_msg(n > 0, "frame %u of %u not sent", i, 2 * 68);
		ck_assert_uint_eq(got[12] << 8 | got[13], ETH_P_IPV6);
		ck_assert_bytes(got + ETH_HLEN, (size_t)n - ETH_HLEN,
				want[i % 68], wlens[i % 68]);
	}
	ck_assert_int_eq(next_sent(cap, got, sizeof(got)), 0);
	close(cap);
	close(io.pkt_fd);
	pkt_tx_free(io.tx);
	nfq_socket_close(q);
}
END_TEST

/* A cut super-packet that fills the batch's frames (68 segments: 4 left
 * queued after the one send it needs), then 61 single frames into the
 * reinjection device: the batch is sent when full, each frame leaves and
 * each packet is counted injected.  Before, the frames past the 64th
 * were refused by pkt_tx_add() and their packets dropped for
 * `reinject`. */
START_TEST(frames_after_segments)
{
	static struct test_slot slots[62];
	static const uint8_t one[48] = { 0x60, 0, 0, 0, 0, 8, 59, 64,
					 [8] = 0xfc, [24] = 0xfc, [39] = 1 };
	struct worker_stats ws = { 0 };
	struct config cfg = { 0 };
	struct runstate rs = { .payload = PAYLOAD_NONE };
	char err[256];
	unsigned lo = private_lo(), sent = 0;
	struct nfq *q;
	struct reinject_io io;
	uint8_t got[2048];
	int cap, rcvbuf = 4 << 20;

	if (!lo) {
		fprintf(stderr, "frames_after_segments: skipped (%s)\n",
			strerror(errno));
		return;
	}
	q = nfq_socket_open(4, NFQ_DEFAULT_MAXLEN, err, sizeof(err));
	ck_assert_msg(q != NULL, "%s", err);
	cap = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	ck_assert_int_ge(cap, 0);
	setsockopt(cap, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	io = (struct reinject_io){ .dev_ifindex = lo, .pkt_fd = pkt_sock_open(),
				   .raw_fd = -1, .tx = pkt_tx_new(),
				   .seg = &area };
	ck_assert_int_ge(io.pkt_fd, 0);
	for (unsigned i = 0; i < 62; i++) {
		struct pkt *p = i ? test_pkt(&slots[i], one, sizeof(one),
					     ETH_P_IPV6) :
				    test_pkt(&slots[0], vec_encap6_super,
					     sizeof(vec_encap6_super),
					     ETH_P_IPV6);

		p->verdict = PKT_NEW_BYTES;
		p->outcome = PKT_OUT_OK;
		p->id = i + 1;
		if (!i) {
			p->gso = true;
			p->gso_l4_off = 40;
			p->facts.gso_size = 10;
		}
		reinject_packet(&cfg, &rs, NULL, p, q, &io, &ws);
	}
	reinject_flush(&io, &ws);
	ck_assert_uint_eq(ws.gso_segments, 68);
	ck_assert_uint_eq(ws.dropped, 0);
	ck_assert_uint_eq(ws.injected, 62);
	while (next_sent(cap, got, sizeof(got)) > 0)
		sent++;
	ck_assert_uint_eq(sent, 68 + 61);
	close(cap);
	close(io.pkt_fd);
	pkt_tx_free(io.tx);
	nfq_socket_close(q);
}
END_TEST

static Suite *segment_suite(void)
{
	Suite *s = suite_create("segment");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cut_encap6);
	tcase_add_test(tc, cut_encap4);
	tcase_add_test(tc, cut_encap_red);
	tcase_add_test(tc, cut_in_parts);
	tcase_add_test(tc, cut_max);
	tcase_add_test(tc, cut_refused);
	tcase_add_test(tc, size_default);
	tcase_add_test(tc, headend_size);
	tcase_add_test(tc, decide_segment);
	tcase_add_test(tc, segment_sent);
	tcase_add_test(tc, frames_after_segments);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(segment_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
