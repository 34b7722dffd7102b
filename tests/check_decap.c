/* check_decap.c - the decapsulating behaviors End.DX6, End.DX4, End.DT6,
 * End.DT4, End.DT46 and End.DX2 (RFC 8986 4.4-4.9) byte for byte, through
 * the dispatcher (srv6_process) with a parsed config, and the reinjection
 * decision for their results.
 *
 * The packets were generated once with scapy (tests' generator:
 * IPv6()/IPv6ExtHdrSegmentRouting()/inner, ICMPv6ParamProblem for the
 * errors), independently of srv6d, and pasted here as hex.  A decapsulated
 * result is the inner packet exactly as it was inside: the kernel
 * decrements its hop limit / TTL once when it forwards it, as after its own
 * seg6local End.DX6/End.DT6 (tests/ns/diff-decap.sh compares the bytes that
 * leave the gateway with the kernel's).  Set SRV6D_TEST_PCAP to a file name
 * to get every input and output as a pcap.
 */
#include <check.h>
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "behavior.h"
#include "config.h"
#include "runstate.h"
#include "kencap_routes.h"
#include "kend.h"
#include "lpm.h"
#include "process.h"
#include "pktsock.h"
#include "reinject.h"
#include "rtrules.h"
#include "testutil.h"

static const char DX6_SRH_IN[] =
	"60000000004d2b4020010db8000000000000000000000001fc00010000000000"
	"00000000000000052902040000000000fc000100000000000000000000000005"
	"62812345000d110520010db8000a0000000000000000000120010db8000b0000"
	"000000000000000104d2162e000d457968656c6c6f";

static const char DX6_NOSRH_IN[] =
	"600000000035294020010db8000000000000000000000001fc00010000000000"
	"000000000000000562812345000d110520010db8000a00000000000000000001"
	"20010db8000b0000000000000000000104d2162e000d457968656c6c6f";

static const char INNER6[] =
	"62812345000d110520010db8000a0000000000000000000120010db8000b0000"
	"000000000000000104d2162e000d457968656c6c6f";

static const char DX4_SRH_IN[] =
	"6000000000392b4020010db8000000000000000000000001fc00010000000000"
	"00000000000000050402040000000000fc000100000000000000000000000005"
	"450000214242400005111f860a0100010a02000104d2162e000d8cfd68656c6c"
	"6f";

static const char DX4_NOSRH_IN[] =
	"600000000021044020010db8000000000000000000000001fc00010000000000"
	"0000000000000005450000214242400005111f860a0100010a02000104d2162e"
	"000d8cfd68656c6c6f";

static const char INNER4[] =
	"450000214242400005111f860a0100010a02000104d2162e000d8cfd68656c6c"
	"6f";

static const char DX2_SRH_IN[] =
	"6000000000472b4020010db8000000000000000000000001fc00010000000000"
	"00000000000000058f02040000000000fc000100000000000000000000000005"
	"0200000000020200000000010800450000214242400005111f860a0100010a02"
	"000104d2162e000d8cfd68656c6c6f";

static const char DX2_NOSRH_IN[] =
	"60000000002f8f4020010db8000000000000000000000001fc00010000000000"
	"0000000000000005020000000002020000000001080045000021424240000511"
	"1f860a0100010a02000104d2162e000d8cfd68656c6c6f";

static const char FRAME[] =
	"0200000000020200000000010800450000214242400005111f860a0100010a02"
	"000104d2162e000d8cfd68656c6c6f";

static const char DSTOPT_IN[] =
	"6000000000552b4020010db8000000000000000000000001fc00010000000000"
	"00000000000000053c02040000000000fc000100000000000000000000000005"
	"290001040000000062812345000d110520010db8000a00000000000000000001"
	"20010db8000b0000000000000000000104d2162e000d457968656c6c6f";

static const char SL1_IN[] =
	"60000000005d2b4020010db8000000000000000000000001fc00010000000000"
	"00000000000000052904040101000000fc000009000000000000000000000001"
	"fc00010000000000000000000000000562812345000d110520010db8000a0000"
	"000000000000000120010db8000b0000000000000000000104d2162e000d4579"
	"68656c6c6f";

static const char SL1_OUT[] =
	"60000000008d3a40fc00010000000000000000000000000520010db800000000"
	"000000000000000104005c1f0000002b60000000005d2b4020010db800000000"
	"0000000000000001fc0001000000000000000000000000052904040101000000"
	"fc000009000000000000000000000001fc000100000000000000000000000005"
	"62812345000d110520010db8000a0000000000000000000120010db8000b0000"
	"000000000000000104d2162e000d457968656c6c6f";

static const char WRONG_OUT[] =
	"60000000007d3a40fc00010000000000000000000000000520010db800000000"
	"0000000000000001040459340000004060000000004d2b4020010db800000000"
	"0000000000000001fc0001000000000000000000000000052902040000000000"
	"fc00010000000000000000000000000562812345000d110520010db8000a0000"
	"000000000000000120010db8000b0000000000000000000104d2162e000d4579"
	"68656c6c6f";

static const char WRONG_NOSRH_OUT[] =
	"6000000000513a40fc00010000000000000000000000000520010db800000000"
	"00000000000000010404558a00000028600000000021044020010db800000000"
	"0000000000000001fc0001000000000000000000000000054500002142424000"
	"05111f860a0100010a02000104d2162e000d8cfd68656c6c6f";

static const char UDP_IN[] =
	"6000000000212b4020010db8000000000000000000000001fc00010000000000"
	"00000000000000051102040000000000fc000100000000000000000000000005"
	"0001000200095d1978";

static const char UDP_OUT[] =
	"6000000000513a40fc00010000000000000000000000000520010db800000000"
	"000000000000000104043321000000406000000000212b4020010db800000000"
	"0000000000000001fc0001000000000000000000000000051102040000000000"
	"fc0001000000000000000000000000050001000200095d1978";

static const char PING_IN[] =
	"6000000000242b4020010db8000000000000000000000001fc00010000000000"
	"00000000000000053a02040000000000fc000100000000000000000000000005"
	"800033df4242000770696e67";

static const char PING_OUT[] =
	"60000000000c3a40fc00010000000000000000000000000520010db800000000"
	"0000000000000001810032df4242000770696e67";

/* One SID of each behavior at fc00:100::5, mark-base 0x1000: the SID is
 * sids[0], mark 0x1001. */
static const char *const sid_lines[] = {
	[BHV_END_DX6] = "sid fc00:100::5 action End.DX6 nh6 fc00:3::2\n",
	[BHV_END_DX4] = "sid fc00:100::5 action End.DX4 nh4 10.3.0.2\n",
	[BHV_END_DT6] = "sid fc00:100::5 action End.DT6 table 100\n",
	[BHV_END_DT4] = "sid fc00:100::5 action End.DT4 table 100\n",
	[BHV_END_DT46] = "sid fc00:100::5 action End.DT46 table 100\n",
	[BHV_END_DX2] = "sid fc00:100::5 action End.DX2 oif veth9\n",
};

