/* behavior-cost.c - the packet path's cost per packet for each SID behavior,
 * against End's in the same run (issue 22's goal: a new behavior within
 * 1.2x of End).
 *
 *   behavior-cost [ITERATIONS [ROUNDS [MATCH]]]  (defaults 200000, 7, all)
 *
 * MATCH: only the rows whose label contains it, or, as =LABEL, the row of
 * that label (End's and the put-back's
 * always run), e.g. for perf record.
 *
 * One config (conf below, parsed as srv6d parses its file) holds a SID
 * for each row of `rows`; each row builds its packet once.  A round runs
 * every row ITERATIONS times: the packet's bytes are put back into a slot
 * with headroom (what the worker's receive does), then srv6_process()
 * runs on it, as the worker calls it.  The rounds interleave the rows, so
 * a noisy neighbour slows them alike; the figure is each row's median
 * over the rounds, less the `reset` row's (the put-back alone), and the
 * ratio is to End's figure of the same run.
 *
 * What is not in the figure: the route mirror's checks (ctx.mirror is
 * NULL: no next-hop or table lookup, for End as for the others), the
 * verdict and the kernel's work.  The figure is userspace CPU per packet
 * of the behavior itself; bench/end-rate.sh measures the whole path.
 *
 * Each row says what its packet must come to (verdict and the SID's
 * counter): a row whose packet is dropped aborts the bench, so it cannot
 * time an error path by mistake.
 *
 * RFC 9259 (src/srv6/oam.h): the rows marked `oam` run with `oam-copy` on
 * (ctx->oam, as the worker sets it): End with the O-flag clear, End with
 * it set (a copy of its first oam-copy-len bytes made into the ring) and
 * End.OP (its punt).  The ring is emptied when full, unsent; what its
 * send costs (one sendmmsg() of 64 copies to a UDP socket on ::1, what
 * the worker does per batch) is timed apart and shown per copy, and the
 * copying rows' figure with it.
 *
 * Adding a behavior: its sid line in conf, a row with a builder (the
 * helpers below build IPv6 + SRH + inner packets), the expected verdict.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "behavior_proxy.h"
#include <sys/socket.h>
#include <unistd.h>

#include "benchutil.h"
#include "config.h"
#include "oam.h"
#include "oamsock.h"
#include "pkt.h"
#include "process.h"
#include "runstate.h"

/* %u: the UDP port of the OAM process (oam_receiver()). */
static const char conf_fmt[] =
	"queue 0\n"
	"oam-copy udp [::1]:%u\n"
	"oam-rate 1000000\n"
	"oam-burst 1000000\n"
	"sid fc00:1::9/128 action End.OP\n"
	"sid fc00:1::1/128 action End\n"
	"sid fc00:1::2/128 action End flavors psp\n"
	"sid fc00:1::3/128 action End.X nh6 fc00:3::2\n"
	"sid fc00:1::4/128 action End.T table 100\n"
	"sid fc00:1::5/128 action End.MAP nh6 fc00:9::d6\n"
	"sid fc00:0:100::/48 action End flavors next-csid lblen 32 nflen 16\n"
	"sid fc00:a:0:0:101::/80 action End flavors replace-csid lblen 48 nflen 32\n"
	"sid fc00:6::1/128 action End.DX6 nh6 fc00:3::2\n"
	"sid fc00:6::3/128 action End.DT6 table 100\n"
	"sid fc00:6::4/128 action End.DT4 table 100\n"
	"sid fc00:6::8/128 action End.B6.Encaps srh segs fc00:9::1,fc00:9::2\n"
	"route 2001:db8:100::/48 encap seg6 mode encap segs fc00:9::1,fc00:9::2\n"
	/* H.M.GTP4.D (RFC 9433 6.7): the second policy */
	"route 10.9.9.0/24 encap gtp4 mob-prefix fc00:25::/32 src-prefix fc00:26::/64 segs fc00:9::1\n"
	/* RFC 9433 (src/srv6/mobile.h) */
	"sid fc00:20::/64 action End.M.GTP6.D mob-prefix fc00:21::/64 srh segs fc00:9::1\n"
	"sid fc00:24::/64 action End.M.GTP6.Di mob-prefix fc00:21::/64 srh segs fc00:9::1\n"
	"sid fc00:22::/64 action End.M.GTP6.E\n"
	"sid fc00:23::/32 action End.M.GTP4.E v4src-position 64\n"
	/* SR proxies: px41 is ifindex 41 ... (setup()) */
	"sid fc00:a1::1/128 action End.AS nh6 fc00:3::2 oif px40 iif px41 source fc00:7::2 segs fc00:9::1,fc00:9::2\n"
	"sid fc00:a1::2/128 action End.AD nh6 fc00:3::2 oif px40 iif px42\n"
	"sid fc00:a1::3/128 action End.AM nh6 fc00:3::2 oif px40 iif px43\n";

