/* check_steer.c - srv6d's own steering rules (steer.h): the plan a config
 * makes, exactly, in nft text and as iptables commands. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "kencap_routes.h"
#include "runstate.h"
#include "steer.h"

static struct config *parse(const char *text)
{
	struct config *cfg = config_parse_buffer("t.conf", text, strlen(text),
						 NULL, NULL);

	ck_assert_ptr_nonnull(cfg);
	return cfg;
}

/* plan_text: what steer_plan_print() writes for text's config. */
static char *plan_text(const char *text, struct steer_plan *plan)
{
	struct config *cfg = parse(text);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(steer_plan_build(cfg, NULL, plan), 0);
	steer_plan_print(plan, f);
	fclose(f);
	config_free(cfg);
	return buf;
}

/* Two tenants, End and DT SIDs, a header queue: every rule and its
 * order.  The default mark-mask 0xffff0000: srv6d's marks are offsets 1
 * to 8848 in the high 16 bits (0x5d6f0000 + (1 << 16) to 0x7fff0000),
 * whatever the operator's low 16; iptables has no range: the field's
 * values 0x5d70-0x7fff as 4 aligned blocks (0x5d70/0xfff0, 0x5d80/0xff80,
 * 0x5e00/0xfe00, 0x6000/0xe000). */
static const char two_tenants[] =
	"queue 0-1\n"
	"header-queue 2-3\n"
	"sid fc00:1::/64 action End\n"
	"sid fc00:1:0:1::/64 action End flavors psp\n"
	"sid fc00:1:0:a::a4/128 action End.DT4 table 101\n"
	"sid fc00:1:0:a::a6/128 action End.DT6 table 101\n"
	"sid fc00:1:0:a::b6/128 action End.DT6 table 102\n"
	"hmac 5 sha256 secret-file %s\n"
	"route fd01:1::/64 table 101 encap seg6 mode encap segs fc00:2::a6\n"
	"route fd01:1::/64 table 102 encap seg6 mode encap segs fc00:2::b6\n"
	"route fd01:3::/63 table 102 encap seg6 mode encap segs fc00:2::b6 hmac 5\n"
	"route 10.1.2.0/23 table 101 encap seg6 mode encap segs fc00:2::a4\n";

static const char two_tenants_plan[] =
	"# srv6d's steering (steering auto), in nft syntax: kernels with the nft queue\n"
	"# expression (CONFIG_NFT_QUEUE)\n"
	"table ip6 srv6d {\n"
	"\tchain prerouting {\n"
	"\t\ttype filter hook prerouting priority -290; policy accept;\n"
	"\t\tiifname \"srv6d*\" accept\n"
	"\t\tmeta mark and 0xffff0000 0x5d700000-0x7fff0000 accept\n"
	"\t\tip6 daddr fc00:1::/64 meta mark and 0x80000000 != 0x80000000 queue num 2-3 fanout\n"
	"\t\tip6 daddr fd01:1::/64 meta mark and 0x80000000 != 0x80000000 queue num 2-3 fanout\n"
	"\t\tip6 daddr fc00:1::/64 queue num 0-1 fanout\n"
	"\t\tip6 daddr fc00:1:0:1::/64 queue num 0-1 fanout\n"
	"\t\tip6 daddr fc00:1:0:a::a4/128 queue num 0-1 fanout\n"
	"\t\tip6 daddr fc00:1:0:a::a6/128 queue num 0-1 fanout\n"
	"\t\tip6 daddr fc00:1:0:a::b6/128 queue num 0-1 fanout\n"
	"\t\tip6 daddr fd01:1::/64 queue num 0-1 fanout\n"
	"\t\tip6 daddr fd01:3::/63 queue num 0-1 fanout\n"
	"\t}\n"
	"}\n"
	"table ip srv6d {\n"
	"\tchain prerouting {\n"
	"\t\ttype filter hook prerouting priority -290; policy accept;\n"
	"\t\tiifname \"srv6d*\" accept\n"
	"\t\tmeta mark and 0xffff0000 0x5d700000-0x7fff0000 accept\n"
	"\t\tip daddr 10.1.2.0/23 meta mark and 0x80000000 != 0x80000000 queue num 2-3 fanout\n"
	"\t\tip daddr 10.1.2.0/23 queue num 0-1 fanout\n"
	"\t}\n"
	"}\n"
	"# the same with iptables (kernels without the nft queue expression)\n"
	"ip6tables -t raw -A PREROUTING -i srv6d+ -j ACCEPT\n"
	"ip6tables -t raw -A PREROUTING -m mark --mark 0x5d700000/0xfff00000 -j ACCEPT\n"
	"ip6tables -t raw -A PREROUTING -m mark --mark 0x5d800000/0xff800000 -j ACCEPT\n"
	"ip6tables -t raw -A PREROUTING -m mark --mark 0x5e000000/0xfe000000 -j ACCEPT\n"
	"ip6tables -t raw -A PREROUTING -m mark --mark 0x60000000/0xe0000000 -j ACCEPT\n"
	"ip6tables -t raw -A PREROUTING -d fc00:1::/64 -m mark ! --mark 0x80000000/0x80000000 -j NFQUEUE --queue-balance 2:3 --queue-cpu-fanout\n"
	"ip6tables -t raw -A PREROUTING -d fd01:1::/64 -m mark ! --mark 0x80000000/0x80000000 -j NFQUEUE --queue-balance 2:3 --queue-cpu-fanout\n"
	"ip6tables -t raw -A PREROUTING -d fc00:1::/64 -j NFQUEUE --queue-balance 0:1 --queue-cpu-fanout\n"
	"ip6tables -t raw -A PREROUTING -d fc00:1:0:1::/64 -j NFQUEUE --queue-balance 0:1 --queue-cpu-fanout\n"
	"ip6tables -t raw -A PREROUTING -d fc00:1:0:a::a4/128 -j NFQUEUE --queue-balance 0:1 --queue-cpu-fanout\n"
	"ip6tables -t raw -A PREROUTING -d fc00:1:0:a::a6/128 -j NFQUEUE --queue-balance 0:1 --queue-cpu-fanout\n"
	"ip6tables -t raw -A PREROUTING -d fc00:1:0:a::b6/128 -j NFQUEUE --queue-balance 0:1 --queue-cpu-fanout\n"
	"ip6tables -t raw -A PREROUTING -d fd01:1::/64 -j NFQUEUE --queue-balance 0:1 --queue-cpu-fanout\n"
	"ip6tables -t raw -A PREROUTING -d fd01:3::/63 -j NFQUEUE --queue-balance 0:1 --queue-cpu-fanout\n"
	"iptables -t raw -A PREROUTING -i srv6d+ -j ACCEPT\n"
	"iptables -t raw -A PREROUTING -m mark --mark 0x5d700000/0xfff00000 -j ACCEPT\n"
	"iptables -t raw -A PREROUTING -m mark --mark 0x5d800000/0xff800000 -j ACCEPT\n"
	"iptables -t raw -A PREROUTING -m mark --mark 0x5e000000/0xfe000000 -j ACCEPT\n"
	"iptables -t raw -A PREROUTING -m mark --mark 0x60000000/0xe0000000 -j ACCEPT\n"
	"iptables -t raw -A PREROUTING -d 10.1.2.0/23 -m mark ! --mark 0x80000000/0x80000000 -j NFQUEUE --queue-balance 2:3 --queue-cpu-fanout\n"
	"iptables -t raw -A PREROUTING -d 10.1.2.0/23 -j NFQUEUE --queue-balance 0:1 --queue-cpu-fanout\n";

