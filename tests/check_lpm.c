/* check_lpm.c - the LPM table against a naive linear reference. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lpm.h"
#include "testutil.h"

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64*: fixed seed, the same sequence on every run. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static struct in6_addr addr6(const char *s)
{
	struct in6_addr a;

	ck_assert_int_eq(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

static void mask_addr(struct in6_addr *a, unsigned plen)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned bits = plen > i * 8 ? plen - i * 8 : 0;

		if (bits < 8)
			a->s6_addr[i] &= (uint8_t)(0xff00 >> bits);
	}
}

static int covers(const struct in6_addr *pfx, unsigned plen,
		  const struct in6_addr *a)
{
	struct in6_addr m = *a;

	mask_addr(&m, plen);
	return memcmp(&m, pfx, sizeof(m)) == 0;
}

struct ref_entry {
	struct in6_addr pfx;
	unsigned plen;
	int value;
};

#define NPREFIX	4000
#define NLOOKUP	20000

static struct ref_entry ref[NPREFIX];
static unsigned nref;

static struct ref_entry *ref_lookup(const struct in6_addr *a)
{
	struct ref_entry *best = NULL;

	for (unsigned i = 0; i < nref; i++)
		if (covers(&ref[i].pfx, ref[i].plen, a) &&
		    (!best || ref[i].plen > best->plen))
			best = &ref[i];
	return best;
}

static struct ref_entry *ref_find(const struct in6_addr *pfx, unsigned plen)
{
	for (unsigned i = 0; i < nref; i++)
		if (ref[i].plen == plen && !memcmp(&ref[i].pfx, pfx, sizeof(*pfx)))
			return &ref[i];
	return NULL;
}

/* Prefixes clustered under a few /16s so that they nest and collide. */
static void random_prefix(struct in6_addr *a, unsigned *plen)
{
	static const uint16_t tops[] = { 0x2001, 0xfc00, 0xfd00, 0x0000 };

	for (int i = 0; i < 16; i += 8) {
		uint64_t r = rng();

		memcpy(&a->s6_addr[i], &r, 8);
	}
	a->s6_addr[0] = (uint8_t)(tops[rng() % 4] >> 8);
	a->s6_addr[1] = (uint8_t)tops[rng() % 4];
	if (rng() % 4 == 0) {	/* v4-mapped */
		memset(a->s6_addr, 0, 10);
		a->s6_addr[10] = a->s6_addr[11] = 0xff;
		*plen = 96 + (unsigned)(rng() % 33);
	} else {
		/* Few short lengths, many long ones: real tables look so. */
		static const unsigned lens[] = { 8, 16, 20, 24, 32, 40, 48, 56,
						 60, 64, 64, 64, 80, 96, 112,
						 120, 124, 127, 128, 128 };
		*plen = lens[rng() % (sizeof(lens) / sizeof(lens[0]))];
	}
	mask_addr(a, *plen);
}

START_TEST(test_random_vs_reference)
{
	struct lpm *t = lpm_new();
	unsigned hits = 0, dups = 0;

	ck_assert_ptr_nonnull(t);
	rng_state = 0x5d6f2024cafef00dULL;
	nref = 0;
	while (nref < NPREFIX) {
		struct in6_addr a;
		unsigned plen;
		int rc;

		random_prefix(&a, &plen);
		rc = lpm_insert(t, &a, plen, &ref[nref]);
		if (ref_find(&a, plen)) {
			ck_assert_int_eq(rc, -EEXIST);
			dups++;
			continue;
		}
		ck_assert_int_eq(rc, 0);
		ref[nref].pfx = a;
		ref[nref].plen = plen;
		ref[nref].value = (int)nref;
		nref++;
	}
	for (unsigned i = 0; i < nref; i++)
		ck_assert_ptr_eq(lpm_get(t, &ref[i].pfx, ref[i].plen), &ref[i]);

	for (unsigned i = 0; i < NLOOKUP; i++) {
		struct in6_addr a;
		struct ref_entry *want;

		if (i % 2) {
			/* An address inside a known prefix, random host bits:
			 * it may also match a longer one. */
			const struct ref_entry *e = &ref[rng() % nref];
			uint64_t r1 = rng(), r2 = rng();

			memcpy(&a.s6_addr[0], &r1, 8);
			memcpy(&a.s6_addr[8], &r2, 8);
			for (unsigned b = 0; b < e->plen; b++) {
				uint8_t bit = (uint8_t)(0x80 >> (b % 8));

				a.s6_addr[b / 8] = (uint8_t)((a.s6_addr[b / 8] & ~bit) |
							     (e->pfx.s6_addr[b / 8] & bit));
			}
		} else {
			unsigned plen;

			random_prefix(&a, &plen);
			a.s6_addr[15] ^= (uint8_t)rng();
			if (i % 4 == 0)	/* anywhere: mostly no match */
				a.s6_addr[0] = (uint8_t)rng();
		}
		want = ref_lookup(&a);
		ck_assert_ptr_eq(lpm_lookup(t, &a), want);
		if (want)
			hits++;
	}
	/* The test must exercise both outcomes. */
	ck_assert_uint_ge(hits, NLOOKUP / 2);
	ck_assert_uint_lt(hits, NLOOKUP);
	ck_assert_uint_gt(dups, 0);
	lpm_free(t);
}
END_TEST

START_TEST(test_empty)
{
	struct lpm *t = lpm_new();
	struct in6_addr a = addr6("2001:db8::1");

	ck_assert_ptr_null(lpm_lookup(t, &a));
	ck_assert_ptr_null(lpm_get(t, &a, 128));
	ck_assert_ptr_null(lpm_get(t, &a, 0));
	lpm_free(t);
	lpm_free(NULL);
}
END_TEST

