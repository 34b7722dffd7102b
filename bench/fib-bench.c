/* fib-bench.c - the FIB with a full Internet table: build time, memory,
 * lookups per second on one core (random and realistic keys, IPv4 and
 * IPv6), and the lookup rate while a writer applies route updates.
 *
 *   fib-bench PREFIXES.txt.gz [UPDATES_PER_S]
 */
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <urcu-qsbr.h>

#include "benchutil.h"
#include "fib.h"

#define NKEYS	(1u << 20)


static struct pfx *v;
static size_t nv;
static struct fib_db *db;
static volatile int stop;
static unsigned long updates_done;
static unsigned update_rate = 100000;





static void spec_of(struct fib_route_spec *s, const struct pfx *p, uint32_t oif)
{
	memset(s, 0, sizeof(*s));
	s->family = p->family;
	s->table = FIB_TABLE_MAIN;
	memcpy(s->dst.b, p->dst, 16);
	s->plen = p->plen;
	s->type = RTN_UNICAST;
	s->nnh = 1;
	s->nh[0].oif = oif;
	s->nh[0].weight = 1;
	s->nh[0].gw_family = p->family;
	s->nh[0].gw.b[0] = p->family == AF_INET ? 10 : 0xfd;
}

/* Keys: random (IPv4: uniform; IPv6: a table prefix's first 16 bits, then
 * uniform), or
 * realistic: a random address inside a random table prefix. */
static void make_keys(int family, int realistic, uint8_t (*keys)[16])
{
	for (unsigned i = 0; i < NKEYS; i++) {
		for (unsigned b = 0; b < 16; b++)
			keys[i][b] = (uint8_t)bench_rng();
		if (family == AF_INET6 && !realistic) {
			/* Uniform keys all miss at the root: keep the first
			 * 16 bits of a table prefix, the rest random. */
			const struct pfx *p;

			do
				p = &v[bench_rng() % nv];
			while (p->family != family);
			memcpy(keys[i], p->dst, 2);
		}
		if (realistic) {
			const struct pfx *p;

			do
				p = &v[bench_rng() % nv];
			while (p->family != family);
			for (unsigned b = 0; b < p->plen; b++) {
				uint8_t bit = (uint8_t)(0x80 >> (b % 8));

				keys[i][b / 8] = (uint8_t)((keys[i][b / 8] & ~bit) |
							   (p->dst[b / 8] & bit));
			}
		}
	}
}

static double run_lookups(const struct fib_table *t, int family,
			  uint8_t (*keys)[16], double seconds,
			  unsigned long *found)
{
	unsigned long n = 0, hit = 0;
	double t0 = bench_now_s(), t1;

	do {
		for (unsigned i = 0; i < NKEYS; i++) {
			const struct fib_route *r;

			if (family == AF_INET) {
				struct in_addr a;

				memcpy(&a, keys[i], 4);
				r = fib_lookup4(t, a);
			} else {
				r = fib_lookup6(t, (const struct in6_addr *)keys[i]);
			}
			hit += r != NULL;
		}
		n += NKEYS;
		rcu_quiescent_state();
		t1 = bench_now_s();
	} while (t1 - t0 < seconds);
	*found = (unsigned long)((double)hit * NKEYS / (double)n);
	return (double)n / (t1 - t0);
}

/* Writer: add and delete IPv4 /24s and IPv6 /48s at update_rate. */
static void *writer(void *arg)
{
	struct fib_route_spec s;
	double t0 = bench_now_s();
	unsigned long i = 0;

	while (!CMM_LOAD_SHARED(stop)) {
		struct pfx p = { .family = (i & 1) ? AF_INET6 : AF_INET };
		unsigned k = (unsigned)(i / 2) % 65536;

		if (p.family == AF_INET) {
			p.dst[0] = 100;
			p.dst[1] = (uint8_t)(k >> 8);
			p.dst[2] = (uint8_t)k;
			p.plen = 24;
		} else {
			p.dst[0] = 0x3f;
			p.dst[1] = 0xff;
			p.dst[4] = (uint8_t)(k >> 8);
			p.dst[5] = (uint8_t)k;
			p.plen = 48;
		}
		spec_of(&s, &p, 7);
		if ((i / 131072) & 1)
			fib_route_del(db, &s);
		else
			fib_route_add(db, &s, 1);
		i++;
		if (i % 1000 == 0) {
			fib_reclaim(db);
			while ((double)i / (bench_now_s() - t0) > update_rate)
				usleep(100);
		}
	}
	CMM_STORE_SHARED(updates_done, i);
	return NULL;
}

int main(int argc, char **argv)
{
	static uint8_t keys[NKEYS][16];
	struct fib_route_spec s;
	const struct fib_table *t;
	unsigned long found;
	long rss0;
	double t0, t1;
	pthread_t th;

	if (argc < 2) {
		fprintf(stderr, "usage: fib-bench PREFIXES.txt.gz [UPDATES_PER_S]\n");
		return 2;
	}
	if (argc > 2)
		update_rate = (unsigned)atoi(argv[2]);
	v = bench_load_prefixes(argv[1], &nv);
	rss0 = bench_rss_kib();
	db = fib_db_new();
	t0 = bench_now_s();
	for (size_t i = 0; i < nv; i++) {
		spec_of(&s, &v[i], 1 + (uint32_t)(i % 4));
		fib_route_add(db, &s, 1);
	}
	t1 = bench_now_s();
	printf("build: %zu IPv4 + %zu IPv6 routes in %.2f s\n",
	       fib_count(db, 0, AF_INET), fib_count(db, 0, AF_INET6), t1 - t0);
	printf("memory: fib_memory %.1f MiB, RSS growth %.1f MiB\n",
	       fib_memory(db) / 1048576.0, (bench_rss_kib() - rss0) / 1024.0);

	rcu_register_thread();
	t = fib_table_get(db, FIB_TABLE_MAIN);
	for (int fam = 0; fam < 2; fam++)
		for (int real = 0; real < 2; real++) {
			int family = fam ? AF_INET6 : AF_INET;
			double rate;

			make_keys(family, real, keys);
			rate = run_lookups(t, family, keys, 1.0, &found);
			printf("lookup %s %-9s: %6.1f M/s (%.0f%% matched)\n",
			       fam ? "IPv6" : "IPv4", real ? "realistic" : "random",
			       rate / 1e6, 100.0 * found / NKEYS);
		}

	rcu_thread_offline();
	pthread_create(&th, NULL, writer, NULL);
	rcu_thread_online();
	make_keys(AF_INET, 1, keys);
	t0 = bench_now_s();
	{
		double rate = run_lookups(t, AF_INET, keys, 2.0, &found);

		CMM_STORE_SHARED(stop, 1);
		rcu_thread_offline();
		pthread_join(th, NULL);
		rcu_thread_online();
		printf("lookup IPv4 realistic during updates: %.1f M/s; writer "
		       "applied %.0f updates/s\n", rate / 1e6,
		       updates_done / (bench_now_s() - t0));
	}
	rcu_unregister_thread();
	fib_reclaim(db);
	fib_db_free(db);
	free(v);
	return 0;
}
