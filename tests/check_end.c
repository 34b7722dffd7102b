/* check_end.c - End, End.X, End.T, their flavors, NEXT-C-SID, the ICMP
 * errors and the dispatcher, byte for byte.
 *
 * Expected packets were generated once with scapy (independently of srv6d)
 * and pasted here as hex; the End, PSP and NEXT-C-SID outputs are what
 * Linux's seg6local gives out before its forwarding decrements the hop
 * limit (srv6d leaves that decrement to the kernel): checked against
 * Linux 6.18 seg6local (End, End flavors psp, End flavors next-csid) in a
 * network namespace, same bytes but for the hop limit.  Set SRV6D_TEST_PCAP
 * to a file name to get every input and output as a pcap.
 */
#include <check.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <stdlib.h>
#include <string.h>

#include "behavior.h"
#include "behavior_proxy.h"
#include "behavior_b6.h"
#include "config.h"
#include "csid.h"
#include "runstate.h"
#include "dispatch.h"
#include "icmp.h"
#include "lpm.h"
#include "oam.h"
#include "process.h"
#include "testutil.h"

static const char END_IN[] =
	"6000000000452b4020010db8000000000000000000000001fc00000100000000"
	"00000000000000011106040202000000fc000003000000000000000000000001"
	"fc000002000000000000000000000001fc000001000000000000000000000001"
	"04d2162e000d123468656c6c6f";

static const char END_OUT[] =
	"6000000000452b4020010db8000000000000000000000001fc00000200000000"
	"00000000000000011106040102000000fc000003000000000000000000000001"
	"fc000002000000000000000000000001fc000001000000000000000000000001"
	"04d2162e000d123468656c6c6f";

static const char PSP_IN[] =
	"6000000000352b4020010db8000000000000000000000001fc00000100000000"
	"00000000000000011104040101000000fc000003000000000000000000000001"
	"fc00000100000000000000000000000104d2162e000d123468656c6c6f";

static const char PSP_OUT[] =
	"60000000000d114020010db8000000000000000000000001fc00000300000000"
	"000000000000000104d2162e000d123468656c6c6f";

static const char PSP_HBH_IN[] =
	"60000000003d004020010db8000000000000000000000001fc00000100000000"
	"00000000000000012b000104000000001104040101000000fc00000300000000"
	"0000000000000001fc00000100000000000000000000000104d2162e000d1234"
	"68656c6c6f";

static const char PSP_HBH_OUT[] =
	"600000000015004020010db8000000000000000000000001fc00000300000000"
	"0000000000000001110001040000000004d2162e000d123468656c6c6f";

static const char TE_IN[] =
	"6000000000452b0120010db8000000000000000000000001fc00000100000000"
	"00000000000000011106040202000000fc000003000000000000000000000001"
	"fc000002000000000000000000000001fc000001000000000000000000000001"
	"04d2162e000d123468656c6c6f";

static const char TE_OUT[] =
	"6000000000753a40fc00000100000000000000000000000120010db800000000"
	"00000000000000010300a168000000006000000000452b0120010db800000000"
	"0000000000000001fc0000010000000000000000000000011106040202000000"
	"fc000003000000000000000000000001fc000002000000000000000000000001"
	"fc00000100000000000000000000000104d2162e000d123468656c6c6f";

static const char BAD_IN[] =
	"6000000000452b4020010db8000000000000000000000001fc00000100000000"
	"00000000000000011106040402000000fc000003000000000000000000000001"
	"fc000002000000000000000000000001fc000001000000000000000000000001"
	"04d2162e000d123468656c6c6f";

static const char BAD_OUT[] =
	"6000000000753a40fc00000100000000000000000000000120010db800000000"
	"000000000000000104009ffc0000002b6000000000452b4020010db800000000"
	"0000000000000001fc0000010000000000000000000000011106040402000000"
	"fc000003000000000000000000000001fc000002000000000000000000000001"
	"fc00000100000000000000000000000104d2162e000d123468656c6c6f";

static const char ECHO_IN[] =
	"6000000000392b4020010db8000000000000000000000001fc00000100000000"
	"00000000000000013a04040001000000fc000001000000000000000000000001"
	"fc000009000000000000000000000001800045044242000770696e672d646174"
	"61";

static const char ECHO_OUT[] =
	"6000000000113a40fc00000100000000000000000000000120010db800000000"
	"0000000000000001810044044242000770696e672d64617461";

static const char UL_IN[] =
	"6000000000352b4020010db8000000000000000000000001fc00000100000000"
	"00000000000000011104040001000000fc000001000000000000000000000001"
	"fc00000900000000000000000000000104d2162e000d123468656c6c6f";

static const char UL_OUT[] =
	"6000000000653a40fc00000100000000000000000000000120010db800000000"
	"000000000000000104049cf7000000506000000000352b4020010db800000000"
	"0000000000000001fc0000010000000000000000000000011104040001000000"
	"fc000001000000000000000000000001fc000009000000000000000000000001"
	"04d2162e000d123468656c6c6f";

static const char USP_UL_OUT[] =
	"60000000003d3a40fc00000100000000000000000000000120010db800000000"
	"00000000000000010404c5810000002860000000000d114020010db800000000"
	"0000000000000001fc00000100000000000000000000000104d2162e000d1234"
	"68656c6c6f";

static const char USD6_IN[] =
	"60000000004d2b4020010db8000000000000000000000001fc00000100000000"
	"00000000000000012902040000000000fc000001000000000000000000000001"
	"60000000000d110520010db8000a0000000000000000000120010db8000b0000"
	"000000000000000104d2162e000d123468656c6c6f";

static const char USD6_OUT[] =
	"60000000000d110520010db8000a0000000000000000000120010db8000b0000"
	"000000000000000104d2162e000d123468656c6c6f";

static const char USD4_IN[] =
	"6000000000392b4020010db8000000000000000000000001fc00000100000000"
	"00000000000000010402040000000000fc000001000000000000000000000001"
	"45000021000100000511c995c0000201c633640104d2162e000d123468656c6c"
	"6f";

static const char USD4_OUT[] =
	"45000021000100000511c995c0000201c633640104d2162e000d123468656c6c"
	"6f";

static const char USD6_NOSRH_IN[] =
	"600000000035294020010db8000000000000000000000001fc00000100000000"
	"000000000000000160000000000d110520010db8000a00000000000000000001"
	"20010db8000b0000000000000000000104d2162e000d123468656c6c6f";

static const char CSID_IN[] =
	"60000000000d114020010db8000000000000000000000001fc00000001000200"
	"030000000000000004d2162e000d123468656c6c6f";

static const char CSID_OUT[] =
	"60000000000d114020010db8000000000000000000000001fc00000002000300"
	"000000000000000004d2162e000d123468656c6c6f";

static const char CSIDFB_IN[] =
	"6000000000352b4020010db8000000000000000000000001fc00000001000000"
	"00000000000000001104040101000000fc000000030004000000000000000000"
	"fc00000001000000000000000000000004d2162e000d123468656c6c6f";

static const char CSIDFB_OUT[] =
	"6000000000352b4020010db8000000000000000000000001fc00000003000400"
	"00000000000000001104040001000000fc000000030004000000000000000000"
	"fc00000001000000000000000000000004d2162e000d123468656c6c6f";

