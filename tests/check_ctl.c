/* check_ctl.c - control protocol framing, the STATUS document, the control
 * server over a real socket, and the rtnetlink messages of rtrules. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <net/if.h>

#include "config.h"
#include "runstate.h"
#include "ctl.h"
#include "egress.h"
#include "log.h"
#include "reinject.h"
#include "rtrules.h"
#include "stats.h"
#include "testutil.h"

/* ---- framing ---------------------------------------------------------- */

START_TEST(hdr_layout)
{
	struct ctl_hdr h;
	uint8_t want[12];
	size_t n;

	ck_assert_uint_eq(sizeof(h), 12);
	ctl_hdr_init(&h, CTL_REQ_STATUS, 0x01020304);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	n = hex2bin("54433653 0100 0100 04030201", want, sizeof(want));
#else
	n = hex2bin("53364354 0001 0001 01020304", want, sizeof(want));
#endif
	ck_assert_bytes((const uint8_t *)&h, sizeof(h), want, n);
}
END_TEST

START_TEST(hdr_check)
{
	struct ctl_hdr h;
	const char *why;

	ctl_hdr_init(&h, CTL_REQ_STATUS, CTL_MAX_REQUEST);
	ck_assert_int_eq(ctl_hdr_check(&h, CTL_MAX_REQUEST, &why), CTL_OK);
	ck_assert_ptr_null(why);

	h.length = CTL_MAX_REQUEST + 1;
	ck_assert_int_eq(ctl_hdr_check(&h, CTL_MAX_REQUEST, &why),
			 CTL_ERR_PROTOCOL);
	ck_assert_str_eq(why, "message too long");

	ctl_hdr_init(&h, CTL_REQ_STATUS, 0);
	h.magic = 0x54436353;
	ck_assert_int_eq(ctl_hdr_check(&h, CTL_MAX_REQUEST, &why),
			 CTL_ERR_PROTOCOL);
	ck_assert_str_eq(why, "bad magic");

	ctl_hdr_init(&h, CTL_REQ_STATUS, 0);
	h.version = 2;
	ck_assert_int_eq(ctl_hdr_check(&h, CTL_MAX_REQUEST, &why),
			 CTL_ERR_PROTOCOL);
	ck_assert_str_eq(why, "unsupported protocol version");
}
END_TEST

START_TEST(types)
{
	bool w = true;

	ck_assert(ctl_type_known(CTL_REQ_STATUS, &w));
	ck_assert(!w);
	ck_assert(ctl_type_known(CTL_REQ_VERSION, &w));
	ck_assert(!w);
	ck_assert(ctl_type_known(CTL_REQ_SIDS, &w));
	ck_assert(!w);
	ck_assert(ctl_type_known(CTL_REQ_POLICIES, &w));
	ck_assert(!w);
	ck_assert(ctl_type_known(CTL_REQ_STATS, &w));
	ck_assert(!w);
	ck_assert(ctl_type_known(CTL_REQ_RELOAD, &w));
	ck_assert(w);		/* changes the config */
	ck_assert(ctl_type_known(CTL_REQ_CLEAR, &w));
	ck_assert(w);		/* changes what others read */
	ck_assert(ctl_type_known(CTL_REQ_TRACE, &w));
	ck_assert(w);		/* shows packets' bytes */
	ck_assert(ctl_type_known(CTL_REQ_ROUTES, &w));
	ck_assert(!w);
	ck_assert(ctl_type_known(CTL_REQ_ROUTE_GET, &w));
	ck_assert(!w);
	ck_assert(!ctl_type_known(0, &w));
	ck_assert(!ctl_type_known(11, &w));
	ck_assert(!ctl_type_known(0xffff, &w));
	ck_assert_str_eq(ctl_status_name(CTL_OK), "ok");
	ck_assert_str_eq(ctl_status_name(CTL_ERR_UNKNOWN), "unknown request");
	ck_assert_str_eq(ctl_status_name(CTL_ERR_NOT_FOUND), "not found");
	ck_assert_str_eq(ctl_status_name(CTL_ERR_INVALID), "invalid request");
	ck_assert_str_eq(ctl_status_name(999), "unknown status");
}
END_TEST

/* ---- STATUS document -------------------------------------------------- */

static const char status_conf[] =
	"queue 3-4\n"
	"encap-source fc00:1::1\n"
	"sid fc00:100::1/128 action End flavors psp\n"
	"sid fc00:100::5/128 action End.X nh6 fc00:3::2 flavors usp,usd\n"
	"sid fc00:100:a::/48 action End flavors next-csid\n"
	"route fc00:9::/48 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2\n"
	"route 10.9.0.0/16 table 101 encap seg6 mode encap.red segs fc00:9::c3\n";

static char *dump_compact(const json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);

	ck_assert_ptr_nonnull(s);
	return s;
}

