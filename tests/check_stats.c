/* check_stats.c - the status adds up (issue 21 item 3): for a set of
 * counters built the way the workers build them (reinject_count() of a
 * packet of every outcome and every way back, and the failures), the
 * outcomes srv6ctl status shows as columns add up to rx_packets, in the
 * worker_stats, in the STATUS document's workers and totals, and in the
 * STATS document's; the STATS document shows the header queues' kernel
 * lines; reinject_outcome(), what a trace shows, is what reinject_count()
 * counted. */
#include <check.h>
#include <string.h>

#include "ctl_json.h"
#include "pkt.h"
#include "reinject.h"
#include "stats.h"

/* Count one packet of outcome o that went back by action a (failed: its
 * send failed for `reason`), as reinject_flush() does; rx_packets too, as
 * nfq.c does on receipt. */
static void count_one(struct worker_stats *ws, enum pkt_outcome o,
		      enum reinject_action a, bool failed,
		      enum drop_reason reason)
{
	struct sid_stats st = { .packets = 1 };
	struct pkt p = { 0 };

	p.outcome = o;
	p.reason = DROP_HOP_LIMIT;
	p.st = o == PKT_OUT_OK ? &st : NULL;
	p.way = (struct pkt_way){ .action = (uint8_t)a, .failed = failed,
				  .reason = (uint8_t)reason };
	struct worker_stats before;
	enum drop_reason r1 = DROP__COUNT, r2 = DROP__COUNT;
	enum worker_outcome want;

	ws->rx_packets++;
	if (o == PKT_OUT_DROP || o == PKT_OUT_ICMP || o == PKT_OUT_HANDOFF)
		ws->drops[p.reason]++;	/* proc_count_drop() */
	before = *ws;
	want = reinject_outcome(&p, &r1);
	reinject_count(&p, ws);
	/* what a trace shows is what was counted, before and after */
	ck_assert_int_eq(reinject_outcome(&p, &r2), want);
	for (unsigned i = 0; i < WORKER_OUT__COUNT; i++)
		ck_assert_uint_eq(worker_outcome_count(ws, i) -
				  worker_outcome_count(&before, i), i == want);
	if (want == WORKER_OUT_DROPPED) {
		ck_assert_int_eq(r1, r2);
		ck_assert_uint_lt(r1, DROP__COUNT);
		ck_assert_uint_eq(ws->drops[r1] - before.drops[r1],
				  o == PKT_OUT_DROP || o == PKT_OUT_ICMP ||
				  o == PKT_OUT_HANDOFF ? 0 : 1);
	}
}

/* Every outcome by every way, each failing too. */
static void counters_build(struct worker_stats *ws, unsigned times)
{
	static const enum pkt_outcome outs[] = {
		PKT_OUT_NONE, PKT_OUT_OK, PKT_OUT_DROP, PKT_OUT_ICMP,
		PKT_OUT_HANDOFF,
	};

	memset(ws, 0, sizeof(*ws));
	for (unsigned t = 0; t < times; t++)
		for (size_t o = 0; o < sizeof(outs) / sizeof(outs[0]); o++)
			for (unsigned a = 0; a <= REINJECT_BOUNCE; a++) {
				count_one(ws, outs[o], a, false, 0);
				count_one(ws, outs[o], a, true,
					  DROP_REINJECT);
			}
}

static uint64_t jget(const json_t *o, const char *k)
{
	return (uint64_t)json_integer_value(json_object_get(o, k));
}

/* The outcomes of o (a worker's or the totals' object) by name. */
static uint64_t json_outcomes(const json_t *o)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < WORKER_OUT__COUNT; i++) {
		ck_assert_ptr_nonnull(json_object_get(o, worker_outcome_name(i)));
		n += jget(o, worker_outcome_name(i));
	}
	return n;
}

START_TEST(outcome_names)
{
	ck_assert_str_eq(worker_outcome_name(WORKER_OUT_FORWARDED), "forwarded");
	ck_assert_str_eq(worker_outcome_name(WORKER_OUT_ACCEPTED), "accepted");
	ck_assert_str_eq(worker_outcome_name(WORKER_OUT_INJECTED), "injected");
	ck_assert_str_eq(worker_outcome_name(WORKER_OUT_BOUNCED), "bounced");
	ck_assert_str_eq(worker_outcome_name(WORKER_OUT_DROPPED), "dropped");
	ck_assert_str_eq(worker_outcome_name(WORKER_OUT__COUNT), "unknown");
}
END_TEST