/* REPLACE-C-SID (RFC 9800 4.2): built by tests/rcsid-vectors.py from the
 * RFC's rules (no kernel implements the flavor).  Block 2001:db8:0::/48,
 * 32-bit C-SIDs, DA.Arg.Index in the last 2 bits. */
static const char RCSID_IN[] =
	"6000000000352b4020010db800000000000000000000000120010db800000000"
	"0101000000000003110404010100000000000000000002020000020100000200"
	"0000010400000103000001020000010104d2162e000d123468656c6c6f";

static const char RCSID_OUT[] =
	"6000000000352b4020010db800000000000000000000000120010db800000000"
	"0102000000000002110404010100000000000000000002020000020100000200"
	"0000010400000103000001020000010104d2162e000d123468656c6c6f";

static const char RCSIDNX_IN[] =
	"6000000000352b4020010db800000000000000000000000120010db800000000"
	"0104000000000000110404010100000000000000000002020000020100000200"
	"0000010400000103000001020000010104d2162e000d123468656c6c6f";

static const char RCSIDNX_OUT[] =
	"6000000000352b4020010db800000000000000000000000120010db800000000"
	"0200000000000003110404000100000000000000000002020000020100000200"
	"0000010400000103000001020000010104d2162e000d123468656c6c6f";

static const char RCSIDFULL_IN[] =
	"6000000000352b4020010db800000000000000000000000120010db800000000"
	"0302000000000002110404010100000020010db800000000000000000000000f"
	"0000000000000000000003020000030104d2162e000d123468656c6c6f";

static const char RCSIDFULL_OUT[] =
	"6000000000352b4020010db800000000000000000000000120010db800000000"
	"000000000000000f110404000100000020010db800000000000000000000000f"
	"0000000000000000000003020000030104d2162e000d123468656c6c6f";

static const char RCSIDLAST_IN[] =
	"6000000000352b4020010db800000000000000000000000120010db800000000"
	"0201000000000002110404000100000000000000000002020000020100000200"
	"0000010400000103000001020000010104d2162e000d123468656c6c6f";

static const char RCSIDLAST_OUT[] =
	"6000000000352b4020010db800000000000000000000000120010db800000000"
	"0202000000000001110404000100000000000000000002020000020100000200"
	"0000010400000103000001020000010104d2162e000d123468656c6c6f";

static const char RCSIDPSP_OUT[] =
	"60000000000d114020010db800000000000000000000000120010db800000000"
	"020200000000000104d2162e000d123468656c6c6f";

static const char RCSIDEND_IN[] =
	"6000000000352b4020010db800000000000000000000000120010db800000000"
	"0202000000000001110404000100000000000000000002020000020100000200"
	"0000010400000103000001020000010104d2162e000d123468656c6c6f";

static const char RCSIDBAD_IN[] =
	"6000000000352b4020010db800000000000000000000000120010db800000000"
	"0101000000000003110404020100000000000000000002020000020100000200"
	"0000010400000103000001020000010104d2162e000d123468656c6c6f";

static const char RCSIDBAD0_IN[] =
	"6000000000352b4020010db800000000000000000000000120010db800000000"
	"0101000000000000110404030100000000000000000002020000020100000200"
	"0000010400000103000001020000010104d2162e000d123468656c6c6f";

static const char V4_IN[] =
	"450000300077400040114e0ac0000201c633640700010002001c222278787878"
	"78787878787878787878787878787878";

static const char V4_OUT[] =
	"4500004c0000000040018e75c6336407c00002010304208e0000057845000030"
	"0077400040114e0ac0000201c633640700010002001c22227878787878787878"
	"787878787878787878787878";

static const char BIG_IN_HDR[] =
	"6000000006402b0120010db8000000000000000000000001fc00000100000000"
	"00000000000000011106040202000000fc000003000000000000000000000001"
	"fc000002000000000000000000000001fc000001000000000000000000000001"
	"0001000206081111";

static const char BIG_OUT_HDR[] =
	"6000000004d83a40fc00000100000000000000000000000120010db800000000"
	"00000000000000010300896800000000";

static const char RH3_OUT[] =
	"6000000000753a40fc00000100000000000000000000000120010db800000000"
	"00000000000000010400a0ff0000002a6000000000452b4020010db800000000"
	"0000000000000001fc0000010000000000000000000000011106030202000000"
	"fc000003000000000000000000000001fc000002000000000000000000000001"
	"fc00000100000000000000000000000104d2162e000d123468656c6c6f";

static struct config cfg;
static struct worker_stats ws;
static struct sid_stats sst[8];
static struct policy pols[1];
static struct sid_stats pst[1];
static struct proc_ctx ctx;
static struct sid_marks marks[8];
static struct runstate rs = { .sids = marks, .nsids = 8 };
static struct test_slot slot;
static uint8_t want[2048];

static void setup(void)
{
	memset(&cfg, 0, sizeof(cfg));
	memset(&ws, 0, sizeof(ws));
	memset(sst, 0, sizeof(sst));
	memset(pst, 0, sizeof(pst));
	cfg.icmp_rate = 100;
	cfg.icmp_burst = 50;
	cfg.policies = pols;
	cfg.npolicies = 0;
	memset(&ctx, 0, sizeof(ctx));
	memset(marks, 0, sizeof(marks));
	ctx.cfg = &cfg;
	ctx.rs = &rs;
	ctx.stats = &ws;
	ctx.sid_stats = sst;
	ctx.policy_stats = pst;
	ctx.now_ns = 5000000000ull;
}

static struct sid mksid(enum behavior b, unsigned flavors, unsigned index)
{
	struct sid s;

	memset(&s, 0, sizeof(s));
	s.behavior = b;
	s.flavors = flavors;
	s.index = index;
	marks[index].mark = 0x5d6f0000u + index;	/* the daemon's choice */
	return s;
}

static void run_behavior(const struct sid *s, struct pkt *p)
{
	switch (s->behavior) {
	case BHV_END:
	case BHV_END_X:
	case BHV_END_T:
		behavior_end(&ctx, s, p);	/* S15 as the SID's row says */
		break;
	case BHV_END_MAP:
		behavior_end_map(&ctx, s, p);
		break;
	default:
		ck_abort_msg("no such behavior");
	}
}

/* Run sid's behavior on the packet in hex `in`; return the packet. */
static struct pkt *run(const struct sid *s, const char *in)
{
	uint8_t buf[2048];
	size_t n = hex2bin(in, buf, sizeof(buf));
	struct pkt *p = test_pkt(&slot, buf, n, ETH_P_IPV6);

	test_pcap_write(p->data, p->len);
	run_behavior(s, p);
	if (p->verdict == PKT_NEW_BYTES)
		test_pcap_write(p->data, p->len);
	return p;
}

static void expect_bytes(const struct pkt *p, const char *hex)
{
	size_t n = hex2bin(hex, want, sizeof(want));

	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, n);
	ck_assert(p->data >= p->head);
	ck_assert(p->data + p->len <= p->end);
}

/* ---- End.MAP (RFC 9433 6.2) -------------------------------------------- */

/* END_IN with its DA fc00:9::d6, the mapped SID; the SRH as it came
 * (Segments Left 2). */
static const char MAP_OUT[] =
	"6000000000452b4020010db8000000000000000000000001fc00000900000000"
	"000000000000" "00d61106040202000000fc000003000000000000000000000001"
	"fc000002000000000000000000000001fc000001000000000000000000000001"
	"04d2162e000d123468656c6c6f";
