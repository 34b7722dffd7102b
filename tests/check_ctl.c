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
#include <unistd.h>

#include <linux/netlink.h>

#include "config.h"
#include "ctl.h"
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
	ck_assert(!ctl_type_known(0, &w));
	ck_assert(!ctl_type_known(3, &w));
	ck_assert(!ctl_type_known(0xffff, &w));
	ck_assert_str_eq(ctl_status_name(CTL_OK), "ok");
	ck_assert_str_eq(ctl_status_name(CTL_ERR_UNKNOWN), "unknown request");
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
	"route 10.9.0.0/16 encap seg6 mode encap.red segs fc00:9::c3\n";

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
	const char *key;
	json_t *doc, *v;
	size_t i;
	static const char *const keys[] = {
		"version", "pid", "uptime", "config", "workers", "totals",
		"sids", "policies",
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
	total.rx_packets = 33;
	total.drops[DROP_FRAGMENT] = 5;
	sids[0].packets = 7;
	sids[0].bytes = 700;
	sids[0].errors = 3;
	sids[0].drops[DROP_HOP_LIMIT] = 2;
	sids[0].drops[DROP_BAD_SRH] = 1;
	pols[1].packets = 9;
	pols[1].bytes = 900;

	src = (struct ctl_status_src){
		.pid = 4242, .uptime = 61, .config_path = "/etc/srv6d/srv6d.conf",
		.nworkers = 2, .queues = queues, .workers = w, .totals = &total,
		.cfg = cfg, .sids = sids, .pols = pols,
	};
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
	ck_assert_int_eq(json_integer_value(json_object_get(doc, "pid")), 4242);
	ck_assert_int_eq(json_integer_value(json_object_get(doc, "uptime")), 61);

	/* A worker: queue, every counter by its C name, every drop reason. */
	assert_json(json_array_get(json_object_get(doc, "workers"), 0),
		"{\"queue\":3,\"rx_packets\":11,\"rx_bytes\":0,\"rx_batches\":0,"
		"\"verdicts\":0,\"verdict_batches\":0,\"accepted\":0,"
		"\"forwarded\":0,\"dropped\":0,\"unmatched\":0,"
		"\"tun_injected\":0,\"icmp_sent\":0,\"enobufs\":0,"
		"\"recv_errors\":0,\"send_errors\":0,\"nl_errors\":0,"
		"\"bad_messages\":2,\"drops\":{\"truncated\":0,\"bad_ip\":0,"
		"\"bad_srh\":0,\"bad_tlv\":0,\"no_srh\":0,\"sl_zero\":0,"
		"\"hop_limit\":4,\"upper_layer\":0,\"ext_headers\":0,\"csid\":0,"
		"\"no_headroom\":0,\"too_big\":0,\"family\":0,\"reinject\":0,"
		"\"icmp_ratelimit\":0,\"fragment\":0,\"hmac_missing\":0,"
		"\"hmac_unknown\":0,\"hmac_wrong\":0}}");
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
		"\"flavors\":[\"psp\"],\"packets\":7,\"bytes\":700,\"errors\":3,"
		"\"drops\":{\"bad_srh\":1,\"hop_limit\":2}}");
	assert_json(json_array_get(v, 1),
		"{\"sid\":\"fc00:100::5/128\",\"behavior\":\"End.X\","
		"\"flavors\":[\"usp\",\"usd\"],\"packets\":0,\"bytes\":0,"
		"\"errors\":0,\"drops\":{}}");
	assert_json(json_array_get(v, 2),
		"{\"sid\":\"fc00:100:a::/48\",\"behavior\":\"End\","
		"\"flavors\":[\"next-csid\"],\"packets\":0,\"bytes\":0,"
		"\"errors\":0,\"drops\":{}}");

	v = json_object_get(doc, "policies");
	ck_assert_uint_eq(json_array_size(v), 2);
	assert_json(json_array_get(v, 0),
		"{\"prefix\":\"fc00:9::/48\",\"mode\":\"encap\","
		"\"segs\":[\"fc00:9::c1\",\"fc00:9::c2\"],\"packets\":0,"
		"\"bytes\":0,\"errors\":0,\"drops\":{}}");
	assert_json(json_array_get(v, 1),
		"{\"prefix\":\"10.9.0.0/16\",\"mode\":\"encap.red\","
		"\"segs\":[\"fc00:9::c3\"],\"packets\":9,\"bytes\":900,"
		"\"errors\":0,\"drops\":{}}");
	json_decref(doc);
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

static void server_start(struct server_fixture *f)
{
	char err[256];

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/check_ctl.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/ctl.sock", f->dir);
	f->srv = ctl_server_open(f->path, echo_handler, f, err, sizeof(err));
	ck_assert_msg(f->srv != NULL, "%s", err);
	ck_assert_int_eq(pipe(f->stop), 0);
	ck_assert_int_eq(pthread_create(&f->thread, NULL, server_loop, f), 0);
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
		"0500 1500 04 000000",			/* FRA_PROTOCOL static */
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);

	/* Delete: no CREATE|EXCL, no protocol; a table < 256 in the header. */
	nlh = rtrules_build_rule(buf, RTM_DELRULE, 8, 1000, 0x5d6f0002, 100);
	n = hex2bin(
		"3c000000 2100 0500 08000000 00000000"
		"0a 00 00 00 64 00 00 01 00000000"
		"0800 0600 e8030000"
		"0800 0a00 02006f5d"
		"0800 1000 ffffffff"
		"0800 0f00 64000000",
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
	nlh = rtrules_build_route(buf, RTM_NEWROUTE, 9, 0x5d6f0001,
				  &in6addr_any, 0, &gw, 3, 0);
	n = hex2bin(
		"40000000 1800 0505 09000000 00000000"	/* CREATE|REPLACE */
		"0a 00 00 00 00 04 00 01 00000000"	/* static, unicast */
		"0800 0f00 01006f5d"			/* RTA_TABLE */
		"1400 0500 fc000003 00000000 00000000 00000002" /* RTA_GATEWAY */
		"0800 0400 03000000",			/* RTA_OIF */
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);

	inet_pton(AF_INET6, "fc00:1::", &dst);
	nlh = rtrules_build_route(buf, RTM_DELROUTE, 1, 0x5d6f0002, &dst, 64,
				  NULL, 0, 1024);
	n = hex2bin(
		"40000000 1900 0500 01000000 00000000"
		"0a 40 00 00 00 00 ff 00 00000000"	/* scope nowhere */
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
	suite_add_tcase(s, tc);

	tc = tcase_create("server");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, server_roundtrip);
	tcase_add_test(tc, server_bad_magic);
	tcase_add_test(tc, server_bad_version);
	tcase_add_test(tc, server_too_long);
	tcase_add_test(tc, server_unknown_type);
	tcase_add_test(tc, server_slow_client);
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
