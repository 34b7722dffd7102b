/* check_oam.c - RFC 9259: the O-flag's copy (2.1.1 S01.1) and End.OP,
 * byte for byte, through srv6_process() as a worker runs it, and the
 * copies' way out (oamsock.h) to a real socket.
 *
 * The packets were made once with scapy (IPv6ExtHdrSegmentRouting with
 * oam=1: the SRH's Flags 0x20) and pasted here as hex; the copy is the
 * packet as the SID received it, behind the 40-byte header of oam.h.
 */
#include <check.h>
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "config.h"
#include "oam.h"
#include "oamsock.h"
#include "process.h"
#include "reinject.h"
#include "runstate.h"
#include "testutil.h"

/* End at fc00:1::/48, SL 2 -> 1, O-flag set (stays set). */
static const char OEND_IN[] =
	"6000000000452b4020010db8000000000000000000000001fc00000100000000"
	"00000000000000011106040202200000fc000003000000000000000000000001"
	"fc000002000000000000000000000001fc000001000000000000000000000001"
	"04d2162e000d123468656c6c6f";

static const char OEND_OUT[] =
	"6000000000452b4020010db8000000000000000000000001fc00000200000000"
	"00000000000000011106040102200000fc000003000000000000000000000001"
	"fc000002000000000000000000000001fc000001000000000000000000000001"
	"04d2162e000d123468656c6c6f";

/* The same without the O-flag (check_end.c's END_IN). */
static const char END_IN[] =
	"6000000000452b4020010db8000000000000000000000001fc00000100000000"
	"00000000000000011106040202000000fc000003000000000000000000000001"
	"fc000002000000000000000000000001fc000001000000000000000000000001"
	"04d2162e000d123468656c6c6f";

/* To End.OP fc00:9::/48. */
static const char OP_IN[] =
	"6000000000352b4020010db8000000000000000000000001fc00000900000000"
	"00000000000000011104040101200000fc000003000000000000000000000001"
	"fc00000900000000000000000000000104d2162e000d123468656c6c6f";

/* End.DT6 fc00:6::/48, SL 0, O-flag: the copy is the encapsulated
 * packet, the result the inner one. */
static const char ODT6_IN[] =
	"60000000004d2b4020010db8000000000000000000000001fc00000600000000"
	"00000000000000012902040000200000fc000006000000000000000000000001"
	"60000000000d110520010db8000a0000000000000000000120010db8000b0000"
	"000000000000000104d2162e000d123468656c6c6f";

static const char ODT6_OUT[] =
	"60000000000d110520010db8000a0000000000000000000120010db8000b0000"
	"000000000000000104d2162e000d123468656c6c6f";

/* The copy's header: version 1, the kind, length 40, worker 3, the SID's
 * prefix length, flags, the timestamp, the lengths and the SID. */
#define HDR_FMT	"01%02x0028" "0003" "%02x%02x" "%s" "%08x%08x" "%s"
/* The batch's receipt, CLOCK_REALTIME: 2026-12-02 10:00:00.123456789. */
#define TS		1796205600123456789ull
#define TS_HEX		"18ED677A02ED0D15"

static struct config *cfg;
static struct runstate *rs;
static struct worker_stats ws;
static struct sid_stats sst[8];
static struct proc_ctx ctx;
static struct test_slot slot, slot2;
static struct oam_ring ring;
static uint8_t want[4096];

static const char CONF[] =
	"queue 0\n"
	"oam-copy unix /nonexistent/oam.sock\n"
	"%s"
	"sid fc00:1::/48 action End\n"
	"sid fc00:9::/48 action End.OP\n"
	"sid fc00:6::/48 action End.DT6 table 100\n";

static void use_config(const char *extra)
{
	char text[1024];

	snprintf(text, sizeof(text), CONF, extra);
	config_free(cfg);
	cfg = config_parse_buffer("t.conf", text, strlen(text), NULL, NULL);
	ck_assert_ptr_nonnull(cfg);
	runstate_free(rs);
	rs = runstate_new(cfg);
	ck_assert_ptr_nonnull(rs);
	ctx.cfg = cfg;
	ctx.rs = rs;
	ctx.oam = cfg->oam.on ? &ring : NULL;	/* as worker_run_batch() */
	ctx.oam_rl.last_ns = ctx.now_ns;
	ctx.oam_rl.tokens_milli = (uint64_t)cfg->oam.burst * 1000;
}

