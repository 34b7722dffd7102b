/* check_mobile.c - RFC 9433's mobile user plane (src/srv6/mobile.h) byte
 * for byte: End.M.GTP6.D (6.3), End.M.GTP6.Di (6.4), End.M.GTP6.E (6.5),
 * End.M.GTP4.E (6.6),
 * Args.Mob.Session (6.1), and malformed or non-G-PDU GTP-U as counted
 * drops.
 *
 * The packets were built with scapy's GTP-U layer by
 * tests/mobile-vectors.py (independently of srv6d), from the inputs of
 * VPP's test/test_srv6_mobile.py: the outputs VPP's test checks (SRH[0]
 * d4::c800:0 after End.M.GTP6.D; DA a1::1, the source kept and TEID
 * bbbbbbbb after End.M.GTP6.E; IPv4 DA, SA and TEID after End.M.GTP4.E)
 * are in them, whole.  VPP's test has no End.M.GTP6.Di case: its
 * GTP6DI_OUT (`encoding vpp`) is what VPP's node (srv6_end_m_gtp6_d_di)
 * makes of GTP6D_IN: Segment List[0] the original DA 2001::1, [1] B
 * d4::c800:0, then the policy, Segments Left 3, the gNB's source kept.
 * GTP6DI_RFC_OUT (the default) is RFC 9433 6.4's: the same SRH (S08, D
 * as SRH[0]) from the headend's source S (S05).
 */
#include <arpa/inet.h>
#include <check.h>
#include <linux/if_ether.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "config.h"
#include "mobile.h"
#include "process.h"
#include "testutil.h"

static const char GTP6D_IN[] =
	"600000000049113c200200000000000000000000000000012001000000000000"
	"00000000000000010868086800490b5830ff0039000000c86000000000111140"
	"000b0000000000000000000000000001000a0000000000000000000000000001"
	"03e800170011d66b73727636642d677470";

static const char GTP6D_OUT[] =
	"6000000000712b4000a1000000000000000000000000000100d2000000000000"
	"0000000000000000290604020200000000d400000000000000000000c8000000"
	"00d3000000000000000000000000000000d20000000000000000000000000000"
	"6000000000111140000b0000000000000000000000000001000a000000000000"
	"000000000000000103e800170011d66b73727636642d677470";

static const char GTP6D_QFI_IN[] =
	"60000000003d113c200200000000000000000000000000012001000000000000"
	"000000000000000108680868003d1a6734ff002d123456780000008501100900"
	"4500002500070000211185af0a0800010a09000103e800170011c26f73727636"
	"642d677470";

static const char GTP6D_QFI_OUT[] =
	"60000000005d2b4000a1000000000000000000000000000100d2000000000000"
	"0000000000000000040604020200000000d40000000000002412345678000000"
	"00d3000000000000000000000000000000d20000000000000000000000000000"
	"4500002500070000211185af0a0800010a09000103e800170011c26f73727636"
	"642d677470";

static const char GTP6DI_RFC_OUT[] =
	"6000000000812b4000a1000000000000000000000000000100d2000000000000"
	"0000000000000000290804030300000020010000000000000000000000000001"
	"00d400000000000000000000c800000000d30000000000000000000000000000"
	"00d200000000000000000000000000006000000000111140000b000000000000"
	"0000000000000001000a000000000000000000000000000103e800170011d66b"
	"73727636642d677470";

static const char GTP6DI_OUT[] =
	"6000000000812b402002000000000000000000000000000100d2000000000000"
	"0000000000000000290804030300000020010000000000000000000000000001"
	"00d400000000000000000000c800000000d30000000000000000000000000000"
	"00d200000000000000000000000000006000000000111140000b000000000000"
	"0000000000000001000a000000000000000000000000000103e800170011d66b"
	"73727636642d677470";

static const char GTP6DI_RFC_E_OUT[] =
	"600000000049114000a100000000000000000000000000012001000000000000"
	"00000000000000010868086800492ab930ff0039000000c86000000000111140"
	"000b0000000000000000000000000001000a0000000000000000000000000001"
	"03e800170011d66b73727636642d677470";

static const char GTP6DI_RFC_E_SRC_OUT[] =
	"600000000049114000d5000000000000000000000000000d2001000000000000"
	"00000000000000010868086800492a7930ff0039000000c86000000000111140"
	"000b0000000000000000000000000001000a0000000000000000000000000001"
	"03e800170011d66b73727636642d677470";

static const char GTP6D_ECHO[] =
	"600000000014113c200200000000000000000000000000012001000000000000"
	"00000000000000010868086800147ce3320100040000000000090000";

static const char GTP6E_IN[] =
	"6000000000512b3dccccccccccccccccdddddddd11111111aaaaaaaaaaaaaaaa"
	"00bbbbbbbb000000290204010000000000a10000000000000000000000000001"
	"6000000000111140000b0000000000000000000000000001000a000000000000"
	"000000000000000103e800170011d66b73727636642d677470";

static const char GTP6E_OUT[] =
	"600000000049113dccccccccccccccccdddddddd1111111100a1000000000000"
	"0000000000000001086808680049c2fa30ff0039bbbbbbbb6000000000111140"
	"000b0000000000000000000000000001000a0000000000000000000000000001"
	"03e800170011d66b73727636642d677470";

static const char GTP6E_QFI_IN[] =
	"60000000003d2b3dccccccccccccccccdddddddd11111111aaaaaaaaaaaaaaaa"
	"16bbbbbbbb000000040204010000000000a10000000000000000000000000001"
	"4500002500070000211185af0a0800010a09000103e800170011c26f73727636"
	"642d677470";

static const char GTP6E_QFI_OUT[] =
	"60000000003d113dccccccccccccccccdddddddd1111111100a1000000000000"
	"000000000000000108680868003dfdfd34ff002dbbbbbbbb0000008501004500"
	"4500002500070000211185af0a0800010a09000103e800170011c26f73727636"
	"642d677470";

static const char GTP4E_IN[] =
	"6b80000000512b3eccccccccccccccccc0a8c00adddd1111aaaaaaaa0a000102"
	"11bbbbbbbb1111112902040000000000aaaaaaaa0a00010211bbbbbbbb111111"
	"6000000000111140000b0000000000000000000000000001000a000000000000"
	"000000000000000103e800170011d66b73727636642d677470";

static const char GTP4E_OUT[] =
	"45b80065000000003e11f01bc0a8c00a0a0001020868086800513f5b34ff0041"
	"bbbbbbbb00000085010004006000000000111140000b00000000000000000000"
	"00000001000a000000000000000000000000000103e800170011d66b73727636"
	"642d677470";

static const char GTP4D_IN[] =
	"4500005d000100004011748a0202020201010101086808680049455730ff0039"
	"000000c86000000000111140000b0000000000000000000000000001000a0000"
	"00000000000000000000000103e800170011d66b73727636642d677470";

static const char GTP4D_OUT[] =
	"6000000000712b4000c1000000000000020202020000000000d2000000000000"
	"0000000000000000290604020200000000d400000101010100000000c8000000"
	"00d3000000000000000000000000000000d20000000000000000000000000000"
	"6000000000111140000b0000000000000000000000000001000a000000000000"
	"000000000000000103e800170011d66b73727636642d677470";

static const char GTP6E_ECHO_REQ_IN[] =
	"6000000000182b3dccccccccccccccccdddddddd11111111aaaaaaaaaaaaaaaa"
	"00000900000000003b0204010000000400a10000000000000000000000000001";

static const char GTP6E_ECHO_REQ_OUT[] =
	"600000000014113dccccccccccccccccdddddddd1111111100a1000000000000"
	"0000000000000001086808680014ab35320100040000000000090000";

static const char GTP6E_ECHO_RSP_IN[] =
	"6000000000182b3dccccccccccccccccdddddddd11111111aaaaaaaaaaaaaaaa"
	"00000900000000008f0204010000000800a10000000000000000000000000001";

static const char GTP6E_ECHO_RSP_OUT[] =
	"600000000016113dccccccccccccccccdddddddd1111111100a1000000000000"
	"00000000000000010868086800169d2e3202000600000000000900000e00";

