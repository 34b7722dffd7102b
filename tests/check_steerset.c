/* check_steerset.c - the kernel routes' prefixes as nft set elements
 * (steerset.h): only the top prefixes are elements, a change gives only
 * what differs, coalesced, deletions before additions. */
#include <arpa/inet.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steerset.h"

static struct rtmirror_kroute kr(int family, uint32_t table, const char *a,
				 uint8_t plen, int delta)
{
	struct rtmirror_kroute k = { .family = (uint8_t)family,
				     .plen = plen, .delta = (int8_t)delta,
				     .table = table };

	ck_assert_int_eq(inet_pton(family, a, k.addr), 1);
	return k;
}

/* "+a/p" or "-a/p" for each element of d, space separated. */
static const char *delta_str(const struct steerset_delta *d)
{
	static char buf[1024];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < d->n; i++) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(d->e[i].family, d->e[i].addr, a, sizeof(a));
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"%s%c%s/%u@%u", i ? " " : "",
					d->e[i].add ? '+' : '-', a,
					d->e[i].plen, d->e[i].table);
	}
	return buf;
}

static void apply1(struct steerset *s, struct rtmirror_kroute k,
		   struct steerset_delta *d)
{
	ck_assert_int_eq(steerset_apply(s, &k, 1, d), 0);
}

START_TEST(test_top_prefixes)
{
	struct steerset *s = steerset_new();
	struct steerset_delta d = { 0 };
	struct rtmirror_kroute l[] = {
		kr(AF_INET, 10, "10.1.0.0", 16, 1),
		kr(AF_INET, 10, "10.0.0.0", 8, 1),
		kr(AF_INET, 10, "10.2.3.0", 24, 1),
		kr(AF_INET, 10, "192.168.0.0", 24, 1),
		kr(AF_INET6, 254, "fc00:9::", 64, 1),
	};

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(steerset_apply(s, l, 5, &d), 0);
	/* the /16 and /24 inside 10/8 are no elements */
	ck_assert_str_eq(delta_str(&d), "+fc00:9::/64@254 +10.0.0.0/8@10 "
			 "+192.168.0.0/24@10");
	ck_assert(d.tables_changed);
	ck_assert_uint_eq(steerset_prefixes(s), 5);
	ck_assert_uint_eq(steerset_count(s), 3);
	/* a prefix inside another: no element changes */
	apply1(s, kr(AF_INET, 10, "10.9.0.0", 16, 1), &d);
	ck_assert_uint_eq(d.n, 0);
	ck_assert(!d.tables_changed);
	/* the covering one goes: its top children come */
	apply1(s, kr(AF_INET, 10, "10.0.0.0", 8, -1), &d);
	ck_assert_str_eq(delta_str(&d), "-10.0.0.0/8@10 +10.1.0.0/16@10 "
			 "+10.2.3.0/24@10 +10.9.0.0/16@10");
	/* and back: the children go, deletions first */
	apply1(s, kr(AF_INET, 10, "10.0.0.0", 8, 1), &d);
	ck_assert_str_eq(delta_str(&d), "-10.1.0.0/16@10 -10.2.3.0/24@10 "
			 "-10.9.0.0/16@10 +10.0.0.0/8@10");
	steerset_delta_free(&d);
	steerset_free(s);
}
END_TEST

START_TEST(test_coalesced)
{
	struct steerset *s = steerset_new();
	struct steerset_delta d = { 0 };
	struct rtmirror_kroute l[] = {
		kr(AF_INET6, 10, "fc00:9:b::", 48, 1),
		kr(AF_INET6, 10, "fc00:9:b::", 48, 1),	/* another metric */
		kr(AF_INET6, 10, "fc00:9:c::", 48, 1),
		kr(AF_INET6, 10, "fc00:9:c::", 48, -1),	/* came and went */
		kr(AF_INET6, 10, "fc00:9:a::", 48, -1),	/* never came */
	};

	ck_assert_int_eq(steerset_apply(s, l, 5, &d), 0);
	ck_assert_str_eq(delta_str(&d), "+fc00:9:b::/48@10");
	ck_assert_uint_eq(steerset_unbalanced(s), 1);
	/* one of its two routes goes: still there */
	apply1(s, kr(AF_INET6, 10, "fc00:9:b::", 48, -1), &d);
	ck_assert_uint_eq(d.n, 0);
	apply1(s, kr(AF_INET6, 10, "fc00:9:b::", 48, -1), &d);
	ck_assert_str_eq(delta_str(&d), "-fc00:9:b::/48@10");
	ck_assert(d.tables_changed);
	ck_assert_uint_eq(steerset_count(s), 0);
	/* one table's change leaves the others' elements alone */
	apply1(s, kr(AF_INET6, 20, "fc00:9:b::", 48, 1), &d);
	apply1(s, kr(AF_INET6, 30, "fc00:9:b::", 48, 1), &d);
	ck_assert_str_eq(delta_str(&d), "+fc00:9:b::/48@30");
	steerset_delta_free(&d);
	steerset_free(s);
}
END_TEST

START_TEST(test_interval)
{
	struct steerset_elem e = { .family = AF_INET, .plen = 24 };
	uint8_t from[16], to[16];
	bool has_to;

	inet_pton(AF_INET, "10.2.255.0", e.addr);
	steerset_interval(&e, from, to, &has_to);
	ck_assert(has_to);
	ck_assert_mem_eq(from, "\x0a\x02\xff\x00", 4);
	ck_assert_mem_eq(to, "\x0a\x03\x00\x00", 4);
	inet_pton(AF_INET, "255.255.255.252", e.addr);
	e.plen = 30;
	steerset_interval(&e, from, to, &has_to);
	ck_assert(!has_to);	/* the top of the space: no end element */
	e.family = AF_INET6;
	memset(e.addr, 0, 16);
	e.addr[0] = 0xfc;
	e.plen = 7;
	steerset_interval(&e, from, to, &has_to);
	ck_assert(has_to);
	ck_assert_uint_eq(to[0], 0xfe);
	ck_assert_uint_eq(to[15], 0);
}
END_TEST

START_TEST(test_many)
{
	struct steerset *s = steerset_new();
	struct steerset_delta d = { 0 };
	enum { N = 100000 };
	struct rtmirror_kroute *l = calloc(N, sizeof(*l));

	/* N adjacent /24s, in reverse order: N elements */
	for (unsigned i = 0; i < N; i++) {
		l[i].family = AF_INET;
		l[i].plen = 24;
		l[i].delta = 1;
		l[i].table = 254;
		l[i].addr[0] = (uint8_t)(20 + ((N - 1 - i) >> 16));
		l[i].addr[1] = (uint8_t)((N - 1 - i) >> 8);
		l[i].addr[2] = (uint8_t)(N - 1 - i);
	}
	ck_assert_int_eq(steerset_apply(s, l, N, &d), 0);
	ck_assert_uint_eq(d.n, N);
	ck_assert_uint_eq(d.e[0].addr[2], 0);	/* sorted */
	apply1(s, kr(AF_INET, 254, "20.0.5.0", 24, -1), &d);
	ck_assert_str_eq(delta_str(&d), "-20.0.5.0/24@254");
	free(l);
	steerset_delta_free(&d);
	steerset_free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("steerset");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_top_prefixes);
	tcase_add_test(tc, test_coalesced);
	tcase_add_test(tc, test_interval);
	tcase_add_test(tc, test_many);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
