/* check_hmac.c - the SRH HMAC TLV (RFC 8754 2.1.2): digests against
 * Python's hmac/hashlib over the exact RFC 8754 2.1.2.1 text (source
 * address, Last Entry, Flags, Key ID, segments), verification of Linux's
 * layout (H flag, TLV last) and of the RFC's (Pad1/PadN before it, no H
 * flag, a truncated HMAC), and every verdict: missing, unknown key, wrong
 * HMAC, wrong DA, bad TLV; and hmac_check()'s policy at a SID.
 *
 * Every packet is from fc00:ff::1 to fc00:a::1 with the SRH (fc00:a::2,
 * fc00:a::1), Segments Left 1; key 7 is sha256 "srv6d-secret", key 9 sha1
 * "k1".  Expected bytes and digests: Python's struct, hmac, hashlib.
 */
#include <arpa/inet.h>
#include <check.h>
#include <linux/if_ether.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "hmac.h"
#include "process.h"
#include "srh.h"
#include "testutil.h"

/* Linux layout: flags 0x08, the 40-byte TLV last (as srv6d's headend and
 * the kernel's seg6 write it); a UDP payload follows. */
#define LINUX_MAC \
	"b777f2e52abcc4ea99385b79c6db9c4d92f32805e7f6caba5db5f50701cb2b25"
static const char LINUX[] =
	"60000000005c2b40fc0000ff000000000000000000000001fc00000a00000000"
	"00000000000000011109040101080000fc00000a000000000000000000000002"
	"fc00000a000000000000000000000001"
	"0526000000000007" LINUX_MAC
	"04d2162e000c000072666321";

/* RFC layout: flags 0, Pad1, PadN (5 bytes), then the HMAC TLV. */
static const char RFC[] =
	"6000000000642b40fc0000ff000000000000000000000001fc00000a00000000"
	"0000000000000001110a040101000000fc00000a000000000000000000000002"
	"fc00000a0000000000000000000000010004050000000000"
	"052600000000000776e5f4e56809bac3724c1527c6d6f3781fb5f305f9f9275b"
	"847856e10c0a39b704d2162e000c000072666321";

/* A 16-byte HMAC (Length 22), flags 0. */
static const char T16[] =
	"60000000004c2b40fc0000ff000000000000000000000001fc00000a00000000"
	"00000000000000011107040101000000fc00000a000000000000000000000002"
	"fc00000a000000000000000000000001051600000000000776e5f4e56809bac3"
	"724c1527c6d6f37804d2162e000c000072666321";

/* Key 9 (sha1): the 20-byte digest zero-padded to 32. */
static const char SHA1[] =
	"60000000005c2b40fc0000ff000000000000000000000001fc00000a00000000"
	"00000000000000011109040101080000fc00000a000000000000000000000002"
	"fc00000a000000000000000000000001052600000000000920bc8609b1487f65"
	"194fbbe82b0118cf49caf2dc000000000000000000000000"
	"04d2162e000c000072666321";

static const char NOTLV[] =
	"6000000000342b40fc0000ff000000000000000000000001fc00000a00000000"
	"00000000000000011104040101000000fc00000a000000000000000000000002"
	"fc00000a00000000000000000000000104d2162e000c000072666321";

static const char NOSRH[] =
	"60000000000c1140fc0000ff000000000000000000000001fc00000a00000000"
	"000000000000000104d2162e000c000072666321";

static struct test_slot slot;
static struct config cfg;
static struct sid sids[2];
static struct hmac_key keys[2];
static struct worker_stats ws;
static struct sid_stats sst[2];
static struct proc_ctx ctx;

static void setup(void)
{
	memset(&cfg, 0, sizeof(cfg));
	memset(sids, 0, sizeof(sids));
	memset(keys, 0, sizeof(keys));
	memset(&ws, 0, sizeof(ws));
	memset(sst, 0, sizeof(sst));
	memset(&ctx, 0, sizeof(ctx));
	keys[0].id = 7;
	keys[0].alg = HMAC_ALG_SHA256;
	memcpy(keys[0].secret, "srv6d-secret", 12);
	keys[0].len = 12;
	keys[1].id = 9;
	keys[1].alg = HMAC_ALG_SHA1;
	memcpy(keys[1].secret, "k1", 2);
	keys[1].len = 2;
	cfg.hmac_keys = keys;
	cfg.nhmac_keys = 2;
	cfg.sids = sids;
	cfg.nsids = 2;
	sids[1].index = 1;
	ctx.cfg = &cfg;
	ctx.stats = &ws;
	ctx.sid_stats = sst;
}

