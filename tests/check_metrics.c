/* check_metrics.c - the metrics document (src/daemon/metrics.c) of a
 * hand-built set of counters, exactly: the whole of it against
 * tests/metrics.golden, and its SID, policy, outcome and queue families
 * line by line as written here.  With SRV6D_METRICS_OUT set, the text is
 * also written to that file, for `promtool check metrics`
 * (tests/promtool.sh). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem */
#endif
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "metrics.h"

static const char conf[] =
	"queue 3-4\n"
	"encap-source fc00:1::1\n"
	"sid fc00:100::1/128 action End\n"
	"sid fc00:100::7/128 action End.DT6 table 200\n"
	"route fc00:9::/48 encap seg6 mode encap segs fc00:9::c1\n"
	"route 10.9.0.0/16 table 101 encap seg6 mode encap segs fc00:9::c3\n";

/* Two workers, two SIDs, two policies, the kernel's lines of both queues
 * and of a queue not srv6d's (left out); no route mirror. */
struct fixture {
	struct config *cfg;
	unsigned queues[2];
	struct worker_stats w[2], total;
	struct sid_stats sids[2], pols[2];
	struct ctl_nfq_queue kq[3];
	struct markprobe probe;
	struct ctl_status_src src;
};

static void fixture_init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->cfg = config_parse_buffer("t.conf", conf, strlen(conf), NULL, NULL);
	ck_assert_ptr_nonnull(f->cfg);
	f->queues[0] = 3;
	f->queues[1] = 4;
	f->w[0] = (struct worker_stats){
		.rx_packets = 10, .rx_bytes = 1000, .forwarded = 6,
		.accepted = 1, .injected = 1, .dropped = 2, .unmatched = 1,
		.icmp_sent = 1, .verdicts = 9,
	};
	f->w[0].drops[DROP_HOP_LIMIT] = 2;
	f->w[1] = (struct worker_stats){
		.rx_packets = 5, .rx_bytes = 500, .forwarded = 4,
		.bounced = 1, .kencap = 2,
	};
	f->w[1].kencap_fallback[KENCAP_FB_HMAC] = 3;
	f->sids[0] = (struct sid_stats){ .packets = 6, .bytes = 600,
					 .errors = 2 };
	f->sids[0].drops[DROP_HOP_LIMIT] = 2;
	f->sids[0].oam_copies = 3;
	f->sids[0].oam_uncopied = 1;
	f->pols[1] = (struct sid_stats){ .packets = 4, .bytes = 400 };
	f->kq[0] = (struct ctl_nfq_queue){ .queue = 3, .waiting = 1,
					   .queue_dropped = 7 };
	f->kq[1] = (struct ctl_nfq_queue){ .queue = 4, .user_dropped = 8 };
	f->kq[2] = (struct ctl_nfq_queue){ .queue = 9 };
	f->probe.state = MARKPROBE_LOST;
	f->probe.lost = true;
	f->probe.count[MARKPROBE_N_KEPT] = 40;
	f->probe.count[MARKPROBE_N_CARRIED] = 3;
	f->probe.count[MARKPROBE_N_LOST] = 2;
	f->probe.losses = 1;
	f->src = (struct ctl_status_src){
		.pid = 4242, .uptime = 61, .config_loaded = 1796000000,
		.reloads = 3, .reload_failures = 1, .cleared = 1796000100,
		.nworkers = 2, .queues = f->queues, .workers = f->w,
		.totals = &f->total, .cfg = f->cfg, .sids = f->sids,
		.pols = f->pols, .kq = f->kq, .nkq = 3, .probe = &f->probe,
	};
}

/* A file of the source tree ($top_srcdir, as `make check` sets it). */
static char *read_src(const char *rel)
{
	const char *top = getenv("top_srcdir");
	char path[4096], *buf;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top && *top ? top : ".", rel);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s (set top_srcdir)", path);
	buf = calloc(1, 1 << 20);
	ck_assert_ptr_nonnull(buf);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The lines of text that start with `name` ("name{" or "name "), and
 * its HELP and TYPE lines, in order. */