/* ---- packet builders ----------------------------------------------- */

#define PKT_MAX	2048

static void put_addr(uint8_t *at, const char *text)
{
	if (inet_pton(AF_INET6, text, at) != 1) {
		fprintf(stderr, "behavior-cost: bad address %s\n", text);
		exit(1);
	}
}

/* An IPv6 header at b: next header nh, payload length plen. */
static void ipv6_hdr(uint8_t *b, uint8_t nh, size_t plen, const char *src,
		     const char *dst)
{
	memset(b, 0, 40);
	b[0] = 0x60;
	b[4] = (uint8_t)(plen >> 8);
	b[5] = (uint8_t)plen;
	b[6] = nh;
	b[7] = 64;
	put_addr(b + 8, src);
	put_addr(b + 24, dst);
}

/* A TCP segment of `payload` bytes (ports and flags only: srv6d does not
 * read more of it). */
static size_t tcp_seg(uint8_t *b, size_t payload)
{
	memset(b, 0, 20 + payload);
	b[0] = 0x9c; b[1] = 0x40; b[2] = 0x14; b[3] = 0x51;
	b[12] = 0x50;
	b[13] = 0x10;
	return 20 + payload;
}

/* An inner IPv6/TCP packet of `payload` bytes at b; its length. */
static size_t inner6(uint8_t *b, size_t payload)
{
	size_t n = tcp_seg(b + 40, payload);

	ipv6_hdr(b, IPPROTO_TCP, n, "2001:db8:1::2", "2001:db8:100::2");
	return 40 + n;
}

/* An inner IPv4/TCP packet (header checksum left 0: srv6d's decap does
 * not verify it). */
static size_t inner4(uint8_t *b, size_t payload)
{
	size_t n = 20 + tcp_seg(b + 20, payload);

	memset(b, 0, 20);
	b[0] = 0x45;
	b[2] = (uint8_t)(n >> 8);
	b[3] = (uint8_t)n;
	b[8] = 64;
	b[9] = IPPROTO_TCP;
	b[12] = 10; b[15] = 2;
	b[16] = 10; b[17] = 9; b[19] = 2;
	return n;
}

/* IPv6 + SRH (segs[0] is Segment List[0], the last segment; DA is
 * segs[sl]) + the inner packet made by `inner` (next header nh). */
static size_t srv6(uint8_t *b, const char *const *segs, unsigned nsegs,
		   unsigned sl, uint8_t nh,
		   size_t (*inner)(uint8_t *, size_t), size_t payload)
{
	uint8_t *srh = b + 40;
	size_t srh_len = 8 + 16 * (size_t)nsegs, n;

	memset(srh, 0, 8);
	srh[0] = nh;
	srh[1] = (uint8_t)(2 * nsegs);
	srh[2] = 4;
	srh[3] = (uint8_t)sl;
	srh[4] = (uint8_t)(nsegs - 1);
	for (unsigned i = 0; i < nsegs; i++)
		put_addr(srh + 8 + 16 * i, segs[i]);
	n = inner(srh + srh_len, payload);
	ipv6_hdr(b, IPPROTO_ROUTING, srh_len + n, "fc00:7::1", segs[sl]);
	return 40 + srh_len + n;
}

#define PAYLOAD	1000	/* inner TCP payload: a full-size packet */