static struct config *cfg;
static struct runstate *rs;	/* cfg's (rs_reset()) */
static struct worker_stats ws;
static struct sid_stats sst[4];
static struct sid_runtime srt[4];	/* the daemon's rtrules_install() */
static struct proc_ctx ctx;
static struct test_slot slot;
static uint8_t want[2048];

/* rs anew for cfg, as runstate_new() gives it, in ctx. */
static void rs_reset(void)
{
	runstate_free(rs);
	rs = runstate_new(cfg);
	ck_assert_ptr_nonnull(rs);
	ctx.rs = rs;
}

static void use_behavior(enum behavior b)
{
	char text[256];

	snprintf(text, sizeof(text), "queue 0\nmark-base 0x1000\n%s",
		 sid_lines[b]);
	config_free(cfg);
	cfg = config_parse_buffer("t.conf", text, strlen(text), NULL, NULL);
	ck_assert_ptr_nonnull(cfg);
	rs_reset();
	ck_assert_int_eq(cfg->sids[0].behavior, b);
	ck_assert_uint_eq(rs->sids[0].mark, 0x1001);
	ctx.cfg = cfg;
	memset(srt, 0, sizeof(srt));	/* a new config: no device yet */
	ctx.sid_rt = srt;
}

static void setup(void)
{
	cfg = NULL;
	rs = NULL;
	memset(&ws, 0, sizeof(ws));
	memset(sst, 0, sizeof(sst));
	memset(&ctx, 0, sizeof(ctx));
	ctx.stats = &ws;
	ctx.sid_stats = sst;
	ctx.policy_stats = NULL;
	ctx.now_ns = 5000000000ull;
	ctx.icmp_rl.last_ns = ctx.now_ns;
	ctx.icmp_rl.tokens_milli = 50 * 1000;
}

static void teardown(void)
{
	runstate_free(rs);
	rs = NULL;
	config_free(cfg);
	cfg = NULL;
}

/* Run the packet in hex `in` through srv6_process() with behavior b. */
static struct pkt *run(enum behavior b, const char *in)
{
	uint8_t buf[2048];
	size_t n = hex2bin(in, buf, sizeof(buf));
	struct pkt *p;

	use_behavior(b);
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	test_pcap_write(p->data, p->len);
	srv6_process(&ctx, p);
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

/* A successful decapsulation: the inner bytes, the SID's mark, counted. */
static void expect_decap(enum behavior b, const char *in, const char *inner)
{
	struct pkt *p = run(b, in);

	expect_bytes(p, inner);
	ck_assert(p->set_mark);
	ck_assert_uint_eq(p->out_mark, 0x1001);
	ck_assert_uint_eq(sst[0].packets, 1);
	ck_assert_uint_eq(sst[0].bytes, p->orig_len);
	ck_assert_uint_eq(sst[0].errors, 0);
	ck_assert_uint_eq(ws.icmp_sent, 0);
	memset(sst, 0, sizeof(sst));
}

/* An ICMPv6 error `out` instead, counted as a drop for reason. */
static void expect_error(enum behavior b, const char *in, const char *out,
			 enum drop_reason reason)
{
	struct pkt *p = run(b, in);

	expect_bytes(p, out);
	ck_assert(!p->set_mark);
	ck_assert_uint_eq(sst[0].packets, 0);
	ck_assert_uint_eq(sst[0].errors, 1);
	ck_assert_uint_eq(sst[0].drops[reason], 1);
	ck_assert_uint_eq(ws.drops[reason], 1);
	ck_assert_uint_eq(ws.icmp_sent, 1);
	memset(sst, 0, sizeof(sst));
	memset(&ws, 0, sizeof(ws));
}

/* ---- RFC 8986 4.4-4.9: with and without an SRH ---------------------- */

START_TEST(dx6)
{
	expect_decap(BHV_END_DX6, DX6_SRH_IN, INNER6);
	expect_decap(BHV_END_DX6, DX6_NOSRH_IN, INNER6);
}
END_TEST

START_TEST(dt6)
{
	expect_decap(BHV_END_DT6, DX6_SRH_IN, INNER6);
	expect_decap(BHV_END_DT6, DX6_NOSRH_IN, INNER6);
}
END_TEST

START_TEST(dx4)
{
	expect_decap(BHV_END_DX4, DX4_SRH_IN, INNER4);
	expect_decap(BHV_END_DX4, DX4_NOSRH_IN, INNER4);
}
END_TEST

START_TEST(dt4)
{
	expect_decap(BHV_END_DT4, DX4_SRH_IN, INNER4);
	expect_decap(BHV_END_DT4, DX4_NOSRH_IN, INNER4);
}
END_TEST

START_TEST(dt46_both_families)
{
	expect_decap(BHV_END_DT46, DX4_SRH_IN, INNER4);
	expect_decap(BHV_END_DT46, DX4_NOSRH_IN, INNER4);
	expect_decap(BHV_END_DT46, DX6_SRH_IN, INNER6);
	expect_decap(BHV_END_DT46, DX6_NOSRH_IN, INNER6);
}
END_TEST

START_TEST(dx2_frame)
{
	expect_decap(BHV_END_DX2, DX2_SRH_IN, FRAME);
	expect_decap(BHV_END_DX2, DX2_NOSRH_IN, FRAME);
}
END_TEST

/* The outer packet's Destination Options after the SRH go with it. */
START_TEST(dstopts_after_srh)
{
	expect_decap(BHV_END_DT6, DSTOPT_IN, INNER6);
}
END_TEST

/* Bytes after the outer packet (Ethernet padding) are not part of the
 * inner one. */
START_TEST(trailing_bytes_cut)
{
	char in[512];

	snprintf(in, sizeof(in), "%s%s", DX4_NOSRH_IN, "00000000");
	expect_decap(BHV_END_DX4, in, INNER4);
}
END_TEST

/* ---- the kernel's decapsulation (kernel-end, kend.h) ------------------ */

/* End fc00:100::1 (SL 1) then fc00:100::5: a chain srv6d runs. */
static const char CHAIN_IN[] =
	"60000000005d2b4020010db8000000000000000000000001fc00010000000000"
	"00000000000000012904040101000000fc000100000000000000000000000005"
	"fc00010000000000000000000000000162812345000d110520010db8000a0000"
	"000000000000000120010db8000b0000000000000000000104d2162e000d4579"
	"68656c6c6f";

/* DX6_SRH_IN with a PadN TLV after the list. */
static const char TLV_IN[] =
	"6000000000552b4020010db8000000000000000000000001fc00010000000000"
	"00000000000000052903040000000000fc000100000000000000000000000005"
	"040600000000000062812345000d110520010db8000a00000000000000000001"
	"20010db8000b0000000000000000000104d2162e000d457968656c6c6f";

/* A gso yes config of `lines` (mark-base 0x1000) whose kernel-end is on,
 * as kencap_routes_resolve() would leave it. */
static void use_kernel_end(const char *lines)
{
	char text[512];

	snprintf(text, sizeof(text), "queue 0\ngso yes\nmark-base 0x1000\n%s",
		 lines);
	config_free(cfg);
	cfg = config_parse_buffer("t.conf", text, strlen(text), NULL, NULL);
	ck_assert_ptr_nonnull(cfg);
	rs_reset();
	/* every oif names a link (resolve.c's resolve_links()) */
	for (unsigned i = 0; i < cfg->nsids; i++)
		rs->sids[i].oif_index = cfg->sids[i].oif[0] ? 9 : 0;
	ck_assert_int_eq(kencap_routes_assign(rs, cfg, NULL, NULL), 0);
	rs->kend_on = true;
	ctx.cfg = cfg;
	memset(srt, 0, sizeof(srt));
	ctx.sid_rt = srt;
}

/* The mark of the kernel route srv6_process() recorded in the facts of
 * the packet in hex (behavior_decap.c, behavior_end.c), 0 for none. */
static uint32_t kernel_mark_of(const struct pkt *p)
{
	if (p->facts.kernel != PKT_KERNEL_END)
		return 0;
	ck_assert(p->facts.kernel_from_original);
	return p->facts.kernel_mark;
}

/* kernel_mark_of() once srv6_process() has run on the packet in hex. */
static uint32_t kernel_mark_after(const char *in)
{
	uint8_t buf[2048];
	size_t n = hex2bin(in, buf, sizeof(buf));
	struct pkt *p = test_pkt(&slot, buf, n, ETH_P_IPV6);

	srv6_process(&ctx, p);
	return kernel_mark_of(p);
}

/* The decapsulation of the packet as queued by End.DT6 (table), End.DX6,
 * End.DX4, with an SRH at SL 0 or none: the SID's kernel mark. */
START_TEST(kernel_decap_marks)
{
	static const struct { const char *line, *in; } c[] = {
		{ "sid fc00:100::5 action End.DT6 table 100\n", DX6_SRH_IN },
		{ "sid fc00:100::5 action End.DT6 table 100\n", DX6_NOSRH_IN },
		{ "sid fc00:100::5 action End.DX6 nh6 fc00:3::2\n", DX6_SRH_IN },
		{ "sid fc00:100::5 action End.DX6 nh6 fc00:3::2 oif veth9\n",
		  DX6_NOSRH_IN },
		{ "sid fc00:100::5 action End.DX4 nh4 10.3.0.2\n", DX4_SRH_IN },
		{ "sid fc00:100::5 action End.DX4 nh4 10.3.0.2\n", DX4_NOSRH_IN },
	};

	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		use_kernel_end(c[i].line);
		ck_assert_uint_eq(rs->sids[0].kend_mark, 0x1000 + 0xffff);
		ck_assert_uint_eq(kernel_mark_after(c[i].in), 0x1000 + 0xffff);
	}
	/* kernel-end off (kencap_routes_resolve() said no) */
	rs->kend_on = false;
	ck_assert_uint_eq(kernel_mark_after(DX4_NOSRH_IN), 0);
	/* an oif that is no link yet: no kernel route to make, no mark */
	use_kernel_end("sid fc00:100::5 action End.DX6 nh6 fc00:3::2 oif veth9\n");
	rs->sids[0].oif_index = 0;
	ck_assert_int_eq(kencap_routes_assign(rs, cfg, NULL, NULL), 0);
	ck_assert_uint_eq(rs->sids[0].kend_mark, 0);
	ck_assert_uint_eq(kernel_mark_after(DX6_NOSRH_IN), 0);
}
END_TEST

