/* check_fib.c - the FIB tries against naive references, on random and on
 * real prefixes, and under concurrent readers. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <urcu-qsbr.h>

#include "fib.h"

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64*: fixed seed, the same sequence on every run. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static void mask(uint8_t *a, unsigned plen)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned bits = plen > i * 8 ? plen - i * 8 : 0;

		if (bits < 8)
			a[i] &= (uint8_t)(0xff00 >> bits);
	}
}

static void spec_init(struct fib_route_spec *s, int family, const uint8_t *dst,
		      unsigned plen, uint32_t oif)
{
	memset(s, 0, sizeof(*s));
	s->family = (uint8_t)family;
	s->table = FIB_TABLE_MAIN;
	memcpy(s->dst.b, dst, family == AF_INET ? 4 : 16);
	s->plen = (uint8_t)plen;
	s->type = RTN_UNICAST;
	s->protocol = RTPROT_STATIC;
	s->nnh = 1;
	s->nh[0].oif = oif;
	s->nh[0].weight = 1;
}

static const struct fib_route *lookup(struct fib_db *db, int family,
				      const uint8_t *a)
{
	const struct fib_table *t = fib_table_get(db, FIB_TABLE_MAIN);
	struct in_addr a4;

	if (!t)
		return NULL;
	if (family == AF_INET6)
		return fib_lookup6(t, (const struct in6_addr *)a);
	memcpy(&a4, a, 4);
	return fib_lookup4(t, a4);
}

/* ---- naive reference: a flat list ---- */

struct ref {
	uint8_t dst[16];
	unsigned plen;
	uint32_t oif;
	int live;
};

#define NREF	3000

static struct ref refs[NREF];

static int ref_covers(const struct ref *r, const uint8_t *a)
{
	uint8_t m[16];

	memcpy(m, a, 16);
	mask(m, r->plen);
	return !memcmp(m, r->dst, 16);
}

static const struct ref *ref_lookup(const uint8_t *a)
{
	const struct ref *best = NULL;

	for (unsigned i = 0; i < NREF; i++)
		if (refs[i].live && ref_covers(&refs[i], a) &&
		    (!best || refs[i].plen > best->plen))
			best = &refs[i];
	return best;
}

/* Random prefixes nested under a few /12s so they overlap at every level. */
static void random_prefix(int family, uint8_t *dst, unsigned *plen)
{
	unsigned maxlen = family == AF_INET ? 32 : 128;

	memset(dst, 0, 16);
	for (unsigned i = 0; i < (family == AF_INET ? 4u : 16u); i++)
		dst[i] = (uint8_t)rng();
	dst[0] = (uint8_t)(10 + rng() % 2);
	dst[1] = (uint8_t)(dst[1] & 0x30);
	*plen = (unsigned)(rng() % (maxlen + 1));
	mask(dst, *plen);
}

static void random_addr_near(int family, uint8_t *a)
{
	const struct ref *r = &refs[rng() % NREF];

	memcpy(a, r->dst, 16);
	/* Flip some bits past the prefix to land inside or beside it. */
	for (unsigned i = 0; i < (family == AF_INET ? 4u : 16u); i++)
		if (rng() % 3 == 0)
			a[i] ^= (uint8_t)rng();
	if (family == AF_INET)
		memset(a + 4, 0, 12);
}

static void check_against_ref(struct fib_db *db, int family, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t a[16];
		const struct ref *want;
		const struct fib_route *got;

		random_addr_near(family, a);
		want = ref_lookup(a);
		got = lookup(db, family, a);
		if (!want) {
			ck_assert_ptr_null(got);
			continue;
		}
		ck_assert_ptr_nonnull(got);
		ck_assert_uint_eq(got->plen, want->plen);
		ck_assert_mem_eq(got->dst.b, want->dst,
				 family == AF_INET ? 4 : 16);
		ck_assert_uint_eq(got->fi->nh[0].oif, want->oif);
	}
}

