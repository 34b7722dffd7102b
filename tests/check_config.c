/* check_config.c - the srv6d.conf parser: good files parse into the exact
 * struct config (tables, indices, marks), bad files give exactly the
 * expected "file:line: message" lines and NULL. */
#include <arpa/inet.h>
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "behavior_table.h"
#include "config.h"
#include "runstate.h"
#include "lpm.h"
#include "testutil.h"

#define MAX_ERRS	32

struct errs {
	unsigned n;
	char msg[MAX_ERRS][640];
};

/* The error callback: keeps "file:line: message" (or "file: message"). */
static void collect(void *arg, const char *file, unsigned line,
		    const char *msg)
{
	struct errs *e = arg;

	ck_assert_uint_lt(e->n, MAX_ERRS);
	if (line)
		snprintf(e->msg[e->n], sizeof(e->msg[0]), "%s:%u: %s", file,
			 line, msg);
	else
		snprintf(e->msg[e->n], sizeof(e->msg[0]), "%s: %s", file, msg);
	e->n++;
}

static struct config *parse_len(const char *text, size_t len, struct errs *e)
{
	memset(e, 0, sizeof(*e));
	return config_parse_buffer("t.conf", text, len, collect, e);
}

static struct config *parse_ok(const char *text)
{
	struct errs e;
	struct config *cfg = parse_len(text, strlen(text), &e);

	ck_assert_msg(cfg && e.n == 0, "config rejected: %u errors, first: %s",
		      e.n, e.n ? e.msg[0] : "(none)");
	return cfg;
}

/* The text must be rejected with exactly the messages in want[] (NULL
 * terminated), in that order. */
static void check_bad_len(const char *text, size_t len,
			  const char *const *want)
{
	struct errs e;
	struct config *cfg = parse_len(text, len, &e);
	unsigned n = 0;

	ck_assert_ptr_null(cfg);
	while (want[n])
		n++;
	for (unsigned i = 0; i < e.n && i < n; i++)
		ck_assert_str_eq(e.msg[i], want[i]);
	if (e.n != n)
		ck_abort_msg("%u errors, want %u; first extra/missing: %s", e.n,
			     n, e.n > n ? e.msg[n] : want[e.n]);
}

#define BAD(text, ...) \
	check_bad_len((text), strlen(text), (const char *const[]){ __VA_ARGS__, NULL })

static struct in6_addr a6(const char *s)
{
	struct in6_addr a;

	ck_assert_int_eq(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

static void ck_addr6(const struct in6_addr *got, const char *want)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, got, s, sizeof(s));
	ck_assert_str_eq(s, want);
}

static const char full_conf[] =
	"# a provider edge\n"
	"queue 2-5\n"
	"encap-source fc00:1::2   # outer source\n"
	"\n"
	"sid fc00:100::1/128 action End\n"
	"sid fc00:100::2 action End flavors psp\n"
	"\tsid fc00:100::3/128 action End flavors usp,usd,psp\n"
	"sid fc00:100:a::/48 action End flavors next-csid lblen 32 nflen 16\n"
	"sid fc00:100::5/128 action End.X nh6 fc00:3::2 oif eth1\n"
	"sid fc00:100::6/128 action End.X nh6 fe80::1 flavors psp,next-csid oif v0\n"
	"sid fc00:100::7/128 action End.T table 100 flavors usd\n"
	"sid fc00:100::8/128 action End.T table 254\n"
	"sid fc00:100:b::/64 action End flavors next-csid lblen 40 nflen 24\n"
	"route fc00:9:e1::/48 encap seg6 mode encap segs fc00:9::c1,fc00:9::c2\n"
	"route fc00:9:e2::/48 encap seg6 mode encap.red segs fc00:9::c1\n"
	"route fc00:9:e3::/48 encap seg6 mode inline segs fc00:9::c1,fc00:9::c2,fc00:9::c3\n"
	"route fc00:9:e4::/48 encap seg6 segs fc00:9::c4 mode inline.red\r\n"
	"route 10.9.1.0/24 encap seg6 mode encap segs fc00:9::c1\n"
	"route 10.9.2.0/24 encap seg6 mode encap.red segs fc00:9::c2,fc00:9::c3\n"
	"route 10.9.3.7 encap seg6 mode encap segs fc00:9::c3\n"
	"route 0.0.0.0/0 encap seg6 mode encap segs fc00:9::d\n"
	"tun-name srv6gw\n"
	"reinject tun\n"
	"mark-base 0x1000\n"
	"rule-priority 900\n"
	"icmp-rate 0\n"
	"icmp-burst 7";	/* no final newline */

/* The marks runstate_new() gives SID i of cfg (runstate.h: decided for a
 * parsed config, not written into it). */
static struct sid_marks marks_of(const struct config *cfg, unsigned i)
{
	struct runstate *rs = runstate_new(cfg);
	struct sid_marks m;

	ck_assert_ptr_nonnull(rs);
	ck_assert_uint_lt(i, rs->nsids);
	m = rs->sids[i];
	runstate_free(rs);
	return m;
}

START_TEST(test_full)
{
	struct config *cfg = parse_ok(full_conf);
	const struct sid *s = cfg->sids;
	const struct policy *r = cfg->policies;

	ck_assert_str_eq(cfg->path, "t.conf");
	ck_assert_uint_eq(cfg->queue_first, 2);
	ck_assert_uint_eq(cfg->queue_last, 5);
	ck_assert(cfg->has_encap_source);
	ck_addr6(&cfg->encap_source, "fc00:1::2");
	ck_assert_str_eq(cfg->tun_name, "srv6gw");
	ck_assert_int_eq(cfg->reinject, REINJECT_MODE_NO_PAYLOAD);
	ck_assert_uint_eq(cfg->mark_base, 0x1000);
	ck_assert_uint_eq(cfg->rule_priority, 900);
	ck_assert_uint_eq(cfg->icmp_rate, 0);
	ck_assert_uint_eq(cfg->icmp_burst, 7);

	ck_assert_uint_eq(cfg->nsids, 9);
	for (unsigned i = 0; i < cfg->nsids; i++) {
		ck_assert_uint_eq(s[i].index, i);
		ck_assert_uint_eq(s[i].line, i + 5);
	}
	ck_addr6(&s[0].prefix, "fc00:100::1");
	ck_assert_uint_eq(s[0].plen, 128);
	ck_assert_int_eq(s[0].behavior, BHV_END);
	ck_assert_uint_eq(s[0].flavors, 0);
	ck_assert_uint_eq(marks_of(cfg, 0).mark, 0);
	ck_assert_uint_eq(marks_of(cfg, 0).route_table, 0);
	ck_assert_uint_eq(s[0].lblen, 0);
	ck_assert_uint_eq(s[1].plen, 128);	/* no /len: /128 */
	ck_assert_uint_eq(s[1].flavors, FLV_PSP);
	ck_assert_uint_eq(s[2].flavors, FLV_PSP | FLV_USP | FLV_USD);
	ck_addr6(&s[3].prefix, "fc00:100:a::");
	ck_assert_uint_eq(s[3].plen, 48);
	ck_assert_uint_eq(s[3].flavors, FLV_NEXT_CSID);
	ck_assert_uint_eq(s[3].lblen, 32);
	ck_assert_uint_eq(s[3].nflen, 16);

	ck_assert_int_eq(s[4].behavior, BHV_END_X);
	ck_addr6(&s[4].nh6, "fc00:3::2");
	ck_assert_str_eq(s[4].oif, "eth1");
	ck_assert_uint_eq(marks_of(cfg, 4).mark, 0x1000 + 1 + 4);
	ck_assert_uint_eq(marks_of(cfg, 4).route_table, 0x1000 + 1 + 4);
	ck_assert_int_eq(s[5].behavior, BHV_END_X);
	ck_addr6(&s[5].nh6, "fe80::1");
	ck_assert_str_eq(s[5].oif, "v0");
	ck_assert_uint_eq(s[5].flavors, FLV_PSP | FLV_NEXT_CSID);
	ck_assert_uint_eq(s[5].lblen, CSID_DEFAULT_LBLEN);	/* defaults */
	ck_assert_uint_eq(s[5].nflen, CSID_DEFAULT_NFLEN);
	ck_assert_uint_eq(marks_of(cfg, 5).mark, 0x1006);
	ck_assert_uint_eq(marks_of(cfg, 5).route_table, 0x1006);

	ck_assert_int_eq(s[6].behavior, BHV_END_T);
	ck_assert_uint_eq(s[6].table, 100);
	ck_assert_uint_eq(s[6].flavors, FLV_USD);
	ck_assert_uint_eq(marks_of(cfg, 6).mark, 0x1007);
	ck_assert_uint_eq(marks_of(cfg, 6).route_table, 0);
	ck_assert_uint_eq(s[7].table, 254);	/* main is allowed */
	ck_assert_uint_eq(marks_of(cfg, 7).mark, 0x1008);
	ck_assert_uint_eq(s[8].lblen, 40);
	ck_assert_uint_eq(s[8].nflen, 24);
	ck_assert_uint_eq(marks_of(cfg, 8).mark, 0);

	ck_assert_uint_eq(cfg->npolicies, 8);
	for (unsigned i = 0; i < cfg->npolicies; i++) {
		ck_assert_uint_eq(r[i].index, i);
		ck_assert_uint_eq(r[i].line, i + 14);
	}
	ck_assert_int_eq(r[0].family, AF_INET6);
	ck_addr6(&r[0].prefix.v6, "fc00:9:e1::");
	ck_assert_uint_eq(r[0].plen, 48);
	ck_assert_int_eq(r[0].mode, ENCAP_MODE_ENCAP);
	ck_assert_uint_eq(r[0].sl.nsegs, 2);
	ck_addr6(&r[0].sl.segs[0], "fc00:9::c1");	/* travel order */
	ck_addr6(&r[0].sl.segs[1], "fc00:9::c2");
	ck_assert_int_eq(r[1].mode, ENCAP_MODE_ENCAP_RED);
	ck_assert_uint_eq(r[1].sl.nsegs, 1);
	ck_assert_int_eq(r[2].mode, ENCAP_MODE_INLINE);
	ck_assert_uint_eq(r[2].sl.nsegs, 3);
	ck_addr6(&r[2].sl.segs[2], "fc00:9::c3");
	ck_assert_int_eq(r[3].mode, ENCAP_MODE_INLINE_RED);	/* any order */
	ck_addr6(&r[3].sl.segs[0], "fc00:9::c4");
	ck_assert_int_eq(r[4].family, AF_INET);
	ck_assert_uint_eq(ntohl(r[4].prefix.v4.s_addr), 0x0a090100);
	ck_assert_uint_eq(r[4].plen, 24);
	ck_assert_int_eq(r[5].mode, ENCAP_MODE_ENCAP_RED);
	ck_assert_uint_eq(r[6].plen, 32);	/* no /len: /32 */
	ck_assert_uint_eq(ntohl(r[6].prefix.v4.s_addr), 0x0a090307);
	ck_assert_int_eq(r[7].family, AF_INET);
	ck_assert_uint_eq(r[7].plen, 0);
	config_free(cfg);
}
END_TEST

START_TEST(test_lookups)
{
	struct config *cfg = parse_ok(full_conf);
	struct in6_addr a, k;
	struct in_addr v4;

	a = a6("fc00:100::5");
	ck_assert_ptr_eq(lpm_lookup(cfg->sid_table, &a), &cfg->sids[4]);
	a = a6("fc00:100:a:1234:5678::");	/* inside the C-SID /48 */
	ck_assert_ptr_eq(lpm_lookup(cfg->sid_table, &a), &cfg->sids[3]);
	a = a6("fc00:100::9");
	ck_assert_ptr_null(lpm_lookup(cfg->sid_table, &a));

	a = a6("fc00:9:e3::77");
	ck_assert_ptr_eq(config_policy_lookup6(cfg, 254, &a), &cfg->policies[2]);
	ck_assert_uint_eq(cfg->policies[2].table, CONFIG_TABLE_MAIN);
	a = a6("fc00:9:e5::1");
	ck_assert_ptr_null(config_policy_lookup6(cfg, 254, &a));

	inet_pton(AF_INET, "10.9.2.200", &v4);
	ck_assert_ptr_eq(config_policy_lookup4(cfg, 254, v4), &cfg->policies[5]);
	inet_pton(AF_INET, "10.9.3.7", &v4);
	ck_assert_ptr_eq(config_policy_lookup4(cfg, 254, v4), &cfg->policies[6]);
	inet_pton(AF_INET, "10.9.3.8", &v4);	/* 0.0.0.0/0 */
	ck_assert_ptr_eq(config_policy_lookup4(cfg, 254, v4), &cfg->policies[7]);
	/* Another table has none of main's policies. */
	ck_assert_ptr_null(config_policy_lookup4(cfg, 100, v4));
	/* IPv4 routes are not in the IPv6 table. */
	lpm_v4_key(&k, v4);
	ck_assert_ptr_null(config_policy_lookup6(cfg, 254, &k));
	config_free(cfg);
}
END_TEST

/* Tenants: the same prefix once per routing table, `table T` after the
 * prefix or at the end (as ip-route(8) prints it), main without it. */
START_TEST(test_route_tables)
{
	struct config *cfg = parse_ok("queue 0\nencap-source fc00::1\n"
		"route 10.1.0.0/16 table 101 encap seg6 mode encap segs fc00:2::a4\n"
		"route 10.1.0.0/16 encap seg6 mode encap segs fc00:2::b4 table 102\n"
		"route 10.1.0.0/16 encap seg6 mode encap segs fc00:2::c4\n"
		"route fd01::/64 table 101 encap seg6 mode encap segs fc00:2::a6\n"
		"route fd01::/64 table main encap seg6 mode encap segs fc00:2::c6\n"
		"route 10.1.2.0/24 table 4294967295 encap seg6 mode encap segs fc00::9\n");
	struct in6_addr a = a6("fd01::2");
	struct in_addr v4;

	inet_pton(AF_INET, "10.1.2.2", &v4);
	ck_assert_uint_eq(cfg->nptables, 4);
	ck_assert_uint_eq(cfg->ptables[0].table, 101);
	ck_assert_uint_eq(cfg->ptables[1].table, 102);
	ck_assert_uint_eq(cfg->ptables[2].table, 254);
	ck_assert_uint_eq(cfg->ptables[3].table, 4294967295u);
	ck_assert_uint_eq(cfg->policies[0].table, 101);
	ck_assert_uint_eq(cfg->policies[1].table, 102);
	ck_assert_uint_eq(cfg->policies[2].table, 254);
	ck_assert_uint_eq(cfg->policies[4].table, 254);
	ck_assert_ptr_eq(config_policy_lookup4(cfg, 101, v4), &cfg->policies[0]);
	ck_assert_ptr_eq(config_policy_lookup4(cfg, 102, v4), &cfg->policies[1]);
	ck_assert_ptr_eq(config_policy_lookup4(cfg, 254, v4), &cfg->policies[2]);
	ck_assert_ptr_eq(config_policy_lookup4(cfg, 4294967295u, v4),
			 &cfg->policies[5]);
	ck_assert_ptr_null(config_policy_lookup4(cfg, 100, v4));
	ck_assert_ptr_eq(config_policy_lookup6(cfg, 101, &a), &cfg->policies[3]);
	ck_assert_ptr_eq(config_policy_lookup6(cfg, 254, &a), &cfg->policies[4]);
	ck_assert_ptr_null(config_policy_lookup6(cfg, 102, &a));
	ck_assert_ptr_eq(config_policy_table(cfg, 102), &cfg->ptables[1]);
	ck_assert_ptr_null(config_policy_table(cfg, 103));
	config_free(cfg);
}
END_TEST

/* `reinject no-payload` (no verdict carries a payload) and its older
 * spelling `reinject tun`; `reinject verdict`; `reinject auto`, the
 * default, which the daemon decides (any payload until then). */
START_TEST(test_reinject_spellings)
{
	static const struct {
		const char *text;
		enum reinject_mode mode;
	} t[] = {
		{ "queue 0\nreinject no-payload\n", REINJECT_MODE_NO_PAYLOAD },
		{ "queue 0\nreinject tun\n", REINJECT_MODE_NO_PAYLOAD },
		{ "queue 0\nreinject verdict\n", REINJECT_MODE_VERDICT },
		{ "queue 0\nreinject auto\n", REINJECT_MODE_AUTO },
		{ "queue 0\n", REINJECT_MODE_AUTO },
	};

	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct config *cfg = parse_ok(t[i].text);

		ck_assert_int_eq(cfg->reinject, t[i].mode);
		config_free(cfg);
	}
}
END_TEST