/* What the kernel would not redo, or not the same: srv6d's own way. */
START_TEST(kernel_decap_refused)
{
	char in[512];

	use_kernel_end("sid fc00:100::5 action End.DX6 nh6 fc00:3::2\n");
	ck_assert_uint_ne(kernel_mark_after(DX6_SRH_IN), 0);
	/* SL 1: srv6d answers Parameter Problem (the kernel drops) */
	ck_assert_uint_eq(kernel_mark_after(SL1_IN), 0);
	/* a TLV: the kernel would check an HMAC it has no key for */
	ck_assert_uint_eq(kernel_mark_after(TLV_IN), 0);
	/* Destination Options after the SRH */
	ck_assert_uint_eq(kernel_mark_after(DSTOPT_IN), 0);
	/* bytes past the outer length (trimmed), or past the inner's */
	use_kernel_end("sid fc00:100::5 action End.DX4 nh4 10.3.0.2\n");
	snprintf(in, sizeof(in), "%s%s", DX4_NOSRH_IN, "00000000");
	ck_assert_uint_eq(kernel_mark_after(in), 0);
	in[11] = '5';	/* payload length 0x21 -> 0x25: the 4 bytes in it */
	ck_assert_uint_eq(kernel_mark_after(in), 0);
	/* an End ran first (a chain): the original's destination is not
	 * the decapsulating SID */
	use_kernel_end("sid fc00:100::1 action End\n"
		       "sid fc00:100::5 action End.DX6 nh6 fc00:3::2\n");
	ck_assert_uint_ne(rs->sids[1].kend_mark, 0);
	ck_assert_uint_eq(kernel_mark_after(CHAIN_IN), 0);
	ck_assert_uint_eq(kernel_mark_after(DX6_SRH_IN), rs->sids[1].kend_mark);
	/* no kernel mark: End.DT6 vrftable, End.DT4, End.DT46 */
	use_kernel_end("sid fc00:100::5 action End.DT6 vrftable 100\n");
	ck_assert_uint_eq(rs->sids[0].kend_mark, 0);
	ck_assert_uint_eq(kernel_mark_after(DX6_SRH_IN), 0);
	use_kernel_end("sid fc00:100::5 action End.DT4 table 100\n");
	ck_assert_uint_eq(rs->sids[0].kend_mark, 0);
	ck_assert_uint_eq(kernel_mark_after(DX4_SRH_IN), 0);
	use_kernel_end("sid fc00:100::5 action End.DT46 table 100\n");
	ck_assert_uint_eq(rs->sids[0].kend_mark, 0);
	ck_assert_uint_eq(kernel_mark_after(DX6_SRH_IN), 0);
}
END_TEST

/* A header queue's packet cut short (`header-queue`): processed only when
 * kend_from_headers() says the kernel redoes its decapsulation, and then
 * handed to it with the SID's mark; a SID without a kernel mark, or an
 * SRH with a TLV, stays whole (bounced). */
static struct pkt *cut_short(const char *in, unsigned more)
{
	uint8_t buf[2048];
	size_t n = hex2bin(in, buf, sizeof(buf));
	struct pkt *p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	unsigned inner = n - 40 - ((p->data[6] == 43) ? 8 + 8u * p->data[41] : 0);

	/* `more` bytes past the copy range: the outer and inner lengths */
	p->data[5] += more;
	p->data[n - inner + 5] += more;
	p->truncated = true;
	p->queued_len = (uint32_t)n;
	p->orig_len = (uint32_t)n + more;
	return p;
}

START_TEST(kernel_decap_from_headers)
{
	struct pkt *p;

	use_kernel_end("sid fc00:100::5 action End.DT6 table 100\n");
	p = cut_short(DX6_SRH_IN, 100);
	ck_assert(kend_from_headers(cfg, rs, p));
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(kernel_mark_of(p), rs->sids[0].kend_mark);
	ck_assert(kend_from_headers(cfg, rs, cut_short(DX6_NOSRH_IN, 100)));
	ck_assert(!kend_from_headers(cfg, rs, cut_short(TLV_IN, 100)));
	rs->kend_on = false;
	ck_assert(!kend_from_headers(cfg, rs, cut_short(DX6_SRH_IN, 100)));
	use_kernel_end("sid fc00:100::5 action End.DT46 table 100\n");
	ck_assert(!kend_from_headers(cfg, rs, cut_short(DX6_SRH_IN, 100)));
}
END_TEST