static const char GTP6E_ECHO_RSP_IE_IN[] =
	"60000000001a2b3dccccccccccccccccdddddddd11111111aaaaaaaaaaaaaaaa"
	"00000900000000008f0204010000000800a10000000000000000000000000001"
	"0e05";

static const char GTP6E_ECHO_RSP_IE_OUT[] =
	"600000000016113dccccccccccccccccdddddddd1111111100a1000000000000"
	"00000000000000010868086800169d293202000600000000000900000e05";

static const char GTP6E_END_MARKER_IN[] =
	"6000000000182b3dccccccccccccccccdddddddd11111111aaaaaaaaaaaaaaaa"
	"00bbbbbbbb0000008f0204010000000100a10000000000000000000000000001";

static const char GTP6E_END_MARKER_OUT[] =
	"600000000010113dccccccccccccccccdddddddd1111111100a1000000000000"
	"000000000000000108680868001034d630fe0000bbbbbbbb";

static const char GTP6E_ERROR_IND_IN[] =
	"6000000000382b3dccccccccccccccccdddddddd11111111aaaaaaaaaaaaaaaa"
	"00000900000000003b0604010000000200a10000000000000000000000000001"
	"0a1e011810000000648500102002000000000000000000000000000100000000";

static const char GTP6E_ERROR_IND_OUT[] =
	"60000000002c113dccccccccccccccccdddddddd1111111100a1000000000000"
	"000000000000000108680868002c163c321a001c000000000009000010000000"
	"6485001020020000000000000000000000000001";

static const char GTP4E_ECHO_REQ_IN[] =
	"6000000000182b3eccccccccccccccccc0a8c00adddd1111aaaaaaaa0a000102"
	"00000900000000003b02040000000004aaaaaaaa0a0001020000090000000000";

static const char GTP4E_ECHO_REQ_OUT[] =
	"45000028000000003e11f110c0a8c00a0a000102086808680014313332010004"
	"0000000000090000";

static const char GTP6D_ECHO_OUT[] =
	"6000000000382b3c00a1000000000000000000000000000100d2000000000000"
	"00000000000000003b0604020200000400d40000000000000000090000000000"
	"00d3000000000000000000000000000000d20000000000000000000000000000";

static const char GTP6DI_ECHO_OUT[] =
	"6000000000482b3c2002000000000000000000000000000100d2000000000000"
	"00000000000000003b0804030300000420010000000000000000000000000001"
	"00d4000000000000000009000000000000d30000000000000000000000000000"
	"00d20000000000000000000000000000";

static const char GTP6DI_RFC_ECHO_OUT[] =
	"6000000000482b3c00a1000000000000000000000000000100d2000000000000"
	"00000000000000003b0804030300000420010000000000000000000000000001"
	"00d4000000000000000009000000000000d30000000000000000000000000000"
	"00d20000000000000000000000000000";

static const char GTP6DI_RFC_ECHO_E_OUT[] =
	"600000000014113c00a100000000000000000000000000012001000000000000"
	"00000000000000010868086800149c44320100040000000000090000";

static const char GTP6D_ECHO_RSP_IN[] =
	"600000000016113c200200000000000000000000000000012001000000000000"
	"00000000000000010868086800166ed93202000600000000000900000e03";

static const char GTP6D_ECHO_RSP_OUT[] =
	"60000000003a2b3c00a1000000000000000000000000000100d2000000000000"
	"00000000000000003b0604020200000800d40000000000000000090000000000"
	"00d3000000000000000000000000000000d20000000000000000000000000000"
	"0e03";

static const char GTP6D_END_MARKER_IN[] =
	"600000000010113c200200000000000000000000000000012001000000000000"
	"00000000000000010868086800107cd830fe000000000123";

static const char GTP6D_END_MARKER_OUT[] =
	"6000000000382b3c00a1000000000000000000000000000100d2000000000000"
	"00000000000000003b0604020200000100d40000000000000000000123000000"
	"00d3000000000000000000000000000000d20000000000000000000000000000";

static const char GTP6D_ERROR_IND_IN[] =
	"60000000002c113c200200000000000000000000000000012001000000000000"
	"000000000000000108680868002ce7e9321a001c000000000009000010000000"
	"6485001020020000000000000000000000000001";

static const char GTP6D_ERROR_IND_OUT[] =
	"6000000000582b3c00a1000000000000000000000000000100d2000000000000"
	"00000000000000003b0a04020200000200d40000000000000000090000000000"
	"00d3000000000000000000000000000000d20000000000000000000000000000"
	"040200000a1a0118100000006485001020020000000000000000000000000001";

static const char GTP4D_ECHO_IN[] =
	"4500002800010000401174bf0202020201010101086808680014b6e232010004"
	"0000000000090000";

static const char GTP4D_ECHO_OUT[] =
	"6000000000382b4000c1000000000000020202020000000000d2000000000000"
	"00000000000000003b0604020200000400d40000010101010000090000000000"
	"00d3000000000000000000000000000000d20000000000000000000000000000";

#define SID_INDEX 1	/* not 0: counters must land in the SID's slot */

static struct test_slot slot;
static struct config cfg;
static struct sid sids[2];
static struct policy pol;
static struct worker_stats ws;
static struct sid_stats sst[2];
static struct proc_ctx ctx;

static void setup(void)
{
	memset(&cfg, 0, sizeof(cfg));
	memset(sids, 0, sizeof(sids));
	memset(&pol, 0, sizeof(pol));
	memset(&ws, 0, sizeof(ws));
	memset(sst, 0, sizeof(sst));
	memset(&ctx, 0, sizeof(ctx));
	inet_pton(AF_INET6, "a1::1", &cfg.encap_source);
	cfg.has_encap_source = true;
	cfg.icmp_rate = 100;
	cfg.icmp_burst = 50;
	cfg.sids = sids;
	cfg.nsids = 2;
	ctx.cfg = &cfg;
	ctx.stats = &ws;
	ctx.sid_stats = sst;
	ctx.now_ns = 5000000000ull;
}

static struct sid *mksid(enum behavior b, const char *prefix, uint8_t plen)
{
	struct sid *s = &sids[SID_INDEX];

	inet_pton(AF_INET6, prefix, &s->prefix);
	s->plen = plen;
	s->behavior = b;
	s->index = SID_INDEX;
	return s;
}

/* sid 2001::/64 action End.M.GTP6.D mob-prefix d4::/64 srh segs d2::,d3::
 * (VPP's: policy d2::, d3::, then B d4::/64 with the session). */
static const struct sid *gtp6d(void)
{
	struct sid *s = mksid(BHV_END_M_GTP6_D, "2001::", 64);

	s->mob_plen = 64;
	s->policy = &pol;
	pol.family = AF_INET6;
	pol.prefix.v6 = s->prefix;
	pol.plen = 64;
	pol.mode = ENCAP_MODE_ENCAP;
	pol.binding = true;
	pol.index = SID_INDEX;
	pol.nlists = 1;
	pol.weights[0] = 1;
	pol.sl.nsegs = 3;
	inet_pton(AF_INET6, "d2::", &pol.sl.segs[0]);
	inet_pton(AF_INET6, "d3::", &pol.sl.segs[1]);
	inet_pton(AF_INET6, "d4::", &pol.sl.segs[2]);
	return s;
}

/* sid 2001::/64 action End.M.GTP6.Di mob-prefix d4::/64 srh segs d2::,d3::
 * (RFC 9433 6.4): the same list, then the slot for D, :: (config.c). */
static const struct sid *gtp6di_rfc(void)
{
	struct sid *s = (struct sid *)gtp6d();

	s->behavior = BHV_END_M_GTP6_DI;
	memset(&pol.sl.segs[pol.sl.nsegs++], 0, sizeof(struct in6_addr));
	return s;
}

/* The same with `encoding vpp`. */
static const struct sid *gtp6di(void)
{
	struct sid *s = (struct sid *)gtp6di_rfc();

	s->di_vpp = true;
	return s;
}

