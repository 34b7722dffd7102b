/* fuzz_packet.c - libFuzzer target for the whole packet path.
 *
 * The configuration is parsed from text (config_parse_buffer()): a SID of
 * every behavior and flavor (End, End.X, End.T with PSP/USP/USD and
 * NEXT-C-SID; End.DX6/DX4/DT6/DT4/DT46/DX2; End.B6, End.B6.Encaps,
 * End.B6.Encaps.Red, End.OP; RFC 9433's End.M.GTP6.D, End.M.GTP6.Di,
 * End.M.GTP6.E and End.M.GTP4.E, with GTP-U inputs), HMAC keys (their secret file is written into a
 * temporary directory at start, mode 0600) on binding SIDs and policies
 * (and hmac-require, which makes every SID verify), and
 * steering policies of every mode with weighted segment lists.  ctx has a
 * small route mirror built from hand-made rtnetlink messages (links up,
 * without carrier and with addresses of both families; routes with MTU
 * metrics, a preferred source, a blackhole, another table), so the
 * encapsulation MTU check, the source selection of the outer header and
 * of ICMP errors, and the next-hop and table checks all run.  `oam-copy`
 * is on (RFC 9259): every O-flag packet at a SID is copied into the OAM
 * ring, whose copies are checked and sent (oamsock_flush()) to a socket
 * nobody reads, so that a failed End.OP punt becomes a drop too.
 *
 * The input's first byte picks how the rest is queued: bit 0 the IPv4
 * hook (else IPv6), bit 1 hmac-require, bits 2-3 the in-interface.  The
 * slot ends right after the packet so that AddressSanitizer sees any read
 * past it.  Invariants checked after each run: the packet still lies
 * inside its slot, the verdict is one of the three, a mark is only set on
 * a forwarded packet, the outcome agrees with the verdict, the counters moved by at least one outcome (and at
 * most one per local SID it ran through), and reinject_decide() gives a
 * valid action (and drop reason) for the result.
 *
 * Built and run by tests/fuzz/run-fuzz.sh (its SRC_packet lists the
 * library sources); by hand, from the top of the tree:
 *   CLANG=clang tests/fuzz/run-fuzz.sh
 */
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_ether.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "behavior_proxy.h"
#include "config.h"
#include "pkt.h"
#include "oam.h"
#include "oamsock.h"
#include "process.h"
#include "reinject.h"
#include "rtmirror.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP	0x10000
#endif
#define UP	(IFF_UP | IFF_LOWER_UP | IFF_RUNNING)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* %s: the HMAC secret file. */
static const char conf_fmt[] =
	"queue 0\n"
	"icmp-rate 1000\n"
	"icmp-burst 10\n"
	"oam-copy unix /nonexistent/fuzz_packet-oam.sock\n"
	"oam-copy-len 2048\n"
	"oam-burst 10\n"
	"hmac 7 sha256 secret-file %s\n"
	"hmac 8 sha1 secret-file %s\n"
	"sid fc00:1::1/128 action End\n"
	"sid fc00:2::/64 action End.X nh6 fc00:3::2 flavors psp\n"
	"sid fc00:2:1::/64 action End.X nh6 fc00:3::2 oif adj flavors usp\n"
	"sid fc00:2:2::/64 action End.X nh6 fc00:7::2 oif down0\n"
	"sid fc00:3::/64 action End.T table 100 flavors usp,usd\n"
	"sid fc00:3:1::/64 action End.T table 4242\n"
	"sid fc00:4::/64 action End flavors psp,usp,usd\n"
	"sid fc00:0:100::/48 action End flavors next-csid lblen 32 nflen 16\n"
	"sid fc00:5:0:100::/64 action End.X nh6 fc00:3::2 flavors next-csid,psp lblen 48 nflen 16\n"
	"sid fc00:8::/32 action End flavors next-csid,usd lblen 16 nflen 16\n"
	"sid fc00:a:0:1::/80 action End flavors replace-csid,psp\n"
	"sid fc00:a:0:2::/64 action End.T table 100 flavors replace-csid,usp lblen 48 nflen 16\n"
	"sid fc00:6::1/128 action End.DX6 nh6 fc00:3::2\n"
	"sid fc00:6::2/128 action End.DX4 nh4 10.0.0.1\n"
	"sid fc00:6::3/128 action End.DT6 table 100\n"
	"sid fc00:6::4/128 action End.DT4 table 100\n"
	"sid fc00:6::5/128 action End.DT46 table 100\n"
	"sid fc00:6::6/128 action End.DX2 oif adj\n"
	"sid fc00:6::7/128 action End.B6 srh segs fc00:1::1,fc00:6::1\n"
	"sid fc00:6::8/128 action End.B6.Encaps srh segs fc00:6::7,fc00:1::1 weight 3 segs fc00:4::1 weight 1 hmac 7\n"
	"sid fc00:6::9/128 action End.B6.Encaps.Red srh segs fc00:6::8\n"
	"sid fc00:20::/64 action End.M.GTP6.D mob-prefix fc00:21::/64 srh segs fc00:1::1 weight 2 segs fc00:6::9\n"
	"sid fc00:26::/64 action End.M.GTP6.Di mob-prefix fc00:22::/64 srh segs fc00:1::1 weight 2 segs fc00:6::9\n"
	"sid fc00:22::/64 action End.M.GTP6.E\n"
	"sid fc00:23::/32 action End.M.GTP4.E v4src-position 64\n"
	"sid fc00:6::a/128 action End.AS nh6 fc00:3::2 oif adj iif svc40 source fc00:6::a segs fc00:1::1,fc00:6::1\n"
	"sid fc00:6::b/128 action End.AS nh4 10.0.0.1 oif adj iif svc41 source fc00:6::b segs fc00:6::2\n"
	"sid fc00:6::c/128 action End.AD nh6 fc00:3::2 oif adj iif svc42\n"
	"sid fc00:6::d/128 action End.AD nh4 10.0.0.1 oif adj iif svc43\n"
	"sid fc00:6::e/128 action End.AM nh6 fc00:3::2 oif adj iif svc44\n"
	"sid fc00:6::f/128 action End.OP\n"
	"sid fc00:6:1::/64 action End.MAP nh6 fc00:6::1\n"
	"route 2001:db8:100::/48 encap seg6 mode encap segs fc00:1::1,fc00:6::3 hmac 8\n"
	"route 2001:db8:200::/48 encap seg6 mode inline segs fc00:1::1,fc00:2::1 weight 2 segs fc00:4::1\n"
	"route 2001:db8:300::/48 encap seg6 mode encap.red segs fc00:6::9\n"
	"route 2001:db8:400::/48 encap seg6 mode inline.red segs fc00:1::1,fc00:6::5 hmac 7\n"
	"route 2001:db8:500::/48 encap seg6 mode encap segs fc00:9::1 segs fc00:5:0:100::1 segs fc00:66::1\n"
	"route 198.51.100.0/24 encap seg6 mode encap segs fc00:6::4,fc00:6::5\n"
	"route 203.0.113.0/24 encap seg6 mode encap.red segs fc00:6::2 weight 1 segs fc00:9::2,fc00:6::4 weight 5\n"
	"route 192.0.2.0/24 encap seg6 mode encap segs fc00:66::1\n"
	"route 198.18.0.0/16 encap gtp4 mob-prefix fc00:24::/32 src-prefix fc00:25::/64 segs fc00:1::1\n"
	"route 198.19.0.0/16 encap gtp4 mob-prefix fc00:24::/56 src-prefix fc00:25::/96\n";