START_TEST(test_defaults)
{
	struct config *cfg = parse_ok("queue 7\n");
	struct in6_addr a = a6("fc00::1");

	ck_assert_uint_eq(cfg->queue_first, 7);
	ck_assert_uint_eq(cfg->queue_last, 7);
	ck_assert(!cfg->has_encap_source);
	ck_assert_str_eq(cfg->tun_name, CONFIG_DEFAULT_TUN);
	ck_assert_str_eq(cfg->tun_name, "srv6d0");
	ck_assert_int_eq(cfg->reinject, REINJECT_MODE_AUTO);
	ck_assert_uint_eq(cfg->mark_base, 0x5d6f0000);
	ck_assert_uint_eq(cfg->rule_priority, 1000);
	ck_assert_uint_eq(cfg->icmp_rate, 100);
	ck_assert_uint_eq(cfg->icmp_burst, 50);
	ck_assert_uint_eq(cfg->nsids, 0);
	ck_assert_uint_eq(cfg->npolicies, 0);
	ck_assert_ptr_nonnull(cfg->sid_table);
	ck_assert_uint_eq(cfg->nptables, 0);
	ck_assert_ptr_null(config_policy_lookup6(cfg, 254, &a));
	ck_assert_ptr_null(lpm_lookup(cfg->sid_table, &a));
	config_free(cfg);
	config_free(NULL);
}
END_TEST

/* A context without a state (built by hand): no SID has a mark, no
 * lookup finds anything, nothing crashes. */
START_TEST(test_runstate_none)
{
	struct config *cfg = parse_ok(
		"queue 0\nmark-base 0x1000\n"
		"sid fc00::2 action End.X nh6 fc00:3::2\n"
		"route fd00::/64 encap seg6 mode encap segs fc00::9\n");
	struct runstate *rs = runstate_new(cfg);

	ck_assert_uint_eq(runstate_sid(NULL, &cfg->sids[0]).mark, 0);
	ck_assert_uint_eq(runstate_sid(NULL, &cfg->sids[0]).kend_mark, 0);
	ck_assert_ptr_null(runstate_sid_by_mark(NULL, cfg, 0x1001));
	ck_assert_ptr_null(runstate_kencap_find(NULL, ENCAP_MODE_ENCAP,
						&cfg->policies[0].sl));
	/* a new state: the mark, no kernel help, any payload */
	ck_assert_uint_eq(runstate_sid(rs, &cfg->sids[0]).mark, 0x1001);
	ck_assert_ptr_eq(runstate_sid_by_mark(rs, cfg, 0x1001), &cfg->sids[0]);
	ck_assert_ptr_null(runstate_kencap_find(rs, ENCAP_MODE_ENCAP,
						&cfg->policies[0].sl));
	ck_assert(!rs->kencap_on && !rs->kend_on);
	ck_assert_int_eq(rs->payload, PAYLOAD_ANY);
	runstate_free(rs);
	runstate_free(NULL);
	config_free(cfg);
}
END_TEST

/* mark-mask (config.h "srv6d's marks"): the default leaves the operator
 * the bits below mark-base's lowest set bit, at most the low 16 (0xffff0000
 * for the default mark-base); 0xffffffff keeps the marks of before the
 * mask (mark-base + offset); its highest bit is the bounce bit; under
 * 0xffff0000 a SID's mark is its offset in the high 16 bits
 * and its table stays mark-base + offset; a verdict keeps the operator's
 * bits; the bounce is known by its bit whatever the other bits. */
START_TEST(test_mark_mask)
{
	struct config *cfg = parse_ok(
		"queue 0\n"
		"sid fc00::1 action End\n"
		"sid fc00::2 action End.X nh6 fc00:3::2\n");

	/* the default: srv6d in the high 16 bits, the operator's low 16 */
	ck_assert_uint_eq(cfg->mark_mask, 0xffff0000u);
	ck_assert_uint_eq(cfg->mark_mask, CONFIG_DEFAULT_MARK_MASK);
	ck_assert(!cfg->has_mark_mask);
	ck_assert_uint_eq(cfg->mark_shift, 16);
	ck_assert_uint_eq(cfg->mark_count, (0x80000000u - 0x5d6f0000u) >> 16);
	ck_assert_uint_eq(cfg->mark_count, 8849);
	ck_assert_uint_eq(config_bounce_bit(cfg), 0x80000000u);
	ck_assert_uint_eq(marks_of(cfg, 1).mark, 0x5d6f0002);
	ck_assert_uint_eq(marks_of(cfg, 1).route_table, 0x5d6f0002);
	ck_assert_uint_eq(config_mark_value(cfg, marks_of(cfg, 1).mark),
			  0x5d6f0000 + (2u << 16));
	/* an operator's fwmark 0x1/0x1 is kept, and does not match srv6d's */
	ck_assert_uint_eq(config_mark_apply(cfg, 0x1,
			  config_mark_value(cfg, 0x5d6f0002)), 0x5d710001);
	ck_assert_uint_eq(config_mark_value(cfg, 0x5d6f0002) & 0x1, 0);
	ck_assert_uint_eq(config_mark_apply(cfg, 0xffff,
			  config_bounce_bit(cfg)), 0x8000ffffu);
	/* the probe's rewrite of a bounced packet: still a bounce */
	ck_assert(config_mark_bounced(cfg, 0x80000000u | 0x100));
	ck_assert(!config_mark_bounced(cfg, 0x5d6f0000));
	config_free(cfg);

	/* full mask, explicit: the marks of before the mask */
	cfg = parse_ok(
		"queue 0\n"
		"mark-mask 0xffffffff\n"
		"sid fc00::1 action End\n"
		"sid fc00::2 action End.X nh6 fc00:3::2\n");
	ck_assert_uint_eq(cfg->mark_mask, 0xffffffffu);
	ck_assert(cfg->has_mark_mask);
	ck_assert_uint_eq(cfg->mark_count, 65536);
	ck_assert_uint_eq(config_bounce_bit(cfg), 0x80000000u);
	ck_assert_uint_eq(config_mark_value(cfg, marks_of(cfg, 1).mark),
			  0x5d6f0002);
	ck_assert_uint_eq(config_mark_apply(cfg, 0x1,
			  config_mark_value(cfg, 0x5d6f0002)), 0x5d6f0002);
	config_free(cfg);

	/* the default mask follows mark-base's lowest set bit, at most 16
	 * bits the operator's; an explicit mark-mask wins */
	cfg = parse_ok("queue 0\nmark-base 0x1000\n");
	ck_assert_uint_eq(cfg->mark_mask, 0xfffff000u);
	ck_assert_uint_eq(cfg->mark_count, 65536);
	ck_assert_uint_eq(config_mark_value(cfg, 0x1002), 0x3000);
	config_free(cfg);
	cfg = parse_ok("queue 0\nmark-base 256\n");
	ck_assert_uint_eq(cfg->mark_mask, 0xffffff00u);
	ck_assert_uint_eq(config_mark_value(cfg, 0x102), 0x300);
	config_free(cfg);
	cfg = parse_ok("queue 0\nmark-base 0x40000000\n");
	ck_assert_uint_eq(cfg->mark_mask, 0xffff0000u);
	ck_assert_uint_eq(cfg->mark_count, 0x4000);
	config_free(cfg);
	cfg = parse_ok("queue 0\nmark-base 0x1000\nmark-mask 0xffffffff\n");
	ck_assert_uint_eq(cfg->mark_mask, 0xffffffffu);
	ck_assert_uint_eq(config_mark_value(cfg, 0x1002), 0x1002);
	config_free(cfg);
	cfg = parse_ok("queue 0\nmark-mask 0xfffff000\nmark-base 0x1000\n");
	ck_assert_uint_eq(cfg->mark_mask, 0xfffff000u);
	config_free(cfg);

	cfg = parse_ok(
		"queue 0\n"
		"mark-base 0x10000\n"
		"mark-mask 0xffff0000\n"
		"sid fc00::1 action End\n"
		"sid fc00::2 action End.X nh6 fc00:3::2\n"
		"sid fc00::3 action End.T table 10\n");
	ck_assert_uint_eq(cfg->mark_shift, 16);
	ck_assert_uint_eq(cfg->mark_count, 0x7fff);
	ck_assert_uint_eq(config_bounce_bit(cfg), 0x80000000u);
	ck_assert_uint_eq(marks_of(cfg, 1).mark, 0x10002);
	ck_assert_uint_eq(marks_of(cfg, 1).route_table, 0x10002);
	ck_assert_uint_eq(config_mark_value(cfg, 0x10002), 0x00030000);
	ck_assert_uint_eq(config_mark_value(cfg, 0x10003), 0x00040000);
	/* the last offset, kernel-encap's first (from the top) */
	ck_assert_uint_eq(config_mark_value(cfg, 0x10000 + 0x7ffe),
			  0x7fff0000);
	/* the operator's low bits kept, srv6d's field replaced */
	ck_assert_uint_eq(config_mark_apply(cfg, 0x00051234, 0x00030000),
			  0x00031234);
	ck_assert_uint_eq(config_mark_apply(cfg, 0x1, config_bounce_bit(cfg)),
			  0x80000001u);
	ck_assert(config_mark_bounced(cfg, 0x80000101u));
	ck_assert(config_mark_bounced(cfg, 0xffff0001u));
	ck_assert(!config_mark_bounced(cfg, 0x7fff0101u));
	config_free(cfg);

	/* the default mark-base under a 16-bit field: fewer offsets */
	cfg = parse_ok("queue 0\nmark-mask 0xffff0000\n");
	ck_assert_uint_eq(cfg->mark_count, 0x8000 - 0x5d6f);
	ck_assert_uint_eq(config_mark_value(cfg, 0x5d6f0001), 0x5d700000);
	config_free(cfg);
	/* a field in the middle: shift 8 */
	cfg = parse_ok("queue 0\nmark-base 0x100\nmark-mask 0xff00\n");
	ck_assert_uint_eq(cfg->mark_count, 127);
	ck_assert_uint_eq(config_bounce_bit(cfg), 0x8000);
	ck_assert_uint_eq(config_mark_value(cfg, 0x101), 0x200);
	ck_assert_uint_eq(config_mark_apply(cfg, 0xabcd00ef, 0x200),
			  0xabcd02ef);
	config_free(cfg);
}
END_TEST

START_TEST(test_err_mark_mask)
{
	BAD("queue 0\nmark-mask 0xff00ff00\n",
	    "t.conf:2: mark-mask: 0xff00ff00 is not one run of at least two "
	    "bits (like 0xffff0000): srv6d's field of the mark holds the "
	    "bounce bit (its highest) and the marks' offsets");
	BAD("queue 0\nmark-mask 0x10000\n",
	    "t.conf:2: mark-mask: 0x10000 is not one run of at least two "
	    "bits (like 0xffff0000): srv6d's field of the mark holds the "
	    "bounce bit (its highest) and the marks' offsets");
	BAD("queue 0\nmark-mask 0\n",
	    "t.conf:2: mark-mask: 0 is not one run of at least two "
	    "bits (like 0xffff0000): srv6d's field of the mark holds the "
	    "bounce bit (its highest) and the marks' offsets");
	BAD("queue 0\nmark-mask 0xffff\n",
	    "t.conf:2: mark-base 0x5d6f0000 has bits outside mark-mask 0xffff: "
	    "srv6d's marks are mark-base plus an offset under the mask (take "
	    "a mark-base inside it, like 0x100)");
	BAD("queue 0\nmark-mask 0xff\nmark-base 0x100\n",
	    "t.conf:2: mark-mask 0xff holds no mark-base (at least 256, "
	    "inside the mask, below its highest bit): take a mask that "
	    "reaches higher");
	BAD("queue 0\nmark-base 0x90000000\n",
	    "t.conf:2: mark-base 0x90000000 takes mark-mask 0xffff0000's "
	    "highest bit 0x80000000, the bounce bit: take a mark-base below "
	    "it or another mark-mask");
	BAD("queue 0\nmark-mask 0xffffffff\nmark-base 0x90000000\n",
	    "t.conf:2: mark-base 0x90000000 takes mark-mask 0xffffffff's "
	    "highest bit 0x80000000, the bounce bit: take a mark-base below "
	    "it or another mark-mask");
	BAD("queue 0\nmark-base 0x7fff0000\n"
	    "sid fc00::1 action End\nsid fc00::2 action End\n",
	    "t.conf:2: 2 SIDs need more marks than the 0 mark-base 0x7fff0000 "
	    "leaves under the default mark-mask 0xffff0000 below its bounce "
	    "bit: widen mark-mask or lower mark-base");
	BAD("queue 0\nmark-mask 0xff000000\nmark-base 0x7e000000\n"
	    "sid fc00::1 action End\nsid fc00::2 action End\n",
	    "t.conf:2: 2 SIDs need more marks than the 1 mark-base 0x7e000000 "
	    "leaves under mark-mask 0xff000000 below its bounce bit: widen "
	    "mark-mask or lower mark-base");
	BAD("queue 0\nmark-mask 0xffff0000\nmark-mask 0xffff0000\n",
	    "t.conf:3: duplicate 'mark-mask' directive (first at line 2)");
}
END_TEST

START_TEST(test_marks_default_base)
{
	struct config *cfg = parse_ok(
		"queue 0\n"
		"sid fc00::1 action End\n"
		"sid fc00::2 action End.X nh6 fc00:3::2\n"
		"sid fc00::3 action End.T table 10\n");

	ck_assert_uint_eq(marks_of(cfg, 0).mark, 0);
	ck_assert_uint_eq(marks_of(cfg, 1).mark, 0x5d6f0002);
	ck_assert_uint_eq(marks_of(cfg, 1).route_table, 0x5d6f0002);
	ck_assert_str_eq(cfg->sids[1].oif, "");
	ck_assert_uint_eq(marks_of(cfg, 2).mark, 0x5d6f0003);
	ck_assert_uint_eq(marks_of(cfg, 2).route_table, 0);
	config_free(cfg);

	/* End.T tables next to the daemon's range are fine. */
	cfg = parse_ok("queue 0\nmark-base 1000\n"
		       "sid fc00::1 action End.T table 999\n"
		       "sid fc00::2 action End.T table 66536\n");
	ck_assert_uint_eq(marks_of(cfg, 0).mark, 1001);
	ck_assert_uint_eq(marks_of(cfg, 1).mark, 1002);
	config_free(cfg);
}
END_TEST

START_TEST(test_syntax_variants)
{
	/* Blanks, comments, CRLF, hex numbers, a full-length line. */
	char line[CONFIG_MAX_LINE + 64];
	struct config *cfg;

	cfg = parse_ok("  # only a comment\n\n \t \nqueue\t0x10-0x11 # hex\r\n"
		       "sid fc00::1/128 action End# no blank before #\n"
		       "icmp-rate 1000000\nicmp-burst 1\nrule-priority 32761\n"
		       "mark-base 256\nreinject verdict\ntun-name a.b-c_d0123456\n");
	ck_assert_uint_eq(cfg->queue_first, 16);
	ck_assert_uint_eq(cfg->queue_last, 17);
	ck_assert_uint_eq(cfg->nsids, 1);
	ck_assert_uint_eq(cfg->icmp_rate, 1000000);
	ck_assert_uint_eq(cfg->mark_base, 256);
	ck_assert_str_eq(cfg->tun_name, "a.b-c_d0123456");
	config_free(cfg);

	cfg = parse_ok("queue 0-63\n");	/* SRV6_MAX_QUEUES */
	ck_assert_uint_eq(cfg->queue_last, 63);
	config_free(cfg);
	cfg = parse_ok("queue 65535\n");
	ck_assert_uint_eq(cfg->queue_first, 65535);
	config_free(cfg);

	/* A line of exactly CONFIG_MAX_LINE bytes is fine. */
	memset(line, ' ', sizeof(line));
	memcpy(line, "queue 1", 7);
	line[CONFIG_MAX_LINE] = '\n';
	line[CONFIG_MAX_LINE + 1] = '\0';
	cfg = parse_ok(line);
	ck_assert_uint_eq(cfg->queue_first, 1);
	config_free(cfg);

	/* 16 segments, table 2^32-1. */
	cfg = parse_ok("queue 0\nencap-source fc00::1\n"
		       "sid fc00:100::1 action End.T table 4294967295\n"
		       "route fc00:9::/32 encap seg6 mode encap segs "
		       "fc00::1,fc00::2,fc00::3,fc00::4,fc00::5,fc00::6,fc00::7,"
		       "fc00::8,fc00::9,fc00::a,fc00::b,fc00::c,fc00::d,fc00::e,"
		       "fc00::f,fc00::10\n");
	ck_assert_uint_eq(cfg->sids[0].table, 4294967295u);
	ck_assert_uint_eq(cfg->policies[0].sl.nsegs, SRV6_MAX_SEGS);
	ck_addr6(&cfg->policies[0].sl.segs[15], "fc00::10");
	config_free(cfg);
}
END_TEST