static struct pkt *load(const char *hex)
{
	static uint8_t buf[2048];
	size_t len = hex2bin(hex, buf, sizeof(buf));

	return test_pkt(&slot, buf, len, ETH_P_IPV6);
}

/* hmac_verify() of the packet. */
static enum drop_reason verify(struct pkt *p)
{
	struct srh_error err;
	struct srh_info si;

	ck_assert_int_eq(srh_find(p->data, p->len, &si, &err), 0);
	ck_assert_ptr_nonnull(si.srh);
	return hmac_verify(&cfg, p->data, &si);
}

/* ---- digests ---------------------------------------------------------- */

START_TEST(test_digest_sha256)
{
	struct pkt *p = load(LINUX);
	uint8_t want[32], got[32];

	hex2bin(LINUX_MAC, want, sizeof(want));
	ck_assert_int_eq(hmac_srh_digest(&keys[0], p->data + 8,
					 (const struct srh *)(p->data + 40),
					 got), 0);
	ck_assert_bytes(got, 32, want, 32);
}
END_TEST

START_TEST(test_digest_sha1)
{
	struct pkt *p = load(SHA1);
	uint8_t got[32];

	ck_assert_int_eq(hmac_srh_digest(&keys[1], p->data + 8,
					 (const struct srh *)(p->data + 40),
					 got), 0);
	ck_assert_bytes(got, 32, p->data + 40 + 40 + 8, 32);
}
END_TEST

START_TEST(test_digest_bad_alg)
{
	struct pkt *p = load(LINUX);
	uint8_t got[32];

	keys[0].alg = (enum hmac_alg)3;
	ck_assert_int_eq(hmac_srh_digest(&keys[0], p->data + 8,
					 (const struct srh *)(p->data + 40),
					 got), -1);
	ck_assert_int_eq(hmac_tlv_write(got, &keys[0], false, p->data + 8,
					(const struct srh *)(p->data + 40)),
			 -1);
}
END_TEST

/* hmac_tlv_write() rebuilds the TLV of LINUX from its SRH; with the D
 * flag, only byte 2 changes (D is not part of the HMAC text). */
START_TEST(test_tlv_write)
{
	struct pkt *p = load(LINUX);
	uint8_t tlv[HMAC_TLV_LEN];

	ck_assert_int_eq(hmac_tlv_write(tlv, &keys[0], false, p->data + 8,
					(const struct srh *)(p->data + 40)),
			 0);
	ck_assert_bytes(tlv, sizeof(tlv), p->data + 80, HMAC_TLV_LEN);
	ck_assert_int_eq(hmac_tlv_write(tlv, &keys[0], true, p->data + 8,
					(const struct srh *)(p->data + 40)),
			 0);
	ck_assert_uint_eq(tlv[2], 0x80);
	ck_assert_mem_eq(tlv + 3, p->data + 83, HMAC_TLV_LEN - 3);
}
END_TEST

START_TEST(test_equal)
{
	static const uint8_t a[4] = { 1, 2, 3, 4 }, b[4] = { 1, 2, 3, 5 };

	ck_assert(hmac_equal(a, a, 4));
	ck_assert(!hmac_equal(a, b, 4));
	ck_assert(hmac_equal(a, b, 3));
}
END_TEST

/* ---- verification ------------------------------------------------------- */

START_TEST(test_verify_layouts)
{
	ck_assert_int_eq(verify(load(LINUX)), HMAC_OK);
	ck_assert_int_eq(verify(load(RFC)), HMAC_OK);
	ck_assert_int_eq(verify(load(T16)), HMAC_OK);
	ck_assert_int_eq(verify(load(SHA1)), HMAC_OK);
}
END_TEST

