/* check_kencap.c - kernel-encap (kencap_routes.h, kencap.h): the
 * encapsulations and their marks, the exact bytes of the routes and
 * generic netlink requests built for them, the `kernel-encap` directive,
 * which encapsulated super-packets go to the kernel (and why not), and
 * how `auto` falls back when the kernel refuses the install. */
#define _GNU_SOURCE	/* unshare() */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <linux/fib_rules.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include <net/if.h>
#include <linux/seg6_genl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "runstate.h"
#include "kencap.h"
#include "kencap_routes.h"
#include "markguard.h"
#include "rtrules.h"
#include "rtwatch.h"
#include "pkt.h"
#include "testutil.h"

#define BASE	0x5d6f0000u	/* CONFIG_DEFAULT_MARK_BASE */
/* The highest mark offset under the default mark-mask 0xffff0000 (config.h
 * mark_count - 1): (0x80000000 - BASE) >> 16, less one, 8848 (0x2290);
 * kernel-encap and kernel-end take theirs from it down. */
#define TOP	(((0x80000000u - BASE) >> 16) - 1)

static void quiet(void *arg, const char *file, unsigned line, const char *msg)
{
	char *first = arg;

	if (first && !first[0])
		snprintf(first, 256, "%s:%u: %s", file, line, msg);
}

/* The state of each config a test parsed (runstate.h: what the daemon
 * decides for a config is not written into it), made on first use. */
static struct {
	const struct config *cfg;
	struct runstate *rs;
} states[8];

static struct runstate *st(const struct config *cfg)
{
	unsigned free_slot = 8;

	for (unsigned i = 0; i < 8; i++) {
		if (states[i].cfg == cfg)
			return states[i].rs;
		if (!states[i].cfg && free_slot == 8)
			free_slot = i;
	}
	ck_assert_uint_lt(free_slot, 8);
	states[free_slot].cfg = cfg;
	states[free_slot].rs = runstate_new(cfg);
	ck_assert_ptr_nonnull(states[free_slot].rs);
	/* every oif names a link (resolve.c's resolve_links()) */
	for (unsigned i = 0; i < cfg->nsids; i++)
		states[free_slot].rs->sids[i].oif_index =
			cfg->sids[i].oif[0] ? 9 : 0;
	return states[free_slot].rs;
}

/* config_free() with its state. */
static void cfree(struct config *cfg)
{
	for (unsigned i = 0; i < 8; i++) {
		if (states[i].cfg != cfg)
			continue;
		runstate_free(states[i].rs);
		states[i].cfg = NULL;
		states[i].rs = NULL;
	}
	config_free(cfg);
}

static struct config *parse(const char *text)
{
	char err[256] = "";
	struct config *cfg = config_parse_buffer("k.conf", text, strlen(text),
						 quiet, err);

	ck_assert_msg(cfg != NULL, "rejected: %s", err);
	return cfg;
}

#define POLICIES \
	"route fd01:2::/64 encap seg6 mode encap segs fc00:9::1,fc00:2::a6\n" \
	"route fd01:3::/64 encap seg6 mode encap.red segs fc00:2::b6\n"      \
	"route fd01:4::/64 encap seg6 mode encap segs fc00:9::1,fc00:2::a6\n" \
	"route fd01:5::/64 encap seg6 mode inline segs fc00:2::c6\n"

/* One mark per distinct (mode, list), from the top of the range down, in
 * the sorted order; inline is not the kernel's to do. */
START_TEST(assign_marks)
{
	struct config *cfg = parse("queue 0\ngso yes\n" POLICIES);

	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(st(cfg)->nkencaps, 2);
	ck_assert_int_eq(st(cfg)->kencaps[0].mode, ENCAP_MODE_ENCAP);
	ck_assert_uint_eq(st(cfg)->kencaps[0].sl.nsegs, 2);
	ck_assert_uint_eq(st(cfg)->kencaps[0].mark, BASE + TOP);
	ck_assert_int_eq(st(cfg)->kencaps[1].mode, ENCAP_MODE_ENCAP_RED);
	ck_assert_uint_eq(st(cfg)->kencaps[1].mark, BASE + (TOP - 1));
	ck_assert_uint_eq(TOP, cfg->mark_count - 1);
	ck_assert_uint_eq(TOP, 0x2290);
	/* the highest offset's mark on the packet: just below the bounce bit */
	ck_assert_uint_eq(config_mark_value(cfg, BASE + TOP), 0x7fff0000u);
	cfree(cfg);

	/* mark-mask 0xffffffff: from the top of the 65536 marks down */
	cfg = parse("queue 0\ngso yes\nmark-mask 0xffffffff\n" POLICIES);
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(st(cfg)->kencaps[0].mark, BASE + 0xffff);
	ck_assert_uint_eq(st(cfg)->kencaps[1].mark, BASE + 0xfffe);
	cfree(cfg);

	/* a narrow field: from its own top (mark-base 0x1000, mark-mask
	 * 0xff000: offsets 1-126) */
	cfg = parse("queue 0\ngso yes\nmark-base 0x1000\nmark-mask 0xff000\n"
		    POLICIES);
	ck_assert_uint_eq(cfg->mark_count, 127);
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(st(cfg)->kencaps[0].mark, 0x1000 + 126);
	ck_assert_uint_eq(st(cfg)->kencaps[1].mark, 0x1000 + 125);
	cfree(cfg);
}
END_TEST

/* A reload: the unchanged encapsulations keep their marks, a new one takes
 * a mark the old config does not use; an HMAC policy gets none. */
