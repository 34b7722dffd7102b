/* fuzz_packet.c - libFuzzer target for the whole packet path.
 *
 * A fixed configuration (built by hand: SIDs of every behavior and flavor,
 * IPv6 and IPv4 steering policies) and each input run through
 * srv6_process() as a packet from the IPv6 hook and from the IPv4 hook.
 * The slot ends right after the input so that AddressSanitizer sees any
 * read past the packet.  Invariants checked after each run: the packet
 * still lies inside its slot, the verdict is one of the three, a mark is
 * only set on a forwarded packet, and the counters moved by exactly one
 * outcome.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I include \
 *     tests/fuzz/fuzz_packet.c src/process.c src/srh.c src/icmp.c \
 *     src/csid.c src/behavior_end.c src/headend.c src/lpm.c \
 *     src/checksum.c src/stats.c
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "lpm.h"
#include "pkt.h"
#include "process.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sid_def {
	const char *prefix;
	unsigned plen;
	enum behavior behavior;
	unsigned flavors;
	unsigned lblen, nflen;
};

static const struct sid_def sid_defs[] = {
	{ "fc00:1::1", 128, BHV_END, 0, 0, 0 },
	{ "fc00:2::", 64, BHV_END_X, FLV_PSP, 0, 0 },
	{ "fc00:3::", 64, BHV_END_T, FLV_USP | FLV_USD, 0, 0 },
	{ "fc00:4::", 64, BHV_END, FLV_PSP | FLV_USP | FLV_USD, 0, 0 },
	{ "fc00:0:100::", 48, BHV_END, FLV_NEXT_CSID, 32, 16 },
	{ "fc00:5:0:100::", 64, BHV_END_X, FLV_NEXT_CSID | FLV_PSP, 48, 16 },
	{ "fc00:6::", 32, BHV_END_T, FLV_NEXT_CSID | FLV_USD, 0, 0 },
};
#define NSIDS (sizeof(sid_defs) / sizeof(sid_defs[0]))

struct pol_def {
	int family;
	const char *prefix;
	unsigned plen;
	enum encap_mode mode;
	unsigned nsegs;
};

static const struct pol_def pol_defs[] = {
	{ AF_INET6, "2001:db8:100::", 48, ENCAP_MODE_ENCAP, 3 },
	{ AF_INET6, "2001:db8:200::", 48, ENCAP_MODE_INLINE, 2 },
	{ AF_INET6, "2001:db8:300::", 48, ENCAP_MODE_ENCAP_RED, 1 },
	{ AF_INET, "198.51.100.0", 24, ENCAP_MODE_ENCAP, 2 },
	{ AF_INET, "203.0.113.0", 24, ENCAP_MODE_ENCAP_RED, 16 },
};
#define NPOLS (sizeof(pol_defs) / sizeof(pol_defs[0]))

static struct config cfg;
static struct sid sids[NSIDS];
static struct policy pols[NPOLS];
static struct worker_stats ws;
static struct sid_stats sid_st[NSIDS], pol_st[NPOLS];
static struct proc_ctx ctx;

static void setup_sids(void)
{
	for (unsigned i = 0; i < NSIDS; i++) {
		struct sid *s = &sids[i];

		inet_pton(AF_INET6, sid_defs[i].prefix, &s->prefix);
		s->plen = (uint8_t)sid_defs[i].plen;
		s->behavior = sid_defs[i].behavior;
		s->flavors = sid_defs[i].flavors;
		s->lblen = (uint8_t)sid_defs[i].lblen;
		s->nflen = (uint8_t)sid_defs[i].nflen;
		inet_pton(AF_INET6, "fe80::1", &s->nh6);
		s->table = 100 + i;
		s->mark = CONFIG_DEFAULT_MARK_BASE + i;
		s->index = i;
		if (lpm_insert(cfg.sid_table, &s->prefix, s->plen, s) < 0)
			abort();
	}
}

static void setup_policies(void)
{
	for (unsigned i = 0; i < NPOLS; i++) {
		struct policy *p = &pols[i];
		struct in6_addr key;

		p->family = pol_defs[i].family;
		p->plen = (uint8_t)pol_defs[i].plen;
		p->mode = pol_defs[i].mode;
		p->index = i;
		p->sl.nsegs = pol_defs[i].nsegs;
		for (unsigned k = 0; k < p->sl.nsegs; k++) {
			inet_pton(AF_INET6, "fc00:1::1", &p->sl.segs[k]);
			p->sl.segs[k].s6_addr[15] = (uint8_t)(k + 1);
		}
		if (p->family == AF_INET6) {
			inet_pton(AF_INET6, pol_defs[i].prefix, &p->prefix.v6);
			if (lpm_insert(cfg.policy6, &p->prefix.v6, p->plen, p) < 0)
				abort();
		} else {
			inet_pton(AF_INET, pol_defs[i].prefix, &p->prefix.v4);
			lpm_v4_key(&key, p->prefix.v4);
			if (lpm_insert(cfg.policy4, &key, 96u + p->plen, p) < 0)
				abort();
		}
	}
}

static void setup(void)
{
	cfg.sid_table = lpm_new();
	cfg.policy6 = lpm_new();
	cfg.policy4 = lpm_new();
	if (!cfg.sid_table || !cfg.policy6 || !cfg.policy4)
		abort();
	inet_pton(AF_INET6, "2001:db8::ff", &cfg.encap_source);
	cfg.has_encap_source = true;
	cfg.icmp_rate = 1000;
	cfg.icmp_burst = 10;
	cfg.mark_base = CONFIG_DEFAULT_MARK_BASE;
	cfg.sids = sids;
	cfg.nsids = NSIDS;
	cfg.policies = pols;
	cfg.npolicies = NPOLS;
	setup_sids();
	setup_policies();
	ctx.cfg = &cfg;
	ctx.stats = &ws;
	ctx.sid_stats = sid_st;
	ctx.policy_stats = pol_st;
}

/* Everything that counts one outcome of a packet. */
static uint64_t outcomes(void)
{
	uint64_t n = ws.unmatched;

	for (unsigned r = 0; r < DROP__COUNT; r++)
		n += ws.drops[r];
	for (unsigned i = 0; i < NSIDS; i++)
		n += sid_st[i].packets;
	for (unsigned i = 0; i < NPOLS; i++)
		n += pol_st[i].packets;
	return n;
}

static void run_one(const uint8_t *data, size_t size, uint16_t proto)
{
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
	p.hw_proto = proto;
	ctx.now_ns += 1000000;	/* 1 ms per packet: the bucket refills */

	srv6_process(&ctx, &p);

	if (p.data < p.head || p.data > p.end ||
	    p.len > (size_t)(p.end - p.data))
		abort();
	if (p.verdict != PKT_ACCEPT && p.verdict != PKT_FORWARD &&
	    p.verdict != PKT_DROP)
		abort();
	if (p.set_mark && p.verdict != PKT_FORWARD)
		abort();
	/* One outcome per packet, plus one per further local SID it ran
	 * through (process.c's sid_chain, bounded). */
	n = outcomes() - before;
	if (n < 1 || n > PROC_SID_CHAIN_MAX + 2)
		abort();
	free(slot);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (size > 65535 + 40)
		return 0;
	run_one(data, size, ETH_P_IPV6);
	run_one(data, size, ETH_P_IP);
	return 0;
}