static size_t b_end(uint8_t *b)
{
	static const char *const s[] = { "fc00:9::1", "fc00:1::1" };

	return srv6(b, s, 2, 1, IPPROTO_IPV6, inner6, PAYLOAD);
}

/* End's packet with the O-flag (RFC 9259 2.1: Flags 0x20). */
static size_t b_end_oflag(uint8_t *b)
{
	size_t n = b_end(b);

	b[40 + 5] = SRH_FLAG_OAM;
	return n;
}

static size_t b_end_op(uint8_t *b)
{
	static const char *const s[] = { "fc00:9::1", "fc00:1::9" };
	size_t n = srv6(b, s, 2, 1, IPPROTO_IPV6, inner6, PAYLOAD);

	b[40 + 5] = SRH_FLAG_OAM;
	return n;
}

static size_t b_end_psp(uint8_t *b)
{
	static const char *const s[] = { "fc00:9::1", "fc00:1::2" };

	return srv6(b, s, 2, 1, IPPROTO_IPV6, inner6, PAYLOAD);
}

static size_t b_end_x(uint8_t *b)
{
	static const char *const s[] = { "fc00:9::1", "fc00:1::3" };

	return srv6(b, s, 2, 1, IPPROTO_IPV6, inner6, PAYLOAD);
}

static size_t b_end_t(uint8_t *b)
{
	static const char *const s[] = { "fc00:9::1", "fc00:1::4" };

	return srv6(b, s, 2, 1, IPPROTO_IPV6, inner6, PAYLOAD);
}

/* End.MAP (RFC 9433 6.2): End's packet, its DA mapped. */
static size_t b_end_map(uint8_t *b)
{
	static const char *const s[] = { "fc00:9::1", "fc00:1::5" };

	return srv6(b, s, 2, 1, IPPROTO_IPV6, inner6, PAYLOAD);
}

/* NEXT-C-SID: the DA's next C-SID is taken (no SRH needed: SL 0). */
static size_t b_next_csid(uint8_t *b)
{
	size_t n = inner6(b + 40, PAYLOAD);

	ipv6_hdr(b, IPPROTO_IPV6, n, "fc00:7::1", "fc00:0:100:200:300::");
	return 40 + n;
}

/* REPLACE-C-SID (RFC 9800 4.2), tests/rcsid-vectors.py's RCSID_IN: 32-bit
 * C-SIDs, Segment List[1] a container of four, DA.Arg.Index 3: the next
 * C-SID of the same container. */
static size_t b_replace_csid(uint8_t *b)
{
	static const char *const s[] = { "0:0:0:202:0:201:0:200",
					 "0:104:0:103:0:102:0:101" };
	size_t n = srv6(b, s, 2, 1, IPPROTO_IPV6, inner6, PAYLOAD);

	put_addr(b + 24, "fc00:a:0:0:101::3");
	return n;
}

static size_t b_dx6(uint8_t *b)
{
	static const char *const s[] = { "fc00:6::1" };

	return srv6(b, s, 1, 0, IPPROTO_IPV6, inner6, PAYLOAD);
}

static size_t b_dt6(uint8_t *b)
{
	static const char *const s[] = { "fc00:6::3" };

	return srv6(b, s, 1, 0, IPPROTO_IPV6, inner6, PAYLOAD);
}

static size_t b_dt4(uint8_t *b)
{
	static const char *const s[] = { "fc00:6::4" };

	return srv6(b, s, 1, 0, IPPROTO_IPIP, inner4, PAYLOAD);
}

static size_t b_b6_encaps(uint8_t *b)
{
	static const char *const s[] = { "fc00:9::1", "fc00:6::8" };

	return srv6(b, s, 2, 1, IPPROTO_IPV6, inner6, PAYLOAD);
}

/* IPv6/UDP/GTP-U (a G-PDU of TEID 200, 8 bytes) around the packet
 * `inner` makes, to dst: End.M.GTP6.D's input. */