static char *family_lines(const char *text, const char *name)
{
	size_t nl = strlen(name), off = 0;
	char *out = calloc(1, strlen(text) + 1);
	const char *line = text;

	ck_assert_ptr_nonnull(out);
	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
		const char *s = line;

		if (!strncmp(s, "# HELP ", 7) || !strncmp(s, "# TYPE ", 7))
			s += 7;
		if (!strncmp(s, name, nl) && (s[nl] == '{' || s[nl] == ' ')) {
			memcpy(out + off, line, len);
			off += len;
		}
		line += len;
	}
	return out;
}

static void check_family(const char *text, const char *name,
			 const char *want)
{
	char *got = family_lines(text, name);

	ck_assert_str_eq(got, want);
	free(got);
}

/* got == want, where want's "@VERSION@" is SRV6D_VERSION; else fail
 * naming the first line that differs. */
static void text_compare(const char *got, const char *want)
{
	const char *g = got, *w = want;
	unsigned line = 1;

	for (;;) {
		const char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
		size_t gl = ge ? (size_t)(ge - g) : strlen(g);
		size_t wl = we ? (size_t)(we - w) : strlen(w);
		const char *v = memmem(w, wl, "@VERSION@", 9);
		char wline[1024];

		if (v)
			snprintf(wline, sizeof(wline), "%.*s%s%.*s",
				 (int)(v - w), w, SRV6D_VERSION,
				 (int)(wl - (size_t)(v - w) - 9), v + 9);
		else
			snprintf(wline, sizeof(wline), "%.*s", (int)wl, w);
		ck_assert_msg(strlen(wline) == gl && !memcmp(g, wline, gl),
			      "line %u: got '%.*s', want '%s'", line, (int)gl,
			      g, wline);
		if (!ge || !we) {
			ck_assert_msg(!ge && !we, "line %u: one text ends",
				      line);
			return;
		}
		g = ge + 1;
		w = we + 1;
		line++;
	}
}