static void setup(void)
{
	cfg = NULL;
	rs = NULL;
	memset(&ws, 0, sizeof(ws));
	memset(sst, 0, sizeof(sst));
	memset(&ctx, 0, sizeof(ctx));
	memset(&ring, 0, sizeof(ring));
	ring.ts_ns = TS;	/* worker_run_batch()'s reading */
	ctx.stats = &ws;
	ctx.sid_stats = sst;
	ctx.worker = 3;
	ctx.now_ns = 5000000000ull;
	use_config("");
}

static void teardown(void)
{
	config_free(cfg);
	runstate_free(rs);
	cfg = NULL;
	rs = NULL;
}

static struct pkt *process(const char *hex)
{
	uint8_t buf[2048];
	size_t n = hex2bin(hex, buf, sizeof(buf));
	struct pkt *p = test_pkt(&slot, buf, n, ETH_P_IPV6);

	srv6_process(&ctx, p);
	return p;
}

/* Copy i of the ring is header(kind, plen, flags, orig, cap, sid) + the
 * first cap bytes of packet `pkt_hex`, stamped with the batch's time
 * (TS_HEX, ring.ts_ns): exact bytes. */
static void expect_copy(unsigned i, unsigned kind, unsigned plen,
			unsigned flags, unsigned orig, unsigned cap,
			const char *sid_hex, const char *pkt_hex)
{
	char hdr[256];
	uint8_t pk[2048];
	size_t hn, pn = hex2bin(pkt_hex, pk, sizeof(pk));
	uint32_t len;
	const uint8_t *c = oam_ring_copy(&ring, i, &len);

	ck_assert_uint_lt(i, ring.n);
	snprintf(hdr, sizeof(hdr), HDR_FMT, kind, plen, flags, TS_HEX, orig,
		 cap, sid_hex);
	hn = hex2bin(hdr, want, sizeof(want));
	ck_assert_uint_eq(hn, OAM_HDR_LEN);
	ck_assert_uint_le(cap, pn);
	memcpy(want + OAM_HDR_LEN, pk, cap);
	ck_assert_bytes(c, len, want, OAM_HDR_LEN + cap);
}

#define SID1	"fc000001000000000000000000000000"
#define SID9	"fc000009000000000000000000000000"
#define SID6	"fc000006000000000000000000000000"

/* ---- the O-flag ------------------------------------------------------- */

START_TEST(oflag_end_copied_original_forwarded)
{
	struct pkt *p = process(OEND_IN);

	test_pcap_write(p->data, p->len);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_int_eq(p->outcome, PKT_OUT_OK);
	ck_assert_bytes(p->data, p->len, want,
			hex2bin(OEND_OUT, want, sizeof(want)));
	ck_assert_uint_eq(sst[0].packets, 1);
	ck_assert_uint_eq(ring.n, 1);
	ck_assert_ptr_null(ring.punt[0]);
	expect_copy(0, OAM_KIND_COPY, 48, 0, 109, 109, SID1, OEND_IN);
	ck_assert_uint_eq(ws.oam_ratelimited, 0);
	ck_assert_uint_eq(sst[0].oam_copies, 1);	/* the SID's */
	ck_assert_uint_eq(sst[0].oam_uncopied, 0);
}
END_TEST

START_TEST(oflag_clear_no_copy)
{
	struct pkt *p = process(END_IN);

	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(ring.n, 0);
	ck_assert_uint_eq(ws.oam_ratelimited + ws.oam_send_errors, 0);
	ck_assert_uint_eq(sst[0].oam_copies + sst[0].oam_uncopied, 0);
}
END_TEST

/* Without oam-copy the O-flag is not processed (RFC 9259 2.1.1: "local
 * configuration permits"): as Linux, the packet is an End's and no more. */
START_TEST(oflag_without_oam_copy_ignored)
{
	static const char text[] = "queue 0\nsid fc00:1::/48 action End\n";
	struct pkt *p;

	config_free(cfg);
	cfg = config_parse_buffer("t.conf", text, strlen(text), NULL, NULL);
	ck_assert_ptr_nonnull(cfg);
	runstate_free(rs);
	rs = runstate_new(cfg);
	ctx.cfg = cfg;
	ctx.rs = rs;
	ctx.oam = cfg->oam.on ? &ring : NULL;
	ck_assert_ptr_null(ctx.oam);
	p = process(OEND_IN);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want,
			hex2bin(OEND_OUT, want, sizeof(want)));
	ck_assert_uint_eq(ring.n, 0);
}
END_TEST