/* ---- errors ---------------------------------------------------------- */

/* S02-S04: Segments Left > 0 gets Parameter Problem code 0 pointing at
 * Segments Left (Linux drops it silently; srv6d follows RFC 8986). */
START_TEST(sl_nonzero_param_problem)
{
	for (unsigned b = BHV_END_DX6; b <= BHV_END_DX2; b++)
		expect_error((enum behavior)b, SL1_IN, SL1_OUT, DROP_BAD_SRH);
}
END_TEST

/* 4.1.1: an upper layer that is not the behavior's, code 4 at it. */
START_TEST(wrong_inner_param_problem)
{
	expect_error(BHV_END_DX4, DX6_SRH_IN, WRONG_OUT, DROP_UPPER_LAYER);
	expect_error(BHV_END_DT4, DX6_SRH_IN, WRONG_OUT, DROP_UPPER_LAYER);
	expect_error(BHV_END_DX2, DX6_SRH_IN, WRONG_OUT, DROP_UPPER_LAYER);
	expect_error(BHV_END_DX6, DX4_NOSRH_IN, WRONG_NOSRH_OUT,
		     DROP_UPPER_LAYER);
	expect_error(BHV_END_DT6, DX4_NOSRH_IN, WRONG_NOSRH_OUT,
		     DROP_UPPER_LAYER);
	expect_error(BHV_END_DT46, UDP_IN, UDP_OUT, DROP_UPPER_LAYER);
}
END_TEST

/* 4.1.1 S01-S02: a ping to the SID is an allowed upper layer. */
START_TEST(ping_answered)
{
	struct pkt *p = run(BHV_END_DT46, PING_IN);

	expect_bytes(p, PING_OUT);
	ck_assert(!p->set_mark);
	ck_assert_uint_eq(sst[0].packets, 1);
}
END_TEST

static void expect_drop(enum behavior b, const char *in, enum drop_reason r)
{
	struct pkt *p = run(b, in);

	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(sst[0].drops[r], 1);
	ck_assert_uint_eq(ws.drops[r], 1);
	ck_assert_uint_eq(ws.icmp_sent, 0);
	memset(sst, 0, sizeof(sst));
	memset(&ws, 0, sizeof(ws));
}

/* The outer packet is whole but the inner one claims more bytes. */
START_TEST(inner_truncated)
{
	char in[512];
	size_t n;

	/* INNER6 without its last byte, outer Payload Length one less */
	snprintf(in, sizeof(in), "%s", DX6_NOSRH_IN);
	n = strlen(in);
	in[n - 2] = '\0';
	memcpy(in + 8, "0034", 4);
	expect_drop(BHV_END_DX6, in, DROP_TRUNCATED);
	/* a frame shorter than an Ethernet header */
	expect_drop(BHV_END_DX2,
		    "600000000004" "8f40" "20010db8000000000000000000000001"
		    "fc000100000000000000000000000005" "02000000", DROP_TRUNCATED);
}
END_TEST

START_TEST(inner_bad_version)
{
	char in[512];

	/* next header 41 but an IPv4 header inside */
	snprintf(in, sizeof(in), "%s", DX4_NOSRH_IN);
	memcpy(in + 12, "29", 2);
	expect_drop(BHV_END_DT6, in, DROP_BAD_IP);
}
END_TEST

START_TEST(srh_truncated)
{
	/* next header 43 with 4 bytes of SRH */
	expect_drop(BHV_END_DT6,
		    "600000000004" "2b40" "20010db8000000000000000000000001"
		    "fc000100000000000000000000000005" "29020400",
		    DROP_TRUNCATED);
}
END_TEST

/* ---- reinjection of the results -------------------------------------- */

START_TEST(reinject_ipv6_by_verdict_with_mark)
{
	enum drop_reason r = DROP__COUNT;
	struct pkt *p = run(BHV_END_DX6, DX6_SRH_IN);

	ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_PAYLOAD);
	p = run(BHV_END_DT46, DX6_SRH_IN);
	ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_PAYLOAD);
	ck_assert_int_eq(r, DROP__COUNT);
}
END_TEST

/* `reinject tun`: a marked IPv6 result (End.DX6 to nh6, End.DT6/DT46 in
 * their table) enters the kernel by the SID's veth pair, whose iif rules
 * do what the mark does: never a verdict payload, never the TUN device
 * (which would lose the mark).  No device yet: DROP_REINJECT. */
/* Which SIDs have a device (rtrules.c sid_has_dev6(), the daemon's
 * by_mark): with `offload no` (verdict payloads, no gso) End.DX6's,
 * End.DT6's and End.DT46's IPv6 results go by the mark, but under
 * `steering auto` the mark probe's fallback (or a priority of the
 * packet's own) sends them by the device: without one they would be
 * dropped (DROP_REINJECT) from the start to the probe's first answer. */
START_TEST(sid_device_under_steering)
{
	static const enum behavior bs[] = { BHV_END_DX6, BHV_END_DT6,
					    BHV_END_DT46 };

	for (unsigned i = 0; i < 3; i++) {
		use_behavior(bs[i]);
		rs->payload = PAYLOAD_ANY;
		cfg->gso = false;
		cfg->steering = true;
		ck_assert_ptr_eq(rtrules_sid_by_device(cfg, rs), &cfg->sids[0]);
		cfg->steering = false;	/* no fallback: the verdict's mark */
		ck_assert_ptr_eq(rtrules_sid_by_device(cfg, rs),
				 bs[i] == BHV_END_DT46 ? &cfg->sids[0] : NULL);
		cfg->gso = true;	/* a super-packet result needs one */
		ck_assert_ptr_eq(rtrules_sid_by_device(cfg, rs), &cfg->sids[0]);
	}
}
END_TEST

START_TEST(reinject_tun_ipv6_by_sid_device)
{
	static const enum behavior bs[] = { BHV_END_DX6, BHV_END_DT6,
					    BHV_END_DT46 };

	for (unsigned i = 0; i < 3; i++) {
		enum drop_reason r = DROP__COUNT;
		struct pkt *p = run(bs[i], DX6_SRH_IN);

		rs->payload = PAYLOAD_NONE;
		ck_assert(p->set_mark);
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r),
				 REINJECT_DROP_REASON);
		ck_assert_int_eq(r, DROP_REINJECT);
		srt[0].ifindex = 50 + i;
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_DEV);
		ck_assert_uint_eq(reinject_ifindex(cfg, rs, srt, p), 50 + i);
		rs->payload = PAYLOAD_ANY;	/* the verdict again */
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_PAYLOAD);
		/* queued with a priority of its own: no second carrier for
		 * the verdict's mark, the device's (G0) instead */
		p->priority = 7;
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_DEV);
		cfg->steering = false;	/* no guard: the verdict as before */
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_PAYLOAD);
		cfg->steering = true;
		p->priority = 0;
		/* the mark probe found both carriers lost (markprobe.h):
		 * the device's too, but under `steering no` (no probe) */
		p->carrier_lost = true;
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_DEV);
		cfg->steering = false;
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_PAYLOAD);
		cfg->steering = true;
		p->carrier_lost = false;
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_PAYLOAD);
		/* an unmarked IPv6 result under `reinject tun`: TUN */
		rs->payload = PAYLOAD_NONE;
		p->set_mark = false;
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_OWN_DEV);
	}
}
END_TEST