START_TEST(test_two_tenants)
{
	struct steer_plan plan;
	char key[] = "/tmp/check_steer.XXXXXX", conf[2048];
	int fd = mkstemp(key);
	char *text;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "s3cret", 6), 6);
	close(fd);
	snprintf(conf, sizeof(conf), two_tenants, key);
	text = plan_text(conf, &plan);
	unlink(key);

	ck_assert_str_eq(text, two_tenants_plan);
	ck_assert_uint_eq(plan.nrules, 15);
	ck_assert_uint_eq(plan.nrules6, 11);
	/* the /63's last byte is masked: 0xfd 0x01 0x00 0x02 */
	ck_assert_uint_eq(plan.rules[10].plen, 63);
	ck_assert_uint_eq(plan.rules[10].queue_total, 2);
	steer_plan_free(&plan);
	free(text);
}
END_TEST

/* One queue: no fanout; a tun-name of another prefix accepted too; under
 * mark-mask 0xffffffff (the marks of before the mask), a mark-base that is
 * not a multiple of 65536 has no iptables range. */
START_TEST(test_one_queue)
{
	struct steer_plan plan, again;
	struct config *cfg;
	char *text = plan_text("queue 7\ntun-name vpn0\nmark-base 0x10100\n"
			       "mark-mask 0xffffffff\nheader-queue no\n"
			       "sid fc00:9::/48 action End\n", &plan);

	ck_assert_str_eq(text,
		"# srv6d's steering (steering auto), in nft syntax: kernels with the nft queue\n"
		"# expression (CONFIG_NFT_QUEUE)\n"
		"table ip6 srv6d {\n"
		"\tchain prerouting {\n"
		"\t\ttype filter hook prerouting priority -290; policy accept;\n"
		"\t\tiifname \"srv6d*\" accept\n"
		"\t\tiifname \"vpn0\" accept\n"
		"\t\tmeta mark 0x00010101-0x000200ff accept\n"
		"\t\tip6 daddr fc00:9::/48 queue num 7\n"
		"\t}\n"
		"}\n"
		"table ip srv6d {\n"
		"\tchain prerouting {\n"
		"\t\ttype filter hook prerouting priority -290; policy accept;\n"
		"\t\tiifname \"srv6d*\" accept\n"
		"\t\tiifname \"vpn0\" accept\n"
		"\t\tmeta mark 0x00010101-0x000200ff accept\n"
		"\t}\n"
		"}\n"
		"# the same with iptables (kernels without the nft queue expression)\n"
		"ip6tables -t raw -A PREROUTING -i srv6d+ -j ACCEPT\n"
		"ip6tables -t raw -A PREROUTING -i vpn0 -j ACCEPT\n"
		"ip6tables -t raw -A PREROUTING -m mark --mark 0x00010101-0x000200ff (no iptables match: use nft) -j ACCEPT\n"
		"ip6tables -t raw -A PREROUTING -d fc00:9::/48 -j NFQUEUE --queue-num 7\n"
		"iptables -t raw -A PREROUTING -i srv6d+ -j ACCEPT\n"
		"iptables -t raw -A PREROUTING -i vpn0 -j ACCEPT\n"
		"iptables -t raw -A PREROUTING -m mark --mark 0x00010101-0x000200ff (no iptables match: use nft) -j ACCEPT\n");
	ck_assert(!plan.rules[1].iif_wildcard);
	ck_assert(plan.rules[0].iif_wildcard);
	ck_assert_uint_eq(plan.rules[3].queue_total, 1);
	/* the same config, the same plan: a reload sends nothing */
	cfg = parse("queue 7\ntun-name vpn0\nmark-base 0x10100\n"
		    "mark-mask 0xffffffff\n"
		    "header-queue no\nsid fc00:9::/48 action End\n");
	ck_assert_int_eq(steer_plan_build(cfg, NULL, &again), 0);
	ck_assert(steer_plan_equal(&plan, &again));
	steer_plan_free(&again);
	config_free(cfg);
	cfg = parse("queue 7\ntun-name vpn0\nmark-base 0x10100\n"
		    "mark-mask 0xffffffff\n"
		    "header-queue no\nsid fc00:9::/47 action End\n");
	ck_assert_int_eq(steer_plan_build(cfg, NULL, &again), 0);
	ck_assert(!steer_plan_equal(&plan, &again));
	steer_plan_free(&again);
	config_free(cfg);
	steer_plan_free(&plan);
	free(text);
}
END_TEST