/* The copy at another behavior: End.DT6's packet as received, before it
 * is decapsulated. */
START_TEST(oflag_dt6_copy_before_decap)
{
	struct pkt *p = process(ODT6_IN);

	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_bytes(p->data, p->len, want,
			hex2bin(ODT6_OUT, want, sizeof(want)));
	ck_assert_uint_eq(ring.n, 1);
	expect_copy(0, OAM_KIND_COPY, 48, 0, 117, 117, SID6, ODT6_IN);
}
END_TEST

/* A header queue's packet (kernel-end: only its first 100 bytes, its
 * IPv6 header, SRH and UDP header, reach srv6d,
 * orig_len the whole): the copy holds what came, says so (0x04, 0x01) and
 * gives the whole length; a super-packet's says 0x02. */
START_TEST(oflag_header_queue_and_gso)
{
	uint8_t buf[256];
	size_t n = hex2bin(OEND_IN, buf, sizeof(buf));
	struct pkt *p = test_pkt(&slot, buf, 100, ETH_P_IPV6);

	ck_assert_uint_eq(n, 109);
	p->truncated = true;
	p->orig_len = 109;
	srv6_process(&ctx, p);
	ck_assert_uint_eq(ring.n, 1);
	ck_assert_ptr_eq(ring.of[0], p);
	expect_copy(0, OAM_KIND_COPY, 48, OAM_F_HEADERS | OAM_F_CUT, 109, 100,
		    SID1, OEND_IN);
	/* bounced after all (reinject.h REINJECT_BOUNCE): its copy taken
	 * back, to be made when it comes whole; another packet's stays */
	oam_ring_unwind(&ring, &slot2.p);
	ck_assert_uint_eq(ring.n, 1);
	oam_ring_unwind(&ring, p);
	ck_assert_uint_eq(ring.n, 0);
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	p->gso = true;
	srv6_process(&ctx, p);
	ck_assert_uint_eq(ring.n, 1);
	expect_copy(0, OAM_KIND_COPY, 48, OAM_F_GSO, 109, 109, SID1, OEND_IN);
}
END_TEST

/* oam-copy-len 64: the first 64 bytes, the whole length said. */
START_TEST(oflag_copy_len_cuts)
{
	struct pkt *p;

	use_config("oam-copy-len 64\n");
	p = process(OEND_IN);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(ring.n, 1);
	expect_copy(0, OAM_KIND_COPY, 48, OAM_F_CUT, 109, 64, SID1, OEND_IN);
}
END_TEST

/* A flood above oam-rate: copies over the rate are not made and are
 * counted; every original goes on unchanged but for End's rewrite. */
START_TEST(oflag_flood_ratelimited)
{
	unsigned made = 0;

	use_config("oam-rate 10\noam-burst 3\n");
	for (unsigned i = 0; i < 20; i++) {
		struct pkt *p = process(OEND_IN);

		ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
		ck_assert_bytes(p->data, p->len, want,
				hex2bin(OEND_OUT, want, sizeof(want)));
		made = ring.n;
	}
	ck_assert_uint_eq(made, 3);			/* the burst */
	ck_assert_uint_eq(ws.oam_ratelimited, 17);
	ck_assert_uint_eq(sst[0].packets, 20);
	ck_assert_uint_eq(sst[0].errors, 0);
	ck_assert_uint_eq(sst[0].oam_copies, 3);
	ck_assert_uint_eq(sst[0].oam_uncopied, 17);
	/* 100 ms later: one more token (10/s) */
	ctx.now_ns += 100000000ull;
	process(OEND_IN);
	process(OEND_IN);
	ck_assert_uint_eq(ring.n, 4);
	ck_assert_uint_eq(ws.oam_ratelimited, 18);
}
END_TEST

/* oam-rate 0: no copy at all. */
START_TEST(oflag_rate_zero)
{
	use_config("oam-rate 0\n");
	process(OEND_IN);
	ck_assert_uint_eq(ring.n, 0);
	ck_assert_uint_eq(ws.oam_ratelimited, 1);
}
END_TEST