/* IPv4 results go into the SID's own device, once the daemon has set it
 * up (its sid_runtime's ifindex), never into the TUN device. */
START_TEST(reinject_ipv4_by_sid_device)
{
	static const enum behavior bs[] = { BHV_END_DX4, BHV_END_DT4,
					    BHV_END_DT46 };

	for (unsigned i = 0; i < 3; i++) {
		enum drop_reason r = DROP__COUNT;
		struct pkt *p = run(bs[i], DX4_SRH_IN);

		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r),
				 REINJECT_DROP_REASON);
		ck_assert_int_eq(r, DROP_REINJECT);	/* no device yet */
		ck_assert_uint_eq(reinject_ifindex(cfg, rs, srt, p), 0);
		srt[0].ifindex = 42 + i;
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_DEV);
		ck_assert_uint_eq(reinject_ifindex(cfg, rs, srt, p), 42 + i);
		rs->payload = PAYLOAD_NONE;
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_DEV);
	}
}
END_TEST

START_TEST(reinject_dx2_by_oif)
{
	enum drop_reason r = DROP__COUNT;
	struct pkt *p = run(BHV_END_DX2, DX2_SRH_IN);

	/* no ifindex: its oif is no link (yet) */
	ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_DROP_REASON);
	ck_assert_int_eq(r, DROP_NEXTHOP_UNREACHABLE);
	srt[0].ifindex = 7;
	ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_L2);
	ck_assert_uint_eq(reinject_ifindex(cfg, rs, srt, p), 7);
}
END_TEST

/* A mark that is not a decapsulating SID's keeps the old rules: an IPv4
 * result with an End.X/End.T mark cannot be routed (DROP_FAMILY), one
 * without a mark goes to the TUN device. */
START_TEST(reinject_other_marks)
{
	enum drop_reason r = DROP__COUNT;
	struct pkt *p = run(BHV_END_DT4, DX4_SRH_IN);

	srt[0].ifindex = 9;
	p->out_mark = 0x1002;	/* no such SID */
	ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_DROP_REASON);
	ck_assert_int_eq(r, DROP_FAMILY);
	ck_assert_uint_eq(reinject_ifindex(cfg, rs, srt, p), 0);
	p->set_mark = false;
	ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_OWN_DEV);
}
END_TEST

/* End.X and End.T with USD decapsulate an inner IPv4 packet (RFC 8986
 * 4.16.3): it goes into the SID's own device (rtrules.c gives those SIDs
 * a veth pair), as End.DX4's; without usd an IPv4 result with their mark
 * stays a DROP_FAMILY. */
START_TEST(reinject_usd_ipv4_by_sid_device)
{
	static const char text[] =
		"queue 0\nmark-base 0x1000\n"
		"sid fc00:100::1 action End.X nh6 fc00:3::2 flavors usd\n"
		"sid fc00:100::2 action End.T table 100 flavors psp,usd\n"
		"sid fc00:100::3 action End.X nh6 fc00:3::2 flavors psp\n";
	uint8_t buf[128];
	size_t n = hex2bin(INNER4, buf, sizeof(buf));

	config_free(cfg);
	cfg = config_parse_buffer("t.conf", text, strlen(text), NULL, NULL);
	ck_assert_ptr_nonnull(cfg);
	rs_reset();
	for (unsigned i = 0; i < 3; i++) {
		enum drop_reason r = DROP__COUNT;
		struct pkt *p = test_pkt(&slot, buf, n, ETH_P_IPV6);

		p->verdict = PKT_NEW_BYTES;
		p->set_mark = true;
		p->out_mark = rs->sids[i].mark;
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r),
				 REINJECT_DROP_REASON);
		ck_assert_int_eq(r, i < 2 ? DROP_REINJECT : DROP_FAMILY);
		srt[i].ifindex = 50 + i;
		r = DROP__COUNT;
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r),
				 i < 2 ? REINJECT_DEV : REINJECT_DROP_REASON);
		ck_assert_uint_eq(reinject_ifindex(cfg, rs, srt, p), 50 + i);
		ck_assert_int_eq(r, i < 2 ? DROP__COUNT : DROP_FAMILY);
	}
}
END_TEST

/* ---- a drop at reinjection is the SID's error, not its success -------- */

/* The SID's counters after a success: one packet of p's length. */
static void expect_counted_ok(const struct pkt *p)
{
	ck_assert_ptr_eq(p->st, &sst[0]);
	ck_assert_uint_eq(sst[0].packets, 1);
	ck_assert_uint_eq(sst[0].bytes, p->orig_len);
	ck_assert_uint_eq(sst[0].errors, 0);
}

/* ... and after its reinjection failed for reason. */
static void expect_charged(struct pkt *p, enum drop_reason reason)
{
	ck_assert_ptr_null(p->st);
	ck_assert_uint_eq(sst[0].packets, 0);
	ck_assert_uint_eq(sst[0].bytes, 0);
	ck_assert_uint_eq(sst[0].errors, 1);
	ck_assert_uint_eq(sst[0].drops[reason], 1);
	reinject_charge(p, reason);	/* once only */
	ck_assert_uint_eq(sst[0].errors, 1);
	memset(sst, 0, sizeof(sst));
}

START_TEST(reinject_drop_charged_to_sid)
{
	enum drop_reason r = DROP__COUNT;
	struct pkt *p = run(BHV_END_DX2, DX2_SRH_IN);

	expect_counted_ok(p);
	ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &r), REINJECT_DROP_REASON);
	/* oif not resolved: no such link (yet) */
	ck_assert_int_eq(r, DROP_NEXTHOP_UNREACHABLE);
	reinject_charge(p, r);
	expect_charged(p, DROP_NEXTHOP_UNREACHABLE);
	/* A packet no SID or policy counted as a success: nothing moves. */
	p = run(BHV_END_DX6, SL1_IN);
	ck_assert_int_eq(p->outcome, PKT_OUT_ICMP);
	reinject_charge(p, DROP_REINJECT);
	ck_assert_uint_eq(sst[0].errors, 1);
	ck_assert_uint_eq(sst[0].drops[DROP_REINJECT], 0);
}
END_TEST

static int tx_failures, tx_failed_tags;

/* pkt_tx_failed_fn of pkt_tx_flush_skips_refused: cookie is a tag. */
static void tx_failed(void *cookie, int err, void *arg)
{
	(void)arg;
	ck_assert_int_ne(err, 0);
	tx_failures++;
	tx_failed_tags |= 1 << *(int *)cookie;
}

/* reinject_packet() itself, on every way a result can fail to re-enter
 * the kernel: its verdicts need a queue socket (root: CAP_NET_ADMIN). */