static size_t gtpu6(uint8_t *b, const char *dst,
		    size_t (*inner)(uint8_t *, size_t))
{
	size_t n = inner(b + 56, PAYLOAD), u = 16 + n;
	uint8_t *g = b + 48;

	ipv6_hdr(b, IPPROTO_UDP, u, "fc00:7::1", dst);
	memset(b + 40, 0, 16);
	b[40] = b[42] = 0x08;		/* ports 2152 */
	b[41] = b[43] = 0x68;
	b[44] = (uint8_t)(u >> 8);
	b[45] = (uint8_t)u;
	g[0] = 0x30;			/* version 1, GTP */
	g[1] = 0xff;			/* G-PDU */
	g[2] = (uint8_t)(n >> 8);
	g[3] = (uint8_t)n;
	g[7] = 200;
	return 56 + n;
}

static size_t b_gtp6_d(uint8_t *b)
{
	return gtpu6(b, "fc00:20::1", inner6);
}

static size_t b_gtp6_di(uint8_t *b)
{
	return gtpu6(b, "fc00:24::1", inner6);
}

/* SRH (the gNB fc00:9::1), SL 1, to the SID with QFI 5, R, TEID
 * bbbbbbbb: End.M.GTP6.E's input. */
static size_t b_gtp6_e(uint8_t *b)
{
	static const char *const s[] = { "fc00:9::1",
					 "fc00:22::16bb:bbbb:bb00:0" };

	return srv6(b, s, 2, 1, IPPROTO_IPV6, inner6, PAYLOAD);
}

/* IPv4/UDP/GTP-U (a G-PDU of TEID 200) around an inner IPv6/TCP packet,
 * from 10.0.0.2 to 10.9.9.1: H.M.GTP4.D's input (IPv4 header checksum
 * left 0: srv6d does not verify it). */
static size_t b_gtp4_d(uint8_t *b)
{
	size_t n = inner6(b + 36, PAYLOAD), u = 16 + n;
	uint8_t *g = b + 28;

	memset(b, 0, 36);
	b[0] = 0x45;
	b[2] = (uint8_t)((20 + u) >> 8);
	b[3] = (uint8_t)(20 + u);
	b[8] = 64;
	b[9] = IPPROTO_UDP;
	b[12] = 10; b[15] = 2;
	b[16] = 10; b[17] = 9; b[18] = 9; b[19] = 1;
	b[20] = b[22] = 0x08;		/* ports 2152 */
	b[21] = b[23] = 0x68;
	b[24] = (uint8_t)(u >> 8);
	b[25] = (uint8_t)u;
	g[0] = 0x30;			/* version 1, GTP */
	g[1] = 0xff;			/* G-PDU */
	g[2] = (uint8_t)(n >> 8);
	g[3] = (uint8_t)n;
	g[7] = 200;
	return 36 + n;
}

/* SR proxies toward the service: End.AS, End.AD (SL 1 -> 0), End.AM
 * (SL 1, DA = Segment List[0]). */
static size_t b_as(uint8_t *b)
{
	static const char *const s[] = { "fc00:9::1", "fc00:a1::1" };

	return srv6(b, s, 2, 1, IPPROTO_IPV6, inner6, PAYLOAD);
}

/* The SID with IPv4 DA 10.0.1.2, QFI 4, TEID bbbbbbbb, SL 0. */
static size_t b_gtp4_e(uint8_t *b)
{
	static const char *const s[] = { "fc00:23:a00:102:11bb:bbbb:bb00:0" };

	return srv6(b, s, 1, 0, IPPROTO_IPV6, inner6, PAYLOAD);
}

static size_t b_ad(uint8_t *b)
{
	static const char *const s[] = { "fc00:9::1", "fc00:a1::2" };

	return srv6(b, s, 2, 1, IPPROTO_IPV6, inner6, PAYLOAD);
}

static size_t b_am(uint8_t *b)
{
	static const char *const s[] = { "fc00:9::1", "fc00:a1::3" };

	return srv6(b, s, 2, 1, IPPROTO_TCP, tcp_seg, PAYLOAD);
}

/* Back from the service: the inner packet (End.AS, End.AD push their
 * headers), End.AM's packet with DA = Segment List[0] (SL 1 -> 0). */