START_TEST(test_names)
{
	char buf[64];

	ck_assert_str_eq(behavior_name(BHV_END), "End");
	ck_assert_str_eq(behavior_name(BHV_END_X), "End.X");
	ck_assert_str_eq(behavior_name(BHV_END_T), "End.T");
	ck_assert_str_eq(behavior_name(BHV__COUNT), "?");
	ck_assert_str_eq(encap_mode_name(ENCAP_MODE_ENCAP), "encap");
	ck_assert_str_eq(encap_mode_name(ENCAP_MODE_ENCAP_RED), "encap.red");
	ck_assert_str_eq(encap_mode_name(ENCAP_MODE_INLINE), "inline");
	ck_assert_str_eq(encap_mode_name(ENCAP_MODE_INLINE_RED), "inline.red");
	ck_assert_str_eq(encap_mode_name((enum encap_mode)9), "?");

	ck_assert_uint_eq(config_flavors_format(0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_uint_eq(config_flavors_format(FLV_PSP | FLV_USD, buf,
						sizeof(buf)), 7);
	ck_assert_str_eq(buf, "psp,usd");
	ck_assert_uint_eq(config_flavors_format(FLV_PSP | FLV_USP | FLV_USD |
						FLV_NEXT_CSID, buf, sizeof(buf)), 21);
	ck_assert_str_eq(buf, "psp,usp,usd,next-csid");
	ck_assert_uint_eq(config_flavors_format(FLV_PSP | FLV_REPLACE_CSID, buf,
						sizeof(buf)), 16);
	ck_assert_str_eq(buf, "psp,replace-csid");
	ck_assert_uint_eq(config_flavors_format(FLV_PSP | FLV_USP, buf, 5), 7);
	ck_assert_str_eq(buf, "psp,");	/* truncated, terminated */
}
END_TEST

START_TEST(test_parse_file)
{
	char path[] = "/tmp/check_config.XXXXXX";
	struct config *cfg;
	struct errs e = { 0 };
	char want[128];
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, full_conf, sizeof(full_conf) - 1),
			 (ssize_t)sizeof(full_conf) - 1);
	close(fd);
	cfg = config_parse_file(path, collect, &e);
	ck_assert_ptr_nonnull(cfg);
	ck_assert_str_eq(cfg->path, path);
	ck_assert_uint_eq(cfg->nsids, 9);
	config_free(cfg);

	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "queue 0\nqueue 1\n", 16), 16);
	close(fd);
	ck_assert_ptr_null(config_parse_file(path, collect, &e));
	ck_assert_uint_eq(e.n, 1);
	snprintf(want, sizeof(want), "%s:2: duplicate 'queue' directive "
		 "(first at line 1)", path);
	ck_assert_str_eq(e.msg[0], want);
	unlink(path);

	memset(&e, 0, sizeof(e));
	ck_assert_ptr_null(config_parse_file(path, collect, &e));
	ck_assert_uint_eq(e.n, 1);
	snprintf(want, sizeof(want), "%s: cannot open: No such file or directory",
		 path);
	ck_assert_str_eq(e.msg[0], want);
}
END_TEST

/* A file of the source tree ($top_srcdir, as `make check` sets it). */
static char *read_src(const char *rel, size_t *len)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	FILE *f;
	char *buf = malloc(1 << 20);

	snprintf(path, sizeof(path), "%s/%s", top && *top ? top : ".", rel);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s (set top_srcdir)", path);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

START_TEST(test_example_file)
{
	size_t len;
	char *text = read_src("examples/srv6d.conf", &len);
	struct errs e;
	struct config *cfg = parse_len(text, len, &e);

	ck_assert_msg(cfg && e.n == 0, "examples/srv6d.conf: %s",
		      e.n ? e.msg[0] : "rejected");
	ck_assert_uint_eq(cfg->nsids, 10);
	ck_assert_uint_eq(cfg->npolicies, 6);
	config_free(cfg);
	free(text);
}
END_TEST

/* Every example in man/srv6d.conf.5 parses: the .Dl one-liners, the sid
 * and route lines of the literal blocks, and the EXAMPLES file whole. */
/* control-group: a group name (resolved now) or a number; once. */
START_TEST(test_control_group)
{
	struct config *cfg = parse_ok("queue 0\n");

	ck_assert(!cfg->has_control_group);
	config_free(cfg);
	cfg = parse_ok("queue 0\ncontrol-group root\n");
	ck_assert(cfg->has_control_group);
	ck_assert_uint_eq(cfg->control_gid, 0);
	config_free(cfg);
	cfg = parse_ok("queue 0\ncontrol-group 4321\n");
	ck_assert(cfg->has_control_group);
	ck_assert_uint_eq(cfg->control_gid, 4321);
	config_free(cfg);
	BAD("queue 0\ncontrol-group no-such-group-srv6d\n",
	    "t.conf:2: control-group: no group 'no-such-group-srv6d'");
	BAD("queue 0\ncontrol-group 4294967295\n",
	    "t.conf:2: control-group: 4294967295 is out of range (0-4294967294)");
	BAD("queue 0\ncontrol-group\n",
	    "t.conf:2: control-group: missing argument (expected a group name "
	    "or number)");
	BAD("queue 0\ncontrol-group root adm\n",
	    "t.conf:2: control-group: unexpected extra argument 'adm'");
	BAD("queue 0\ncontrol-group root\ncontrol-group root\n",
	    "t.conf:3: duplicate 'control-group' directive (first at line 2)");
}
END_TEST

/* metrics-listen: off by default; [IPv6]:port or IPv4:port, numeric. */
START_TEST(test_metrics_listen)
{
	struct config *cfg = parse_ok("queue 0\n");
	struct in6_addr lo6 = IN6ADDR_LOOPBACK_INIT;

	ck_assert(!cfg->has_metrics);
	config_free(cfg);
	cfg = parse_ok("queue 0\nmetrics-listen [::1]:9586\n");
	ck_assert(cfg->has_metrics);
	ck_assert_int_eq(cfg->metrics_family, AF_INET6);
	ck_assert(!memcmp(&cfg->metrics_addr.v6, &lo6, sizeof(lo6)));
	ck_assert_uint_eq(cfg->metrics_port, 9586);
	config_free(cfg);
	cfg = parse_ok("queue 0\nmetrics-listen 127.0.0.1:80\n");
	ck_assert_int_eq(cfg->metrics_family, AF_INET);
	ck_assert_uint_eq(ntohl(cfg->metrics_addr.v4.s_addr), 0x7f000001);
	ck_assert_uint_eq(cfg->metrics_port, 80);
	config_free(cfg);
	BAD("queue 0\nmetrics-listen ::1:9586\n",
	    "t.conf:2: metrics-listen: '::1' is not an IPv4 address (an "
	    "IPv6 one goes in brackets)");
	BAD("queue 0\nmetrics-listen [::1]\n",
	    "t.conf:2: metrics-listen: expected an address and port like "
	    "[::1]:9586 or 127.0.0.1:9586, found '[::1]'");
	BAD("queue 0\nmetrics-listen 127.0.0.1:0\n",
	    "t.conf:2: metrics-listen: expected an address and port like "
	    "[::1]:9586 or 127.0.0.1:9586, found '127.0.0.1:0'");
	BAD("queue 0\nmetrics-listen 127.0.0.1:65536\n",
	    "t.conf:2: metrics-listen: expected an address and port like "
	    "[::1]:9586 or 127.0.0.1:9586, found '127.0.0.1:65536'");
	BAD("queue 0\nmetrics-listen localhost:9586\n",
	    "t.conf:2: metrics-listen: 'localhost' is not an IPv4 address (an "
	    "IPv6 one goes in brackets)");
	BAD("queue 0\nmetrics-listen [::1]:9586\nmetrics-listen [::1]:9587\n",
	    "t.conf:3: duplicate 'metrics-listen' directive (first at line 2)");
}
END_TEST

START_TEST(test_man_examples)
{
	size_t len, nlit = 0, ndl = 0;
	char *man = read_src("man/srv6d.conf.5.in", &len);
	char *lit = calloc(1, len + 64), *whole = calloc(1, len + 1);
	bool in_lit = false, in_examples = false;
	char *save = NULL;
	struct config *cfg;

	strcpy(lit, "queue 0\nencap-source fc00::1\n");
	for (char *l = strtok_r(man, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, ".Sh ", 4))
			in_examples = !strcmp(l, ".Sh EXAMPLES");
		if (!strncmp(l, ".Bd -literal", 12)) {
			in_lit = true;
			continue;
		}
		if (!strcmp(l, ".Ed")) {
			in_lit = false;
			continue;
		}
		if (in_lit && in_examples) {
			strcat(whole, l);
			strcat(whole, "\n");
		} else if (in_lit && strstr(l, " hmac ")) {
			continue;	/* its key needs a secret file */
		} else if (in_lit && (!strncmp(l, "sid ", 4) || !strncmp(l, "route ", 6))) {
			strcat(lit, l);
			strcat(lit, "\n");
			nlit++;
		} else if (!strncmp(l, ".Dl ", 4)) {
			char one[512];

			/* header-queue's needs gso yes */
			snprintf(one, sizeof(one), "%s%s\n", !strncmp(l + 4, "queue", 5) ?
				 "" : !strncmp(l + 4, "header-queue", 12) ?
				 "queue 0\ngso yes\n" : "queue 0\n", l + 4);
			cfg = parse_ok(one);
			config_free(cfg);
			ndl++;
		}
	}
	ck_assert_uint_eq(ndl, 20);
	ck_assert_uint_eq(nlit, 24);
	cfg = parse_ok(lit);
	ck_assert_uint_eq(cfg->nsids, 16);
	config_free(cfg);
	cfg = parse_ok(whole);
	ck_assert_uint_eq(cfg->nsids, 4);
	ck_assert_uint_eq(cfg->npolicies, 3);
	config_free(cfg);
	free(lit);
	free(whole);
	free(man);
}
END_TEST


/* ---- decapsulation, binding SIDs, weighted lists, HMAC (issue 3) -------- */

START_TEST(test_decap_sids)
{
	struct config *cfg = parse_ok(
		"queue 0\n"
		"mark-base 0x1000\n"
		"sid fc00:100::5/128 action End.DX6 nh6 fc00:3::2 oif eth3\n"
		"sid fc00:100::6/128 action End.DX4 nh4 10.3.0.2\n"
		"sid fc00:100::7/128 action End.DT6 table 100\n"
		"sid fc00:100::8/128 action End.DT4 vrftable 101\n"
		"sid fc00:100::9/128 action End.DT46 table 102\n"
		"sid fc00:100::b/128 action End.DX2 oif veth9\n"
		"sid fc00:100::c/128 action End.DX6 nh6 fe80::1 oif eth3\n"
		"sid fc00:100::d/128 action End.DX4 nh4 10.3.0.9 oif eth4\n");
	const struct sid *s = cfg->sids;
	struct runstate *rs = runstate_new(cfg);
	char a4[INET_ADDRSTRLEN];

	ck_assert_uint_eq(cfg->nsids, 8);
	ck_assert_int_eq(s[0].behavior, BHV_END_DX6);
	ck_addr6(&s[0].nh6, "fc00:3::2");
	ck_assert_str_eq(s[0].oif, "eth3");
	ck_assert_uint_eq(marks_of(cfg, 0).mark, 0x1001);
	ck_assert_uint_eq(marks_of(cfg, 0).route_table, 0x1001);
	ck_assert_int_eq(s[1].behavior, BHV_END_DX4);
	inet_ntop(AF_INET, &s[1].nh4, a4, sizeof(a4));
	ck_assert_str_eq(a4, "10.3.0.2");
	ck_assert_str_eq(s[1].oif, "");
	ck_assert_uint_eq(marks_of(cfg, 1).mark, 0x1002);
	ck_assert_uint_eq(marks_of(cfg, 1).route_table, 0x1002);
	ck_assert_int_eq(s[2].behavior, BHV_END_DT6);
	ck_assert_uint_eq(s[2].table, 100);
	ck_assert(!s[2].vrf);
	ck_assert_uint_eq(marks_of(cfg, 2).route_table, 0);
	ck_assert_uint_eq(marks_of(cfg, 2).mark, 0x1003);
	ck_assert_int_eq(s[3].behavior, BHV_END_DT4);
	ck_assert_uint_eq(s[3].table, 101);
	ck_assert(s[3].vrf);
	ck_assert_int_eq(s[4].behavior, BHV_END_DT46);
	ck_assert_uint_eq(s[4].table, 102);
	ck_assert_int_eq(s[5].behavior, BHV_END_DX2);
	ck_assert_str_eq(s[5].oif, "veth9");
	ck_assert_uint_eq(marks_of(cfg, 5).mark, 0x1006);
	ck_assert_uint_eq(marks_of(cfg, 5).route_table, 0);
	for (unsigned i = 0; i < cfg->nsids; i++) {
		ck_assert(behavior_is_decap(s[i].behavior));
		ck_assert_ptr_null(s[i].policy);
		ck_assert_ptr_eq(runstate_sid_by_mark(rs, cfg, rs->sids[i].mark),
				 &s[i]);
	}
	ck_assert_ptr_null(runstate_sid_by_mark(rs, cfg, 0x1000));
	ck_assert_ptr_null(runstate_sid_by_mark(rs, cfg, 0x1009));
	ck_assert_ptr_null(runstate_sid_by_mark(rs, cfg, 0));
	runstate_free(rs);
	ck_assert_str_eq(behavior_name(BHV_END_DT46), "End.DT46");
	ck_assert_str_eq(behavior_name(BHV_END_B6_ENCAPS_RED),
			 "End.B6.Encaps.Red");
	config_free(cfg);
}
END_TEST

/* ---- marks kept across a reload (runstate_inherit_marks) ---------------- */

/* The SID of cfg with prefix text (a /128). */
static const struct sid *sid_of(const struct config *cfg, const char *text)
{
	struct in6_addr a;

	ck_assert_int_eq(inet_pton(AF_INET6, text, &a), 1);
	for (unsigned i = 0; i < cfg->nsids; i++)
		if (IN6_ARE_ADDR_EQUAL(&cfg->sids[i].prefix, &a))
			return &cfg->sids[i];
	ck_abort_msg("no sid %s", text);
	return NULL;
}

/* The marks rs gives the SID of cfg with prefix text. */
static struct sid_marks mk(const struct runstate *rs,
			   const struct config *cfg, const char *text)
{
	return runstate_sid(rs, sid_of(cfg, text));
}

/* Every mark of rs names its own SID of cfg, once; End.X/DX6/DX4 tables
 * follow their marks. */
static void check_marks_consistent(const struct config *cfg,
				   const struct runstate *rs)
{
	ck_assert_uint_eq(rs->nsids, cfg->nsids);
	for (unsigned i = 0; i < cfg->nsids; i++) {
		const struct sid *s = &cfg->sids[i];
		struct sid_marks m = rs->sids[i];

		ck_assert_uint_eq(s->index, i);
		if (!m.mark)
			continue;
		ck_assert_uint_gt(m.mark, cfg->mark_base);
		ck_assert_uint_lt(m.mark - cfg->mark_base, CONFIG_MARK_RANGE);
		ck_assert_ptr_eq(runstate_sid_by_mark(rs, cfg, m.mark), s);
		if (s->behavior == BHV_END_X || s->behavior == BHV_END_DX6 ||
		    s->behavior == BHV_END_DX4)
			ck_assert_uint_eq(m.route_table, m.mark);
		for (unsigned j = 0; j < i; j++)
			ck_assert_uint_ne(rs->sids[j].mark, m.mark);
	}
}

/* RFC 9433 6.2: End.MAP takes nh6, the mapped SID; unmarked, as End. */
START_TEST(test_end_map)
{
	struct config *cfg = parse_ok(
		"queue 0\n"
		"mark-base 0x1000\n"
		"sid fc00:100::/64 action End.MAP nh6 fc00:9::d6\n");

	ck_assert_uint_eq(cfg->nsids, 1);
	ck_assert_int_eq(cfg->sids[0].behavior, BHV_END_MAP);
	ck_addr6(&cfg->sids[0].nh6, "fc00:9::d6");
	ck_assert_uint_eq(marks_of(cfg, 0).mark, 0);
	ck_assert_str_eq(behavior_desc(BHV_END_MAP)->name, "End.MAP");
	config_free(cfg);
}
END_TEST

static bool mark_in(const struct runstate *rs, uint32_t mark)
{
	for (unsigned i = 0; i < rs->nsids; i++)
		if (rs->sids[i].mark == mark)
			return true;
	return false;
}