static void assert_json(const json_t *j, const char *want)
{
	char *got = dump_compact(j);

	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(status_document)
{
	struct config *cfg = config_parse_buffer("t.conf", status_conf,
						 sizeof(status_conf) - 1,
						 NULL, NULL);
	struct worker_stats w[2], total;
	struct sid_stats sids[3], pols[2];
	unsigned queues[2] = { 3, 4 };
	struct ctl_status_src src;
	static const uint64_t repairs[5] = { 1, 0, 2, 3, 4 };
	const char *key;
	json_t *doc, *v;
	size_t i;

	struct runstate *rs;

	ck_assert_ptr_nonnull(cfg);
	cfg->reinject = REINJECT_MODE_NO_PAYLOAD;
	rs = runstate_new(cfg);
	ck_assert_ptr_nonnull(rs);
	reinject_resolve(rs, cfg);
	static const char *const keys[] = {
		"version", "pid", "uptime", "config", "config_loaded",
		"reloads", "reload_failures", "counters_cleared", "reinject",
		"kernel_encap",
		"kernel_end", "header_queue",
		"workers", "totals",
		"sids",
		"policies", "mirror", "kernel_routes", "steering",
		"repairs", "rules_before", "mark_probe",
	};
	struct steer_status steering = {
		.enabled = true, .installed = true,
		.backend = STEER_BACKEND_XT_NFQUEUE, .rules = 12, .batches = 5,
		.repairs = 2, .changed = 1796000100, .sets = 2,
		.set_elements = 748746, .set_batches = 3, .set_last_us = 1500,
		.set_last_changes = 1,
	};

	ck_assert_ptr_nonnull(cfg);
	memset(w, 0, sizeof(w));
	memset(&total, 0, sizeof(total));
	memset(sids, 0, sizeof(sids));
	memset(pols, 0, sizeof(pols));
	w[0].rx_packets = 11;
	w[0].bad_messages = 2;
	w[0].drops[DROP_HOP_LIMIT] = 4;
	w[1].rx_packets = 22;
	w[0].kend = 6;
	total.rx_packets = 33;
	total.drops[DROP_FRAGMENT] = 5;
	sids[0].packets = 7;
	sids[0].bytes = 700;
	sids[0].errors = 3;
	sids[0].drops[DROP_HOP_LIMIT] = 2;
	sids[0].drops[DROP_BAD_SRH] = 1;
	sids[0].oam_copies = 4;
	sids[0].oam_uncopied = 1;
	pols[1].packets = 9;
	pols[1].bytes = 900;

	static const long hqueues[2] = { 4, 5 };
	static const struct markprobe probe = {
		.state = MARKPROBE_CARRIED, .sent = 50,
		.count = { 40, 9, 3, 0 }, .send_errors = 1,
	};
	static const struct markguard_before before[1] = {
		{ AF_INET6, 100, "fwmark 0x1/0x1 lookup 50" },
	};

	src = (struct ctl_status_src){
		.pid = 4242, .uptime = 61, .config_path = "/etc/srv6d/srv6d.conf",
		.config_loaded = 1796000000, .reloads = 3, .reload_failures = 1,
		.nworkers = 2, .queues = queues, .workers = w, .totals = &total,
		.cfg = cfg, .rs = rs, .sids = sids, .pols = pols,
		.steering = &steering,
		.repairs = repairs, .repair_failures = 1, .last_repair_us = 1300,
		.hqueues = hqueues, .hqueue_copy = 512,
		.kencap_mark_held = true, .kencap_caught = 37,
		.kencap_holds = 2, .kencap_watch = "nft counter kencap_caught",
		.kencap_unmarked = 41, .kend_restored = 17,
		.before = before, .nbefore = 1, .probe = &probe,
	};
	/* The config in force names other header queues (a reload under
	 * `steering no`): status shows the ones bound, 4-5 copy 512. */
	cfg->has_hqueue = true;
	cfg->hqueue_first = 6;
	cfg->hqueue_last = 7;
	cfg->hqueue_copy = 2112;
	doc = ctl_status_json(&src);
	ck_assert_ptr_nonnull(doc);

	/* Top-level keys, in order. */
	i = 0;
	json_object_foreach(doc, key, v) {
		ck_assert_uint_lt(i, sizeof(keys) / sizeof(keys[0]));
		ck_assert_str_eq(key, keys[i]);
		i++;
	}
	ck_assert_uint_eq(i, sizeof(keys) / sizeof(keys[0]));
	ck_assert_str_eq(json_string_value(json_object_get(doc, "version")),
			 SRV6D_VERSION);
	{	/* srv6d's objects made again, by kind */
		char *r = json_dumps(json_object_get(doc, "repairs"),
				     JSON_COMPACT);

		ck_assert_str_eq(r, "{\"rule\":1,\"route\":0,"
				 "\"kernel_encap_route\":2,"
				 "\"kernel_end_route\":3,\"device\":4,"
				 "\"failures\":1,\"last_us\":1300}");
		free(r);
	}
	ck_assert_int_eq(json_integer_value(json_object_get(doc, "pid")), 4242);
	ck_assert_int_eq(json_integer_value(json_object_get(doc, "uptime")), 61);
	ck_assert_int_eq(json_integer_value(json_object_get(doc,
			 "config_loaded")), 1796000000);
	ck_assert_int_eq(json_integer_value(json_object_get(doc, "reloads")), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(doc,
			 "reload_failures")), 1);
	/* How results go back: the config's decision (reinject.h). */
	{
		char *txt = dump_compact(json_object_get(doc, "reinject"));

		ck_assert_str_eq(txt, "{\"mode\":\"no-payload\","
				 "\"payload\":\"none\",\"why\":"
				 "\"reinject no-payload\"}");
		free(txt);
	}

	/* kernel-encap's mark guard (markguard.h) */
	{
		json_t *k = json_object_get(doc, "kernel_encap");

		ck_assert(json_is_true(json_object_get(k, "mark_held")));
		ck_assert_int_eq(json_integer_value(json_object_get(k,
				 "caught")), 37);
		ck_assert_int_eq(json_integer_value(json_object_get(k,
				 "holds")), 2);
		ck_assert_str_eq(json_string_value(json_object_get(k,
				 "watch")), "nft counter kencap_caught");
		ck_assert_int_eq(json_integer_value(json_object_get(k,
				 "caught_unmarked")), 41);
	}
	assert_json(json_object_get(doc, "rules_before"),
		"[{\"family\":6,\"priority\":100,"
		"\"rule\":\"fwmark 0x1/0x1 lookup 50\"}]");
	assert_json(json_object_get(doc, "mark_probe"),
		"{\"state\":\"carried\",\"fallback\":false,"
		"\"foreign\":false,\"sent\":50,"
		"\"kept\":40,\"carried\":9,\"zeroed\":3,\"lost\":0,"
		"\"losses\":0,\"send_errors\":1}");
	assert_json(json_object_get(doc, "kernel_end"),
		"{\"mode\":\"auto\",\"active\":false,\"why\":\"\","
		"\"sids\":0,\"held\":false,\"caught\":0,\"holds\":0,"
		"\"restored\":17}");
	/* srv6d's own rules (steer.h) */
	assert_json(json_object_get(doc, "steering"),
		"{\"mode\":\"auto\",\"state\":\"installed\","
		"\"backend\":\"xt-NFQUEUE\",\"rules\":12,\"batches\":5,"
		"\"repairs\":2,\"changed\":1796000100,\"sets\":2,"
		"\"set_elements\":748746,\"set_batches\":3,"
		"\"set_last_us\":1500,\"set_last_changes\":1,\"error\":\"\"}");
	/* header-queue 4-5 copy 512, the bounce mark mark-mask's highest bit. */
	assert_json(json_object_get(doc, "header_queue"),
		"{\"first\":4,\"last\":5,\"copy\":512,"
		"\"bounce_mark\":2147483648}");
	/* A worker: queue, every counter by its C name, every drop reason. */
	assert_json(json_array_get(json_object_get(doc, "workers"), 0),
		"{\"queue\":3,\"rx_packets\":11,\"rx_bytes\":0,\"rx_batches\":0,"
		"\"verdicts\":0,\"verdict_batches\":0,\"accepted\":0,"
		"\"forwarded\":0,\"dropped\":0,\"unmatched\":0,"
		"\"mark_probes\":0,\"injected\":0,\"icmp_sent\":0,\"icmp_ratelimited\":0,"
		"\"icmp_send_errors\":0,\"enobufs\":0,"
		"\"recv_errors\":0,\"send_errors\":0,\"tx_full\":0,\"nl_errors\":0,"
		"\"bad_messages\":2,\"rx_too_long\":0,\"gso_packets\":0,"
		"\"gso_refused\":0,\"gso_vnet\":0,\"csum_completed\":0,"
		"\"gso_segments\":0,\"kencap\":0,\"kend\":6,"
		"\"hq_truncated\":0,\"bounced\":0,"
		"\"oam_sent\":0,\"oam_ratelimited\":0,\"oam_send_errors\":0,"
		"\"kencap_fallbacks\":{\"off\":0,\"unlisted\":0,\"hmac\":0,"
		"\"source\":0,\"first_segment\":0,\"shape\":0,\"held\":0},"
		"\"drops\":{\"truncated\":0,\"bad_ip\":0,"
		"\"bad_srh\":0,\"bad_tlv\":0,"
		"\"hop_limit\":4,\"upper_layer\":0,\"ext_headers\":0,"
		"\"no_headroom\":0,\"too_big\":0,\"family\":0,\"reinject\":0,"
		"\"fragment\":0,\"hmac_missing\":0,"
		"\"hmac_unknown\":0,\"hmac_wrong\":0,\"sid_chain\":0,"
		"\"no_route\":0,\"nexthop_unreachable\":0,\"no_table\":0,"
		"\"no_source\":0,\"bad_message\":0,\"gso\":0,"
		"\"bounce_loop\":0,\"gtpu_malformed\":0,\"gtpu_message\":0,"
		"\"proxy_no_cache\":0,\"proxy_return\":0,"
		"\"proxy_cache_size\":0,\"oam_ratelimited\":0,\"oam_send\":0}}");
	ck_assert_int_eq(json_integer_value(json_object_get(
		json_array_get(json_object_get(doc, "workers"), 1), "queue")), 4);
	v = json_object_get(doc, "totals");
	ck_assert_ptr_null(json_object_get(v, "queue"));
	ck_assert_int_eq(json_integer_value(json_object_get(v, "rx_packets")), 33);
	ck_assert_int_eq(json_integer_value(json_object_get(
		json_object_get(v, "drops"), "fragment")), 5);
	ck_assert_uint_eq(json_object_size(json_object_get(v, "drops")),
			  DROP__COUNT);

	/* SIDs: only non-zero drop reasons. */
	v = json_object_get(doc, "sids");
	ck_assert_uint_eq(json_array_size(v), 3);
	assert_json(json_array_get(v, 0),
		"{\"sid\":\"fc00:100::1/128\",\"behavior\":\"End\","
		"\"flavors\":[\"psp\"],\"origin\":\"file\",\"line\":3,\"packets\":7,\"bytes\":700,"
		"\"errors\":3,\"drops\":{\"bad_srh\":1,\"hop_limit\":2},"
		"\"oam_copies\":4,\"oam_uncopied\":1}");
	/* the mark as the packet carries it under the default mark-mask
	 * 0xffff0000: 0x5d6f0000 + (2 << 16) = 0x5d710000; its table stays
	 * mark-base + 2 = 0x5d6f0002 */
	assert_json(json_array_get(v, 1),
		"{\"sid\":\"fc00:100::5/128\",\"behavior\":\"End.X\","
		"\"flavors\":[\"usp\",\"usd\"],\"nh6\":\"fc00:3::2\","
		"\"mark\":1567686656,\"route_table\":1567555586,\"origin\":\"file\",\"line\":4,"
		"\"packets\":0,\"bytes\":0,\"errors\":0,\"drops\":{}}");
	assert_json(json_array_get(v, 2),
		"{\"sid\":\"fc00:100:a::/48\",\"behavior\":\"End\","
		"\"flavors\":[\"next-csid\"],\"lblen\":32,\"nflen\":16,"
		"\"origin\":\"file\",\"line\":5,\"packets\":0,\"bytes\":0,\"errors\":0,"
		"\"drops\":{}}");

	v = json_object_get(doc, "policies");
	ck_assert_uint_eq(json_array_size(v), 2);
	assert_json(json_array_get(v, 0),
		"{\"prefix\":\"fc00:9::/48\",\"table\":254,\"mode\":\"encap\","
		"\"lists\":[{\"weight\":1,\"segs\":[\"fc00:9::c1\",\"fc00:9::c2\"]}],\"origin\":\"file\",\"line\":6,"
		"\"packets\":0,\"bytes\":0,\"errors\":0,\"drops\":{}}");
	assert_json(json_array_get(v, 1),
		"{\"prefix\":\"10.9.0.0/16\",\"table\":101,\"mode\":\"encap.red\","
		"\"lists\":[{\"weight\":1,\"segs\":[\"fc00:9::c3\"]}],\"origin\":\"file\",\"line\":7,\"packets\":9,"
		"\"bytes\":900,\"errors\":0,\"drops\":{}}");
	json_decref(doc);
	runstate_free(rs);
	config_free(cfg);
}
END_TEST

