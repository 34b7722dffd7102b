/* check_kpolicy.c - kernel seg6 encap routes' policies attached to their
 * FIB routes in the route mirror (kpolicy.h): attach, the same route
 * again, replace, delete, counters; and the steering lookup that weighs
 * them against srv6d.conf's policies (srv6_steer_lookup6/4()). */
#include <arpa/inet.h>
#include <check.h>
#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/rtnetlink.h>
#include <linux/seg6_iptunnel.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <urcu-qsbr.h>

#include "config.h"
#include "ctl_json.h"
#include "ctl_proto.h"
#include "kpolicy.h"
#include "process.h"
#include "routemsg.h"
#include "rtmirror.h"
#include "seg6route.h"
#include "testutil.h"

static struct in6_addr a6(const char *s)
{
	struct in6_addr a;

	ck_assert_int_eq(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

static struct in_addr a4(const char *s)
{
	struct in_addr a;

	ck_assert_int_eq(inet_pton(AF_INET, s, &a), 1);
	return a;
}

/* `encap seg6 mode M segs S[,T]` (an HMAC TLV with key id hmac when not
 * 0), as iproute2 and the kernel lay it out. */
static void put_seg6(struct nlmsghdr *nlh, int mode, const char *s1,
		     const char *s2, uint32_t hmac)
{
	const char *const segs[] = { s1, s2 };

	routemsg_put_seg6(nlh, mode, segs, s2 ? 2 : 1, hmac);
}

/* Apply an IPv6 route message with no encapsulation. */
static void route_apply(struct rtmirror *m, uint16_t type, const char *dst,
			unsigned plen, uint32_t table)
{
	ck_assert_int_eq(rtmirror_apply(m, routemsg_kernel(type, AF_INET6, dst,
							   plen, table)), 0);
}

/* Add (or replace) a seg6 encap route. */
static void seg6_add(struct rtmirror *m, int family, const char *dst,
		     unsigned plen, uint32_t table, const char *s1,
		     const char *s2, uint32_t hmac)
{
	struct nlmsghdr *nlh = routemsg_kernel(RTM_NEWROUTE, family, dst, plen,
					       table);

	nlh->nlmsg_flags = NLM_F_REPLACE;
	put_seg6(nlh, SEG6_IPTUN_MODE_ENCAP, s1, s2, hmac);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
}

static struct rtmirror *mirror(unsigned nworkers)
{
	struct rtmirror_opts o = { .seg6_routes = true, .nworkers = nworkers };
	struct rtmirror *m = rtmirror_new(&o);

	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(rtmirror_kpolicies(m));
	return m;
}

/* The policy attached to the route of table for dst, or NULL. */
static const struct kpolicy *kp6(const struct rtmirror *m, uint32_t table,
				 const char *dst)
{
	const struct fib_table *t = fib_table_get(rtmirror_fib(m), table);
	struct in6_addr a = a6(dst);
	const struct fib_route *r;

	ck_assert_ptr_nonnull(t);
	r = fib_lookup6(t, &a);
	ck_assert_ptr_nonnull(r);
	return r->encap;
}

static void assert_seg(const struct seglist *sl, unsigned i, const char *s)
{
	struct in6_addr a = a6(s);

	ck_assert_uint_gt(sl->nsegs, i);
	ck_assert(IN6_ARE_ADDR_EQUAL(&sl->segs[i], &a));
}

/* Attach, the same route again, replace, delete: each one route's work,
 * the policy freed a grace period after its route. */
START_TEST(test_attach_replace_delete)
{
	struct rtmirror *m = mirror(2);
	const struct kpolicy_db *db = rtmirror_kpolicies(m);
	const struct kpolicy *kp, *kp2;
	struct in6_addr want = a6("fc00:9::");
	struct nlmsghdr **msgs, *nlh;
	struct sid_stats sum;
	uint64_t v;

	seg6_add(m, AF_INET6, "fc00:9::", 64, 254, "fc00::a1", "fc00::a2", 0);
	kp = kp6(m, 254, "fc00:9::1");
	ck_assert_ptr_nonnull(kp);
	ck_assert_uint_eq(kpolicy_count(db), 1);
	ck_assert_uint_eq(kpolicy_nslots(db), 1);
	ck_assert_ptr_eq(kpolicy_at(db, 0), kp);
	ck_assert_int_eq(kp->pol.family, AF_INET6);
	ck_assert(IN6_ARE_ADDR_EQUAL(&kp->pol.prefix.v6, &want));
	ck_assert_uint_eq(kp->pol.plen, 64);
	ck_assert_uint_eq(kp->pol.table, 254);
	ck_assert_uint_eq(kp->pol.ktable, 254);
	ck_assert_int_eq(kp->pol.mode, ENCAP_MODE_ENCAP);
	ck_assert_uint_eq(kp->pol.nlists, 1);
	ck_assert_uint_eq(kp->pol.sl.nsegs, 2);
	assert_seg(&kp->pol.sl, 0, "fc00::a1");
	assert_seg(&kp->pol.sl, 1, "fc00::a2");
	ck_assert(!kp->pol.binding);
	ck_assert_uint_eq(kp->pol.index, 0);
	/* no rebuild: the seg6local set and its eventfd do not see it */
	ck_assert_int_lt(read(rtmirror_seg6_fd(m), &v, sizeof(v)), 0);
	ck_assert_int_eq(rtmirror_seg6_snapshot(m, &msgs), 0);
	seg6route_snapshot_free(msgs, 0);
	/* a policy object holds its segments only (beside the first
	 * chunk of the slot table) */
	ck_assert_uint_eq(kpolicy_memory(db) - KPOLICY_CHUNK * sizeof(void *),
			  offsetof(struct kpolicy, pol.lists) +
			  offsetof(struct seglist, segs) + 2 * 16);
	ck_assert_uint_lt(offsetof(struct kpolicy, pol.lists), 128);

	/* counters: per worker, summed */
	kpolicy_stats(db, 0, kp->pol.index)->packets = 3;
	kpolicy_stats(db, 1, kp->pol.index)->packets = 4;
	kpolicy_stats(db, 1, kp->pol.index)->bytes = 400;
	kpolicy_stats_sum(db, kp->pol.index, &sum);
	ck_assert_uint_eq(sum.packets, 7);
	ck_assert_uint_eq(sum.bytes, 400);

	/* the same route again (a resync's dump, no NLM_F_REPLACE):
	 * nothing changes */
	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc00:9::", 64, 254);
	put_seg6(nlh, SEG6_IPTUN_MODE_ENCAP, "fc00::a1", "fc00::a2", 0);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	rtmirror_reclaim(m);
	ck_assert_ptr_eq(kp6(m, 254, "fc00:9::1"), kp);
	ck_assert_uint_eq(kpolicy_count(db), 1);
	ck_assert_uint_eq(kpolicy_nslots(db), 1);	/* nothing built */
	kpolicy_stats_sum(db, kp->pol.index, &sum);
	ck_assert_uint_eq(sum.packets, 7);

	/* replace: a new policy; the old one lives until the grace period */
	seg6_add(m, AF_INET6, "fc00:9::", 64, 254, "fc00::b1", NULL, 0);
	kp2 = kp6(m, 254, "fc00:9::1");
	ck_assert_ptr_nonnull(kp2);
	ck_assert_ptr_ne(kp2, kp);
	ck_assert_uint_eq(kp2->pol.sl.nsegs, 1);
	assert_seg(&kp2->pol.sl, 0, "fc00::b1");
	ck_assert_uint_eq(kp2->pol.index, 1);
	ck_assert_uint_eq(kpolicy_count(db), 2);
	rtmirror_reclaim(m);
	ck_assert_uint_eq(kpolicy_count(db), 1);
	ck_assert_ptr_null(kpolicy_at(db, 0));
	ck_assert_ptr_eq(kpolicy_at(db, 1), kp2);

	/* delete: the route and its policy gone */
	route_apply(m, RTM_DELROUTE, "fc00:9::", 64, 254);
	rtmirror_reclaim(m);
	ck_assert_uint_eq(kpolicy_count(db), 0);
	ck_assert_ptr_null(kpolicy_at(db, 1));
	ck_assert_uint_eq(kpolicy_memory(db) - KPOLICY_CHUNK * sizeof(void *),
			  1024 * sizeof(uint32_t));	/* the free slots */

	/* a slot given back is reused, its counters zero */
	seg6_add(m, AF_INET, "10.9.0.0", 16, 101, "fc00::c1", NULL, 0);
	kp = ((const struct fib_route *)fib_lookup4(
		fib_table_get(rtmirror_fib(m), 101), a4("10.9.1.1")))->encap;
	ck_assert_ptr_nonnull(kp);
	ck_assert_uint_lt(kp->pol.index, 2);
	ck_assert_uint_eq(kpolicy_nslots(db), 2);
	kpolicy_stats_sum(db, kp->pol.index, &sum);
	ck_assert_uint_eq(sum.packets, 0);
	ck_assert_uint_eq(sum.bytes, 0);
	ck_assert_int_eq(kp->pol.family, AF_INET);
	ck_assert_uint_eq(kp->pol.table, 101);
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

/* What srv6d cannot apply (l2encap) stays a plain route, counted; a route
 * that stops being seg6 loses its policy. */
START_TEST(test_unsupported_and_plain)
{
	struct rtmirror *m = mirror(1);
	const struct kpolicy_db *db = rtmirror_kpolicies(m);
	struct rtmirror_stats st;
	struct nlmsghdr *nlh;

	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc00:8::", 64, 254);
	put_seg6(nlh, SEG6_IPTUN_MODE_L2ENCAP, "fc00::a1", NULL, 0);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	ck_assert_ptr_null(kp6(m, 254, "fc00:8::1"));
	rtmirror_get_stats(m, &st);
	ck_assert_uint_eq(st.kpol_unsupported, 1);
	ck_assert_uint_eq(kpolicy_count(db), 0);

	seg6_add(m, AF_INET6, "fc00:7::", 64, 254, "fc00::a1", NULL, 0);
	ck_assert_ptr_nonnull(kp6(m, 254, "fc00:7::1"));
	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc00:7::", 64, 254);
	nlh->nlmsg_flags = NLM_F_REPLACE;
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	ck_assert_ptr_null(kp6(m, 254, "fc00:7::1"));
	rtmirror_reclaim(m);
	ck_assert_uint_eq(kpolicy_count(db), 0);
	rtmirror_free(m);
}
END_TEST

/* A copy of a message, for a dump of several (free it). */
static struct nlmsghdr *msg_dup(const struct nlmsghdr *nlh)
{
	struct nlmsghdr *c = malloc(nlh->nlmsg_len);

	ck_assert_ptr_nonnull(c);
	memcpy(c, nlh, nlh->nlmsg_len);
	return c;
}

/* A route of table 254 with `encap seg6 mode mode segs seg`, copied. */
static struct nlmsghdr *seg6_dup(const char *dst, int mode, const char *seg)
{
	struct nlmsghdr *nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, dst, 64,
					       254);

	put_seg6(nlh, mode, seg, NULL, 0);
	return msg_dup(nlh);
}

static uint64_t unsupported(const struct rtmirror *m)
{
	struct rtmirror_stats st;

	rtmirror_get_stats(m, &st);
	return st.kpol_unsupported;
}

/* A route srv6d cannot apply (l2encap) is counted once: a resync's dump
 * that shows it again does not count it again, nor does the next; an
 * event does (a new route message), and so does a dump that shows it
 * for the first time or turns a route srv6d applies into one it cannot. */
START_TEST(test_unsupported_resync)
{
	struct rtmirror *m = mirror(1);
	struct nlmsghdr *dump[2], *turned[2];
	struct rtmirror_stats st;
	struct nlmsghdr *nlh;

	dump[0] = seg6_dup("fc00:8::", SEG6_IPTUN_MODE_L2ENCAP, "fc00::a1");
	dump[1] = seg6_dup("fc00:7::", SEG6_IPTUN_MODE_ENCAP, "fc00::a2");
	rtmirror_dump_apply(m, (const struct nlmsghdr *const *)dump, 2);
	ck_assert_uint_eq(unsupported(m), 1);
	ck_assert_ptr_null(kp6(m, 254, "fc00:8::1"));	/* a plain route */
	ck_assert_ptr_nonnull(kp6(m, 254, "fc00:7::1"));
	for (unsigned i = 0; i < 2; i++) {	/* resyncs: the same dump */
		rtmirror_dump_apply(m, (const struct nlmsghdr *const *)dump, 2);
		rtmirror_reclaim(m);
		ck_assert_uint_eq(unsupported(m), 1);
		ck_assert_ptr_null(kp6(m, 254, "fc00:8::1"));
		ck_assert_ptr_nonnull(kp6(m, 254, "fc00:7::1"));
	}
	rtmirror_get_stats(m, &st);
	ck_assert_uint_eq(st.resyncs, 3);
	ck_assert_uint_eq(st.swept, 0);
	ck_assert_uint_eq(st.errors, 0);
	ck_assert_uint_eq(kpolicy_count(rtmirror_kpolicies(m)), 1);

	/* an event (`ip route replace`): counted */
	nlh = routemsg_kernel(RTM_NEWROUTE, AF_INET6, "fc00:8::", 64, 254);
	nlh->nlmsg_flags = NLM_F_REPLACE;
	put_seg6(nlh, SEG6_IPTUN_MODE_L2ENCAP, "fc00::a1", NULL, 0);
	ck_assert_int_eq(rtmirror_apply(m, nlh), 0);
	ck_assert_uint_eq(unsupported(m), 2);

	/* fc00:7:: turned l2encap while events were lost: counted, its
	 * policy gone */
	turned[0] = dump[0];
	turned[1] = seg6_dup("fc00:7::", SEG6_IPTUN_MODE_L2ENCAP, "fc00::a2");
	rtmirror_dump_apply(m, (const struct nlmsghdr *const *)turned, 2);
	rtmirror_reclaim(m);
	ck_assert_uint_eq(unsupported(m), 3);
	ck_assert_ptr_null(kp6(m, 254, "fc00:7::1"));
	ck_assert_uint_eq(kpolicy_count(rtmirror_kpolicies(m)), 0);

	/* a dump without fc00:8:: sweeps it; the next that shows it again
	 * shows a new route: counted */
	rtmirror_dump_apply(m, (const struct nlmsghdr *const *)&dump[1], 1);
	ck_assert_uint_eq(unsupported(m), 3);
	ck_assert_uint_eq(fib_count(rtmirror_fib(m), 254, AF_INET6), 1);
	rtmirror_dump_apply(m, (const struct nlmsghdr *const *)dump, 2);
	ck_assert_uint_eq(unsupported(m), 4);
	rtmirror_reclaim(m);
	free(dump[0]);
	free(dump[1]);
	free(turned[1]);
	rtmirror_free(m);
}
END_TEST

/* ---- the steering lookup: srv6d.conf's policies and the kernel's ---- */

static const char conf[] =
	"queue 0\n"
	"kernel-routes yes\n"
	"route fc00:9::/32 encap seg6 mode encap segs fc00::f1\n"
	"route fc00:9:1::/64 encap seg6 mode encap segs fc00::f2\n"
	"route fc00:9:3::/48 encap seg6 mode encap segs fc00::f6\n"
	"route fc00:7::/64 table 101 encap seg6 mode encap segs fc00::f3\n"
	"route 10.9.0.0/16 encap seg6 mode encap segs fc00::f4\n";

struct steer {
	struct rtmirror *m;
	struct config *cfg;
	struct sid_stats pstats[8];
	struct proc_ctx ctx;
};

static void steer_setup(struct steer *s, const char *text)
{
	memset(s, 0, sizeof(*s));
	s->cfg = config_parse_buffer("t.conf", text, strlen(text), NULL, NULL);
	ck_assert_ptr_nonnull(s->cfg);
	s->m = mirror(2);
	s->ctx.cfg = s->cfg;
	s->ctx.mirror = s->m;
	s->ctx.worker = 1;
	s->ctx.policy_stats = s->pstats;
	/* main */
	seg6_add(s->m, AF_INET6, "fc00:9:1::", 64, 254, "fc00::e1", NULL, 0);
	seg6_add(s->m, AF_INET6, "fc00:9:2::", 64, 254, "fc00::e2", NULL, 0);
	seg6_add(s->m, AF_INET6, "fc00:9::", 40, 254, "fc00::e3", NULL, 0);
	route_apply(s->m, RTM_NEWROUTE, "fc00:9:2:0:5::", 80, 254);
	seg6_add(s->m, AF_INET, "10.9.1.0", 24, 254, "fc00::e6", NULL, 0);
	seg6_add(s->m, AF_INET6, "fc00:6::", 64, 254, "fc00::e7", NULL, 7);
	/* table 101 */
	seg6_add(s->m, AF_INET6, "fc00:7::", 64, 101, "fc00::e4", NULL, 0);
	seg6_add(s->m, AF_INET6, "fc00:8::", 64, 101, "fc00::e5", NULL, 0);
}

static void steer_teardown(struct steer *s)
{
	rtmirror_reclaim(s->m);
	rtmirror_free(s->m);
	config_free(s->cfg);
}

/* The first segment of the policy steering dst in table ("-": none);
 * *kernel: whether it is a kernel route's. */
static const char *steer6(struct steer *s, uint32_t table, const char *dst,
			  bool *kernel)
{
	static char out[INET6_ADDRSTRLEN];
	struct in6_addr a = a6(dst);
	struct sid_stats *st = NULL;
	const struct policy *p;

	p = srv6_steer_lookup6(&s->ctx, table, &a, &st);
	if (!p)
		return "-";
	ck_assert_ptr_nonnull(st);
	*kernel = p->ktable != 0;
	if (*kernel)
		ck_assert_ptr_eq(st, kpolicy_stats(rtmirror_kpolicies(s->m), 1,
						   p->index));
	else
		ck_assert_ptr_eq(st, &s->pstats[p->index]);
	inet_ntop(AF_INET6, &p->sl.segs[0], out, sizeof(out));
	return out;
}

static const char *steer4(struct steer *s, uint32_t table, const char *dst,
			  bool *kernel)
{
	static char out[INET6_ADDRSTRLEN];
	struct sid_stats *st = NULL;
	const struct policy *p;

	p = srv6_steer_lookup4(&s->ctx, table, a4(dst), &st);
	if (!p)
		return "-";
	*kernel = p->ktable != 0;
	inet_ntop(AF_INET6, &p->sl.segs[0], out, sizeof(out));
	return out;
}

START_TEST(test_steer_precedence)
{
	struct steer s;
	bool k = false;

	steer_setup(&s, conf);
	/* the same (table, prefix): srv6d.conf */
	ck_assert_str_eq(steer6(&s, 254, "fc00:9:1::1", &k), "fc00::f2");
	ck_assert(!k);
	/* the kernel's longer prefix */
	ck_assert_str_eq(steer6(&s, 254, "fc00:9:2::1", &k), "fc00::e2");
	ck_assert(k);
	/* a more specific plain route hides the kernel's /64 (as in the
	 * kernel): srv6d.conf's /32 */
	ck_assert_str_eq(steer6(&s, 254, "fc00:9:2:0:5::1", &k), "fc00::f1");
	ck_assert(!k);
	/* srv6d.conf's /48 over the kernel's /40 */
	ck_assert_str_eq(steer6(&s, 254, "fc00:9:3::1", &k), "fc00::f6");
	ck_assert(!k);
	/* the kernel's /40 over srv6d.conf's /32 */
	ck_assert_str_eq(steer6(&s, 254, "fc00:9:ff::1", &k), "fc00::e3");
	ck_assert(k);
	/* outside the kernel's routes: srv6d.conf's /32 */
	ck_assert_str_eq(steer6(&s, 254, "fc00:9:100::1", &k), "fc00::f1");
	ck_assert(!k);
	ck_assert_str_eq(steer6(&s, 254, "fc00:5::1", &k), "-");
	/* an HMAC key srv6d.conf lacks: left to the kernel */
	ck_assert_str_eq(steer6(&s, 254, "fc00:6::1", &k), "-");
	/* tables: each its own */
	ck_assert_str_eq(steer6(&s, 101, "fc00:7::1", &k), "fc00::f3");
	ck_assert(!k);
	ck_assert_str_eq(steer6(&s, 101, "fc00:8::1", &k), "fc00::e5");
	ck_assert(k);
	ck_assert_str_eq(steer6(&s, 254, "fc00:8::1", &k), "-");
	ck_assert_str_eq(steer6(&s, 101, "fc00:9:2::1", &k), "-");
	ck_assert_str_eq(steer6(&s, 102, "fc00:8::1", &k), "-");
	/* IPv4 */
	ck_assert_str_eq(steer4(&s, 254, "10.9.1.1", &k), "fc00::e6");
	ck_assert(k);
	ck_assert_str_eq(steer4(&s, 254, "10.9.2.1", &k), "fc00::f4");
	ck_assert(!k);
	ck_assert_str_eq(steer4(&s, 101, "10.9.1.1", &k), "-");
	/* a table of srv6d's range (mark-base on) is never steered by the
	 * kernel's routes */
	seg6_add(s.m, AF_INET6, "fc00:8::", 64, CONFIG_DEFAULT_MARK_BASE + 5,
		 "fc00::e8", NULL, 0);
	ck_assert_str_eq(steer6(&s, CONFIG_DEFAULT_MARK_BASE + 5, "fc00:8::1",
				&k), "-");
	steer_teardown(&s);
}
END_TEST

/* With the HMAC key in srv6d.conf the kernel's route steers; without
 * kernel-routes, kernel routes never do. */
START_TEST(test_steer_hmac_and_off)
{
	char text[1024], key[] = "/tmp/check_kpolicy.XXXXXX";
	int fd = mkstemp(key);
	struct steer s;
	bool k = false;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "secret\n", 7), 7);
	close(fd);
	snprintf(text, sizeof(text), "%shmac 7 sha256 secret-file %s\n", conf,
		 key);
	steer_setup(&s, text);
	unlink(key);
	ck_assert_str_eq(steer6(&s, 254, "fc00:6::1", &k), "fc00::e7");
	ck_assert(k);
	steer_teardown(&s);