START_TEST(test_inherit_marks)
{
	struct config *a = parse_ok(
		"queue 0\nmark-base 0x1000\n"
		"sid fc00:100::1/128 action End\n"
		"sid fc00:100::11/128 action End.X nh6 fc00:2::2\n"
		"sid fc00:100::12/128 action End.X nh6 fc00:3::2\n"
		"sid fc00:100::13/128 action End.X nh6 fc00:2::2\n"
		"sid fc00:100::8/128 action End.DT4 table 100\n"
		"sid fc00:100::9/128 action End.T table 100\n");
	/* Lines swapped and renumbered; ::13 changes its next hop, ::9 its
	 * table, ::8 goes, ::14 and ::15 are new. */
	struct config *b = parse_ok(
		"queue 0\nmark-base 0x1000\n"
		"sid fc00:100::2/128 action End flavors psp\n"
		"sid fc00:100::14/128 action End.DX6 nh6 fc00:3::2\n"
		"sid fc00:100::12/128 action End.X nh6 fc00:3::2 flavors psp\n"
		"sid fc00:100::1/128 action End\n"
		"sid fc00:100::11/128 action End.X nh6 fc00:2::2\n"
		"sid fc00:100::13/128 action End.X nh6 fc00:3::2\n"
		"sid fc00:100::9/128 action End.T table 101\n"
		"sid fc00:100::15/128 action End.DT4 table 100\n");
	struct runstate *ra = runstate_new(a), *rb = runstate_new(b);
	char err[256] = "";

	/* As first given: mark-base + 1 + index, so b's End.X SIDs have marks
	 * that meant other SIDs in a. */
	ck_assert_uint_eq(mk(rb, b, "fc00:100::12").mark, 0x1003);
	ck_assert_uint_eq(mk(ra, a, "fc00:100::12").mark, 0x1003);
	ck_assert_uint_eq(mk(rb, b, "fc00:100::11").mark, 0x1005);
	ck_assert_uint_eq(mk(ra, a, "fc00:100::8").mark, 0x1005);

	ck_assert_int_eq(runstate_inherit_marks(rb, b, ra, a, err,
						sizeof(err)), 0);
	check_marks_consistent(b, rb);
	/* Same routing (flavors do not route): the same mark and table. */
	ck_assert_uint_eq(mk(rb, b, "fc00:100::11").mark, 0x1002);
	ck_assert_uint_eq(mk(rb, b, "fc00:100::11").route_table, 0x1002);
	ck_assert_uint_eq(mk(rb, b, "fc00:100::12").mark, 0x1003);
	ck_assert_uint_eq(mk(rb, b, "fc00:100::12").route_table, 0x1003);
	/* A changed next hop, a changed table, new SIDs: marks a does not
	 * use (0x1001 was a's End SID's slot), the lowest free ones, in b's
	 * order. */
	ck_assert_uint_eq(mk(rb, b, "fc00:100::14").mark, 0x1001);
	ck_assert_uint_eq(mk(rb, b, "fc00:100::14").route_table, 0x1001);
	ck_assert_uint_eq(mk(rb, b, "fc00:100::13").mark, 0x1007);
	ck_assert_uint_eq(mk(rb, b, "fc00:100::13").route_table, 0x1007);
	ck_assert_uint_eq(mk(rb, b, "fc00:100::9").mark, 0x1008);
	ck_assert_uint_eq(mk(rb, b, "fc00:100::15").mark, 0x1009);
	for (unsigned i = 0; i < rb->nsids; i++) {
		uint32_t m = rb->sids[i].mark;

		if (m && m != 0x1002 && m != 0x1003)
			ck_assert(!mark_in(ra, m));
	}
	ck_assert_uint_eq(mk(rb, b, "fc00:100::1").mark, 0);
	ck_assert_uint_eq(mk(rb, b, "fc00:100::2").mark, 0);
	/* The marks a gave up are not b's. */
	ck_assert_ptr_null(runstate_sid_by_mark(rb, b, 0x1004));
	ck_assert_ptr_null(runstate_sid_by_mark(rb, b, 0x1005));
	ck_assert_ptr_null(runstate_sid_by_mark(rb, b, 0x1006));
	ck_assert_ptr_null(runstate_sid_by_mark(rb, b, 0x100a));

	/* Back to a: b's marks are taken now; ::13 and ::9 get their old
	 * routing back and ::8 returns, under marks b does not use (a's old
	 * ones are free again). */
	config_free(a);
	runstate_free(ra);
	a = parse_ok(
		"queue 0\nmark-base 0x1000\n"
		"sid fc00:100::1/128 action End\n"
		"sid fc00:100::11/128 action End.X nh6 fc00:2::2\n"
		"sid fc00:100::12/128 action End.X nh6 fc00:3::2\n"
		"sid fc00:100::13/128 action End.X nh6 fc00:2::2\n"
		"sid fc00:100::8/128 action End.DT4 table 100\n"
		"sid fc00:100::9/128 action End.T table 100\n");
	ra = runstate_new(a);
	ck_assert_int_eq(runstate_inherit_marks(ra, a, rb, b, err,
						sizeof(err)), 0);
	check_marks_consistent(a, ra);
	ck_assert_uint_eq(mk(ra, a, "fc00:100::11").mark, 0x1002);
	ck_assert_uint_eq(mk(ra, a, "fc00:100::12").mark, 0x1003);
	ck_assert_uint_eq(mk(ra, a, "fc00:100::13").mark, 0x1004);
	ck_assert_uint_eq(mk(ra, a, "fc00:100::8").mark, 0x1005);
	ck_assert_uint_eq(mk(ra, a, "fc00:100::9").mark, 0x1006);
	for (unsigned i = 0; i < ra->nsids; i++) {
		uint32_t m = ra->sids[i].mark;

		if (m && m != 0x1002 && m != 0x1003)
			ck_assert(!mark_in(rb, m));
	}
	runstate_free(ra);
	runstate_free(rb);
	config_free(a);
	config_free(b);
}
END_TEST

START_TEST(test_inherit_marks_other_base)
{
	struct config *a = parse_ok("queue 0\nmark-base 0x1000\n"
		"sid fc00:100::11/128 action End.X nh6 fc00:2::2\n"
		"sid fc00:100::12/128 action End.X nh6 fc00:3::2\n");
	struct config *b = parse_ok("queue 0\nmark-base 0x2000\n"
		"sid fc00:100::12/128 action End.X nh6 fc00:3::2\n"
		"sid fc00:100::11/128 action End.X nh6 fc00:2::2\n");
	struct runstate *ra = runstate_new(a), *rb = runstate_new(b);
	char err[256] = "";

	/* Another range: nothing to keep, nothing to collide with. */
	ck_assert_int_eq(runstate_inherit_marks(rb, b, ra, a, err,
						sizeof(err)), 0);
	ck_assert_uint_eq(rb->sids[0].mark, 0x2001);
	ck_assert_uint_eq(rb->sids[1].mark, 0x2002);
	check_marks_consistent(b, rb);
	ck_assert_int_eq(runstate_inherit_marks(rb, b, NULL, NULL, err,
						sizeof(err)), 0);
	ck_assert_uint_eq(rb->sids[0].mark, 0x2001);
	runstate_free(ra);
	runstate_free(rb);
	config_free(a);
	config_free(b);
}
END_TEST

/* Another mark-base under a mask that is not every bit: a's table and
 * packet marks (mark-base + o, mark-base + (o << 16)) are kept clear of:
 * b's base is a's packet mark of offset 1, so b's offsets 1 and 2 would
 * have the packet marks of a's SIDs 2 and 3 (other tables); and b's base
 * is a's + 0x10000, so b's catch tables of offsets 1-3 would be a's
 * tables. */
START_TEST(test_inherit_marks_base_moved_masked)
{
	struct config *a = parse_ok("queue 0\nmark-base 0x10000000\n"
		"mark-mask 0xffff0000\n"
		"sid fc00:100::11/128 action End.X nh6 fc00:2::2\n"
		"sid fc00:100::12/128 action End.X nh6 fc00:3::2\n"
		"sid fc00:100::13/128 action End.X nh6 fc00:4::2\n");
	struct config *b = parse_ok("queue 0\nmark-base 0x10010000\n"
		"mark-mask 0xffff0000\n"
		"sid fc00:100::21/128 action End.X nh6 fc00:2::2\n"
		"sid fc00:100::22/128 action End.X nh6 fc00:3::2\n"
		"sid fc00:100::23/128 action End.X nh6 fc00:4::2\n");
	struct runstate *ra = runstate_new(a), *rb = runstate_new(b);
	char err[256] = "";

	ck_assert_uint_eq(config_mark_value(a, ra->sids[1].mark), 0x10020000);
	ck_assert_uint_eq(config_mark_value(b, rb->sids[0].mark), 0x10020000);
	ck_assert_int_eq(runstate_inherit_marks(rb, b, ra, a, err,
						sizeof(err)), 0);
	/* offsets 1, 2: a's packet marks; 1-3 too: their catch tables
	 * (mark + 0x10000) would be a's tables 0x10000001-3 */
	ck_assert_uint_eq(rb->sids[0].mark, 0x10010004);
	ck_assert_uint_eq(rb->sids[1].mark, 0x10010005);
	ck_assert_uint_eq(rb->sids[2].mark, 0x10010006);
	for (unsigned i = 0; i < 3; i++)
		for (unsigned j = 0; j < 3; j++) {
			ck_assert_uint_ne(config_mark_value(b, rb->sids[i].mark),
					  config_mark_value(a, ra->sids[j].mark));
			ck_assert_uint_ne(rb->sids[i].mark, ra->sids[j].mark);
		}
	check_marks_consistent(b, rb);
	runstate_free(ra);
	runstate_free(rb);
	config_free(a);
	config_free(b);
}
END_TEST

/* Old and new together need more marks than the range has: refused, the
 * new config unchanged. */
START_TEST(test_inherit_marks_full)
{
	/* as many SIDs as the default mark-mask leaves offsets (8848) */
	const unsigned nsids = ((0x80000000u - CONFIG_DEFAULT_MARK_BASE) >>
				16) - 1;
	size_t cap = (size_t)nsids * 64 + 64;
	char *ta = malloc(cap), *tb = malloc(cap);
	struct runstate *ra, *rb;
	struct config *a, *b;
	char err[256] = "";
	size_t la, lb;

	ck_assert_ptr_nonnull(ta);
	ck_assert_ptr_nonnull(tb);
	la = (size_t)snprintf(ta, cap, "queue 0\n");
	lb = (size_t)snprintf(tb, cap, "queue 0\n");
	for (unsigned i = 0; i < nsids; i++) {
		la += (size_t)snprintf(ta + la, cap - la, "sid fc00:%x::/48 "
				       "action End.T table 100\n", i + 1);
		/* the same SIDs, another table: none may keep its mark */
		lb += (size_t)snprintf(tb + lb, cap - lb, "sid fc00:%x::/48 "
				       "action End.T table 101\n", i + 1);
	}
	a = parse_ok(ta);
	b = parse_ok(tb);
	ck_assert_uint_eq(b->nsids, 8848);
	ck_assert_uint_eq(b->mark_count, b->nsids + 1);
	ra = runstate_new(a);
	rb = runstate_new(b);
	ck_assert_int_eq(runstate_inherit_marks(rb, b, ra, a, err,
						sizeof(err)), -1);
	ck_assert_msg(strstr(err, "restart srv6d to apply it"), "%s", err);
	for (unsigned i = 0; i < b->nsids; i++)
		ck_assert_uint_eq(rb->sids[i].mark, b->mark_base + 1 + i);
	ck_assert_ptr_eq(runstate_sid_by_mark(rb, b, b->mark_base + 7),
			 &b->sids[6]);
	runstate_free(ra);
	runstate_free(rb);
	config_free(a);
	config_free(b);
	free(ta);
	free(tb);
}
END_TEST

START_TEST(test_err_decap)
{
	BAD("queue 0\nsid fc00::1 action End.DX6\n",
	    "t.conf:2: sid: End.DX6 needs 'nh6 ADDRESS' (the next hop of the "
	    "decapsulated packets)");
	BAD("queue 0\nsid fc00::1 action End.DX6 nh6 fe80::2\n",
	    "t.conf:2: sid: nh6 fe80::2 is link-local: 'oif IFNAME' is "
	    "required with it");
	BAD("queue 0\nsid fc00::1 action End.DX4 oif eth0\n",
	    "t.conf:2: sid: End.DX4 needs 'nh4 ADDRESS' (the next hop of the "
	    "decapsulated packets)");
	BAD("queue 0\nsid fc00::1 action End.DX4 nh4 fc00::1\n",
	    "t.conf:2: sid: expected an IPv4 address after 'nh4', found 'fc00::1'");
	BAD("queue 0\nsid fc00::1 action End.DX4 nh4 224.0.0.5\n",
	    "t.conf:2: sid: nh4 224.0.0.5 is not a unicast address");
	BAD("queue 0\nsid fc00::1 action End.DX4 nh4 0.0.0.0\n",
	    "t.conf:2: sid: nh4 0.0.0.0 is not a unicast address");
	BAD("queue 0\nsid fc00::1 action End.DX6 nh4 10.0.0.1\n",
	    "t.conf:2: sid: 'nh4' is only valid with End.DX4, End.AS or End.AD, "
	    "not with End.DX6",
	    "t.conf:2: sid: End.DX6 needs 'nh6 ADDRESS' (the next hop of the "
	    "decapsulated packets)");
	BAD("queue 0\nsid fc00::1 action End.DT4\n",
	    "t.conf:2: sid: End.DT4 needs 'table N' or 'vrftable N' (the table "
	    "to look the inner packet up in)");
	BAD("queue 0\nsid fc00::1 action End.DT46 table 5 vrftable 5\n",
	    "t.conf:2: sid: End.DT46 takes 'table' or 'vrftable', not both");
	BAD("queue 0\nsid fc00::1 action End.T vrftable 5\n",
	    "t.conf:2: sid: 'vrftable' is only valid with End.DT6, End.DT4 or "
	    "End.DT46, not with End.T",
	    "t.conf:2: sid: End.T needs 'table N' (the table to look up)");
	BAD("queue 0\nsid fc00::1 action End.DT6 vrftable 0\n",
	    "t.conf:2: sid: vrftable 0 is out of range (1-4294967295)");
	BAD("queue 0\nsid fc00::1 action End.DT6 table 100 oif eth0\n",
	    "t.conf:2: sid: 'oif' is only valid with End.X, End.DX6, End.DX4, "
	    "End.DX2, End.AS, End.AD or End.AM, not with End.DT6");
	BAD("queue 0\nsid fc00::1 action End.DX2\n",
	    "t.conf:2: sid: End.DX2 needs 'oif IFNAME' (the interface the inner "
	    "frames leave by)");
	BAD("queue 0\nsid fc00::1 action End.DT4 table 7 flavors psp\n",
	    "t.conf:2: sid: 'flavors' is only valid with End, End.X or End.T, "
	    "not with End.DT4");
	BAD("queue 0\nsid fc00::1 action End.DX2 oif a/b\n",
	    "t.conf:2: sid: oif 'a/b' is not a valid interface name (1-15 "
	    "characters, no '/' or ':')");
	BAD("queue 0\nmark-base 0x10000\nsid fc00::1 action End.DT4 table 0x10005\n",
	    "t.conf:3: sid fc00::1/128: table 65541 is in the range srv6d owns "
	    "(mark-base 65536 to 131071); use another table or mark-base");
}
END_TEST

START_TEST(test_weighted_and_binding)
{
	struct config *cfg = parse_ok(
		"queue 0\n"
		"encap-source fc00:1::1\n"
		"route fc00:9::/48 encap seg6 mode encap segs fc00::a,fc00::b "
		"weight 3 segs fc00::c,fc00::d weight 1\n"
		"route 10.9.0.0/16 encap seg6 segs fc00::e mode encap.red segs "
		"fc00::f weight 65535 segs fc00::1:1\n"
		"sid fc00:100::1 action End\n"
		"sid fc00:100::c/128 action End.B6.Encaps srh segs fc00::2,fc00::3\n"
		"sid fc00:100::d/128 action End.B6.Encaps.Red srh segs fc00::4 "
		"weight 2 segs fc00::5\n"
		"sid fc00:100::e/128 action End.B6 srh segs fc00::6,fc00::7\n");
	const struct policy *r = cfg->policies, *b;
	const struct sid *s = cfg->sids;

	ck_assert_uint_eq(cfg->npolicies, 2);
	ck_assert_uint_eq(r[0].nlists, 2);
	ck_assert_uint_eq(r[0].lists[0].nsegs, 2);
	ck_addr6(&r[0].lists[0].segs[1], "fc00::b");
	ck_assert_ptr_eq(&r[0].sl, &r[0].lists[0]);	/* the alias */
	ck_addr6(&r[0].lists[1].segs[0], "fc00::c");
	ck_assert_uint_eq(r[0].weights[0], 3);
	ck_assert_uint_eq(r[0].weights[1], 1);
	ck_assert_uint_eq(r[0].hmac_keyid, 0);
	ck_assert(!r[0].binding);
	ck_assert_uint_eq(r[1].nlists, 3);
	ck_assert_int_eq(r[1].mode, ENCAP_MODE_ENCAP_RED);
	ck_assert_uint_eq(r[1].weights[0], 1);	/* default */
	ck_assert_uint_eq(r[1].weights[1], 65535);
	ck_assert_uint_eq(r[1].weights[2], 1);
	ck_addr6(&r[1].lists[2].segs[0], "fc00::1:1");

	ck_assert_uint_eq(cfg->nsids, 4);
	ck_assert_uint_eq(cfg->nbsid_policies, 3);
	ck_assert_ptr_null(s[0].policy);
	for (unsigned i = 1; i < 4; i++) {
		b = s[i].policy;
		ck_assert_ptr_eq(b, &cfg->bsid_policies[i - 1]);
		ck_assert(b->binding);
		ck_assert_uint_eq(b->index, i);
		ck_assert_int_eq(b->family, AF_INET6);
		ck_assert_mem_eq(&b->prefix.v6, &s[i].prefix, 16);
		ck_assert_uint_eq(b->plen, 128);
		ck_assert_uint_eq(marks_of(cfg, i).mark, 0);	/* unused: unmarked */
		ck_assert(behavior_is_binding(s[i].behavior));
		ck_assert(!config_policy_lookup6(cfg, 254, &s[i].prefix));
	}
	ck_assert_int_eq(s[1].behavior, BHV_END_B6_ENCAPS);
	ck_assert_int_eq(s[1].policy->mode, ENCAP_MODE_ENCAP);
	ck_assert_uint_eq(s[1].policy->nlists, 1);
	ck_addr6(&s[1].policy->sl.segs[1], "fc00::3");
	ck_assert_int_eq(s[2].behavior, BHV_END_B6_ENCAPS_RED);
	ck_assert_int_eq(s[2].policy->mode, ENCAP_MODE_ENCAP_RED);
	ck_assert_uint_eq(s[2].policy->nlists, 2);
	ck_assert_uint_eq(s[2].policy->weights[0], 2);
	ck_assert_int_eq(s[3].behavior, BHV_END_B6);
	ck_assert_int_eq(s[3].policy->mode, ENCAP_MODE_INLINE);
	ck_assert_ptr_eq(lpm_lookup(cfg->sid_table, &s[3].prefix), &s[3]);
	config_free(cfg);
}
END_TEST