static size_t b_back(uint8_t *b)
{
	return inner6(b, PAYLOAD);
}

static size_t b_am_back(uint8_t *b)
{
	static const char *const s[] = { "fc00:9::1", "fc00:a1::3" };
	size_t n = srv6(b, s, 2, 1, IPPROTO_TCP, tcp_seg, PAYLOAD);

	put_addr(b + 24, "fc00:9::1");
	return n;
}

/* A plain IPv6 packet to a steered prefix: H.Encaps. */
static size_t b_h_encaps(uint8_t *b)
{
	return inner6(b, PAYLOAD);
}

/* ---- rows ------------------------------------------------------------ */

struct row {
	const char *label;
	size_t (*build)(uint8_t *b);
	uint16_t hook;			/* ETH_P_IPV6 / ETH_P_IP */
	const char *sid;		/* counted by this SID (NULL: the first
					 * policy, "policy N": policy N) */
	enum pkt_verdict verdict;	/* what the packet must come to */
};

static struct row rows[] = {
	{ "reset (put-back only)", b_end, ETH_P_IPV6, NULL, PKT_ACCEPT },
	{ "End", b_end, ETH_P_IPV6, "fc00:1::1", PKT_NEW_BYTES },
	{ "End psp", b_end_psp, ETH_P_IPV6, "fc00:1::2", PKT_NEW_BYTES },
	{ "End.X", b_end_x, ETH_P_IPV6, "fc00:1::3", PKT_NEW_BYTES },
	{ "End.T", b_end_t, ETH_P_IPV6, "fc00:1::4", PKT_NEW_BYTES },
	{ "End.MAP", b_end_map, ETH_P_IPV6, "fc00:1::5", PKT_NEW_BYTES },
	{ "End next-csid", b_next_csid, ETH_P_IPV6, "fc00:0:100::",
	  PKT_NEW_BYTES },
	{ "End replace-csid", b_replace_csid, ETH_P_IPV6, "fc00:a::101:0:0:0",
	  PKT_NEW_BYTES },
	{ "End.DX6", b_dx6, ETH_P_IPV6, "fc00:6::1", PKT_NEW_BYTES },
	{ "End.DT6", b_dt6, ETH_P_IPV6, "fc00:6::3", PKT_NEW_BYTES },
	{ "End.DT4", b_dt4, ETH_P_IPV6, "fc00:6::4", PKT_NEW_BYTES },
	{ "End.B6.Encaps", b_b6_encaps, ETH_P_IPV6, "fc00:6::8",
	  PKT_NEW_BYTES },
	{ "H.Encaps (route)", b_h_encaps, ETH_P_IPV6, NULL, PKT_NEW_BYTES },
	{ "End.M.GTP6.D", b_gtp6_d, ETH_P_IPV6, "fc00:20::", PKT_NEW_BYTES },
	{ "End.M.GTP6.Di", b_gtp6_di, ETH_P_IPV6, "fc00:24::",
	  PKT_NEW_BYTES },
	{ "End.M.GTP6.E", b_gtp6_e, ETH_P_IPV6, "fc00:22::", PKT_NEW_BYTES },
	{ "End.M.GTP4.E", b_gtp4_e, ETH_P_IPV6, "fc00:23::", PKT_NEW_BYTES },
	{ "H.M.GTP4.D (route)", b_gtp4_d, ETH_P_IP, "policy 1", PKT_NEW_BYTES },
	{ "End.AS to service", b_as, ETH_P_IPV6, "fc00:a1::1", PKT_NEW_BYTES },
	{ "End.AS back", b_back, ETH_P_IPV6, "fc00:a1::1", PKT_NEW_BYTES },
	{ "End.AD to service", b_ad, ETH_P_IPV6, "fc00:a1::2", PKT_NEW_BYTES },
	{ "End.AD back", b_back, ETH_P_IPV6, "fc00:a1::2", PKT_NEW_BYTES },
	{ "End.AM to service", b_am, ETH_P_IPV6, "fc00:a1::3", PKT_NEW_BYTES },
	{ "End.AM back", b_am_back, ETH_P_IPV6, "fc00:a1::3", PKT_NEW_BYTES },
	{ "End oam-copy, O clear", b_end, ETH_P_IPV6, "fc00:1::1",
	  PKT_NEW_BYTES },
	{ "End O-flag (copy)", b_end_oflag, ETH_P_IPV6, "fc00:1::1",
	  PKT_NEW_BYTES },
	{ "End.OP (punt)", b_end_op, ETH_P_IPV6, "fc00:1::9", PKT_PUNT },
	{ "End O-flag, over rate", b_end_oflag, ETH_P_IPV6, "fc00:1::1",
	  PKT_NEW_BYTES },
};