/* No SRH: IPv6/UDP "hello" to fc00:100::1, and the same to fc00:9::d6. */
static const char MAP_PLAIN_IN[] =
	"60000000000d114020010db8000000000000000000000001fc00010000000000"
	"00000000000000" "0104d2162e000d123468656c6c6f";
static const char MAP_PLAIN_OUT[] =
	"60000000000d114020010db8000000000000000000000001fc00000900000000"
	"000000000000" "00d604d2162e000d123468656c6c6f";

static struct sid map_sid(void)
{
	struct sid s = mksid(BHV_END_MAP, 0, 3);

	inet_pton(AF_INET6, "fc00:9::d6", &s.nh6);
	return s;
}

START_TEST(end_map_srh_untouched)
{
	struct sid s = map_sid();
	struct pkt *p = run(&s, END_IN);

	expect_bytes(p, MAP_OUT);
	ck_assert(!p->set_mark);	/* the main table routes it */
	ck_assert_uint_eq(sst[3].packets, 1);
	ck_assert_uint_eq(sst[3].errors, 0);
}
END_TEST

START_TEST(end_map_without_srh)
{
	struct sid s = map_sid();
	struct pkt *p = run(&s, MAP_PLAIN_IN);

	expect_bytes(p, MAP_PLAIN_OUT);
	ck_assert_uint_eq(sst[3].packets, 1);
}
END_TEST

START_TEST(end_map_hop_limit)
{
	struct sid s = map_sid();
	struct pkt *p = run(&s, TE_IN);

	expect_bytes(p, TE_OUT);	/* S01-S03: as End's */
	ck_assert_uint_eq(sst[3].drops[DROP_HOP_LIMIT], 1);
	ck_assert_uint_eq(sst[3].packets, 0);
}
END_TEST

/* ---- End, End.X, End.T ------------------------------------------------ */

START_TEST(end_sl2_to_1)
{
	struct sid s = mksid(BHV_END, 0, 0);
	struct pkt *p = run(&s, END_IN);

	expect_bytes(p, END_OUT);
	ck_assert(!p->set_mark);
	ck_assert(!p->chain_kept);	/* Segments Left changed */
	ck_assert_uint_eq(sst[0].packets, 1);
	ck_assert_uint_eq(sst[0].bytes, p->orig_len);
	ck_assert_uint_eq(sst[0].errors, 0);
}
END_TEST

START_TEST(end_x_sets_mark)
{
	struct sid s = mksid(BHV_END_X, 0, 1);
	struct pkt *p = run(&s, END_IN);

	expect_bytes(p, END_OUT);
	ck_assert(p->set_mark);
	ck_assert_uint_eq(p->out_mark, 0x5d6f0001u);
	ck_assert_uint_eq(sst[1].packets, 1);
}
END_TEST

START_TEST(end_t_sets_mark)
{
	struct sid s = mksid(BHV_END_T, 0, 2);
	struct pkt *p = run(&s, END_IN);

	expect_bytes(p, END_OUT);
	ck_assert(p->set_mark);
	ck_assert_uint_eq(p->out_mark, 0x5d6f0002u);
	ck_assert_uint_eq(sst[2].packets, 1);
}
END_TEST

START_TEST(end_hop_limit_time_exceeded)
{
	struct sid s = mksid(BHV_END, 0, 0);
	struct pkt *p = run(&s, TE_IN);

	expect_bytes(p, TE_OUT);
	ck_assert(!p->set_mark);
	ck_assert(!p->chain_kept);	/* a new packet: the ICMPv6 error */
	ck_assert_uint_eq(ws.icmp_sent, 1);
	ck_assert_uint_eq(ws.drops[DROP_HOP_LIMIT], 1);
	ck_assert_uint_eq(sst[0].errors, 1);
	ck_assert_uint_eq(sst[0].drops[DROP_HOP_LIMIT], 1);
	ck_assert_uint_eq(sst[0].packets, 0);
}
END_TEST

START_TEST(end_x_error_has_no_mark)
{
	struct sid s = mksid(BHV_END_X, 0, 1);
	struct pkt *p = run(&s, TE_IN);

	expect_bytes(p, TE_OUT);
	ck_assert(!p->set_mark);
}
END_TEST

START_TEST(end_bad_srh_param_problem)
{
	struct sid s = mksid(BHV_END, 0, 0);
	struct pkt *p = run(&s, BAD_IN);

	expect_bytes(p, BAD_OUT);
	ck_assert_uint_eq(ws.drops[DROP_BAD_SRH], 1);
	ck_assert_uint_eq(sst[0].errors, 1);
}
END_TEST

/* RFC 8200 4.4: a routing header of unknown type 3 with Segments Left 2
 * at a SID: Parameter Problem code 0 pointing at its Routing Type. */
START_TEST(end_other_routing_type)
{
	struct sid s = mksid(BHV_END, 0, 0);
	uint8_t buf[256];
	size_t n = hex2bin(END_IN, buf, sizeof(buf));
	struct pkt *p;

	buf[42] = 3;
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	behavior_end(&ctx, &s, p);
	expect_bytes(p, RH3_OUT);
	ck_assert_uint_eq(sst[0].drops[DROP_BAD_SRH], 1);
}
END_TEST

/* A 1600-byte packet: the Time Exceeded is cut to 1280 bytes. */
START_TEST(icmp6_error_cut_to_1280)
{
	struct sid s = mksid(BHV_END, 0, 0);
	uint8_t in[1600];
	size_t h = hex2bin(BIG_IN_HDR, in, sizeof(in)), n;
	struct pkt *p;

	for (size_t i = h; i < sizeof(in); i++)
		in[i] = (uint8_t)(i - h);
	p = test_pkt(&slot, in, sizeof(in), ETH_P_IPV6);
	behavior_end(&ctx, &s, p);
	test_pcap_write(p->data, p->len);
	n = hex2bin(BIG_OUT_HDR, want, sizeof(want));
	memcpy(want + n, in, 1280 - n);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, 1280);
}
END_TEST

START_TEST(icmp_rate_limit)
{
	struct sid s = mksid(BHV_END, 0, 0);
	struct pkt *p;

	cfg.icmp_rate = 1;
	cfg.icmp_burst = 2;
	for (int i = 0; i < 2; i++) {
		p = run(&s, TE_IN);
		expect_bytes(p, TE_OUT);
	}
	p = run(&s, TE_IN);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	/* The reason is counted for every packet, the error owed but
	 * not sent apart (issue 12, defect 4). */
	ck_assert_uint_eq(ws.icmp_sent, 2);
	ck_assert_uint_eq(ws.icmp_ratelimited, 1);
	ck_assert_uint_eq(ws.drops[DROP_HOP_LIMIT], 3);
	ck_assert_uint_eq(sst[0].drops[DROP_HOP_LIMIT], 3);
	ck_assert_uint_eq(sst[0].errors, 3);
	ck_assert_int_eq(p->outcome, PKT_OUT_DROP);
	ck_assert_int_eq(p->reason, DROP_HOP_LIMIT);
	/* One second later one token is back, and only one. */
	ctx.now_ns += 1000000000ull;
	p = run(&s, TE_IN);
	expect_bytes(p, TE_OUT);
	p = run(&s, TE_IN);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.icmp_ratelimited, 2);
	ck_assert_uint_eq(ws.drops[DROP_HOP_LIMIT], 5);
	ck_assert_uint_eq(ws.icmp_sent, 3);
}
END_TEST