static struct pkt *load(const char *hex)
{
	static uint8_t buf[2048];
	size_t len = hex2bin(hex, buf, sizeof(buf));

	return test_pkt(&slot, buf, len, ETH_P_IPV6);
}

static void run(const struct sid *s, struct pkt *p)
{
	switch (s->behavior) {
	case BHV_END_M_GTP6_D:
		behavior_end_m_gtp6_d(&ctx, s, p);
		break;
	case BHV_END_M_GTP6_DI:
		behavior_end_m_gtp6_di(&ctx, s, p);
		break;
	case BHV_END_M_GTP6_E:
		behavior_end_m_gtp6_e(&ctx, s, p);
		break;
	default:
		behavior_end_m_gtp4_e(&ctx, s, p);
		break;
	}
}

static void expect_out(const struct sid *s, const char *in, const char *out)
{
	uint8_t want[2048];
	size_t wlen = hex2bin(out, want, sizeof(want));
	struct pkt *p = load(in);
	uint32_t orig = p->orig_len;

	run(s, p);
	test_pcap_write(p->data, p->len);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert(!p->set_mark);
	ck_assert_int_eq(p->hw_proto, ETH_P_IPV6);	/* the hook's, kept */
	ck_assert_bytes(p->data, p->len, want, wlen);
	/* the T-PDU has not moved: only headers came off and went on */
	ck_assert_ptr_eq(p->data + p->len, slot.buf + PKT_HEADROOM + orig);
	ck_assert_uint_eq(sst[SID_INDEX].packets, 1);
	ck_assert_uint_eq(sst[SID_INDEX].bytes, orig);
	ck_assert_uint_eq(sst[SID_INDEX].errors, 0);
	ck_assert_uint_eq(sst[0].packets, 0);
}

static void expect_drop(const struct sid *s, struct pkt *p,
			enum drop_reason why)
{
	run(s, p);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.drops[why], 1);
	ck_assert_uint_eq(sst[SID_INDEX].drops[why], 1);
	ck_assert_uint_eq(sst[SID_INDEX].errors, 1);
	ck_assert_uint_eq(sst[SID_INDEX].packets, 0);
}

/* An ICMPv6 error of type/code/pointer answers p, counted as why. */
static void expect_icmp(const struct sid *s, struct pkt *p, uint8_t type,
			uint8_t code, uint32_t param, enum drop_reason why)
{
	uint32_t got;

	run(s, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->data[6], IPPROTO_ICMPV6);
	ck_assert_uint_eq(p->data[40], type);
	ck_assert_uint_eq(p->data[41], code);
	memcpy(&got, p->data + 44, 4);
	ck_assert_uint_eq(ntohl(got), param);
	ck_assert_uint_eq(ws.icmp_sent, 1);
	ck_assert_uint_eq(sst[SID_INDEX].drops[why], 1);
	ck_assert_uint_eq(sst[SID_INDEX].packets, 0);
}

/* ---- RFC 9433 6.1 Args.Mob.Session --------------------------------------- */

START_TEST(test_args_aligned)
{
	struct mob_session ms = { .qfi = 9, .r = true, .teid = 0x12345678 };
	struct mob_session back;
	uint8_t a[16], want[16] = { 0xfc, 0, 0, 0, 0, 0, 0, 0,
				    0x26, 0x12, 0x34, 0x56, 0x78, 0, 0, 0 };

	memset(a, 0, sizeof(a));
	a[0] = 0xfc;
	mob_session_write(a, 64, &ms);
	ck_assert_mem_eq(a, want, 16);
	mob_session_read(a, 64, &back);
	ck_assert_uint_eq(back.qfi, 9);
	ck_assert(back.r);
	ck_assert(!back.u);
	ck_assert_uint_eq(back.teid, 0x12345678);
}
END_TEST

/* A locator of 60 bits: the session starts mid-byte; the bits around it
 * stay. */
START_TEST(test_args_unaligned)
{
	struct mob_session ms = { .qfi = 0x3f, .r = false, .teid = 0xa5a5a5a5 };
	struct mob_session back;
	/* 60 ones, QFI 111111, R 0, U 0, a5a5a5a5, the rest ones */
	uint8_t a[16], want[16] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				    0xff, 0xca, 0x5a, 0x5a, 0x5a, 0x5f, 0xff,
				    0xff, 0xff };

	memset(a, 0xff, sizeof(a));
	mob_session_write(a, 60, &ms);
	ck_assert_mem_eq(a, want, 16);
	mob_session_read(a, 60, &back);
	ck_assert_uint_eq(back.qfi, 0x3f);
	ck_assert(!back.r);
	ck_assert(!back.u);	/* written 0 */
	ck_assert_uint_eq(back.teid, 0xa5a5a5a5);
}
END_TEST

START_TEST(test_ipv4_in_sid)
{
	uint8_t a[16] = { 0 };
	uint32_t v;

	inet_pton(AF_INET, "10.0.1.2", &v);
	addr_bits32_write(a, 36, v);
	ck_assert_uint_eq(a[4], 0x00);
	ck_assert_uint_eq(a[5], 0xa0);
	ck_assert_uint_eq(a[6], 0x00);
	ck_assert_uint_eq(a[7], 0x10);
	ck_assert_uint_eq(a[8], 0x20);
	ck_assert_uint_eq(addr_bits32_read(a, 36), v);
}
END_TEST

/* ---- GTP-U --------------------------------------------------------------- */

START_TEST(test_gtpu_parse_container)
{
	uint8_t b[256];
	size_t n = hex2bin(GTP6D_QFI_IN, b, sizeof(b));
	struct gtpu_info gi;

	ck_assert_int_eq(gtpu_parse(b + 48, (uint32_t)n - 48, &gi), 0);
	ck_assert_uint_eq(gi.type, GTPU_TYPE_GPDU);
	ck_assert_uint_eq(gi.hdr_len, 16);
	ck_assert_uint_eq(gi.pdu_len, n - 48 - 16);
	ck_assert_uint_eq(gi.ms.teid, 0x12345678);
	ck_assert_uint_eq(gi.ms.qfi, 9);
	ck_assert(!gi.ms.r);	/* uplink: no RQI */
}
END_TEST

/* Every cut of a G-PDU with a container is refused, none read past. */
START_TEST(test_gtpu_parse_cuts)
{
	uint8_t b[256];
	size_t n = hex2bin(GTP6D_QFI_IN, b, sizeof(b));
	struct gtpu_info gi;

	for (uint32_t len = 0; len < n - 48; len++) {
		uint8_t *c = malloc(len ? len : 1);

		memcpy(c, b + 48, len);
		ck_assert_int_eq(gtpu_parse(c, len, &gi), -1);
		free(c);
	}
}
END_TEST

/* ---- RFC 9433 6.3 End.M.GTP6.D ------------------------------------------- */

START_TEST(test_gtp6d_vpp)
{
	expect_out(gtp6d(), GTP6D_IN, GTP6D_OUT);
}
END_TEST

START_TEST(test_gtp6d_qfi_ipv4)
{
	expect_out(gtp6d(), GTP6D_QFI_IN, GTP6D_QFI_OUT);
}
END_TEST

/* Two sessions, two TEIDs: two SIDs B, the rest the same. */
START_TEST(test_gtp6d_sessions_apart)
{
	const struct sid *s = gtp6d();
	struct pkt *p = load(GTP6D_IN);

	p->data[48 + 7] = 201;	/* TEID 201 (no UDP checksum check) */
	run(s, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->data[48 + 12], 201);	/* SRH[0]'s TEID */
	ck_assert_uint_eq(p->data[24 + 1], 0xd2);	/* DA still d2:: */
}
END_TEST

/* One segment, B alone: the DA is B with the session too. */
START_TEST(test_gtp6d_one_segment)
{
	const struct sid *s = gtp6d();
	struct pkt *p;

	pol.sl.nsegs = 1;
	inet_pton(AF_INET6, "d4::", &pol.sl.segs[0]);
	p = load(GTP6D_IN);
	run(s, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->data[40 + 3], 0);		/* SL 0 */
	ck_assert_mem_eq(p->data + 24, p->data + 48, 16);
	ck_assert_uint_eq(p->data[24 + 12], 200);
}
END_TEST

