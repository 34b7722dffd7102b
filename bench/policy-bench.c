/* policy-bench.c - srv6d's steering lookup with a full table of steered
 * prefixes: the config's policies (one `route` per prefix, parsed as
 * srv6d parses its file), its load time and memory, and the packet path's
 * lookups per second on one core, as srv6d did before tenants (one LPM
 * per family, by destination) and with tenants (the in-interface's table
 * from the route mirror, then that table's LPM).
 *
 *   policy-bench PREFIXES.txt.gz [single|tables|kernel]...
 *
 * single: every prefix in main, looked up as before tenants
 *         (lpm_lookup() of the one LPM: the old process.c).
 * tables: the prefixes alternately in tables 101 and 102; each key comes
 *         with the in-interface of its prefix's tenant (two links whose
 *         `ip rule iif NAME lookup T` the mirror holds): the cost per
 *         packet is rtmirror_iif_table() + config_policy_lookup4/6().
 *         This is also how srv6d looked the kernel's seg6 routes up when
 *         config_merge_kernel() merged them into the config (the former
 *         `merged` mode: the same policies, tables and lookup).
 * kernel: the same tables, the prefixes as the kernel's seg6 routes
 *         (`kernel-routes yes`), fed to a route mirror as the kernel's
 *         RTM_NEWROUTE messages: each route's policy attached to its FIB
 *         route (kpolicy.h), as srv6d keeps them; the cost per packet is
 *         rtmirror_iif_table() + srv6_steer_lookup4/6() (srv6d.conf's
 *         LPM, empty here, and the FIB's).
 */
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/if_link.h>
#include <linux/lwtunnel.h>
#include <linux/rtnetlink.h>
#include <linux/seg6.h>
#include <linux/seg6_iptunnel.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <urcu-qsbr.h>

#include "benchutil.h"
#include "config.h"
#include "kpolicy.h"
#include "lpm.h"
#include "process.h"
#include "rtmirror.h"

#define NKEYS	(1u << 20)
#define SEG	"fc00:2::a4"


struct key {
	uint8_t addr[16];
	uint32_t indev;
};

static struct pfx *v;
static size_t nv;





/* The config text: one route per prefix, in table 101 + i % 2 (tables) or
 * main. */
static char *config_text(int tables, size_t *len)
{
	size_t cap = nv * 96 + 64, n = 0;
	char *t = malloc(cap), a[INET6_ADDRSTRLEN];

	n += (size_t)snprintf(t + n, cap - n, "queue 0\nencap-source fc00::1\n");
	for (size_t i = 0; i < nv; i++) {
		inet_ntop(v[i].family, v[i].dst, a, sizeof(a));
		if (tables)
			n += (size_t)snprintf(t + n, cap - n, "route %s/%u table %u "
					      "encap seg6 mode encap segs " SEG "\n",
					      a, v[i].plen, 101 + (unsigned)(i % 2));
		else
			n += (size_t)snprintf(t + n, cap - n, "route %s/%u encap "
					      "seg6 mode encap segs " SEG "\n",
					      a, v[i].plen);
	}
	*len = n;
	return t;
}

static void err_fn(void *arg, const char *file, unsigned line,
		   const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s:%u: %s\n", file, line, msg);
}

/* ---- a mirror with two tenant links (ifindex 2: table 101, 3: 102) ---- */

static uint8_t nlbuf[512];

static void mirror_link(struct rtmirror *m, int ifindex, const char *name)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = IFF_UP;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	rtmirror_apply(m, nlh);
}

static void mirror_rule(struct rtmirror *m, int family, const char *iif,
			uint32_t table)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct fib_rule_hdr *frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));

	nlh->nlmsg_type = RTM_NEWRULE;
	frh->family = (uint8_t)family;
	frh->action = FR_ACT_TO_TBL;
	frh->table = (uint8_t)table;
	mnl_attr_put_u32(nlh, FRA_PRIORITY, 2000);
	mnl_attr_put_strz(nlh, FRA_IIFNAME, iif);
	mnl_attr_put_u32(nlh, FRA_TABLE, table);
	rtmirror_apply(m, nlh);
}

static struct rtmirror *tenant_mirror(bool seg6)
{
	struct rtmirror_opts o = { .seg6_routes = seg6, .nworkers = 1 };
	struct rtmirror *m = rtmirror_new(&o);

	mirror_link(m, 2, "ta");
	mirror_link(m, 3, "tb");
	for (int f = 0; f < 2; f++) {
		mirror_rule(m, f ? AF_INET6 : AF_INET, "ta", 101);
		mirror_rule(m, f ? AF_INET6 : AF_INET, "tb", 102);
	}
	return m;
}