/* icmp-rate 0 sends no error at all (srv6d.conf(5)), although a worker
 * starts with a full bucket of icmp-burst tokens. */
START_TEST(icmp_rate_zero_sends_none)
{
	struct sid s = mksid(BHV_END, 0, 0);
	struct pkt *p;

	cfg.icmp_rate = 0;
	cfg.icmp_burst = 2;
	ctx.icmp_rl.tokens_milli = 2000;	/* as the worker starts */
	for (int i = 0; i < 3; i++) {
		p = run(&s, TE_IN);
		ck_assert_int_eq(p->verdict, PKT_DROP);
		ctx.now_ns += 1000000000ull;
	}
	ck_assert_uint_eq(ws.icmp_sent, 0);
	ck_assert_uint_eq(ws.icmp_ratelimited, 3);
	ck_assert_uint_eq(ws.drops[DROP_HOP_LIMIT], 3);
	ck_assert_uint_eq(sst[0].errors, 3);
}
END_TEST

/* No error about an ICMPv6 error (RFC 4443 2.4(e.1)): the Time Exceeded
 * built above, sent back to the SID with hop limit 1, is dropped. */
START_TEST(no_error_about_error)
{
	struct sid s = mksid(BHV_END, 0, 0);
	uint8_t buf[2048];
	size_t n = hex2bin(TE_OUT, buf, sizeof(buf));
	struct pkt *p;

	buf[7] = 1;
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	icmp6_error(&ctx, p, ICMP6_T_TIME_EXCEEDED, 0, 0, &sst[0],
		    DROP_HOP_LIMIT);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.icmp_sent, 0);
	ck_assert_uint_eq(ws.drops[DROP_HOP_LIMIT], 1);
	(void)s;
}
END_TEST

START_TEST(no_error_to_multicast_source)
{
	uint8_t buf[2048];
	size_t n = hex2bin(TE_IN, buf, sizeof(buf));
	struct pkt *p;

	buf[8] = 0xff;	/* source ff01:db8::1 */
	buf[9] = 0x01;
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	icmp6_error(&ctx, p, ICMP6_T_TIME_EXCEEDED, 0, 0, &sst[0],
		    DROP_HOP_LIMIT);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.icmp_sent, 0);
	memset(buf + 8, 0, 16);	/* unspecified source */
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	icmp6_error(&ctx, p, ICMP6_T_TIME_EXCEEDED, 0, 0, &sst[0],
		    DROP_HOP_LIMIT);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.drops[DROP_HOP_LIMIT], 2);
}
END_TEST

START_TEST(icmp4_frag_needed)
{
	uint8_t buf[256];
	size_t n = hex2bin(V4_IN, buf, sizeof(buf));
	struct pkt *p = test_pkt(&slot, buf, n, ETH_P_IP);

	struct in_addr from;

	inet_pton(AF_INET, "198.51.100.7", &from);
	icmp4_error(&ctx, p, &from, ICMP4_T_DST_UNREACH, ICMP4_C_FRAG_NEEDED,
		    1400, &pst[0], DROP_TOO_BIG);
	test_pcap_write(p->data, p->len);
	expect_bytes(p, V4_OUT);
	ck_assert_uint_eq(ws.icmp_sent, 1);
	ck_assert_uint_eq(pst[0].drops[DROP_TOO_BIG], 1);
	/* this node's own packet: it leaves by the raw socket */
	ck_assert(p->local_out);
}
END_TEST

/* ---- Segments Left 0: upper-layer processing (RFC 8986 4.1.1) ---------- */

START_TEST(sl0_echo_reply)
{
	struct sid s = mksid(BHV_END, 0, 0);
	struct pkt *p = run(&s, ECHO_IN);

	expect_bytes(p, ECHO_OUT);
	ck_assert_uint_eq(sst[0].packets, 1);
	ck_assert_uint_eq(ws.icmp_sent, 0);
}
END_TEST