static struct config *cfg;
static struct runstate *rs;
static struct rtmirror *mirror;
static struct worker_stats ws;
static struct sid_stats *sid_st, *pol_st;
static struct proc_ctx ctx;
static struct sid_runtime *sid_rt;
static struct oam_ring oam_ring;
static struct oamsock *oam_sock;
static uint8_t nlbuf[4096];

static void mirror_apply(struct nlmsghdr *nlh)
{
	if (rtmirror_apply(mirror, nlh) < 0)
		abort();
}

static void link_add(uint32_t ifindex, const char *name, unsigned flags,
		     uint32_t mtu)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	nlh->nlmsg_type = RTM_NEWLINK;
	ifi->ifi_index = (int)ifindex;
	ifi->ifi_flags = flags;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	mirror_apply(nlh);
}

static void addr_add(int family, uint32_t ifindex, const char *addr,
		     unsigned plen, uint8_t scope, uint8_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	uint8_t a[16];

	nlh->nlmsg_type = RTM_NEWADDR;
	ifa->ifa_family = (uint8_t)family;
	ifa->ifa_prefixlen = (uint8_t)plen;
	ifa->ifa_scope = scope;
	ifa->ifa_flags = flags;
	ifa->ifa_index = ifindex;
	if (inet_pton(family, addr, a) != 1)
		abort();
	mnl_attr_put(nlh, IFA_LOCAL, family == AF_INET ? 4 : 16, a);
	mnl_attr_put(nlh, IFA_ADDRESS, family == AF_INET ? 4 : 16, a);
	mirror_apply(nlh);
}