/* GTP-U messages (RFC 9433 6.1's note, VPP's encoding): an Echo Request
 * under the policy, nothing after the SRH (Next Header 59), Tag 0x4, B's
 * PDU Session ID its Sequence Number 9; an Echo Response with its
 * Recovery IE after the SRH, Tag 0x8; an End Marker with its TEID, Tag
 * 0x1; an Error Indication with its IEs in TLV 10 behind a PadN, Tag 0x2. */
START_TEST(test_gtp6d_echo)
{
	expect_out(gtp6d(), GTP6D_ECHO, GTP6D_ECHO_OUT);
	setup();
	expect_out(gtp6d(), GTP6D_ECHO_RSP_IN, GTP6D_ECHO_RSP_OUT);
	setup();
	expect_out(gtp6d(), GTP6D_END_MARKER_IN, GTP6D_END_MARKER_OUT);
	setup();
	expect_out(gtp6d(), GTP6D_ERROR_IND_IN, GTP6D_ERROR_IND_OUT);
}
END_TEST

/* Bytes after the UDP datagram (the IPv6 Payload Length 4 more than
 * UDP's) are not the message's: cut, the same result. */
START_TEST(test_gtp6d_echo_trailer)
{
	uint8_t b[256], want[256];
	size_t n = hex2bin(GTP6D_ECHO, b, sizeof(b));
	size_t wn = hex2bin(GTP6D_ECHO_OUT, want, sizeof(want));
	struct pkt *p;

	memcpy(b + n, "\xde\xad\xbe\xef", 4);
	b[5] += 4;
	p = test_pkt(&slot, b, n + 4, ETH_P_IPV6);
	run(gtp6d(), p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, wn);
}
END_TEST

/* What End.M.GTP6.D makes of an Echo Request or an Error Indication,
 * End.M.GTP6.E makes the same message again (Di: after End at d2::,
 * d3::, at B), the hop limit the kernel's forwarding counts. */
START_TEST(test_gtp6di_echo_round_trip)
{
	static const char *const in[] = { GTP6D_ECHO, GTP6D_ERROR_IND_IN,
					  GTP6D_ECHO_RSP_IN };

	for (unsigned i = 0; i < 3; i++) {
		uint8_t want[256];
		size_t wlen = hex2bin(in[i], want, sizeof(want));
		static uint8_t mid[256];
		struct pkt *p;
		uint32_t len;

		setup();
		p = load(in[i]);
		run(gtp6di(), p);
		ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
		len = p->len;
		memcpy(mid, p->data, len);
		mid[43] = 1;
		memcpy(mid + 24, mid + 48 + 16, 16);	/* DA: B, SRH[1] */
		setup();
		p = test_pkt(&slot, mid, len, ETH_P_IPV6);
		run(mksid(BHV_END_M_GTP6_E, "d4::", 64), p);
		ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
		ck_assert_bytes(p->data, p->len, want, wlen);
	}
}
END_TEST

/* A malformed message is gtpu_malformed, never carried: an Echo Request
 * without the S flag (no Sequence Number), an Echo Response without its
 * Recovery IE, an Error Indication without TEID Data I, one cut short
 * (its Length past the datagram); one not carried (Supported Extension
 * Headers Notification, 31) is gtpu_message. */
START_TEST(test_gtp6d_message_drops)
{
	struct pkt *p;

	p = load(GTP6D_ECHO);
	p->data[48] = 0x30;			/* S off */
	expect_drop(gtp6d(), p, DROP_GTPU_MALFORMED);
	setup();
	p = load(GTP6D_ECHO_RSP_IN);
	p->data[60] = 15;			/* not Recovery */
	expect_drop(gtp6d(), p, DROP_GTPU_MALFORMED);
	setup();
	p = load(GTP6D_ERROR_IND_IN);
	p->data[60] = 17;			/* not TEID Data I */
	expect_drop(gtp6d(), p, DROP_GTPU_MALFORMED);
	setup();
	p = load(GTP6D_ERROR_IND_IN);
	p->data[51] += 1;			/* GTP-U Length one more */
	expect_drop(gtp6d(), p, DROP_GTPU_MALFORMED);
	setup();
	p = load(GTP6D_ECHO);
	p->data[49] = 31;
	expect_drop(gtp6d(), p, DROP_GTPU_MESSAGE);
}
END_TEST

START_TEST(test_gtp6d_bad_version)
{
	struct pkt *p = load(GTP6D_IN);

	p->data[48] = 0x50;	/* version 2 */
	expect_drop(gtp6d(), p, DROP_GTPU_MALFORMED);
}
END_TEST

START_TEST(test_gtp6d_bad_length)
{
	struct pkt *p = load(GTP6D_IN);

	p->data[48 + 3]++;	/* GTP-U Length past the datagram */
	expect_drop(gtp6d(), p, DROP_GTPU_MALFORMED);
}
END_TEST

START_TEST(test_gtp6d_udp_too_long)
{
	struct pkt *p = load(GTP6D_IN);

	p->data[40 + 5] += 8;	/* UDP Length past the packet */
	expect_drop(gtp6d(), p, DROP_GTPU_MALFORMED);
}
END_TEST

START_TEST(test_gtp6d_ext_zero_length)
{
	struct pkt *p = load(GTP6D_QFI_IN);

	p->data[48 + 12] = 0;	/* an extension header of length 0 */
	expect_drop(gtp6d(), p, DROP_GTPU_MALFORMED);
}
END_TEST

/* A T-PDU that is no IP packet. */
START_TEST(test_gtp6d_bad_tpdu)
{
	struct pkt *p = load(GTP6D_IN);

	p->data[56] = 0x70;
	expect_drop(gtp6d(), p, DROP_BAD_IP);
}
END_TEST

/* UDP to another port: the upper layer of RFC 8986 4.1.1 (S08-S09). */
START_TEST(test_gtp6d_not_gtpu)
{
	struct pkt *p = load(GTP6D_IN);

	p->data[40 + 3] = 0x69;	/* port 2153 */
	expect_icmp(gtp6d(), p, 4, 4, 40, DROP_UPPER_LAYER);
}
END_TEST

/* ---- RFC 9433 6.4 End.M.GTP6.Di ------------------------------------------ */

START_TEST(test_gtp6di_vpp)
{
	expect_out(gtp6di(), GTP6D_IN, GTP6DI_OUT);
}
END_TEST

/* Drop-in's point: d2:: and d3:: (End) bring it to B with Segments Left
 * 1, where End.M.GTP6.E (6.5) makes the very GTP-U packet the gNB sent
 * (to the UPF 2001::1, from 2002::1, TEID 200, the UDP checksum
 * scapy's), but for the hop limit: the outer header's, the T-PDU's 64,
 * for the gNB's 60. */