START_TEST(status_document_no_config)
{
	struct ctl_status_src src = { .pid = 1, .config_path = "x" };
	json_t *doc = ctl_status_json(&src);

	ck_assert_ptr_nonnull(doc);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "workers")), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "sids")), 0);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "policies")), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(
		json_object_get(doc, "totals"), "rx_packets")), 0);
	json_decref(doc);
}
END_TEST

/* Counters and config of status_conf for the SIDS/POLICIES/STATS tests. */
struct doc_fixture {
	struct config *cfg;
	struct worker_stats w[2], total;
	struct sid_stats sids[3], pols[2];
	unsigned queues[2];
	struct ctl_status_src src;
};

static void doc_fixture_init(struct doc_fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->cfg = config_parse_buffer("t.conf", status_conf,
				     sizeof(status_conf) - 1, NULL, NULL);
	ck_assert_ptr_nonnull(f->cfg);
	f->queues[0] = 3;
	f->queues[1] = 4;
	f->sids[1].packets = 5;
	f->sids[1].bytes = 500;
	f->sids[2].packets = 6;
	f->pols[0].packets = 8;
	f->w[0].rx_packets = 10;
	f->w[1].rx_packets = 20;
	f->w[1].enobufs = 1;
	f->w[1].drops[DROP_TRUNCATED] = 2;
	f->total.rx_packets = 30;
	f->total.enobufs = 1;
	f->total.drops[DROP_TRUNCATED] = 2;
	f->src = (struct ctl_status_src){
		.pid = 1, .config_path = "t.conf", .nworkers = 2,
		.queues = f->queues, .workers = f->w, .totals = &f->total,
		.cfg = f->cfg, .sids = f->sids, .pols = f->pols,
	};
}

/* The "sid" of the SIDS document's only entry, or the error. */
static const char *sids_one(struct doc_fixture *f, const char *want,
			    uint16_t want_status, char *buf, size_t len)
{
	uint16_t status = 0xffff;
	json_t *doc = ctl_sids_json(&f->src, want, &status);
	const json_t *a;

	ck_assert_ptr_nonnull(doc);
	ck_assert_uint_eq(status, want_status);
	a = json_object_get(doc, "sids");
	if (status == CTL_OK) {
		ck_assert_uint_eq(json_array_size(a), 1);
		snprintf(buf, len, "%s", json_string_value(json_object_get(
			json_array_get(a, 0), "sid")));
	} else {
		ck_assert_ptr_null(a);
		snprintf(buf, len, "%s", json_string_value(json_object_get(
			doc, "error")));
	}
	json_decref(doc);
	return buf;
}

START_TEST(sids_document)
{
	struct doc_fixture f;
	uint16_t status = 0xffff;
	char buf[128];
	json_t *doc;

	doc_fixture_init(&f);
	/* Everything: the same entries as STATUS's "sids". */
	doc = ctl_sids_json(&f.src, NULL, &status);
	ck_assert_uint_eq(status, CTL_OK);
	ck_assert_uint_eq(json_object_size(doc), 1);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "sids")), 3);
	json_decref(doc);
	doc = ctl_sids_json(&f.src, "", &status);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "sids")), 3);
	json_decref(doc);

	/* Exactly prefix/len. */
	ck_assert_str_eq(sids_one(&f, "fc00:100::5/128", CTL_OK, buf,
				  sizeof(buf)), "fc00:100::5/128");
	ck_assert_str_eq(sids_one(&f, "fc00:100:a::/48", CTL_OK, buf,
				  sizeof(buf)), "fc00:100:a::/48");
	/* An address: the longest SID prefix holding it. */
	ck_assert_str_eq(sids_one(&f, "fc00:100:a:c5::", CTL_OK, buf,
				  sizeof(buf)), "fc00:100:a::/48");
	ck_assert_str_eq(sids_one(&f, "fc00:100::1", CTL_OK, buf,
				  sizeof(buf)), "fc00:100::1/128");
	/* Not there, or not an address. */
	ck_assert_str_eq(sids_one(&f, "fc00:100::9", CTL_ERR_NOT_FOUND, buf,
				  sizeof(buf)), "no such SID");
	ck_assert_str_eq(sids_one(&f, "fc00:100:a::/64", CTL_ERR_NOT_FOUND,
				  buf, sizeof(buf)), "no such SID");
	ck_assert_str_eq(sids_one(&f, "fc00:100::1/129", CTL_ERR_INVALID, buf,
				  sizeof(buf)), "not a SID or an IPv6 address");
	ck_assert_str_eq(sids_one(&f, "10.0.0.1", CTL_ERR_INVALID, buf,
				  sizeof(buf)), "not a SID or an IPv6 address");
	ck_assert_str_eq(sids_one(&f, "fc00::/", CTL_ERR_INVALID, buf,
				  sizeof(buf)), "not a SID or an IPv6 address");
	config_free(f.cfg);
}
END_TEST