/* A full ring without a way to send it: the copy is lost, counted, the
 * original goes on. */
START_TEST(oflag_ring_full)
{
	struct pkt *p;

	use_config("oam-burst 100\n");
	ring.n = OAM_RING_SLOTS;
	p = process(OEND_IN);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);
	ck_assert_uint_eq(ring.n, OAM_RING_SLOTS);
	ck_assert_uint_eq(ws.oam_send_errors, 1);
	ck_assert_uint_eq(sst[0].oam_uncopied, 1);
	ck_assert_uint_eq(sst[0].oam_copies, 0);
}
END_TEST

/* ---- End.OP ----------------------------------------------------------- */

START_TEST(end_op_punted)
{
	struct pkt *p = process(OP_IN);
	enum drop_reason r = DROP_REINJECT;

	ck_assert_int_eq(p->verdict, PKT_PUNT);
	ck_assert_int_eq(p->outcome, PKT_OUT_OK);
	ck_assert_uint_eq(sst[1].packets, 1);
	ck_assert_uint_eq(sst[1].bytes, 93);
	ck_assert_uint_eq(ring.n, 1);	/* one copy: the punt, no O-flag's */
	ck_assert_ptr_eq(ring.punt[0], p);
	expect_copy(0, OAM_KIND_PUNT, 48, 0, 93, 93, SID9, OP_IN);
	ck_assert_int_eq(reinject_decide(cfg, rs, NULL, p, &r), REINJECT_PUNT);
	p->way.action = REINJECT_PUNT;
	reinject_count(p, &ws);
	ck_assert_uint_eq(ws.injected, 1);
	ck_assert_uint_eq(ws.dropped, 0);
}
END_TEST

/* Without the O-flag too: End.OP punts whatever reaches it. */
START_TEST(end_op_punts_without_oflag)
{
	uint8_t buf[256];
	size_t n = hex2bin(OP_IN, buf, sizeof(buf));
	struct pkt *p;

	buf[45] = 0;	/* the SRH's Flags */
	p = test_pkt(&slot, buf, n, ETH_P_IPV6);
	srv6_process(&ctx, p);
	ck_assert_int_eq(p->verdict, PKT_PUNT);
	ck_assert_uint_eq(ring.n, 1);
}
END_TEST

START_TEST(end_op_ratelimited_drop)
{
	struct pkt *p;

	use_config("oam-burst 1\n");
	p = process(OP_IN);
	ck_assert_int_eq(p->verdict, PKT_PUNT);
	p = process(OP_IN);
	ck_assert_int_eq(p->verdict, PKT_DROP);
	ck_assert_int_eq(p->reason, DROP_OAM_RATELIMITED);
	ck_assert_uint_eq(sst[1].packets, 1);
	ck_assert_uint_eq(sst[1].errors, 1);
	ck_assert_uint_eq(sst[1].drops[DROP_OAM_RATELIMITED], 1);
	ck_assert_uint_eq(ws.drops[DROP_OAM_RATELIMITED], 1);
	ck_assert_uint_eq(ws.oam_ratelimited, 1);
}
END_TEST

/* ---- the way out (oamsock.h) ----------------------------------------- */

static int bind_unix(char *path, size_t size)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(path, size, "/tmp/check_oam.%d.sock", (int)getpid());
	unlink(path);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

static void use_dest(const char *path)
{
	char extra[160];

	/* the config's own parse of `oam-copy unix PATH` */
	snprintf(extra, sizeof(extra), "queue 0\noam-copy unix %s\n"
		 "sid fc00:1::/48 action End\nsid fc00:9::/48 action End.OP\n",
		 path);
	config_free(cfg);
	cfg = config_parse_buffer("t.conf", extra, strlen(extra), NULL, NULL);
	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(cfg->oam.family, AF_UNIX);
	runstate_free(rs);
	rs = runstate_new(cfg);
	ctx.cfg = cfg;
	ctx.rs = rs;
	ctx.oam = &ring;
	ctx.oam_rl.tokens_milli = 100000;
}

