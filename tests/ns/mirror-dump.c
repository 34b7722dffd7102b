/* mirror-dump.c - run the route mirror, then print its routes as JSON, one
 * object per line, for tests/ns/mirror.sh to compare with `ip -j route`.
 *
 *   mirror-dump [-r RCVBUF] [-w]
 *
 * Without -w: print once the first resync is done.  With -w: keep
 * mirroring until SIGUSR1, then until settled (no new event, not stale, for
 * 1.5 s), then print.  Counters go to stderr as one JSON line.
 */
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtmirror.h"

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	go = 1;
}

static const char *type_name(unsigned t)
{
	static const char *names[] = {
		"unspec", "unicast", "local", "broadcast", "anycast",
		"multicast", "blackhole", "unreachable", "prohibit", "throw",
		"nat", "xresolve",
	};

	return t < sizeof(names) / sizeof(names[0]) ? names[t] : "unknown";
}

static const struct rtmirror *mirror;

static int print_route(const struct fib_route *r, void *arg)
{
	const struct fib_info *fi = r->fi;
	char dst[INET6_ADDRSTRLEN], gw[INET6_ADDRSTRLEN];

	inet_ntop(r->family, r->dst.b, dst, sizeof(dst));
	printf("{\"table\":%u,\"family\":%u,\"type\":\"%s\",\"dst\":\"%s/%u\","
	       "\"metric\":%u,\"mtu\":%u,\"nexthops\":[",
	       r->table, r->family == AF_INET ? 4 : 6, type_name(r->type), dst,
	       r->plen, fi->priority, fi->mtu);
	for (unsigned i = 0; i < fi->nnh; i++) {
		const struct rtmirror_link *l =
			rtmirror_link_get(mirror, fi->nh[i].oif);

		gw[0] = 0;
		if (fi->nh[i].gw_family)
			inet_ntop(fi->nh[i].gw_family, fi->nh[i].gw.b, gw,
				  sizeof(gw));
		printf("%s{\"gw\":\"%s\",\"dev\":\"%s\",\"weight\":%u}",
		       i ? "," : "", gw, l ? l->name : "", fi->nh[i].weight);
	}
	printf("]}\n");
	return 0;
}

static void print_stats(const struct rtmirror *m, double sync_s)
{
	struct rtmirror_stats st;
	const struct fib_db *db = rtmirror_fib(m);

	rtmirror_get_stats(m, &st);
	fprintf(stderr, "{\"first_sync_s\":%.3f,\"last_dump_s\":%.3f,"
		"\"events\":%llu,\"resyncs\":%llu,\"enobufs\":%llu,"
		"\"purged\":%llu,\"swept\":%llu,\"ignored\":%llu,"
		"\"errors\":%llu,\"stale\":%d,\"routes4\":%zu,\"routes6\":%zu,"
		"\"fib_bytes\":%zu}\n", sync_s, st.last_sync_ns / 1e9,
		(unsigned long long)st.events, (unsigned long long)st.resyncs,
		(unsigned long long)st.enobufs, (unsigned long long)st.purged,
		(unsigned long long)st.swept, (unsigned long long)st.ignored,
		(unsigned long long)st.errors, st.stale,
		fib_count(db, 0, AF_INET), fib_count(db, 0, AF_INET6),
		fib_memory(db));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait until no event was applied and nothing was stale for 1.5 s. */
static void settle(const struct rtmirror *m)
{
	struct rtmirror_stats st;
	uint64_t last = (uint64_t)-1;
	double quiet_since = now_s();

	for (;;) {
		rtmirror_get_stats(m, &st);
		if (st.stale || st.events + st.resyncs != last) {
			last = st.events + st.resyncs;
			quiet_since = now_s();
		} else if (now_s() - quiet_since > 1.5) {
			return;
		}
		usleep(100000);
	}
}

int main(int argc, char **argv)
{
	struct rtmirror_opts opts = { 0 };
	struct rtmirror_stats st;
	struct rtmirror *m;
	int c, wait_signal = 0, rc;
	double t0, sync_s;

	while ((c = getopt(argc, argv, "r:w")) != -1) {
		switch (c) {
		case 'r':
			opts.rcvbuf = atoi(optarg);
			break;
		case 'w':
			wait_signal = 1;
			break;
		default:
			fprintf(stderr, "usage: mirror-dump [-r RCVBUF] [-w]\n");
			return 2;
		}
	}
	signal(SIGUSR1, on_usr1);
	m = rtmirror_new(&opts);
	if (!m)
		return 1;
	mirror = m;
	t0 = now_s();
	rc = rtmirror_start(m);
	if (rc < 0) {
		fprintf(stderr, "mirror-dump: start: %s\n", strerror(-rc));
		return 1;
	}
	do {
		usleep(2000);
		rtmirror_get_stats(m, &st);
	} while (!st.synced);
	sync_s = now_s() - t0;
	if (wait_signal) {
		fprintf(stderr, "ready\n");
		/* Poll: SIGUSR1 may be taken by the mirror's thread, and
		 * pause() here would then never return. */
		while (!go)
			usleep(10000);
	}
	settle(m);
	rtmirror_stop(m);
	fib_foreach(rtmirror_fib(m), print_route, NULL);
	print_stats(m, sync_s);
	rtmirror_free(m);
	return 0;
}