/* Every attribute a SID can show, and a binding SID's policy. */
START_TEST(sid_attributes)
{
	static const char conf[] =
		"queue 0\n"
		"mark-base 0x1000\n"
		"encap-source fc00:1::1\n"
		"sid fc00:100::6/128 action End.DX4 nh4 10.3.0.2 oif eth3\n"
		"sid fc00:100::8/128 action End.DT4 vrftable 101\n"
		"sid fc00:100::d/128 action End.B6.Encaps.Red srh segs fc00::4 "
		"weight 2 segs fc00::5,fc00::6\n"
		"route fc00:9::/48 encap seg6 mode encap segs fc00::a,fc00::b "
		"weight 3 segs fc00::c weight 1\n";
	struct config *cfg = config_parse_buffer("a.conf", conf,
						 sizeof(conf) - 1, NULL, NULL);
	struct runstate *rs = runstate_new(cfg);
	struct ctl_status_src src = { .cfg = cfg, .rs = rs };
	uint16_t status;
	json_t *doc;

	ck_assert_ptr_nonnull(cfg);
	doc = ctl_sids_json(&src, NULL, &status);
	ck_assert_uint_eq(status, CTL_OK);
	/* mark-base 0x1000's default mark-mask is 0xfffff000: offset 1 is
	 * 0x1000 + (1 << 12) = 0x2000 (8192) on the packet, table 4097;
	 * offset 2 is 0x3000 (12288) */
	assert_json(doc,
		"{\"sids\":[{\"sid\":\"fc00:100::6/128\",\"behavior\":\"End.DX4\","
		"\"flavors\":[],\"nh4\":\"10.3.0.2\",\"oif\":\"eth3\","
		"\"mark\":8192,\"route_table\":4097,\"origin\":\"file\",\"line\":4,\"packets\":0,"
		"\"bytes\":0,\"errors\":0,\"drops\":{}},"
		"{\"sid\":\"fc00:100::8/128\",\"behavior\":\"End.DT4\","
		"\"flavors\":[],\"vrftable\":101,\"mark\":12288,\"origin\":\"file\",\"line\":5,"
		"\"packets\":0,\"bytes\":0,\"errors\":0,\"drops\":{}},"
		"{\"sid\":\"fc00:100::d/128\",\"behavior\":\"End.B6.Encaps.Red\","
		"\"flavors\":[],\"policy\":{\"mode\":\"encap.red\",\"lists\":["
		"{\"weight\":2,\"segs\":[\"fc00::4\"]},"
		"{\"weight\":1,\"segs\":[\"fc00::5\",\"fc00::6\"]}]},"
		"\"origin\":\"file\",\"line\":6,\"packets\":0,\"bytes\":0,\"errors\":0,"
		"\"drops\":{}}]}");
	json_decref(doc);
	doc = ctl_policies_json(&src);
	assert_json(doc,
		"{\"policies\":[{\"prefix\":\"fc00:9::/48\",\"table\":254,\"mode\":\"encap\","
		"\"lists\":[{\"weight\":3,\"segs\":[\"fc00::a\",\"fc00::b\"]},"
		"{\"weight\":1,\"segs\":[\"fc00::c\"]}],\"origin\":\"file\",\"line\":7,"
		"\"packets\":0,\"bytes\":0,\"errors\":0,\"drops\":{}}]}");
	json_decref(doc);
	/* a kernel route's (kernel-routes yes): its table, line 0 */
	cfg->policies[0].ktable = 254;
	cfg->policies[0].line = 0;
	doc = ctl_policies_json(&src);
	assert_json(doc,
		"{\"policies\":[{\"prefix\":\"fc00:9::/48\",\"table\":254,\"mode\":\"encap\","
		"\"lists\":[{\"weight\":3,\"segs\":[\"fc00::a\",\"fc00::b\"]},"
		"{\"weight\":1,\"segs\":[\"fc00::c\"]}],\"origin\":\"kernel\",\"line\":0,"
		"\"kernel_table\":254,"
		"\"packets\":0,\"bytes\":0,\"errors\":0,\"drops\":{}}]}");
	json_decref(doc);
	runstate_free(rs);
	config_free(cfg);
}
END_TEST

START_TEST(policies_document)
{
	struct doc_fixture f;
	json_t *doc;

	doc_fixture_init(&f);
	doc = ctl_policies_json(&f.src);
	ck_assert_ptr_nonnull(doc);
	assert_json(doc,
		"{\"policies\":[{\"prefix\":\"fc00:9::/48\",\"table\":254,\"mode\":\"encap\","
		"\"lists\":[{\"weight\":1,\"segs\":[\"fc00:9::c1\",\"fc00:9::c2\"]}],\"origin\":\"file\",\"line\":6,"
		"\"packets\":8,\"bytes\":0,\"errors\":0,\"drops\":{}},"
		"{\"prefix\":\"10.9.0.0/16\",\"table\":101,\"mode\":\"encap.red\","
		"\"lists\":[{\"weight\":1,\"segs\":[\"fc00:9::c3\"]}],\"origin\":\"file\",\"line\":7,\"packets\":0,"
		"\"bytes\":0,\"errors\":0,\"drops\":{}}]}");
	json_decref(doc);
	config_free(f.cfg);
}
END_TEST

/* `srv6ctl policy show P/L`: the policies of that exact prefix. */
START_TEST(policy_find)
{
	struct doc_fixture f;
	uint16_t st;
	json_t *doc;

	doc_fixture_init(&f);
	doc = ctl_policy_find_json(&f.src, "10.9.7.1/16", &st);
	ck_assert_uint_eq(st, CTL_OK);
	assert_json(doc,
		"{\"policies\":[{\"prefix\":\"10.9.0.0/16\",\"table\":101,\"mode\":\"encap.red\","
		"\"lists\":[{\"weight\":1,\"segs\":[\"fc00:9::c3\"]}],\"origin\":\"file\",\"line\":7,\"packets\":0,"
		"\"bytes\":0,\"errors\":0,\"drops\":{}}]}");
	json_decref(doc);
	doc = ctl_policy_find_json(&f.src, "fc00:9::/48", &st);
	ck_assert_uint_eq(st, CTL_OK);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "policies")), 1);
	json_decref(doc);
	doc = ctl_policy_find_json(&f.src, "fc00:9::/64", &st);
	ck_assert_uint_eq(st, CTL_ERR_NOT_FOUND);
	json_decref(doc);
	doc = ctl_policy_find_json(&f.src, "fc00:9::", &st);
	ck_assert_uint_eq(st, CTL_ERR_INVALID);
	json_decref(doc);
	doc = ctl_policy_find_json(&f.src, "10.9.0.0/33", &st);
	ck_assert_uint_eq(st, CTL_ERR_INVALID);
	json_decref(doc);
	doc = ctl_policy_find_json(&f.src, "", &st);
	ck_assert_uint_eq(st, CTL_OK);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "policies")), 2);
	json_decref(doc);
	config_free(f.cfg);
}
END_TEST

/* Lines as the kernel's seq_show() prints them:
 * "%5u %6u %5u %1u %5u %5u %5u %8u %2d\n". */
START_TEST(nfq_proc_lines)
{
	struct ctl_nfq_queue q;
	char line[128];

	snprintf(line, sizeof(line), "%5u %6u %5u %1u %5u %5u %5u %8u %2d\n",
		 3u, 4242u, 17u, 2u, 65535u, 9u, 11u, 123456u, 1);
	ck_assert_int_eq(ctl_nfq_parse_line(line, &q), 0);
	ck_assert_uint_eq(q.queue, 3);
	ck_assert_uint_eq(q.portid, 4242);
	ck_assert_uint_eq(q.waiting, 17);
	ck_assert_uint_eq(q.copy_mode, 2);
	ck_assert_uint_eq(q.copy_range, 65535);
	ck_assert_uint_eq(q.queue_dropped, 9);
	ck_assert_uint_eq(q.user_dropped, 11);
	ck_assert_uint_eq(q.id_sequence, 123456);
	/* A port id above 2^31 (the kernel's negative autobind ids). */
	snprintf(line, sizeof(line), "%5u %6u %5u %1u %5u %5u %5u %8u %2d\n",
		 0u, 4294967295u, 0u, 2u, 65531u, 0u, 0u, 4294967295u, 1);
	ck_assert_int_eq(ctl_nfq_parse_line(line, &q), 0);
	ck_assert_uint_eq(q.portid, 4294967295u);
	ck_assert_uint_eq(q.id_sequence, 4294967295u);

	ck_assert_int_eq(ctl_nfq_parse_line("", &q), -1);
	ck_assert_int_eq(ctl_nfq_parse_line("    0 1 2 3 4 5 6 7\n", &q), -1);
	ck_assert_int_eq(ctl_nfq_parse_line("0 1 2 3 4 5 6 7 1 9\n", &q), -1);
	ck_assert_int_eq(ctl_nfq_parse_line("0 1 2 3 x 5 6 7 1\n", &q), -1);
}
END_TEST