/* struct seg6_iptunnel_encap with an SRH of one segment. */
struct encap1 {
	int mode;
	struct ipv6_sr_hdr srh;
	struct in6_addr seg;
};

/* Prefix i as the kernel's seg6 route of table 101 + i % 2 via link 2,
 * into m as its RTM_NEWROUTE. */
static void mirror_seg6_route(struct rtmirror *m, size_t i)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct encap1 e = { .mode = SEG6_IPTUN_MODE_ENCAP };
	uint32_t table = 101 + (uint32_t)(i % 2);
	struct rtmsg *rtm;
	struct nlattr *nest;

	nlh->nlmsg_type = RTM_NEWROUTE;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = (uint8_t)v[i].family;
	rtm->rtm_dst_len = v[i].plen;
	rtm->rtm_table = (uint8_t)table;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	mnl_attr_put(nlh, RTA_DST, v[i].family == AF_INET ? 4 : 16, v[i].dst);
	mnl_attr_put_u32(nlh, RTA_OIF, 2);
	e.srh.hdrlen = 2;
	e.srh.type = 4;	/* IPV6_SRCRT_TYPE_4 */
	inet_pton(AF_INET6, SEG, &e.seg);
	mnl_attr_put_u16(nlh, RTA_ENCAP_TYPE, LWTUNNEL_ENCAP_SEG6);
	nest = mnl_attr_nest_start(nlh, RTA_ENCAP);
	mnl_attr_put(nlh, SEG6_IPTUNNEL_SRH, sizeof(e), &e);
	mnl_attr_nest_end(nlh, nest);
	rtmirror_apply(m, nlh);
}

/* ---- keys and lookups ---- */

/* realistic: an address inside a random prefix of the family, with its
 * tenant's in-interface; else uniform random bits (IPv6: the first 16
 * bits of a table prefix) and a random in-interface. */
static void make_keys(int family, int realistic, struct key *keys)
{
	for (unsigned i = 0; i < NKEYS; i++) {
		size_t pi;
		const struct pfx *p;

		do
			pi = bench_rng() % nv;
		while (v[pi].family != family);
		p = &v[pi];
		for (unsigned b = 0; b < 16; b++)
			keys[i].addr[b] = (uint8_t)bench_rng();
		keys[i].indev = 2 + (uint32_t)(realistic ? pi % 2 : bench_rng() % 2);
		if (!realistic) {
			if (family == AF_INET6)
				memcpy(keys[i].addr, p->dst, 2);
			continue;
		}
		for (unsigned b = 0; b < p->plen; b++) {
			uint8_t bit = (uint8_t)(0x80 >> (b % 8));

			keys[i].addr[b / 8] = (uint8_t)((keys[i].addr[b / 8] & ~bit) |
							(p->dst[b / 8] & bit));
		}
	}
}

/* Before tenants: process.c looked dst up in cfg->policy6/policy4, the
 * one LPM per family (here: main's). */
static const void *lookup_single(const struct config *cfg,
				 const struct rtmirror *m, int family,
				 const struct key *k)
{
	const struct policy_table *t = &cfg->ptables[0];
	struct in6_addr key;

	(void)m;
	if (family == AF_INET6)
		return lpm_lookup(t->v6, (const struct in6_addr *)k->addr);
	lpm_v4_key(&key, *(const struct in_addr *)k->addr);
	return lpm_lookup(t->v4, &key);
}

/* With tenants: process.c's steering_table() and the table's lookup. */
static const void *lookup_tables(const struct config *cfg,
				 const struct rtmirror *m, int family,
				 const struct key *k)
{
	uint32_t table = rtmirror_iif_table(m, k->indev, family);

	if (family == AF_INET6)
		return config_policy_lookup6(cfg, table,
					     (const struct in6_addr *)k->addr);
	return config_policy_lookup4(cfg, table, *(const struct in_addr *)k->addr);
}

/* With kernel policies in the mirror: process.c's steering lookup. */
static const void *lookup_kernel(const struct config *cfg,
				 const struct rtmirror *m, int family,
				 const struct key *k)
{
	static struct sid_stats pstats[1];
	static struct proc_ctx ctx;	/* a worker's, set once (it is large) */
	uint32_t table = rtmirror_iif_table(m, k->indev, family);
	struct sid_stats *st;

	if (ctx.cfg != cfg) {
		ctx.cfg = cfg;
		ctx.mirror = m;
		ctx.policy_stats = pstats;
	}
	if (family == AF_INET6)
		return srv6_steer_lookup6(&ctx, table,
					  (const struct in6_addr *)k->addr, &st);
	return srv6_steer_lookup4(&ctx, table, *(const struct in_addr *)k->addr,
				  &st);
}