	snprintf(text, sizeof(text), "queue 0\n"
		 "route fc00:9::/32 encap seg6 mode encap segs fc00::f1\n");
	steer_setup(&s, text);
	ck_assert_str_eq(steer6(&s, 254, "fc00:9:2::1", &k), "fc00::f1");
	ck_assert(!k);
	ck_assert_str_eq(steer6(&s, 254, "fc00:9:ff::1", &k), "fc00::f1");
	ck_assert(!k);
	ck_assert_str_eq(steer6(&s, 254, "fc00:6::1", &k), "-");
	ck_assert_str_eq(steer6(&s, 101, "fc00:8::1", &k), "-");
	steer_teardown(&s);
}
END_TEST

/* A packet the kernel's seg6 route steers, through srv6_process(): the
 * same bytes as the kernel's own encapsulation (check_headend.c's capture
 * 1: `encap seg6 mode encap segs fc00:a::1`, its forwarding decrement
 * undone), counted in the route's policy, this worker's slot. */
START_TEST(test_steer_packet)
{
	static const char in[] =
		"6b91234500151132fc000012000000000000000000000001fc000100000100000000"
		"00000000000104d2162e00150a9f73727636642d68656164656e64";
	static const char cap[] =
		"6b91234500552b31fc0000ff000000000000000000000001fc00000a0000000000"
		"00000000000001"
		"2902040000000000fc00000a000000000000000000000001"
		"6b91234500151132fc000012000000000000000000000001fc000100000100000000"
		"00000000000104d2162e00150a9f73727636642d68656164656e64";
	static const char text[] = "queue 0-1\nencap-source fc00:ff::1\n"
				   "kernel-routes yes\n";
	static struct test_slot slot;
	struct worker_stats ws = { 0 };
	struct sid_stats sum, pst[1];
	const struct kpolicy *kp;
	uint8_t buf[512], want[512];
	struct proc_ctx ctx = { 0 };
	struct rtmirror *m = mirror(2);
	struct config *cfg;
	size_t len, wlen;
	struct pkt *p;

	cfg = config_parse_buffer("t.conf", text, sizeof(text) - 1, NULL, NULL);
	ck_assert_ptr_nonnull(cfg);
	seg6_add(m, AF_INET6, "fc00:100:1::", 64, 254, "fc00:a::1", NULL, 0);
	kp = kp6(m, 254, "fc00:100:1::1");
	ck_assert_ptr_nonnull(kp);
	ctx.cfg = cfg;
	ctx.mirror = m;
	ctx.worker = 1;
	ctx.stats = &ws;
	ctx.policy_stats = pst;
	len = hex2bin(in, buf, sizeof(buf));
	wlen = hex2bin(cap, want, sizeof(want));
	want[7]++;
	p = test_pkt(&slot, buf, len, ETH_P_IPV6);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, wlen);
	ck_assert_ptr_eq(p->st, kpolicy_stats(rtmirror_kpolicies(m), 1,
					      kp->pol.index));
	kpolicy_stats_sum(rtmirror_kpolicies(m), kp->pol.index, &sum);
	ck_assert_uint_eq(sum.packets, 1);
	ck_assert_uint_eq(sum.bytes, len);
	ck_assert_uint_eq(sum.errors, 0);
	ck_assert_uint_eq(kpolicy_stats(rtmirror_kpolicies(m), 0,
					kp->pol.index)->packets, 0);
	ck_assert_uint_eq(ws.unmatched, 0);
	/* deleted: unmatched, accepted unchanged (the kernel's own route) */
	route_apply(m, RTM_DELROUTE, "fc00:100:1::", 64, 254);
	p = test_pkt(&slot, buf, len, ETH_P_IPV6);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_ACCEPT);
	ck_assert_uint_eq(ws.unmatched, 1);
	rtmirror_reclaim(m);
	rtmirror_free(m);
	config_free(cfg);
}
END_TEST