START_TEST(nfq_proc_read)
{
	char path[] = "/tmp/check_ctl_nfq.XXXXXX";
	struct ctl_nfq_queue q[4];
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fprintf(f, "%5u %6u %5u %1u %5u %5u %5u %8u %2d\n",
		0u, 100u, 0u, 2u, 65531u, 0u, 0u, 77u, 1);
	fprintf(f, "garbage\n");
	fprintf(f, "%5u %6u %5u %1u %5u %5u %5u %8u %2d\n",
		1u, 101u, 5u, 2u, 65531u, 6u, 7u, 88u, 1);
	fclose(f);
	ck_assert_int_eq(ctl_nfq_read(path, q, 4), 2);
	ck_assert_uint_eq(q[0].queue, 0);
	ck_assert_uint_eq(q[0].id_sequence, 77);
	ck_assert_uint_eq(q[1].queue, 1);
	ck_assert_uint_eq(q[1].waiting, 5);
	ck_assert_uint_eq(q[1].queue_dropped, 6);
	ck_assert_uint_eq(q[1].user_dropped, 7);
	ck_assert_int_eq(ctl_nfq_read(path, q, 1), 1);
	unlink(path);
	errno = 0;
	ck_assert_int_eq(ctl_nfq_read(path, q, 4), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

START_TEST(stats_document)
{
	struct doc_fixture f;
	struct ctl_nfq_queue kq[2] = {
		{ .queue = 4, .portid = 99, .waiting = 1, .copy_mode = 2,
		  .copy_range = 65531, .queue_dropped = 2, .user_dropped = 3,
		  .id_sequence = 21 },
		{ .queue = 7, .portid = 98 },
	};
	const json_t *w;
	json_t *doc;

	doc_fixture_init(&f);
	f.src.kq = kq;
	f.src.nkq = 2;
	doc = ctl_stats_json(&f.src);
	ck_assert_ptr_nonnull(doc);
	ck_assert_uint_eq(json_object_size(doc), 3);
	ck_assert_int_eq(json_integer_value(json_object_get(doc,
		"counters_cleared")), 0);
	/* Totals: every counter and every drop reason, zero or not. */
	w = json_object_get(doc, "totals");
	ck_assert_int_eq(json_integer_value(json_object_get(w, "enobufs")), 1);
	ck_assert_uint_eq(json_object_size(json_object_get(w, "drops")),
			  DROP__COUNT);
	/* Queue 3 has no kernel line; queue 4 has its own (not 7's). */
	w = json_array_get(json_object_get(doc, "workers"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(w, "queue")), 3);
	ck_assert(json_is_null(json_object_get(w, "kernel")));
	w = json_array_get(json_object_get(doc, "workers"), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(w, "queue")), 4);
	ck_assert_int_eq(json_integer_value(json_object_get(w, "rx_packets")),
			 20);
	ck_assert_int_eq(json_integer_value(json_object_get(
		json_object_get(w, "drops"), "truncated")), 2);
	assert_json(json_object_get(w, "kernel"),
		"{\"portid\":99,\"waiting\":1,\"copy_mode\":2,"
		"\"copy_range\":65531,\"queue_dropped\":2,\"user_dropped\":3,"
		"\"id_sequence\":21}");
	json_decref(doc);
	config_free(f.cfg);
}
END_TEST

START_TEST(peer_allowed)
{
	const gid_t groups[] = { 10, 20, 30 };

	/* root: everything, whatever its groups. */
	ck_assert(ctl_peer_allowed(0, 0, NULL, 0, 20, false));
	ck_assert(ctl_peer_allowed(0, 5, NULL, 0, 20, true));
	/* A member of the group (primary or supplementary) reads only. */
	ck_assert(ctl_peer_allowed(1000, 20, NULL, 0, 20, false));
	ck_assert(!ctl_peer_allowed(1000, 20, NULL, 0, 20, true));
	ck_assert(ctl_peer_allowed(1000, 1000, groups, 3, 30, false));
	ck_assert(!ctl_peer_allowed(1000, 1000, groups, 3, 30, true));
	/* Anyone else: nothing. */
	ck_assert(!ctl_peer_allowed(1000, 1000, groups, 3, 40, false));
	ck_assert(!ctl_peer_allowed(1000, 1000, groups, 2, 30, false));
	/* No control-group: root's group 0. */
	ck_assert(ctl_peer_allowed(1000, 0, NULL, 0, (gid_t)-1, false));
	ck_assert(!ctl_peer_allowed(1000, 1000, groups, 3, (gid_t)-1, false));
}
END_TEST

/* ---- route get: the source the data path picks ---------------------------- */

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP	0x10000
#endif

static uint8_t nlbuf[4096];

static void mirror_link(struct rtmirror *m, int ifindex, const char *name)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = IFF_UP | IFF_RUNNING | IFF_LOWER_UP;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_MTU, 1500);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

static void mirror_addr4(struct rtmirror *m, int ifindex, const char *addr,
			 unsigned plen, uint8_t scope, uint8_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	struct in_addr a;

	nlh->nlmsg_type = RTM_NEWADDR;
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = (uint8_t)plen;
	ifa->ifa_scope = scope;
	ifa->ifa_flags = flags;
	ifa->ifa_index = (uint32_t)ifindex;
	ck_assert_int_eq(inet_pton(AF_INET, addr, &a), 1);
	mnl_attr_put(nlh, IFA_LOCAL, 4, &a);
	mnl_attr_put(nlh, IFA_ADDRESS, 4, &a);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

/* dst/plen in the main table dev oif, via gw (NULL: on link). */
static void mirror_route4(struct rtmirror *m, const char *dst, unsigned plen,
			  const char *gw, uint32_t oif)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	struct in_addr a;

	nlh->nlmsg_type = RTM_NEWROUTE;
	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = (uint8_t)plen;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = gw ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_TABLE, RT_TABLE_MAIN);
	ck_assert_int_eq(inet_pton(AF_INET, dst, &a), 1);
	mnl_attr_put(nlh, RTA_DST, 4, &a);
	if (gw) {
		ck_assert_int_eq(inet_pton(AF_INET, gw, &a), 1);
		mnl_attr_put(nlh, RTA_GATEWAY, 4, &a);
	}
	mnl_attr_put_u32(nlh, RTA_OIF, oif);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

static void expect_route_src(const struct rtmirror *m, const char *req,
			     const char *want)
{
	uint16_t status;
	json_t *doc = ctl_route_get_json(m, req, &status);

	ck_assert_ptr_nonnull(doc);
	ck_assert_uint_eq(status, CTL_OK);
	ck_assert_str_eq(json_string_value(json_object_get(doc, "src")), want);
	json_decref(doc);
}

/* `route get` shows the IPv4 source the data path (egress.c) uses: never a
 * host-scope or a secondary address, even one listed first that covers
 * the next hop. */
START_TEST(route_get_source4)
{
	struct rtmirror *m = rtmirror_new(NULL);
	struct in_addr want, got, nh;

	ck_assert_ptr_nonnull(m);
	mirror_link(m, 2, "core");
	mirror_addr4(m, 2, "10.0.2.9", 24, RT_SCOPE_HOST, 0);
	mirror_addr4(m, 2, "10.0.2.1", 24, RT_SCOPE_UNIVERSE, 0);
	mirror_route4(m, "198.51.100.0", 24, "10.0.2.254", 2);
	mirror_link(m, 3, "edge");
	mirror_addr4(m, 3, "192.0.2.7", 24, RT_SCOPE_UNIVERSE,
		     IFA_F_SECONDARY);
	mirror_addr4(m, 3, "192.0.2.2", 24, RT_SCOPE_UNIVERSE, 0);
	mirror_route4(m, "192.0.2.0", 24, NULL, 3);

	expect_route_src(m, "198.51.100.7", "10.0.2.1");
	expect_route_src(m, "192.0.2.50", "192.0.2.2");
	/* The very function the data path calls agrees. */
	inet_pton(AF_INET, "10.0.2.254", &nh);
	inet_pton(AF_INET, "10.0.2.1", &want);
	ck_assert_int_eq(egress_source_select4(m, 2, nh, &got), 0);
	ck_assert_uint_eq(got.s_addr, want.s_addr);
	rtmirror_free(m);
}
END_TEST