/* `steering no` and `steering auto` (the default) parse; anything else
 * is refused with its line. */
/* RFC 9433: GTP-U SIDs and an `encap gtp4` route (H.M.GTP4.D) are
 * steered whole to the queues, the route never to a header queue (no
 * kernel route redoes it), unlike a seg6 route of the same shape. */
START_TEST(test_mobile)
{
	struct steer_plan plan;
	char *text = plan_text("queue 0-1\nheader-queue 2-3\n"
		"sid fc00:100:d::/64 action End.M.GTP6.D mob-prefix "
		"fc00:9:e::/64 srh segs fc00:9::c1\n"
		"sid fc00:104::/32 action End.M.GTP4.E v4src-position 64\n"
		"route 10.9.5.0/24 encap gtp4 mob-prefix fc00:9:4d::/48 "
		"src-prefix fc00:9:5::/64 segs fc00:9::c1\n"
		"route 10.9.6.0/24 encap seg6 mode encap segs fc00:9::c1\n",
		&plan);

	ck_assert_ptr_nonnull(strstr(text,
		"ip6 daddr fc00:100:d::/64 queue num 0-1 fanout\n"));
	ck_assert_ptr_nonnull(strstr(text,
		"ip6 daddr fc00:104::/32 queue num 0-1 fanout\n"));
	ck_assert_ptr_nonnull(strstr(text,
		"ip daddr 10.9.5.0/24 queue num 0-1 fanout\n"));
	ck_assert_ptr_null(strstr(text, "ip daddr 10.9.5.0/24 meta mark"));
	ck_assert_ptr_nonnull(strstr(text, "ip daddr 10.9.6.0/24 meta mark"));
	free(text);
	steer_plan_free(&plan);
}
END_TEST

START_TEST(test_directive)
{
	struct config *cfg = parse("queue 0\n");

	ck_assert(cfg->steering);
	config_free(cfg);
	cfg = parse("queue 0\nsteering no\n");
	ck_assert(!cfg->steering);
	config_free(cfg);
	cfg = parse("queue 0\nsteering auto\n");
	ck_assert(cfg->steering);
	config_free(cfg);
}
END_TEST

/* rule i of plan with backend be, as libnftnl prints it. */
static void expect_rule(const struct steer_plan *plan, unsigned i,
			enum steer_backend be, const char *want)
{
	char buf[2048];

	ck_assert_int_gt(steer_rule_format(&plan->rules[i], be, buf,
					   sizeof(buf)), 0);
	ck_assert_str_eq(buf, want);
}

/* The expressions of each kind of rule, as the kernel gets them (what
 * `nft --debug=netlink list ruleset` shows): the iifname prefix compared
 * on its 5 bytes, the mark range in network order, a /63 masked on its
 * last byte, the bounce mark left out, the queue as the nft expression
 * or the xtables target, never a bypass. */