START_TEST(flush_reaches_the_oam_process)
{
	char path[108];
	int fd = bind_unix(path, sizeof(path));
	struct oamsock *os = oamsock_new();
	const uint8_t *c;
	uint8_t got[4096];
	uint32_t len;
	ssize_t n;

	use_dest(path);
	process(OEND_IN);
	process(OP_IN);
	ck_assert_uint_eq(ring.n, 2);
	c = oam_ring_copy(&ring, 0, &len);
	memcpy(want, c, len);
	oamsock_flush(os, &ring, &cfg->oam, &ws);
	ck_assert_uint_eq(ring.n, 0);
	ck_assert_uint_eq(ws.oam_sent, 2);
	ck_assert_uint_eq(ws.oam_send_errors, 0);
	n = recv(fd, got, sizeof(got), MSG_DONTWAIT);
	ck_assert_int_eq(n, OAM_HDR_LEN + 109);
	ck_assert_bytes(got, (size_t)n, want, len);
	n = recv(fd, got, sizeof(got), MSG_DONTWAIT);
	ck_assert_int_eq(n, OAM_HDR_LEN + 93);
	ck_assert_uint_eq(got[1], OAM_KIND_PUNT);
	ck_assert_int_lt(recv(fd, got, sizeof(got), MSG_DONTWAIT), 0);
	oamsock_free(os);
	close(fd);
	unlink(path);
}
END_TEST

/* oam_ring_hold(): O-flag copies wait for the next batch's, each with
 * its own batch's timestamp, and leave in one sendmmsg(); an End.OP punt
 * is never held; OAM_HOLD_NS after the first, or OAM_HOLD_MAX copies, the
 * ring goes; a held copy is no longer of a packet of the next batch. */
START_TEST(flush_held_copies)
{
	char path[108];
	int fd = bind_unix(path, sizeof(path));
	struct oamsock *os = oamsock_new();
	const uint64_t t = 7000000000ull;
	struct pkt *p;
	uint8_t got[4096];
	ssize_t n;

	use_dest(path);
	ring.ts_ns = 0x1111;
	p = process(OEND_IN);
	ck_assert_uint_eq(ring.n, 1);
	ck_assert(oam_ring_hold(&ring, t));
	ck_assert_ptr_null(ring.of[0]);
	oam_ring_unwind(&ring, p);		/* not p's any more */
	ck_assert_uint_eq(ring.n, 1);
	ring.ts_ns = 0x2222;
	process(OEND_IN);
	ck_assert(oam_ring_hold(&ring, t + OAM_HOLD_NS - 1));
	ck_assert_uint_eq(ring.n, 2);
	ck_assert_int_lt(recv(fd, got, sizeof(got), MSG_DONTWAIT), 0);
	ck_assert(!oam_ring_hold(&ring, t + OAM_HOLD_NS));
	oamsock_flush(os, &ring, &cfg->oam, &ws);
	ck_assert_uint_eq(ring.n, 0);
	ck_assert_uint_eq(ring.held_since_ns, 0);
	ck_assert_uint_eq(ws.oam_sent, 2);
	for (unsigned i = 0; i < 2; i++) {
		struct oam_copy_hdr h;

		n = recv(fd, got, sizeof(got), MSG_DONTWAIT);
		ck_assert_int_eq(n, OAM_HDR_LEN + 109);
		memcpy(&h, got, sizeof(h));
		ck_assert_uint_eq(be64toh(h.ts_ns), i ? 0x2222 : 0x1111);
	}
	ck_assert_int_lt(recv(fd, got, sizeof(got), MSG_DONTWAIT), 0);

	/* a punt among them: sent now */
	process(OEND_IN);
	process(OP_IN);
	ck_assert_uint_eq(ring.n, 2);
	ck_assert(!oam_ring_hold(&ring, t));
	oamsock_flush(os, &ring, &cfg->oam, &ws);
	ck_assert_uint_eq(ws.oam_sent, 4);
	while (recv(fd, got, sizeof(got), MSG_DONTWAIT) > 0)
		;

	/* OAM_HOLD_MAX copies: sent now */
	for (unsigned i = 0; i < OAM_HOLD_MAX; i++) {
		ctx.oam_rl.tokens_milli = 100000;
		process(OEND_IN);
	}
	ck_assert_uint_eq(ring.n, OAM_HOLD_MAX);
	ck_assert(!oam_ring_hold(&ring, t));
	oamsock_flush(os, &ring, &cfg->oam, &ws);
	ck_assert_uint_eq(ws.oam_sent, 4 + OAM_HOLD_MAX);
	oamsock_free(os);
	close(fd);
	unlink(path);
}
END_TEST