START_TEST(assign_stable)
{
	struct config *old = parse("queue 0\ngso yes\n" POLICIES);
	struct config *cfg = parse("queue 0\ngso yes\n"
		"route fd01:6::/64 encap seg6 mode encap segs fc00:2::a6\n"
		"route fd01:7::/64 encap seg6 mode encap segs fc00:2::d6\n"
		POLICIES);

	ck_assert_int_eq(kencap_routes_assign(st(old), old, NULL, NULL), 0);
	cfg->policies[1].hmac_keyid = 1;	/* fd01:7::/64 */
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, st(old), old), 0);
	ck_assert_uint_eq(st(cfg)->nkencaps, 3);
	/* sorted: encap [a6], encap [9::1, a6], encap.red [b6] */
	ck_assert_uint_eq(st(cfg)->kencaps[0].sl.nsegs, 1);
	ck_assert_uint_eq(st(cfg)->kencaps[0].mark, BASE + (TOP - 2));
	ck_assert_uint_eq(st(cfg)->kencaps[1].mark, BASE + TOP);
	ck_assert_uint_eq(st(cfg)->kencaps[2].mark, BASE + (TOP - 1));
	cfree(old);
	cfree(cfg);
}
END_TEST

/* A rebuild that installs nothing keeps old's decision and only the
 * encapsulations old installed with the same mark. */
START_TEST(keep)
{
	struct config *old = parse("queue 0\ngso yes\n" POLICIES);
	struct config *cfg = parse("queue 0\ngso yes\n"
		"route fd01:6::/64 encap seg6 mode encap segs fc00:2::a6\n"
		POLICIES);

	ck_assert_int_eq(kencap_routes_assign(st(old), old, NULL, NULL), 0);
	st(old)->kencap_on = true;
	st(old)->kencap_oif = 9;
	snprintf(st(old)->kencap_why, sizeof(st(old)->kencap_why), "why");
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, st(old), old), 0);
	ck_assert_uint_eq(st(cfg)->nkencaps, 3);
	kencap_routes_keep(st(cfg), cfg, st(old), old);
	ck_assert(st(cfg)->kencap_on);
	ck_assert_uint_eq(st(cfg)->kencap_oif, 9);
	ck_assert_str_eq(st(cfg)->kencap_why, "why");
	ck_assert_uint_eq(st(cfg)->nkencaps, 2);	/* not [a6]: no routes */
	ck_assert_uint_eq(st(cfg)->kencaps[0].mark, BASE + TOP);
	ck_assert_uint_eq(st(cfg)->kencaps[1].mark, BASE + (TOP - 1));
	st(old)->kencap_on = false;
	kencap_routes_keep(st(cfg), cfg, st(old), old);
	ck_assert(!st(cfg)->kencap_on);
	ck_assert_uint_eq(st(cfg)->nkencaps, 0);
	cfree(old);
	cfree(cfg);
}
END_TEST

/* Nothing with kernel-encap no or offload no; by default (offload yes,
 * kernel-encap auto) every list; kernel-encap yes needs offload yes; a
 * bad value is an error at its line. */
START_TEST(directive)
{
	struct config *cfg = parse("queue 0\nkernel-encap no\n" POLICIES);
	char err[256] = "";

	ck_assert_int_eq(cfg->kernel_encap, KERNEL_ENCAP_NO);
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(st(cfg)->nkencaps, 0);
	cfree(cfg);
	cfg = parse("queue 0\noffload no\n" POLICIES);
	ck_assert_int_eq(cfg->kernel_encap, KERNEL_ENCAP_AUTO);
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(st(cfg)->nkencaps, 0);
	cfree(cfg);
	cfg = parse("queue 0\n" POLICIES);
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(st(cfg)->nkencaps, 2);
	cfree(cfg);
	ck_assert_ptr_null(config_parse_buffer("k.conf",
		"queue 0\noffload no\nkernel-encap yes\n", 36, quiet, err));
	ck_assert_str_eq(err, "k.conf:3: kernel-encap yes: the kernel "
			 "encapsulates super-packets, which 'offload no' (line "
			 "2) turns off");
	err[0] = 0;
	ck_assert_ptr_null(config_parse_buffer("k.conf",
		"queue 0\ngso yes\nkernel-encap maybe\n", 35, quiet, err));
	ck_assert_str_eq(err, "k.conf:3: kernel-encap: expected auto, yes or "
			 "no, found 'maybe'");
}
END_TEST

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* ip -6 route replace default encap seg6 mode encap segs
 * fc00:9::1,fc00:2::a6 dev 7 table 0x5d6fffff, and its IPv4 twin. */