static void random_vs_reference(int family)
{
	struct fib_db *db = fib_db_new();
	struct fib_route_spec s;

	rng_state = 0x1234567 + (uint64_t)family;
	memset(refs, 0, sizeof(refs));
	for (unsigned i = 0; i < NREF; i++) {
		random_prefix(family, refs[i].dst, &refs[i].plen);
		for (unsigned j = 0; j < i; j++)
			if (refs[j].live && refs[j].plen == refs[i].plen &&
			    !memcmp(refs[j].dst, refs[i].dst, 16))
				refs[j].live = 0;
		refs[i].oif = i + 1;
		refs[i].live = 1;
		spec_init(&s, family, refs[i].dst, refs[i].plen, refs[i].oif);
		/* IPv6 routes differing by oif coexist: replace explicitly. */
		fib_route_del_all(db, &s);
		ck_assert_int_ge(fib_route_add(db, &s, 1), 0);
	}
	check_against_ref(db, family, 20000);

	/* Replace a third, delete a third, then compare again. */
	for (unsigned i = 0; i < NREF; i++) {
		if (!refs[i].live)
			continue;
		spec_init(&s, family, refs[i].dst, refs[i].plen, 0);
		if (i % 3 == 0) {
			refs[i].oif = 100000 + i;
			s.nh[0].oif = refs[i].oif;
			ck_assert_uint_eq(fib_route_del_all(db, &s), 1);
			ck_assert_int_eq(fib_route_add(db, &s, 1), 0);
		} else if (i % 3 == 1) {
			ck_assert_int_eq(fib_route_del(db, &s), 0);
			ck_assert_int_eq(fib_route_del(db, &s), -ESRCH);
			refs[i].live = 0;
		}
	}
	check_against_ref(db, family, 20000);
	fib_reclaim(db);

	/* Delete everything: the trie must be empty again. */
	for (unsigned i = 0; i < NREF; i++) {
		if (!refs[i].live)
			continue;
		spec_init(&s, family, refs[i].dst, refs[i].plen, 0);
		ck_assert_int_eq(fib_route_del(db, &s), 0);
		refs[i].live = 0;
	}
	check_against_ref(db, family, 2000);
	ck_assert_uint_eq(fib_count(db, 0, family), 0);
	fib_reclaim(db);
	fib_db_free(db);
}

START_TEST(test_random_v4)
{
	random_vs_reference(AF_INET);
}
END_TEST

START_TEST(test_random_v6)
{
	random_vs_reference(AF_INET6);
}
END_TEST

START_TEST(test_metric_and_identity)
{
	struct fib_db *db = fib_db_new();
	struct fib_route_spec s;
	const struct fib_route *r, *r2;
	uint8_t p[16] = { 192, 0, 2, 0 }, a[16] = { 192, 0, 2, 77 };

	spec_init(&s, AF_INET, p, 24, 5);
	s.priority = 100;
	ck_assert_int_eq(fib_route_add(db, &s, 1), 0);
	s.priority = 50;
	s.nh[0].oif = 6;
	ck_assert_int_eq(fib_route_add(db, &s, 1), 0);
	r = lookup(db, AF_INET, a);
	ck_assert_uint_eq(r->fi->nh[0].oif, 6);	/* lowest metric wins */
	ck_assert_uint_eq(fib_count(db, FIB_TABLE_MAIN, AF_INET), 2);
	/* The same route again is only re-marked: same object. */
	ck_assert_int_eq(fib_route_add(db, &s, 2), 1);
	ck_assert_ptr_eq(lookup(db, AF_INET, a), r);
	/* Two routes with equal attributes share one info. */
	spec_init(&s, AF_INET, (const uint8_t[16]){ 198, 51, 100, 0 }, 24, 6);
	s.priority = 50;
	ck_assert_int_eq(fib_route_add(db, &s, 2), 0);
	r2 = lookup(db, AF_INET, (const uint8_t[16]){ 198, 51, 100, 1 });
	ck_assert_ptr_eq(r2->fi, r->fi);
	/* Sweep removes what generation 2 did not see: the metric-100 one. */
	ck_assert_uint_eq(fib_sweep(db, 2), 1);
	ck_assert_uint_eq(fib_count(db, 0, AF_INET), 2);
	spec_init(&s, AF_INET, p, 24, 6);
	s.priority = 50;
	ck_assert_int_eq(fib_route_del(db, &s), 0);
	ck_assert_ptr_null(lookup(db, AF_INET, a));
	ck_assert_uint_gt(fib_reclaim(db), 0);
	fib_db_free(db);
}
END_TEST