typedef const void *(*lookup_fn)(const struct config *,
				 const struct rtmirror *, int,
				 const struct key *);

static double run_lookups(const struct config *cfg, const struct rtmirror *m,
			  lookup_fn fn, int family, const struct key *keys,
			  double seconds, double *matched)
{
	unsigned long n = 0, hit = 0;
	double t0 = bench_now_s(), t1;

	do {
		for (unsigned i = 0; i < NKEYS; i++)
			hit += fn(cfg, m, family, &keys[i]) != NULL;
		n += NKEYS;
		rcu_quiescent_state();
		t1 = bench_now_s();
	} while (t1 - t0 < seconds);
	*matched = 100.0 * (double)hit / (double)n;
	return (double)n / (t1 - t0);
}

/* The steered prefixes of mode's config and mirror. */
static size_t steered(int mode, const struct config *cfg,
		      const struct rtmirror *m)
{
	if (mode == 2)
		return kpolicy_count(rtmirror_kpolicies(m));
	return cfg->npolicies;
}

/* mode 0: single, 1: tables, 2: kernel. */
static void bench(int mode, struct key *keys)
{
	static const char *const what[] = { "single (main)",
		"tables (101, 102)", "kernel (seg6 routes of 101, 102 in the mirror)" };
	static const char text_kernel[] = "queue 0\nencap-source fc00::1\n"
					  "kernel-routes yes\n";
	int tables = mode > 0;
	long rss0 = bench_rss_kib();
	struct rtmirror *m = tables ? tenant_mirror(mode == 2) : NULL;
	lookup_fn fn = mode == 2 ? lookup_kernel :
		       tables ? lookup_tables : lookup_single;
	struct config *cfg;
	size_t len = 0, n;
	double t0, t1, matched;
	char *text = mode < 2 ? config_text(tables, &len) : NULL;

	t0 = bench_now_s();
	if (mode < 2)
		cfg = config_parse_buffer("bench.conf", text, len, err_fn, NULL);
	else {
		cfg = config_parse_buffer("bench.conf", text_kernel,
					  sizeof(text_kernel) - 1, err_fn, NULL);
		for (size_t i = 0; i < nv; i++)
			mirror_seg6_route(m, i);
		rtmirror_reclaim(m);
	}
	t1 = bench_now_s();
	free(text);
	if (!cfg) {
		fprintf(stderr, "policy-bench: the config does not parse\n");
		exit(1);
	}
	n = steered(mode, cfg, m);
	printf("== %s: %zu policies, %s in %.2f s\n", what[mode], n,
	       mode < 2 ? "parsed" : "applied to the mirror", t1 - t0);
	printf("memory: RSS growth %.1f MiB, %.0f bytes per steered prefix "
	       "(sizeof(struct policy) %zu%s)\n",
	       (double)(bench_rss_kib() - rss0) / 1024.0,
	       (double)(bench_rss_kib() - rss0) * 1024.0 / (double)n,
	       sizeof(struct policy), mode == 2 ?
	       "; the routes' FIB included" : "");
	for (int fam = 0; fam < 2; fam++)
		for (int real = 1; real >= 0; real--) {
			int family = fam ? AF_INET6 : AF_INET;
			double rate;

			bench_rng_seed(88172645463325252ULL + (uint64_t)(fam * 2 + real));
			make_keys(family, real, keys);
			rate = run_lookups(cfg, m, fn, family, keys, 1.0, &matched);
			printf("lookup %s %-9s: %6.2f M/s, %5.1f ns (%.0f%% matched)\n",
			       fam ? "IPv6" : "IPv4", real ? "realistic" : "random",
			       rate / 1e6, 1e9 / rate, matched);
		}
	config_free(cfg);
	if (m) {
		rtmirror_reclaim(m);
		rtmirror_free(m);
	}
}

int main(int argc, char **argv)
{
	struct key *keys;

	if (argc < 2) {
		fprintf(stderr, "usage: policy-bench PREFIXES.txt.gz "
			"[single|tables|kernel]...\n");
		return 2;
	}
	v = bench_load_prefixes(argv[1], &nv);
	keys = malloc(NKEYS * sizeof(*keys));
	rcu_register_thread();
	for (int i = 2; i < argc || i == 2; i++) {
		const char *mode = i < argc ? argv[i] : NULL;

		if (!mode || !strcmp(mode, "single"))
			bench(0, keys);
		if (!mode || !strcmp(mode, "tables"))
			bench(1, keys);
		if (mode && !strcmp(mode, "kernel"))
			bench(2, keys);
	}
	rcu_unregister_thread();
	free(keys);
	free(v);
	return 0;
}