START_TEST(sl0_echo_bad_checksum_dropped)
{
	struct sid s = mksid(BHV_END, 0, 0);
	uint8_t buf[256];
	size_t n = hex2bin(ECHO_IN, buf, sizeof(buf));
	struct pkt *p;

	buf[n - 1] ^= 1;
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	behavior_end(&ctx, &s, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(sst[0].drops[DROP_UPPER_LAYER], 1);
}
END_TEST

/* Linux drops these silently; RFC 8986 4.1.1 wants Parameter Problem
 * code 4 pointing at the upper-layer header. */
START_TEST(sl0_udp_param_problem_code4)
{
	struct sid s = mksid(BHV_END, 0, 0);
	struct pkt *p = run(&s, UL_IN);

	expect_bytes(p, UL_OUT);
	ck_assert_uint_eq(ws.drops[DROP_UPPER_LAYER], 1);
	ck_assert_uint_eq(sst[0].errors, 1);
}
END_TEST

/* ---- Flavors ----------------------------------------------------------- */

START_TEST(psp_sl1_to_0_pops_srh)
{
	struct sid s = mksid(BHV_END, FLV_PSP, 0);
	struct pkt *p = run(&s, PSP_IN);

	expect_bytes(p, PSP_OUT);
	ck_assert_uint_eq(sst[0].packets, 1);
}
END_TEST

START_TEST(psp_keeps_hop_by_hop)
{
	struct sid s = mksid(BHV_END, FLV_PSP, 0);
	struct pkt *p = run(&s, PSP_HBH_IN);

	expect_bytes(p, PSP_HBH_OUT);
}
END_TEST

START_TEST(psp_sl2_is_plain_end)
{
	struct sid s = mksid(BHV_END, FLV_PSP, 0);
	struct pkt *p = run(&s, END_IN);

	expect_bytes(p, END_OUT);
}
END_TEST

START_TEST(psp_end_x)
{
	struct sid s = mksid(BHV_END_X, FLV_PSP, 3);
	struct pkt *p = run(&s, PSP_IN);

	expect_bytes(p, PSP_OUT);
	ck_assert(p->set_mark);
	ck_assert_uint_eq(p->out_mark, 0x5d6f0003u);
}
END_TEST

START_TEST(usp_echo_reply)
{
	struct sid s = mksid(BHV_END, FLV_USP, 0);
	struct pkt *p = run(&s, ECHO_IN);

	expect_bytes(p, ECHO_OUT);
}
END_TEST

/* USP removes the SRH, then the upper layer (UDP) is refused: the
 * Parameter Problem is about the packet without its SRH. */
START_TEST(usp_udp_param_problem)
{
	struct sid s = mksid(BHV_END, FLV_USP, 0);
	struct pkt *p = run(&s, UL_IN);

	expect_bytes(p, USP_UL_OUT);
	ck_assert_uint_eq(ws.drops[DROP_UPPER_LAYER], 1);
}
END_TEST

START_TEST(usp_sl2_is_plain_end)
{
	struct sid s = mksid(BHV_END, FLV_USP | FLV_PSP, 0);
	struct pkt *p = run(&s, END_IN);

	expect_bytes(p, END_OUT);
}
END_TEST

START_TEST(usd_inner_ipv6)
{
	struct sid s = mksid(BHV_END, FLV_USD, 0);
	struct pkt *p = run(&s, USD6_IN);

	expect_bytes(p, USD6_OUT);	/* inner hop limit 5 untouched */
	ck_assert_uint_eq(sst[0].packets, 1);
}
END_TEST

START_TEST(usd_inner_ipv4)
{
	struct sid s = mksid(BHV_END, FLV_USD, 0);
	struct pkt *p = run(&s, USD4_IN);

	expect_bytes(p, USD4_OUT);	/* TTL 5, checksum untouched */
	ck_assert_uint_eq(p->hw_proto, ETH_P_IPV6);	/* reinject.c: TUN */
}
END_TEST

START_TEST(usd_without_srh)
{
	struct sid s = mksid(BHV_END_T, FLV_USD, 2);
	struct pkt *p = run(&s, USD6_NOSRH_IN);

	expect_bytes(p, USD6_OUT);
	ck_assert(p->set_mark);
}
END_TEST

START_TEST(usd_truncated_inner)
{
	struct sid s = mksid(BHV_END, FLV_USD, 0);
	uint8_t buf[256];
	size_t n = hex2bin(USD6_IN, buf, sizeof(buf));
	struct pkt *p;

	/* Outer payload length shortened by 4: inner claims 4 bytes more
	 * than there are. */
	buf[5] -= 4;
	p = test_pkt(&slot, buf, n - 4, ETH_P_IPV6);
	behavior_end(&ctx, &s, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(sst[0].drops[DROP_TRUNCATED], 1);
}
END_TEST

START_TEST(usd_without_flavor_is_upper_layer_error)
{
	struct sid s = mksid(BHV_END, 0, 0);
	struct pkt *p = run(&s, USD6_IN);

	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->data[40], ICMP6_T_PARAM_PROB);
	ck_assert_uint_eq(p->data[41], ICMP6_C_SR_UPPER_LAYER);
	ck_assert_uint_eq(p->data[47], 64);	/* 40 + SRH of 24 */
}
END_TEST

/* ---- NEXT-C-SID (RFC 9800 4.1) ----------------------------------------- */

START_TEST(csid_shift)
{
	struct sid s = mksid(BHV_END, FLV_NEXT_CSID, 0);
	struct pkt *p;

	s.lblen = 32;
	s.nflen = 16;
	p = run(&s, CSID_IN);
	expect_bytes(p, CSID_OUT);
	ck_assert(p->chain_kept);	/* only the destination changed */
	ck_assert_uint_eq(sst[0].packets, 1);
}
END_TEST

START_TEST(csid_default_lengths)
{
	struct sid s = mksid(BHV_END_X, FLV_NEXT_CSID, 1);
	struct pkt *p = run(&s, CSID_IN);

	expect_bytes(p, CSID_OUT);
	ck_assert(p->set_mark);
}
END_TEST

START_TEST(csid_fallback_to_srh)
{
	struct sid s = mksid(BHV_END, FLV_NEXT_CSID, 0);
	struct pkt *p = run(&s, CSIDFB_IN);

	expect_bytes(p, CSIDFB_OUT);
	ck_assert(!p->chain_kept);	/* the SRH's Segments Left */
}
END_TEST

START_TEST(csid_hop_limit)
{
	struct sid s = mksid(BHV_END, FLV_NEXT_CSID, 0);
	uint8_t buf[256];
	size_t n = hex2bin(CSID_IN, buf, sizeof(buf));
	struct pkt *p;

	buf[7] = 1;
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	behavior_end(&ctx, &s, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->len, 48 + n);
	ck_assert_uint_eq(p->data[40], ICMP6_T_TIME_EXCEEDED);
	ck_assert_bytes(p->data + 48, n, buf, n);
	ck_assert_uint_eq(ws.drops[DROP_HOP_LIMIT], 1);
}
END_TEST

/* ---- REPLACE-C-SID (RFC 9800 4.2) ------------------------------------ */

static struct sid rsid(enum behavior b, unsigned flavors, unsigned index)
{
	struct sid s = mksid(b, FLV_REPLACE_CSID | flavors, index);

	s.lblen = 48;
	s.nflen = 32;
	return s;
}

/* The C-SID field operations against a bit-by-bit reference (bit 0 the
 * most significant), for the byte-wise lengths (16/32-bit C-SIDs after a
 * whole-byte block) and for odd ones (the 128-bit shifts). */
static unsigned ref_bit(const struct in6_addr *a, unsigned i)
{
	return (a->s6_addr[i / 8] >> (7 - i % 8)) & 1;
}

static void ref_set(struct in6_addr *a, unsigned i, unsigned v)
{
	uint8_t m = (uint8_t)(0x80 >> (i % 8));

	a->s6_addr[i / 8] = (uint8_t)(v ? a->s6_addr[i / 8] | m :
					  a->s6_addr[i / 8] & ~m);
}

START_TEST(rcsid_field_ops)
{
	static const unsigned lens[][2] = {
		{ 48, 32 }, { 32, 16 }, { 48, 16 }, { 64, 32 }, { 40, 24 },
		{ 36, 20 }, { 20, 12 }, { 44, 8 }, { 33, 31 },
	};

	for (unsigned k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		unsigned lb = lens[k][0], nf = lens[k][1];
		unsigned ib = rcsid_index_bits(nf), n = 128 / nf;
		struct in6_addr a, ref;

		for (unsigned b = 0; b < 16; b++)
			a.s6_addr[b] = (uint8_t)(0x9d * (b + 1) + k);
		ck_assert_uint_eq(1u << ib >= n && (ib == 0 ||
				  1u << (ib - 1) < n), 1);
		for (unsigned i = 0; i < n; i++) {
			uint32_t v = 0;

			for (unsigned j = 0; j < nf; j++)
				v = v << 1 | ref_bit(&a, i * nf + j);
			ck_assert_uint_eq(rcsid_get(&a, nf, i), v);
			ck_assert_uint_eq(rcsid_get_any(&a, nf, i), v);
		}
		ref = a;
		for (unsigned j = 0; j < nf; j++)
			ref_set(&ref, lb + j, (0x5a5a5a5au >> (nf - 1 - j)) & 1);
		for (unsigned j = 0; j < ib; j++)
			ref_set(&ref, 128 - ib + j, ((n - 1) >> (ib - 1 - j)) & 1);
		rcsid_write(&a, lb, nf, 0x5a5a5a5au & (nf < 32 ?
			    (1u << nf) - 1 : 0xffffffffu), n - 1);
		ck_assert_bytes(a.s6_addr, 16, ref.s6_addr, 16);
		ck_assert_uint_eq(rcsid_index(&a, nf), n - 1);
		ck_assert_uint_eq(rcsid_index_any(&a, nf), n - 1);
		/* the 128-bit path, for the lengths csid.h takes as words */
		for (unsigned b = 0; b < 16; b++)
			a.s6_addr[b] = (uint8_t)(0x9d * (b + 1) + k);
		rcsid_write_any(&a, lb, nf, 0x5a5a5a5au & (nf < 32 ?
				(1u << nf) - 1 : 0xffffffffu), n - 1);
		ck_assert_bytes(a.s6_addr, 16, ref.s6_addr, 16);
	}
}
END_TEST

/* 4.2.1 S09, S13, S28: the next C-SID of the same container; only the
 * destination changes. */
START_TEST(rcsid_within_container)
{
	struct sid s = rsid(BHV_END, 0, 0);
	struct pkt *p = run(&s, RCSID_IN);

	expect_bytes(p, RCSID_OUT);
	ck_assert(p->chain_kept);
	ck_assert_uint_eq(sst[0].packets, 1);
}
END_TEST

/* The RFC 9800 5.1/5.2 defaults are the same lengths: 48 and 32. */
START_TEST(rcsid_default_lengths)
{
	struct sid s = mksid(BHV_END_X, FLV_REPLACE_CSID, 1);
	struct pkt *p = run(&s, RCSID_IN);

	expect_bytes(p, RCSID_OUT);
	ck_assert(p->set_mark);
}
END_TEST

/* 4.2.3 End.T with REPLACE-C-SID: the same bytes, routed in the SID's
 * table by its mark (S29). */
START_TEST(rcsid_end_t)
{
	struct sid s = rsid(BHV_END_T, 0, 2);
	struct pkt *p = run(&s, RCSIDNX_IN);

	expect_bytes(p, RCSIDNX_OUT);
	ck_assert(p->set_mark);
	ck_assert_uint_eq(p->out_mark, 0x5d6f0002u);
	ck_assert_uint_eq(sst[2].packets, 1);
}
END_TEST

/* S20-S25, S28: index 0, Segments Left decremented, the next container's
 * C-SID 3 with DA.Arg.Index 3. */
START_TEST(rcsid_next_container)
{
	struct sid s = rsid(BHV_END, 0, 0);
	struct pkt *p = run(&s, RCSIDNX_IN);

	expect_bytes(p, RCSIDNX_OUT);
	ck_assert(!p->chain_kept);	/* Segments Left */
}
END_TEST

/* S14-S17: a 0 C-SID ends the container: the next entry, a whole SID. */
START_TEST(rcsid_zero_csid_full_sid)
{
	struct sid s = rsid(BHV_END, 0, 0);
	struct pkt *p = run(&s, RCSIDFULL_IN);

	expect_bytes(p, RCSIDFULL_OUT);
}
END_TEST

/* S02 passes with Segments Left 0 while the last container has C-SIDs. */
START_TEST(rcsid_last_container)
{
	struct sid s = rsid(BHV_END, 0, 0);
	struct pkt *p = run(&s, RCSIDLAST_IN);

	expect_bytes(p, RCSIDLAST_OUT);
	ck_assert(p->chain_kept);
}
END_TEST

/* 4.2.4 PSP, S28.1: the last C-SID in the destination, the SRH removed. */
START_TEST(rcsid_last_container_psp)
{
	struct sid s = rsid(BHV_END, FLV_PSP, 0);
	struct pkt *p = run(&s, RCSIDLAST_IN);

	expect_bytes(p, RCSIDPSP_OUT);
}
END_TEST

/* S02-S04: Segments Left 0 and C-SID index-1 of Segment List[0] is 0:
 * the upper layer (UDP at End: RFC 8986 4.1.1 Parameter Problem). */
START_TEST(rcsid_end_of_list)
{
	struct sid s = rsid(BHV_END, 0, 0);
	struct pkt *p = run(&s, RCSIDEND_IN);

	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->data[40], ICMP6_T_PARAM_PROB);
	ck_assert_uint_eq(p->data[41], ICMP6_C_SR_UPPER_LAYER);
	ck_assert_uint_eq(p->data[47], 80);	/* 40 + SRH of 40 */
}
END_TEST