START_TEST(test_err_weighted_and_binding)
{
	char many[2048] = "queue 0\nencap-source fc00::1\n"
		"route fc00:9::/32 encap seg6 mode encap";

	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap weight 2 segs fc00::2\n",
	    "t.conf:3: route: 'weight' must follow the 'segs' list it weighs");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap segs fc00::2 weight 2 "
	    "weight 3\n",
	    "t.conf:3: route: 'weight' given twice for segment list 1");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap segs fc00::2 weight 0 "
	    "segs fc00::3 weight 65536\n",
	    "t.conf:3: route: weight 0 is out of range (1-65535)",
	    "t.conf:3: route: weight 65536 is out of range (1-65535)");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap segs fc00::2 weight\n",
	    "t.conf:3: route: 'weight' needs an argument (a number 1-65535)");
	for (unsigned i = 0; i < POLICY_MAX_LISTS + 1; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
			 " segs fc00::%x", i + 1);
	strcat(many, "\n");
	BAD(many, "t.conf:3: route: too many segment lists (at most 16)");
	BAD("queue 0\nsid fc00::1 action End.B6.Encaps\n",
	    "t.conf:2: sid: End.B6.Encaps needs 'srh segs SEGMENTS' (the "
	    "policy's segment list)");
	BAD("queue 0\nsid fc00::1 action End.B6 segs fc00::2\n",
	    "t.conf:2: sid: End.B6 needs 'srh segs SEGMENTS' (the policy's "
	    "segment list)");
	BAD("queue 0\nsid fc00::1 action End.B6.Encaps.Red srh\n",
	    "t.conf:2: sid: missing 'segs SEGMENTS' (comma-separated IPv6 "
	    "addresses)");
	BAD("queue 0\nsid fc00::1 action End.B6.Encaps srh mode encap segs a::1\n",
	    "t.conf:2: sid: unknown attribute 'mode' (expected segs, weight or "
	    "hmac)");
	BAD("queue 0\nsid fc00::1 action End.B6.Encaps srh segs a::1,,a::2\n",
	    "t.conf:2: sid: empty segment in list 'a::1,,a::2'");
	BAD("queue 0\nsid fc00::1 action End.B6.Encaps srh segs a::1 hmac 3\n"
	    "sid fc00::2 action End.B6 srh segs a::1 hmac 4\n",
	    "t.conf:2: sid: hmac key 3 is not defined (add 'hmac 3 sha256 "
	    "secret-file PATH')",
	    "t.conf:3: sid: hmac key 4 is not defined (add 'hmac 4 sha256 "
	    "secret-file PATH')");
	BAD("queue 0\nsid fc00::1 action End.B6.Encaps srh segs a::1\n"
	    "sid fc00::1 action End.B6 srh segs a::2\n",
	    "t.conf:3: sid fc00::1/128 is already defined at line 2");
}
END_TEST

/* A secret file of `mode` holding `text`; the path goes to path[]. */
static void secret_file(char *path, const char *text, mode_t mode)
{
	int fd;

	strcpy(path, "/tmp/check_config.key.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

START_TEST(test_hmac)
{
	char k1[64], k2[64], text[512];
	struct config *cfg;
	const struct hmac_key *k;

	secret_file(k1, "my secret\n", 0600);
	secret_file(k2, "0123456789012345678901234567890123456789012345678901"
		    "234567890123", 0640);	/* 64 bytes, no newline */
	snprintf(text, sizeof(text),
		 "queue 0\nencap-source fc00::1\n"
		 "hmac-require yes\n"
		 "route fc00:9::/32 encap seg6 mode encap segs a::1 hmac 7 "
		 "segs a::2\n"
		 "hmac 7 sha256 secret-file %s\n"
		 "hmac 4294967295 sha1 secret-file %s\n"
		 "sid fc00::1 action End.B6.Encaps srh segs a::1 hmac 4294967295\n",
		 k1, k2);
	cfg = parse_ok(text);
	ck_assert(cfg->hmac_require);
	ck_assert_uint_eq(cfg->nhmac_keys, 2);
	k = config_hmac_key(cfg, 7);
	ck_assert_ptr_eq(k, &cfg->hmac_keys[0]);
	ck_assert_int_eq(k->alg, HMAC_ALG_SHA256);
	ck_assert_uint_eq(k->len, 9);
	ck_assert_mem_eq(k->secret, "my secret", 9);
	ck_assert_uint_eq(k->line, 5);
	k = config_hmac_key(cfg, 4294967295u);
	ck_assert_int_eq(k->alg, HMAC_ALG_SHA1);
	ck_assert_uint_eq(k->len, 64);
	ck_assert_mem_eq(k->secret + 60, "0123", 4);
	ck_assert_ptr_null(config_hmac_key(cfg, 8));
	ck_assert_uint_eq(cfg->policies[0].hmac_keyid, 7);
	ck_assert_uint_eq(cfg->policies[0].nlists, 2);
	ck_assert_uint_eq(cfg->sids[0].policy->hmac_keyid, 4294967295u);
	ck_assert_str_eq(hmac_alg_name(HMAC_ALG_SHA1), "sha1");
	ck_assert_str_eq(hmac_alg_name(HMAC_ALG_SHA256), "sha256");
	ck_assert_str_eq(hmac_alg_name((enum hmac_alg)0), "?");
	config_free(cfg);
	cfg = parse_ok("queue 0\nhmac-require no\n");
	ck_assert(!cfg->hmac_require);
	config_free(cfg);
	cfg = parse_ok("queue 0\n");
	ck_assert(!cfg->hmac_require);	/* default */
	config_free(cfg);
	unlink(k1);
	unlink(k2);
}
END_TEST

/* A parse's errors and warnings (one arg for both callbacks). */
struct reports {
	struct errs errors, warnings;
};

static void collect_error(void *arg, const char *file, unsigned line,
			  const char *msg)
{
	collect(&((struct reports *)arg)->errors, file, line, msg);
}

static void collect_warning(void *arg, const char *file, unsigned line,
			    const char *msg)
{
	collect(&((struct reports *)arg)->warnings, file, line, msg);
}

/* parse_warn(): the text parses with no error; its warnings in *w. */
static struct config *parse_warn(const char *text, struct errs *w)
{
	struct reports r;
	struct config *cfg;

	memset(&r, 0, sizeof(r));
	cfg = config_parse_buffer_warn("t.conf", text, strlen(text),
				       collect_error, collect_warning, &r);
	ck_assert_msg(cfg && r.errors.n == 0, "config rejected: %u errors, "
		      "first: %s", r.errors.n,
		      r.errors.n ? r.errors.msg[0] : "(none)");
	*w = r.warnings;
	return cfg;
}

/* offload: yes by default (super-packets whole, kernel-encap and
 * kernel-end at auto), no turns all of it off; no warning for it. */
START_TEST(test_offload)
{
	struct errs w;
	struct config *cfg = parse_warn("queue 0\n", &w);

	ck_assert(cfg->gso);	/* default: offload yes */
	ck_assert_int_eq(cfg->kernel_encap, KERNEL_ENCAP_AUTO);
	ck_assert_int_eq(cfg->kernel_end, KERNEL_ENCAP_AUTO);
	ck_assert_uint_eq(w.n, 0);
	config_free(cfg);
	cfg = parse_warn("queue 0\noffload yes\n", &w);
	ck_assert(cfg->gso);
	ck_assert_int_eq(cfg->kernel_encap, KERNEL_ENCAP_AUTO);
	ck_assert_int_eq(cfg->kernel_end, KERNEL_ENCAP_AUTO);
	ck_assert_uint_eq(w.n, 0);
	config_free(cfg);
	cfg = parse_warn("queue 0\noffload no\n", &w);
	ck_assert(!cfg->gso);
	ck_assert_uint_eq(w.n, 0);
	config_free(cfg);
	BAD("queue 0\noffload maybe\n",
	    "t.conf:2: offload: expected yes or no, found 'maybe'");
	BAD("queue 0\noffload\n",
	    "t.conf:2: offload: missing argument (expected yes or no)");
	BAD("queue 0\noffload yes\noffload no\n",
	    "t.conf:3: duplicate 'offload' directive (first at line 2)");
	/* Super-packets have a way back without payloads (reinject.h). */
	cfg = parse_ok("queue 0\nreinject no-payload\n");
	ck_assert(cfg->gso);
	config_free(cfg);
	cfg = parse_ok("queue 0\nreinject no-payload\noffload no\n");
	ck_assert(!cfg->gso);
	config_free(cfg);
}
END_TEST

/* The old names still parse, as overrides of what offload sets, each
 * with one warning at its line; the parse does not fail. */
START_TEST(test_deprecated_names)
{
	struct errs w;
	struct config *cfg = parse_warn("queue 0\ngso no\n", &w);

	ck_assert(!cfg->gso);	/* gso no = offload no */
	ck_assert_uint_eq(w.n, 1);
	ck_assert_str_eq(w.msg[0], "t.conf:2: 'gso' is deprecated: use "
			 "'offload'");
	config_free(cfg);
	cfg = parse_warn("queue 0\ngso yes\n", &w);
	ck_assert(cfg->gso);
	ck_assert_uint_eq(w.n, 1);
	config_free(cfg);
	cfg = parse_warn("queue 0\nkernel-end no\n", &w);
	ck_assert(cfg->gso);	/* still whole, without the kernel's End */
	ck_assert_int_eq(cfg->kernel_end, KERNEL_ENCAP_NO);
	ck_assert_int_eq(cfg->kernel_encap, KERNEL_ENCAP_AUTO);
	ck_assert_uint_eq(w.n, 1);
	ck_assert_str_eq(w.msg[0], "t.conf:2: 'kernel-end' is deprecated: "
			 "'offload' sets it");
	config_free(cfg);
	cfg = parse_warn("queue 0\nkernel-encap no\n", &w);
	ck_assert(cfg->gso);
	ck_assert_int_eq(cfg->kernel_encap, KERNEL_ENCAP_NO);
	ck_assert_int_eq(cfg->kernel_end, KERNEL_ENCAP_AUTO);
	ck_assert_uint_eq(w.n, 1);
	ck_assert_str_eq(w.msg[0], "t.conf:2: 'kernel-encap' is deprecated: "
			 "'offload' sets it");
	config_free(cfg);
	/* yes no longer needs a gso line: offload is on by default */
	cfg = parse_warn("queue 0\nkernel-encap yes\nkernel-end yes\n", &w);
	ck_assert_int_eq(cfg->kernel_encap, KERNEL_ENCAP_YES);
	ck_assert_int_eq(cfg->kernel_end, KERNEL_ENCAP_YES);
	ck_assert_uint_eq(w.n, 2);
	ck_assert_str_eq(w.msg[0], "t.conf:2: 'kernel-encap' is deprecated: "
			 "'offload' sets it");
	ck_assert_str_eq(w.msg[1], "t.conf:3: 'kernel-end' is deprecated: "
			 "'offload' sets it");
	config_free(cfg);
	/* the same value as offload: a warning, no error */
	cfg = parse_warn("queue 0\noffload no\ngso no\nkernel-end no\n", &w);
	ck_assert(!cfg->gso);
	ck_assert_uint_eq(w.n, 2);
	config_free(cfg);
	/* config_parse_buffer() reports none (nothing on stderr either) */
	cfg = parse_ok("queue 0\ngso yes\nkernel-end auto\nkernel-encap auto\n");
	config_free(cfg);
	BAD("queue 0\ngso maybe\n",
	    "t.conf:2: gso: expected yes or no, found 'maybe'");
	BAD("queue 0\ngso yes\ngso no\n",
	    "t.conf:3: duplicate 'gso' directive (first at line 2)");
}
END_TEST

/* What cannot hold together: offload against gso, yes without
 * super-packets. */
START_TEST(test_err_offload)
{
	BAD("queue 0\noffload no\ngso yes\n",
	    "t.conf:3: gso yes contradicts 'offload no' at line 2");
	BAD("queue 0\ngso no\noffload yes\n",
	    "t.conf:2: gso no contradicts 'offload yes' at line 3");
	BAD("queue 0\noffload no\nkernel-encap yes\n",
	    "t.conf:3: kernel-encap yes: the kernel encapsulates "
	    "super-packets, which 'offload no' (line 2) turns off");
	BAD("queue 0\noffload no\nkernel-end yes\n",
	    "t.conf:3: kernel-end yes: the kernel's End rewrites "
	    "super-packets, which 'offload no' (line 2) turns off");
	BAD("queue 0\nkernel-end yes\ngso no\nkernel-encap yes\n",
	    "t.conf:4: kernel-encap yes: the kernel encapsulates "
	    "super-packets, which 'gso no' (line 3) turns off",
	    "t.conf:2: kernel-end yes: the kernel's End rewrites "
	    "super-packets, which 'gso no' (line 3) turns off");
	/* contradicting, one error only (not one more per consequence) */
	BAD("queue 0\noffload yes\ngso no\nkernel-end yes\nheader-queue 1\n",
	    "t.conf:3: gso no contradicts 'offload yes' at line 2");
}
END_TEST

START_TEST(test_err_hmac)
{
	char ok[64], open_r[64], open_w[64], empty[64], big[64], text[1024];
	char w[8][256];

	secret_file(ok, "s3cret", 0400);
	secret_file(open_r, "s3cret", 0604);
	secret_file(open_w, "s3cret", 0602);
	secret_file(empty, "\n", 0600);
	secret_file(big, "01234567890123456789012345678901234567890123456789"
		    "0123456789abcde", 0600);	/* 65 bytes */
	snprintf(text, sizeof(text),
		 "queue 0\n"
		 "hmac 1 sha256 secret-file %s\n"
		 "hmac 1 sha1 secret-file %s\n"
		 "hmac 2 md5 secret-file %s\n"
		 "hmac 0 sha1 secret-file %s\n"
		 "hmac 3 sha1 secret-file %s\n"
		 "hmac 4 sha1 secret-file %s\n"
		 "hmac 5 sha1 secret-file %s\n"
		 "hmac 6 sha1 secret-file %s\n"
		 "hmac 7 sha1 secret-file relative.key\n"
		 "hmac 8 sha1 secret-file /nonexistent/k\n"
		 "hmac 9 sha1 secret-file /tmp\n"
		 "hmac 10 sha1 secret %s\n"
		 "hmac 11 sha1\n"
		 "hmac-require maybe\n",
		 ok, ok, ok, ok, open_r, open_w, empty, big, ok);
	snprintf(w[0], sizeof(w[0]), "t.conf:6: hmac: secret-file %s is "
		 "accessible by others (mode 0604): chmod o-rw it", open_r);
	snprintf(w[1], sizeof(w[1]), "t.conf:7: hmac: secret-file %s is "
		 "accessible by others (mode 0602): chmod o-rw it", open_w);
	snprintf(w[2], sizeof(w[2]), "t.conf:8: hmac: secret-file %s must "
		 "hold 1-64 bytes (one final newline aside)", empty);
	snprintf(w[3], sizeof(w[3]), "t.conf:9: hmac: secret-file %s must "
		 "hold 1-64 bytes (one final newline aside)", big);
	BAD(text,
	    "t.conf:3: hmac: key 1 is already defined at line 2",
	    "t.conf:4: hmac: unknown algorithm 'md5' (expected sha1 or sha256)",
	    "t.conf:5: hmac: key id 0 is out of range (1-4294967295)",
	    w[0], w[1], w[2], w[3],
	    "t.conf:10: hmac: secret-file 'relative.key' is not an absolute path",
	    "t.conf:11: hmac: cannot open secret-file /nonexistent/k: No such "
	    "file or directory",
	    "t.conf:12: hmac: secret-file /tmp is not a regular file",
	    "t.conf:13: hmac: expected 'secret-file' after the algorithm, found "
	    "'secret'",
	    "t.conf:14: hmac: missing argument (expected KEYID sha1|sha256 "
	    "secret-file PATH)",
	    "t.conf:15: hmac-require: expected yes or no, found 'maybe'");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap segs a::1 hmac 1 hmac 2\n",
	    "t.conf:3: route: 'hmac' given twice");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap segs a::1 hmac 9\n",
	    "t.conf:3: route: hmac key 9 is not defined (add 'hmac 9 sha256 "
	    "secret-file PATH')");
	BAD("queue 0\nhmac-require yes\nhmac-require no\n",
	    "t.conf:3: duplicate 'hmac-require' directive (first at line 2)");
	BAD("queue 0\nsteering yes\n",
	    "t.conf:2: steering: expected auto or no, found 'yes'");
	BAD("queue 0\nsteering\n",
	    "t.conf:2: steering: missing argument (expected auto or no)");
	BAD("queue 0\nsteering no\nsteering auto\n",
	    "t.conf:3: duplicate 'steering' directive (first at line 2)");
	unlink(ok);
	unlink(open_r);
	unlink(open_w);
	unlink(empty);
	unlink(big);
}
END_TEST

