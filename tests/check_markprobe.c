/* check_markprobe.c - the mark probe (src/io/markprobe.c): its frame's
 * exact bytes (scapy's: Ether/IPv6/UDP with the same fields), which
 * queued packets are probes, and the judge's states from the guard's
 * counters. */
#include <check.h>
#include <linux/if_ether.h>
#include <string.h>

#include "markprobe.h"

/* /usr/bin/python3: raw(Ether(dst='02:00:00:00:00:00',
 * src='06:00:00:00:00:00') / IPv6(src='100::5d6f:1', dst='100::5d6f:2',
 * hlim=1) / UDP(sport=0x5d6f, dport=0x5d6f) / Raw((7).to_bytes(8,
 * 'big'))) */
static const uint8_t probe7[MARKPROBE_FRAME_LEN] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x86, 0xdd, 0x60, 0x00,
	0x00, 0x00, 0x00, 0x10, 0x11, 0x01, 0x01, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x5d, 0x6f, 0x00, 0x01, 0x01, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x5d, 0x6f, 0x00, 0x02, 0x5d, 0x6f,
	0x5d, 0x6f, 0x00, 0x10, 0x88, 0x07, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x07,
};

START_TEST(frame_bytes)
{
	uint8_t buf[MARKPROBE_FRAME_LEN];

	markprobe_frame(buf, 7);
	ck_assert_mem_eq(buf, probe7, sizeof(probe7));
	/* another sequence: other bytes and checksum, the rest the same */
	markprobe_frame(buf, 8);
	ck_assert_mem_eq(buf, probe7, 60);
	ck_assert_uint_eq(buf[69], 8);
	ck_assert(memcmp(buf + 60, probe7 + 60, 2));	/* the checksum */
}
END_TEST

START_TEST(is_probe)
{
	uint8_t buf[MARKPROBE_FRAME_LEN];
	struct pkt p = { 0 };

	markprobe_frame(buf, 1);
	p.data = buf + ETH_HLEN;
	p.len = MARKPROBE_FRAME_LEN - ETH_HLEN;
	p.hw_proto = ETH_P_IPV6;
	ck_assert(markprobe_is(&p));
	p.hw_proto = ETH_P_IP;		/* queued from IPv4's hook */
	ck_assert(!markprobe_is(&p));
	p.hw_proto = ETH_P_IPV6;
	p.len = 39;			/* too short for an IPv6 header */
	ck_assert(!markprobe_is(&p));
	p.len = MARKPROBE_FRAME_LEN - ETH_HLEN;
	buf[ETH_HLEN + 39] = 3;		/* another destination */
	ck_assert(!markprobe_is(&p));
	buf[ETH_HLEN + 39] = 2;
	buf[ETH_HLEN] = 0x40;		/* not version 6 */
	ck_assert(!markprobe_is(&p));
}
END_TEST

/* read cur (kept, carried, zeroed, lost) into m at now */
static void judge4(struct markprobe *m, uint64_t k, uint64_t c, uint64_t z,
		   uint64_t l, uint64_t now)
{
	const uint64_t cur[MARKPROBE_N] = { k, c, z, l };

	markprobe_judge(m, true, 0, cur, now);
}

/* the same, none zeroed */
static void judge(struct markprobe *m, uint64_t k, uint64_t c, uint64_t l,
		  uint64_t now)
{
	judge4(m, k, c, 0, l, now);
}

