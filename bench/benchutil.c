/* benchutil.c - the benchmarks' shared helpers (benchutil.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchutil.h"

struct pfx *bench_load_prefixes(const char *path, size_t *n)
{
	char cmd[600], line[128];
	struct pfx *v = NULL;
	size_t cap = 0, nv = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "gzip -dc '%s'", path);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *slash = strchr(line, '/');
		struct pfx p = { 0 };

		if (!slash)
			continue;
		*slash = 0;
		p.plen = (uint8_t)atoi(slash + 1);
		p.family = strchr(line, ':') ? AF_INET6 : AF_INET;
		if (inet_pton(p.family, line, p.dst) != 1)
			continue;
		if (nv == cap) {
			struct pfx *nvp;

			cap = cap ? cap * 2 : 1 << 20;
			nvp = realloc(v, cap * sizeof(*v));
			if (!nvp)
				break;
			v = nvp;
		}
		v[nv++] = p;
	}
	if (f)
		pclose(f);
	*n = nv;
	return v;
}

double bench_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng_state = 88172645463325252ULL;

uint64_t bench_rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

void bench_rng_seed(uint64_t seed)
{
	rng_state = seed;
}

long bench_rss_kib(void)
{
	char line[128];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kib = atol(line + 6);
	if (f)
		fclose(f);
	return kib;
}