struct route_def {
	int family;
	const char *dst;
	unsigned plen;
	uint32_t table;
	uint8_t type;
	const char *gw;		/* NULL: on link */
	uint32_t oif;
	uint32_t mtu;		/* 0: none */
	const char *prefsrc;	/* NULL: none */
};

static const struct route_def routes[] = {
	{ AF_INET6, "fc00::", 16, RT_TABLE_MAIN, RTN_UNICAST, "fe80::1", 2, 0, NULL },
	{ AF_INET6, "fc00:3::", 64, RT_TABLE_MAIN, RTN_UNICAST, NULL, 3, 0, NULL },
	{ AF_INET6, "fc00:9::", 32, RT_TABLE_MAIN, RTN_UNICAST, "fe80::1", 2, 1300, "fc00:ff::1" },
	{ AF_INET6, "fc00:66::", 32, RT_TABLE_MAIN, RTN_BLACKHOLE, NULL, 0, 0, NULL },
	{ AF_INET6, "fc00:7::", 64, RT_TABLE_MAIN, RTN_UNICAST, NULL, 5, 0, NULL },
	{ AF_INET6, "2001:db8::", 32, RT_TABLE_MAIN, RTN_UNICAST, NULL, 4, 0, NULL },
	{ AF_INET6, "2001:db8:6::", 48, 100, RTN_UNICAST, NULL, 2, 1280, NULL },
	{ AF_INET6, "::", 0, 100, RTN_UNICAST, "fe80::9", 3, 0, NULL },
	{ AF_INET, "10.0.0.0", 8, RT_TABLE_MAIN, RTN_UNICAST, NULL, 3, 0, NULL },
	{ AF_INET, "192.0.2.0", 24, RT_TABLE_MAIN, RTN_UNICAST, NULL, 4, 0, NULL },
	{ AF_INET, "198.18.0.0", 15, RT_TABLE_MAIN, RTN_UNICAST, NULL, 4, 0, "198.18.0.1" },
	{ AF_INET, "0.0.0.0", 0, 100, RTN_UNICAST, "10.0.0.9", 3, 1400, NULL },
};

static void route_add(const struct route_def *r)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nlbuf);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	size_t alen = r->family == AF_INET ? 4 : 16;
	uint8_t a[16];

	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_flags = NLM_F_REPLACE;
	rtm->rtm_family = (uint8_t)r->family;
	rtm->rtm_dst_len = (uint8_t)r->plen;
	rtm->rtm_table = (uint8_t)r->table;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = r->gw ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
	rtm->rtm_type = r->type;
	mnl_attr_put_u32(nlh, RTA_TABLE, r->table);
	if (inet_pton(r->family, r->dst, a) != 1)
		abort();
	if (r->plen)
		mnl_attr_put(nlh, RTA_DST, alen, a);
	if (r->gw) {
		if (inet_pton(r->family, r->gw, a) != 1)
			abort();
		mnl_attr_put(nlh, RTA_GATEWAY, alen, a);
	}
	if (r->prefsrc) {
		if (inet_pton(r->family, r->prefsrc, a) != 1)
			abort();
		mnl_attr_put(nlh, RTA_PREFSRC, alen, a);
	}
	if (r->oif)
		mnl_attr_put_u32(nlh, RTA_OIF, r->oif);
	if (r->mtu) {
		struct nlattr *mx = mnl_attr_nest_start(nlh, RTA_METRICS);

		mnl_attr_put_u32(nlh, RTAX_MTU, r->mtu);
		mnl_attr_nest_end(nlh, mx);
	}
	mirror_apply(nlh);
}

/* Links 1 lo, 2 core (to the segments), 3 adj (End.X's next hops, a
 * smaller MTU), 4 edge (the senders), 5 down0 (no carrier); addresses of
 * both families, a tentative and a deprecated one; routes[]. */