/* S10-S11: index != 0 with Segments Left > Last Entry (which RFC 8986's
 * check would let through); S21-S22: index 0 with Segments Left > Last
 * Entry + 1.  Parameter Problem code 0 at Segments Left (40 + 3). */
START_TEST(rcsid_bad_segments_left)
{
	const char *in[] = { RCSIDBAD_IN, RCSIDBAD0_IN };

	for (unsigned i = 0; i < 2; i++) {
		struct sid s = rsid(BHV_END, 0, 0);
		struct pkt *p = run(&s, in[i]);

		ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
		ck_assert_uint_eq(p->data[40], ICMP6_T_PARAM_PROB);
		ck_assert_uint_eq(p->data[41], ICMP6_C_HDR_FIELD);
		ck_assert_uint_eq(p->data[47], 43);
		ck_assert_uint_eq(sst[0].drops[DROP_BAD_SRH], i + 1);
	}
}
END_TEST

/* S05-S07: Hop Limit 1: Time Exceeded, the packet quoted. */
START_TEST(rcsid_hop_limit)
{
	struct sid s = rsid(BHV_END, 0, 0);
	uint8_t buf[256];
	size_t n = hex2bin(RCSID_IN, buf, sizeof(buf));
	struct pkt *p;

	buf[7] = 1;
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	behavior_end(&ctx, &s, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->data[40], ICMP6_T_TIME_EXCEEDED);
	ck_assert_bytes(p->data + 48, n, buf, n);
	ck_assert_uint_eq(ws.drops[DROP_HOP_LIMIT], 1);
}
END_TEST

/* 16-bit C-SIDs: 8 a container, the index in 3 bits.  DA index 7 in
 * 2001:db8:0:0011::7 -> C-SID 6 of the container (0x0022), index 6. */
START_TEST(rcsid_16bit)
{
	static const uint8_t cont[16] = {
		0, 0x88, 0, 0x77, 0, 0x66, 0, 0x55,
		0, 0x44, 0, 0x33, 0, 0x22, 0, 0x11,
	};
	struct sid s = rsid(BHV_END, 0, 0);
	uint8_t buf[256], exp[256];
	size_t n = hex2bin(RCSID_IN, buf, sizeof(buf));
	struct pkt *p;

	s.nflen = 16;
	memset(buf + 30, 0, 10);	/* DA after the block */
	buf[30] = 0x00;
	buf[31] = 0x11;
	buf[39] = 7;
	memcpy(buf + 48 + 16, cont, 16);	/* Segment List[1] */
	memcpy(exp, buf, n);
	exp[31] = 0x22;
	exp[39] = 6;
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	behavior_end(&ctx, &s, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->len, n);
	ck_assert_bytes(p->data, n, exp, n);
}
END_TEST

/* ---- srv6_process(): sanity checks and dispatch ------------------------ */

static struct sid psids[2];

static void setup_tables(void)
{
	struct in6_addr a;

	setup();
	psids[0] = mksid(BHV_END, 0, 0);
	inet_pton(AF_INET6, "fc00:1::1", &a);
	psids[0].prefix = a;
	psids[0].plen = 128;
	psids[1] = mksid(BHV_END_X, FLV_NEXT_CSID, 1);
	inet_pton(AF_INET6, "fc00:0:100::", &a);
	psids[1].prefix = a;
	psids[1].plen = 48;
	cfg.sids = psids;
	cfg.nsids = 2;
	cfg.sid_table = lpm_new();
	ck_assert_ptr_nonnull(cfg.sid_table);
	ck_assert_int_eq(lpm_insert(cfg.sid_table, &psids[0].prefix, 128,
				    &psids[0]), 0);
	ck_assert_int_eq(lpm_insert(cfg.sid_table, &psids[1].prefix, 48,
				    &psids[1]), 0);
}