/* What an unknown directive's message lists: every directive, in the
 * order srv6d.conf(5) gives them. */
#define DIRECTIVES							\
	"queue, encap-source, sid, route, tun-name, reinject, mark-base, "	\
	"mark-mask, rule-priority, icmp-rate, icmp-burst, hmac, hmac-require, "	\
	"control-group, kernel-routes, offload, gso, kernel-encap, "	\
	"kernel-end, header-queue, metrics-listen, steering, oam-copy, "	\
	"oam-copy-len, oam-rate or oam-burst"

/* ---- errors, one class at a time ---------------------------------------- */

START_TEST(test_err_keyword_and_args)
{
	BAD("queue 0\nqeueu 1\n",
	    "t.conf:2: unknown directive 'qeueu' (expected " DIRECTIVES ")");
	BAD("queue\n",
	    "t.conf:1: queue: missing argument (expected a queue number or a "
	    "range like 0-3)");
	BAD("queue 0 1\n", "t.conf:1: queue: unexpected extra argument '1'");
	BAD("queue 0\nencap-source\n",
	    "t.conf:2: encap-source: missing argument (expected an IPv6 address)");
	BAD("queue 0\nreinject tun verdict\n",
	    "t.conf:2: reinject: unexpected extra argument 'verdict'");
	BAD("queue 0\nreinject always\n",
	    "t.conf:2: reinject: expected auto, verdict or no-payload, found "
	    "'always'");
	BAD("queue 0\nicmp-rate\n",
	    "t.conf:2: icmp-rate: missing argument (expected a number)");
	BAD("queue 0\nsid\n",
	    "t.conf:2: sid: missing argument (expected PREFIX action BEHAVIOR ...)");
	BAD("queue 0\nsid fc00::1\n",
	    "t.conf:2: sid: missing 'action BEHAVIOR' after the prefix");
	BAD("queue 0\nsid fc00::1 End\n",
	    "t.conf:2: sid: expected 'action' after the prefix, found 'End'");
	BAD("queue 0\nsid fc00::1 action\n",
	    "t.conf:2: sid: 'action' needs a behavior (End, End.X, End.T, "
	    "End.DX6, End.DX4, End.DT6, End.DT4, End.DT46, End.DX2, End.B6, "
	    "End.B6.Encaps, End.B6.Encaps.Red, End.M.GTP6.D, End.M.GTP6.Di, "
	    "End.M.GTP6.E, End.M.GTP4.E, End.AS, End.AD, End.AM, End.OP or "
	    "End.MAP)");
	BAD("queue 0\nsid fc00::1 action End.DT2U\n",
	    "t.conf:2: sid: unknown behavior 'End.DT2U' (expected End, End.X, "
	    "End.T, End.DX6, End.DX4, End.DT6, End.DT4, End.DT46, End.DX2, "
	    "End.B6, End.B6.Encaps, End.B6.Encaps.Red, End.M.GTP6.D, "
	    "End.M.GTP6.Di, End.M.GTP6.E, End.M.GTP4.E, End.AS, End.AD, End.AM, "
	    "End.OP or End.MAP)");
	BAD("queue 0\nsid fc00::1 action End flavors\n",
	    "t.conf:2: sid: 'flavors' needs an argument (a list like psp,usd)");
	BAD("queue 0\nsid fc00::1 action End.X nh6\n",
	    "t.conf:2: sid: 'nh6' needs an argument (an IPv6 address)");
	BAD("queue 0\nsid fc00::1 action End counters\n",
	    "t.conf:2: sid: unknown attribute 'counters' (expected flavors, lblen, "
	    "nflen, nh6, nh4, oif, table, vrftable, v4src-position, iif, source "
	    "or segs)");
	BAD("queue 0\nsid fc00::1 action End.T table 1 table 2\n",
	    "t.conf:2: sid: 'table' given twice");
	BAD("queue 0\nencap-source fc00::1\nroute fc00:9::/32\n",
	    "t.conf:3: route: missing 'encap seg6 mode MODE segs SEGMENTS' after "
	    "the prefix");
	BAD("queue 0\nencap-source fc00::1\nroute fc00:9::/32 via fc00::1\n",
	    "t.conf:3: route: expected 'encap' after the prefix, found 'via'");
	BAD("queue 0\nencap-source fc00::1\nroute fc00:9::/32 encap\n",
	    "t.conf:3: route: 'encap' needs a type (seg6)");
	BAD("queue 0\nencap-source fc00::1\nroute fc00:9::/32 encap mpls\n",
	    "t.conf:3: route: expected encapsulation type seg6 or gtp4, found "
	    "'mpls'");
	BAD("queue 0\nencap-source fc00::1\nroute fc00:9::/32 encap seg6\n",
	    "t.conf:3: route: missing 'mode MODE' (encap, encap.red, inline or "
	    "inline.red)",
	    "t.conf:3: route: missing 'segs SEGMENTS' (comma-separated IPv6 "
	    "addresses)");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap segs\n",
	    "t.conf:3: route: 'segs' needs an argument (comma-separated IPv6 "
	    "addresses)");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap segs fc00::1 tag 1\n",
	    "t.conf:3: route: unknown attribute 'tag' (expected mode, segs, "
	    "weight or hmac)");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap mode inline segs fc00::1\n",
	    "t.conf:3: route: 'mode' given twice");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode tunnel segs fc00::1\n",
	    "t.conf:3: route: unknown mode 'tunnel' (expected encap, encap.red, "
	    "inline or inline.red)");
}
END_TEST

START_TEST(test_err_addresses)
{
	BAD("queue 0\nencap-source 10.0.0.1\n",
	    "t.conf:2: encap-source: expected an IPv6 address, found '10.0.0.1'");
	BAD("queue 0\nencap-source ::\n",
	    "t.conf:2: encap-source: :: is not a unicast address");
	BAD("queue 0\nsid fc00::zz action End\n",
	    "t.conf:2: sid: expected an IPv6 prefix like fc00:100::1/128, found "
	    "'fc00::zz'");
	BAD("queue 0\nsid 10.0.0.1/32 action End\n",
	    "t.conf:2: sid: expected an IPv6 prefix, found IPv4 '10.0.0.1/32'");
	BAD("queue 0\nsid fc00::1/129 action End\n",
	    "t.conf:2: sid: prefix length 129 is out of range (0-128)");
	BAD("queue 0\nsid fc00::1/ action End\n",
	    "t.conf:2: sid: expected a prefix length after '/', found ''");
	BAD("queue 0\nsid fc00::1/064 action End\n",
	    "t.conf:2: sid: expected a prefix length after '/', found '064'");
	BAD("queue 0\nsid fc00:100::1/64 action End\n",
	    "t.conf:2: sid: fc00:100::1/64 has host bits set past /64 (did you "
	    "mean fc00:100::/64?)");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route 10.9.1.1/24 encap seg6 mode encap segs fc00::1\n",
	    "t.conf:3: route: 10.9.1.1/24 has host bits set past /24 (did you "
	    "mean 10.9.1.0/24?)");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route 10.9.1.0/33 encap seg6 mode encap segs fc00::1\n",
	    "t.conf:3: route: prefix length 33 is out of range (0-32)");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route 10.9.1 encap seg6 mode encap segs fc00::1\n",
	    "t.conf:3: route: expected an IPv6 or IPv4 prefix like fc00:9::/48 "
	    "or 10.9.0.0/16, found '10.9.1'");
	BAD("queue 0\nsid fc00::1 action End.X nh6 fc00::g\n",
	    "t.conf:2: sid: expected an IPv6 address after 'nh6', found 'fc00::g'");
	BAD("queue 0\nsid fc00::1 action End.X nh6 ff02::2\n",
	    "t.conf:2: sid: nh6 ff02::2 is not a unicast address");
	BAD("queue 0\nsid fc00::1 action End.X nh6 fc00::2 oif this-name-is-too-long\n",
	    "t.conf:2: sid: oif 'this-name-is-too-long' is not a valid interface "
	    "name (1-15 characters, no '/' or ':')");
	BAD("queue 0\ntun-name ..\n",
	    "t.conf:2: tun-name: '..' is not a valid interface name (1-15 "
	    "characters, no '/' or ':')");
	/* Unprintable bytes are escaped, long words cut. */
	BAD("queue 0\nsid \x01\x7f action End\n",
	    "t.conf:2: sid: expected an IPv6 prefix like fc00:100::1/128, found "
	    "'\\x01\\x7f'");
	BAD("queue 0\nfoo0123456789012345678901234567890123456789012345678901234\n",
	    "t.conf:2: unknown directive 'foo012345678901234567890123456789012345"
	    "678901234...' (expected " DIRECTIVES ")");
}
END_TEST

START_TEST(test_err_queue)
{
	BAD("queue 0\nqueue 1\n",
	    "t.conf:2: duplicate 'queue' directive (first at line 1)");
	BAD("queue 3-1\n",
	    "t.conf:1: queue: range 3-1 is reversed (the first queue must not be "
	    "greater than the last)");
	BAD("queue 65536\n", "t.conf:1: queue: 65536 is out of range (0-65535)");
	BAD("queue 1-70000\n", "t.conf:1: queue: 70000 is out of range (0-65535)");
	BAD("queue 0-64\n", "t.conf:1: queue: range 0-64 has 65 queues, at most 64");
	BAD("queue -1\n", "t.conf:1: queue: expected a queue number or a range "
	    "like 0-3, found '-1'");
	BAD("queue 1-\n", "t.conf:1: queue: expected a queue number or a range "
	    "like 0-3, found '1-'");
	BAD("queue 1-2-3\n", "t.conf:1: queue: expected a queue number or a "
	    "range like 0-3, found '1-2-3'");
	BAD("queue 1-x\n", "t.conf:1: queue: expected a number, found 'x'");
	BAD("queue one\n", "t.conf:1: queue: expected a number, found 'one'");
	BAD("encap-source fc00::1\n",
	    "t.conf: missing 'queue' directive (the NFQUEUE number or range to "
	    "serve, like 'queue 0-3')");
	BAD("", "t.conf: missing 'queue' directive (the NFQUEUE number or range "
	    "to serve, like 'queue 0-3')");
}
END_TEST

START_TEST(test_err_numbers)
{
	BAD("queue 0\nicmp-rate 1000001\n",
	    "t.conf:2: icmp-rate: 1000001 is out of range (0-1000000)");
	BAD("queue 0\nicmp-burst 0\n",
	    "t.conf:2: icmp-burst: 0 is out of range (1-1000000)");
	BAD("queue 0\nrule-priority 0\n",
	    "t.conf:2: rule-priority: 0 is out of range (1-32761)");
	BAD("queue 0\nrule-priority 32762\n",
	    "t.conf:2: rule-priority: 32762 is out of range (1-32761)");
	BAD("queue 0\nmark-base 0x100000000\n",
	    "t.conf:2: mark-base: 0x100000000 is out of range (0-4294967295)");
	BAD("queue 0\nmark-base 99999999999999999999999\n",
	    "t.conf:2: mark-base: 99999999999999999999999 is out of range "
	    "(0-4294967295)");
	BAD("queue 0\nmark-base 0x\n",
	    "t.conf:2: mark-base: expected a number, found '0x'");
	BAD("queue 0\nmark-base +5\n",
	    "t.conf:2: mark-base: expected a number, found '+5'");
	BAD("queue 0\nsid fc00::1 action End.T table 0\n",
	    "t.conf:2: sid: table 0 is out of range (1-4294967295)");
	BAD("queue 0\nsid fc00::1 action End.T table 4294967296\n",
	    "t.conf:2: sid: table 4294967296 is out of range (1-4294967295)");
	BAD("queue 0\nsid fc00::1 action End.T table main\n",
	    "t.conf:2: sid: expected a number after 'table', found 'main'");
	BAD("queue 0\nmark-base 1000\nmark-base 2000\n",
	    "t.conf:3: duplicate 'mark-base' directive (first at line 2)");
}
END_TEST

START_TEST(test_err_combinations)
{
	BAD("queue 0\nsid fc00::1 action End nh6 fc00::2\n",
	    "t.conf:2: sid: 'nh6' is only valid with End.X, End.DX6, End.AS, "
	    "End.AD, End.AM or End.MAP, not with End");
	BAD("queue 0\nsid fc00::1 action End.T table 5 oif eth0\n",
	    "t.conf:2: sid: 'oif' is only valid with End.X, End.DX6, End.DX4, "
	    "End.DX2, End.AS, End.AD or End.AM, not with End.T");
	BAD("queue 0\nsid fc00::1 action End.X nh6 fc00::2 table 5\n",
	    "t.conf:2: sid: 'table' is only valid with End.T, End.DT6, End.DT4 or "
	    "End.DT46, not with End.X");
	BAD("queue 0\nsid fc00::1 action End.X\n",
	    "t.conf:2: sid: End.X needs 'nh6 ADDRESS' (the adjacency's next hop)");
	BAD("queue 0\nsid fc00::1 action End.X nh6 fe80::1:2\n",
	    "t.conf:2: sid: nh6 fe80::1:2 is link-local: 'oif IFNAME' is "
	    "required with it");
	BAD("queue 0\nsid fc00::1 action End.X oif eth0\n",
	    "t.conf:2: sid: End.X needs 'nh6 ADDRESS' (the adjacency's next hop)");
	BAD("queue 0\nsid fc00::1 action End.MAP\n",
	    "t.conf:2: sid: End.MAP needs 'nh6 ADDRESS' (the mapped SID the "
	    "destination becomes)");
	BAD("queue 0\nsid fc00::1 action End.MAP nh6 fe80::1\n",
	    "t.conf:2: sid: nh6 fe80::1 is link-local: End.MAP's mapped SID "
	    "must be routable");
	BAD("queue 0\nsid fc00::1 action End.MAP nh6 fc00::2 oif eth0\n",
	    "t.conf:2: sid: 'oif' is only valid with End.X, End.DX6, End.DX4, "
	    "End.DX2, End.AS, End.AD or End.AM, not with End.MAP");
	BAD("queue 0\nsid fc00::1 action End.T\n",
	    "t.conf:2: sid: End.T needs 'table N' (the table to look up)");
	BAD("queue 0\nsid fc00::1 action End.T table 9 flavors next-csid\n",
	    "t.conf:2: sid: flavor next-csid is only valid with End and End.X, "
	    "not with End.T");
	BAD("queue 0\nsid fc00::1 action End lblen 32\n",
	    "t.conf:2: sid: 'lblen' is only valid with flavor next-csid or "
	    "replace-csid");
	BAD("queue 0\nsid fc00::1 action End flavors psp nflen 16\n",
	    "t.conf:2: sid: 'nflen' is only valid with flavor next-csid or "
	    "replace-csid");
	/* REPLACE-C-SID (RFC 9800 4.2, 5.1). */
	BAD("queue 0\nsid fc00::/64 action End flavors replace-csid nflen 24\n",
	    "t.conf:2: sid: nflen 24: a replace-csid C-SID is 16 or 32 bits "
	    "(RFC 9800 5.1)");
	BAD("queue 0\nsid fc00::/64 action End flavors replace-csid,next-csid\n",
	    "t.conf:2: sid: flavors next-csid and replace-csid exclude each "
	    "other (RFC 9800 4: one C-SID flavor per SID)");
	BAD("queue 0\nsid fc00::/128 action End flavors replace-csid lblen 96 "
	    "nflen 32\n",
	    "t.conf:2: sid: lblen 96 + nflen 32 leaves no room for the "
	    "replace-csid index");
	BAD("queue 0\nsid fc00::/64 action End flavors replace-csid\n",
	    "t.conf:2: sid: prefix length /64 is shorter than lblen 48 + nflen 32 "
	    "(a NEXT-C-SID prefix covers both)");
	BAD("queue 0\nsid fc00::/80 action End.DT6 table 9 flavors replace-csid\n",
	    "t.conf:2: sid: 'flavors' is only valid with End, End.X or End.T, "
	    "not with End.DT6");
	BAD("queue 0\nsid fc00::/64 action End flavors next-csid lblen 36\n",
	    "t.conf:2: sid: lblen 36 is not a multiple of 8");
	BAD("queue 0\nsid fc00::/64 action End flavors next-csid nflen 0\n",
	    "t.conf:2: sid: nflen 0 is out of range (8-120)");
	BAD("queue 0\nsid fc00::/128 action End flavors next-csid lblen 120 nflen 16\n",
	    "t.conf:2: sid: lblen 120 + nflen 16 is more than 128 bits");
	BAD("queue 0\nsid fc00::/40 action End flavors next-csid\n",
	    "t.conf:2: sid: prefix length /40 is shorter than lblen 32 + nflen 16 "
	    "(a NEXT-C-SID prefix covers both)");
	BAD("queue 0\nsid fc00::/64 action End flavors psp,,usd\n",
	    "t.conf:2: sid: empty flavor in list 'psp,,usd'");
	BAD("queue 0\nsid fc00::/64 action End flavors psp,psp\n",
	    "t.conf:2: sid: flavor psp listed twice");
	BAD("queue 0\nsid fc00::/64 action End flavors PSP,reduced\n",
	    "t.conf:2: sid: unknown flavor 'PSP' (expected psp, usp, usd, "
	    "next-csid or replace-csid)",
	    "t.conf:2: sid: unknown flavor 'reduced' (expected psp, usp, usd, "
	    "next-csid or replace-csid)");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route 10.9.0.0/16 encap seg6 mode inline segs fc00::2\n"
	    "route 10.8.0.0/16 encap seg6 mode inline.red segs fc00::2\n",
	    "t.conf:3: route: mode inline needs an IPv6 prefix (10.9.0.0/16 is "
	    "IPv4; use encap or encap.red)",
	    "t.conf:4: route: mode inline.red needs an IPv6 prefix (10.8.0.0/16 "
	    "is IPv4; use encap or encap.red)");
}
END_TEST