START_TEST(test_gtp6di_round_trip)
{
	uint8_t want[256];
	size_t wlen = hex2bin(GTP6D_IN, want, sizeof(want));
	struct pkt *p = load(GTP6D_IN);
	static uint8_t mid[256];
	uint32_t len;

	run(gtp6di(), p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	len = p->len;
	memcpy(mid, p->data, len);
	mid[43] = 1;				/* after End at d2::, d3:: */
	memcpy(mid + 24, mid + 48 + 16, 16);	/* DA: B, SRH[1] */
	setup();
	p = test_pkt(&slot, mid, len, ETH_P_IPV6);
	run(mksid(BHV_END_M_GTP6_E, "d4::", 64), p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	want[7] = 64;
	ck_assert_bytes(p->data, p->len, want, wlen);
}
END_TEST

/* One segment, B alone: B, then S; Segments Left 1, the DA B with the
 * session too. */
START_TEST(test_gtp6di_one_segment)
{
	const struct sid *s = gtp6di();
	struct in6_addr da;
	struct pkt *p;

	pol.sl.nsegs = 2;
	inet_pton(AF_INET6, "d4::", &pol.sl.segs[0]);
	memset(&pol.sl.segs[1], 0, sizeof(pol.sl.segs[1]));
	p = load(GTP6D_IN);
	run(s, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->data[40 + 3], 1);		/* SL 1 */
	ck_assert_uint_eq(p->data[40 + 4], 1);		/* last entry 1 */
	inet_pton(AF_INET6, "2001::1", &da);
	ck_assert_mem_eq(p->data + 48, &da, 16);	/* SRH[0]: S */
	ck_assert_mem_eq(p->data + 24, p->data + 64, 16);
	ck_assert_uint_eq(p->data[24 + 12], 200);
	inet_pton(AF_INET6, "2002::1", &da);
	ck_assert_mem_eq(p->data + 8, &da, 16);	/* the gNB's source */
}
END_TEST

/* The drops are End.M.GTP6.D's: an Echo Request, a malformed header. */
START_TEST(test_gtp6di_drops)
{
	struct pkt *p;

	expect_out(gtp6di(), GTP6D_ECHO, GTP6DI_ECHO_OUT);
	setup();
	p = load(GTP6D_IN);
	p->data[48] = 0x50;		/* GTP version 2 */
	expect_drop(gtp6di(), p, DROP_GTPU_MALFORMED);
}
END_TEST

/* RFC 9433 6.4, the default: "S05. Set the outer IPv6 SA to S" (the
 * headend's, encap-source a1::1), "S08. Prepend D to the SRH (as
 * SRH[0])", B with the session SRH[1]. */
START_TEST(test_gtp6di_rfc)
{
	expect_out(gtp6di_rfc(), GTP6D_IN, GTP6DI_RFC_OUT);
}
END_TEST

/* End.M.GTP6.E at B (6.5: Segments Left 1, the DA SRH[0]) makes of it
 * the gNB's GTP-U packet to D, the UPF, with its TEID (5.4's GW-B_out:
 * "(GW-B, U::1)(GTP: TEID T)(A,Z)"), from S: End.M.GTP6.E keeps the
 * source it is given. */
START_TEST(test_gtp6di_rfc_round_trip)
{
	uint8_t want[256];
	size_t wlen = hex2bin(GTP6DI_RFC_E_OUT, want, sizeof(want));
	struct pkt *p = load(GTP6D_IN);
	static uint8_t mid[256];
	uint32_t len;

	run(gtp6di_rfc(), p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	len = p->len;
	memcpy(mid, p->data, len);
	mid[43] = 1;				/* after End at d2::, d3:: */
	memcpy(mid + 24, mid + 48 + 16, 16);	/* DA: B, SRH[1] */
	setup();
	p = test_pkt(&slot, mid, len, ETH_P_IPV6);
	run(mksid(BHV_END_M_GTP6_E, "d4::", 64), p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, wlen);
}
END_TEST

/* The same through an End.M.GTP6.E with `source d5::d` (6.5 "S04. Set
 * the outer IPv6 SA to S"): 5.4's GW-B_out, "(GW-B, U::1)(GTP: TEID
 * T)(A,Z)". */
START_TEST(test_gtp6di_rfc_round_trip_source)
{
	uint8_t want[256];
	size_t wlen = hex2bin(GTP6DI_RFC_E_SRC_OUT, want, sizeof(want));
	struct pkt *p = load(GTP6D_IN);
	static uint8_t mid[256];
	struct sid *e;
	uint32_t len;

	run(gtp6di_rfc(), p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	len = p->len;
	memcpy(mid, p->data, len);
	mid[43] = 1;				/* after End at d2::, d3:: */
	memcpy(mid + 24, mid + 48 + 16, 16);	/* DA: B, SRH[1] */
	setup();
	p = test_pkt(&slot, mid, len, ETH_P_IPV6);
	e = mksid(BHV_END_M_GTP6_E, "d4::", 64);
	e->has_source = true;
	inet_pton(AF_INET6, "d5::d", &e->source);
	run(e, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, wlen);
}
END_TEST

/* One segment, B alone: B, then D; Segments Left 1, the DA B with the
 * session, the source S. */
START_TEST(test_gtp6di_rfc_one_segment)
{
	const struct sid *s = gtp6di_rfc();
	struct in6_addr a;
	struct pkt *p;

	pol.sl.nsegs = 2;
	inet_pton(AF_INET6, "d4::", &pol.sl.segs[0]);
	memset(&pol.sl.segs[1], 0, sizeof(pol.sl.segs[1]));
	p = load(GTP6D_IN);
	run(s, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(p->data[40 + 3], 1);		/* SL 1 */
	ck_assert_uint_eq(p->data[40 + 4], 1);		/* last entry 1 */
	inet_pton(AF_INET6, "2001::1", &a);
	ck_assert_mem_eq(p->data + 48, &a, 16);		/* SRH[0]: D */
	ck_assert_mem_eq(p->data + 24, p->data + 64, 16);
	ck_assert_uint_eq(p->data[24 + 12], 200);
	inet_pton(AF_INET6, "a1::1", &a);
	ck_assert_mem_eq(p->data + 8, &a, 16);		/* S */
}
END_TEST

/* A GTP-U message in the RFC encoding: as a G-PDU, SRH[0] D, B with the
 * Sequence Number, from S; End.M.GTP6.E at B rebuilds the Echo Request
 * to D from S. */
START_TEST(test_gtp6di_rfc_echo)
{
	uint8_t want[256];
	size_t wlen = hex2bin(GTP6DI_RFC_ECHO_E_OUT, want, sizeof(want));
	static uint8_t mid[256];
	struct pkt *p;
	uint32_t len;

	expect_out(gtp6di_rfc(), GTP6D_ECHO, GTP6DI_RFC_ECHO_OUT);
	setup();
	p = load(GTP6D_ECHO);
	run(gtp6di_rfc(), p);
	len = p->len;
	memcpy(mid, p->data, len);
	mid[43] = 1;
	memcpy(mid + 24, mid + 48 + 16, 16);
	setup();
	p = test_pkt(&slot, mid, len, ETH_P_IPV6);
	run(mksid(BHV_END_M_GTP6_E, "d4::", 64), p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, wlen);
}
END_TEST

/* ---- RFC 9433 6.5 End.M.GTP6.E ------------------------------------------- */

static const struct sid *gtp6e(void)
{
	return mksid(BHV_END_M_GTP6_E, "aaaa:aaaa:aaaa:aaaa::", 64);
}

START_TEST(test_gtp6e_vpp)
{
	expect_out(gtp6e(), GTP6E_IN, GTP6E_OUT);
}
END_TEST

START_TEST(test_gtp6e_qfi_rqi_ipv4)
{
	expect_out(gtp6e(), GTP6E_QFI_IN, GTP6E_QFI_OUT);
}
END_TEST

/* The GTP-U packet's UDP checksum verifies over the whole datagram (RFC
 * 768, RFC 8200 8.1): from the T-PDU's own checksum (UDP here), and
 * summed whole for a T-PDU without one (UDP checksum 0, another
 * protocol). */
static void expect_udp_csum_ok(struct pkt *p)
{
	struct in6_addr s, d;
	uint32_t n = p->len - 40;

	memcpy(&s, p->data + 8, 16);
	memcpy(&d, p->data + 24, 16);
	ck_assert_uint_eq(p->data[6], IPPROTO_UDP);
	ck_assert_uint_eq(csum_fold(csum_partial(p->data + 40, n,
			  csum_ipv6_pseudo(&s, &d, n, IPPROTO_UDP))), 0);
}

START_TEST(test_gtp6e_checksum_paths)
{
	static const uint8_t tweaks[][2] = {
		{ 0, 0 },	/* as built: UDP's own checksum */
		{ 1, 0 },	/* UDP checksum 0: summed whole */
		{ 2, 0 },	/* ICMPv6 (next header 58): summed whole */
		{ 3, 0 },	/* one byte less: an odd T-PDU, summed */
	};

	for (unsigned i = 0; i < sizeof(tweaks) / sizeof(tweaks[0]); i++) {
		struct pkt *p = load(GTP6E_IN);

		setup();
		p = load(GTP6E_IN);
		if (tweaks[i][0] == 1)
			p->data[64 + 46] = p->data[64 + 47] = 0;
		if (tweaks[i][0] == 2)
			p->data[64 + 6] = IPPROTO_ICMPV6;
		if (tweaks[i][0] == 3) {	/* inner and outer one shorter */
			p->data[64 + 5]--;
			p->data[5]--;
			p->len--;
			p->orig_len--;
			p->data[64 + 6] = 59;	/* no next header */
		}
		run(gtp6e(), p);
		ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
		expect_udp_csum_ok(p);
	}
}
END_TEST

/* An IPv4 T-PDU with options (IHL 6: NOP, NOP, NOP, EOL) and its UDP
 * checksum: its header's options are summed, its addresses not
 * (tpdu_sum()); the datagram's checksum still verifies whole.  And the
 * same T-PDU fragmented (MF): summed whole. */
START_TEST(test_gtp6e_checksum_ipv4_options)
{
	static const uint8_t opts[4] = { 1, 1, 1, 0 };

	for (unsigned mf = 0; mf < 2; mf++) {
		uint8_t b[256];
		size_t n = hex2bin(GTP6E_QFI_IN, b, sizeof(b));
		struct pkt *p;

		setup();
		memmove(b + 64 + 24, b + 64 + 20, n - 64 - 20);
		memcpy(b + 64 + 20, opts, 4);
		b[5] += 4;		/* the IPv6 payload length */
		b[64] = 0x46;		/* IHL 6 */
		b[64 + 3] += 4;		/* total length */
		if (mf)
			b[64 + 6] = 0x20;
		p = test_pkt(&slot, b, n + 4, ETH_P_IPV6);
		run(gtp6e(), p);
		ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
		expect_udp_csum_ok(p);
		ck_assert_bytes(p->data + p->len - 21, 4, opts, 4);	/* kept */
	}
}
END_TEST

/* Segments Left 0: not the behavior's (S01), Parameter Problem at SL. */
START_TEST(test_gtp6e_sl0)
{
	struct pkt *p = load(GTP6E_IN);

	p->data[43] = 0;
	expect_icmp(gtp6e(), p, 4, 0, 43, DROP_BAD_SRH);
}
END_TEST

START_TEST(test_gtp6e_no_srh)
{
	struct pkt *p = load(GTP6D_IN);

	expect_drop(gtp6e(), p, DROP_BAD_SRH);
}
END_TEST

START_TEST(test_gtp6e_inner_truncated)
{
	struct pkt *p = load(GTP6E_IN);

	p->data[64 + 5] += 1;	/* inner Payload Length past the packet */
	expect_drop(gtp6e(), p, DROP_TRUNCATED);
}
END_TEST

/* ---- RFC 9433 6.6 End.M.GTP4.E ------------------------------------------- */

static const struct sid *gtp4e(void)
{
	struct sid *s = mksid(BHV_END_M_GTP4_E, "aaaa:aaaa::", 32);

	s->v4src_pos = 64;
	return s;
}

START_TEST(test_gtp4e_vpp)
{
	expect_out(gtp4e(), GTP4E_IN, GTP4E_OUT);
}
END_TEST

START_TEST(test_gtp4e_sl1)
{
	struct pkt *p = load(GTP4E_IN);

	p->data[43] = 1;
	expect_icmp(gtp4e(), p, 4, 0, 43, DROP_BAD_SRH);
}
END_TEST

/* ---- GTP-U messages over SRv6 (RFC 9433 6.1: VPP's encoding) ------------- */

/* An Echo Request in the SRH's Tag (0x4), its Sequence Number 9 where the
 * PDU Session ID is, nothing after the SRH (next header 59): End.M.GTP6.E
 * rebuilds it toward SRH[0], the source kept, TEID 0, the S flag.  A Tag
 * without a message bit (0x8000) leaves a G-PDU one. */
START_TEST(test_gtp6e_echo_request)
{
	uint8_t b[256], want[256];
	size_t n = hex2bin(GTP6E_IN, b, sizeof(b));
	size_t wn = hex2bin(GTP6E_OUT, want, sizeof(want));
	struct pkt *p;

	expect_out(gtp6e(), GTP6E_ECHO_REQ_IN, GTP6E_ECHO_REQ_OUT);
	setup();
	b[40 + 6] = 0x80;
	p = test_pkt(&slot, b, n, ETH_P_IPV6);
	run(gtp6e(), p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, wn);
}
END_TEST

/* An Echo Response without IEs (next header 143, as VPP's D side sends
 * it) gets the Recovery IE TS 29.281 7.2.2 requires (restart counter 0,
 * VPP's); one that carries its own keeps it, not a second one. */
START_TEST(test_gtp6e_echo_response)
{
	expect_out(gtp6e(), GTP6E_ECHO_RSP_IN, GTP6E_ECHO_RSP_OUT);
	setup();
	expect_out(gtp6e(), GTP6E_ECHO_RSP_IE_IN, GTP6E_ECHO_RSP_IE_OUT);
}
END_TEST

/* An End Marker (0x1) keeps the session's TEID, no Sequence Number. */
START_TEST(test_gtp6e_end_marker)
{
	expect_out(gtp6e(), GTP6E_END_MARKER_IN, GTP6E_END_MARKER_OUT);
}
END_TEST

/* An Error Indication (0x2): its IEs come out of the SRH's TLV 10 (a
 * sub-TLV of the IEs, padded inside as VPP pads it); without the TLV its
 * mandatory IEs are missing: gtpu_malformed. */
START_TEST(test_gtp6e_error_indication)
{
	uint8_t b[256];
	size_t n = hex2bin(GTP6E_ERROR_IND_IN, b, sizeof(b));
	struct pkt *p;

	expect_out(gtp6e(), GTP6E_ERROR_IND_IN, GTP6E_ERROR_IND_OUT);
	setup();
	b[5] -= 32;	/* the TLV gone: Hdr Ext Len 2, the packet shorter */
	b[41] = 2;
	p = test_pkt(&slot, b, n - 32, ETH_P_IPV6);
	expect_drop(gtp6e(), p, DROP_GTPU_MALFORMED);
}
END_TEST

START_TEST(test_gtp4e_echo_request)
{
	expect_out(gtp4e(), GTP4E_ECHO_REQ_IN, GTP4E_ECHO_REQ_OUT);
}
END_TEST

/* ---- through the config and the dispatcher -------------------------------- */

static void quiet(void *arg, const char *file, unsigned line,
		  const char *msg)
{
	(void)arg;
	(void)file;
	(void)line;
	(void)msg;
}

static struct config *parse(const char *text)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "queue 0\n%s", text);
	return config_parse_buffer("test", buf, strlen(buf), quiet, NULL);
}

START_TEST(test_config_gtp6d)
{
	struct config *c = parse("sid 2001::/64 action End.M.GTP6.D "
				 "mob-prefix d4::/64 srh segs d2::,d3::\n"
				 "sid aaaa:aaaa::/32 action End.M.GTP4.E "
				 "v4src-position 64\n"
				 "encap-source a1::1\n");
	struct sid_stats cs[2];
	uint8_t want[256];
	size_t wlen = hex2bin(GTP6D_OUT, want, sizeof(want));
	struct pkt *p;

	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->nsids, 2);
	ck_assert_int_eq(c->sids[0].behavior, BHV_END_M_GTP6_D);
	ck_assert_uint_eq(c->sids[0].mob_plen, 64);
	ck_assert_ptr_nonnull(c->sids[0].policy);
	ck_assert_uint_eq(c->sids[0].policy->sl.nsegs, 3);
	ck_assert_uint_eq(c->sids[1].v4src_pos, 64);
	memset(cs, 0, sizeof(cs));
	ctx.cfg = c;
	ctx.sid_stats = cs;
	p = load(GTP6D_IN);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, wlen);
	ck_assert_uint_eq(cs[0].packets, 1);
	config_free(c);
}
END_TEST

/* The config's End.M.GTP6.Di `encoding vpp`: the list, B, then the slot;
 * srv6_process() makes GTP6DI_OUT. */
START_TEST(test_config_gtp6di)
{
	struct config *c = parse("sid 2001::/64 action End.M.GTP6.Di "
				 "mob-prefix d4::/64 encoding vpp srh segs "
				 "d2::,d3::\n"
				 "encap-source a1::1\n");
	static const struct in6_addr any;
	struct sid_stats cs[1];
	uint8_t want[256];
	size_t wlen = hex2bin(GTP6DI_OUT, want, sizeof(want));
	struct pkt *p;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->sids[0].behavior, BHV_END_M_GTP6_DI);
	ck_assert_uint_eq(c->sids[0].mob_plen, 64);
	ck_assert_ptr_nonnull(c->sids[0].policy);
	ck_assert_uint_eq(c->sids[0].policy->sl.nsegs, 4);
	ck_assert_mem_eq(&c->sids[0].policy->sl.segs[3], &any, 16);
	memset(cs, 0, sizeof(cs));
	ctx.cfg = c;
	ctx.sid_stats = cs;
	p = load(GTP6D_IN);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, wlen);
	ck_assert_uint_eq(cs[0].packets, 1);
	config_free(c);
}
END_TEST