static void teardown_tables(void)
{
	lpm_free(cfg.sid_table);
}

static struct pkt *process_hex(const char *hex, size_t extra, uint16_t proto)
{
	uint8_t buf[2048];
	size_t n = hex2bin(hex, buf, sizeof(buf));
	struct pkt *p;

	memset(buf + n, 0xee, extra);
	p = test_pkt(&slot, buf, n + extra, proto);
	srv6_process(&ctx, p);
	return p;
}

START_TEST(process_dispatch_end)
{
	struct pkt *p = process_hex(END_IN, 0, ETH_P_IPV6);

	expect_bytes(p, END_OUT);
	ck_assert_uint_eq(sst[0].packets, 1);
}
END_TEST

START_TEST(process_dispatch_csid_prefix)
{
	struct pkt *p = process_hex(CSID_IN, 0, ETH_P_IPV6);

	expect_bytes(p, CSID_OUT);
	ck_assert(p->set_mark);
	ck_assert_uint_eq(sst[1].packets, 1);
}
END_TEST

/* Bytes after the IPv6 packet (link padding) are cut. */
START_TEST(process_trims_trailer)
{
	struct pkt *p = process_hex(END_IN, 7, ETH_P_IPV6);

	expect_bytes(p, END_OUT);
}
END_TEST

START_TEST(process_truncated)
{
	uint8_t buf[2048];
	size_t n = hex2bin(END_IN, buf, sizeof(buf));
	struct pkt *p;

	p = test_pkt(&slot, buf, n - 1, ETH_P_IPV6);	/* plen says 1 more */
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.drops[DROP_TRUNCATED], 1);
	p = test_pkt(&slot, buf, 39, ETH_P_IPV6);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.drops[DROP_TRUNCATED], 2);
	/* an SRH that claims more than the payload */
	buf[41] = 10;
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.drops[DROP_TRUNCATED], 3);
	ck_assert_uint_eq(sst[0].drops[DROP_TRUNCATED], 1);
	/* IPv4 total length beyond the packet */
	n = hex2bin(V4_IN, buf, sizeof(buf));
	p = test_pkt(&slot, buf, n - 1, ETH_P_IP);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.drops[DROP_TRUNCATED], 4);
}
END_TEST

START_TEST(process_bad_version)
{
	uint8_t buf[2048];
	size_t n = hex2bin(END_IN, buf, sizeof(buf));
	struct pkt *p;

	p = test_pkt(&slot, buf, n, ETH_P_IP);	/* IPv6 bytes from the IPv4 hook */
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.drops[DROP_BAD_IP], 1);
}
END_TEST

START_TEST(process_unmatched)
{
	struct pkt *p = process_hex(USD6_OUT, 0, ETH_P_IPV6);

	ck_assert_int_eq(p->verdict, PKT_ACCEPT);
	ck_assert_uint_eq(ws.unmatched, 1);
	p = process_hex(V4_IN, 0, ETH_P_IP);
	ck_assert_int_eq(p->verdict, PKT_ACCEPT);
	ck_assert_uint_eq(ws.unmatched, 2);
}
END_TEST

/* A result whose new destination is another SID of this node runs that
 * SID at once, as the kernel's seg6local would (RFC 8986 S15): End at
 * fc00:1::1 then End at fc00:2::1 gives DA fc00:3::1, SL 0. */
START_TEST(process_local_sid_chain)
{
	static const char CHAIN_OUT[] =
		"6000000000452b4020010db8000000000000000000000001fc00000300000000"
		"00000000000000011106040002000000fc000003000000000000000000000001"
		"fc000002000000000000000000000001fc000001000000000000000000000001"
		"04d2162e000d123468656c6c6f";
	static struct sid second;
	struct pkt *p;

	second = mksid(BHV_END, 0, 2);
	inet_pton(AF_INET6, "fc00:2::1", &second.prefix);
	second.plen = 128;
	ck_assert_int_eq(lpm_insert(cfg.sid_table, &second.prefix, 128, &second), 0);
	cfg.nsids = 3;
	p = process_hex(END_IN, 0, ETH_P_IPV6);
	expect_bytes(p, CHAIN_OUT);
	ck_assert_uint_eq(sst[0].packets, 1);
	ck_assert_uint_eq(sst[2].packets, 1);
}
END_TEST

/* The Parameter Problem srv6d builds for a packet from 2001:db8::1 (UL_IN:
 * SL 0, UDP) is this node's own packet to the sender: it is not handed to
 * a local SID whose prefix holds the sender's address (before: that SID
 * dropped it too, two reasons for one packet and the error lost). */
START_TEST(process_icmp_error_not_chained)
{
	static struct sid sender_sid;
	unsigned sum = 0;
	struct pkt *p;

	sender_sid = mksid(BHV_END, 0, 2);
	inet_pton(AF_INET6, "2001:db8::", &sender_sid.prefix);
	sender_sid.plen = 64;
	ck_assert_int_eq(lpm_insert(cfg.sid_table, &sender_sid.prefix, 64,
				    &sender_sid), 0);
	cfg.nsids = 3;
	p = process_hex(UL_IN, 0, ETH_P_IPV6);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_int_eq(p->outcome, PKT_OUT_ICMP);
	ck_assert_uint_eq(p->data[40], 4);	/* ICMPv6 Parameter Problem */
	ck_assert_uint_eq(ws.drops[DROP_UPPER_LAYER], 1);
	for (unsigned r = 0; r < DROP__COUNT; r++)
		sum += (unsigned)ws.drops[r];
	ck_assert_uint_eq(sum, 1);
	ck_assert_uint_eq(sst[2].packets, 0);
	ck_assert_uint_eq(sst[2].errors, 0);
}
END_TEST

/* A segment list that keeps coming back to this node is cut after
 * PROC_SID_CHAIN_MAX local SIDs and dropped with a counted reason. */
START_TEST(process_local_sid_chain_bounded)
{
	enum { NSEG = PROC_SID_CHAIN_MAX + 8 };
	uint8_t buf[40 + 8 + 16 * NSEG + 8];
	struct in6_addr sid1;
	struct pkt *p;
	size_t plen = 8 + 16 * NSEG + 8;

	inet_pton(AF_INET6, "fc00:1::1", &sid1);
	memset(buf, 0, sizeof(buf));
	buf[0] = 0x60;
	buf[4] = (uint8_t)(plen >> 8);
	buf[5] = (uint8_t)plen;
	buf[6] = 43;
	buf[7] = 64;
	memcpy(buf + 24, &sid1, 16);
	buf[40] = 17;			/* UDP after the SRH */
	buf[41] = 2 * NSEG;
	buf[42] = 4;
	buf[43] = NSEG - 1;		/* Segments Left */
	buf[44] = NSEG - 1;		/* Last Entry */
	for (unsigned i = 0; i < NSEG; i++)
		memcpy(buf + 48 + 16 * i, &sid1, 16);
	p = test_pkt(&slot, buf, sizeof(buf), ETH_P_IPV6);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.drops[DROP_SID_CHAIN], 1);
	ck_assert_uint_eq(sst[0].drops[DROP_SID_CHAIN], 1);
	ck_assert_uint_eq(sst[0].packets, PROC_SID_CHAIN_MAX + 1);
}
END_TEST