START_TEST(reinject_packet_drops_charged)
{
	static const char usd_text[] =
		"queue 0\nmark-base 0x1000\n"
		"sid fc00:100::5 action End flavors usd\n";
	char err[256];
	struct nfq *q = nfq_socket_open(65000 + (unsigned)getpid() % 500,
					NFQ_DEFAULT_MAXLEN, err, sizeof(err));
	struct reinject_io io = { .dev_ifindex = 0x7ffffff1,
				  .pkt_fd = pkt_sock_open(), .raw_fd = -1,
				  .tx = pkt_tx_new() };
	struct pkt *p;

	ck_assert_ptr_nonnull(io.tx);
	if (!q) {
		fprintf(stderr, "reinject_packet_drops_charged: skipped (%s)\n",
			err);
		pkt_tx_free(io.tx);
		return;
	}
	/* End.DX2 whose oif is not resolved (no such link yet):
	 * DROP_NEXTHOP_UNREACHABLE (decided). */
	p = run(BHV_END_DX2, DX2_SRH_IN);
	expect_counted_ok(p);
	reinject_packet(cfg, rs, srt, p, q, &io, &ws);
	reinject_flush(&io, &ws);
	ck_assert_uint_eq(ws.dropped, 1);
	ck_assert_uint_eq(ws.drops[DROP_NEXTHOP_UNREACHABLE], 1);
	expect_charged(p, DROP_NEXTHOP_UNREACHABLE);
	/* End.DT4 into a device that does not exist (gone in a reload):
	 * the batch's send fails for it at the flush (or the socket cannot
	 * be opened: at once); it moves from injected to dropped. */
	p = run(BHV_END_DT4, DX4_SRH_IN);
	srt[0].ifindex = 0x7ffffff0;
	expect_counted_ok(p);
	reinject_packet(cfg, rs, srt, p, q, &io, &ws);
	reinject_flush(&io, &ws);
	ck_assert_uint_eq(ws.injected, 0);
	ck_assert_uint_eq(ws.dropped, 2);
	ck_assert_uint_eq(ws.drops[DROP_REINJECT], 1);
	expect_charged(p, DROP_REINJECT);
	/* End with USD, IPv4 inner: into the reinjection device, which
	 * does not exist here: the send fails at the flush. */
	config_free(cfg);
	cfg = config_parse_buffer("t.conf", usd_text, strlen(usd_text), NULL,
				  NULL);
	ck_assert_ptr_nonnull(cfg);
	rs_reset();
	ctx.cfg = cfg;
	{
		uint8_t buf[256];
		size_t n = hex2bin(DX4_SRH_IN, buf, sizeof(buf));

		p = test_pkt(&slot, buf, n, ETH_P_IPV6);
		srv6_process(&ctx, p);
	}
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	expect_counted_ok(p);
	reinject_packet(cfg, rs, srt, p, q, &io, &ws);
	reinject_flush(&io, &ws);
	ck_assert_uint_eq(ws.dropped, 3);
	ck_assert_uint_eq(ws.drops[DROP_REINJECT], 2);
	ck_assert_uint_eq(ws.injected, 0);
	expect_charged(p, DROP_REINJECT);
	/* A verdict too large to carry: DROP_TOO_BIG. */
	p = run(BHV_END_DX6, DX6_SRH_IN);
	expect_counted_ok(p);
	p->len = NFQ_MAX_PAYLOAD + 1;
	reinject_packet(cfg, rs, srt, p, q, &io, &ws);
	reinject_flush(&io, &ws);
	ck_assert_uint_eq(ws.drops[DROP_TOO_BIG], 1);
	ck_assert_uint_eq(ws.dropped, 4);
	expect_charged(p, DROP_TOO_BIG);
	/* A result that goes back fine stays a success. */
	p = run(BHV_END_DX6, DX6_SRH_IN);
	reinject_packet(cfg, rs, srt, p, q, &io, &ws);
	reinject_flush(&io, &ws);
	ck_assert_uint_eq(ws.forwarded, 1);
	expect_counted_ok(p);
	if (io.pkt_fd >= 0)
		close(io.pkt_fd);
	pkt_tx_free(io.tx);
	nfq_socket_close(q);
}
END_TEST

/* pkt_tx_failed_fn of expect_frame_marked(): its frame is not sent. */
static void frame_unsent(void *cookie, int err, void *arg)
{
	(void)cookie;
	(void)arg;
	ck_assert_int_eq(err, EBADF);
}

/* The frame a marked result is queued as, sent into the device with
 * ifindex (the reinjection device's is 0x7ffffff1 here) by
 * reinject_packet(): its first ETH_HLEN bytes checked against eth, its
 * SO_MARK control message against `so_mark` (0: none). */
static void expect_frame_marked(struct nfq *q, struct reinject_io *io,
				struct pkt *p, uint32_t ifindex,
				const uint8_t eth[ETH_HLEN], uint32_t so_mark)
{
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr h;
	} cmsg;
	size_t orig = p->len, n, len;
	const struct iovec *iov;
	const void *ctl;

	srt[0].ifindex = ifindex;
	reinject_packet(cfg, rs, srt, p, q, io, &ws);
	ck_assert_uint_eq(pkt_tx_count(io->tx), 1);
	iov = pkt_tx_iov(io->tx, 0, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(iov[0].iov_len, orig + ETH_HLEN);
	ck_assert_bytes(iov[0].iov_base, ETH_HLEN, eth, ETH_HLEN);
	ctl = pkt_tx_control(io->tx, 0, &len);
	if (!so_mark) {
		ck_assert_ptr_null(ctl);
	} else {
		memset(&cmsg, 0, sizeof(cmsg));
		cmsg.h.cmsg_len = CMSG_LEN(sizeof(so_mark));
		cmsg.h.cmsg_level = SOL_SOCKET;
		cmsg.h.cmsg_type = SO_MARK;
		memcpy(CMSG_DATA(&cmsg.h), &so_mark, sizeof(so_mark));
		ck_assert_bytes(ctl, len, (const uint8_t *)cmsg.buf,
				sizeof(cmsg.buf));
	}
	pkt_tx_flush(-1, io->tx, frame_unsent, NULL);	/* none sent */
}

/* One reinjection device: a marked result (End.DT4's IPv4, End.DX6's
 * IPv6 that may not be a payload) goes into it to its own address
 * (02:00:00:00:00:00, from 06:00 and the SO_MARK) with its SID's mark under
 * mark-mask as the frame's SO_MARK, which the SID's fwmark rules route; into a VRF SID's
 * veth pair (another ifindex) to the pair's address of the mark, with
 * no mark (the VRF device routes it). */