START_TEST(test_verify_missing)
{
	ck_assert_int_eq(verify(load(NOTLV)), DROP_HMAC_MISSING);
}
END_TEST

START_TEST(test_verify_unknown)
{
	cfg.nhmac_keys = 1;		/* key 9 gone */
	ck_assert_int_eq(verify(load(SHA1)), DROP_HMAC_UNKNOWN);
	keys[0].id = 8;			/* key 7 gone */
	ck_assert_int_eq(verify(load(LINUX)), DROP_HMAC_UNKNOWN);
}
END_TEST

/* Any bit of the text or of the HMAC changed: wrong.  _i picks the byte:
 * source, Last Entry is not touched (SRH would not parse), flags,
 * a segment, the HMAC's first and last bytes, the secret. */
START_TEST(test_verify_wrong)
{
	static const unsigned at[] = { 8, 23, 45, 48, 79, 88, 119 };
	struct pkt *p = load(LINUX);

	if (_i < 7) {
		p->data[at[_i]] ^= 0x01;
	} else {
		keys[0].secret[0] ^= 1;
	}
	ck_assert_int_eq(verify(p), DROP_HMAC_WRONG);
}
END_TEST

/* Same in the RFC layout, and a key of the other algorithm. */
START_TEST(test_verify_wrong_rfc)
{
	struct pkt *p = load(RFC);

	p->data[120] ^= 0x80;		/* last HMAC byte */
	ck_assert_int_eq(verify(p), DROP_HMAC_WRONG);
	p = load(RFC);
	keys[0].alg = HMAC_ALG_SHA1;
	ck_assert_int_eq(verify(p), DROP_HMAC_WRONG);
}
END_TEST

/* RFC 8754 2.1.2.1: without the D bit the DA must be Segment List[SL];
 * the D bit (outside the HMAC text) turns that check off. */
START_TEST(test_verify_da)
{
	struct pkt *p = load(LINUX);

	p->data[39] = 0x02;		/* DA fc00:a::2 != segs[1] */
	ck_assert_int_eq(verify(p), DROP_HMAC_WRONG);
	p->data[82] = HMAC_TLV_D_FLAG;
	ck_assert_int_eq(verify(p), HMAC_OK);
	p = load(RFC);
	p->data[43] = 2;		/* SL 2 > Last Entry: reduced, no D */
	ck_assert_int_eq(verify(p), DROP_HMAC_WRONG);
	p->data[90] = HMAC_TLV_D_FLAG;
	ck_assert_int_eq(verify(p), HMAC_OK);
	/* Linux's layout (H flag) has no D bit: its encap.red sends SL =
	 * Last Entry + 1 without it, taken as reduced; SL 3 is not. */
	p = load(LINUX);
	p->data[43] = 2;
	ck_assert_int_eq(verify(p), HMAC_OK);
	p->data[43] = 3;
	ck_assert_int_eq(verify(p), DROP_HMAC_WRONG);
}
END_TEST

/* An HMAC field that is not 8, 16, 24 or 32 bytes: bad TLV.  The RFC
 * packet's TLV (at 88, 40 bytes) is shortened to Length L, the bytes it
 * frees padded (Pad1 or PadN) so the TLV area still parses. */
START_TEST(test_verify_bad_len)
{
	static const uint8_t lens[] = { 37, 6, 10, 12, 30 };
	struct pkt *p = load(RFC);
	uint32_t end = 88 + 2 + lens[_i], freed = 128 - end;

	p->data[89] = lens[_i];
	p->data[end] = freed == 1 ? SRH_TLV_PAD1 : SRH_TLV_PADN;
	if (freed >= 2)
		p->data[end + 1] = (uint8_t)(freed - 2);
	/* 30: a 24-byte HMAC, the digest's first 24 bytes: fine */
	ck_assert_int_eq(verify(p), lens[_i] == 30 ? HMAC_OK : DROP_BAD_TLV);
}
END_TEST

/* A TLV running past the SRH never reaches hmac_verify(): srh_find()
 * rejects it. */
START_TEST(test_tlv_overrun)
{
	struct pkt *p = load(RFC);
	struct srh_error err;
	struct srh_info si;

	p->data[89] = 39;
	ck_assert_int_eq(srh_find(p->data, p->len, &si, &err), -1);
	ck_assert_int_eq(err.reason, DROP_BAD_TLV);
}
END_TEST