/* The worker's socket is connected (oamsock.h): an OAM process restarted
 * at the same path is another socket, reached from the batch after the
 * one that found the old gone (that one lost, counted); one started after
 * srv6d likewise. */
START_TEST(flush_restarted_receiver)
{
	char path[108];
	int fd = bind_unix(path, sizeof(path));
	struct oamsock *os = oamsock_new();
	uint8_t got[4096];

	use_dest(path);
	process(OEND_IN);
	oamsock_flush(os, &ring, &cfg->oam, &ws);
	ck_assert_uint_eq(ws.oam_sent, 1);
	ck_assert_int_eq(recv(fd, got, sizeof(got), MSG_DONTWAIT),
			 OAM_HDR_LEN + 109);
	close(fd);
	fd = bind_unix(path, sizeof(path));	/* restarted */
	process(OEND_IN);
	oamsock_flush(os, &ring, &cfg->oam, &ws);
	ck_assert_uint_eq(ws.oam_sent + ws.oam_send_errors, 2);
	if (ws.oam_sent == 1) {		/* the old one's batch: lost */
		process(OEND_IN);
		oamsock_flush(os, &ring, &cfg->oam, &ws);
		ck_assert_uint_eq(ws.oam_send_errors, 1);
	}
	ck_assert_uint_eq(ws.oam_sent, 2);
	ck_assert_int_eq(recv(fd, got, sizeof(got), MSG_DONTWAIT),
			 OAM_HDR_LEN + 109);
	ck_assert_int_lt(recv(fd, got, sizeof(got), MSG_DONTWAIT), 0);
	/* started after: no socket at the path, then one */
	close(fd);
	unlink(path);
	process(OEND_IN);
	oamsock_flush(os, &ring, &cfg->oam, &ws);
	ck_assert_uint_eq(ws.oam_sent, 2);
	fd = bind_unix(path, sizeof(path));
	process(OEND_IN);
	oamsock_flush(os, &ring, &cfg->oam, &ws);
	ck_assert_uint_eq(ws.oam_sent, 3);
	ck_assert_int_eq(recv(fd, got, sizeof(got), MSG_DONTWAIT),
			 OAM_HDR_LEN + 109);
	oamsock_free(os);
	close(fd);
	unlink(path);
}
END_TEST

/* No OAM process: the copies are lost and counted; the O-flag packet is
 * forwarded all the same, End.OP's is a drop for oam_send on its SID. */
START_TEST(flush_without_receiver)
{
	char path[108];
	int fd = bind_unix(path, sizeof(path));
	struct oamsock *os = oamsock_new();
	struct pkt *op;
	uint8_t buf[256];
	size_t n;

	close(fd);
	unlink(path);		/* nobody reads there */
	use_dest(path);
	process(OEND_IN);
	ck_assert_int_eq(slot.p.verdict, PKT_NEW_BYTES);
	n = hex2bin(OP_IN, buf, sizeof(buf));
	op = test_pkt(&slot2, buf, n, ETH_P_IPV6);
	srv6_process(&ctx, op);
	ck_assert_int_eq(op->verdict, PKT_PUNT);
	op->way = (struct pkt_way){ .action = REINJECT_PUNT };
	oamsock_flush(os, &ring, &cfg->oam, &ws);
	ck_assert_uint_eq(ws.oam_sent, 0);
	ck_assert_uint_eq(ws.oam_send_errors, 2);
	ck_assert(op->way.failed);
	ck_assert_uint_eq(op->way.reason, DROP_OAM_SEND);
	reinject_count(op, &ws);
	ck_assert_uint_eq(ws.dropped, 1);
	ck_assert_uint_eq(ws.drops[DROP_OAM_SEND], 1);
	ck_assert_uint_eq(sst[1].packets, 0);
	ck_assert_uint_eq(sst[1].errors, 1);
	ck_assert_uint_eq(sst[1].drops[DROP_OAM_SEND], 1);
	oamsock_free(os);
}
END_TEST

/* ---- the config ------------------------------------------------------- */

static char errbuf[1024];