/* The rows whose packet comes in on an SR proxy's iif (the service's
 * way back), by label: that interface. */
static const struct {
	const char *label;
	uint32_t indev;
} row_indevs[] = {
	{ "End.AS back", 41 },
	{ "End.AD back", 42 },
	{ "End.AM back", 43 },
};

static uint32_t row_indev(const struct row *r)
{
	for (size_t i = 0; i < sizeof(row_indevs) / sizeof(row_indevs[0]); i++)
		if (!strcmp(r->label, row_indevs[i].label))
			return row_indevs[i].indev;
	return 0;
}

/* The rows run with oam-copy on (ctx->oam), by label: those whose every
 * packet makes a copy, and the one whose every copy is over the rate
 * (the bucket empty: the cost of an O-flag flood's packet). */
enum { OAM_OFF, OAM_ON, OAM_COPIES, OAM_LIMITED };
static const struct {
	const char *label;
	unsigned how;
} oam_rows[] = {
	{ "End oam-copy, O clear", OAM_ON },
	{ "End O-flag (copy)", OAM_COPIES },
	{ "End.OP (punt)", OAM_COPIES },
	{ "End O-flag, over rate", OAM_LIMITED },
};

static unsigned row_oam(const struct row *r)
{
	for (size_t i = 0; i < sizeof(oam_rows) / sizeof(oam_rows[0]); i++)
		if (!strcmp(r->label, oam_rows[i].label))
			return oam_rows[i].how;
	return OAM_OFF;
}
#define NROWS	(sizeof(rows) / sizeof(rows[0]))

/* Each row's packet and its figure per round. */
static struct {
	uint8_t bytes[PKT_MAX];
	size_t len;
	uint32_t indev;		/* row_indev() */
	double ns[64];
} run[NROWS];

/* ---- the run ------------------------------------------------------- */

static struct config *cfg;
static struct runstate *rs;
static struct worker_stats ws;
static struct sid_stats *sid_st, *pol_st;
static struct proc_ctx ctx;
static uint8_t slot[PKT_HEADROOM + PKT_MAX];
static struct oam_ring oam_ring;
static int oam_rx = -1;		/* the OAM process's socket */
static unsigned oam_port;

