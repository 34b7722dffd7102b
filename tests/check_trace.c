/* check_trace.c - a trace's pieces without a kernel: the worker's ring
 * (src/io/pkt_trace.c: order, a full ring's overflow counted, the budget,
 * a reset) and the JSON record the control thread makes of a record
 * (src/daemon/trace.c: the SID, the outcome and reason, the ICMP answer,
 * the addresses from the bytes, the bytes in hex only when asked). */
#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pkt.h"
#include "reinject.h"
#include "trace.h"

START_TEST(ring_order_overflow_budget)
{
	struct pkt_trace_filter f = { .budget = PKT_TRACE_RING + 10 };
	struct pkt_trace_ring *r = pkt_trace_ring_new();
	struct pkt_trace_record *out = calloc(PKT_TRACE_RING, sizeof(*out));
	unsigned n;

	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(out);
	ck_assert(!r->on);
	pkt_trace_reset(r, &f);
	for (unsigned i = 0; i < PKT_TRACE_RING + 3; i++) {
		struct pkt_trace_record *s = pkt_trace_slot(r);

		if (i >= PKT_TRACE_RING) {
			ck_assert_ptr_null(s);	/* full */
			continue;
		}
		ck_assert_ptr_nonnull(s);
		s->queue = i;
		pkt_trace_commit(r);
	}
	ck_assert_uint_eq(r->overflow, 3);
	n = pkt_trace_drain(r, out, 5);
	ck_assert_uint_eq(n, 5);
	for (unsigned i = 0; i < 5; i++)
		ck_assert_uint_eq(out[i].queue, i);
	n = pkt_trace_drain(r, out, PKT_TRACE_RING);
	ck_assert_uint_eq(n, PKT_TRACE_RING - 5);
	ck_assert_uint_eq(out[0].queue, 5);
	/* room again, up to the budget: 10 more */
	for (unsigned i = 0; i < 12; i++) {
		struct pkt_trace_record *s = pkt_trace_slot(r);

		ck_assert(i < 10 ? s != NULL : s == NULL);
		if (s)
			pkt_trace_commit(r);
	}
	ck_assert_uint_eq(r->overflow, 3);	/* the budget is not overflow */
	pkt_trace_reset(r, &f);
	ck_assert_uint_eq(pkt_trace_drain(r, out, PKT_TRACE_RING), 0);
	ck_assert_uint_eq(r->overflow, 0);
	ck_assert_uint_eq(r->produced, 0);
	free(out);
	free(r);
}
END_TEST

static json_t *record_json(bool bytes)
{
	struct pkt_trace_record rec = {
		.mono_ns = 5000000000ull, .queue = 3, .orig_len = 104,
		.caplen = 40, .kind = PKT_TRACE_SID, .family = AF_INET6,
		.plen = 128, .behavior = BHV_END,
		.action = REINJECT_PAYLOAD, .outcome = WORKER_OUT_DROPPED,
		.reason = DROP_HOP_LIMIT, .verdict = PKT_NEW_BYTES,
		.pkt_outcome = PKT_OUT_ICMP,
	};

	inet_pton(AF_INET6, "fc00:100::1", rec.prefix);
	rec.data[0] = 0x60;
	inet_pton(AF_INET6, "fc00:1::1", rec.data + 8);
	inet_pton(AF_INET6, "fc00:100::1", rec.data + 24);
	return trace_record_json(&rec, 1796000000ll * 1000000000ll, bytes);
}

START_TEST(record_document)
{
	json_t *o = record_json(false);
	char *text;

	ck_assert_ptr_nonnull(o);
	text = json_dumps(o, JSON_COMPACT);
	ck_assert_str_eq(text,
		"{\"time_us\":1796000005000000,\"queue\":3,"
		"\"src\":\"fc00:1::1\",\"dst\":\"fc00:100::1\",\"len\":104,"
		"\"sid\":\"fc00:100::1/128\",\"behavior\":\"End\","
		"\"verdict\":\"new-bytes\",\"way\":\"payload\","
		"\"outcome\":\"dropped\",\"reason\":\"hop_limit\","
		"\"answer\":\"icmp\"}");
	free(text);
	json_decref(o);
	o = record_json(true);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_string_value(json_object_get(o, "data")),
		"6000000000000000"			/* 8 bytes of header */
		"fc000001000000000000000000000001"	/* source */
		"fc000100000000000000000000000001");	/* destination */
	json_decref(o);
}
END_TEST

static Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("ring");

	tcase_add_test(tc, ring_order_overflow_budget);
	tcase_add_test(tc, record_document);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