START_TEST(test_expressions)
{
	struct steer_plan plan;
	char *text = plan_text("queue 0-1\nheader-queue 2-3\n"
			       "sid fc00:1::/64 action End\n"
			       "route fd01:3::/63 encap seg6 mode encap "
			       "segs fc00:2::a6\n"
			       "route 10.1.2.0/24 encap seg6 mode encap "
			       "segs fc00:2::a4\n", &plan);

	free(text);
	ck_assert_uint_eq(plan.nrules, 10);
	expect_rule(&plan, 0, STEER_BACKEND_XT_NFQUEUE,
		"ip6 srv6d prerouting\n"
		"  [ meta load iifname => reg 1 ]\n"
		"  [ cmp eq reg 1 0x36767273 0x00000064 ]\n"
		"  [ immediate reg 0 accept ]\n");
	expect_rule(&plan, 1, STEER_BACKEND_XT_NFQUEUE,
		"ip6 srv6d prerouting\n"
		"  [ meta load mark => reg 1 ]\n"
		"  [ bitwise reg 1 = ( reg 1 & 0xffff0000 ) ^ 0x00000000 ]\n"
		"  [ byteorder reg 1 = hton(reg 1, 4, 4) ]\n"
		"  [ range eq reg 1 0x0000705d 0x0000ff7f ]\n"
		"  [ immediate reg 0 accept ]\n");
	expect_rule(&plan, 3, STEER_BACKEND_XT_NFQUEUE,
		"ip6 srv6d prerouting\n"
		"  [ payload load 8b @ network header + 24 => reg 1 ]\n"
		"  [ bitwise reg 1 = ( reg 1 & 0xffffffff 0xfeffffff ) ^ "
		"0x00000000 0x00000000 ]\n"
		"  [ cmp eq reg 1 0x030001fd 0x00000000 ]\n"
		"  [ meta load mark => reg 1 ]\n"
		"  [ bitwise reg 1 = ( reg 1 & 0x80000000 ) ^ 0x00000000 ]\n"
		"  [ cmp neq reg 1 0x80000000 ]\n"
		"  [ target name NFQUEUE rev 3 ]\n");
	expect_rule(&plan, 3, STEER_BACKEND_NFT_QUEUE,
		"ip6 srv6d prerouting\n"
		"  [ payload load 8b @ network header + 24 => reg 1 ]\n"
		"  [ bitwise reg 1 = ( reg 1 & 0xffffffff 0xfeffffff ) ^ "
		"0x00000000 0x00000000 ]\n"
		"  [ cmp eq reg 1 0x030001fd 0x00000000 ]\n"
		"  [ meta load mark => reg 1 ]\n"
		"  [ bitwise reg 1 = ( reg 1 & 0x80000000 ) ^ 0x00000000 ]\n"
		"  [ cmp neq reg 1 0x80000000 ]\n"
		"  [ queue num 2-3 fanout ]\n");
	expect_rule(&plan, 4, STEER_BACKEND_NFT_QUEUE,
		"ip6 srv6d prerouting\n"
		"  [ payload load 8b @ network header + 24 => reg 1 ]\n"
		"  [ cmp eq reg 1 0x010000fc 0x00000000 ]\n"
		"  [ queue num 0-1 fanout ]\n");
	/* IPv4: the destination at offset 16, 3 bytes for a /24 (rule 8:
	 * its header queue rule) */
	expect_rule(&plan, 9, STEER_BACKEND_NFT_QUEUE,
		"ip srv6d prerouting\n"
		"  [ payload load 3b @ network header + 16 => reg 1 ]\n"
		"  [ cmp eq reg 1 0x0002010a ]\n"
		"  [ queue num 0-1 fanout ]\n");
	steer_plan_free(&plan);
}
END_TEST

/* mark-mask 0xffff0000: the accept rule takes srv6d's marks under the
 * mask (offsets 1 to the last, below the bounce bit), whatever the
 * operator's low bits; the header queue rule leaves out the bounce bit
 * alone. */
START_TEST(test_mark_mask)
{
	struct steer_plan plan;
	char *text = plan_text("queue 0-1\nheader-queue 2-3\n"
			       "mark-base 0x10000\nmark-mask 0xffff0000\n"
			       "sid fc00:1::/64 action End\n", &plan);

	ck_assert_ptr_nonnull(strstr(text,
		"\t\tmeta mark and 0xffff0000 0x00020000-0x7fff0000 accept\n"));
	/* iptables: 0x0002-0x7fff as 14 blocks, 0x0002/0xfffe to
	 * 0x4000/0xc000 */
	ck_assert_ptr_nonnull(strstr(text,
		"ip6tables -t raw -A PREROUTING -m mark --mark "
		"0x00020000/0xfffe0000 -j ACCEPT\n"
		"ip6tables -t raw -A PREROUTING -m mark --mark "
		"0x00040000/0xfffc0000 -j ACCEPT\n"));
	ck_assert_ptr_nonnull(strstr(text,
		"ip6tables -t raw -A PREROUTING -m mark --mark "
		"0x20000000/0xe0000000 -j ACCEPT\n"
		"ip6tables -t raw -A PREROUTING -m mark --mark "
		"0x40000000/0xc0000000 -j ACCEPT\n"
		"ip6tables -t raw -A PREROUTING -d fc00:1::/64"));
	ck_assert_ptr_null(strstr(text, "no iptables match"));
	ck_assert_ptr_nonnull(strstr(text,
		"\t\tip6 daddr fc00:1::/64 meta mark and 0x80000000 != "
		"0x80000000 queue num 2-3 fanout\n"));
	free(text);
	expect_rule(&plan, 1, STEER_BACKEND_XT_NFQUEUE,
		"ip6 srv6d prerouting\n"
		"  [ meta load mark => reg 1 ]\n"
		"  [ bitwise reg 1 = ( reg 1 & 0xffff0000 ) ^ 0x00000000 ]\n"
		"  [ byteorder reg 1 = hton(reg 1, 4, 4) ]\n"
		"  [ range eq reg 1 0x00000200 0x0000ff7f ]\n"
		"  [ immediate reg 0 accept ]\n");
	steer_plan_free(&plan);

	/* mark-mask 0xffffffff, explicit: the marks of before the mask,
	 * a plain range, which iptables has as mark-base's 65536 less it */
	text = plan_text("queue 0-1\nmark-mask 0xffffffff\n"
			 "sid fc00:1::/64 action End\n", &plan);
	ck_assert_ptr_nonnull(strstr(text,
		"\t\tmeta mark 0x5d6f0001-0x5d6fffff accept\n"));
	ck_assert_ptr_nonnull(strstr(text,
		"ip6tables -t raw -A PREROUTING -m mark ! --mark 0x5d6f0000 "
		"-m mark --mark 0x5d6f0000/0xffff0000 -j ACCEPT\n"));
	free(text);
	expect_rule(&plan, 1, STEER_BACKEND_XT_NFQUEUE,
		"ip6 srv6d prerouting\n"
		"  [ meta load mark => reg 1 ]\n"
		"  [ byteorder reg 1 = hton(reg 1, 4, 4) ]\n"
		"  [ range eq reg 1 0x01006f5d 0xffff6f5d ]\n"
		"  [ immediate reg 0 accept ]\n");
	steer_plan_free(&plan);
}
END_TEST