START_TEST(reinject_marked_frame_by_device)
{
	/* the source address carries the SO_MARK (06:00 and the mark:
	 * steer.h G0 puts it back right before routing) */
	static const uint8_t dev4[ETH_HLEN] = { 2, 0, 0, 0, 0, 0, 6, 0, 0, 0,
						0x20, 0, 0x08, 0x00 };
	static const uint8_t pair4[ETH_HLEN] = { 2, 0, 0, 0, 0x10, 0x01, 6, 0,
						 0, 0, 0x10, 0x01, 0x08, 0x00 };
	static const uint8_t dev6[ETH_HLEN] = { 2, 0, 0, 0, 0, 0, 6, 0, 0, 0,
						0x20, 0, 0x86, 0xdd };
	char err[256];
	struct nfq *q = nfq_socket_open(65500 + (unsigned)getpid() % 30,
					NFQ_DEFAULT_MAXLEN, err, sizeof(err));
	struct reinject_io io = { .dev_ifindex = 0x7ffffff1,
				  .pkt_fd = pkt_sock_open(), .raw_fd = -1,
				  .tx = pkt_tx_new() };

	ck_assert_ptr_nonnull(io.tx);
	if (!q || io.pkt_fd < 0) {
		fprintf(stderr, "reinject_marked_frame_by_device: skipped "
			"(%s)\n", q ? strerror(errno) : err);
		goto out;
	}
	{
		struct pkt *p = run(BHV_END_DT4, DX4_SRH_IN);

		/* mark 0x1001 under mark-base 0x1000's default mark-mask
		 * 0xfffff000: 0x1000 + (1 << 12) on the packet */
		ck_assert_uint_eq(cfg->mark_mask, 0xfffff000u);
		ck_assert_uint_eq(config_mark_value(cfg, 0x1001), 0x2000);
		expect_frame_marked(q, &io, p, 0x7ffffff1, dev4, 0x2000);
	}
	expect_frame_marked(q, &io, run(BHV_END_DT4, DX4_SRH_IN), 0x7ffffff0,
			    pair4, 0);
	rs->payload = PAYLOAD_NONE;
	{
		struct pkt *p = run(BHV_END_DX6, DX6_SRH_IN);

		rs->payload = PAYLOAD_NONE;	/* run() parsed it anew */
		expect_frame_marked(q, &io, p, 0x7ffffff1, dev6,
				    config_mark_value(cfg, 0x1001));
	}
out:
	if (io.pkt_fd >= 0)
		close(io.pkt_fd);
	pkt_tx_free(io.tx);
	if (q)
		nfq_socket_close(q);
}
END_TEST

/* The batch's frames go in one sendmmsg(); a refused one is skipped,
 * reported once with its errno, and the others still leave: here frames
 * 1 and 3 are for a device that does not exist, 0 and 2 for lo. */
START_TEST(pkt_tx_flush_skips_refused)
{
	static const uint8_t frame[60] = { [12] = 0x86, [13] = 0xdd };
	struct pkt_tx *t = pkt_tx_new();
	int fd = pkt_sock_open();
	unsigned lo = if_nametoindex("lo");
	int tags[4] = { 0, 1, 2, 3 };

	ck_assert_ptr_nonnull(t);
	if (fd < 0 || !lo) {
		fprintf(stderr, "pkt_tx_flush_skips_refused: skipped (%s)\n",
			strerror(errno));
		pkt_tx_free(t);
		return;
	}
	for (unsigned i = 0; i < 4; i++)
		ck_assert_int_eq(pkt_tx_add(t, i % 2 ? 0x7ffffff0 : lo, frame,
					    sizeof(frame), &tags[i]), 0);
	ck_assert_int_eq(pkt_tx_add(t, lo, frame, 13, NULL), -1);
	ck_assert_uint_eq(pkt_tx_count(t), 4);
	tx_failures = 0;
	ck_assert_uint_eq(pkt_tx_flush(fd, t, tx_failed, NULL), 2);
	ck_assert_uint_eq(pkt_tx_count(t), 0);
	ck_assert_int_eq(tx_failures, 2);
	ck_assert_int_eq(tx_failed_tags, (1 << 1) | (1 << 3));
	/* Without a socket every frame is reported, none sent. */
	ck_assert_int_eq(pkt_tx_add(t, lo, frame, sizeof(frame), &tags[0]), 0);
	tx_failures = tx_failed_tags = 0;
	ck_assert_uint_eq(pkt_tx_flush(-1, t, tx_failed, NULL), 0);
	ck_assert_int_eq(tx_failures, 1);
	close(fd);
	pkt_tx_free(t);
}
END_TEST

/* End.DT* with no route in its table: behavior_decap.c counts the packet
 * as the worker's drops[no_route] and the SID's error, and hands the inner
 * packet (with the mark, no success counted) to the kernel's unreachable
 * rule (outcome PKT_OUT_HANDOFF).  Reinjection counts it once more only as
 * what happens to it, `dropped`, never as forwarded: the worker's drops
 * add up to dropped.  A successful End.DT6 result is forwarded as usual. */
START_TEST(dt_no_route_counted_once)
{
	char err[256];
	struct nfq *q = nfq_socket_open(65500 + (unsigned)getpid() % 30,
					NFQ_DEFAULT_MAXLEN, err, sizeof(err));
	struct reinject_io io = { .pkt_fd = -1, .raw_fd = -1 };
	struct pkt *p;
	uint64_t sum = 0;

	if (!q) {
		fprintf(stderr, "dt_no_route_counted_once: skipped (%s)\n", err);
		return;
	}
	p = run(BHV_END_DT6, DX6_SRH_IN);
	expect_counted_ok(p);
	reinject_packet(cfg, rs, srt, p, q, &io, &ws);
	reinject_flush(&io, &ws);
	ck_assert_uint_eq(ws.forwarded, 1);
	ck_assert_uint_eq(ws.dropped, 0);
	/* As behavior_decap.c leaves a table miss (its route check needs
	 * the route mirror: check_egress runs it). */
	memset(sst, 0, sizeof(sst));
	p = run(BHV_END_DT6, DX6_SRH_IN);
	proc_count_drop(&ctx, p, &sst[0], DROP_NO_ROUTE, PKT_OUT_HANDOFF);
	reinject_packet(cfg, rs, srt, p, q, &io, &ws);
	reinject_flush(&io, &ws);
	ck_assert_uint_eq(ws.forwarded, 1);
	ck_assert_uint_eq(ws.dropped, 1);
	ck_assert_uint_eq(ws.injected, 0);
	for (unsigned r = 0; r < DROP__COUNT; r++)
		sum += ws.drops[r];
	ck_assert_uint_eq(sum, ws.dropped);
	/* A super-packet's hand-off goes the way super-packet results go,
	 * never as a payload of another length (the kernel would segment
	 * it by the queued skb's state): here, not TCP inside, refused. */
	{
		enum drop_reason why = DROP__COUNT;

		p = run(BHV_END_DT6, DX6_SRH_IN);
		proc_count_drop(&ctx, p, &sst[0], DROP_NO_ROUTE,
				PKT_OUT_HANDOFF);
		ck_assert_int_eq(reinject_decide(cfg, rs, srt, p, &why),
				 REINJECT_PAYLOAD);
		p->gso = true;
		ck_assert_int_ne(reinject_decide(cfg, rs, srt, p, &why),
				 REINJECT_PAYLOAD);
	}
	/* The same for an IPv4 inner packet into the SID's device. */
	p = run(BHV_END_DT4, DX4_SRH_IN);
	srt[0].ifindex = 0x7ffffff0;	/* the send may fail: still once */
	proc_count_drop(&ctx, p, &sst[0], DROP_NO_ROUTE, PKT_OUT_HANDOFF);
	reinject_packet(cfg, rs, srt, p, q, &io, &ws);
	reinject_flush(&io, &ws);
	ck_assert_uint_eq(ws.dropped, 2);
	ck_assert_uint_eq(ws.injected, 0);
	ck_assert_uint_eq(ws.drops[DROP_REINJECT], 0);
	nfq_socket_close(q);
}
END_TEST