static void mirror_build(void)
{
	mirror = rtmirror_new(NULL);
	if (!mirror)
		abort();
	link_add(1, "lo", UP | IFF_LOOPBACK, 65536);
	link_add(2, "core", UP, 1500);
	link_add(3, "adj", UP, 1400);
	link_add(4, "edge", UP, 9000);
	link_add(5, "down0", IFF_UP, 1500);
	addr_add(AF_INET6, 1, "fc00:ff::1", 128, RT_SCOPE_UNIVERSE, 0);
	addr_add(AF_INET, 1, "127.0.0.1", 8, RT_SCOPE_HOST, 0);
	addr_add(AF_INET6, 2, "fe80::2", 64, RT_SCOPE_LINK, 0);
	addr_add(AF_INET6, 2, "fc00:2::1", 64, RT_SCOPE_UNIVERSE, 0);
	addr_add(AF_INET6, 2, "fc00:2::9", 64, RT_SCOPE_UNIVERSE,
		 IFA_F_DEPRECATED);
	addr_add(AF_INET6, 3, "fc00:3::1", 64, RT_SCOPE_UNIVERSE,
		 IFA_F_TENTATIVE);
	addr_add(AF_INET, 3, "10.0.0.2", 8, RT_SCOPE_UNIVERSE, 0);
	addr_add(AF_INET6, 4, "2001:db8::1", 64, RT_SCOPE_UNIVERSE, 0);
	addr_add(AF_INET, 4, "192.0.2.2", 24, RT_SCOPE_UNIVERSE, 0);
	addr_add(AF_INET, 4, "192.0.2.3", 24, RT_SCOPE_UNIVERSE,
		 IFA_F_SECONDARY);
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		route_add(&routes[i]);
}

/* The HMAC secret, in a fresh directory, mode 0600 as the config wants;
 * returns its path (static). */
static const char *secret_write(void)
{
	static char dir[] = "/tmp/fuzz_packet.XXXXXX";
	static char path[sizeof(dir) + 16];
	FILE *f;

	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/key", dir);
	f = fopen(path, "w");
	if (!f || fchmod(fileno(f), 0600) < 0 ||
	    fputs("fuzzing-secret-0123456789\n", f) < 0 || fclose(f) != 0)
		abort();
	return path;
}

static void config_error(void *arg, const char *file, unsigned line,
			 const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s:%u: %s\n", file, line, msg);
}

static void setup(void)
{
	const char *key = secret_write();
	char text[sizeof(conf_fmt) + 256];
	int n = snprintf(text, sizeof(text), conf_fmt, key, key);

	if (n < 0 || (size_t)n >= sizeof(text))
		abort();
	cfg = config_parse_buffer("fuzz.conf", text, (size_t)n, config_error,
				  NULL);
	if (!cfg)
		abort();
	/* What the daemon resolves before publishing: the SIDs' marks
	 * (runstate.h), devices and oif indexes (adj is 3, down0 5). */
	rs = runstate_new(cfg);
	if (!rs)
		abort();
	sid_rt = calloc(cfg->nsids + 1, sizeof(*sid_rt));
	if (!sid_rt)
		abort();
	for (unsigned i = 0; i < cfg->nsids; i++) {
		const struct sid *s = &cfg->sids[i];

		sid_rt[i].ifindex = 3;
		/* SR proxies: svc40 is ifindex 40, ... (run_one()'s indevs) */
		if (s->iif[0])
			rs->sids[i].iif_index = (uint32_t)atoi(s->iif + 3);
		if (s->oif[0])
			sid_rt[i].oif_index = strcmp(s->oif, "down0") ? 3 : 5;
	}
	mirror_build();
	sid_st = calloc(cfg->nsids, sizeof(*sid_st));
	pol_st = calloc(cfg->npolicies ? cfg->npolicies : 1, sizeof(*pol_st));
	if (!sid_st || !pol_st)
		abort();
	ctx.cfg = cfg;
	ctx.rs = rs;
	ctx.sid_rt = sid_rt;
	ctx.mirror = mirror;
	ctx.stats = &ws;
	ctx.sid_stats = sid_st;
	ctx.policy_stats = pol_st;
	/* End.AD's caches, one worker */
	ctx.proxy_slots = calloc(cfg->nproxies + 1, sizeof(struct proxy_slot));
	ctx.proxy_nworkers = 1;
	if (!ctx.proxy_slots)
		abort();
	ctx.icmp_rl.tokens_milli = (uint64_t)cfg->icmp_burst * 1000;
	ctx.oam = &oam_ring;
	oam_sock = oamsock_new();
	if (!oam_sock)
		abort();
}

/* Everything that counts one outcome of a packet. */
static uint64_t outcomes(void)
{
	uint64_t n = ws.unmatched;

	for (unsigned r = 0; r < DROP__COUNT; r++)
		n += ws.drops[r];
	for (unsigned i = 0; i < cfg->nsids; i++)
		n += sid_st[i].packets;
	for (unsigned i = 0; i < cfg->npolicies; i++)
		n += pol_st[i].packets;
	return n;
}

/* The OAM ring after p: each copy a whole header and at most
 * oam-copy-len bytes of a packet, a punt's only p (End.OP's); then sent
 * to nobody: the ring empty, a punt failed. */