/* header-queue auto (the default): the queues after `queue`'s; without
 * a state (srv6d -p) the candidates get the header rule, with one only
 * what the kernel redoes: a SID with a kernel-end mark, a policy the
 * kernel encapsulates. */
static const char hq_auto[] =
	"queue 0-1\n"
	"sid fc00:9::/48 action End\n"
	"sid fc00:9:1::a6/128 action End.DT6 table 100\n"
	"route fd01::/64 encap seg6 mode encap segs fc00:2::a6\n";
#define HQ(p)	"\t\tip6 daddr " p " meta mark and 0x80000000 != 0x80000000 queue num 2-3 fanout\n"

static char *plan_text_rs(const struct config *cfg, const struct runstate *rs)
{
	struct steer_plan plan;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(steer_plan_build(cfg, rs, &plan), 0);
	steer_plan_print(&plan, f);
	fclose(f);
	steer_plan_free(&plan);
	return buf;
}

START_TEST(test_hqueue_auto)
{
	struct config *cfg = parse(hq_auto);
	struct runstate *rs = runstate_new(cfg);
	struct kencap_entry ke = { .mode = ENCAP_MODE_ENCAP, .mark = 0x5d6fffff };
	char *text;

	ck_assert(cfg->has_hqueue && cfg->hqueue_auto);
	ck_assert_uint_eq(cfg->hqueue_first, 2);
	ck_assert_uint_eq(cfg->hqueue_last, 3);
	text = plan_text_rs(cfg, NULL);
	ck_assert_ptr_nonnull(strstr(text, HQ("fc00:9::/48")));
	ck_assert_ptr_nonnull(strstr(text, HQ("fd01::/64")));
	ck_assert_ptr_null(strstr(text, HQ("fc00:9:1::a6/128")));
	free(text);
	/* the kernel redoes nothing: no header rule */
	ck_assert_ptr_nonnull(rs);
	text = plan_text_rs(cfg, rs);
	ck_assert_ptr_null(strstr(text, "queue num 2-3"));
	ck_assert_ptr_nonnull(strstr(text,
		"\t\tip6 daddr fc00:9::/48 queue num 0-1 fanout\n"));
	free(text);
	/* kernel-end for the End.DT6 only, kernel-encap for the policy */
	rs->sids[1].kend_mark = 0x5d6ffffb;
	ke.sl = cfg->policies[0].lists[0];
	rs->kencap_on = true;
	rs->kencaps = &ke;
	rs->nkencaps = 1;
	text = plan_text_rs(cfg, rs);
	ck_assert_ptr_null(strstr(text, HQ("fc00:9::/48")));
	ck_assert_ptr_nonnull(strstr(text, HQ("fc00:9:1::a6/128")));
	ck_assert_ptr_nonnull(strstr(text, HQ("fd01::/64")));
	free(text);
	rs->kencaps = NULL;
	runstate_free(rs);
	config_free(cfg);
	/* steering no, header-queue no, offload no: none */
	cfg = parse("queue 0-1\nsteering no\n");
	ck_assert(!cfg->has_hqueue);
	config_free(cfg);
	cfg = parse("queue 0-1\nheader-queue no\n");
	ck_assert(!cfg->has_hqueue);
	config_free(cfg);
	cfg = parse("queue 0-1\noffload no\n");
	ck_assert(!cfg->has_hqueue);
	config_free(cfg);
}
END_TEST

/* kernel-encap's guard (markguard.h): with the links known, a base
 * chain at the end of prerouting counts what reaches it for the
 * kernel-encap policies without srv6d's marks: from the reinjection
 * device, from a tenant's link its table's policies (chain g200), from
 * the others main's; another tenant's link is accepted; an HMAC policy
 * (srv6d's own encapsulation) is not counted.  From the links, a policy
 * of one list with no mark at all is counted apart first
 * (kencap_unmarked: the catch is srv6d's result), and so from the
 * reinjection device a main table's; one of two lists (fd00:6::/64: the
 * catch has its first only) and the tenant's from the device are not.  No guard with the links
 * unknown, without kernel-encap, nor in iptables' text. */
static const char guard_conf[] =
	"queue 0\n"
	"hmac 5 sha256 secret-file %s\n"
	"route fd00:8::/64 encap seg6 mode encap segs fc00:9::d6\n"
	"route fd00:9::/64 encap seg6 mode encap segs fc00:9::d6 hmac 5\n"
	"route fd00:7::/64 table 200 encap seg6 mode encap segs fc00:9::d6\n"
	"route 10.8.0.0/16 encap seg6 mode encap segs fc00:9::d6\n"
	"route fd00:6::/64 encap seg6 mode encap segs fc00:9::d6 weight 1 "
	"segs fc00:9::d7 weight 1\n";