/* A counted encap: holds per object, puts, comparisons by value. */
struct test_encap {
	int value;
	int holds;
};

static int encap_puts;

static void encap_hold(void *arg, const void *e)
{
	(void)arg;
	((struct test_encap *)e)->holds++;
}

static void encap_put(void *arg, const void *e)
{
	ck_assert_ptr_eq(arg, &encap_puts);
	((struct test_encap *)e)->holds--;
	encap_puts++;
}

static bool encap_equal(const void *a, const void *b)
{
	return ((const struct test_encap *)a)->value ==
	       ((const struct test_encap *)b)->value;
}

/* A route holds its encap while it lives: the same encap again is no
 * change, another one a new route (the old one lets go at reclaim), an
 * IPv6 replace that changes the oif keeps one route found at all times,
 * a delete lets go; a rewrite from fib_route_to_spec() keeps it. */
START_TEST(test_encap_attach)
{
	struct fib_encap_ops ops = { .hold = encap_hold, .put = encap_put,
				     .equal = encap_equal, .arg = &encap_puts };
	struct test_encap e1 = { 1, 0 }, e1b = { 1, 0 }, e2 = { 2, 0 };
	struct fib_db *db = fib_db_new();
	uint8_t p[16] = { 0xfc, 0, 0, 9 }, a[16] = { 0xfc, 0, 0, 9, [15] = 1 };
	const struct fib_route *r, *r2;
	struct fib_route_spec s;

	fib_db_set_encap_ops(db, &ops);
	encap_puts = 0;
	spec_init(&s, AF_INET6, p, 64, 5);
	s.encap = &e1;
	ck_assert_int_eq(fib_route_add(db, &s, 1), 0);
	r = lookup(db, AF_INET6, a);
	ck_assert_ptr_eq(r->encap, &e1);
	ck_assert_int_eq(e1.holds, 1);
	/* an equal encap: the same route, nothing held */
	s.encap = &e1b;
	ck_assert_int_eq(fib_route_add(db, &s, 2), 1);
	ck_assert_ptr_eq(lookup(db, AF_INET6, a), r);
	ck_assert_int_eq(e1b.holds, 0);
	/* another one: a new route; the old one lets go at reclaim */
	s.encap = &e2;
	ck_assert_int_eq(fib_route_add(db, &s, 2), 0);
	r2 = lookup(db, AF_INET6, a);
	ck_assert_ptr_ne(r2, r);
	ck_assert_ptr_eq(r2->encap, &e2);
	ck_assert_int_eq(e1.holds, 1);
	ck_assert_uint_eq(fib_reclaim(db), 1);
	ck_assert_int_eq(e1.holds, 0);
	ck_assert_int_eq(encap_puts, 1);
	/* IPv6 replace via oif 6: added, then the oif-5 route deleted */
	spec_init(&s, AF_INET6, p, 64, 6);
	s.encap = &e1;
	ck_assert_int_eq(fib_route_add(db, &s, 3), 0);
	ck_assert_uint_eq(fib_count(db, FIB_TABLE_MAIN, AF_INET6), 2);
	ck_assert_uint_eq(fib_route_del_others(db, &s), 1);
	ck_assert_uint_eq(fib_count(db, FIB_TABLE_MAIN, AF_INET6), 1);
	r = lookup(db, AF_INET6, a);
	ck_assert_ptr_eq(r->encap, &e1);
	fib_reclaim(db);
	ck_assert_int_eq(e2.holds, 0);
	/* a rewrite keeps the encap (held by the new route) */
	fib_route_to_spec(r, &s);
	ck_assert_ptr_eq(s.encap, &e1);
	s.nh[0].flags = RTNH_F_LINKDOWN;
	ck_assert_int_eq(fib_route_add(db, &s, 3), 0);
	fib_reclaim(db);
	ck_assert_int_eq(e1.holds, 1);
	ck_assert_ptr_eq(lookup(db, AF_INET6, a)->encap, &e1);
	/* delete: let go */
	ck_assert_int_eq(fib_route_del(db, &s), 0);
	ck_assert_ptr_null(lookup(db, AF_INET6, a));
	fib_reclaim(db);
	ck_assert_int_eq(e1.holds, 0);
	ck_assert_int_eq(encap_puts, 4);
	fib_db_free(db);
}
END_TEST