/* The OAM process: a UDP socket on [::1], its port in oam_port. */
static void oam_receiver(void)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6,
				  .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	socklen_t len = sizeof(a);
	int big = 64 << 20;

	oam_rx = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (oam_rx < 0 || bind(oam_rx, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(oam_rx, (struct sockaddr *)&a, &len) < 0) {
		perror("behavior-cost: the OAM receiver");
		exit(1);
	}
	(void)setsockopt(oam_rx, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	oam_port = ntohs(a.sin6_port);
}

static void oam_drain(void)
{
	static uint8_t buf[4096];

	while (recv(oam_rx, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

static void config_error(void *arg, const char *file, unsigned line,
			 const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s:%u: %s\n", file, line, msg);
}

static void setup(void)
{
	char conf[sizeof(conf_fmt) + 16];
	int len;

	oam_receiver();
	len = snprintf(conf, sizeof(conf), conf_fmt, oam_port);
	cfg = config_parse_buffer("behavior-cost.conf", conf, (size_t)len,
				  config_error, NULL);
	if (!cfg)
		exit(1);
	rs = runstate_new(cfg);
	sid_st = calloc(cfg->nsids, sizeof(*sid_st));
	pol_st = calloc(cfg->npolicies ? cfg->npolicies : 1, sizeof(*pol_st));
	if (!rs || !sid_st || !pol_st)
		exit(1);
	for (unsigned i = 0; i < cfg->nsids; i++)
		if (cfg->sids[i].iif[0])
			rs->sids[i].iif_index =
				(uint32_t)strtoul(cfg->sids[i].iif + 2, NULL, 10);
	/* End.AD's caches, one worker (behavior_proxy.h) */
	ctx.proxy_slots = calloc(cfg->nproxies + 1, sizeof(struct proxy_slot));
	ctx.proxy_nworkers = 1;
	if (!ctx.proxy_slots)
		exit(1);
	ctx.cfg = cfg;
	ctx.rs = rs;
	ctx.stats = &ws;
	ctx.sid_stats = sid_st;
	ctx.policy_stats = pol_st;
	ctx.now_ns = 5000000000ull;
	ctx.icmp_rl.tokens_milli = (uint64_t)cfg->icmp_burst * 1000;
}

/* The counter of the row's SID (or of the first policy). */
static uint64_t *row_counter(const struct row *r)
{
	struct in6_addr a;

	if (!r->sid)
		return &pol_st[0].packets;
	if (!strncmp(r->sid, "policy ", 7))
		return &pol_st[strtoul(r->sid + 7, NULL, 10)].packets;
	if (inet_pton(AF_INET6, r->sid, &a) != 1)
		exit(1);
	for (unsigned i = 0; i < cfg->nsids; i++)
		if (!memcmp(&cfg->sids[i].prefix, &a, sizeof(a)))
			return &sid_st[cfg->sids[i].index].packets;
	fprintf(stderr, "behavior-cost: no SID %s in the config\n", r->sid);
	exit(1);
}

static void put_back(unsigned i, struct pkt *p)
{
	memcpy(slot + PKT_HEADROOM, run[i].bytes, run[i].len);
	memset(p, 0, sizeof(*p));
	p->head = slot;
	p->data = slot + PKT_HEADROOM;
	p->end = slot + sizeof(slot);
	p->len = p->orig_len = (uint32_t)run[i].len;
	p->hw_proto = rows[i].hook;
	p->indev = run[i].indev;
}

/* One row, n times; ns per packet. */
static double run_row(unsigned ri, unsigned n, int reset_only)
{
	const struct row *r = &rows[ri];
	uint64_t *ctr = reset_only ? NULL : row_counter(r);
	uint64_t before = ctr ? *ctr : 0;
	struct pkt p;
	double t0, t;

	uint64_t limited = ws.oam_ratelimited;

	ctx.oam = row_oam(r) != OAM_OFF ? &oam_ring : NULL;
	oam_ring.n = 0;
	/* a full bucket (capped at the burst), or an empty one */
	ctx.oam_rl.tokens_milli = row_oam(r) == OAM_LIMITED ? 0 :
				  2000000000000ull;
	t0 = bench_now_s();
	for (unsigned i = 0; i < n; i++) {
		put_back(ri, &p);
		if (reset_only) {
			p.verdict = PKT_ACCEPT;
			__asm__ volatile("" : : "r"(&p) : "memory");
			continue;
		}
		srv6_process(&ctx, &p);
		if (oam_ring.n == OAM_RING_SLOTS)	/* sent apart */
			oam_ring.n = 0;
		if (p.verdict != r->verdict) {
			fprintf(stderr, "behavior-cost: %s: verdict %d, not "
				"%d (drop reason %d)\n", r->label, p.verdict,
				r->verdict, (int)p.reason);
			exit(1);
		}
	}
	t = bench_now_s() - t0;
	limited = ws.oam_ratelimited - limited;
	if ((row_oam(r) == OAM_COPIES && limited) ||
	    (row_oam(r) == OAM_LIMITED && limited != n)) {
		fprintf(stderr, "behavior-cost: %s: %llu copies rate-limited\n",
			r->label, (unsigned long long)limited);
		exit(1);
	}
	if (ctr && *ctr - before != n) {
		fprintf(stderr, "behavior-cost: %s: its counter moved by %llu "
			"of %u\n", r->label,
			(unsigned long long)(*ctr - before), n);
		exit(1);
	}
	return t * 1e9 / n;
}

/* What the worker's send of a full ring costs per copy (ns): End's O-flag
 * copies, 64 at a time, through oamsock_flush() to oam_rx (drained
 * between sends, untimed), `batches` times. */
static double oam_send_cost(unsigned batches)
{
	struct oamsock *os = oamsock_new();
	unsigned ri = 0;
	struct pkt p;
	double t = 0;

	while (ri < NROWS && strcmp(rows[ri].label, "End O-flag (copy)"))
		ri++;

	if (!os)
		exit(1);
	ctx.oam = &oam_ring;
	for (unsigned b = 0; b < batches; b++) {
		double t0;

		oam_ring.n = 0;
		ctx.oam_rl.tokens_milli = 2000000000000ull;
		while (oam_ring.n < OAM_RING_SLOTS) {
			put_back(ri, &p);	/* End O-flag's packet */
			srv6_process(&ctx, &p);
		}
		t0 = bench_now_s();
		oamsock_flush(os, &oam_ring, &cfg->oam, &ws);
		t += bench_now_s() - t0;
		oam_drain();
	}
	if (ws.oam_send_errors) {
		fprintf(stderr, "behavior-cost: %llu copies not sent\n",
			(unsigned long long)ws.oam_send_errors);
		exit(1);
	}
	oamsock_free(os);
	return t * 1e9 / ((double)batches * OAM_RING_SLOTS);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, unsigned n)
{
	double s[64];

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static bool selected(unsigned i, const char *match)
{
	if (i < 2 || !match)
		return true;
	if (match[0] == '=')	/* the one row of that label */
		return !strcmp(rows[i].label, match + 1);
	return strstr(rows[i].label, match) != NULL;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 200000;
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 7;
	const char *match = argc > 3 ? argv[3] : NULL;
	double reset, end = 0;
	unsigned copy_rows[NROWS], ncopy_rows = 0;

	if (!n || !rounds || rounds > 64) {
		fprintf(stderr, "usage: behavior-cost [ITERATIONS [ROUNDS "
			"(1-64)]]\n");
		return 2;
	}
	setup();
	for (unsigned i = 0; i < NROWS; i++) {
		run[i].len = rows[i].build(run[i].bytes);
		run[i].indev = row_indev(&rows[i]);
	}
	for (unsigned k = 0; k < rounds; k++)
		for (unsigned i = 0; i < NROWS; i++)
			if (selected(i, match))
				run[i].ns[k] = run_row(i, n, i == 0);
	reset = median(run[0].ns, rounds);
	printf("# behavior-cost: %u packets x %u rounds per row, median; "
	       "put-back %.1f ns subtracted\n", n, rounds, reset);
	printf("%-24s %6s %10s %8s\n", "behavior", "bytes", "ns/packet",
	       "x End");
	for (unsigned i = 1; i < NROWS; i++) {
		if (!selected(i, match))
			continue;
		double v = median(run[i].ns, rounds) - reset;

		if (!strcmp(rows[i].label, "End"))
			end = v;
		printf("%-24s %6zu %10.1f %8.2f\n", rows[i].label, run[i].len,
		       v, end > 0 ? v / end : 0);
		if (row_oam(&rows[i]) == OAM_COPIES)
			copy_rows[ncopy_rows++] = i;
	}
	if (ncopy_rows) {
		double send = oam_send_cost(2000);

		printf("# oam send: one sendmmsg() of %u copies to UDP [::1], "
		       "%.1f ns per copy; with it:\n", OAM_RING_SLOTS, send);
		for (unsigned j = 0; j < ncopy_rows; j++) {
			unsigned i = copy_rows[j];
			double v = median(run[i].ns, rounds) - reset + send;

			printf("%-24s %6zu %10.1f %8.2f\n", rows[i].label,
			       run[i].len, v, end > 0 ? v / end : 0);
		}
	}
	close(oam_rx);
	runstate_free(rs);
	free(sid_st);
	free(pol_st);
	free(ctx.proxy_slots);
	config_free(cfg);
	return 0;
}