START_TEST(test_guard)
{
	char conf[512], key[] = "/tmp/check_steer_keyXXXXXX";
	int fd = mkstemp(key);
	struct config *cfg;
	struct runstate *rs;
	struct steer_plan plan;
	static const struct steer_link links[] = {
		{ "ta", 200, 200 }, { "tb", 300, 300 },
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "0123456789abcdef0123456789abcdef", 32), 32);
	close(fd);
	snprintf(conf, sizeof(conf), guard_conf, key);
	cfg = parse(conf);
	rs = runstate_new(cfg);
	ck_assert_ptr_nonnull(rs);
	ck_assert_int_eq(kencap_routes_assign(rs, cfg, NULL, NULL), 0);
	rs->kencap_on = true;
	ck_assert_int_eq(steer_plan_build_links(cfg, rs, links, 2, &plan), 0);
	f = open_memstream(&buf, &len);
	steer_plan_print(&plan, f);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf,
		"table ip6 srv6d {\n\tcounter kencap_caught {\n\t}\n"
		"\tcounter kencap_unmarked {\n\t}\n"
		"\tcounter probe_kept {\n\t}\n"
		"\tcounter probe_carried {\n\t}\n"
		"\tcounter probe_zeroed {\n\t}\n"
		"\tcounter probe_lost {\n\t}\n"
		"\tcounter kend_restored {\n\t}\n"));
	/* the mark probe (markprobe.h): queued first from the device,
	 * judged first in the guard, IPv6 only */
	ck_assert_ptr_nonnull(strstr(buf,
		"\t\ttype filter hook prerouting priority -290; policy accept;\n"
		"\t\tiifname \"srv6d0\" ip6 daddr 100::5d6f:2/128 queue num 0\n"
		"\t\tiifname \"srv6d*\" accept\n"));
	ck_assert_ptr_nonnull(strstr(buf,
		"\tchain guard {\n"
		"\t\ttype filter hook prerouting priority 2147483647; policy accept;\n"
		"\t\tiifname \"srv6d0\" ip6 daddr 100::5d6f:2/128 meta mark and 0xffff0000 0x5d6f0000 counter name \"probe_kept\" drop\n"
		"\t\tiifname \"srv6d0\" ip6 daddr 100::5d6f:2/128 meta priority and 0xffff0000 0x5d6f0000 counter name \"probe_carried\" drop\n"
		"\t\tiifname \"srv6d0\" ip6 daddr 100::5d6f:2/128 meta mark 0x00000000 counter name \"probe_zeroed\" drop\n"
		"\t\tiifname \"srv6d0\" ip6 daddr 100::5d6f:2/128 counter name \"probe_lost\" drop\n"
		"\t\tiifname \"srv6d0\" meta mark set @ll,64,32\n"
		"\t\tmeta priority and 0xffff0000 0x5d700000-0x7fff0000 meta mark set meta priority meta priority set 0\n"
		"\t\tmeta mark and 0xffff0000 0x5d700000-0x7fff0000 accept\n"
		"\t\tiifname \"srv6d0\" meta mark 0x00000000 ip6 daddr fd00:8::/64 counter name \"kencap_unmarked\" accept\n"
		"\t\tiifname \"srv6d0\" ip6 daddr fd00:8::/64 counter name \"kencap_caught\" accept\n"
		"\t\tiifname \"srv6d0\" ip6 daddr fd00:7::/64 counter name \"kencap_caught\" accept\n"
		"\t\tiifname \"srv6d0\" ip6 daddr fd00:6::/64 counter name \"kencap_caught\" accept\n"
		"\t\tiifname \"ta\" goto g200\n"
		"\t\tiifname \"tb\" accept\n"
		"\t\tmeta mark 0x00000000 ip6 daddr fd00:8::/64 counter name \"kencap_unmarked\" accept\n"
		"\t\tip6 daddr fd00:8::/64 counter name \"kencap_caught\" accept\n"
		"\t\tip6 daddr fd00:6::/64 counter name \"kencap_caught\" accept\n"
		"\t}\n"
		"\tchain g200 {\n"
		"\t\tmeta mark 0x00000000 ip6 daddr fd00:7::/64 counter name \"kencap_unmarked\" accept\n"
		"\t\tip6 daddr fd00:7::/64 counter name \"kencap_caught\" accept\n"
		"\t}\n"));
	ck_assert_ptr_nonnull(strstr(buf,
		"\t\tiifname \"srv6d0\" meta mark 0x00000000 ip daddr 10.8.0.0/16 counter name \"kencap_unmarked\" accept\n"
		"\t\tiifname \"srv6d0\" ip daddr 10.8.0.0/16 counter name \"kencap_caught\" accept\n"));
	ck_assert_ptr_null(strstr(buf, "fd00:9::/64 counter"));
	ck_assert_ptr_null(strstr(buf, "ip daddr 100::"));
	ck_assert_ptr_null(strstr(strstr(buf, "table ip srv6d"), "probe_"));
	ck_assert_ptr_null(strstr(buf, "-A srv6d-guard"));
	ck_assert_ptr_null(strstr(buf, "-A srv6d-g200"));
	free(buf);
	steer_plan_free(&plan);
	/* the links unknown, or kernel-encap off: no counting, but the
	 * reinjection device's marks put back (G0) in both families */
	ck_assert_int_eq(steer_plan_build(cfg, rs, &plan), 0);
	for (unsigned i = 0; i < plan.nrules; i++)
		ck_assert(plan.rules[i].action != STEER_COUNT);
	steer_plan_free(&plan);
	rs->kencap_on = false;
	ck_assert_int_eq(steer_plan_build_links(cfg, rs, links, 2, &plan), 0);
	{
		unsigned g0 = 0, g0p = 0;

		for (unsigned i = 0; i < plan.nrules; i++) {
			const struct steer_rule *r = &plan.rules[i];

			ck_assert(r->action != STEER_COUNT);
			if (r->action == STEER_MARK_FROM_MAC) {
				ck_assert_str_eq(r->chain, "guard");
				ck_assert_str_eq(r->iifname, "srv6d0");
				ck_assert_int_eq(r->family,
						 g0 ? AF_INET : AF_INET6);
				g0++;
			}
			if (r->action == STEER_MARK_FROM_PRIORITY) {
				/* right after G0, from any link */
				ck_assert_uint_gt(i, 0);
				ck_assert_int_eq(plan.rules[i - 1].action,
						 STEER_MARK_FROM_MAC);
				ck_assert_str_eq(r->iifname, "");
				ck_assert(r->has_mark_range);
				ck_assert_uint_eq(r->mark_from, 0x5d700000);
				ck_assert_uint_eq(r->mark_to, 0x7fff0000);
				ck_assert_uint_eq(r->mark_mask, 0xffff0000);
				g0p++;
			}
		}
		ck_assert_uint_eq(g0, 2);
		ck_assert_uint_eq(g0p, 2);
	}
	steer_plan_free(&plan);
	/* srv6d -p (no running state): none */
	ck_assert_int_eq(steer_plan_build(cfg, NULL, &plan), 0);
	for (unsigned i = 0; i < plan.nrules; i++)
		ck_assert(plan.rules[i].action != STEER_MARK_FROM_MAC &&
			  plan.rules[i].action != STEER_MARK_FROM_PRIORITY);
	steer_plan_free(&plan);
	runstate_free(rs);
	config_free(cfg);
	unlink(key);
}
END_TEST