/* End.M.GTP6.Di without `encoding` (or `encoding rfc`, anywhere on the
 * line) is RFC 9433 6.4's: srv6_process() makes GTP6DI_RFC_OUT. */
START_TEST(test_config_gtp6di_rfc)
{
	static const char *const conf[] = {
		"sid 2001::/64 action End.M.GTP6.Di mob-prefix d4::/64 "
		"srh segs d2::,d3::\nencap-source a1::1\n",
		"sid 2001::/64 action End.M.GTP6.Di encoding rfc mob-prefix "
		"d4::/64 srh segs d2::,d3::\nencap-source a1::1\n",
		"sid 2001::/64 action End.M.GTP6.Di mob-prefix d4::/64 "
		"srh segs d2::,d3:: encoding rfc\nencap-source a1::1\n",
	};

	for (unsigned i = 0; i < sizeof(conf) / sizeof(conf[0]); i++) {
		struct config *c = parse(conf[i]);
		struct sid_stats cs[1];
		uint8_t want[256];
		size_t wlen = hex2bin(GTP6DI_RFC_OUT, want, sizeof(want));
		struct pkt *p;

		setup();
		ck_assert_msg(c != NULL, "refused: %s", conf[i]);
		ck_assert(!c->sids[0].di_vpp);
		ck_assert_uint_eq(c->sids[0].policy->sl.nsegs, 4);
		memset(cs, 0, sizeof(cs));
		ctx.cfg = c;
		ctx.sid_stats = cs;
		p = load(GTP6D_IN);
		srv6_process(&ctx, p);
		ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
		ck_assert_bytes(p->data, p->len, want, wlen);
		config_free(c);
	}
}
END_TEST