/* The control documents: kernel policies listed up to
 * CTL_KPOLICIES_LISTED (status: CTL_STATUS_KPOLICIES_LISTED), the rest
 * counted; `policy show P/L` finds one
 * anyway, with its origin and table. */
START_TEST(test_ctl_documents)
{
	struct rtmirror *m = mirror(1);
	struct ctl_kroutes kr = { .enabled = true };
	struct ctl_status_src src = { .mirror = m, .kroutes = &kr };
	char dst[64], *text;
	uint16_t st;
	json_t *doc, *p;

	for (unsigned i = 0; i < CTL_KPOLICIES_LISTED + 3; i++) {
		snprintf(dst, sizeof(dst), "fc00:%x:%x::", 1 + i / 65536,
			 i % 65536);
		seg6_add(m, AF_INET6, dst, 48, 101 + i % 2, "fc00::a1", NULL, 0);
	}
	rcu_register_thread();
	doc = ctl_policies_json(&src);
	ck_assert_ptr_nonnull(doc);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "policies")),
			  CTL_KPOLICIES_LISTED);
	ck_assert_int_eq(json_integer_value(json_object_get(doc,
					    "policies_unlisted")), 3);
	json_decref(doc);
	/* status is a summary: a few kernel policies, the rest counted,
	 * its document small (10,000 listed made 3.6 MB) */
	doc = ctl_status_json(&src);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "policies")),
			  CTL_STATUS_KPOLICIES_LISTED);
	ck_assert_int_eq(json_integer_value(json_object_get(doc,
					    "policies_unlisted")),
			 CTL_KPOLICIES_LISTED + 3 - CTL_STATUS_KPOLICIES_LISTED);
	ck_assert_int_eq(json_integer_value(json_object_get(
		json_object_get(doc, "kernel_routes"), "policies")),
			 CTL_KPOLICIES_LISTED + 3);
	text = json_dumps(doc, JSON_COMPACT);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_lt(strlen(text), 64 * 1024);
	free(text);
	json_decref(doc);
	doc = ctl_policy_find_json(&src, "fc00:1:2711::/48", &st);
	ck_assert_uint_eq(st, CTL_OK);
	p = json_array_get(json_object_get(doc, "policies"), 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(json_string_value(json_object_get(p, "origin")),
			 "kernel");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "table")), 102);
	ck_assert_int_eq(json_integer_value(json_object_get(p,
					    "kernel_table")), 102);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "policies")), 1);
	json_decref(doc);
	rcu_unregister_thread();
	rtmirror_reclaim(m);
	rtmirror_free(m);
}
END_TEST

static Suite *kpolicy_suite(void)
{
	Suite *s = suite_create("kpolicy");
	TCase *tc = tcase_create("fib");

	tcase_add_test(tc, test_attach_replace_delete);
	tcase_add_test(tc, test_unsupported_and_plain);
	tcase_add_test(tc, test_unsupported_resync);
	suite_add_tcase(s, tc);
	tc = tcase_create("steering");
	tcase_add_test(tc, test_steer_precedence);
	tcase_add_test(tc, test_steer_hmac_and_off);
	tcase_add_test(tc, test_steer_packet);
	tcase_add_test(tc, test_ctl_documents);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(kpolicy_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