/* G0K (steer.h): with kernel-end on, each of its SIDs' packets that
 * reach the guard with mark 0 get the SID's mark back (its value under
 * mark-mask), counted, right after G0P, IPv6 only, the longest prefix
 * first; a SID without a kernel-end mark has none; kernel-end off,
 * none; and the rule as
 * nf_tables builds it: the destination first, the mark, the counter,
 * the mark set, no verdict. */
START_TEST(test_kend_restore)
{
	struct config *cfg = parse(hq_auto);
	struct runstate *rs = runstate_new(cfg);
	struct steer_plan plan;
	char *text, buf[2048];
	unsigned n = 0;

	ck_assert_ptr_nonnull(rs);
	rs->kend_on = true;
	rs->nkends = 1;
	rs->sids[1].kend_mark = cfg->mark_base + 3;
	text = plan_text_rs(cfg, rs);
	ck_assert_ptr_nonnull(strstr(text,
		"\t\tmeta priority and 0xffff0000 0x5d700000-0x7fff0000 meta mark set meta priority meta priority set 0\n"
		"\t\tip6 daddr fc00:9:1::a6/128 meta mark 0x00000000 counter name \"kend_restored\" meta mark set 0x5d720000\n"
		"\t}\n"));
	ck_assert_ptr_null(strstr(text, "ip6 daddr fc00:9::/48 meta mark 0x00000000"));
	ck_assert_ptr_null(strstr(strstr(text, "table ip srv6d"), "kend_restored"));
	free(text);
	ck_assert_int_eq(steer_plan_build(cfg, rs, &plan), 0);
	for (unsigned i = 0; i < plan.nrules; i++) {
		const struct steer_rule *r = &plan.rules[i];

		if (r->action != STEER_MARK_KEND)
			continue;
		n++;
		ck_assert_int_eq(r->family, AF_INET6);
		ck_assert_str_eq(r->chain, "guard");
		ck_assert_int_eq(plan.rules[i - 1].action,
				 STEER_MARK_FROM_PRIORITY);
		ck_assert_int_gt(steer_rule_format(r, STEER_BACKEND_NFT_QUEUE,
						   buf, sizeof(buf)), 0);
		/* payload daddr, meta mark, range 0-0, objref, immediate
		 * 0x5d720000, meta set mark: in that order */
		ck_assert_ptr_nonnull(strstr(buf, "[ payload load 16b @ network header + 24 => reg 1 ]"));
		ck_assert_ptr_nonnull(strstr(buf, "[ meta load mark => reg 1 ]"));
		ck_assert_ptr_nonnull(strstr(buf, "[ objref type 1 name kend_restored ]"));
		ck_assert_ptr_nonnull(strstr(buf, "[ immediate reg 1 0x5d720000 ]"));
		ck_assert_ptr_nonnull(strstr(buf, "[ meta set mark with reg 1 ]"));
		ck_assert(strstr(buf, "payload load") < strstr(buf, "meta load mark"));
		ck_assert(strstr(buf, "objref") < strstr(buf, "meta set mark"));
		ck_assert_ptr_null(strstr(buf, "immediate reg 0"));
	}
	ck_assert_uint_eq(n, 1);
	steer_plan_free(&plan);
	/* the End fc00:9::/48 kernel-end too: the End.DT6 nested in its
	 * prefix keeps its own mark, its rule first (the first match sets
	 * the mark) */
	rs->sids[0].kend_mark = cfg->mark_base + 4;
	rs->nkends = 2;
	text = plan_text_rs(cfg, rs);
	ck_assert_ptr_nonnull(strstr(text,
		"\t\tip6 daddr fc00:9:1::a6/128 meta mark 0x00000000 counter name \"kend_restored\" meta mark set 0x5d720000\n"
		"\t\tip6 daddr fc00:9::/48 meta mark 0x00000000 counter name \"kend_restored\" meta mark set 0x5d730000\n"));
	free(text);
	rs->kend_on = false;
	text = plan_text_rs(cfg, rs);
	ck_assert_ptr_null(strstr(text, "kend_restored\" meta"));
	free(text);
	runstate_free(rs);
	config_free(cfg);
}
END_TEST