START_TEST(test_err_segments)
{
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap segs ,fc00::2\n",
	    "t.conf:3: route: empty segment in list ',fc00::2'");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap segs fc00::2,\n",
	    "t.conf:3: route: empty segment in list 'fc00::2,'");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap segs "
	    "a::1,a::2,a::3,a::4,a::5,a::6,a::7,a::8,a::9,a::a,a::b,a::c,a::d,"
	    "a::e,a::f,a::10,a::11\n",
	    "t.conf:3: route: too many segments (17, at most 16)");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route fc00:9::/32 encap seg6 mode encap segs fc00::2,10.0.0.1,ff0e::1\n",
	    "t.conf:3: route: expected an IPv6 address in segs, found '10.0.0.1'",
	    "t.conf:3: route: segment ff0e::1 is not a unicast address");
}
END_TEST

/* encap-source is optional: the source is picked per egress (egress.h). */
START_TEST(test_no_encap_source)
{
	struct config *cfg = parse_ok("queue 0\n"
		"route fc00:9::/32 encap seg6 mode encap segs fc00::2\n"
		"route 10.9.0.0/16 encap seg6 mode encap.red segs fc00::2\n");
	static const struct in6_addr unspec;

	ck_assert(!cfg->has_encap_source);
	ck_assert_uint_eq(cfg->npolicies, 2);
	ck_assert(!memcmp(&cfg->encap_source, &unspec, sizeof(unspec)));
	config_free(cfg);
}
END_TEST

START_TEST(test_err_overlaps)
{
	BAD("queue 0\nsid fc00::1 action End\nsid fc00::1/128 action End.T table 3\n",
	    "t.conf:3: sid fc00::1/128 is already defined at line 2");
	/* A SID inside another is no error: the longest prefix covering
	 * a destination takes the packet, as the kernel's seg6local routes
	 * (an FRR uA inside its node's uN locator), whichever comes first. */
	{
		const char *const files[] = {
			"queue 0\nsid fc00:1::/48 action End flavors next-csid\n"
			"sid fc00:1:0:5::/64 action End.X nh6 fc00:12::2\n"
			"sid ::/0 action End\n",
			"queue 0\nsid ::/0 action End\n"
			"sid fc00:1:0:5::/64 action End.X nh6 fc00:12::2\n"
			"sid fc00:1::/48 action End flavors next-csid\n",
		};
		for (unsigned f = 0; f < 2; f++) {
			struct config *c = parse_ok(files[f]);
			struct in6_addr a;
			const struct sid *s;

			ck_assert_int_eq(inet_pton(AF_INET6, "fc00:1:0:5::9", &a), 1);
			s = lpm_lookup(c->sid_table, &a);
			ck_assert_int_eq(s->behavior, BHV_END_X);
			ck_assert_uint_eq(s->plen, 64);
			ck_assert_int_eq(inet_pton(AF_INET6, "fc00:1:0:6::9", &a), 1);
			s = lpm_lookup(c->sid_table, &a);
			ck_assert_int_eq(s->behavior, BHV_END);
			ck_assert_uint_eq(s->plen, 48);
			ck_assert_int_eq(inet_pton(AF_INET6, "fc00:2::9", &a), 1);
			s = lpm_lookup(c->sid_table, &a);
			ck_assert_uint_eq(s->plen, 0);
			config_free(c);
		}
	}
	BAD("queue 0\nencap-source fc00::1\n"
	    "route 10.0.0.0/8 encap seg6 mode encap segs fc00::2\n"
	    "route fc00:9::/32 encap seg6 mode encap segs fc00::2\n"
	    "route 10.0.0.0/8 encap seg6 mode encap.red segs fc00::3\n"
	    "route fc00:9::/32 encap seg6 mode inline segs fc00::3\n"
	    "route 10.0.0.0/9 encap seg6 mode encap segs fc00::2\n",
	    "t.conf:5: route 10.0.0.0/8 is already defined at line 3",
	    "t.conf:6: route fc00:9::/32 is already defined at line 4");
	/* Once per table: a duplicate in one table is still an error. */
	BAD("queue 0\nencap-source fc00::1\n"
	    "route 10.0.0.0/8 table 7 encap seg6 mode encap segs fc00::2\n"
	    "route 10.0.0.0/8 encap seg6 mode encap segs fc00::2\n"
	    "route 10.0.0.0/8 encap seg6 mode encap segs fc00::3 table 7\n"
	    "route fc00:9::/32 table main encap seg6 mode encap segs fc00::2\n"
	    "route fc00:9::/32 encap seg6 mode encap segs fc00::2\n",
	    "t.conf:5: route 10.0.0.0/8 table 7 is already defined at line 3",
	    "t.conf:7: route fc00:9::/32 is already defined at line 6");
	BAD("queue 0\nencap-source fc00::1\n"
	    "route 10.0.0.0/8 table 0 encap seg6 mode encap segs fc00::2\n"
	    "route 10.0.0.0/8 table x encap seg6 mode encap segs fc00::2\n"
	    "route 10.0.0.0/8 table 4294967296 encap seg6 mode encap segs fc00::2\n"
	    "route 10.0.0.0/8 table 1 encap seg6 mode encap segs fc00::2 table 2\n",
	    "t.conf:3: route: table 0 is out of range (1-4294967295)",
	    "t.conf:4: route: expected a number after 'table', found 'x'",
	    "t.conf:5: route: table 4294967296 is out of range (1-4294967295)",
	    "t.conf:6: route: 'table' given twice");
	BAD("queue 0\nencap-source fc00::1\n"
	    "sid fc00:100::/48 action End\n"
	    "sid fc00:200::1 action End\n"
	    "sid fc00:300::/64 action End\n"
	    "route fc00:100:0:1::/64 encap seg6 mode encap segs fc00::2\n"
	    "route fc00:200::/32 encap seg6 mode encap segs fc00::2\n"
	    "route fc00:300::/64 encap seg6 mode encap segs fc00::2\n"
	    "route fc00:400::/32 encap seg6 mode encap segs fc00::2\n",
	    "t.conf:6: route fc00:100:0:1::/64 is inside sid fc00:100::/48 at line 3 "
	    "(a packet to it would match both)",
	    "t.conf:8: route fc00:300::/64 is the same prefix as sid fc00:300::/64 "
	    "at line 5 (a packet to it would match both)",
	    "t.conf:7: route fc00:200::/32 contains sid fc00:200::1/128 at line 4 "
	    "(a packet to it would match both)");
	/* An IPv4 route never overlaps a SID, even a v4-mapped one. */
	struct config *cfg = parse_ok("queue 0\nencap-source fc00::1\n"
				      "sid ::ffff:10.0.0.0/104 action End\n"
				      "route 10.0.0.0/8 encap seg6 mode encap segs fc00::2\n");
	config_free(cfg);
}
END_TEST

START_TEST(test_err_marks)
{
	BAD("queue 0\nmark-base 255\n",
	    "t.conf:2: mark-base: 255 is out of range (256-4294901760): srv6d "
	    "owns the 65536 marks and tables from mark-base on, which must not "
	    "include tables 253-255 nor pass 32 bits");
	BAD("queue 0\nmark-base 0xffff0001\n",
	    "t.conf:2: mark-base: 0xffff0001 is out of range (256-4294901760): "
	    "srv6d owns the 65536 marks and tables from mark-base on, which must "
	    "not include tables 253-255 nor pass 32 bits");
	BAD("queue 0\nmark-base 1000\n"
	    "sid fc00::1 action End.X nh6 fc00::9\n"
	    "sid fc00::2 action End.T table 1001\n"
	    "sid fc00::3 action End.T table 1000\n"
	    "sid fc00::4 action End.T table 66535\n",
	    "t.conf:4: sid fc00::2/128: table 1001 is in the range srv6d owns "
	    "(mark-base 1000 to 66535); use another table or mark-base",
	    "t.conf:5: sid fc00::3/128: table 1000 is in the range srv6d owns "
	    "(mark-base 1000 to 66535); use another table or mark-base",
	    "t.conf:6: sid fc00::4/128: table 66535 is in the range srv6d owns "
	    "(mark-base 1000 to 66535); use another table or mark-base");
}
END_TEST

/* As many SIDs as there are marks (mark-mask 0xffffffff), the highest
 * mark 2^32-1; one more is an error (reported once).  Under the default
 * mark-mask, as many as it leaves offsets (8848), one more an error that
 * says how many. */
START_TEST(test_max_sids)
{
	size_t cap = 80 * (CONFIG_MAX_SIDS + 3), n;
	char *text = malloc(cap);
	struct config *cfg;

	n = (size_t)snprintf(text, cap, "queue 0\nmark-mask 0xffffffff\n"
			     "mark-base 0x7fff0000\n");
	for (unsigned i = 0; i < CONFIG_MAX_SIDS - 1; i++)
		n += (size_t)snprintf(text + n, cap - n,
				      "sid fc00::%x:%x action End\n", i >> 16,
				      i & 0xffff);
	n += (size_t)snprintf(text + n, cap - n,
			      "sid fc00:1::1 action End.T table 7\n");
	cfg = parse_ok(text);
	ck_assert_uint_eq(cfg->nsids, CONFIG_MAX_SIDS);
	ck_assert_uint_eq(marks_of(cfg, CONFIG_MAX_SIDS - 1).mark, 0x7fffffffu);
	config_free(cfg);

	n += (size_t)snprintf(text + n, cap - n, "sid fc00:1::2 action End\n"
			      "sid fc00:1::3 action End\n");
	check_bad_len(text, n, (const char *const[]){
		"t.conf:65539: sid: too many SIDs (at most 65535: each may need "
		"one of the 65536 marks from mark-base on)", NULL });

	n = (size_t)snprintf(text, cap, "queue 0\n");
	for (unsigned i = 0; i < 8847; i++)
		n += (size_t)snprintf(text + n, cap - n,
				      "sid fc00::%x:%x action End\n", i >> 16,
				      i & 0xffff);
	n += (size_t)snprintf(text + n, cap - n,
			      "sid fc00:1::1 action End.T table 7\n");
	cfg = parse_ok(text);
	ck_assert_uint_eq(cfg->nsids, cfg->mark_count - 1);
	ck_assert_uint_eq(marks_of(cfg, 8847).mark, 0x5d6f0000u + 8848);
	ck_assert_uint_eq(config_mark_value(cfg, marks_of(cfg, 8847).mark),
			  0x7fff0000u);
	config_free(cfg);
	n += (size_t)snprintf(text + n, cap - n, "sid fc00:1::2 action End\n");
	check_bad_len(text, n, (const char *const[]){
		"t.conf: 8849 SIDs need more marks than the 8848 mark-base "
		"0x5d6f0000 leaves under the default mark-mask 0xffff0000 below "
		"its bounce bit: widen mark-mask or lower mark-base", NULL });
	free(text);
}
END_TEST

START_TEST(test_err_lines)
{
	static const char nul[] = "queue 0\nsid fc00::1 action\0End\nicmp-rate x\n";
	char *big = malloc(CONFIG_MAX_LINE + 64);
	size_t n;

	/* Too long by one byte, then the next line is parsed as usual. */
	memcpy(big, "queue 0\n", 8);
	memset(big + 8, ' ', CONFIG_MAX_LINE + 1);
	n = 8 + CONFIG_MAX_LINE + 1;
	memcpy(big + n, "\nfoo\n", 6);
	check_bad_len(big, strlen(big), (const char *const[]){
		"t.conf:2: line is too long (4097 bytes, at most 4096)",
		"t.conf:3: unknown directive 'foo' (expected " DIRECTIVES ")",
		NULL });
	free(big);

	check_bad_len(nul, sizeof(nul) - 1, (const char *const[]){
		"t.conf:2: line contains a NUL byte (not a text file?)",
		"t.conf:3: icmp-rate: expected a number, found 'x'", NULL });

	BAD("queue 0\nsid fc00::1 action End flavors psp "
	    "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 "
	    "26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 "
	    "48 49 50 51 52 53 54 55 56 57 58 59\n",
	    "t.conf:2: too many words on the line (at most 64)");
}
END_TEST

START_TEST(test_err_many)
{
	/* Every error in the file, in line order, then the whole-file ones. */
	BAD("queue 3-1\n"
	    "queue 0\n"
	    "bogus\n"
	    "encap-source 10.0.0.1\n"
	    "sid fc00:100::1/64 action End\n"
	    "sid fc00:100::7 action End.X\n"
	    "sid fc00:100::2 action End.T table 0 nh6 ff02::1\n"
	    "route 10.9.1.0/24 encap seg6 mode inline segs fc00::1\n"
	    "sid fc00:100::9 action End\n"
	    "sid fc00:100::9 action End\n"
	    "route fc00:100::/32 encap seg6 mode encap segs fc00::1\n"
	    "tun-name a/b\n",
	    "t.conf:1: queue: range 3-1 is reversed (the first queue must not be "
	    "greater than the last)",
	    "t.conf:2: duplicate 'queue' directive (first at line 1)",
	    "t.conf:3: unknown directive 'bogus' (expected " DIRECTIVES ")",
	    "t.conf:4: encap-source: expected an IPv6 address, found '10.0.0.1'",
	    "t.conf:5: sid: fc00:100::1/64 has host bits set past /64 (did you "
	    "mean fc00:100::/64?)",
	    "t.conf:6: sid: End.X needs 'nh6 ADDRESS' (the adjacency's next hop)",
	    "t.conf:7: sid: table 0 is out of range (1-4294967295)",
	    "t.conf:7: sid: nh6 ff02::1 is not a unicast address",
	    "t.conf:8: route: mode inline needs an IPv6 prefix (10.9.1.0/24 is "
	    "IPv4; use encap or encap.red)",
	    "t.conf:12: tun-name: 'a/b' is not a valid interface name (1-15 "
	    "characters, no '/' or ':')",
	    "t.conf:10: sid fc00:100::9/128 is already defined at line 9",
	    "t.conf:11: route fc00:100::/32 contains sid fc00:100::9/128 at line 9 "
	    "(a packet to it would match both)");
}
END_TEST

START_TEST(test_err_default_printer)
{
	/* err == NULL: messages go to stderr, the result is still NULL. */
	ck_assert_ptr_null(config_parse_buffer("x.conf", "queue 0\nx\n", 10,
					       NULL, NULL));
}
END_TEST

/* The behavior table: a row for every behavior, names unique and found
 * again, and the columns that must agree do (rtrules.c and reinject.c
 * read different ones for the same SID). */
/* REPLACE-C-SID (RFC 9800 4.2) on End, End.X and End.T, the lengths
 * given or the 5.1/5.2 defaults (48-bit block, 32-bit C-SIDs). */
START_TEST(test_replace_csid)
{
	struct config *cfg = parse_ok(
		"queue 0\n"
		"sid 2001:db8:0:1::/80 action End flavors replace-csid\n"
		"sid 2001:db8:0:2::/64 action End.X nh6 fe80::1 oif v0 "
		"flavors psp,replace-csid lblen 48 nflen 16\n"
		"sid 2001:db8:0:3::/80 action End.T table 9 flavors "
		"replace-csid,usd\n");
	const struct sid *s = cfg->sids;

	ck_assert_uint_eq(s[0].flavors, FLV_REPLACE_CSID);
	ck_assert_uint_eq(s[0].lblen, RCSID_DEFAULT_LBLEN);
	ck_assert_uint_eq(s[0].nflen, RCSID_DEFAULT_NFLEN);
	ck_assert_uint_eq(s[0].lblen, 48);
	ck_assert_uint_eq(s[0].nflen, 32);
	ck_assert_uint_eq(s[1].flavors, FLV_PSP | FLV_REPLACE_CSID);
	ck_assert_uint_eq(s[1].lblen, 48);
	ck_assert_uint_eq(s[1].nflen, 16);
	ck_assert_int_eq(s[2].behavior, BHV_END_T);
	ck_assert_uint_eq(s[2].flavors, FLV_REPLACE_CSID | FLV_USD);
	config_free(cfg);
}
END_TEST