/* `ip [-6] rule add priority 2000 iif IIF lookup TABLE`, as the kernel
 * sends it. */
static void mirror_rule(struct rtmirror *m, int family, const char *iif,
			uint32_t table)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct fib_rule_hdr *frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));

	nlh->nlmsg_type = RTM_NEWRULE;
	frh->family = (uint8_t)family;
	frh->action = FR_ACT_TO_TBL;
	frh->table = (uint8_t)table;
	mnl_attr_put_u32(nlh, FRA_TABLE, table);
	mnl_attr_put_u32(nlh, FRA_SUPPRESS_PREFIXLEN, UINT32_MAX);
	mnl_attr_put_u8(nlh, FRA_PROTOCOL, RTPROT_BOOT);
	mnl_attr_put_strz(nlh, FRA_IIFNAME, iif);
	mnl_attr_put_u32(nlh, FRA_PRIORITY, 2000);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

/* The POLICIES document with a mirror: each policy's table, and the
 * interfaces another table steers (not those main does). */
START_TEST(policies_document_interfaces)
{
	struct doc_fixture f;
	struct rtmirror *m = rtmirror_new(NULL);
	json_t *doc;

	ck_assert_ptr_nonnull(m);
	doc_fixture_init(&f);
	mirror_link(m, 2, "core");
	mirror_link(m, 3, "ta");
	mirror_rule(m, AF_INET, "ta", 101);
	f.src.mirror = m;
	doc = ctl_policies_json(&f.src);
	ck_assert_ptr_nonnull(doc);
	assert_json(doc,
		"{\"policies\":[{\"prefix\":\"fc00:9::/48\",\"table\":254,"
		"\"mode\":\"encap\",\"lists\":[{\"weight\":1,\"segs\":"
		"[\"fc00:9::c1\",\"fc00:9::c2\"]}],\"origin\":\"file\",\"line\":6,\"packets\":8,"
		"\"bytes\":0,\"errors\":0,\"drops\":{}},"
		"{\"prefix\":\"10.9.0.0/16\",\"table\":101,\"mode\":\"encap.red\","
		"\"lists\":[{\"weight\":1,\"segs\":[\"fc00:9::c3\"]}],\"origin\":\"file\",\"line\":7,"
		"\"packets\":0,\"bytes\":0,\"errors\":0,\"drops\":{}}],"
		"\"interfaces\":[{\"interface\":\"ta\",\"ifindex\":3,"
		"\"ipv4\":101,\"ipv6\":254}]}");
	json_decref(doc);
	config_free(f.cfg);
	rtmirror_free(m);
}
END_TEST

/* Who gets a slot: root while one is free, the others up to the reserve
 * and their own limit. */
START_TEST(admit_limits)
{
	ck_assert_ptr_null(ctl_admit(0, CTL_MAX_CLIENTS - 1,
				     CTL_MAX_CLIENTS - 1, 0));
	ck_assert_str_eq(ctl_admit(0, CTL_MAX_CLIENTS, 0, 0),
			 "too many clients (64 connected)");
	ck_assert_ptr_null(ctl_admit(1000, CTL_MAX_CLIENTS - CTL_ROOT_SLOTS - 1,
				     CTL_MAX_CLIENTS - CTL_ROOT_SLOTS - 1, 0));
	ck_assert_str_eq(ctl_admit(1000, CTL_MAX_CLIENTS - CTL_ROOT_SLOTS,
				   CTL_MAX_CLIENTS - CTL_ROOT_SLOTS, 0),
			 "too many clients (the last 4 of 64 are kept for "
			 "root)");
	/* Root's own clients do not eat the others' share. */
	ck_assert_ptr_null(ctl_admit(1000, CTL_MAX_CLIENTS - 1, 10, 0));
	ck_assert_ptr_null(ctl_admit(1000, 20, 20, CTL_MAX_PER_UID - 1));
	ck_assert_str_eq(ctl_admit(1000, 20, 20, CTL_MAX_PER_UID),
			 "too many clients of this user (16 at once)");
}
END_TEST

/* ---- the server over a real socket -------------------------------------- */

struct server_fixture {
	char dir[32];
	char path[64];
	struct ctl_server *srv;
	pthread_t thread;
	int stop[2];
	unsigned requests;
	uid_t last_uid;
};

static json_t *echo_handler(void *arg, const struct ctl_request *req,
			    uint16_t *status)
{
	struct server_fixture *f = arg;

	f->requests++;
	f->last_uid = req->uid;
	*status = CTL_OK;
	return json_pack("{s:i,s:s%}", "type", req->type, "payload",
			 req->payload ? (const char *)req->payload : "",
			 (size_t)req->length);
}

static void *server_loop(void *arg)
{
	struct server_fixture *f = arg;
	struct pollfd fds[2 + CTL_MAX_CLIENTS];

	for (;;) {
		unsigned n;

		fds[0] = (struct pollfd){ .fd = f->stop[0], .events = POLLIN };
		n = 1 + ctl_server_pollfds(f->srv, fds + 1, CTL_MAX_CLIENTS + 1);
		if (poll(fds, n, 1000) < 0)
			break;
		if (fds[0].revents)
			break;
		ctl_server_dispatch(f->srv, fds + 1, n - 1);
	}
	return NULL;
}

static void server_start_group(struct server_fixture *f, gid_t gid)
{
	char err[256];

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/check_ctl.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/ctl.sock", f->dir);
	f->srv = ctl_server_open(f->path, gid, echo_handler, f, err,
				 sizeof(err));
	ck_assert_msg(f->srv != NULL, "%s", err);
	ck_assert_int_eq(pipe(f->stop), 0);
	ck_assert_int_eq(pthread_create(&f->thread, NULL, server_loop, f), 0);
}

/* Our own group: the test may read whoever runs it. */
static void server_start(struct server_fixture *f)
{
	server_start_group(f, getgid());
}

static void server_stop(struct server_fixture *f)
{
	ck_assert_int_eq(write(f->stop[1], "x", 1), 1);
	pthread_join(f->thread, NULL);
	ctl_server_close(f->srv);
	close(f->stop[0]);
	close(f->stop[1]);
	ck_assert_int_eq(access(f->path, F_OK), -1);	/* unlinked */
	rmdir(f->dir);
}

/* Read one reply's header and document from fd (blocking). */
static json_t *read_reply(int fd, struct ctl_hdr *h)
{
	char buf[4096];
	size_t got = 0;

	while (got < sizeof(*h)) {
		ssize_t n = read(fd, (char *)h + got, sizeof(*h) - got);

		ck_assert_int_gt(n, 0);
		got += (size_t)n;
	}
	ck_assert_uint_lt(h->length, sizeof(buf));
	for (got = 0; got < h->length;) {
		ssize_t n = read(fd, buf + got, h->length - got);

		ck_assert_int_gt(n, 0);
		got += (size_t)n;
	}
	return json_loadb(buf, h->length, 0, NULL);
}

static void send_raw(int fd, uint32_t magic, uint16_t version, uint16_t type,
		     uint32_t length)
{
	struct ctl_hdr h = { .magic = magic, .version = version, .code = type,
			     .length = length };

	ck_assert_int_eq(write(fd, &h, sizeof(h)), (ssize_t)sizeof(h));
}