START_TEST(test_tables_and_route_get)
{
	struct fib_db *db = fib_db_new();
	struct fib_route_spec s;
	struct in6_addr a6;
	struct in_addr a4;
	const struct fib_route *r;

	inet_pton(AF_INET6, "2001:db8::1", &a6);
	inet_pton(AF_INET, "203.0.113.9", &a4);
	spec_init(&s, AF_INET6, (const uint8_t *)&a6, 32, 7);
	s.table = 100000;
	ck_assert_int_eq(fib_route_add(db, &s, 1), 0);
	spec_init(&s, AF_INET6, (const uint8_t[16]){ 0 }, 0, 8);
	ck_assert_int_eq(fib_route_add(db, &s, 1), 0);
	spec_init(&s, AF_INET, (const uint8_t *)&a4, 32, 9);
	s.table = FIB_TABLE_LOCAL;
	s.type = RTN_LOCAL;
	ck_assert_int_eq(fib_route_add(db, &s, 1), 0);

	r = fib_route_get6(db, 100000, &a6);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->table, 100000);
	ck_assert_uint_eq(r->plen, 32);
	r = fib_route_get6(db, FIB_TABLE_UNSPEC, &a6);
	ck_assert_uint_eq(r->table, FIB_TABLE_MAIN);
	ck_assert_uint_eq(r->plen, 0);
	r = fib_route_get4(db, FIB_TABLE_UNSPEC, a4);
	ck_assert_uint_eq(r->type, RTN_LOCAL);
	ck_assert_ptr_null(fib_route_get4(db, FIB_TABLE_MAIN, a4));
	ck_assert_ptr_null(fib_table_get(db, 7));
	fib_db_free(db);
}
END_TEST

START_TEST(test_nexthop_weights)
{
	struct fib_db *db = fib_db_new();
	struct fib_route_spec s;
	const struct fib_route *r;
	unsigned hits[3] = { 0 };

	spec_init(&s, AF_INET, (const uint8_t[16]){ 10 }, 8, 1);
	s.nnh = 3;
	s.nh[0].weight = 1;
	s.nh[1].oif = 2;
	s.nh[1].weight = 3;
	s.nh[2].oif = 3;
	s.nh[2].weight = 4;
	s.nh[2].flags = RTNH_F_DEAD;
	ck_assert_int_eq(fib_route_add(db, &s, 1), 0);
	r = lookup(db, AF_INET, (const uint8_t[16]){ 10, 1, 2, 3 });
	for (uint32_t h = 0; h < 4096; h++)
		hits[fib_route_nexthop(r, h * 1048573u)->oif - 1]++;
	ck_assert_uint_eq(hits[2], 0);
	ck_assert_uint_gt(hits[1], hits[0] * 2);
	ck_assert_uint_lt(hits[1], hits[0] * 4);
	fib_db_free(db);
}
END_TEST

/* ---- the real table ---- */

struct pfx {
	uint8_t dst[16];
	uint8_t plen;
	uint8_t family;
};