/* One SRH parse per packet (ctx.h): proc_srh_find() parses once and keeps
 * the parse while the headers stay where they are; pkt_trim(), pkt_push()
 * and pkt_pull() move them, and the next call parses the new bytes. */
START_TEST(test_srh_parse_once)
{
	uint8_t buf[256];
	size_t n = hex2bin(PSP_IN, buf, sizeof(buf));
	struct pkt *p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	struct srh_error err;
	struct srh_info si;

	ck_assert(!p->srh_parsed);
	ck_assert_int_eq(proc_srh_find(&ctx, p, &si, &err), 0);
	ck_assert(p->srh_parsed);
	ck_assert_ptr_eq(si.srh, p->data + 40);
	ck_assert_uint_eq(si.end_off, 80);
	ck_assert_uint_eq(si.nexthdr, IPPROTO_UDP);
	/* Not parsed again: a Next Header changed in place is not seen. */
	p->data[6] = IPPROTO_UDP;
	ck_assert_int_eq(proc_srh_find(&ctx, p, &si, &err), 0);
	ck_assert_ptr_eq(si.srh, p->data + 40);
	/* A cut: parsed again, no SRH now. */
	pkt_trim(p, p->len - 1);
	ck_assert(!p->srh_parsed);
	ck_assert_int_eq(proc_srh_find(&ctx, p, &si, &err), 0);
	ck_assert_ptr_null(si.srh);
	ck_assert_uint_eq(si.end_off, 40);
	ck_assert_uint_eq(si.nexthdr, IPPROTO_UDP);
	ck_assert_ptr_nonnull(pkt_push(p, 8));
	ck_assert(!p->srh_parsed);
	(void)proc_srh_find(&ctx, p, &si, &err);
	ck_assert(p->srh_parsed);
	pkt_pull(p, 8);
	ck_assert(!p->srh_parsed);
	pkt_trim(p, p->len);	/* nothing cut: the parse stands */
	ck_assert_int_eq(proc_srh_find(&ctx, p, &si, &err), 0);
	pkt_trim(p, p->len);
	ck_assert(p->srh_parsed);
}
END_TEST

/* Every behavior of the table has its function (dispatch.c), and the ones
 * that share one share it; nothing out of range. */
START_TEST(dispatch_every_behavior)
{
	for (unsigned b = 0; b < BHV__COUNT; b++) {
		const struct behavior_desc *d = behavior_desc((enum behavior)b);
		behavior_fn *fn = dispatch_fn((enum behavior)b);

		ck_assert_ptr_nonnull(fn);
		if (d->proxy != BHV_PROXY_NONE)
			ck_assert(fn == behavior_proxy);
		else if (d->decap != BHV_DECAP_NONE)
			ck_assert(fn == behavior_decap);
		else if (d->oam_punt)
			ck_assert(fn == behavior_end_op);
		else if (!d->binding && b <= BHV_END_B6_ENCAPS_RED)
			ck_assert(fn == behavior_end);	/* RFC 8986's */
	}
	ck_assert(dispatch_fn(BHV_END_B6_ENCAPS_RED) ==
		  behavior_end_b6_encaps_red);
	ck_assert(dispatch_fn(BHV__COUNT) == NULL);
}
END_TEST

static Suite *end_suite(void)
{
	Suite *s = suite_create("end");
	TCase *tc = tcase_create("end");
	TCase *tu = tcase_create("upper-layer");
	TCase *tf = tcase_create("flavors");
	TCase *tn = tcase_create("next-c-sid");
	TCase *tp = tcase_create("process");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, end_sl2_to_1);
	tcase_add_test(tc, end_map_srh_untouched);
	tcase_add_test(tc, end_map_without_srh);
	tcase_add_test(tc, end_map_hop_limit);
	tcase_add_test(tc, end_x_sets_mark);
	tcase_add_test(tc, end_t_sets_mark);
	tcase_add_test(tc, end_hop_limit_time_exceeded);
	tcase_add_test(tc, end_x_error_has_no_mark);
	tcase_add_test(tc, end_bad_srh_param_problem);
	tcase_add_test(tc, end_other_routing_type);
	tcase_add_test(tc, icmp6_error_cut_to_1280);
	tcase_add_test(tc, icmp_rate_limit);
	tcase_add_test(tc, icmp_rate_zero_sends_none);
	tcase_add_test(tc, no_error_about_error);
	tcase_add_test(tc, no_error_to_multicast_source);
	tcase_add_test(tc, icmp4_frag_needed);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(tu, setup, NULL);
	tcase_add_test(tu, sl0_echo_reply);
	tcase_add_test(tu, sl0_echo_bad_checksum_dropped);
	tcase_add_test(tu, sl0_udp_param_problem_code4);
	suite_add_tcase(s, tu);

	tcase_add_checked_fixture(tf, setup, NULL);
	tcase_add_test(tf, psp_sl1_to_0_pops_srh);
	tcase_add_test(tf, psp_keeps_hop_by_hop);
	tcase_add_test(tf, psp_sl2_is_plain_end);
	tcase_add_test(tf, psp_end_x);
	tcase_add_test(tf, usp_echo_reply);
	tcase_add_test(tf, usp_udp_param_problem);
	tcase_add_test(tf, usp_sl2_is_plain_end);
	tcase_add_test(tf, usd_inner_ipv6);
	tcase_add_test(tf, usd_inner_ipv4);
	tcase_add_test(tf, usd_without_srh);
	tcase_add_test(tf, usd_truncated_inner);
	tcase_add_test(tf, usd_without_flavor_is_upper_layer_error);
	suite_add_tcase(s, tf);

	tcase_add_checked_fixture(tn, setup, NULL);
	tcase_add_test(tn, csid_shift);
	tcase_add_test(tn, csid_default_lengths);
	tcase_add_test(tn, csid_fallback_to_srh);
	tcase_add_test(tn, csid_hop_limit);
	tcase_add_test(tn, rcsid_within_container);
	tcase_add_test(tn, rcsid_field_ops);
	tcase_add_test(tn, rcsid_default_lengths);
	tcase_add_test(tn, rcsid_next_container);
	tcase_add_test(tn, rcsid_end_t);
	tcase_add_test(tn, rcsid_zero_csid_full_sid);
	tcase_add_test(tn, rcsid_last_container);
	tcase_add_test(tn, rcsid_last_container_psp);
	tcase_add_test(tn, rcsid_end_of_list);
	tcase_add_test(tn, rcsid_bad_segments_left);
	tcase_add_test(tn, rcsid_hop_limit);
	tcase_add_test(tn, rcsid_16bit);
	suite_add_tcase(s, tn);

	tcase_add_checked_fixture(tp, setup_tables, teardown_tables);
	tcase_add_test(tp, dispatch_every_behavior);
	tcase_add_test(tp, process_dispatch_end);
	tcase_add_test(tp, process_dispatch_csid_prefix);
	tcase_add_test(tp, process_trims_trailer);
	tcase_add_test(tp, process_truncated);
	tcase_add_test(tp, process_bad_version);
	tcase_add_test(tp, process_unmatched);
	tcase_add_test(tp, process_local_sid_chain);
	tcase_add_test(tp, process_local_sid_chain_bounded);
	tcase_add_test(tp, process_icmp_error_not_chained);
	tcase_add_test(tp, test_srh_parse_once);
	suite_add_tcase(s, tp);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(end_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