/* ---- the dispatcher: which SID gets which packet ---------------------- */

START_TEST(dispatch_by_sid)
{
	static const char text[] =
		"queue 0\nmark-base 0x1000\n"
		"sid fc00:100::4 action End\n"
		"sid fc00:100::5 action End.DT4 table 7\n";
	struct config *c = config_parse_buffer("t.conf", text, sizeof(text) - 1,
					       NULL, NULL);
	uint8_t buf[512];
	size_t n = hex2bin(DX4_SRH_IN, buf, sizeof(buf));
	struct pkt *p;

	ck_assert_ptr_nonnull(c);
	ctx.cfg = c;
	runstate_free(rs);
	rs = runstate_new(c);
	ctx.rs = rs;
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->out_mark, 0x1002);
	ck_assert_uint_eq(sst[1].packets, 1);
	ck_assert_uint_eq(sst[0].packets, 0);
	ck_assert_uint_eq(pkt_ip_version(p), 4);
	config_free(c);
}
END_TEST

/* ---- the daemon's routing for these SIDs (rtrules.h): exact messages ---- */

/* Expected bytes built independently (python struct, netlink layout). */
static const char RULE4_IIF[] =	/* ip -4 rule add pref 1000 iif srv6d5d6f0004 lookup 100 */
	"4800000020000506070000000000000002000000640000010000000008000600"
	"e8030000120003007372763664356436663030303400000008000f0064000000"
	"050015005d000000";			/* FRA_PROTOCOL srv6d */
static const char RULE4_UNREACH_DEL[] =	/* ... iif srv6d5d6f0004 unreachable */
	"4000000021000500080000000000000002000000000000070000000008000600"
	"e80300001200030073727636643564366630303034000000"
	"050015005d000000";			/* only srv6d's */
static const char ROUTE4_DEFAULT[] =	/* default via 203.0.113.2 dev 5 onlink table 0x5d6f0002 */
	"3400000018000505090000000000000002000000005d00010400000008000f00"
	"02006f5d08000500cb0071020800040005000000";

START_TEST(rtrules_ipv4_messages)
{
	uint32_t buf[RTRULES_MSG_SIZE / 4];
	struct nlmsghdr *nlh;
	struct in_addr gw;
	size_t n;

	nlh = rtrules_build_rule4_iif(buf, RTM_NEWRULE, 7, 1000, "srv6d5d6f0004",
				      100);
	n = hex2bin(RULE4_IIF, want, sizeof(want));
	ck_assert_bytes((const uint8_t *)nlh, nlh->nlmsg_len, want, n);
	nlh = rtrules_build_rule4_iif(buf, RTM_DELRULE, 8, 1000, "srv6d5d6f0004",
				      0);
	n = hex2bin(RULE4_UNREACH_DEL, want, sizeof(want));
	ck_assert_bytes((const uint8_t *)nlh, nlh->nlmsg_len, want, n);
	inet_pton(AF_INET, "203.0.113.2", &gw);
	nlh = rtrules_build_route(buf, RTM_NEWROUTE, 9, AF_INET, 0x5d6f0002,
				  NULL, 0, &gw, 5, 0);
	n = hex2bin(ROUTE4_DEFAULT, want, sizeof(want));
	ck_assert_bytes((const uint8_t *)nlh, nlh->nlmsg_len, want, n);
}
END_TEST

START_TEST(sid_device_names_and_macs)
{
	char rx[IF_NAMESIZE], tx[IF_NAMESIZE];
	static const uint8_t rxmac[6] = { 0x02, 0, 0x5d, 0x6f, 0x00, 0x04 };
	static const uint8_t txmac[6] = { 0x06, 0, 0x5d, 0x6f, 0x00, 0x04 };
	uint8_t mac[6];

	rtrules_dev_names(0x5d6f0004, rx, tx);
	ck_assert_str_eq(rx, "srv6d5d6f0004");
	ck_assert_str_eq(tx, "srv6d5d6f0004t");
	rtrules_dev_names(0xffff0000u + 65535u, rx, tx);
	ck_assert_str_eq(tx, "srv6dfffffffft");	/* 14 characters: fits */
	rtrules_dev_mac(0x5d6f0004, true, mac);
	ck_assert_mem_eq(mac, rxmac, 6);
	rtrules_dev_mac(0x5d6f0004, false, mac);
	ck_assert_mem_eq(mac, txmac, 6);
}
END_TEST

static Suite *decap_suite(void)
{
	Suite *s = suite_create("decap");
	TCase *ok = tcase_create("behaviors");
	TCase *err = tcase_create("errors");
	TCase *rj = tcase_create("reinject");

	tcase_add_checked_fixture(ok, setup, teardown);
	tcase_add_checked_fixture(err, setup, teardown);
	tcase_add_checked_fixture(rj, setup, teardown);
	tcase_add_test(ok, dx6);
	tcase_add_test(ok, dt6);
	tcase_add_test(ok, dx4);
	tcase_add_test(ok, dt4);
	tcase_add_test(ok, dt46_both_families);
	tcase_add_test(ok, dx2_frame);
	tcase_add_test(ok, dstopts_after_srh);
	tcase_add_test(ok, trailing_bytes_cut);
	tcase_add_test(ok, dispatch_by_sid);
	tcase_add_test(ok, kernel_decap_marks);
	tcase_add_test(ok, kernel_decap_refused);
	tcase_add_test(ok, kernel_decap_from_headers);
	tcase_add_test(err, sl_nonzero_param_problem);
	tcase_add_test(err, wrong_inner_param_problem);
	tcase_add_test(err, ping_answered);
	tcase_add_test(err, inner_truncated);
	tcase_add_test(err, inner_bad_version);
	tcase_add_test(err, srh_truncated);
	tcase_add_test(rj, reinject_ipv6_by_verdict_with_mark);
	tcase_add_test(rj, reinject_ipv4_by_sid_device);
	tcase_add_test(rj, sid_device_under_steering);
	tcase_add_test(rj, reinject_tun_ipv6_by_sid_device);
	tcase_add_test(rj, reinject_dx2_by_oif);
	tcase_add_test(rj, reinject_other_marks);
	tcase_add_test(rj, reinject_usd_ipv4_by_sid_device);
	tcase_add_test(rj, reinject_drop_charged_to_sid);
	tcase_add_test(rj, reinject_packet_drops_charged);
	tcase_add_test(rj, reinject_marked_frame_by_device);
	tcase_add_test(rj, pkt_tx_flush_skips_refused);
	tcase_add_test(rj, dt_no_route_counted_once);
	tcase_add_test(rj, rtrules_ipv4_messages);
	tcase_add_test(rj, sid_device_names_and_macs);
	suite_add_tcase(s, ok);
	suite_add_tcase(s, err);
	suite_add_tcase(s, rj);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(decap_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