START_TEST(server_roundtrip)
{
	struct server_fixture f;
	char err[256];
	uint16_t status;
	struct stat st;
	json_t *doc;
	int fd;

	server_start(&f);
	ck_assert_int_eq(stat(f.path, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0660);

	fd = ctl_connect(f.path);
	ck_assert_int_ge(fd, 0);
	/* Two requests on one connection, one with a payload. */
	ck_assert_int_eq(ctl_call(fd, CTL_REQ_VERSION, NULL, 0, 2000, &status,
				  &doc, err, sizeof(err)), 0);
	ck_assert_uint_eq(status, CTL_OK);
	assert_json(doc, "{\"type\":2,\"payload\":\"\"}");
	json_decref(doc);
	ck_assert_int_eq(ctl_call(fd, CTL_REQ_STATUS, "abc", 3, 2000, &status,
				  &doc, err, sizeof(err)), 0);
	assert_json(doc, "{\"type\":1,\"payload\":\"abc\"}");
	json_decref(doc);
	close(fd);
	ck_assert_uint_eq(f.last_uid, getuid());
	server_stop(&f);
}
END_TEST

/* A bad request gets an error reply, then EOF; the handler never runs. */
static void bad_request(uint32_t magic, uint16_t version, uint16_t type,
			uint32_t length, uint16_t want_status,
			const char *want_doc)
{
	struct server_fixture f;
	struct ctl_hdr h;
	json_t *doc;
	char c;
	int fd;

	server_start(&f);
	fd = ctl_connect(f.path);
	ck_assert_int_ge(fd, 0);
	send_raw(fd, magic, version, type, length);
	doc = read_reply(fd, &h);
	ck_assert_ptr_nonnull(doc);
	ck_assert_uint_eq(h.magic, CTL_MAGIC);
	ck_assert_uint_eq(h.version, CTL_PROTO_VERSION);
	ck_assert_uint_eq(h.code, want_status);
	assert_json(doc, want_doc);
	json_decref(doc);
	ck_assert_int_eq(read(fd, &c, 1), 0);	/* closed by the daemon */
	close(fd);
	ck_assert_uint_eq(f.requests, 0);
	server_stop(&f);
}

START_TEST(server_bad_magic)
{
	bad_request(0xdeadbeef, 1, CTL_REQ_STATUS, 0, CTL_ERR_PROTOCOL,
		    "{\"error\":\"bad magic\"}");
}
END_TEST

START_TEST(server_bad_version)
{
	bad_request(CTL_MAGIC, 7, CTL_REQ_STATUS, 0, CTL_ERR_PROTOCOL,
		    "{\"error\":\"unsupported protocol version\"}");
}
END_TEST

START_TEST(server_too_long)
{
	bad_request(CTL_MAGIC, 1, CTL_REQ_STATUS, CTL_MAX_REQUEST + 1,
		    CTL_ERR_PROTOCOL, "{\"error\":\"message too long\"}");
}
END_TEST

START_TEST(server_unknown_type)
{
	bad_request(CTL_MAGIC, 1, 99, 0, CTL_ERR_UNKNOWN,
		    "{\"error\":\"unknown request type\"}");
}
END_TEST

/* A client stuck halfway through a request does not stop another. */
START_TEST(server_slow_client)
{
	struct server_fixture f;
	char err[256];
	uint16_t status;
	json_t *doc;
	int slow, fd;

	server_start(&f);
	slow = ctl_connect(f.path);
	ck_assert_int_ge(slow, 0);
	send_raw(slow, CTL_MAGIC, 1, CTL_REQ_STATUS, 100);	/* no payload */
	fd = ctl_connect(f.path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ctl_call(fd, CTL_REQ_VERSION, NULL, 0, 2000, &status,
				  &doc, err, sizeof(err)), 0);
	ck_assert_uint_eq(status, CTL_OK);
	json_decref(doc);
	close(fd);
	close(slow);
	ck_assert_uint_eq(f.requests, 1);
	server_stop(&f);
}
END_TEST

/* With every slot taken, a new client gets a busy reply before the close,
 * which ctl_call() returns even when its request could not be sent; a
 * freed slot takes the next one. */
START_TEST(server_busy)
{
	struct server_fixture f;
	int fds[CTL_MAX_CLIENTS], fd;
	struct ctl_hdr h;
	char err[256], c;
	uint16_t status;
	json_t *doc;
	int rc = -1;

	server_start(&f);
	for (unsigned i = 0; i < CTL_MAX_CLIENTS; i++) {
		fds[i] = ctl_connect(f.path);
		ck_assert_int_ge(fds[i], 0);
	}
	fd = ctl_connect(f.path);
	ck_assert_int_ge(fd, 0);
	doc = read_reply(fd, &h);
	ck_assert_uint_eq(h.magic, CTL_MAGIC);
	ck_assert_uint_eq(h.version, CTL_PROTO_VERSION);
	ck_assert_uint_eq(h.code, CTL_ERR_BUSY);
	assert_json(doc, "{\"error\":\"too many clients (64 connected)\"}");
	json_decref(doc);
	ck_assert_int_eq(read(fd, &c, 1), 0);
	close(fd);

	fd = ctl_connect(f.path);
	ck_assert_int_ge(fd, 0);
	usleep(100000);		/* refused and closed before the request */
	ck_assert_int_eq(ctl_call(fd, CTL_REQ_STATUS, NULL, 0, 2000, &status,
				  &doc, err, sizeof(err)), 0);
	ck_assert_uint_eq(status, CTL_ERR_BUSY);
	assert_json(doc, "{\"error\":\"too many clients (64 connected)\"}");
	json_decref(doc);
	close(fd);
	ck_assert_str_eq(ctl_status_name(CTL_ERR_BUSY), "busy");

	close(fds[0]);
	for (int tries = 0; tries < 20 && rc != 0; tries++) {
		usleep(50000);	/* the server sees the EOF */
		fd = ctl_connect(f.path);
		ck_assert_int_ge(fd, 0);
		rc = ctl_call(fd, CTL_REQ_VERSION, NULL, 0, 2000, &status,
			      &doc, err, sizeof(err)) == 0 && status == CTL_OK
			     ? 0 : -1;
		json_decref(doc);
		close(fd);
	}
	ck_assert_int_eq(rc, 0);
	for (unsigned i = 1; i < CTL_MAX_CLIENTS; i++)
		close(fds[i]);
	ck_assert_uint_eq(f.requests, 1);
	server_stop(&f);
}
END_TEST

/* In a child that became uid 65534 with gid and groups: send type and
 * check the status and error.  Returns the child's exit status: 0 when the
 * reply was as expected. */
static int call_as(const char *path, gid_t gid, const gid_t *groups,
		   size_t ngroups, uint16_t type, uint16_t want_status,
		   const char *want_error)
{
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char err[256];
		uint16_t status;
		const char *e;
		json_t *doc;
		int fd;

		if (setgroups(ngroups, groups) < 0 || setgid(gid) < 0 ||
		    setuid(65534) < 0)
			_exit(10);
		fd = ctl_connect(path);
		if (fd < 0)
			_exit(11);
		if (ctl_call(fd, type, NULL, 0, 2000, &status, &doc, err,
			     sizeof(err)) < 0)
			_exit(12);
		if (status != want_status)
			_exit(13);
		e = json_string_value(json_object_get(doc, "error"));
		if (want_error ? !e || strcmp(e, want_error) : e != NULL)
			_exit(14);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* SO_PEERCRED/SO_PEERGROUPS against the socket's group: members read, only
 * root reloads, others get nothing (the socket file made 0666 so that the
 * daemon's own check is what refuses them).  Needs root to change uid. */
START_TEST(server_credentials)
{
	const gid_t grp = 4321, other = 4322;
	struct server_fixture f;
	char err[256];
	uint16_t status;
	struct stat st;
	json_t *doc;
	int fd;

	if (getuid() != 0) {
		fprintf(stderr, "server_credentials: not root, skipped\n");
		return;
	}
	server_start_group(&f, grp);
	ck_assert_int_eq(stat(f.path, &st), 0);
	ck_assert_uint_eq(st.st_gid, grp);
	ck_assert_uint_eq(st.st_mode & 0777, 0660);
	ck_assert_int_eq(chmod(f.dir, 0755), 0);
	ck_assert_int_eq(chmod(f.path, 0666), 0);

	/* Not in the group: refused, even a read. */
	ck_assert_int_eq(call_as(f.path, other, &other, 1, CTL_REQ_STATUS,
				 CTL_ERR_PERMISSION,
				 "not a member of the control group"), 0);
	/* Primary group: reads; cannot reload. */
	ck_assert_int_eq(call_as(f.path, grp, NULL, 0, CTL_REQ_STATUS, CTL_OK,
				 NULL), 0);
	ck_assert_int_eq(call_as(f.path, grp, NULL, 0, CTL_REQ_RELOAD,
				 CTL_ERR_PERMISSION,
				 "this request needs root"), 0);
	/* Supplementary group: reads. */
	ck_assert_int_eq(call_as(f.path, other, &grp, 1, CTL_REQ_SIDS, CTL_OK,
				 NULL), 0);
	ck_assert_uint_eq(f.requests, 2);
	/* Root reloads. */
	fd = ctl_connect(f.path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ctl_call(fd, CTL_REQ_RELOAD, NULL, 0, 2000, &status,
				  &doc, err, sizeof(err)), 0);
	ck_assert_uint_eq(status, CTL_OK);
	assert_json(doc, "{\"type\":6,\"payload\":\"\"}");
	json_decref(doc);
	close(fd);
	ck_assert_uint_eq(f.requests, 3);
	server_stop(&f);
}
END_TEST

START_TEST(probe)
{
	struct server_fixture f;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char err[256];
	int s;

	server_start(&f);
	ck_assert_int_eq(ctl_probe(f.path, err, sizeof(err)), 1);
	server_stop(&f);
	ck_assert_int_eq(ctl_probe(f.path, err, sizeof(err)), 0);

	/* A socket file nobody listens on is removed. */
	ck_assert_int_eq(mkdir(f.dir, 0700), 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", f.path);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(s);
	ck_assert_int_eq(access(f.path, F_OK), 0);
	ck_assert_int_eq(ctl_probe(f.path, err, sizeof(err)), 0);
	ck_assert_int_eq(access(f.path, F_OK), -1);

	/* A file that is not a socket is an error, and left alone. */
	fclose(fopen(f.path, "w"));
	ck_assert_int_eq(ctl_probe(f.path, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a socket"));
	ck_assert_int_eq(unlink(f.path), 0);
	rmdir(f.dir);
}
END_TEST

/* ---- rate-limited logging ------------------------------------------------ */

/* Run fn with stderr sent to a file; returns what was written (malloc'd). */
static char *capture_stderr(void (*fn)(void))
{
	char path[] = "/tmp/check_ctl_log.XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	static char buf[4096];
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(saved, 0);
	fflush(stderr);
	ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
	fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	close(fd);
	unlink(path);
	return strdup(buf);
}

static struct log_ratelimit test_rl = LOG_RATELIMIT_INIT(3600, 2);

static void log_burst(void)
{
	log_init("check_ctl", true);	/* debug: a copy on stderr */
	for (int i = 1; i <= 5; i++)
		log_ratelimited(&test_rl, LOG_WARNING, "event %d", i);
	/* The interval ends: the next message says how many were left out. */
	test_rl.start -= 3600;
	log_ratelimited(&test_rl, LOG_WARNING, "event %d", 6);
	log_close();
}

START_TEST(log_ratelimit)
{
	char *out = capture_stderr(log_burst);

	ck_assert_str_eq(out,
		"check_ctl: warning: event 1\n"
		"check_ctl: warning: event 2\n"
		"check_ctl: warning: 3 similar messages suppressed\n"
		"check_ctl: warning: event 6\n");
	ck_assert_uint_eq(test_rl.printed, 1);
	ck_assert_uint_eq(test_rl.suppressed, 0);
	free(out);
}
END_TEST

/* ---- rtrules messages -------------------------------------------------- */

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
START_TEST(rule_message)
{
	uint8_t buf[RTRULES_MSG_SIZE], want[RTRULES_MSG_SIZE];
	struct nlmsghdr *nlh;
	size_t n;

	nlh = rtrules_build_rule(buf, RTM_NEWRULE, 7, 1000, 0x5d6f0001,
				 0x5d6f0001);
	n = hex2bin(
		"44000000 2000 0506 07000000 00000000"	/* nlmsghdr */
		"0a 00 00 00 00 00 00 01 00000000"	/* fib_rule_hdr, TO_TBL */
		"0800 0600 e8030000"			/* FRA_PRIORITY 1000 */
		"0800 0a00 01006f5d"			/* FRA_FWMARK */
		"0800 1000 ffffffff"			/* FRA_FWMASK */
		"0800 0f00 01006f5d"			/* FRA_TABLE */
		"0500 1500 5d 000000",			/* FRA_PROTOCOL srv6d */
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);

	/* Delete: no CREATE|EXCL; a table < 256 in the header; the protocol
	 * too, so that the kernel deletes srv6d's rule and no other. */
	nlh = rtrules_build_rule(buf, RTM_DELRULE, 8, 1000, 0x5d6f0002, 100);
	n = hex2bin(
		"44000000 2100 0500 08000000 00000000"
		"0a 00 00 00 64 00 00 01 00000000"
		"0800 0600 e8030000"
		"0800 0a00 02006f5d"
		"0800 1000 ffffffff"
		"0800 0f00 64000000"
		"0500 1500 5d 000000",
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
}
END_TEST

START_TEST(route_message)
{
	uint8_t buf[RTRULES_MSG_SIZE], want[RTRULES_MSG_SIZE];
	struct in6_addr gw, dst;
	struct nlmsghdr *nlh;
	size_t n;

	inet_pton(AF_INET6, "fc00:3::2", &gw);
	nlh = rtrules_build_route(buf, RTM_NEWROUTE, 9, AF_INET6, 0x5d6f0001,
				  &in6addr_any, 0, &gw, 3, 0);
	n = hex2bin(
		"40000000 1800 0505 09000000 00000000"	/* CREATE|REPLACE */
		"0a 00 00 00 00 5d 00 01 04000000"	/* srv6d's, unicast, onlink */
		"0800 0f00 01006f5d"			/* RTA_TABLE */
		"1400 0500 fc000003 00000000 00000000 00000002" /* RTA_GATEWAY */
		"0800 0400 03000000",			/* RTA_OIF */
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);

	inet_pton(AF_INET6, "fc00:1::", &dst);
	nlh = rtrules_build_route(buf, RTM_DELROUTE, 1, AF_INET6, 0x5d6f0002,
				  &dst, 64, NULL, 0, 1024);
	n = hex2bin(
		"40000000 1900 0500 01000000 00000000"
		"0a 40 00 00 00 5d ff 00 00000000"	/* srv6d's, scope nowhere */
		"0800 0f00 02006f5d"
		"1400 0100 fc000001 00000000 00000000 00000000" /* RTA_DST */
		"0800 0600 00040000",			/* RTA_PRIORITY */
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
}
END_TEST
#endif

static Suite *ctl_suite(void)
{
	Suite *s = suite_create("ctl");
	TCase *tc = tcase_create("framing");

	tcase_add_test(tc, hdr_layout);
	tcase_add_test(tc, hdr_check);
	tcase_add_test(tc, types);
	suite_add_tcase(s, tc);

	tc = tcase_create("status");
	tcase_add_test(tc, status_document);
	tcase_add_test(tc, status_document_no_config);
	tcase_add_test(tc, sids_document);
	tcase_add_test(tc, sid_attributes);
	tcase_add_test(tc, policies_document);
	tcase_add_test(tc, policy_find);
	tcase_add_test(tc, policies_document_interfaces);
	tcase_add_test(tc, stats_document);
	tcase_add_test(tc, nfq_proc_lines);
	tcase_add_test(tc, nfq_proc_read);
	tcase_add_test(tc, peer_allowed);
	tcase_add_test(tc, log_ratelimit);
	tcase_add_test(tc, route_get_source4);
	tcase_add_test(tc, admit_limits);
	suite_add_tcase(s, tc);

	tc = tcase_create("server");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, server_roundtrip);
	tcase_add_test(tc, server_bad_magic);
	tcase_add_test(tc, server_bad_version);
	tcase_add_test(tc, server_too_long);
	tcase_add_test(tc, server_unknown_type);
	tcase_add_test(tc, server_slow_client);
	tcase_add_test(tc, server_busy);
	tcase_add_test(tc, server_credentials);
	tcase_add_test(tc, probe);
	suite_add_tcase(s, tc);

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	tc = tcase_create("rtrules");
	tcase_add_test(tc, rule_message);
	tcase_add_test(tc, route_message);
	suite_add_tcase(s, tc);
#endif
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ctl_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