/* End.M.GTP6.E's `source` (RFC 9433 6.5 S04): kept on the SID; without
 * it none (the packet's source is kept). */
START_TEST(test_config_gtp6e_source)
{
	struct config *c = parse("sid d4::/64 action End.M.GTP6.E source "
				 "d5::d\nsid aaaa::/64 action End.M.GTP6.E\n");
	struct in6_addr a;

	ck_assert_ptr_nonnull(c);
	inet_pton(AF_INET6, "d5::d", &a);
	ck_assert(c->sids[0].has_source);
	ck_assert_mem_eq(&c->sids[0].source, &a, 16);
	ck_assert(!c->sids[1].has_source);
	config_free(c);
}
END_TEST

struct errs {
	unsigned n;
	char msg[512];
};

static void collect(void *arg, const char *file, unsigned line,
		    const char *msg)
{
	struct errs *e = arg;

	(void)file;
	if (!e->n++)
		snprintf(e->msg, sizeof(e->msg), "%u: %s", line, msg);
}

/* `encoding` anywhere but on an End.M.GTP6.Di line, or with a value
 * other than rfc or vpp, is refused with one message saying so. */
START_TEST(test_config_encoding_errors)
{
	static const char *const bad[][2] = {
		{ "sid 2001::/64 action End.M.GTP6.D mob-prefix d4::/64 "
		  "encoding vpp\n",
		  "2: sid: 'encoding' is only valid with End.M.GTP6.Di (RFC "
		  "9433 6.4 drop-in: rfc or vpp), not with End.M.GTP6.D" },
		{ "sid fc00::/64 action End.X nh6 fc00::2 encoding vpp\n",
		  "2: sid: 'encoding' is only valid with End.M.GTP6.Di (RFC "
		  "9433 6.4 drop-in: rfc or vpp), not with End.X" },
		{ "sid aaaa::/64 action End.M.GTP6.E encoding rfc\n",
		  "2: sid: 'encoding' is only valid with End.M.GTP6.Di (RFC "
		  "9433 6.4 drop-in: rfc or vpp), not with End.M.GTP6.E" },
		{ "sid fc00::/64 action End.B6.Encaps srh segs d2:: "
		  "encoding vpp\n",
		  "2: sid: 'encoding' is only valid with End.M.GTP6.Di (RFC "
		  "9433 6.4 drop-in: rfc or vpp), not with End.B6.Encaps" },
		{ "sid 2001::/64 action End.M.GTP6.Di mob-prefix d4::/64 "
		  "encoding linux\n",
		  "2: sid: unknown encoding 'linux' (expected rfc, RFC 9433 "
		  "6.4's, or vpp, VPP's drop-in)" },
		{ "sid 2001::/64 action End.M.GTP6.Di mob-prefix d4::/64 "
		  "encoding\n",
		  "2: sid: 'encoding' needs an argument (rfc or vpp)" },
		{ "sid 2001::/64 action End.M.GTP6.Di mob-prefix d4::/64 "
		  "encoding vpp encoding rfc\n",
		  "2: sid: 'encoding' given twice" },
		{ "sid aaaa::/64 action End.M.GTP6.E source ::\n",
		  "2: sid: source :: is not a unicast address" },
		{ "sid aaaa::/32 action End.M.GTP4.E v4src-position 64 "
		  "source d5::d\n",
		  "2: sid: 'source' is only valid with End.M.GTP6.E or End.AS, "
		  "not with End.M.GTP4.E" },
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[512];
		struct errs e = { 0 };

		snprintf(buf, sizeof(buf), "queue 0\n%s", bad[i][0]);
		ck_assert_ptr_null(config_parse_buffer("test", buf,
						       strlen(buf), collect,
						       &e));
		ck_assert_str_eq(e.msg, bad[i][1]);
	}
}
END_TEST

START_TEST(test_config_errors)
{
	static const char *const bad[] = {
		"sid 2001::/64 action End.M.GTP6.D srh segs d2::\n",
		"sid 2001::/64 action End.M.GTP6.D mob-prefix d4::/96\n",
		"sid 2001::/64 action End.M.GTP6.D mob-prefix d4::/64 "
		"srh segs d2:: hmac 7\n",
		"sid 2001::/64 action End.M.GTP6.Di srh segs d2::\n",
		"sid 2001::/64 action End.M.GTP6.Di mob-prefix d4::/64 "
		"srh segs d2:: hmac 7\n",
		/* 15 segments, B and S: 17 */
		"sid 2001::/64 action End.M.GTP6.Di mob-prefix d4::/64 srh segs "
		"d1::,d2::,d3::,d4::,d5::,d6::,d7::,d8::,d9::,da::,db::,dc::,"
		"dd::,de::,df::\n",
		"sid aaaa::/96 action End.M.GTP6.E\n",
		"sid aaaa::/64 action End.M.GTP4.E v4src-position 64\n",
		"sid aaaa::/32 action End.M.GTP4.E\n",
		"sid aaaa::/32 action End.M.GTP4.E v4src-position 97\n",
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(parse(bad[i]) == NULL, "accepted: %s", bad[i]);
}
END_TEST

/* ---- RFC 9433 6.7 H.M.GTP4.D ---------------------------------------------- */

static const char GTP4D_CONF[] =
	"route 1.1.1.1/32 encap gtp4 mob-prefix d4::/32 src-prefix c1::/64 "
	"segs d2::,d3::\n";

/* GTP4D_IN through srv6_process() on the IPv4 hook, steered by the
 * route; tweak changes it first.  Returns the packet, c in *cp. */
static struct pkt *gtp4d_run(struct config **cp, struct sid_stats *ps,
			     void (*tweak)(struct pkt *))
{
	static uint8_t buf[256];
	size_t len = hex2bin(GTP4D_IN, buf, sizeof(buf));
	struct config *c = parse(GTP4D_CONF);
	struct pkt *p;

	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->npolicies, 1);
	ck_assert(c->policies[0].gtp4d);
	memset(ps, 0, sizeof(*ps));
	ctx.cfg = c;
	ctx.policy_stats = ps;
	p = test_pkt(&slot, buf, len, ETH_P_IP);
	if (tweak)
		tweak(p);
	srv6_process(&ctx, p);
	*cp = c;
	return p;
}