static struct pfx *load_table(size_t *n)
{
	const char *top = getenv("top_srcdir"), *env = getenv("SRV6D_PREFIXES");
	char path[512], cmd[600], line[128];
	struct pfx *v = NULL;
	size_t cap = 0;
	FILE *f;

	/* make check finds it (tests/prefixes.sh); by hand, a clone's */
	if (env && *env)
		snprintf(path, sizeof(path), "%s", env);
	else
		snprintf(path, sizeof(path),
			 "%s/../shared/data/bgp-prefixes.txt.gz",
			 top ? top : ".");
	if (access(path, R_OK)) {
		fprintf(stderr, "check_fib: %s absent (SRV6D_PREFIXES: the "
			"table), real-table case skipped\n", path);
		return NULL;
	}
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s'", path);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *slash = strchr(line, '/');
		struct pfx p = { 0 };

		if (!slash)
			continue;
		*slash = 0;
		p.plen = (uint8_t)atoi(slash + 1);
		p.family = strchr(line, ':') ? AF_INET6 : AF_INET;
		ck_assert_int_eq(inet_pton(p.family, line, p.dst), 1);
		if (*n == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			v = realloc(v, cap * sizeof(*v));
			ck_assert_ptr_nonnull(v);
		}
		v[(*n)++] = p;
	}
	ck_assert_int_eq(pclose(f), 0);
	return v;
}

/* Reference: one sorted array of keys per (family, length), bsearch. */
struct key_set {
	uint8_t (*k)[16];
	size_t n;
};

static int key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static int ref_longest(struct key_set sets[2][129], int family,
		       const uint8_t *a)
{
	unsigned fi = family == AF_INET6;

	for (int l = family == AF_INET ? 32 : 128; l >= 0; l--) {
		uint8_t m[16];

		if (!sets[fi][l].n)
			continue;
		memcpy(m, a, 16);
		mask(m, (unsigned)l);
		if (bsearch(m, sets[fi][l].k, sets[fi][l].n, 16, key_cmp))
			return l;
	}
	return -1;
}

START_TEST(test_real_table)
{
	static struct key_set sets[2][129];
	struct fib_route_spec s;
	struct fib_db *db;
	size_t n = 0, n4 = 0;
	struct pfx *v = load_table(&n);

	if (!v)
		return;		/* skipped, said why */
	db = fib_db_new();
	for (size_t i = 0; i < n; i++) {
		struct key_set *ks = &sets[v[i].family == AF_INET6][v[i].plen];

		spec_init(&s, v[i].family, v[i].dst, v[i].plen, 1 + (i & 7));
		ck_assert_int_eq(fib_route_add(db, &s, 1), 0);
		ks->k = realloc(ks->k, (ks->n + 1) * 16);
		memcpy(ks->k[ks->n++], v[i].dst, 16);
		n4 += v[i].family == AF_INET;
	}
	ck_assert_uint_eq(fib_count(db, 0, AF_INET), n4);
	ck_assert_uint_eq(fib_count(db, 0, AF_INET6), n - n4);
	for (int f = 0; f < 2; f++)
		for (int l = 0; l <= 128; l++)
			qsort(sets[f][l].k, sets[f][l].n, 16, key_cmp);
	rng_state = 42;
	for (unsigned i = 0; i < 200000; i++) {
		const struct pfx *p = &v[rng() % n];
		const struct fib_route *r;
		uint8_t a[16];
		int want;

		memcpy(a, p->dst, 16);
		for (unsigned b = p->plen; b < (p->family == AF_INET ? 32u : 128u); b++)
			if (rng() & 1)
				a[b / 8] ^= (uint8_t)(0x80 >> (b % 8));
		if (i & 1)	/* half of them anywhere */
			for (unsigned b = 0; b < (p->family == AF_INET ? 4u : 16u); b++)
				a[b] = (uint8_t)rng();
		want = ref_longest(sets, p->family, a);
		r = lookup(db, p->family, a);
		if (want < 0) {
			ck_assert_ptr_null(r);
			continue;
		}
		ck_assert_ptr_nonnull(r);
		ck_assert_int_eq(r->plen, want);
	}
	for (size_t i = 0; i < n; i++) {
		spec_init(&s, v[i].family, v[i].dst, v[i].plen, 0);
		ck_assert_int_eq(fib_route_del(db, &s), 0);
	}
	ck_assert_uint_eq(fib_count(db, 0, AF_INET), 0);
	fib_reclaim(db);
	fib_db_free(db);
	for (int f = 0; f < 2; f++)
		for (int l = 0; l <= 128; l++)
			free(sets[f][l].k);
	free(v);
}
END_TEST

