/* benchutil.h - what bench/fib-bench.c and bench/policy-bench.c share: the
 * prefix list they load (../shared/data/bgp-prefixes.txt.gz), a clock, a
 * fast random generator and the process's resident memory. */
#ifndef SRV6D_BENCHUTIL_H
#define SRV6D_BENCHUTIL_H

#include <stddef.h>
#include <stdint.h>

/* One prefix of the list: dst masked as written, family AF_INET/AF_INET6. */
struct pfx {
	uint8_t dst[16];
	uint8_t plen, family;
};

/* Load the gzipped list at path ("ADDR/LEN" a line; other lines skipped):
 * returns the prefixes (malloc'ed) and their number in *n, NULL with *n 0
 * when nothing could be read. */
struct pfx *bench_load_prefixes(const char *path, size_t *n);

/* CLOCK_MONOTONIC in seconds. */
double bench_now_s(void);

/* xorshift64: a fast, fixed-seed sequence (runs are repeatable). */
uint64_t bench_rng(void);

/* Restart bench_rng()'s sequence from seed (not 0). */
void bench_rng_seed(uint64_t seed);

/* VmRSS of this process in KiB, -1 when unknown. */
long bench_rss_kib(void);

#endif