START_TEST(encap_route_message)
{
	uint8_t buf[KENCAP_MSG_SIZE], want[KENCAP_MSG_SIZE];
	struct kencap_entry e = { .mode = ENCAP_MODE_ENCAP,
				  .mark = BASE + 0xffff };
	struct in6_addr src;
	struct nlmsghdr *nlh;
	const char *body =
		"00 00 00 00 5d 00 01 00000000"	/* srv6d's, unicast */
		"0800 0f00 ffff6f5d"			/* RTA_TABLE */
		"0800 0400 07000000"			/* RTA_OIF */
		"0600 1500 0500 0000"			/* RTA_ENCAP_TYPE seg6 */
		"3400 1680"				/* RTA_ENCAP, nested */
		"3000 0100 01000000"			/* SEG6_IPTUNNEL_SRH, encap */
		"00 04 04 01 01 00 0000"		/* SRH: SL 1, last 1 */
		"fc000002 00000000 00000000 000000a6"	/* last segment */
		"fc000009 00000000 00000000 00000001";	/* first */
	char hex[512];
	size_t n;

	e.sl.nsegs = 2;
	inet_pton(AF_INET6, "fc00:9::1", &e.sl.segs[0]);
	inet_pton(AF_INET6, "fc00:2::a6", &e.sl.segs[1]);
	nlh = kencap_build_encap_route(buf, 9, AF_INET6, &e, 7, NULL);
	snprintf(hex, sizeof(hex), "68000000 1800 0505 09000000 00000000 0a %s",
		 body);
	n = hex2bin(hex, want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
	nlh = kencap_build_encap_route(buf, 10, AF_INET, &e, 7, NULL);
	snprintf(hex, sizeof(hex), "68000000 1800 0505 0a000000 00000000 02 %s",
		 body);
	n = hex2bin(hex, want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
	/* encap.red: mode 3 (SEG6_IPTUN_MODE_ENCAP_RED), the same SRH */
	e.mode = ENCAP_MODE_ENCAP_RED;
	nlh = kencap_build_encap_route(buf, 9, AF_INET6, &e, 7, NULL);
	ck_assert_uint_eq(buf[60], 3);
	/* a source of the route's own: SEG6_IPTUNNEL_SRC after the SRH, in
	 * the RTA_ENCAP nest (20 bytes longer) */
	e.mode = ENCAP_MODE_ENCAP;
	inet_pton(AF_INET6, "fc00:1::2", &src);
	nlh = kencap_build_encap_route(buf, 9, AF_INET6, &e, 7, &src);
	ck_assert_uint_eq(nlh->nlmsg_len, 0x68 + 20);
	ck_assert_uint_eq(buf[52] | buf[53] << 8, 0x34 + 20);	/* RTA_ENCAP */
	n = hex2bin("1400 0200 fc000001 00000000 00000000 00000002", want,
		    sizeof(want));
	ck_assert_bytes(buf + nlh->nlmsg_len - 20, 20, want, n);
}
END_TEST

/* kernel-end: the plain End SIDs take marks after the encapsulations',
 * from the top down; a flavor, another behavior or a kernel route's SID
 * gets none. */
START_TEST(kend_assign)
{
	struct config *cfg = parse("queue 0\ngso yes\n"
		"sid fc00:100::1/128 action End\n"
		"sid fc00:100::2/128 action End flavors psp\n"
		"sid fc00:100::3/128 action End.X nh6 fc00:2::2\n"
		"sid fc00:200::/48 action End\n" POLICIES);

	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(st(cfg)->nkencaps, 2);
	ck_assert_uint_eq(st(cfg)->kencaps[1].mark, BASE + (TOP - 1));
	ck_assert_uint_eq(st(cfg)->sids[0].kend_mark, BASE + (TOP - 2));
	ck_assert_uint_eq(st(cfg)->sids[1].kend_mark, 0);
	ck_assert_uint_eq(st(cfg)->sids[2].kend_mark, 0);
	ck_assert_uint_eq(st(cfg)->sids[3].kend_mark, BASE + (TOP - 3));
	ck_assert_uint_eq(st(cfg)->nkends, 2);
	/* assigned again (a copy's marks): the same */
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(st(cfg)->sids[0].kend_mark, BASE + (TOP - 2));
	ck_assert_uint_eq(st(cfg)->sids[3].kend_mark, BASE + (TOP - 3));
	cfree(cfg);
}
END_TEST

/* A reload: a SID that stays keeps its mark, a new one takes one that
 * no SID or encapsulation of old has, even where old's order moved. */
START_TEST(kend_assign_stable)
{
	struct config *old = parse("queue 0\ngso yes\n"
		"sid fc00:100::1/128 action End\n"
		"sid fc00:100::2/128 action End\n");
	struct config *cfg = parse("queue 0\ngso yes\n"
		"sid fc00:100::3/128 action End\n"
		"sid fc00:100::2/128 action End\n" POLICIES);

	ck_assert_int_eq(kencap_routes_assign(st(old), old, NULL, NULL), 0);
	ck_assert_uint_eq(st(old)->sids[0].kend_mark, BASE + TOP);
	ck_assert_uint_eq(st(old)->sids[1].kend_mark, BASE + (TOP - 1));
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, st(old), old), 0);
	ck_assert_uint_eq(st(cfg)->kencaps[0].mark, BASE + (TOP - 2));
	ck_assert_uint_eq(st(cfg)->kencaps[1].mark, BASE + (TOP - 3));
	ck_assert_uint_eq(st(cfg)->sids[0].kend_mark, BASE + (TOP - 4));
	ck_assert_uint_eq(st(cfg)->sids[1].kend_mark, BASE + (TOP - 1));
	/* a rebuild that installs nothing: only what old installed */
	st(old)->kend_on = true;
	kencap_routes_keep(st(cfg), cfg, st(old), old);
	ck_assert(st(cfg)->kend_on);
	ck_assert_uint_eq(st(cfg)->sids[0].kend_mark, 0);
	ck_assert_uint_eq(st(cfg)->sids[1].kend_mark, BASE + (TOP - 1));
	ck_assert_uint_eq(st(cfg)->nkends, 1);
	cfree(old);
	cfree(cfg);
}
END_TEST

/* kernel-end: End.DT6 (table), End.DX6 and End.DX4 SIDs take marks as
 * plain End ones do, in the SIDs' order; End.DT6 vrftable, End.DT4 and
 * End.DT46 (a VRF's in the kernel) get none. */
START_TEST(kdecap_assign)
{
	struct config *cfg = parse("queue 0\ngso yes\n"
		"sid fc00:100::1/128 action End\n"
		"sid fc00:100::6/128 action End.DT6 table 200\n"
		"sid fc00:100::7/128 action End.DT6 vrftable 200\n"
		"sid fc00:100::8/128 action End.DT4 table 200\n"
		"sid fc00:100::9/128 action End.DT46 table 200\n"
		"sid fc00:100::5/128 action End.DX6 nh6 fc00:3::2 oif veth9\n"
		"sid fc00:100::4/128 action End.DX4 nh4 203.0.113.2\n");
	static const uint32_t want[] = { TOP, TOP - 1, 0, 0, 0, TOP - 2,
					 TOP - 3 };

	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	for (unsigned i = 0; i < cfg->nsids; i++)
		ck_assert_uint_eq(st(cfg)->sids[i].kend_mark,
				  want[i] ? BASE + want[i] : 0);
	ck_assert_uint_eq(st(cfg)->nkends, 4);
	ck_assert(kencap_routes_decap_sid(&cfg->sids[1]));
	ck_assert(!kencap_routes_decap_sid(&cfg->sids[0]));
	ck_assert(kencap_routes_kernel_sid(&cfg->sids[0]));
	ck_assert(!kencap_routes_kernel_sid(&cfg->sids[3]));
	/* End.DX6's oif is no link yet: no mark (no route to make) */
	st(cfg)->sids[5].oif_index = 0;
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(st(cfg)->sids[5].kend_mark, 0);
	ck_assert_uint_eq(st(cfg)->sids[6].kend_mark, BASE + (TOP - 2));
	ck_assert_uint_eq(st(cfg)->nkends, 3);
	cfree(cfg);
}
END_TEST