static void collect(void *arg, const char *file, unsigned line,
		    const char *msg)
{
	(void)arg;
	snprintf(errbuf + strlen(errbuf), sizeof(errbuf) - strlen(errbuf),
		 "%s:%u: %s\n", file, line, msg);
}

static struct config *parse(const char *text)
{
	errbuf[0] = 0;
	return config_parse_buffer("t.conf", text, strlen(text), collect, NULL);
}

START_TEST(config_oam)
{
	struct config *c = parse("queue 0\noam-copy udp [::1]:4790\n"
				 "oam-rate 5\noam-burst 7\noam-copy-len 128\n");

	ck_assert_ptr_nonnull(c);
	ck_assert(c->oam.on);
	ck_assert_int_eq(c->oam.family, AF_INET6);
	ck_assert_uint_eq(ntohs(c->oam.dest.in6.sin6_port), 4790);
	ck_assert_uint_eq(c->oam.dest_len, sizeof(struct sockaddr_in6));
	ck_assert_uint_eq(c->oam.rate, 5);
	ck_assert_uint_eq(c->oam.burst, 7);
	ck_assert_uint_eq(c->oam.copy_len, 128);
	config_free(c);
	c = parse("queue 0\noam-copy udp 127.0.0.1:9\n");
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->oam.family, AF_INET);
	ck_assert_uint_eq(c->oam.rate, CONFIG_DEFAULT_OAM_RATE);
	ck_assert_uint_eq(c->oam.copy_len, CONFIG_DEFAULT_OAM_COPY_LEN);
	config_free(c);
	c = parse("queue 0\n");
	ck_assert(!c->oam.on);
	config_free(c);
}
END_TEST

START_TEST(config_oam_errors)
{
	ck_assert_ptr_null(parse("queue 0\nsid fc00:9::/48 action End.OP\n"));
	ck_assert_str_eq(errbuf, "t.conf:2: sid: End.OP needs 'oam-copy' "
			 "(where its packets go)\n");
	ck_assert_ptr_null(parse("queue 0\noam-copy tcp x\n"));
	ck_assert_str_eq(errbuf, "t.conf:2: oam-copy: expected 'unix' or "
			 "'udp', found 'tcp'\n");
	ck_assert_ptr_null(parse("queue 0\noam-copy unix oam.sock\n"));
	ck_assert_ptr_nonnull(strstr(errbuf, "not an absolute path"));
	ck_assert_ptr_null(parse("queue 0\noam-copy udp ::1:4790\n"));
	ck_assert_ptr_nonnull(strstr(errbuf, "expected 'udp ADDRESS:PORT'"));
	ck_assert_ptr_null(parse("queue 0\noam-copy udp [::1]:0\n"));
	ck_assert_ptr_null(parse("queue 0\noam-copy unix /a\noam-copy-len 39\n"));
	ck_assert_ptr_null(parse("queue 0\noam-copy unix /a\noam-copy-len 2049\n"));
	ck_assert_ptr_null(parse("queue 0\noam-copy unix /a\noam-burst 0\n"));
	ck_assert_ptr_null(parse("queue 0\noam-copy unix /a\n"
				 "sid fc00:9::/48 action End.OP flavors psp\n"));
}
END_TEST

static Suite *oam_suite(void)
{
	Suite *s = suite_create("oam");
	TCase *tc = tcase_create("oam");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, oflag_end_copied_original_forwarded);
	tcase_add_test(tc, oflag_clear_no_copy);
	tcase_add_test(tc, oflag_without_oam_copy_ignored);
	tcase_add_test(tc, oflag_dt6_copy_before_decap);
	tcase_add_test(tc, oflag_copy_len_cuts);
	tcase_add_test(tc, oflag_header_queue_and_gso);
	tcase_add_test(tc, oflag_flood_ratelimited);
	tcase_add_test(tc, oflag_rate_zero);
	tcase_add_test(tc, oflag_ring_full);
	tcase_add_test(tc, end_op_punted);
	tcase_add_test(tc, end_op_punts_without_oflag);
	tcase_add_test(tc, end_op_ratelimited_drop);
	tcase_add_test(tc, flush_reaches_the_oam_process);
	tcase_add_test(tc, flush_without_receiver);
	tcase_add_test(tc, flush_restarted_receiver);
	tcase_add_test(tc, flush_held_copies);
	tcase_add_test(tc, config_oam);
	tcase_add_test(tc, config_oam_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(oam_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