/* ---- a reader looping while the writer churns ---- */

static struct fib_db *shared_db;
static volatile int stop_reader;
static unsigned long reader_errors, reader_lookups;

#define STABLE	256

static void *reader(void *arg)
{
	rcu_register_thread();
	while (!CMM_LOAD_SHARED(stop_reader)) {
		for (unsigned i = 0; i < 1000; i++) {
			unsigned k = (unsigned)(reader_lookups + i) % STABLE;
			struct in_addr a = { htonl(0x0a000000u | k << 8 | 0x55) };
			const struct fib_table *t =
				fib_table_get(shared_db, FIB_TABLE_MAIN);
			const struct fib_route *r = fib_lookup4(t, a);

			if (!r || r->plen != 24 || r->fi->nh[0].oif != k + 1)
				reader_errors++;
		}
		reader_lookups += 1000;
		rcu_quiescent_state();
	}
	rcu_unregister_thread();
	return NULL;
}

START_TEST(test_concurrent_readers)
{
	struct fib_route_spec s;
	pthread_t th;

	shared_db = fib_db_new();
	/* Stable: 10.0.k.0/24 -> oif k+1. */
	for (unsigned k = 0; k < STABLE; k++) {
		spec_init(&s, AF_INET, (const uint8_t[16]){ 10, 0, (uint8_t)k }, 24,
			  k + 1);
		ck_assert_int_eq(fib_route_add(shared_db, &s, 1), 0);
	}
	ck_assert_int_eq(pthread_create(&th, NULL, reader, NULL), 0);
	rng_state = 99;
	for (unsigned round = 0; round < 200; round++) {
		/* Churn covering (/8, /16) and neighbouring prefixes: they
		 * change nodes on the readers' path, not their answers. */
		for (unsigned i = 0; i < 500; i++) {
			uint8_t d[16] = { 10, (uint8_t)(rng() % 3),
					  (uint8_t)rng(), (uint8_t)rng() };
			unsigned plen = (unsigned[]){ 8, 16, 20, 25, 28, 32 }[rng() % 6];

			if (plen == 25 || plen == 28 || plen == 32)
				d[1] = (uint8_t)(1 + rng() % 2);
			mask(d, plen);
			spec_init(&s, AF_INET, d, plen, 1000 + i);
			if (rng() & 1)
				fib_route_add(shared_db, &s, 1);
			else
				fib_route_del(shared_db, &s);
		}
		fib_reclaim(shared_db);
	}
	CMM_STORE_SHARED(stop_reader, 1);
	pthread_join(th, NULL);
	ck_assert_uint_gt(reader_lookups, 0);
	ck_assert_uint_eq(reader_errors, 0);
	fib_db_free(shared_db);
}
END_TEST

static Suite *fib_suite(void)
{
	Suite *s = suite_create("fib");
	TCase *tc = tcase_create("fib");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_random_v4);
	tcase_add_test(tc, test_random_v6);
	tcase_add_test(tc, test_metric_and_identity);
	tcase_add_test(tc, test_encap_attach);
	tcase_add_test(tc, test_tables_and_route_get);
	tcase_add_test(tc, test_nexthop_weights);
	tcase_add_test(tc, test_real_table);
	tcase_add_test(tc, test_concurrent_readers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(fib_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