/* A reload keeps a decapsulating SID's mark while its route stays (the
 * same prefix, behavior, table, next hop and oif); one whose next hop
 * changed takes a new mark, none of old's. */
START_TEST(kdecap_assign_stable)
{
	struct config *old = parse("queue 0\ngso yes\n"
		"sid fc00:100::6/128 action End.DT6 table 200\n"
		"sid fc00:100::4/128 action End.DX4 nh4 203.0.113.2\n"
		"sid fc00:100::5/128 action End.DX6 nh6 fc00:3::2\n");
	struct config *cfg = parse("queue 0\ngso yes\n"
		"sid fc00:100::5/128 action End.DX6 nh6 fc00:3::2 oif veth9\n"
		"sid fc00:100::4/128 action End.DX4 nh4 203.0.113.9\n"
		"sid fc00:100::6/128 action End.DT6 table 200\n");

	ck_assert_int_eq(kencap_routes_assign(st(old), old, NULL, NULL), 0);
	ck_assert_uint_eq(st(old)->sids[0].kend_mark, BASE + TOP);
	ck_assert_uint_eq(st(old)->sids[1].kend_mark, BASE + (TOP - 1));
	ck_assert_uint_eq(st(old)->sids[2].kend_mark, BASE + (TOP - 2));
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, st(old), old), 0);
	ck_assert_uint_eq(st(cfg)->sids[2].kend_mark, BASE + TOP);
	ck_assert_uint_eq(st(cfg)->sids[0].kend_mark, BASE + (TOP - 3));	/* oif */
	ck_assert_uint_eq(st(cfg)->sids[1].kend_mark, BASE + (TOP - 4));	/* nh4 */
	cfree(old);
	cfree(cfg);
}
END_TEST

/* Nothing with kernel-end no or offload no; by default a mark; kernel-end
 * yes needs offload yes (an error at its line); a bad value is an
 * error. */
START_TEST(kend_directive)
{
	struct config *cfg = parse("queue 0\nkernel-end no\n"
				   "sid fc00:100::1/128 action End\n");
	char err[256] = "";

	ck_assert_int_eq(cfg->kernel_end, KERNEL_ENCAP_NO);
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(st(cfg)->sids[0].kend_mark, 0);
	cfree(cfg);
	cfg = parse("queue 0\noffload no\nsid fc00:100::1/128 action End\n");
	ck_assert_int_eq(cfg->kernel_end, KERNEL_ENCAP_AUTO);
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(st(cfg)->sids[0].kend_mark, 0);
	cfree(cfg);
	cfg = parse("queue 0\nsid fc00:100::1/128 action End\n");
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_ne(st(cfg)->sids[0].kend_mark, 0);
	cfree(cfg);
	ck_assert_ptr_null(config_parse_buffer("k.conf",
		"queue 0\ngso no\nkernel-end yes\n", 30, quiet, err));
	ck_assert_str_eq(err, "k.conf:3: kernel-end yes: the kernel's End "
			 "rewrites super-packets, which 'gso no' (line 2) turns "
			 "off");
	err[0] = 0;
	ck_assert_ptr_null(config_parse_buffer("k.conf",
		"queue 0\nkernel-end maybe\n", 25, quiet, err));
	ck_assert_str_eq(err, "k.conf:2: kernel-end: expected auto, yes or "
			 "no, found 'maybe'");
}
END_TEST

/* ip -6 route replace fc00:100::1/128 encap seg6local action End count
 * dev (7) table 0x5d6ffffe */