START_TEST(test_default_route)
{
	struct lpm *t = lpm_new();
	struct in6_addr any = addr6("::"), a = addr6("2001:db8::1");
	struct in6_addr ones = addr6("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
	int v0, v1;

	ck_assert_int_eq(lpm_insert(t, &any, 0, &v0), 0);
	ck_assert_ptr_eq(lpm_lookup(t, &a), &v0);
	ck_assert_ptr_eq(lpm_lookup(t, &ones), &v0);
	ck_assert_ptr_eq(lpm_lookup(t, &any), &v0);
	/* Bits past plen are ignored: ::/0 again under another spelling. */
	ck_assert_int_eq(lpm_insert(t, &a, 0, &v1), -EEXIST);
	ck_assert_ptr_eq(lpm_get(t, &ones, 0), &v0);
	lpm_free(t);
}
END_TEST

START_TEST(test_host_routes)
{
	struct lpm *t = lpm_new();
	struct in6_addr a = addr6("2001:db8::1"), b = addr6("2001:db8::2");
	struct in6_addr ones = addr6("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
	struct in6_addr ones_but_one = addr6("ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe");
	struct in6_addr p64 = addr6("2001:db8::");
	int va, vo, v64;

	ck_assert_int_eq(lpm_insert(t, &a, 128, &va), 0);
	ck_assert_int_eq(lpm_insert(t, &ones, 128, &vo), 0);
	ck_assert_int_eq(lpm_insert(t, &p64, 64, &v64), 0);
	ck_assert_ptr_eq(lpm_lookup(t, &a), &va);
	ck_assert_ptr_eq(lpm_lookup(t, &b), &v64);
	ck_assert_ptr_eq(lpm_lookup(t, &ones), &vo);
	ck_assert_ptr_null(lpm_lookup(t, &ones_but_one));
	ck_assert_int_eq(lpm_insert(t, &a, 128, &vo), -EEXIST);
	ck_assert_ptr_eq(lpm_get(t, &a, 128), &va);	/* value unchanged */
	ck_assert_ptr_null(lpm_get(t, &b, 128));
	ck_assert_ptr_eq(lpm_get(t, &b, 64), &v64);
	ck_assert_int_eq(lpm_insert(t, &a, 129, &va), -EINVAL);
	lpm_free(t);
}
END_TEST

START_TEST(test_v4_mapped)
{
	struct lpm *t = lpm_new();
	struct in6_addr k, k24, k0, k32;
	struct in_addr v4;
	int v24, v0, v32;

	inet_pton(AF_INET, "10.9.1.0", &v4);
	lpm_v4_key(&k24, v4);
	ck_assert_int_eq(lpm_insert(t, &k24, 96 + 24, &v24), 0);
	inet_pton(AF_INET, "0.0.0.0", &v4);
	lpm_v4_key(&k0, v4);
	ck_assert_int_eq(lpm_insert(t, &k0, 96 + 0, &v0), 0);
	inet_pton(AF_INET, "10.9.1.77", &v4);
	lpm_v4_key(&k32, v4);
	ck_assert_int_eq(lpm_insert(t, &k32, 96 + 32, &v32), 0);

	ck_assert_ptr_eq(lpm_lookup(t, &k32), &v32);
	inet_pton(AF_INET, "10.9.1.78", &v4);
	lpm_v4_key(&k, v4);
	ck_assert_ptr_eq(lpm_lookup(t, &k), &v24);
	inet_pton(AF_INET, "10.9.2.1", &v4);
	lpm_v4_key(&k, v4);
	ck_assert_ptr_eq(lpm_lookup(t, &k), &v0);
	/* The mapped key is ::ffff:a.b.c.d exactly. */
	ck_assert_int_eq(memcmp(&k, &(struct in6_addr){ .s6_addr = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 9, 2, 1 } }, 16), 0);
	/* A native IPv6 address is outside ::ffff:0:0/96. */
	k = addr6("2001:db8::a09:101");
	ck_assert_ptr_null(lpm_lookup(t, &k));
	lpm_free(t);
}
END_TEST

START_TEST(test_many_same_length)
{
	/* Growth past several rehashes keeps every entry. */
	struct lpm *t = lpm_new();
	static int vals[5000];
	struct in6_addr a = addr6("fc00::");

	for (unsigned i = 0; i < 5000; i++) {
		a.s6_addr[14] = (uint8_t)(i >> 8);
		a.s6_addr[15] = (uint8_t)i;
		ck_assert_int_eq(lpm_insert(t, &a, 128, &vals[i]), 0);
	}
	for (unsigned i = 0; i < 5000; i++) {
		a.s6_addr[14] = (uint8_t)(i >> 8);
		a.s6_addr[15] = (uint8_t)i;
		ck_assert_ptr_eq(lpm_lookup(t, &a), &vals[i]);
	}
	a.s6_addr[14] = 0x13;
	a.s6_addr[15] = 0x88;	/* 5000 */
	ck_assert_ptr_null(lpm_lookup(t, &a));
	lpm_free(t);
}
END_TEST

static Suite *lpm_suite(void)
{
	Suite *s = suite_create("lpm");
	TCase *tc = tcase_create("lpm");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_default_route);
	tcase_add_test(tc, test_host_routes);
	tcase_add_test(tc, test_v4_mapped);
	tcase_add_test(tc, test_many_same_length);
	tcase_add_test(tc, test_random_vs_reference);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(lpm_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