/* H.M.GTP4.D carries an Echo Request as End.M.GTP6.D does: B with the
 * IPv4 DA and the Sequence Number, the source the src-prefix with the
 * IPv4 SA, the hop limit the TTL. */
START_TEST(test_gtp4d_echo)
{
	uint8_t want[256], buf[256];
	size_t wlen = hex2bin(GTP4D_ECHO_OUT, want, sizeof(want));
	size_t len = hex2bin(GTP4D_ECHO_IN, buf, sizeof(buf));
	struct config *c = parse(GTP4D_CONF);
	struct sid_stats ps;
	struct pkt *p;

	ck_assert_ptr_nonnull(c);
	memset(&ps, 0, sizeof(ps));
	ctx.cfg = c;
	ctx.policy_stats = &ps;
	p = test_pkt(&slot, buf, len, ETH_P_IP);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want, wlen);
	ck_assert_uint_eq(ps.packets, 1);
	ck_assert_uint_eq(ps.errors, 0);
	config_free(c);
}
END_TEST

START_TEST(test_gtp4d_vpp)
{
	uint8_t want[256];
	size_t wlen = hex2bin(GTP4D_OUT, want, sizeof(want));
	struct sid_stats ps;
	struct config *c;
	struct pkt *p = gtp4d_run(&c, &ps, NULL);

	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_int_eq(p->hw_proto, ETH_P_IP);	/* the hook's, kept */
	ck_assert_bytes(p->data, p->len, want, wlen);
	ck_assert_uint_eq(ps.packets, 1);
	ck_assert_uint_eq(ps.errors, 0);
	config_free(c);
}
END_TEST

static void to_port_2153(struct pkt *p)
{
	p->data[20 + 3] = 0x69;
}

static void fragment(struct pkt *p)
{
	p->data[6] = 0x20;	/* MF */
}

static void bad_gtp_version(struct pkt *p)
{
	p->data[28] = 0x50;
}

START_TEST(test_gtp4d_drops)
{
	static const struct {
		void (*tweak)(struct pkt *);
		enum drop_reason why;
	} cases[] = {
		{ to_port_2153, DROP_UPPER_LAYER },
		{ fragment, DROP_FRAGMENT },
		{ bad_gtp_version, DROP_GTPU_MALFORMED },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sid_stats ps;
		struct config *c;
		struct pkt *p;

		memset(&ws, 0, sizeof(ws));
		p = gtp4d_run(&c, &ps, cases[i].tweak);
		ck_assert_int_eq(p->verdict, PKT_DROP);
		ck_assert_uint_eq(ps.drops[cases[i].why], 1);
		ck_assert_uint_eq(ps.errors, 1);
		ck_assert_uint_eq(ws.drops[cases[i].why], 1);
		config_free(c);
	}
}
END_TEST

START_TEST(test_gtp4d_config_errors)
{
	static const char *const bad[] = {
		"route fc00::/64 encap gtp4 mob-prefix d4::/32 "
		"src-prefix c1::/64\n",
		"route 1.1.1.1/32 encap gtp4 src-prefix c1::/64\n",
		"route 1.1.1.1/32 encap gtp4 mob-prefix d4::/32\n",
		"route 1.1.1.1/32 encap gtp4 mob-prefix d4::/64 "
		"src-prefix c1::/64\n",
		"route 1.1.1.1/32 encap gtp4 mob-prefix d4::/32 "
		"src-prefix c1::/112\n",
		"route 1.1.1.1/32 encap gtp4 mob-prefix d4::/32 "
		"src-prefix c1::/64 segs d2:: mode encap\n",
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(parse(bad[i]) == NULL, "accepted: %s", bad[i]);
}
END_TEST

static Suite *mobile_suite(void)
{
	Suite *s = suite_create("mobile");
	TCase *tc = tcase_create("rfc9433");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_args_aligned);
	tcase_add_test(tc, test_args_unaligned);
	tcase_add_test(tc, test_ipv4_in_sid);
	tcase_add_test(tc, test_gtpu_parse_container);
	tcase_add_test(tc, test_gtpu_parse_cuts);
	tcase_add_test(tc, test_gtp6d_vpp);
	tcase_add_test(tc, test_gtp6d_qfi_ipv4);
	tcase_add_test(tc, test_gtp6d_sessions_apart);
	tcase_add_test(tc, test_gtp6d_one_segment);
	tcase_add_test(tc, test_gtp6d_echo);
	tcase_add_test(tc, test_gtp6d_message_drops);
	tcase_add_test(tc, test_gtp6d_echo_trailer);
	tcase_add_test(tc, test_gtp6di_echo_round_trip);
	tcase_add_test(tc, test_gtp6d_bad_version);
	tcase_add_test(tc, test_gtp6d_bad_length);
	tcase_add_test(tc, test_gtp6d_udp_too_long);
	tcase_add_test(tc, test_gtp6d_ext_zero_length);
	tcase_add_test(tc, test_gtp6d_bad_tpdu);
	tcase_add_test(tc, test_gtp6d_not_gtpu);
	tcase_add_test(tc, test_gtp6di_vpp);
	tcase_add_test(tc, test_gtp6di_round_trip);
	tcase_add_test(tc, test_gtp6di_one_segment);
	tcase_add_test(tc, test_gtp6di_drops);
	tcase_add_test(tc, test_gtp6di_rfc);
	tcase_add_test(tc, test_gtp6di_rfc_round_trip);
	tcase_add_test(tc, test_gtp6di_rfc_round_trip_source);
	tcase_add_test(tc, test_config_gtp6e_source);
	tcase_add_test(tc, test_gtp6di_rfc_one_segment);
	tcase_add_test(tc, test_gtp6di_rfc_echo);
	tcase_add_test(tc, test_gtp6e_vpp);
	tcase_add_test(tc, test_gtp6e_qfi_rqi_ipv4);
	tcase_add_test(tc, test_gtp6e_checksum_paths);
	tcase_add_test(tc, test_gtp6e_checksum_ipv4_options);
	tcase_add_test(tc, test_gtp6e_sl0);
	tcase_add_test(tc, test_gtp6e_no_srh);
	tcase_add_test(tc, test_gtp6e_inner_truncated);
	tcase_add_test(tc, test_gtp4e_vpp);
	tcase_add_test(tc, test_gtp4e_sl1);
	tcase_add_test(tc, test_gtp6e_echo_request);
	tcase_add_test(tc, test_gtp6e_echo_response);
	tcase_add_test(tc, test_gtp6e_end_marker);
	tcase_add_test(tc, test_gtp6e_error_indication);
	tcase_add_test(tc, test_gtp4e_echo_request);
	tcase_add_test(tc, test_gtp4d_vpp);
	tcase_add_test(tc, test_gtp4d_echo);
	tcase_add_test(tc, test_gtp4d_drops);
	tcase_add_test(tc, test_gtp4d_config_errors);
	tcase_add_test(tc, test_config_gtp6d);
	tcase_add_test(tc, test_config_gtp6di);
	tcase_add_test(tc, test_config_gtp6di_rfc);
	tcase_add_test(tc, test_config_encoding_errors);
	tcase_add_test(tc, test_config_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(mobile_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