/* ---- hmac_check(): the policy at a SID ----------------------------------- */

static void expect_check(const char *hex, int rc, enum drop_reason why)
{
	struct pkt *p = load(hex);

	ck_assert_int_eq(hmac_check(&ctx, p, &sids[1]), rc);
	if (rc == 0) {
		ck_assert_int_ne(p->verdict, PKT_DROP);
		ck_assert_uint_eq(sst[1].errors, 0);
		return;
	}
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_uint_eq(ws.drops[why], 1);
	ck_assert_uint_eq(sst[1].drops[why], 1);
	ck_assert_uint_eq(sst[1].errors, 1);
	ck_assert_uint_eq(sst[0].errors, 0);
}

START_TEST(test_check_require)
{
	cfg.hmac_require = true;
	expect_check(LINUX, 0, HMAC_OK);
	expect_check(RFC, 0, HMAC_OK);
	setup();
	cfg.hmac_require = true;
	expect_check(NOTLV, -1, DROP_HMAC_MISSING);
	setup();
	cfg.hmac_require = true;
	expect_check(NOSRH, 0, HMAC_OK);	/* nothing to protect */
	setup();
	cfg.hmac_require = true;
	cfg.nhmac_keys = 1;
	expect_check(SHA1, -1, DROP_HMAC_UNKNOWN);
	setup();
	cfg.hmac_require = true;
	keys[0].secret[3] ^= 0x20;
	expect_check(LINUX, -1, DROP_HMAC_WRONG);
}
END_TEST

/* hmac-require no, keys configured: a present HMAC must verify; none is
 * fine (Linux's seg6_require_hmac 0). */
START_TEST(test_check_optional)
{
	expect_check(NOTLV, 0, HMAC_OK);
	expect_check(NOSRH, 0, HMAC_OK);
	expect_check(LINUX, 0, HMAC_OK);
	keys[0].secret[3] ^= 0x20;
	expect_check(LINUX, -1, DROP_HMAC_WRONG);
}
END_TEST

/* No keys and no requirement: nothing is looked at, not even a wrong
 * HMAC. */
START_TEST(test_check_off)
{
	struct pkt *p = load(LINUX);

	cfg.nhmac_keys = 0;
	p->data[100] ^= 1;
	ck_assert_int_eq(hmac_check(&ctx, p, &sids[1]), 0);
	ck_assert_uint_eq(sst[1].errors, 0);
}
END_TEST

/* A packet srh_find() rejects is left to the behavior. */
START_TEST(test_check_bad_headers)
{
	struct pkt *p = load(LINUX);

	cfg.hmac_require = true;
	p->len = 60;			/* SRH truncated */
	ck_assert_int_eq(hmac_check(&ctx, p, &sids[1]), 0);
	ck_assert_uint_eq(sst[1].errors, 0);
}
END_TEST

static Suite *hmac_suite(void)
{
	Suite *s = suite_create("hmac");
	TCase *tc = tcase_create("digest");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_digest_sha256);
	tcase_add_test(tc, test_digest_sha1);
	tcase_add_test(tc, test_digest_bad_alg);
	tcase_add_test(tc, test_tlv_write);
	tcase_add_test(tc, test_equal);
	suite_add_tcase(s, tc);

	tc = tcase_create("verify");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_verify_layouts);
	tcase_add_test(tc, test_verify_missing);
	tcase_add_test(tc, test_verify_unknown);
	tcase_add_loop_test(tc, test_verify_wrong, 0, 8);
	tcase_add_test(tc, test_verify_wrong_rfc);
	tcase_add_test(tc, test_verify_da);
	tcase_add_loop_test(tc, test_verify_bad_len, 0, 5);
	tcase_add_test(tc, test_tlv_overrun);
	suite_add_tcase(s, tc);

	tc = tcase_create("check");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_check_require);
	tcase_add_test(tc, test_check_optional);
	tcase_add_test(tc, test_check_off);
	tcase_add_test(tc, test_check_bad_headers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hmac_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