START_TEST(golden)
{
	struct fixture f;
	const char *out = getenv("SRV6D_METRICS_OUT");
	char *text, *want;
	size_t len = 0;

	fixture_init(&f);
	text = metrics_text(&f.src, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(len, strlen(text));
	if (out && *out) {
		FILE *o = fopen(out, "w");

		ck_assert_ptr_nonnull(o);
		fputs(text, o);
		fclose(o);
	}
	want = read_src("tests/metrics.golden");
	text_compare(text, want);
	free(want);
	free(text);
	config_free(f.cfg);
}
END_TEST

START_TEST(families)
{
	struct fixture f;
	size_t len;
	char *text;

	fixture_init(&f);
	text = metrics_text(&f.src, &len);
	ck_assert_ptr_nonnull(text);
	check_family(text, "srv6d_sid_packets_total",
		"# HELP srv6d_sid_packets_total Packets processed successfully "
		"(RFC 8986 section 6).\n"
		"# TYPE srv6d_sid_packets_total counter\n"
		"srv6d_sid_packets_total{sid=\"fc00:100::1/128\",behavior=\"End\"} 6\n"
		"srv6d_sid_packets_total{sid=\"fc00:100::7/128\",behavior=\"End.DT6\"} 0\n");
	check_family(text, "srv6d_sid_drops_total",
		"# HELP srv6d_sid_drops_total Packets dropped (or answered with "
		"an ICMP error), by reason (the reasons counted only).\n"
		"# TYPE srv6d_sid_drops_total counter\n"
		"srv6d_sid_drops_total{sid=\"fc00:100::1/128\",behavior=\"End\","
		"reason=\"hop_limit\"} 2\n");
	check_family(text, "srv6d_sid_oam_copies_total",
		"# HELP srv6d_sid_oam_copies_total O-flag packets (RFC 9259 "
		"section 2.1.1) copied to oam-copy, or not (over oam-rate, the "
		"ring full), the SIDs that had any.\n"
		"# TYPE srv6d_sid_oam_copies_total counter\n"
		"srv6d_sid_oam_copies_total{sid=\"fc00:100::1/128\",behavior="
		"\"End\",outcome=\"copied\"} 3\n"
		"srv6d_sid_oam_copies_total{sid=\"fc00:100::1/128\",behavior="
		"\"End\",outcome=\"uncopied\"} 1\n");
	check_family(text, "srv6d_policy_bytes_total",
		"# HELP srv6d_policy_bytes_total Bytes of the packets processed "
		"successfully.\n"
		"# TYPE srv6d_policy_bytes_total counter\n"
		"srv6d_policy_bytes_total{policy=\"fc00:9::/48\",table=\"254\"} 0\n"
		"srv6d_policy_bytes_total{policy=\"10.9.0.0/16\",table=\"101\"} 400\n");
	check_family(text, "srv6d_worker_packets_total",
		"# HELP srv6d_worker_packets_total Packets received, by what "
		"became of them: each in exactly one outcome (their sum is "
		"rx_packets).\n"
		"# TYPE srv6d_worker_packets_total counter\n"
		"srv6d_worker_packets_total{worker=\"0\",queue=\"3\",outcome=\"forwarded\"} 6\n"
		"srv6d_worker_packets_total{worker=\"0\",queue=\"3\",outcome=\"accepted\"} 1\n"
		"srv6d_worker_packets_total{worker=\"0\",queue=\"3\",outcome=\"injected\"} 1\n"
		"srv6d_worker_packets_total{worker=\"0\",queue=\"3\",outcome=\"bounced\"} 0\n"
		"srv6d_worker_packets_total{worker=\"0\",queue=\"3\",outcome=\"dropped\"} 2\n"
		"srv6d_worker_packets_total{worker=\"1\",queue=\"4\",outcome=\"forwarded\"} 4\n"
		"srv6d_worker_packets_total{worker=\"1\",queue=\"4\",outcome=\"accepted\"} 0\n"
		"srv6d_worker_packets_total{worker=\"1\",queue=\"4\",outcome=\"injected\"} 0\n"
		"srv6d_worker_packets_total{worker=\"1\",queue=\"4\",outcome=\"bounced\"} 1\n"
		"srv6d_worker_packets_total{worker=\"1\",queue=\"4\",outcome=\"dropped\"} 0\n");
	check_family(text, "srv6d_worker_rx_packets_total",
		"# HELP srv6d_worker_rx_packets_total Packets received from the "
		"worker's queues.\n"
		"# TYPE srv6d_worker_rx_packets_total counter\n"
		"srv6d_worker_rx_packets_total{worker=\"0\",queue=\"3\"} 10\n"
		"srv6d_worker_rx_packets_total{worker=\"1\",queue=\"4\"} 5\n");
	check_family(text, "srv6d_nfqueue_queue_dropped_total",
		"# HELP srv6d_nfqueue_queue_dropped_total Packets the kernel "
		"dropped: the queue was full.\n"
		"# TYPE srv6d_nfqueue_queue_dropped_total counter\n"
		"srv6d_nfqueue_queue_dropped_total{queue=\"3\"} 7\n"
		"srv6d_nfqueue_queue_dropped_total{queue=\"4\"} 0\n");
	check_family(text, "srv6d_build_info",
		"# HELP srv6d_build_info srv6d's version, as a label (the value "
		"is 1).\n"
		"# TYPE srv6d_build_info gauge\n"
		"srv6d_build_info{version=\"" SRV6D_VERSION "\"} 1\n");
	/* no mirror: no mirror families */
	ck_assert_ptr_null(strstr(text, "srv6d_route_mirror"));
	free(text);
	config_free(f.cfg);
}
END_TEST

/* No config, no workers (a reply built before anything runs): the daemon's
 * families only, and no sample without its family. */
START_TEST(empty)
{
	struct ctl_status_src src = { .uptime = 1 };
	size_t len;
	char *text = metrics_text(&src, &len);

	ck_assert_ptr_nonnull(text);
	check_family(text, "srv6d_sids",
		"# HELP srv6d_sids SIDs in the configuration in force.\n"
		"# TYPE srv6d_sids gauge\n"
		"srv6d_sids 0\n");
	ck_assert_ptr_null(strstr(text, "srv6d_worker_rx_packets_total{"));
	ck_assert_ptr_null(strstr(text, "srv6d_nfqueue"));
	free(text);
}
END_TEST

static Suite *metrics_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("text");

	tcase_add_test(tc, golden);
	tcase_add_test(tc, families);
	tcase_add_test(tc, empty);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(metrics_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