/* An SR proxy: what comes in on its iif, both families, link-local and
 * multicast destinations aside, before the SIDs' rules. */
START_TEST(test_proxy_iif)
{
	struct steer_plan plan;
	char *text = plan_text("queue 0\nheader-queue no\n"
			       "sid fc00:a1::1/128 action End.AM nh6 fc00:a::2 "
			       "oif pa iif pb\n", &plan);

	ck_assert_str_eq(text,
		"# srv6d's steering (steering auto), in nft syntax: kernels with the nft queue\n"
		"# expression (CONFIG_NFT_QUEUE)\n"
		"table ip6 srv6d {\n"
		"\tchain prerouting {\n"
		"\t\ttype filter hook prerouting priority -290; policy accept;\n"
		"\t\tiifname \"srv6d*\" accept\n"
		"\t\tmeta mark and 0xffff0000 0x5d700000-0x7fff0000 accept\n"
		"\t\tiifname \"pb\" ip6 daddr fe80::/10 accept\n"
		"\t\tiifname \"pb\" ip6 daddr ff00::/8 accept\n"
		"\t\t# what the service of an SR proxy sends back on pb (its iif)\n"
		"\t\tiifname \"pb\" queue num 0\n"
		"\t\tip6 daddr fc00:a1::1/128 queue num 0\n"
		"\t}\n"
		"}\n"
		"table ip srv6d {\n"
		"\tchain prerouting {\n"
		"\t\ttype filter hook prerouting priority -290; policy accept;\n"
		"\t\tiifname \"srv6d*\" accept\n"
		"\t\tmeta mark and 0xffff0000 0x5d700000-0x7fff0000 accept\n"
		"\t\tiifname \"pb\" ip daddr 224.0.0.0/4 accept\n"
		"\t\tiifname \"pb\" ip daddr 255.255.255.255/32 accept\n"
		"\t\t# what the service of an SR proxy sends back on pb (its iif)\n"
		"\t\tiifname \"pb\" queue num 0\n"
		"\t}\n"
		"}\n"
		"# the same with iptables (kernels without the nft queue expression)\n"
		"ip6tables -t raw -A PREROUTING -i srv6d+ -j ACCEPT\n"
		"ip6tables -t raw -A PREROUTING -m mark --mark 0x5d700000/0xfff00000 -j ACCEPT\n"
		"ip6tables -t raw -A PREROUTING -m mark --mark 0x5d800000/0xff800000 -j ACCEPT\n"
		"ip6tables -t raw -A PREROUTING -m mark --mark 0x5e000000/0xfe000000 -j ACCEPT\n"
		"ip6tables -t raw -A PREROUTING -m mark --mark 0x60000000/0xe0000000 -j ACCEPT\n"
		"ip6tables -t raw -A PREROUTING -i pb -d fe80::/10 -j ACCEPT\n"
		"ip6tables -t raw -A PREROUTING -i pb -d ff00::/8 -j ACCEPT\n"
		"# what the service of an SR proxy sends back on pb (its iif)\n"
		"ip6tables -t raw -A PREROUTING -i pb -j NFQUEUE --queue-num 0\n"
		"ip6tables -t raw -A PREROUTING -d fc00:a1::1/128 -j NFQUEUE --queue-num 0\n"
		"iptables -t raw -A PREROUTING -i srv6d+ -j ACCEPT\n"
		"iptables -t raw -A PREROUTING -m mark --mark 0x5d700000/0xfff00000 -j ACCEPT\n"
		"iptables -t raw -A PREROUTING -m mark --mark 0x5d800000/0xff800000 -j ACCEPT\n"
		"iptables -t raw -A PREROUTING -m mark --mark 0x5e000000/0xfe000000 -j ACCEPT\n"
		"iptables -t raw -A PREROUTING -m mark --mark 0x60000000/0xe0000000 -j ACCEPT\n"
		"iptables -t raw -A PREROUTING -i pb -d 224.0.0.0/4 -j ACCEPT\n"
		"iptables -t raw -A PREROUTING -i pb -d 255.255.255.255/32 -j ACCEPT\n"
		"# what the service of an SR proxy sends back on pb (its iif)\n"
		"iptables -t raw -A PREROUTING -i pb -j NFQUEUE --queue-num 0\n");
	ck_assert_uint_eq(plan.nrules, 11);
	ck_assert_uint_eq(plan.nrules6, 6);
	ck_assert(plan.rules[4].proxy_iif);
	ck_assert_str_eq(plan.rules[4].iifname, "pb");
	ck_assert_uint_eq(plan.rules[4].plen, 0);
	ck_assert_uint_eq(plan.rules[2].plen, 10);
	ck_assert_int_eq(plan.rules[2].action, STEER_ACCEPT);
	steer_plan_free(&plan);
	free(text);
}
END_TEST

static Suite *steer_suite(void)
{
	Suite *s = suite_create("steer");
	TCase *tc = tcase_create("plan");

	tcase_add_test(tc, test_two_tenants);
	tcase_add_test(tc, test_one_queue);
	tcase_add_test(tc, test_hqueue_auto);
	tcase_add_test(tc, test_mobile);
	tcase_add_test(tc, test_directive);
	tcase_add_test(tc, test_expressions);
	tcase_add_test(tc, test_mark_mask);
	tcase_add_test(tc, test_proxy_iif);
	tcase_add_test(tc, test_guard);
	tcase_add_test(tc, test_kend_restore);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(steer_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