START_TEST(test_behavior_table)
{
	for (unsigned b = 0; b < BHV__COUNT; b++) {
		const struct behavior_desc *d = behavior_desc((enum behavior)b);
		enum behavior found = BHV__COUNT;

		ck_assert_ptr_nonnull(d);
		ck_assert_ptr_nonnull(d->name);
		/* an alias (End.AS with nh4) is found as its IPv6 row */
		ck_assert_ptr_eq(behavior_desc_by_name(d->name, &found),
				 d->alias ? behavior_desc((enum behavior)(b - 1)) :
					    d);
		ck_assert_int_eq(found, d->alias ? b - 1 : b);
		if (d->v4)
			ck_assert(behavior_desc(d->v4)->alias &&
				  !strcmp(behavior_desc(d->v4)->name, d->name));
		ck_assert_str_eq(behavior_name((enum behavior)b), d->name);
		/* an IPv6 rule exactly where `reinject tun` needs a device */
		ck_assert_int_eq(!!(d->setup & BHV_RULE6),
				 !!(d->setup & BHV_DEV6_TUN));
		if (d->setup & (BHV_RULE6 | BHV_DEV4 | BHV_DEV4_USD))
			ck_assert(behavior_routes_by_mark(d));
		if (d->setup & BHV_DEV4)
			ck_assert(d->decap == BHV_DECAP_IPV4 ||
				  d->decap == BHV_DECAP_IP);
		if (d->setup & BHV_DEV4_USD)
			ck_assert(d->flavors & FLV_USD);
		if (d->setup & BHV_RULE_UNREACHABLE)
			ck_assert_int_eq(d->no_route, BHV_NOROUTE_HANDOFF);
		if (d->no_route == BHV_NOROUTE_HANDOFF)
			ck_assert_int_eq(d->route, BHV_ROUTE_TABLE);
		ck_assert_int_eq(d->needs & ~d->attrs, 0);
		ck_assert(!d->needs || d->needs_why);
		if (d->binding)
			ck_assert_int_eq(d->attrs, 0);
		ck_assert_int_eq(d->unmarked, d->route == BHV_ROUTE_MAIN);
	}
	ck_assert_ptr_null(behavior_desc(BHV__COUNT));
	ck_assert(!behavior_is_decap(BHV__COUNT));
	ck_assert(behavior_is_decap(BHV_END_DX2));
	ck_assert(!behavior_is_decap(BHV_END_B6));
	ck_assert(behavior_is_binding(BHV_END_B6_ENCAPS_RED));
	ck_assert(!behavior_is_binding(BHV_END_X));
}
END_TEST

/* A kernel route's SID as seg6route.c gives it: line 0. */
static struct sid ksid(const char *prefix, unsigned plen, enum behavior b)
{
	struct sid s = { .plen = (uint8_t)plen, .behavior = b,
			 .ktable = 254 };

	ck_assert_int_eq(inet_pton(AF_INET6, prefix, &s.prefix), 1);
	if (b == BHV_END_X)
		ck_assert_int_eq(inet_pton(AF_INET6, "fc00:12::2", &s.nh6), 1);
	return s;
}

/* srv6d.conf wins over a kernel SID at the same or an overlapping
 * prefix, and over one around or inside its IPv6 policies; the first
 * kernel SID over a later one; one srv6d cannot apply is refused; the
 * rest is applied after the file's SIDs, with its table. */
START_TEST(test_merge_kernel)
{
	struct config *file = parse_ok("queue 0\nkernel-routes yes\n"
		"sid fc00::1/128 action End\n"
		"route 10.0.0.0/8 encap seg6 mode encap segs fc00::b\n"
		"route fc05::/16 encap seg6 mode encap segs fc00::b\n"
		"route fc06:1::/32 encap seg6 mode encap segs fc00::b\n");
	struct sid ks[] = {
		ksid("fc00::1", 128, BHV_END_X),	/* the file's SID */
		ksid("fc00:2::", 64, BHV_END),		/* applied */
		ksid("fc00:2::", 96, BHV_END),		/* inside it: applied */
		ksid("fc05:1::", 64, BHV_END),		/* inside a file route */
		ksid("fc00:3::1", 128, BHV_END_X),	/* applied */
		ksid("fc06::", 16, BHV_END),		/* around a file route */
		ksid("fc00:4::6", 128, BHV_END_DT6),	/* srv6d's table */
	};
	struct config_kroute_result res[7];
	struct in6_addr a;
	const struct sid *s;
	struct config *cfg;
	char err[256];

	ck_assert(file->kernel_routes);
	ks[6].table = CONFIG_DEFAULT_MARK_BASE + 5;
	cfg = config_merge_kernel(file, ks, 7, res, err, sizeof(err));
	ck_assert_msg(cfg != NULL, "%s", err);
	ck_assert_int_eq(res[0].status, CONFIG_KROUTE_SHADOWED);
	ck_assert_str_eq(res[0].why, "the same SID is in srv6d.conf");
	ck_assert_uint_eq(res[0].line, 3);
	ck_assert_int_eq(res[1].status, CONFIG_KROUTE_APPLIED);
	ck_assert_int_eq(res[2].status, CONFIG_KROUTE_APPLIED);
	ck_assert_int_eq(res[3].status, CONFIG_KROUTE_SHADOWED);
	ck_assert_str_eq(res[3].why, "a SID inside a policy of srv6d.conf");
	ck_assert_uint_eq(res[3].line, 5);
	ck_assert_int_eq(res[4].status, CONFIG_KROUTE_APPLIED);
	ck_assert_int_eq(res[5].status, CONFIG_KROUTE_SHADOWED);
	ck_assert_str_eq(res[5].why, "a SID around a policy of srv6d.conf");
	ck_assert_uint_eq(res[5].line, 6);
	ck_assert_int_eq(res[6].status, CONFIG_KROUTE_REFUSED);
	ck_assert_str_eq(res[6].why, "its table is in the range srv6d owns");
	/* the file's first, then the kernel's, with marks and tables */
	ck_assert_uint_eq(cfg->nsids, 4);
	ck_assert_uint_eq(cfg->sids[0].ktable, 0);
	ck_assert_uint_eq(cfg->sids[0].line, 3);
	ck_assert_uint_eq(cfg->sids[3].ktable, 254);
	ck_assert_int_eq(cfg->sids[3].behavior, BHV_END_X);
	ck_assert_uint_eq(cfg->sids[3].index, 3);
	ck_assert_uint_eq(marks_of(cfg, 3).mark, cfg->mark_base + 4);
	ck_assert_uint_eq(marks_of(cfg, 3).route_table, cfg->mark_base + 4);
	/* the policies are the file's, none the kernel's */
	ck_assert_uint_eq(cfg->npolicies, 3);
	for (unsigned i = 0; i < cfg->npolicies; i++) {
		ck_assert_uint_eq(cfg->policies[i].ktable, 0);
		ck_assert_uint_eq(cfg->policies[i].line, 4 + i);
		ck_assert_uint_eq(cfg->policies[i].index, i);
	}
	/* the longest of the nested kernel SIDs */
	ck_assert_int_eq(inet_pton(AF_INET6, "fc00:2::77", &a), 1);
	s = lpm_lookup(cfg->sid_table, &a);
	ck_assert_ptr_eq(s, &cfg->sids[2]);
	ck_assert_int_eq(inet_pton(AF_INET6, "fc00:2::1:0:77", &a), 1);
	s = lpm_lookup(cfg->sid_table, &a);
	ck_assert_ptr_eq(s, &cfg->sids[1]);
	ck_assert(cfg->kernel_routes);
	/* the file config is untouched */
	ck_assert_uint_eq(file->nsids, 1);
	ck_assert_uint_eq(file->npolicies, 3);
	config_free(cfg);
	config_free(file);
}
END_TEST

/* Tenants: a SID is every table's, so a kernel SID inside a policy of any
 * table of srv6d.conf gives way; the merged config's policies and tables
 * are the file's, each table's lookups finding its own. */
START_TEST(test_merge_kernel_tables)
{
	struct config *file = parse_ok("queue 0\nkernel-routes yes\n"
		"route 10.1.2.0/24 table 101 encap seg6 mode encap segs fc00::b\n"
		"route fd01:2::/64 table 101 encap seg6 mode encap segs fc00::b\n"
		"route 10.9.0.0/16 encap seg6 mode encap segs fc00::b\n");
	struct sid ks[] = {
		ksid("fc00:7::", 48, BHV_END),		/* applied */
		ksid("fd01:2::5", 128, BHV_END),	/* in table 101's */
	};
	struct config_kroute_result res[2];
	const struct policy *p;
	struct in6_addr a6;
	struct in_addr a4;
	struct config *cfg;
	char err[256];

	cfg = config_merge_kernel(file, ks, 2, res, err, sizeof(err));
	ck_assert_msg(cfg != NULL, "%s", err);
	ck_assert_int_eq(res[0].status, CONFIG_KROUTE_APPLIED);
	ck_assert_int_eq(res[1].status, CONFIG_KROUTE_SHADOWED);
	ck_assert_str_eq(res[1].why, "a SID inside a policy of srv6d.conf");
	ck_assert_uint_eq(res[1].line, 4);
	ck_assert_uint_eq(cfg->nsids, 1);
	ck_assert_uint_eq(cfg->npolicies, 3);
	ck_assert_uint_eq(cfg->nptables, 2);
	ck_assert_int_eq(inet_pton(AF_INET, "10.1.2.7", &a4), 1);
	p = config_policy_lookup4(cfg, 101, a4);
	ck_assert_ptr_eq(p, &cfg->policies[0]);
	ck_assert_uint_eq(p->ktable, 0);
	ck_assert_ptr_null(config_policy_lookup4(cfg, 102, a4));
	ck_assert_ptr_null(config_policy_lookup4(cfg, 254, a4));
	ck_assert_int_eq(inet_pton(AF_INET, "10.9.3.4", &a4), 1);
	ck_assert_ptr_null(config_policy_lookup4(cfg, 101, a4));
	p = config_policy_lookup4(cfg, 254, a4);
	ck_assert_ptr_eq(p, &cfg->policies[2]);
	ck_assert_uint_eq(p->line, 5);
	ck_assert_int_eq(inet_pton(AF_INET6, "fd01:2::5", &a6), 1);
	p = config_policy_lookup6(cfg, 101, &a6);
	ck_assert_ptr_eq(p, &cfg->policies[1]);
	ck_assert_uint_eq(p->line, 4);
	ck_assert_ptr_null(config_policy_lookup6(cfg, 102, &a6));
	config_free(cfg);
	/* no kernel route (the daemon's start): the file's config */
	cfg = config_merge_kernel(file, NULL, 0, NULL, err, sizeof(err));
	ck_assert_msg(cfg != NULL, "%s", err);
	ck_assert_uint_eq(cfg->npolicies, 3);
	ck_assert_uint_eq(cfg->policies[2].line, 5);
	ck_assert_ptr_eq(config_policy_lookup4(cfg, 254, a4), &cfg->policies[2]);
	config_free(cfg);
	config_free(file);
}
END_TEST

/* header-queue: one per queue, apart from them, with gso yes; the copy
 * range within NFQUEUE's. */
START_TEST(test_header_queue)
{
	struct config *cfg = parse_ok("queue 0-1\nheader-queue 4-5\ngso yes\n");

	ck_assert(cfg->has_hqueue);
	ck_assert_uint_eq(cfg->hqueue_first, 4);
	ck_assert_uint_eq(cfg->hqueue_last, 5);
	ck_assert_uint_eq(cfg->hqueue_copy, CONFIG_HQ_COPY_DEFAULT);
	config_free(cfg);
	cfg = parse_ok("queue 3\nheader-queue 2 copy 128\ngso yes\n");
	ck_assert_uint_eq(cfg->hqueue_first, 2);
	ck_assert_uint_eq(cfg->hqueue_copy, 128);
	config_free(cfg);
	/* header-queue auto, the default: the queues after queue's */
	cfg = parse_ok("queue 3\ngso yes\n");
	ck_assert(cfg->has_hqueue && cfg->hqueue_auto);
	ck_assert_uint_eq(cfg->hqueue_first, 4);
	ck_assert_uint_eq(cfg->hqueue_last, 4);
	ck_assert_uint_eq(cfg->hqueue_copy, CONFIG_HQ_COPY_DEFAULT);
	ck_assert_uint_eq(cfg->hqueue_line, 0);
	config_free(cfg);
	cfg = parse_ok("queue 0-1\nheader-queue auto\n");
	ck_assert(cfg->has_hqueue);
	ck_assert_uint_eq(cfg->hqueue_first, 2);
	ck_assert_uint_eq(cfg->hqueue_last, 3);
	config_free(cfg);
	cfg = parse_ok("queue 65535\n");	/* no queue after it */
	ck_assert(!cfg->has_hqueue);
	config_free(cfg);
	cfg = parse_ok("queue 3\nheader-queue no\n");
	ck_assert(!cfg->has_hqueue && !cfg->hqueue_auto);
	config_free(cfg);
	cfg = parse_ok("queue 3\nsteering no\n");
	ck_assert(!cfg->has_hqueue);
	config_free(cfg);
	cfg = parse_ok("queue 3\noffload no\n");	/* no error: auto */
	ck_assert(!cfg->has_hqueue);
	config_free(cfg);
	BAD("queue 0-1\nheader-queue 4\ngso yes\n",
	    "t.conf:2: header-queue: 1 queues, but 'queue' has 2: each worker "
	    "serves one queue and one header queue");
	BAD("queue 0-3\nheader-queue 2-5\ngso yes\n",
	    "t.conf:2: header-queue: 2-5 overlaps the queues 0-3 of 'queue'");
	BAD("queue 0\nheader-queue 1\ngso no\n",
	    "t.conf:2: header-queue: a header queue is for super-packets, "
	    "which 'gso no' (line 3) turns off");
	BAD("queue 0\noffload no\nheader-queue 1\n",
	    "t.conf:3: header-queue: a header queue is for super-packets, "
	    "which 'offload no' (line 2) turns off");
	cfg = parse_ok("queue 0\nheader-queue 1\n");	/* offload yes */
	ck_assert(cfg->has_hqueue && cfg->gso);
	config_free(cfg);
	BAD("queue 0\nheader-queue 1 copy 127\ngso yes\n",
	    "t.conf:2: header-queue: copy 127 is out of range (128-65531)");
	BAD("queue 0\nheader-queue 1 size 512\ngso yes\n",
	    "t.conf:2: header-queue: expected 'copy BYTES' after the queues, "
	    "found 'size'");
	BAD("queue 0\nheader-queue 1 copy\ngso yes\n",
	    "t.conf:2: header-queue: expected 'copy BYTES' after the queues, "
	    "found 'copy'");
	BAD("queue 0\nheader-queue 2-1\ngso yes\n",
	    "t.conf:2: header-queue: range 2-1 is reversed (the first queue "
	    "must not be greater than the last)");
	BAD("queue 0\nheader-queue\ngso yes\n",
	    "t.conf:2: header-queue: missing argument (expected auto, no, or a "
	    "queue number or a range like 4-7, then optionally 'copy BYTES')");
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *good = tcase_create("good");
	TCase *bad = tcase_create("bad");

	tcase_add_test(good, test_full);
	tcase_add_test(good, test_behavior_table);
	tcase_add_test(good, test_replace_csid);
	tcase_add_test(good, test_lookups);
	tcase_add_test(good, test_route_tables);
	tcase_add_test(good, test_defaults);
	tcase_add_test(good, test_reinject_spellings);
	tcase_add_test(good, test_no_encap_source);
	tcase_add_test(good, test_runstate_none);
	tcase_add_test(good, test_marks_default_base);
	tcase_add_test(good, test_mark_mask);
	tcase_add_test(good, test_syntax_variants);
	tcase_add_test(good, test_names);
	tcase_add_test(good, test_parse_file);
	tcase_add_test(good, test_example_file);
	tcase_add_test(good, test_man_examples);
	tcase_add_test(good, test_decap_sids);
	tcase_add_test(good, test_end_map);
	tcase_add_test(good, test_inherit_marks);
	tcase_add_test(good, test_inherit_marks_other_base);
	tcase_add_test(good, test_inherit_marks_base_moved_masked);
	tcase_add_test(good, test_inherit_marks_full);
	tcase_add_test(good, test_weighted_and_binding);
	tcase_add_test(good, test_hmac);
	tcase_add_test(good, test_offload);
	tcase_add_test(good, test_deprecated_names);
	tcase_add_test(good, test_control_group);
	tcase_add_test(good, test_metrics_listen);
	tcase_add_test(good, test_merge_kernel);
	tcase_add_test(good, test_merge_kernel_tables);
	suite_add_tcase(s, good);
	tcase_add_test(bad, test_err_keyword_and_args);
	tcase_add_test(bad, test_err_addresses);
	tcase_add_test(bad, test_err_queue);
	tcase_add_test(bad, test_err_numbers);
	tcase_add_test(bad, test_err_combinations);
	tcase_add_test(bad, test_err_segments);
	tcase_add_test(bad, test_err_overlaps);
	tcase_add_test(bad, test_err_marks);
	tcase_add_test(bad, test_max_sids);
	tcase_add_test(bad, test_err_mark_mask);
	tcase_add_test(bad, test_err_lines);
	tcase_add_test(bad, test_err_many);
	tcase_add_test(bad, test_err_default_printer);
	tcase_add_test(bad, test_err_decap);
	tcase_add_test(bad, test_err_weighted_and_binding);
	tcase_add_test(bad, test_err_hmac);
	tcase_add_test(bad, test_header_queue);
	tcase_add_test(bad, test_err_offload);
	suite_add_tcase(s, bad);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(config_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