START_TEST(end_route_message)
{
	uint8_t buf[KENCAP_MSG_SIZE], want[KENCAP_MSG_SIZE];
	struct in6_addr sid;
	struct nlmsghdr *nlh;
	size_t n;

	inet_pton(AF_INET6, "fc00:100::1", &sid);
	nlh = kencap_build_end_route(buf, 5, BASE + 0xfffe, &sid, 128, 7);
	n = hex2bin(
		"7c000000 1800 0505 05000000 00000000"
		"0a 80 00 00 00 5d 00 01 00000000"	/* /128, srv6d's, unicast */
		"0800 0f00 feff6f5d"			/* RTA_TABLE */
		"1400 0100 fc000100 00000000 00000000 00000001"	/* RTA_DST */
		"0800 0400 07000000"			/* RTA_OIF */
		"0600 1500 0700 0000"			/* RTA_ENCAP_TYPE seg6local */
		"3400 1680"				/* RTA_ENCAP, nested */
		"0800 0100 01000000"			/* ACTION End */
		"2800 0a80"				/* COUNTERS, nested */
		"0c00 0200 00000000 00000000"		/* packets 0 */
		"0c00 0300 00000000 00000000"		/* bytes 0 */
		"0c00 0400 00000000 00000000",		/* errors 0 */
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
}
END_TEST

/* ip -6 route replace fc00:100::6/128 encap seg6local action End.DT6
 * table 200 count dev (7) table 0x5d6ffffe; End.DX6 nh6 fc00:3::2;
 * End.DX4 nh4 203.0.113.2; End.DT4: none. */
START_TEST(decap_route_message)
{
	uint8_t buf[KENCAP_MSG_SIZE], want[KENCAP_MSG_SIZE];
	struct config *cfg = parse("queue 0\ngso yes\n"
		"sid fc00:100::6/128 action End.DT6 table 200\n"
		"sid fc00:100::5/128 action End.DX6 nh6 fc00:3::2\n"
		"sid fc00:100::4/128 action End.DX4 nh4 203.0.113.2\n"
		"sid fc00:100::7/128 action End.DT4 table 200\n");
	struct nlmsghdr *nlh;
	size_t n;

	nlh = kencap_build_decap_route(buf, 5, BASE + 0xfffe, &cfg->sids[0], 7);
	n = hex2bin(
		"84000000 1800 0505 05000000 00000000"
		"0a 80 00 00 00 5d 00 01 00000000"
		"0800 0f00 feff6f5d"			/* RTA_TABLE */
		"1400 0100 fc000100 00000000 00000000 00000006"	/* RTA_DST */
		"0800 0400 07000000"			/* RTA_OIF */
		"0600 1500 0700 0000"			/* seg6local */
		"3c00 1680"				/* RTA_ENCAP */
		"0800 0100 07000000"			/* ACTION End.DT6 */
		"0800 0300 c8000000"			/* TABLE 200 */
		"2800 0a80"				/* COUNTERS */
		"0c00 0200 00000000 00000000"
		"0c00 0300 00000000 00000000"
		"0c00 0400 00000000 00000000",
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
	nlh = kencap_build_decap_route(buf, 5, BASE + 0xfffe, &cfg->sids[1], 7);
	n = hex2bin(
		"90000000 1800 0505 05000000 00000000"
		"0a 80 00 00 00 5d 00 01 00000000"
		"0800 0f00 feff6f5d"
		"1400 0100 fc000100 00000000 00000000 00000005"
		"0800 0400 07000000"
		"0600 1500 0700 0000"
		"4800 1680"
		"0800 0100 05000000"			/* ACTION End.DX6 */
		"1400 0500 fc000003 00000000 00000000 00000002"	/* NH6 */
		"2800 0a80"
		"0c00 0200 00000000 00000000"
		"0c00 0300 00000000 00000000"
		"0c00 0400 00000000 00000000",
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
	nlh = kencap_build_decap_route(buf, 5, BASE + 0xfffe, &cfg->sids[2], 7);
	n = hex2bin(
		"84000000 1800 0505 05000000 00000000"
		"0a 80 00 00 00 5d 00 01 00000000"
		"0800 0f00 feff6f5d"
		"1400 0100 fc000100 00000000 00000000 00000004"
		"0800 0400 07000000"
		"0600 1500 0700 0000"
		"3c00 1680"
		"0800 0100 06000000"			/* ACTION End.DX4 */
		"0800 0400 cb007102"			/* NH4 203.0.113.2 */
		"2800 0a80"
		"0c00 0200 00000000 00000000"
		"0c00 0300 00000000 00000000"
		"0c00 0400 00000000 00000000",
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
	ck_assert_ptr_null(kencap_build_decap_route(buf, 5, BASE + 0xfffe,
						    &cfg->sids[3], 7));
	cfree(cfg);
}
END_TEST

/* ip -6 route replace throw fc00:9::1/128 table 0x5d6fffff */
START_TEST(throw_route_message)
{
	uint8_t buf[KENCAP_MSG_SIZE], want[KENCAP_MSG_SIZE];
	struct in6_addr dst;
	struct nlmsghdr *nlh;
	size_t n;

	inet_pton(AF_INET6, "fc00:9::1", &dst);
	nlh = kencap_build_throw_route(buf, 3, BASE + 0xffff, &dst);
	n = hex2bin(
		"38000000 1800 0505 03000000 00000000"
		"0a 80 00 00 00 5d 00 09 00000000"	/* /128, RTN_THROW */
		"0800 0f00 ffff6f5d"
		"1400 0100 fc000009 00000000 00000000 00000001",
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
}
END_TEST

/* ip -6|-4 route replace blackhole default metric 4294967295 table
 * 0x5d6fffff: the marked packets' last resort */
START_TEST(blackhole_route_message)
{
	uint8_t buf[KENCAP_MSG_SIZE], want[KENCAP_MSG_SIZE];
	struct nlmsghdr *nlh;
	size_t n;

	nlh = kencap_build_blackhole_route(buf, 4, AF_INET6, BASE + 0xffff);
	n = hex2bin(
		"2c000000 1800 0505 04000000 00000000"
		"0a 00 00 00 00 5d 00 06 00000000"	/* RTN_BLACKHOLE */
		"0800 0f00 ffff6f5d"
		"0800 0600 ffffffff",			/* RTA_PRIORITY */
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
	nlh = kencap_build_blackhole_route(buf, 4, AF_INET, BASE + 0xffff);
	want[16] = 0x02;
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
}
END_TEST

/* ip -6 route replace blackhole fc00:100::/64 metric 4294967295 table
 * 0x5d6fffff: a kernel-end SID's packets with its route gone */
START_TEST(blackhole_sid_route_message)
{
	uint8_t buf[KENCAP_MSG_SIZE], want[KENCAP_MSG_SIZE];
	struct in6_addr p;
	struct nlmsghdr *nlh;
	size_t n;

	inet_pton(AF_INET6, "fc00:100::", &p);
	nlh = kencap_build_blackhole_sid_route(buf, 4, BASE + 0xffff, &p, 64);
	n = hex2bin(
		"40000000 1800 0505 04000000 00000000"
		"0a 40 00 00 00 5d 00 06 00000000"	/* RTN_BLACKHOLE */
		"0800 0f00 ffff6f5d"
		"1400 0100 fc000100000000000000000000000000"	/* RTA_DST */
		"0800 0600 ffffffff",			/* RTA_PRIORITY */
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
}
END_TEST

/* A link message for rtwatch_event(): type, name, alias (or NULL), flags. */
static struct nlmsghdr *link_msg(void *buf, uint16_t type, const char *name,
				 const char *alias, unsigned flags)
{
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;

	memset(buf, 0, KENCAP_MSG_SIZE);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_flags = flags;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	if (alias)
		mnl_attr_put_strz(nlh, IFLA_IFALIAS, alias);
	return nlh;
}

/* Which of srv6d's objects an event says went away: its deleted rules and
 * routes by their protocol (the kind by the encap), its devices deleted
 * or down; nothing for an added one, another protocol's, another link. */
START_TEST(watch_events)
{
	uint8_t buf[KENCAP_MSG_SIZE];
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	struct in6_addr p;

	inet_pton(AF_INET6, "fc00:100::1", &p);
	nlh = rtrules_build_rule(buf, RTM_DELRULE, 1, 1000, BASE + 0xffff,
				 BASE + 0xffff);
	ck_assert_uint_eq(rtwatch_event(nlh, "srv6d0"), 1u << RTWATCH_RULE);
	nlh = rtrules_build_rule(buf, RTM_NEWRULE, 1, 1000, BASE + 0xffff,
				 BASE + 0xffff);
	ck_assert_uint_eq(rtwatch_event(nlh, "srv6d0"), 0);
	/* an operator's rule came: srv6d looks at the rules before its own */
	{
		struct nlattr *a;

		mnl_attr_for_each(a, nlh, sizeof(struct fib_rule_hdr))
			if (mnl_attr_get_type(a) == FRA_PROTOCOL)
				*(uint8_t *)mnl_attr_get_payload(a) =
					RTPROT_STATIC;
	}
	ck_assert_uint_eq(rtwatch_event(nlh, "srv6d0"), RTWATCH_OTHER_RULE);

	nlh = kencap_build_end_route(buf, 1, BASE + 0xffff, &p, 128, 6);
	nlh->nlmsg_type = RTM_DELROUTE;
	ck_assert_uint_eq(rtwatch_event(nlh, "srv6d0"), 1u << RTWATCH_KEND);
	rtm = mnl_nlmsg_get_payload(nlh);
	rtm->rtm_protocol = RTPROT_BOOT;	/* the operator's */
	ck_assert_uint_eq(rtwatch_event(nlh, "srv6d0"), 0);
	nlh = kencap_build_blackhole_sid_route(buf, 1, BASE + 0xffff, &p, 128);
	nlh->nlmsg_type = RTM_DELROUTE;
	ck_assert_uint_eq(rtwatch_event(nlh, "srv6d0"), 1u << RTWATCH_ROUTE);
	nlh->nlmsg_type = RTM_NEWROUTE;
	ck_assert_uint_eq(rtwatch_event(nlh, "srv6d0"), 0);

	nlh = link_msg(buf, RTM_DELLINK, "srv6d0", NULL, 0);
	ck_assert_uint_eq(rtwatch_event(nlh, "srv6d0"), 1u << RTWATCH_LINK);
	nlh = link_msg(buf, RTM_NEWLINK, "srv6d0t", NULL, 0);	/* down */
	ck_assert_uint_eq(rtwatch_event(nlh, "srv6d0"), 1u << RTWATCH_LINK);
	nlh = link_msg(buf, RTM_NEWLINK, "srv6d0t", NULL, IFF_UP);
	ck_assert_uint_eq(rtwatch_event(nlh, "srv6d0"), 0);
	nlh = link_msg(buf, RTM_DELLINK, "srv6d5d6fffff", "srv6d", 0);
	ck_assert_uint_eq(rtwatch_event(nlh, "srv6d0"), 1u << RTWATCH_LINK);
	nlh = link_msg(buf, RTM_DELLINK, "eth0", NULL, 0);
	ck_assert_uint_eq(rtwatch_event(nlh, "srv6d0"), 0);
	nlh = link_msg(buf, RTM_DELLINK, "srv6d0", NULL, 0);
	ck_assert_uint_eq(rtwatch_event(nlh, "other0"), 0);
}
END_TEST

/* SEG6_CMD_GET_TUNSRC and SEG6_CMD_SET_TUNSRC fc00:12::1 */
START_TEST(tunsrc_message)
{
	uint8_t buf[KENCAP_MSG_SIZE], want[KENCAP_MSG_SIZE];
	struct in6_addr a;
	struct nlmsghdr *nlh;
	size_t n;

	nlh = kencap_build_tunsrc(buf, 0x1c, 5, SEG6_CMD_GET_TUNSRC, NULL);
	n = hex2bin("14000000 1c00 0500 05000000 00000000 04 01 0000",
		    want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
	inet_pton(AF_INET6, "fc00:12::1", &a);
	nlh = kencap_build_tunsrc(buf, 0x1c, 6, SEG6_CMD_SET_TUNSRC, &a);
	n = hex2bin("28000000 1c00 0500 06000000 00000000 03 01 0000"
		    "1400 0100 fc000012 00000000 00000000 00000001",
		    want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
}
END_TEST
#endif

/* Which super-packets go to the kernel: the headend records it in
 * p->facts (check_egress.c test_kencap_facts). */

#define NO_DEV	0x7ffffff0u	/* an ifindex no netns has */

/* In a netns of its own (root only; skipped otherwise): a route the kernel
 * refuses (a device it does not have) turns an `auto` feature off, with
 * the netlink error as its why and kernel-end's marks cleared; with `yes`
 * it is an error and the feature stays as it was. */
START_TEST(install_fallback)
{
	struct config *cfg = parse("queue 0\ngso yes\n"
		"sid fc00:100::1/128 action End\n" POLICIES);
	char err[512] = "";

	if (unshare(CLONE_NEWNET) < 0) {
		fprintf(stderr, "install_fallback skipped: unshare: %s\n",
			strerror(errno));
		cfree(cfg);
		return;
	}
	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(st(cfg)->nkends, 1);
	st(cfg)->kencap_on = st(cfg)->kend_on = true;
	st(cfg)->kencap_oif = st(cfg)->kend_oif = NO_DEV;
	cfg->kernel_encap = KERNEL_ENCAP_YES;
	ck_assert_int_eq(kencap_routes_install(st(cfg), cfg, NULL, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "kernel-encap mark 0x5d6f2290: cannot add IPv6 "
			 "seg6 route: No such device");
	ck_assert(st(cfg)->kencap_on);
	cfg->kernel_encap = KERNEL_ENCAP_AUTO;
	cfg->kernel_end = KERNEL_ENCAP_YES;
	err[0] = 0;
	ck_assert_int_eq(kencap_routes_install(st(cfg), cfg, NULL, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "kernel-end mark 0x5d6f228e: cannot add the "
			 "seg6local End route: No such device");
	ck_assert(!st(cfg)->kencap_on);
	ck_assert_str_eq(st(cfg)->kencap_why, "install failed: kernel-encap mark "
			 "0x5d6f2290: cannot add IPv6 seg6 route: No such "
			 "device");
	ck_assert(st(cfg)->kend_on);
	cfg->kernel_end = KERNEL_ENCAP_AUTO;
	err[0] = 0;
	ck_assert_int_eq(kencap_routes_install(st(cfg), cfg, NULL, err, sizeof(err)), 1);
	ck_assert_str_eq(err, "");
	ck_assert(!st(cfg)->kend_on);
	ck_assert_str_eq(st(cfg)->kend_why, "install failed: kernel-end mark "
			 "0x5d6f228e: cannot add the seg6local End route: No "
			 "such device");
	ck_assert_uint_eq(st(cfg)->sids[0].kend_mark, 0);
	ck_assert_uint_eq(st(cfg)->nkends, 0);
	/* both off: nothing more to install */
	ck_assert_int_eq(kencap_routes_install(st(cfg), cfg, NULL, err, sizeof(err)), 0);
	cfree(cfg);
}
END_TEST

/* markguard.h's catch rules, recorded by catch_rec(). */
struct catch_seen {
	char line[16][96];
	unsigned n;
};

static void catch_rec(void *arg, const struct markguard_rule *r)
{
	struct catch_seen *c = arg;
	char a[INET6_ADDRSTRLEN] = "";

	ck_assert_uint_lt(c->n, 16);
	if (r->dst)
		inet_ntop(r->family, r->dst, a, sizeof(a));
	if (r->action == FR_ACT_NOP)
		snprintf(c->line[c->n++], sizeof(c->line[0]), "%u nop",
			 r->priority);
	else if (r->action == FR_ACT_GOTO)
		snprintf(c->line[c->n++], sizeof(c->line[0]), "%u iif %s "
			 "goto %u", r->priority, r->iif, r->target);
	else
		snprintf(c->line[c->n++], sizeof(c->line[0]), "%u %s%s%s%s/%u "
			 "%#x%s", r->priority, r->iif[0] ? "iif " : "",
			 r->iif[0] ? r->iif : "", r->iif[0] ? " " : "", a,
			 r->dst_len, r->table, r->catch_table ? " catch" : "");
}

/* A catch rule for each kernel-end SID (its catch table, outside the
 * range) and each kernel-encap policy of the main table (its first
 * list's table); none for an inline policy, one of another table, one
 * without the kernel's encapsulation, nor with the features off. */
START_TEST(catch_rules)
{
	struct config *cfg = parse("queue 0\ngso yes\n"
		"sid fc00:100::1/128 action End\n"
		"sid fc00:100::3/128 action End.X nh6 fc00:2::2\n"
		"route 10.5.0.0/16 encap seg6 mode encap segs fc00:2::b6\n"
		"route fd01:6::/64 table 100 encap seg6 mode encap segs "
		"fc00:2::b6\n" POLICIES);
	struct catch_seen c = { .n = 0 };

	ck_assert_int_eq(kencap_routes_assign(st(cfg), cfg, NULL, NULL), 0);
	ck_assert_uint_eq(markguard_rules(cfg, st(cfg), catch_rec, &c), 0);
	st(cfg)->kencap_on = st(cfg)->kend_on = true;
	ck_assert_uint_eq(markguard_rules(cfg, st(cfg), catch_rec, &c), 5);
	/* the marks from the default mark-mask's top (TOP: 0x2290) down:
	 * three encapsulations, then the End's, its catch table 65536 above;
	 * the main table's policies at 1003 (IPv6's first) */
	ck_assert_uint_eq(st(cfg)->sids[0].kend_mark, BASE + (TOP - 3));
	ck_assert_str_eq(c.line[0], "1001 fc00:100::1/128 0x5d70228d catch");
	ck_assert_uint_eq(BASE + (TOP - 3) + 65536, 0x5d70228du);
	ck_assert_str_eq(c.line[1], "1003 fd01:2::/64 0x5d6f228f");
	ck_assert_str_eq(c.line[2], "1003 fd01:3::/64 0x5d6f228e");
	ck_assert_str_eq(c.line[3], "1003 fd01:4::/64 0x5d6f228f");
	ck_assert_str_eq(c.line[4], "1003 10.5.0.0/16 0x5d6f2290");
	ck_assert_uint_eq(markguard_priority(cfg), 1001);
	/* the tenants' links (table 100: its policy's catch by iif, a goto
	 * past main's, its target; table 200 has no policy: the goto
	 * only; the main table's link none) */
	{
		static const struct markguard_link l[] = {
			{ "ta", 100, 100 }, { "tb", 200, 200 },
			{ "eth0", 254, 254 }, { "ta", 100, 100 },
		};

		ck_assert(markguard_set_links(l, 4));
		ck_assert(!markguard_set_links(l, 4));
	}
	c.n = 0;
	ck_assert_uint_eq(markguard_rules(cfg, st(cfg), catch_rec, &c), 12);
	ck_assert_str_eq(c.line[0], "1001 fc00:100::1/128 0x5d70228d catch");
	ck_assert_str_eq(c.line[1], "1001 iif ta fd01:6::/64 0x5d6f2290");
	ck_assert_str_eq(c.line[2], "1004 nop");
	ck_assert_str_eq(c.line[3], "1002 iif ta goto 1004");
	ck_assert_str_eq(c.line[4], "1002 iif tb goto 1004");
	ck_assert_str_eq(c.line[5], "1003 fd01:2::/64 0x5d6f228f");
	ck_assert_str_eq(c.line[8], "1004 nop");	/* IPv4's */
	ck_assert_str_eq(c.line[9], "1002 iif ta goto 1004");
	ck_assert_str_eq(c.line[11], "1003 10.5.0.0/16 0x5d6f2290");
	markguard_set_links(NULL, 0);
	/* a catch table past 32 bits goes below the range instead */
	ck_assert_uint_eq(markguard_catch_table(0xfffffff0u),
			  0xfffffff0u - 65536);
	cfree(cfg);
}
END_TEST

/* ip -6 rule add priority 1001 to fc00:100::/64 lookup T proto 93 */
START_TEST(catch_rule_message)
{
	uint8_t buf[RTRULES_MSG_SIZE], want[RTRULES_MSG_SIZE];
	struct in6_addr p;
	struct nlmsghdr *nlh;
	size_t n;

	inet_pton(AF_INET6, "fc00:100::", &p);
	nlh = rtrules_build_rule_to(buf, RTM_NEWRULE, 4, AF_INET6, 1001, &p,
				    64, BASE + 0x1fffc);
	n = hex2bin(
		"48000000 2000 0506 04000000 00000000"
		"0a 40 00 00 00 00 00 01 00000000"	/* dst_len 64, TO_TBL */
		"0800 0600 e9030000"			/* FRA_PRIORITY */
		"1400 0100 fc000100000000000000000000000000"	/* FRA_DST */
		"0800 0f00 fcff705d"			/* FRA_TABLE */
		"0500 1500 5d000000",			/* FRA_PROTOCOL 93 */
		want, sizeof(want));
	ck_assert_bytes(buf, nlh->nlmsg_len, want, n);
}
END_TEST

/* markguard_judge(): caught packets hold (counted once); held, a probe
 * window then a settle window; a window where a probe went and nothing
 * was caught ends kernel-end's hold, kernel-encap's takes two in a row;
 * a hold within MARKGUARD_EPISODE_MS of the last one's end is the same
 * one (holds not counted again); a counter made again counts from 0. */
START_TEST(judge_windows)
{
	struct markguard e = { .kind = MARKGUARD_END };
	struct markguard n = { .kind = MARKGUARD_ENCAP };
	uint64_t t = 1000;

	markguard_judge(&e, true, 0, 5, t, false);	/* primes */
	ck_assert(!e.held && e.primed && e.total == 0);
	markguard_judge(&e, true, 0, 5, t += 200, false);
	ck_assert(!e.held);
	markguard_judge(&e, true, 0, 9, t += 200, false);	/* 4 caught */
	ck_assert(e.held && e.armed && e.holds == 1 && e.total == 4);
	markguard_judge(&e, true, 0, 9, t += 200, true);	/* window ends */
	ck_assert(e.held && !e.armed && e.next_ms == t + MARKGUARD_SETTLE_MS);
	markguard_judge(&e, true, 0, 9, t += 50, false);	/* settled */
	ck_assert(!e.held);				/* kernel-end: one */
	/* caught again 1 s later: the same hold */
	markguard_judge(&e, true, 0, 10, t += 1000, false);
	ck_assert(e.held && e.holds == 1 && e.rehelds == 1);
	/* a probe went but was caught: held, the next window armed */
	markguard_judge(&e, true, 0, 10, t += 200, true);
	markguard_judge(&e, true, 0, 11, t += 50, false);
	ck_assert(e.held && e.armed);
	/* inactive: nothing held */
	markguard_judge(&e, false, 0, 0, t += 200, false);
	ck_assert(!e.held && !e.armed && !e.primed);

	markguard_judge(&n, true, 0, 0, t, false);
	markguard_judge(&n, true, 0, 3, t += 200, false);
	ck_assert(n.held && n.holds == 1);
	markguard_judge(&n, true, 0, 3, t += 200, true);
	markguard_judge(&n, true, 0, 3, t += 50, false);
	ck_assert(n.held && n.armed);		/* one clean window: not yet */
	markguard_judge(&n, true, 0, 3, t += 200, true);
	markguard_judge(&n, true, 0, 3, t += 50, false);
	ck_assert(!n.held);			/* two in a row */
	/* 3 s later, a reinstalled counter (smaller): all of it new */
	markguard_judge(&n, true, 0, 2, t += 3000, false);
	ck_assert(n.held && n.holds == 2 && n.total == 5);
	/* a read that fails changes nothing */
	markguard_judge(&n, true, -1, 0, t += 200, false);
	ck_assert(n.held && n.caught == 2);
}
END_TEST

static Suite *kencap_suite(void)
{
	Suite *s = suite_create("kencap");
	TCase *t = tcase_create("core");

	tcase_add_test(t, assign_marks);
	tcase_add_test(t, assign_stable);
	tcase_add_test(t, keep);
	tcase_add_test(t, directive);
	tcase_add_test(t, kend_assign);
	tcase_add_test(t, kend_assign_stable);
	tcase_add_test(t, kend_directive);
	tcase_add_test(t, kdecap_assign);
	tcase_add_test(t, kdecap_assign_stable);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	tcase_add_test(t, encap_route_message);
	tcase_add_test(t, throw_route_message);
	tcase_add_test(t, blackhole_route_message);
	tcase_add_test(t, blackhole_sid_route_message);
	tcase_add_test(t, watch_events);
	tcase_add_test(t, tunsrc_message);
	tcase_add_test(t, end_route_message);
	tcase_add_test(t, decap_route_message);
#endif
	tcase_add_test(t, install_fallback);
	tcase_add_test(t, catch_rules);
	tcase_add_test(t, catch_rule_message);
	tcase_add_test(t, judge_windows);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *r = srunner_create(kencap_suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