static void oam_check(struct pkt *p)
{
	bool punted = false;

	for (unsigned i = 0; i < oam_ring.n; i++) {
		uint32_t len, cap;
		const uint8_t *c = oam_ring_copy(&oam_ring, i, &len);

		memcpy(&cap, c + 20, 4);
		cap = ntohl(cap);
		if (len < OAM_HDR_LEN || len > OAM_SLOT_SIZE ||
		    cap != len - OAM_HDR_LEN || cap > cfg->oam.copy_len ||
		    c[0] != OAM_HDR_VERSION ||
		    (c[1] != OAM_KIND_COPY && c[1] != OAM_KIND_PUNT) ||
		    (oam_ring.punt[i] && oam_ring.punt[i] != p))
			abort();
		punted |= oam_ring.punt[i] != NULL;
	}
	if (punted != (p->verdict == PKT_PUNT))
		abort();
	oamsock_flush(oam_sock, &oam_ring, &cfg->oam, &ws);
	if (oam_ring.n || (punted && !p->way.failed))
		abort();
}

/* reinject_decide() on the result: a valid action, and a valid reason
 * when it says drop with one. */
static void reinject_check(struct pkt *p)
{
	enum drop_reason why = DROP__COUNT;

	switch (reinject_decide(cfg, rs, sid_rt, p, &why)) {
	case REINJECT_ACCEPT:
	case REINJECT_PAYLOAD:
	case REINJECT_OWN_DEV:
	case REINJECT_DEV:
	case REINJECT_L2:
	case REINJECT_LOCAL:
	case REINJECT_VNET_OWN_DEV:
	case REINJECT_VNET_DEV:
	case REINJECT_SEGMENT:
	case REINJECT_KERNEL:
	case REINJECT_KERNEL_INNER:
	case REINJECT_BOUNCE:
	case REINJECT_DROP:
	case REINJECT_PUNT:
	case REINJECT_SERVICE:
		return;
	case REINJECT_DROP_REASON:
		if ((unsigned)why < DROP__COUNT)
			return;
		break;
	}
	abort();
}

static void run_one(const uint8_t *data, size_t size, uint8_t how)
{
	/* bits 2-4: 40-44 are the SR proxies' iifs */
	static const uint32_t indevs[8] = { 0, 4, 2, 77, 40, 41, 42, 43 };
	static const uint32_t more[2] = { 44, 40 };
	uint8_t *slot = malloc(PKT_HEADROOM + size);
	struct pkt p;
	uint64_t before = outcomes(), n;

	if (!slot)
		abort();
	memcpy(slot + PKT_HEADROOM, data, size);
	memset(&p, 0, sizeof(p));
	p.head = slot;
	p.data = slot + PKT_HEADROOM;
	p.end = slot + PKT_HEADROOM + size;
	p.len = p.orig_len = (uint32_t)size;
	p.hw_proto = (how & 1) ? ETH_P_IP : ETH_P_IPV6;
	p.indev = indevs[(how >> 2) & 7];
	if (p.indev == 43 && (how & 0x20))
		p.indev = more[(how >> 6) & 1];
	cfg->hmac_require = (how & 2) != 0;
	ctx.now_ns += 1000000;	/* 1 ms per packet: the bucket refills */

	srv6_process(&ctx, &p);

	if (p.data < p.head || p.data > p.end ||
	    p.len > (size_t)(p.end - p.data))
		abort();
	if (p.verdict != PKT_ACCEPT && p.verdict != PKT_NEW_BYTES &&
	    p.verdict != PKT_DROP && p.verdict != PKT_PUNT)
		abort();
	if (p.set_mark && p.verdict != PKT_NEW_BYTES)
		abort();
	/* The outcome goes with the verdict (pkt.h): a drop is PKT_DROP,
	 * an ICMP error or a hand-off a new packet, with a valid reason. */
	if ((p.verdict == PKT_DROP) != (p.outcome == PKT_OUT_DROP))
		abort();
	if ((p.outcome == PKT_OUT_ICMP || p.outcome == PKT_OUT_HANDOFF) &&
	    p.verdict != PKT_NEW_BYTES)
		abort();
	if (p.outcome != PKT_OUT_NONE && p.outcome != PKT_OUT_OK &&
	    (unsigned)p.reason >= DROP__COUNT)
		abort();
	/* One outcome per packet, plus one per further local SID it ran
	 * through (process.c's sid_chain, bounded). */
	n = outcomes() - before;
	if (n < 1 || n > PROC_SID_CHAIN_MAX + 2)
		abort();
	reinject_check(&p);
	oam_check(&p);
	free(slot);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (size < 1 || size > 65535 + 41)
		return 0;
	run_one(data + 1, size - 1, data[0]);
	return 0;
}