START_TEST(outcomes_add_up)
{
	struct worker_stats ws;
	uint64_t drops = 0;

	counters_build(&ws, 3);
	ck_assert_uint_gt(ws.rx_packets, 0);
	ck_assert_uint_eq(worker_stats_outcomes(&ws), ws.rx_packets);
	/* every outcome occurs */
	for (unsigned i = 0; i < WORKER_OUT__COUNT; i++)
		ck_assert_uint_gt(worker_outcome_count(&ws, i), 0);
	for (unsigned r = 0; r < DROP__COUNT; r++)
		drops += ws.drops[r];
	ck_assert_uint_eq(drops, ws.dropped);
}
END_TEST

/* Two workers and their totals, in the STATUS and STATS documents. */
START_TEST(documents_add_up)
{
	static const unsigned queues[2] = { 3, 4 };
	const struct ctl_nfq_queue kq[4] = {
		{ .queue = 3, .portid = 11, .queue_dropped = 5 },
		{ .queue = 4, .portid = 11, .user_dropped = 6 },
		{ .queue = 7, .portid = 11, .queue_dropped = 7 },
		{ .queue = 8, .portid = 11, .user_dropped = 8 },
	};
	struct config cfg = { .has_hqueue = true, .hqueue_first = 7,
			      .hqueue_last = 8 };
	struct worker_stats w[2], total;
	static const long hqueues[2] = { 7, 8 };
	struct ctl_status_src src = {
		.nworkers = 2, .queues = queues, .workers = w,
		.totals = &total, .cfg = &cfg, .kq = kq, .nkq = 4,
		.hqueues = hqueues,
	};
	json_t *status, *stats, *a, *o;
	size_t i;

	counters_build(&w[0], 1);
	counters_build(&w[1], 2);
	total = w[0];
	for (size_t k = 0; k < sizeof(total) / sizeof(uint64_t); k++)
		((uint64_t *)&total)[k] += ((uint64_t *)&w[1])[k];
	status = ctl_status_json(&src);
	stats = ctl_stats_json(&src);
	ck_assert_ptr_nonnull(status);
	ck_assert_ptr_nonnull(stats);
	o = json_object_get(status, "totals");
	ck_assert_uint_eq(json_outcomes(o), jget(o, "rx_packets"));
	ck_assert_uint_eq(jget(o, "rx_packets"), total.rx_packets);
	a = json_object_get(status, "workers");
	ck_assert_uint_eq(json_array_size(a), 2);
	json_array_foreach(a, i, o)
		ck_assert_uint_eq(json_outcomes(o), jget(o, "rx_packets"));
	ck_assert_uint_eq(jget(status, "counters_cleared"), 0);
	o = json_object_get(stats, "totals");
	ck_assert_uint_eq(json_outcomes(o), jget(o, "rx_packets"));
	/* each worker's queue and header queue, as the kernel counts them */
	a = json_object_get(stats, "workers");
	o = json_array_get(a, 0);
	ck_assert_uint_eq(jget(json_object_get(o, "kernel"), "queue_dropped"), 5);
	ck_assert_uint_eq(jget(o, "header_queue"), 7);
	ck_assert_uint_eq(jget(json_object_get(o, "kernel_header"),
			       "queue_dropped"), 7);
	o = json_array_get(a, 1);
	ck_assert_uint_eq(jget(json_object_get(o, "kernel"), "user_dropped"), 6);
	ck_assert_uint_eq(jget(o, "header_queue"), 8);
	ck_assert_uint_eq(jget(json_object_get(o, "kernel_header"),
			       "user_dropped"), 8);
	json_decref(status);
	json_decref(stats);
}
END_TEST

/* Without header queues, no header_queue key. */
START_TEST(stats_no_header_queue)
{
	static const unsigned queues[1] = { 0 };
	struct config cfg = { 0 };
	struct worker_stats w = { 0 };
	struct ctl_status_src src = {
		.nworkers = 1, .queues = queues, .workers = &w, .totals = &w,
		.cfg = &cfg,
	};
	json_t *stats = ctl_stats_json(&src), *o;

	ck_assert_ptr_nonnull(stats);
	o = json_array_get(json_object_get(stats, "workers"), 0);
	ck_assert_ptr_null(json_object_get(o, "header_queue"));
	ck_assert(json_is_null(json_object_get(o, "kernel")));
	json_decref(stats);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("outcomes");

	tcase_add_test(tc, outcome_names);
	tcase_add_test(tc, outcomes_add_up);
	tcase_add_test(tc, documents_add_up);
	tcase_add_test(tc, stats_no_header_queue);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