START_TEST(judge_states)
{
	struct markprobe m = { 0 };
	const uint64_t zero[MARKPROBE_N] = { 0 };

	/* the first reading primes (a reinstalled guard's counters may
	 * hold anything): pending, falling back until an answer (fail
	 * safe at start), which is no loss */
	judge(&m, 5, 0, 0, 1000);
	ck_assert_int_eq(m.state, MARKPROBE_PENDING);
	ck_assert(m.lost && m.foreign);
	ck_assert_uint_eq(m.next_ms, 1000 + MARKPROBE_POLL_MS);
	judge(&m, 6, 0, 0, 1200);
	ck_assert_int_eq(m.state, MARKPROBE_KEPT);
	ck_assert(!m.lost && !m.foreign);
	ck_assert_uint_eq(m.losses, 0);
	ck_assert_uint_eq(m.recovered_ms, 0);
	ck_assert_uint_eq(m.count[MARKPROBE_N_KEPT], 1);
	/* carried: no fallback */
	judge(&m, 6, 1, 0, 1400);
	ck_assert_int_eq(m.state, MARKPROBE_CARRIED);
	ck_assert(!m.lost);
	/* lost: the fallback, one loss; the worst of a reading wins */
	judge(&m, 7, 2, 1, 1600);
	ck_assert_int_eq(m.state, MARKPROBE_LOST);
	ck_assert(m.lost && m.foreign);
	ck_assert_uint_eq(m.losses, 1);
	judge(&m, 7, 2, 2, 1800);
	ck_assert_uint_eq(m.losses, 1);	/* the same loss */
	/* no answer: the state and the fallback stay, then unanswered */
	judge(&m, 7, 2, 2, 2000);
	ck_assert_int_eq(m.state, MARKPROBE_LOST);
	judge(&m, 7, 2, 2, 1800 + MARKPROBE_GRACE_MS);
	ck_assert_int_eq(m.state, MARKPROBE_UNANSWERED);
	ck_assert(m.lost);
	/* kept again: the fallback off */
	judge(&m, 8, 2, 2, 5000);
	ck_assert_int_eq(m.state, MARKPROBE_KEPT);
	ck_assert(!m.lost);
	ck_assert_uint_eq(m.recovered_ms, 5000);
	/* a counter made again (a reinstall) counts from 0 */
	judge(&m, 0, 0, 1, 5200);
	ck_assert_int_eq(m.state, MARKPROBE_LOST);
	ck_assert_uint_eq(m.losses, 2);
	ck_assert_uint_eq(m.count[MARKPROBE_N_LOST], 3);
	/* a failed read changes nothing, but is no answer: unanswered
	 * (warned) once they last the grace, the fallback kept */
	markprobe_judge(&m, true, -1, zero, 5400);
	ck_assert_int_eq(m.state, MARKPROBE_LOST);
	ck_assert(m.lost);
	ck_assert_uint_eq(m.count[MARKPROBE_N_LOST], 3);
	markprobe_judge(&m, true, -1, zero, 5200 + MARKPROBE_GRACE_MS);
	ck_assert_int_eq(m.state, MARKPROBE_UNANSWERED);
	ck_assert(m.lost);
	ck_assert_uint_eq(m.count[MARKPROBE_N_LOST], 3);
	/* no guard: off, no fallback, primed again when it comes back */
	markprobe_judge(&m, false, 1, zero, 5600);
	ck_assert_int_eq(m.state, MARKPROBE_OFF);
	ck_assert(!m.lost);
	ck_assert(!m.primed);
	judge(&m, 50, 50, 50, 5800);
	ck_assert_int_eq(m.state, MARKPROBE_PENDING);
	ck_assert(m.lost);
	/* a start's first answer lost: logged and counted as a loss */
	judge(&m, 50, 50, 51, 6000);
	ck_assert_int_eq(m.state, MARKPROBE_LOST);
	ck_assert(m.lost && m.lost_logged);
	ck_assert_uint_eq(m.losses, 3);
	ck_assert_str_eq(markprobe_state_name(MARKPROBE_PENDING), "pending");
	ck_assert_str_eq(markprobe_state_name(MARKPROBE_CARRIED), "carried");
}
END_TEST

/* Lost to mark 0 (zeroed): the fallback without foreign (kernel-end not
 * held, one list's originals by the mark); becoming lost to another
 * mark within the disturbance sets foreign and is no new loss, nor is
 * going back; lost outranks zeroed in one reading; kept ends both. */
START_TEST(judge_zeroed)
{
	struct markprobe m = { 0 };

	judge4(&m, 1, 0, 0, 0, 1000);		/* primes: pending */
	ck_assert(m.lost && m.foreign);
	judge4(&m, 1, 0, 1, 0, 1200);
	ck_assert_int_eq(m.state, MARKPROBE_ZEROED);
	ck_assert(m.lost && !m.foreign && m.lost_logged);
	ck_assert_uint_eq(m.losses, 1);
	ck_assert_uint_eq(m.count[MARKPROBE_N_ZEROED], 1);
	judge4(&m, 1, 0, 2, 1, 1400);		/* both: lost wins */
	ck_assert_int_eq(m.state, MARKPROBE_LOST);
	ck_assert(m.lost && m.foreign);
	ck_assert_uint_eq(m.losses, 1);
	judge4(&m, 1, 0, 3, 1, 1600);
	ck_assert_int_eq(m.state, MARKPROBE_ZEROED);
	ck_assert(m.lost && !m.foreign);
	ck_assert_uint_eq(m.losses, 1);
	ck_assert_uint_eq(m.count[MARKPROBE_N_ZEROED], 3);
	ck_assert_uint_eq(m.count[MARKPROBE_N_LOST], 1);
	judge4(&m, 1, 1, 3, 1, 1800);		/* carried: no fallback */
	ck_assert_int_eq(m.state, MARKPROBE_CARRIED);
	ck_assert(!m.lost && !m.foreign);
	ck_assert_uint_eq(m.recovered_ms, 1800);
	judge4(&m, 1, 1, 4, 1, 2000);		/* zeroed again: a new loss */
	ck_assert(m.lost && !m.foreign);
	ck_assert_uint_eq(m.losses, 2);
	judge4(&m, 2, 1, 4, 1, 2200);
	ck_assert_int_eq(m.state, MARKPROBE_KEPT);
	ck_assert(!m.lost && !m.foreign);
	ck_assert_str_eq(markprobe_state_name(MARKPROBE_ZEROED), "zeroed");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("markprobe");
	TCase *tc = tcase_create("probe");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, frame_bytes);
	tcase_add_test(tc, is_probe);
	tcase_add_test(tc, judge_states);
	tcase_add_test(tc, judge_zeroed);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
