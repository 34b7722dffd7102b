/* check_nfq.c - the NFQUEUE message parser and verdict builder, byte by
 * byte, the verdict batch's bound, the reinjection decision and the
 * watchdog's heartbeat check.  No root; one test sends verdicts on a
 * netlink socket of its own (no queue bound). */
#include <arpa/inet.h>
#include <check.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "gso-vectors.h"
#include "kencap_routes.h"
#include "kend.h"
#include "nfq.h"
#include "pktsock.h"
#include "process.h"
#include "reinject.h"
#include "testutil.h"
#include "worker.h"

/* ---- verdict builder ---------------------------------------------------- */

/* The message as the kernel receives it: the iovecs laid end to end. */
static size_t gather(const struct iovec *iov, unsigned n, uint8_t *out)
{
	size_t len = 0;

	for (unsigned i = 0; i < n; i++) {
		memcpy(out + len, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	return len;
}

START_TEST(test_verdict_accept_unchanged)
{
	uint8_t hdr[NFQ_VERDICT_HDR_MAX], got[128], want[128];
	struct iovec iov[NFQ_VERDICT_IOV_MAX];
	unsigned n = nfq_verdict_build(hdr, 0, 1, NF_ACCEPT, NULL, 0, NULL, 0,
				       iov);
	size_t wlen = hex2bin(
		"20000000 0103 0100 01000000 00000000"	/* nlmsghdr, seq = id */
		"00 00 0000"				/* nfgenmsg, queue 0 */
		"0c00 0200 00000001 00000001",		/* VERDICT_HDR */
		want, sizeof(want));

	ck_assert_uint_eq(n, 1);
	ck_assert_bytes(got, gather(iov, n, got), want, wlen);
}
END_TEST

START_TEST(test_verdict_drop)
{
	uint8_t hdr[NFQ_VERDICT_HDR_MAX], got[128], want[128];
	struct iovec iov[NFQ_VERDICT_IOV_MAX];
	unsigned n = nfq_verdict_build(hdr, 5, 0x01020304, NF_DROP, NULL, 0, NULL,
				       0, iov);
	size_t wlen = hex2bin(
		"20000000 0103 0100 04030201 00000000"
		"00 00 0005"
		"0c00 0200 00000000 01020304",
		want, sizeof(want));

	ck_assert_uint_eq(n, 1);
	ck_assert_bytes(got, gather(iov, n, got), want, wlen);
}
END_TEST

START_TEST(test_verdict_payload_and_mark)
{
	uint8_t hdr[NFQ_VERDICT_HDR_MAX], got[128], want[128];
	const uint8_t payload[8] = { 0x60, 0, 0, 0, 0, 0, 0x3b, 0x40 };
	struct iovec iov[NFQ_VERDICT_IOV_MAX];
	uint32_t mark = 0x5d6f0001;
	unsigned n = nfq_verdict_build(hdr, 1, 7, NF_ACCEPT, &mark, 0, payload,
				       sizeof(payload), iov);
	size_t wlen = hex2bin(
		"34000000 0103 0100 07000000 00000000"	/* 52 bytes */
		"00 00 0001"
		"0c00 0200 00000001 00000007"
		"0800 0300 5d6f0001"			/* NFQA_MARK */
		"0c00 0a00 6000000000003b40",		/* NFQA_PAYLOAD */
		want, sizeof(want));

	ck_assert_uint_eq(n, 2);
	/* The payload is pointed to, not copied. */
	ck_assert_ptr_eq(iov[1].iov_base, payload);
	ck_assert_bytes(got, gather(iov, n, got), want, wlen);
}
END_TEST

/* The mark's second carrier: NFQA_PRIORITY (21) after NFQA_MARK, the
 * same value (reinject.c reinject_mark_carrier()). */
START_TEST(test_verdict_mark_and_priority)
{
	uint8_t hdr[NFQ_VERDICT_HDR_MAX], got[128], want[128];
	const uint8_t payload[8] = { 0x60, 0, 0, 0, 0, 0, 0x3b, 0x40 };
	struct iovec iov[NFQ_VERDICT_IOV_MAX];
	uint32_t mark = 0x5d700001;
	unsigned n = nfq_verdict_build(hdr, 1, 7, NF_ACCEPT, &mark, mark,
				       payload, sizeof(payload), iov);
	size_t wlen = hex2bin(
		"3c000000 0103 0100 07000000 00000000"	/* 60 bytes */
		"00 00 0001"
		"0c00 0200 00000001 00000007"
		"0800 0300 5d700001"			/* NFQA_MARK */
		"0800 1500 5d700001"			/* NFQA_PRIORITY */
		"0c00 0a00 6000000000003b40",		/* NFQA_PAYLOAD */
		want, sizeof(want));

	ck_assert_uint_eq(n, 2);
	ck_assert_bytes(got, gather(iov, n, got), want, wlen);
}
END_TEST

/* nfq_verdict_add() sends p->verdict_priority with a marked NF_ACCEPT
 * only: not with NF_REPEAT (a bounce goes through the hook again), nor
 * without a mark. */
START_TEST(test_verdict_add_priority)
{
	static uint8_t data[4] = { 0x60, 1, 2, 3 };
	struct nfq *q = nfq_alloc(7);
	struct pkt p = { .id = 3, .data = data, .len = sizeof(data),
			 .set_mark = true, .verdict_mark = 0x5d700001,
			 .verdict_priority = 0x5d700001 };
	uint8_t got[512], want[512];
	unsigned nmsgs = 0;
	size_t wlen = hex2bin(
		/* id 3: NF_ACCEPT, the mark and the priority */
		"30000000 0103 0100 03000000 00000000 00 00 0007"
		"0c00 0200 00000001 00000003"
		"0800 0300 5d700001 0800 1500 5d700001"
		/* id 4: NF_REPEAT, the mark only */
		"28000000 0103 0100 04000000 00000000 00 00 0007"
		"0c00 0200 00000004 00000004"
		"0800 0300 5d700001"
		/* id 5: NF_ACCEPT without a mark: neither */
		"20000000 0103 0100 05000000 00000000 00 00 0007"
		"0c00 0200 00000001 00000005",
		want, sizeof(want));

	ck_assert_ptr_nonnull(q);
	nfq_verdict_add(q, &p, NF_ACCEPT, false);
	p.id = 4;
	nfq_verdict_add(q, &p, NF_REPEAT, false);
	p.id = 5;
	p.set_mark = false;
	nfq_verdict_add(q, &p, NF_ACCEPT, false);
	ck_assert_bytes(got, nfq_verdict_pending(q, got, sizeof(got), &nmsgs),
			want, wlen);
	ck_assert_uint_eq(nmsgs, 3);
	nfq_socket_close(q);
}
END_TEST

START_TEST(test_verdict_payload_padding)
{
	uint8_t hdr[NFQ_VERDICT_HDR_MAX], got[128], want[128];
	const uint8_t payload[5] = { 0x45, 1, 2, 3, 4 };
	struct iovec iov[NFQ_VERDICT_IOV_MAX];
	unsigned n = nfq_verdict_build(hdr, 0x1234, 9, NF_ACCEPT, NULL, 0,
				       payload, sizeof(payload), iov);
	size_t wlen = hex2bin(
		"2c000000 0103 0100 09000000 00000000"	/* 44 = 36 + 5 + 3 */
		"00 00 1234"
		"0c00 0200 00000001 00000009"
		"0900 0a00 4501020304 000000",		/* nla_len 9, pad 3 */
		want, sizeof(want));

	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(iov[2].iov_len, 3);
	ck_assert_bytes(got, gather(iov, n, got), want, wlen);
}
END_TEST

/* ---- runs of NF_DROP as one NFQNL_MSG_VERDICT_BATCH ---------------------- */

static void verdict_add_id(struct nfq *q, uint32_t id, uint32_t v,
			   bool payload, bool mark)
{
	static uint8_t data[4] = { 0x60, 1, 2, 3 };
	struct pkt p = { .id = id, .data = data, .len = sizeof(data),
			 .set_mark = mark, .verdict_mark = 0x5d6f0002 };

	nfq_verdict_add(q, &p, v, payload);
}

START_TEST(test_verdict_batch_build)
{
	uint8_t hdr[NFQ_VERDICT_HDR_MAX], got[64], want[64];
	struct iovec iov[NFQ_VERDICT_IOV_MAX];
	unsigned n = nfq_verdict_batch_build(hdr, 5, 0x01020304, NF_DROP, iov);
	size_t wlen = hex2bin(
		"20000000 0303 0100 04030201 00000000"	/* VERDICT_BATCH (3) */
		"00 00 0005"
		"0c00 0200 00000000 01020304",		/* up to this id */
		want, sizeof(want));

	ck_assert_uint_eq(n, 1);
	ck_assert_bytes(got, gather(iov, n, got), want, wlen);
}
END_TEST

/* Before the change every NF_DROP was its own NFQNL_MSG_VERDICT: five
 * messages here instead of three. */
START_TEST(test_verdict_drop_runs)
{
	struct nfq *q = nfq_alloc(7);
	uint8_t got[512], want[512];
	unsigned nmsgs = 0;
	size_t wlen = hex2bin(
		/* id 1: NF_DROP alone, then a payload: no run */
		"20000000 0103 0100 01000000 00000000 00 00 0007"
		"0c00 0200 00000000 00000001"
		"28000000 0103 0100 02000000 00000000 00 00 0007"
		"0c00 0200 00000001 00000002"
		"0800 0a00 60010203"
		/* ids 3, 4, 6 (5 not queued to us): one batch up to 6 */
		"20000000 0303 0100 06000000 00000000 00 00 0007"
		"0c00 0200 00000000 00000006"
		/* id 7: NF_ACCEPT with a mark, never batched */
		"28000000 0103 0100 07000000 00000000 00 00 0007"
		"0c00 0200 00000001 00000007"
		"0800 0300 5d6f0002"
		/* id 8: NF_ACCEPT unchanged; id 9: a drop after it is
		 * alone (a batch would not drop 8, it is dequeued, but
		 * a drop run starts only at a drop) */
		"20000000 0103 0100 08000000 00000000 00 00 0007"
		"0c00 0200 00000001 00000008"
		"20000000 0103 0100 09000000 00000000 00 00 0007"
		"0c00 0200 00000000 00000009",
		want, sizeof(want));

	ck_assert_ptr_nonnull(q);
	verdict_add_id(q, 1, NF_DROP, false, false);
	verdict_add_id(q, 2, NF_ACCEPT, true, false);
	verdict_add_id(q, 3, NF_DROP, false, false);
	verdict_add_id(q, 4, NF_DROP, false, true);	/* mark: not sent */
	verdict_add_id(q, 6, NF_DROP, false, false);
	verdict_add_id(q, 7, NF_ACCEPT, false, true);
	verdict_add_id(q, 8, NF_ACCEPT, false, false);
	verdict_add_id(q, 9, NF_DROP, false, false);
	ck_assert_bytes(got, nfq_verdict_pending(q, got, sizeof(got), &nmsgs),
			want, wlen);
	ck_assert_uint_eq(nmsgs, 6);
	nfq_socket_close(q);
}
END_TEST

/* A header queue's verdicts go to it, a bounce (NF_REPEAT) with its
 * mark; a run of drops never spans two queues, whose ids are their own. */
START_TEST(test_verdict_header_queue)
{
	struct nfq *q = nfq_alloc(3);
	struct pkt p = { .id = 1, .from_hqueue = true, .set_mark = true,
			 .verdict_mark = 0x80000000 };
	uint8_t got[512], want[512];
	unsigned nmsgs = 0;
	size_t wlen = hex2bin(
		/* id 1 of queue 9: NF_REPEAT with the bounce mark */
		"28000000 0103 0100 01000000 00000000 00 00 0009"
		"0c00 0200 00000004 00000001"
		"0800 0300 80000000"
		/* id 2 of queue 3: NF_DROP */
		"20000000 0103 0100 02000000 00000000 00 00 0003"
		"0c00 0200 00000000 00000002"
		/* ids 3 and 4 of queue 9: one batch, not queue 3's */
		"20000000 0303 0100 04000000 00000000 00 00 0009"
		"0c00 0200 00000000 00000004",
		want, sizeof(want));

	ck_assert_ptr_nonnull(q);
	nfq_set_header_queue(q, 9);
	nfq_verdict_add(q, &p, NF_REPEAT, false);
	p = (struct pkt){ .id = 2 };
	nfq_verdict_add(q, &p, NF_DROP, false);
	p = (struct pkt){ .id = 3, .from_hqueue = true };
	nfq_verdict_add(q, &p, NF_DROP, false);
	p.id = 4;
	nfq_verdict_add(q, &p, NF_DROP, false);
	ck_assert_bytes(got, nfq_verdict_pending(q, got, sizeof(got), &nmsgs),
			want, wlen);
	ck_assert_uint_eq(nmsgs, 3);
	nfq_socket_close(q);
}
END_TEST

/* Ids out of order, or across the 2^32 wrap: a run grows only with an id
 * after its last (serial number order, as the kernel compares them). */
START_TEST(test_verdict_drop_run_order)
{
	struct nfq *q = nfq_alloc(0);
	uint8_t got[512], want[512];
	unsigned nmsgs = 0;
	size_t wlen = hex2bin(
		"20000000 0303 0100 01000000 00000000 00 00 0000"
		"0c00 0200 00000000 00000001"		/* ffffffff, 0, 1 */
		"20000000 0103 0100 feffffff 00000000 00 00 0000"
		"0c00 0200 00000000 fffffffe",		/* before 1: alone */
		want, sizeof(want));

	ck_assert_ptr_nonnull(q);
	verdict_add_id(q, 0xffffffff, NF_DROP, false, false);
	verdict_add_id(q, 0, NF_DROP, false, false);
	verdict_add_id(q, 1, NF_DROP, false, false);
	verdict_add_id(q, 0xfffffffe, NF_DROP, false, false);
	ck_assert_bytes(got, nfq_verdict_pending(q, got, sizeof(got), &nmsgs),
			want, wlen);
	ck_assert_uint_eq(nmsgs, 2);
	nfq_socket_close(q);
}
END_TEST

/* A whole batch of drops is one message, and NFQ_BATCH + 1 packets still
 * abort (the bound counts packets, not messages). */
START_TEST(test_verdict_drop_run_whole_batch)
{
	struct nfq *q = nfq_alloc(0);
	uint8_t got[64];
	unsigned nmsgs = 0;

	ck_assert_ptr_nonnull(q);
	for (uint32_t id = 1; id <= NFQ_BATCH; id++)
		verdict_add_id(q, id, NF_DROP, false, false);
	ck_assert_uint_eq(nfq_verdict_pending(q, got, sizeof(got), &nmsgs), 32);
	ck_assert_uint_eq(nmsgs, 1);
	verdict_add_id(q, NFQ_BATCH + 1, NF_DROP, false, false);
	nfq_socket_close(q);
}
END_TEST

/* nfq_verdict_hold(): a batch of nothing but drops waits for the next
 * batch, whose drops grow the same run and whose other verdicts follow it
 * in the same sendmsg(); a run held NFQ_HOLD_NS, or of NFQ_HOLD_MAX
 * packets, or followed by another message goes out; after a held run a
 * whole batch of messages still fits (NFQ_BATCH + 1 messages). */
START_TEST(test_verdict_hold)
{
	struct nfq *q = nfq_alloc(0);
	uint8_t got[64 * (NFQ_BATCH + 2)], want[512];
	unsigned nmsgs = 0;
	uint64_t t = 5000000000ull;
	size_t wlen = hex2bin(
		"20000000 0303 0100 07000000 00000000 00 00 0000"
		"0c00 0200 00000000 00000007"		/* ids 5-7: one run */
		"20000000 0103 0100 08000000 00000000 00 00 0000"
		"0c00 0200 00000001 00000008",		/* id 8 NF_ACCEPT */
		want, sizeof(want));

	ck_assert_ptr_nonnull(q);
	ck_assert(!nfq_verdict_waiting(q));
	verdict_add_id(q, 5, NF_DROP, false, false);
	verdict_add_id(q, 6, NF_DROP, false, false);
	ck_assert(nfq_verdict_hold(q, t));
	ck_assert(nfq_verdict_waiting(q));
	verdict_add_id(q, 7, NF_DROP, false, false);
	ck_assert(nfq_verdict_hold(q, t + NFQ_HOLD_NS - 1));
	ck_assert_uint_eq(nfq_verdict_pending(q, got, sizeof(got), &nmsgs), 32);
	ck_assert_uint_eq(nmsgs, 1);
	ck_assert_bytes(got, 32, want, 32);
	verdict_add_id(q, 8, NF_ACCEPT, false, false);
	ck_assert(!nfq_verdict_hold(q, t + NFQ_HOLD_NS - 1));
	ck_assert_bytes(got, nfq_verdict_pending(q, got, sizeof(got), &nmsgs),
			want, wlen);
	ck_assert_uint_eq(nmsgs, 2);
	nfq_socket_close(q);

	/* Too old: the batch that finds it NFQ_HOLD_NS old sends it. */
	q = nfq_alloc(0);
	ck_assert_ptr_nonnull(q);
	verdict_add_id(q, 1, NF_DROP, false, false);
	ck_assert(nfq_verdict_hold(q, t));
	verdict_add_id(q, 2, NF_DROP, false, false);
	ck_assert(!nfq_verdict_hold(q, t + NFQ_HOLD_NS));
	nfq_socket_close(q);

	/* Too long: NFQ_HOLD_MAX packets go out. */
	q = nfq_alloc(0);
	ck_assert_ptr_nonnull(q);
	for (uint32_t id = 1; id < NFQ_HOLD_MAX; id++)
		verdict_add_id(q, id, NF_DROP, false, false);
	ck_assert(nfq_verdict_hold(q, t));
	verdict_add_id(q, NFQ_HOLD_MAX, NF_DROP, false, false);
	ck_assert(!nfq_verdict_hold(q, t));
	nfq_socket_close(q);

	/* Not a drop run: a lone NF_ACCEPT, a payload, a marked verdict. */
	q = nfq_alloc(0);
	ck_assert_ptr_nonnull(q);
	verdict_add_id(q, 1, NF_ACCEPT, false, false);
	ck_assert(!nfq_verdict_hold(q, t));
	nfq_socket_close(q);
	q = nfq_alloc(0);
	ck_assert_ptr_nonnull(q);
	verdict_add_id(q, 1, NF_ACCEPT, true, true);
	ck_assert(!nfq_verdict_hold(q, t));
	nfq_socket_close(q);

	/* After a held run, a whole batch of single messages. */
	q = nfq_alloc(0);
	ck_assert_ptr_nonnull(q);
	verdict_add_id(q, 1, NF_DROP, false, false);
	ck_assert(nfq_verdict_hold(q, t));
	for (uint32_t id = 2; id <= NFQ_BATCH + 1; id++)
		verdict_add_id(q, id, NF_ACCEPT, false, false);
	ck_assert_uint_eq(nfq_verdict_pending(q, got, sizeof(got), &nmsgs),
			  32u * (NFQ_BATCH + 1));
	ck_assert_uint_eq(nmsgs, NFQ_BATCH + 1);
	ck_assert(!nfq_verdict_hold(q, t));
	nfq_socket_close(q);
}
END_TEST

/* The counters on a real netlink socket (no queue bound: the kernel
 * answers each message with an error, which is read back: one per
 * message, ENODEV when it parsed it, EPERM without CAP_NET_ADMIN; never
 * EINVAL, a message it could not parse). */
START_TEST(test_verdict_drop_run_counters)
{
	struct nfq *q = nfq_alloc(65001);
	struct worker_stats st = { 0 };
	struct sockaddr_nl local = { .nl_family = AF_NETLINK };
	uint8_t buf[8192] __attribute__((aligned(8)));
	struct timeval tv = { .tv_sec = 1 };
	unsigned errors = 0;
	uint32_t seqs[4];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);

	ck_assert_ptr_nonnull(q);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&local, sizeof(local)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	nfq_attach_fd(q, fd);
	verdict_add_id(q, 10, NF_DROP, false, false);
	verdict_add_id(q, 11, NF_DROP, false, false);
	verdict_add_id(q, 12, NF_DROP, false, false);
	verdict_add_id(q, 13, NF_ACCEPT, true, false);
	verdict_add_id(q, 14, NF_DROP, false, false);
	verdict_add_id(q, 15, NF_DROP, false, false);
	ck_assert_int_eq(nfq_verdict_flush(q, &st), 0);
	ck_assert_uint_eq(st.verdicts, 6);
	ck_assert_uint_eq(st.verdict_batches, 1);
	ck_assert_uint_eq(st.send_errors, 0);
	while (errors < 4) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *nlh = (const void *)buf;

		if (n <= 0)
			break;
		for (; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			const struct nlmsgerr *e = NLMSG_DATA(nlh);

			ck_assert_uint_eq(nlh->nlmsg_type, NLMSG_ERROR);
			ck_assert(e->error == -ENODEV || e->error == -EPERM);
			ck_assert_uint_lt(errors, 4);
			seqs[errors++] = nlh->nlmsg_seq;
		}
	}
	ck_assert_uint_eq(errors, 3);
	ck_assert_uint_eq(seqs[0], 12);
	ck_assert_uint_eq(seqs[1], 13);
	ck_assert_uint_eq(seqs[2], 15);
	nfq_socket_close(q);
	close(fd);
}
END_TEST

/* ---- parser -------------------------------------------------------------- */

/* A hand-made NFQUEUE packet message, built in a slot at PKT_HEADROOM. */
struct msg {
	uint8_t slot[NFQ_SLOT_SIZE];
	size_t len;
};

static uint8_t *msg_start(struct msg *m, uint16_t type, uint8_t family)
{
	uint8_t *b = m->slot + PKT_HEADROOM;
	struct nlmsghdr nlh = { .nlmsg_type = type };
	uint8_t nfg[4] = { family, 0, 0, 0 };

	memcpy(b, &nlh, sizeof(nlh));
	memcpy(b + 16, nfg, 4);
	m->len = 20;
	return b;
}

static void msg_attr(struct msg *m, uint16_t type, const void *data,
		     uint16_t len)
{
	uint8_t *b = m->slot + PKT_HEADROOM;
	uint16_t nla[2] = { (uint16_t)(4 + len), type };

	memcpy(b + m->len, nla, 4);
	memcpy(b + m->len + 4, data, len);
	memset(b + m->len + 4 + len, 0, (4 - len % 4) % 4);
	m->len += 4 + ((len + 3u) & ~3u);
}

static void msg_end(struct msg *m)
{
	uint32_t len = (uint32_t)m->len;

	memcpy(m->slot + PKT_HEADROOM, &len, 4);
}

static void msg_packet_hdr(struct msg *m, uint32_t id, uint16_t proto,
			   uint8_t hook)
{
	uint8_t h[7];
	uint32_t nid = htonl(id);
	uint16_t np = htons(proto);

	memcpy(h, &nid, 4);
	memcpy(h + 4, &np, 2);
	h[6] = hook;
	msg_attr(m, NFQA_PACKET_HDR, h, sizeof(h));
}

static void msg_u32(struct msg *m, uint16_t type, uint32_t v)
{
	uint32_t nv = htonl(v);

	msg_attr(m, type, &nv, 4);
}

static const uint8_t ip6_payload[48] = {
	0x60, 0, 0, 0, 0, 8, 17, 64,
	0xfc, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	0xfc, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
	0x30, 0x39, 0x30, 0x39, 0, 8, 0, 0,
};

static enum nfq_parse_result parse(struct msg *m, size_t len, struct pkt *p,
				   struct worker_stats *st)
{
	memset(st, 0, sizeof(*st));
	return nfq_parse(m->slot, m->slot + sizeof(m->slot),
			 m->slot + PKT_HEADROOM, len, p, st);
}

START_TEST(test_parse_packet_mark_indev)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;

	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 0xabcdef01, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_u32(&m, NFQA_MARK, 0x5d6f0003);
	msg_u32(&m, NFQA_IFINDEX_INDEV, 7);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);

	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_PACKET);
	ck_assert_uint_eq(p.id, 0xabcdef01);
	ck_assert_uint_eq(p.hw_proto, ETH_P_IPV6);
	ck_assert_uint_eq(p.hook, NF_INET_PRE_ROUTING);
	ck_assert_uint_eq(p.mark, 0x5d6f0003);
	ck_assert_uint_eq(p.indev, 7);
	ck_assert_int_eq(p.verdict, PKT_ACCEPT);
	ck_assert(!p.set_mark);
	ck_assert_ptr_eq(p.head, m.slot);
	ck_assert_ptr_eq(p.end, m.slot + sizeof(m.slot));
	/* 20 (headers) + 12 (PACKET_HDR) + 8 + 8 + 4: payload data. */
	ck_assert_ptr_eq(p.data, m.slot + PKT_HEADROOM + 52);
	ck_assert_uint_eq(p.len, sizeof(ip6_payload));
	ck_assert_uint_eq(p.orig_len, sizeof(ip6_payload));
	ck_assert_bytes(p.data, p.len, ip6_payload, sizeof(ip6_payload));
	ck_assert_uint_eq(st.bad_messages, 0);
	ck_assert_uint_eq(st.nl_errors, 0);
	/* The parsed netlink headers are headroom now. */
	ck_assert_ptr_nonnull(pkt_push(&p, PKT_HEADROOM + 52));
	ck_assert_ptr_null(pkt_push(&p, 1));
}
END_TEST

/* A packet message of ip6_payload with NFQA_HWADDR `hw` (len bytes). */
static void msg_hwaddr(struct msg *m, uint32_t id, const uint8_t *hw,
		       uint16_t len)
{
	msg_start(m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(m, id, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_attr(m, NFQA_HWADDR, hw, len);
	msg_attr(m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(m);
}

/* NFQA_HWADDR (12 bytes: a 16-bit length, 2 of padding, 8 of address):
 * an Ethernet source is kept (the way back into an SR proxy's service,
 * reinject.h); another length leaves none; a wrong-sized attribute makes
 * the message bad (dropped, counted). */
START_TEST(test_parse_hwaddr)
{
	static const uint8_t eth[12] = { 0, 6, 0, 0, 2, 0, 0, 0, 7, 2, 0, 0 };
	static const uint8_t ib[12] = { 0, 8, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t mac[6] = { 2, 0, 0, 0, 7, 2 };
	static struct msg m;
	struct worker_stats st;
	struct pkt p;

	msg_hwaddr(&m, 1, eth, sizeof(eth));
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_PACKET);
	ck_assert_uint_eq(p.hw_src_len, 6);
	ck_assert_bytes(p.hw_src, 6, mac, 6);
	msg_hwaddr(&m, 2, ib, sizeof(ib));
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_PACKET);
	ck_assert_uint_eq(p.hw_src_len, 0);
	msg_hwaddr(&m, 3, eth, 8);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_BAD_PACKET);
	ck_assert_int_eq(p.verdict, PKT_DROP);
	ck_assert_uint_eq(st.bad_messages, 1);
}
END_TEST

START_TEST(test_parse_packet_minimal)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;

	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET);
	msg_packet_hdr(&m, 3, ETH_P_IP, NF_INET_LOCAL_OUT);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, 5);	/* odd length */
	msg_end(&m);

	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_PACKET);
	ck_assert_uint_eq(p.id, 3);
	ck_assert_uint_eq(p.hw_proto, ETH_P_IP);
	ck_assert_uint_eq(p.hook, NF_INET_LOCAL_OUT);
	ck_assert_uint_eq(p.mark, 0);
	ck_assert_uint_eq(p.indev, 0);
	ck_assert_uint_eq(p.len, 5);
	ck_assert_uint_eq(st.bad_messages, 0);
}
END_TEST

START_TEST(test_parse_family_wins_over_hw_protocol)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;

	/* Queued from the IPv6 hook: what the verdict must keep. */
	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 4, 0, NF_INET_PRE_ROUTING);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_PACKET);
	ck_assert_uint_eq(p.hw_proto, ETH_P_IPV6);
}
END_TEST

START_TEST(test_parse_truncated_payload)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;

	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 11, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);

	/* The datagram ends inside the payload: the id is known, drop. */
	ck_assert_int_eq(parse(&m, m.len - 10, &p, &st), NFQ_PARSE_BAD_PACKET);
	ck_assert_uint_eq(p.id, 11);
	ck_assert_int_eq(p.verdict, PKT_DROP);
	ck_assert_uint_eq(st.bad_messages, 1);
}
END_TEST

START_TEST(test_parse_truncated_attr_header)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;

	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 12, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	/* nlmsg_len claims 2 bytes of an attribute header after PAYLOAD. */
	m.len += 2;
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_BAD_PACKET);
	ck_assert_uint_eq(p.id, 12);
	ck_assert_uint_eq(st.bad_messages, 1);
}
END_TEST

START_TEST(test_parse_short_mark)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;
	uint16_t half = 1;

	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 13, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_attr(&m, NFQA_MARK, &half, 2);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_BAD_PACKET);
	ck_assert_uint_eq(p.id, 13);
	ck_assert_uint_eq(st.bad_messages, 1);
}
END_TEST

/* NFQA_PRIORITY (skb->priority, sent when not 0) into p->priority; a
 * wrong-sized one makes the message bad. */
START_TEST(test_parse_priority)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;
	uint32_t prio = htonl(0x00010002);

	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 15, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_attr(&m, NFQA_PRIORITY, &prio, 4);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_PACKET);
	ck_assert_uint_eq(p.priority, 0x00010002);
	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 16, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_attr(&m, NFQA_PRIORITY, &prio, 2);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_BAD_PACKET);
	ck_assert_uint_eq(st.bad_messages, 1);
}
END_TEST

START_TEST(test_parse_no_payload)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;

	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 14, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_BAD_PACKET);
	ck_assert_uint_eq(p.id, 14);
	ck_assert_int_eq(p.verdict, PKT_DROP);
}
END_TEST

START_TEST(test_parse_cap_len)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;

	/* Cut by the copy range: rewriting it would cut the packet. */
	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 15, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_u32(&m, NFQA_CAP_LEN, 70000);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_BAD_PACKET);
	ck_assert_uint_eq(p.id, 15);
	ck_assert_uint_eq(st.rx_too_long, 1);
	ck_assert_uint_eq(st.bad_messages, 1);

	/* CAP_LEN equal to the payload: a whole packet. */
	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 16, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_u32(&m, NFQA_CAP_LEN, sizeof(ip6_payload));
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_PACKET);
}
END_TEST

/* On the header queue a packet cut short by the copy range is what it is
 * for: truncated, its whole length kept; from another queue, or parsed
 * without a header queue, it stays a bad message. */
START_TEST(test_parse_header_queue)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;
	uint16_t res_id = htons(7);
	uint8_t *b;

	b = msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	memcpy(b + 18, &res_id, 2);
	msg_packet_hdr(&m, 21, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_u32(&m, NFQA_CAP_LEN, 65000);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(nfq_parse_hq(m.slot, m.slot + sizeof(m.slot),
				      m.slot + PKT_HEADROOM, m.len, 7, &p, &st),
			 NFQ_PARSE_PACKET);
	ck_assert_uint_eq(p.id, 21);
	ck_assert(p.from_hqueue);
	ck_assert(p.truncated);
	ck_assert_uint_eq(p.len, sizeof(ip6_payload));
	ck_assert_uint_eq(p.orig_len, 65000);
	ck_assert_ptr_eq(p.data, b + m.len - sizeof(ip6_payload));
	ck_assert_uint_eq(st.hq_truncated, 1);
	ck_assert_uint_eq(st.rx_too_long + st.bad_messages, 0);

	/* The socket's other queue (the header queue is 8): whole or bad. */
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(nfq_parse_hq(m.slot, m.slot + sizeof(m.slot),
				      m.slot + PKT_HEADROOM, m.len, 8, &p, &st),
			 NFQ_PARSE_BAD_PACKET);
	ck_assert(!p.from_hqueue);
	ck_assert(!p.truncated);
	ck_assert_uint_eq(st.rx_too_long, 1);
	ck_assert_uint_eq(st.hq_truncated, 0);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_BAD_PACKET);
	ck_assert_uint_eq(st.rx_too_long, 1);

	/* Whole on the header queue: from it, not truncated. */
	b = msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	memcpy(b + 18, &res_id, 2);
	msg_packet_hdr(&m, 22, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(nfq_parse_hq(m.slot, m.slot + sizeof(m.slot),
				      m.slot + PKT_HEADROOM, m.len, 7, &p, &st),
			 NFQ_PARSE_PACKET);
	ck_assert(p.from_hqueue);
	ck_assert(!p.truncated);
	ck_assert_uint_eq(p.orig_len, sizeof(ip6_payload));
}
END_TEST

START_TEST(test_parse_skb_info)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;

	/* A super-packet with a partial checksum (`gso yes`). */
	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 17, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_u32(&m, NFQA_SKB_INFO, NFQA_SKB_GSO | NFQA_SKB_CSUMNOTREADY);
	msg_attr(&m, NFQA_PAYLOAD, vec_v6ext_super, sizeof(vec_v6ext_super));
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_PACKET);
	ck_assert(p.gso);
	ck_assert(p.csum_partial);
	ck_assert(!p.csum_unverified);
	ck_assert_uint_eq(p.facts.gso_size, 0);	/* NFQUEUE does not say */
	ck_assert_uint_eq(p.gso_l4_off, 40 + 8 + 56 + 8);
	ck_assert_uint_eq(st.gso_packets, 1);

	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 18, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_u32(&m, NFQA_SKB_INFO, NFQA_SKB_CSUM_NOTVERIFIED);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_PACKET);
	ck_assert(!p.gso && !p.csum_partial && p.csum_unverified);
	ck_assert_uint_eq(st.gso_packets, 0);

	/* An SKB_INFO of the wrong size: the message is bad. */
	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 19, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_attr(&m, NFQA_SKB_INFO, "\0\0", 2);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_BAD_PACKET);

	/* No SKB_INFO (a queue without `gso yes`): nothing set. */
	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_packet_hdr(&m, 20, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_attr(&m, NFQA_PAYLOAD, vec_v6ext_super, sizeof(vec_v6ext_super));
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_PACKET);
	ck_assert(!p.gso && !p.csum_partial && !p.csum_unverified);
}
END_TEST

START_TEST(test_parse_no_packet_hdr)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;

	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	msg_attr(&m, NFQA_PAYLOAD, ip6_payload, sizeof(ip6_payload));
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_NONE);
	ck_assert_uint_eq(st.bad_messages, 1);

	/* Too short even for the nfgenmsg. */
	ck_assert_int_eq(parse(&m, 10, &p, &st), NFQ_PARSE_NONE);
	ck_assert_uint_eq(st.bad_messages, 1);
}
END_TEST

START_TEST(test_parse_nlmsg_error)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;
	struct nlmsgerr e = { .error = -2 };	/* -ENOENT: unknown id */

	msg_start(&m, NLMSG_ERROR, 0);
	memcpy(m.slot + PKT_HEADROOM + 16, &e, sizeof(e));
	m.len = 16 + sizeof(e);
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_NONE);
	ck_assert_uint_eq(st.nl_errors, 1);
	ck_assert_uint_eq(st.bad_messages, 0);

	/* error 0 is an ACK, not an error. */
	e.error = 0;
	memcpy(m.slot + PKT_HEADROOM + 16, &e, sizeof(e));
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_NONE);
	ck_assert_uint_eq(st.nl_errors, 0);
}
END_TEST

START_TEST(test_parse_not_a_packet)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;

	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_CONFIG, AF_INET6);
	msg_packet_hdr(&m, 17, ETH_P_IPV6, NF_INET_PRE_ROUTING);
	msg_end(&m);
	ck_assert_int_eq(parse(&m, m.len, &p, &st), NFQ_PARSE_NONE);
	ck_assert_uint_eq(st.bad_messages, 1);
	ck_assert_uint_eq(st.nl_errors, 0);
}
END_TEST

START_TEST(test_parse_bad_nlmsg_len)
{
	static struct msg m;
	struct worker_stats st;
	struct pkt p;

	msg_start(&m, (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET, AF_INET6);
	m.len = 8;	/* nlmsg_len smaller than a netlink header */
	msg_end(&m);
	ck_assert_int_eq(parse(&m, 20, &p, &st), NFQ_PARSE_NONE);
	ck_assert_uint_eq(st.bad_messages, 1);
}
END_TEST

/* ---- reinjection decision ----------------------------------------------- */

static struct pkt *result(struct test_slot *s, uint16_t hook_proto,
			  unsigned version, enum pkt_verdict v, bool mark)
{
	uint8_t b[40] = { (uint8_t)(version << 4) };
	struct pkt *p = test_pkt(s, b, sizeof(b), hook_proto);

	p->verdict = v;
	p->set_mark = mark;
	p->out_mark = mark ? 0x5d6f0001 : 0;
	return p;
}

START_TEST(test_reinject_decide)
{
	static struct test_slot s;
	struct config cfg = { 0 };
	struct runstate rs = { .payload = PAYLOAD_ANY };
	enum drop_reason r = DROP__COUNT;

	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, result(&s, ETH_P_IPV6, 6,
		PKT_ACCEPT, false), &r), REINJECT_ACCEPT);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, result(&s, ETH_P_IPV6, 6,
		PKT_DROP, false), &r), REINJECT_DROP);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, result(&s, ETH_P_IPV6, 6,
		PKT_NEW_BYTES, false), &r), REINJECT_PAYLOAD);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, result(&s, ETH_P_IPV6, 6,
		PKT_NEW_BYTES, true), &r), REINJECT_PAYLOAD);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, result(&s, ETH_P_IP, 4,
		PKT_NEW_BYTES, false), &r), REINJECT_PAYLOAD);
	/* Other family: TUN, unless a mark must go along. */
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, result(&s, ETH_P_IPV6, 4,
		PKT_NEW_BYTES, false), &r), REINJECT_OWN_DEV);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, result(&s, ETH_P_IP, 6,
		PKT_NEW_BYTES, false), &r), REINJECT_OWN_DEV);
	ck_assert_int_eq(r, DROP__COUNT);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, result(&s, ETH_P_IPV6, 4,
		PKT_NEW_BYTES, true), &r), REINJECT_DROP_REASON);
	ck_assert_int_eq(r, DROP_FAMILY);
	/* Neither IPv4 nor IPv6. */
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, result(&s, ETH_P_IPV6, 5,
		PKT_NEW_BYTES, false), &r), REINJECT_DROP_REASON);
	ck_assert_int_eq(r, DROP_BAD_IP);
	/* An ICMP error in place of a super-packet: not the payload of its
	 * skb, which stays a GSO one (icmp_of_gso); of a single packet: the
	 * payload. */
	{
		struct pkt *p = result(&s, ETH_P_IPV6, 6, PKT_NEW_BYTES, false);

		p->outcome = PKT_OUT_ICMP;
		ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r),
				 REINJECT_PAYLOAD);
		p->facts.icmp_of_gso = true;
		ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r),
				 REINJECT_OWN_DEV);
	}
}
END_TEST

START_TEST(test_reinject_decide_tun_always)
{
	static struct test_slot s;
	struct config cfg = { 0 };
	struct runstate rs = { .payload = PAYLOAD_NONE };
	enum drop_reason r = DROP__COUNT;

	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, result(&s, ETH_P_IPV6, 6,
		PKT_NEW_BYTES, false), &r), REINJECT_OWN_DEV);
	/* TUN carries no mark, and no payload may carry it: a marked
	 * result of no SID with a device is a counted drop. */
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, result(&s, ETH_P_IPV6, 6,
		PKT_NEW_BYTES, true), &r), REINJECT_DROP_REASON);
	ck_assert_int_eq(r, DROP_REINJECT);
	r = DROP__COUNT;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, result(&s, ETH_P_IPV6, 6,
		PKT_ACCEPT, false), &r), REINJECT_ACCEPT);
	ck_assert_int_eq(r, DROP__COUNT);
}
END_TEST

/* Under Linux 7.2's rule (PAYLOAD_KEEP_CHAIN) a result goes as its
 * verdict's payload only when it keeps the header chain (p->chain_kept);
 * else TUN, or for a marked one the SID's device (none here: a counted
 * drop, never a payload the kernel would drop silently). */
START_TEST(test_reinject_decide_keep_chain)
{
	static struct test_slot s;
	struct config cfg = { 0 };
	struct runstate rs = { .payload = PAYLOAD_KEEP_CHAIN };
	enum drop_reason r = DROP__COUNT;
	struct pkt *p = result(&s, ETH_P_IPV6, 6, PKT_NEW_BYTES, false);

	ck_assert(p->chain_kept);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_PAYLOAD);
	p->set_mark = true;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_PAYLOAD);
	ck_assert_ptr_nonnull(pkt_push(p, 8));
	p->data[0] = 0x60;
	ck_assert(!p->chain_kept);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r),
			 REINJECT_DROP_REASON);
	ck_assert_int_eq(r, DROP_REINJECT);
	p->set_mark = false;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_OWN_DEV);
	p = result(&s, ETH_P_IPV6, 6, PKT_NEW_BYTES, false);
	pkt_pull(p, 0);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_OWN_DEV);
	p = result(&s, ETH_P_IPV6, 6, PKT_NEW_BYTES, false);
	pkt_chain_write(p);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_OWN_DEV);
	p = result(&s, ETH_P_IPV6, 6, PKT_ACCEPT, false);
	pkt_chain_write(p);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_ACCEPT);
}
END_TEST

/* What the running kernel accepts, from its release and user namespace. */
START_TEST(test_reinject_kernel_rule)
{
	static const struct {
		const char *release;
		bool init_userns;
		enum payload_rule want;
	} t[] = {
		{ "6.18.0-1-amd64", true, PAYLOAD_ANY },
		{ "6.18.0-1-amd64", false, PAYLOAD_ANY },
		{ "7.0.3", false, PAYLOAD_ANY },
		{ "7.1.0", true, PAYLOAD_ANY },
		{ "7.1.0", false, PAYLOAD_NONE },
		{ "7.2.0-rc2", true, PAYLOAD_KEEP_CHAIN },
		{ "7.2.0-k72", false, PAYLOAD_NONE },
		{ "7.10.1", true, PAYLOAD_KEEP_CHAIN },
		{ "8.0", true, PAYLOAD_KEEP_CHAIN },
		{ "unknown", true, PAYLOAD_ANY },
	};
	char why[128];

	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_int_eq(reinject_kernel_rule(t[i].release,
			t[i].init_userns, why, sizeof(why)), t[i].want);
	reinject_kernel_rule("7.2.0-k72", true, why, sizeof(why));
	ck_assert_str_eq(why, "kernel 7.2.0-k72 >= 7.2 refuses a payload that "
			 "changes the header chain");
	ck_assert(reinject_uid_map_initial("         0          0 4294967295\n"));
	ck_assert(!reinject_uid_map_initial("         0       1000          1\n"));
	ck_assert(!reinject_uid_map_initial("0 0 4294967295\n1 1 1\n"));
	ck_assert(!reinject_uid_map_initial(""));
}
END_TEST

START_TEST(test_reinject_decide_too_big)
{
	static struct test_slot s;
	struct config cfg = { 0 };
	struct runstate rs = { .payload = PAYLOAD_ANY };
	enum drop_reason r = DROP__COUNT;
	struct pkt *p = result(&s, ETH_P_IPV6, 6, PKT_NEW_BYTES, false);

	p->len = NFQ_MAX_PAYLOAD;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_PAYLOAD);
	p->len = NFQ_MAX_PAYLOAD + 1;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_DROP_REASON);
	ck_assert_int_eq(r, DROP_TOO_BIG);
}
END_TEST

/* An ICMP error srv6d originates (icmp4_error() sets local_out) leaves by
 * the raw socket, from either hook and with `reinject tun` too; the flag
 * means nothing on an IPv6 result or a packet that is not forwarded. */
START_TEST(test_reinject_decide_local)
{
	static struct test_slot s;
	struct config cfg = { 0 };
	struct runstate rs = { .payload = PAYLOAD_ANY };
	enum drop_reason r = DROP__COUNT;
	struct pkt *p;

	p = result(&s, ETH_P_IP, 4, PKT_NEW_BYTES, false);
	p->local_out = true;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_LOCAL);
	p = result(&s, ETH_P_IPV6, 4, PKT_NEW_BYTES, false);
	p->local_out = true;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_LOCAL);
	rs.payload = PAYLOAD_NONE;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_LOCAL);
	rs.payload = PAYLOAD_ANY;
	p = result(&s, ETH_P_IPV6, 6, PKT_NEW_BYTES, false);
	p->local_out = true;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_PAYLOAD);
	p = result(&s, ETH_P_IP, 4, PKT_DROP, false);
	p->local_out = true;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_DROP);
	p = result(&s, ETH_P_IP, 4, PKT_NEW_BYTES, false);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_PAYLOAD);
	ck_assert_int_eq(r, DROP__COUNT);
}
END_TEST

/* ---- the verdict batch: NFQ_BATCH verdicts, one more is fatal ------------ */

static void verdicts_add(struct nfq *q, unsigned n)
{
	static uint8_t data[40];
	struct pkt p = { .data = data, .len = sizeof(data) };

	for (unsigned i = 0; i < n; i++) {
		p.id = i + 1;
		nfq_verdict_add(q, &p, i % 2 ? NF_DROP : NF_ACCEPT, i % 2 == 0);
	}
}

/* ---- verdict payloads of super-packets and partial checksums ------------ */

/* A super-packet's payload goes as it is (reinject_decide() chose it); a
 * partial checksum given as payload is completed in place, without a
 * payload the kernel keeps CHECKSUM_PARTIAL: untouched. */
START_TEST(test_verdict_gso_and_partial)
{
	static uint8_t v6[sizeof(vec_v6ext_super)], part[sizeof(vec_partial)];
	struct nfq *q = nfq_alloc(3);
	struct worker_stats st = { 0 };
	struct pkt p = { .gso = true, .csum_partial = true };

	ck_assert_ptr_nonnull(q);
	memcpy(v6, vec_v6ext_super, sizeof(v6));
	p.data = v6;
	p.len = p.orig_len = sizeof(v6);
	nfq_verdict_add(q, &p, NF_ACCEPT, true);
	ck_assert_bytes(v6, sizeof(v6), vec_v6ext_super, sizeof(v6));

	memcpy(part, vec_partial, sizeof(part));
	p = (struct pkt){ .csum_partial = true, .data = part,
			  .len = sizeof(part), .orig_len = sizeof(part) };
	nfq_verdict_add(q, &p, NF_ACCEPT, false);
	ck_assert_bytes(part, sizeof(part), vec_partial, sizeof(vec_partial));
	nfq_verdict_add(q, &p, NF_ACCEPT, true);
	ck_assert_bytes(part, sizeof(part), vec_partial_full,
			sizeof(vec_partial_full));

	nfq_verdict_flush(q, &st);	/* no socket: the sends fail */
	ck_assert_uint_eq(st.gso_refused, 0);
	ck_assert_uint_eq(st.csum_completed, 1);
	nfq_socket_close(q);
}
END_TEST

/* A super-packet result (reinject.h): the payload where the kernel
 * segments it right, the vnet socket for TCP in one IP header, userspace
 * segmentation for IP in IP, DROP_GSO for the rest; decided once. */
static struct pkt *super(struct test_slot *s, const uint8_t *b, size_t len,
			 uint16_t hook_proto, uint16_t l4_off)
{
	struct pkt *p = test_pkt(s, b, len, hook_proto);

	p->verdict = PKT_NEW_BYTES;
	p->gso = true;
	p->gso_l4_off = l4_off;
	return p;
}

START_TEST(test_reinject_decide_gso)
{
	static struct test_slot s;
	struct config cfg = { 0 };
	struct runstate rs = { .payload = PAYLOAD_ANY };
	enum drop_reason r = DROP__COUNT;
	struct pkt *p;

	/* SRH SL 2: the kernel would sum the DA: not a payload, the vnet
	 * way (the DA is routed by the main tables: srv6d's device). */
	p = super(&s, vec_v6ext_super, sizeof(vec_v6ext_super), ETH_P_IPV6,
		  112);
	ck_assert_int_eq(reinject_decide_single(&cfg, &rs, NULL, p, &r),
			 REINJECT_PAYLOAD);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r),
			 REINJECT_VNET_OWN_DEV);
	/* SL 0, same layout: the payload; a new layout: the vnet way.  (A
	 * rewrite of the chain in place says so: the GSO parse the last
	 * decision kept on p ends, pkt_chain_write().) */
	pkt_chain_write(p);
	p->data[48 + 3] = 0;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_PAYLOAD);
	p->gso_l4_off = 104;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r),
			 REINJECT_VNET_OWN_DEV);
	/* Marked, no SID with a veth pair: no way: DROP_GSO. */
	p->set_mark = true;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r),
			 REINJECT_DROP_REASON);
	ck_assert_int_eq(r, DROP_GSO);
	/* Encapsulated TCP (IPv4 in IPv6+SRH): a payload of its length; of
	 * a new length (an encapsulation): to be segmented. */
	r = DROP__COUNT;
	p = super(&s, vec_encap4_super, sizeof(vec_encap4_super), ETH_P_IPV6,
		  100);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_PAYLOAD);
	p->orig_len--;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_SEGMENT);
	/* An IPv4 TCP result of the IPv6 hook (a decapsulation), no mark:
	 * srv6d's device, by the vnet socket. */
	p = super(&s, vec_v4_super, sizeof(vec_v4_super), ETH_P_IPV6, 100);
	ck_assert_int_eq(reinject_decide_single(&cfg, &rs, NULL, p, &r),
			 REINJECT_OWN_DEV);
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r),
			 REINJECT_VNET_OWN_DEV);
	ck_assert_int_eq(r, DROP__COUNT);
	/* Not TCP: DROP_GSO. */
	pkt_chain_write(p);
	p->data[9] = IPPROTO_UDP;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r),
			 REINJECT_DROP_REASON);
	ck_assert_int_eq(r, DROP_GSO);
	/* Unchanged, or dropped: as any packet. */
	p->verdict = PKT_ACCEPT;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_ACCEPT);
	p->verdict = PKT_DROP;
	ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r), REINJECT_DROP);
}
END_TEST

/* Linux 7.2 (a result that does not keep the chain), or no payload at
 * all: the vnet way for TCP in one IP header, segments for IP in IP. */
START_TEST(test_reinject_decide_gso_no_payload)
{
	static const enum payload_rule rules[] = { PAYLOAD_KEEP_CHAIN,
						   PAYLOAD_NONE };

	for (unsigned i = 0; i < 2; i++) {
		static struct test_slot s;
		struct config cfg = { 0 };
		struct runstate rs = { .payload = rules[i] };
		enum drop_reason r = DROP__COUNT;
		struct pkt *p;

		p = super(&s, vec_v6ext_super, sizeof(vec_v6ext_super),
			  ETH_P_IPV6, 112);
		pkt_chain_write(p);	/* an End: SL changed */
		ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r),
				 REINJECT_VNET_OWN_DEV);
		p = super(&s, vec_encap4_super, sizeof(vec_encap4_super),
			  ETH_P_IPV6, 100);
		pkt_chain_write(p);
		ck_assert_int_eq(reinject_decide(&cfg, &rs, NULL, p, &r),
				 REINJECT_SEGMENT);
		ck_assert_int_eq(reinject_decide_single(&cfg, &rs, NULL, p, &r),
				 REINJECT_OWN_DEV);
		ck_assert_int_eq(r, DROP__COUNT);
	}
}
END_TEST

/* A vnet batch: every frame behind its virtio_net_hdr (all-zero for a
 * plain one), the frame itself pointed to, not copied, in the order
 * added; a plain batch takes no vnet frame. */
START_TEST(test_pkt_tx_vnet)
{
	static const uint8_t zero[10];
	static uint8_t f1[60] = { 2, 0, 0, 0, 0, 1 }, f2[90];
	struct virtio_net_hdr vh = { .flags = 1, .gso_type = 4,
				     .gso_size = 1000 };
	struct pkt_tx *t = pkt_tx_new_vnet(), *plain = pkt_tx_new();
	const struct iovec *iov;
	size_t n;

	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(plain);
	f1[12] = 0x86;
	f1[13] = 0xdd;
	memcpy(f2, f1, 14);
	ck_assert_int_eq(pkt_tx_add(t, 7, f1, sizeof(f1), NULL), 0);
	ck_assert_int_eq(pkt_tx_add_vnet(t, 7, &vh, f2, sizeof(f2), NULL), 0);
	iov = pkt_tx_iov(t, 0, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_bytes(iov[0].iov_base, iov[0].iov_len, zero, sizeof(zero));
	ck_assert_ptr_eq(iov[1].iov_base, f1);
	ck_assert_uint_eq(iov[1].iov_len, sizeof(f1));
	iov = pkt_tx_iov(t, 1, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_bytes(iov[0].iov_base, iov[0].iov_len, (const uint8_t *)&vh,
			sizeof(vh));
	ck_assert_ptr_eq(iov[1].iov_base, f2);
	ck_assert_ptr_null(pkt_tx_iov(t, 2, &n));
	/* A plain batch: one part; no virtio_net_hdr frame. */
	ck_assert_int_eq(pkt_tx_add(plain, 7, f1, sizeof(f1), NULL), 0);
	iov = pkt_tx_iov(plain, 0, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_eq(iov[0].iov_base, f1);
	ck_assert_int_eq(pkt_tx_add_vnet(plain, 7, &vh, f2, sizeof(f2), NULL),
			 -1);
	ck_assert_uint_eq(pkt_tx_count(plain), 1);
	pkt_tx_free(t);
	pkt_tx_free(plain);
}
END_TEST

/* A plain frame with a mark (pkt_tx_add_mark(): a marked SID's result
 * into the reinjection device): one part, the frame itself, with one
 * SOL_SOCKET SO_MARK control message holding the mark; mark 0 sends none,
 * and neither do the frames around it. */
START_TEST(test_pkt_tx_mark)
{
	static uint8_t f[60] = { 2, 0, 0, 0, 0, 0 };
	struct pkt_tx *t = pkt_tx_new();
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr h;
	} want;
	uint32_t mark = 0x5d6f0004;
	const struct iovec *iov;
	const void *ctl;
	size_t n, len;

	ck_assert_ptr_nonnull(t);
	f[12] = 0x08;
	memset(&want, 0, sizeof(want));
	want.h.cmsg_len = CMSG_LEN(sizeof(mark));
	want.h.cmsg_level = SOL_SOCKET;
	want.h.cmsg_type = SO_MARK;
	memcpy(CMSG_DATA(&want.h), &mark, sizeof(mark));
	ck_assert_int_eq(pkt_tx_add(t, 7, f, sizeof(f), NULL), 0);
	ck_assert_int_eq(pkt_tx_add_mark(t, 7, f, sizeof(f), mark, NULL), 0);
	ck_assert_int_eq(pkt_tx_add_mark(t, 7, f, sizeof(f), 0, NULL), 0);
	ck_assert_int_eq(pkt_tx_add_mark(t, 7, f, 13, mark, NULL), -1);
	ck_assert_uint_eq(pkt_tx_count(t), 3);
	ck_assert_ptr_null(pkt_tx_control(t, 0, &len));
	ctl = pkt_tx_control(t, 1, &len);
	ck_assert_bytes(ctl, len, (const uint8_t *)want.buf, sizeof(want.buf));
	ck_assert_ptr_null(pkt_tx_control(t, 2, &len));
	iov = pkt_tx_iov(t, 1, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_eq(iov[0].iov_base, f);
	ck_assert_uint_eq(iov[0].iov_len, sizeof(f));
	pkt_tx_free(t);
}
END_TEST

/* A frame with a mark: behind its virtio_net_hdr as any vnet frame, with
 * one SOL_SOCKET SO_MARK control message holding the mark (the kernel's
 * __sock_cmsg_send() layout); the frames before and after have none. */
START_TEST(test_pkt_tx_vnet_mark)
{
	static uint8_t f[90] = { 2, 0, 0, 0, 0, 0 };
	struct virtio_net_hdr vh = { .flags = 1, .gso_type = 4,
				     .gso_size = 1364 };
	struct pkt_tx *t = pkt_tx_new_vnet(), *plain = pkt_tx_new();
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr h;
	} want;
	uint32_t mark = 0x5e00;
	const struct iovec *iov;
	const void *ctl;
	size_t n, len;

	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(plain);
	f[12] = 0x86;
	f[13] = 0xdd;
	memset(&want, 0, sizeof(want));
	want.h.cmsg_len = CMSG_LEN(sizeof(mark));
	want.h.cmsg_level = SOL_SOCKET;
	want.h.cmsg_type = SO_MARK;
	memcpy(CMSG_DATA(&want.h), &mark, sizeof(mark));
	ck_assert_int_eq(pkt_tx_add(t, 7, f, sizeof(f), NULL), 0);
	ck_assert_int_eq(pkt_tx_add_vnet_mark(t, 9, &vh, f, sizeof(f), mark,
					      NULL), 0);
	ck_assert_int_eq(pkt_tx_add_vnet(t, 7, &vh, f, sizeof(f), NULL), 0);
	ck_assert_ptr_null(pkt_tx_control(t, 0, &len));
	ctl = pkt_tx_control(t, 1, &len);
	ck_assert_bytes(ctl, len, (const uint8_t *)want.buf, sizeof(want.buf));
	ck_assert_ptr_null(pkt_tx_control(t, 2, &len));
	iov = pkt_tx_iov(t, 1, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_bytes(iov[0].iov_base, iov[0].iov_len, (const uint8_t *)&vh,
			sizeof(vh));
	ck_assert_ptr_eq(iov[1].iov_base, f);
	/* Not in a plain batch. */
	ck_assert_int_eq(pkt_tx_add_vnet_mark(plain, 9, &vh, f, sizeof(f),
					      mark, NULL), -1);
	ck_assert_uint_eq(pkt_tx_count(plain), 0);
	pkt_tx_free(t);
	pkt_tx_free(plain);
}
END_TEST

static void kend_noerr(void *arg, const char *file, unsigned line,
		       const char *msg)
{
	(void)arg;
	ck_abort_msg("%s:%u: %s", file, line, msg);
}

/* An End result: DA segs[sl], SRH SL sl, segments segs (index 0 first,
 * as on the wire). */
static struct pkt *kend_pkt(struct test_slot *s, const char *const *segs,
			    unsigned n, unsigned sl)
{
	uint8_t b[40 + 8 + 16 * 4] = { 0x60 };

	b[4] = 0;
	b[5] = (uint8_t)(8 + 16 * n);	/* payload length: the SRH only */
	b[6] = 43;			/* routing header */
	b[7] = 63;
	inet_pton(AF_INET6, "fc00:1::1", b + 8);
	inet_pton(AF_INET6, segs[sl], b + 24);
	b[40] = 59;			/* no next header */
	b[41] = (uint8_t)(2 * n);
	b[42] = 4;
	b[43] = (uint8_t)sl;
	b[44] = (uint8_t)(n - 1);
	for (unsigned i = 0; i < n; i++)
		inet_pton(AF_INET6, segs[i], b + 48 + 16 * i);
	return test_pkt(s, b, 48 + 16 * n, ETH_P_IPV6);
}

/* End (behavior_end.c) on super-packet p as queued: its facts, and the
 * way back reinject_decide() gives them (REINJECT_KERNEL or not). */
static uint32_t kend_run(const struct config *cfg, const struct runstate *rs,
			 struct pkt *p)
{
	static struct sid_stats sids[8];
	struct worker_stats ws = { 0 };
	struct proc_ctx ctx = { .cfg = cfg, .rs = rs, .stats = &ws,
				.sid_stats = sids };
	enum drop_reason r;
	enum reinject_action a;

	p->gso = true;
	srv6_process(&ctx, p);
	a = reinject_decide(cfg, rs, NULL, p, &r);
	if (p->facts.kernel != PKT_KERNEL_END) {
		ck_assert_int_ne(a, REINJECT_KERNEL);
		return 0;
	}
	ck_assert(p->facts.kernel_from_original);
	ck_assert_int_eq(a, REINJECT_KERNEL);
	return p->facts.kernel_mark;
}

/* Only the result of one plain End, no chain, no local destination, no
 * TLV, is what the kernel's End redoes: the End records its SID's mark,
 * from the top of the range, in p->facts, and the way back is the
 * original with it.  (The packets as queued: SL one more than after.) */
START_TEST(test_kend_facts)
{
	static const char conf[] = "queue 0\ngso yes\n"
		"sid fc00:100::1/128 action End\n"
		"sid fc00:100::2/128 action End\n"
		"sid fc00:100::3/128 action End flavors psp\n"
		"sid fc00:100::4/128 action End.X nh6 fc00:2::2\n";
	static const char *const end[] = { "fc00:9::d6", "fc00:100::1" };
	static const char *const foreign[] = { "fc00:9::d6", "fc00:200::1" };
	static const char *const psp[] = { "fc00:9::d6", "fc00:100::3" };
	static const char *const endx[] = { "fc00:9::d6", "fc00:100::4" };
	static const char *const chain[] = { "fc00:9::d6", "fc00:100::2",
					     "fc00:100::1" };
	static const char *const before[] = { "fc00:9::d6", "fc00:100::1",
					      "fc00:8::1" };
	static const char *const local[] = { "fc00:100::2", "fc00:100::1" };
	static struct test_slot s;
	struct config *cfg = config_parse_buffer("t.conf", conf,
						 sizeof(conf) - 1,
						 kend_noerr, NULL);
	struct runstate *rs = cfg ? runstate_new(cfg) : NULL;
	uint32_t m1;
	struct pkt *p;

	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(kencap_routes_assign(rs, cfg, NULL, NULL), 0);
	/* the top of the default mark-mask's offsets (0xffff0000: 8848) */
	m1 = cfg->mark_base + cfg->mark_count - 1;
	ck_assert_uint_eq(m1, 0x5d6f0000u + ((0x80000000u - 0x5d6f0000u) >> 16)
			  - 1);
	ck_assert_uint_eq(rs->sids[0].kend_mark, m1);
	ck_assert_uint_eq(rs->sids[1].kend_mark, m1 - 1);
	ck_assert_uint_eq(rs->sids[2].kend_mark, 0);	/* psp */
	ck_assert_uint_eq(rs->sids[3].kend_mark, 0);	/* End.X */
	ck_assert_uint_eq(rs->nkends, 2);
	/* off (kencap_routes_resolve() has not said on) */
	ck_assert_uint_eq(kend_run(cfg, rs, kend_pkt(&s, end, 2, 1)), 0);
	rs->kend_on = true;
	ck_assert_uint_eq(kend_run(cfg, rs, kend_pkt(&s, end, 2, 1)), m1);
	ck_assert_uint_eq(kend_run(cfg, rs, kend_pkt(&s, before, 3, 1)), m1);
	/* A TLV (8 bytes of PadN) after the list: the kernel's End would
	 * check an HMAC, so srv6d keeps it. */
	p = kend_pkt(&s, end, 2, 1);
	p->data[5] += 8;	/* payload length */
	p->data[41] += 1;	/* Hdr Ext Len */
	memset(p->data + p->len, 0, 8);
	p->data[p->len] = 4;	/* PadN */
	p->data[p->len + 1] = 6;
	p->len += 8;
	ck_assert_uint_eq(kend_run(cfg, rs, p), 0);
	ck_assert_int_eq(p->verdict, PKT_NEW_BYTES);	/* an End all the same */
	ck_assert(!kend_run(cfg, rs, kend_pkt(&s, foreign, 2, 1)));
	ck_assert(!kend_run(cfg, rs, kend_pkt(&s, psp, 2, 1)));
	ck_assert(!kend_run(cfg, rs, kend_pkt(&s, endx, 2, 1)));
	/* The End of ::1 leads to ::2, whose End srv6d runs next: the
	 * kernel's route of ::1 does not make that. */
	p = kend_pkt(&s, chain, 3, 2);
	ck_assert(!kend_run(cfg, rs, p));
	ck_assert(p->chained);
	ck_assert(!kend_run(cfg, rs, kend_pkt(&s, local, 2, 1)));
	/* Not a super-packet: the End's facts are there, the way back is
	 * not the kernel's. */
	p = kend_pkt(&s, end, 2, 1);
	{
		static struct sid_stats sids[8];
		struct worker_stats ws = { 0 };
		struct proc_ctx ctx = { .cfg = cfg, .rs = rs, .stats = &ws,
					.sid_stats = sids };
		enum drop_reason r;

		srv6_process(&ctx, p);
		ck_assert_uint_eq(p->facts.kernel_mark, m1);
		ck_assert_int_eq(reinject_decide(cfg, rs, NULL, p, &r),
				 REINJECT_PAYLOAD);
	}
	runstate_free(rs);
	config_free(cfg);
}
END_TEST

/* The same cases as test_kend_facts, as queued: a header
 * queue's packet cut short is processed only when kend_from_headers()
 * says its End's result goes to the kernel's End; and not when its SRH
 * goes past the bytes at hand. */
START_TEST(test_kend_from_headers)
{
	static const char conf[] = "queue 0\ngso yes\n"
		"sid fc00:100::1/128 action End\n"
		"sid fc00:100::2/128 action End\n"
		"sid fc00:100::3/128 action End flavors psp\n"
		"sid fc00:100::4/128 action End.X nh6 fc00:2::2\n";
	static const char *const end[] = { "fc00:9::d6", "fc00:100::1" };
	static const char *const foreign[] = { "fc00:9::d6", "fc00:200::1" };
	static const char *const psp[] = { "fc00:9::d6", "fc00:100::3" };
	static const char *const endx[] = { "fc00:9::d6", "fc00:100::4" };
	static const char *const chain[] = { "fc00:9::d6", "fc00:100::2",
					     "fc00:100::1" };
	static const char *const after[] = { "fc00:9::d6", "fc00:100::1",
					     "fc00:100::2" };
	static const char *const before[] = { "fc00:9::d6", "fc00:100::1",
					      "fc00:8::1" };
	static const char *const local[] = { "fc00:100::2", "fc00:100::1" };
	static struct test_slot s;
	struct config *cfg = config_parse_buffer("t.conf", conf,
						 sizeof(conf) - 1,
						 kend_noerr, NULL);
	struct runstate *rs = cfg ? runstate_new(cfg) : NULL;
	struct pkt *p;

	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(kencap_routes_assign(rs, cfg, NULL, NULL), 0);
	ck_assert(!kend_from_headers(cfg, rs, kend_pkt(&s, end, 2, 1)));	/* off */
	rs->kend_on = true;
	ck_assert(kend_from_headers(cfg, rs, kend_pkt(&s, end, 2, 1)));
	ck_assert(kend_from_headers(cfg, rs, kend_pkt(&s, before, 3, 1)));
	ck_assert(!kend_from_headers(cfg, rs, kend_pkt(&s, foreign, 2, 1)));
	ck_assert(!kend_from_headers(cfg, rs, kend_pkt(&s, psp, 2, 1)));
	ck_assert(!kend_from_headers(cfg, rs, kend_pkt(&s, endx, 2, 1)));
	/* the next destination local: a chain */
	ck_assert(!kend_from_headers(cfg, rs, kend_pkt(&s, chain, 3, 2)));
	ck_assert(!kend_from_headers(cfg, rs, kend_pkt(&s, local, 2, 1)));
	/* the segment it came from local (srv6d would have run it) */
	ck_assert(!kend_from_headers(cfg, rs, kend_pkt(&s, after, 3, 1)));
	/* SL 0: no segment left to go to */
	ck_assert(!kend_from_headers(cfg, rs, kend_pkt(&s, end, 2, 0)));
	/* The destination is not segment SL. */
	p = kend_pkt(&s, end, 2, 1);
	p->data[39] ^= 1;
	ck_assert(!kend_from_headers(cfg, rs, p));
	/* A TLV after the list. */
	p = kend_pkt(&s, end, 2, 1);
	p->data[5] += 8;
	p->data[41] += 1;
	memset(p->data + p->len, 0, 8);
	p->data[p->len] = 4;
	p->data[p->len + 1] = 6;
	p->len += 8;
	ck_assert(!kend_from_headers(cfg, rs, p));
	/* Only part of the SRH at hand (a copy range shorter than it). */
	p = kend_pkt(&s, end, 2, 1);
	p->len = 40 + 8 + 16;
	ck_assert(!kend_from_headers(cfg, rs, p));
	runstate_free(rs);
	config_free(cfg);
}
END_TEST

/* A header queue's packet cut short, processed: the End's result is
 * accepted with its SID's kend mark; any other result is bounced (its
 * count taken back), dropped once it came back bounced already; the
 * worker's bounce (PKT_REPEAT) likewise.  All to the header queue. */
START_TEST(test_reinject_truncated)
{
	static const char conf[] = "queue 0\ngso yes\n"
		"sid fc00:100::1/128 action End\n";
	static const char *const end[] = { "fc00:9::d6", "fc00:100::1" };
	static const char *const foreign[] = { "fc00:9::d6", "fc00:200::1" };
	static struct test_slot s[4];
	struct config *cfg = config_parse_buffer("t.conf", conf,
						 sizeof(conf) - 1,
						 kend_noerr, NULL);
	struct runstate *rs = cfg ? runstate_new(cfg) : NULL;
	struct reinject_io io = { .pkt_fd = -1, .raw_fd = -1 };
	struct sid_stats ss = { .packets = 2, .bytes = 140000 };
	struct worker_stats st = { 0 };
	struct nfq *q = nfq_alloc(0);
	uint8_t got[512], want[512];
	unsigned nmsgs = 0;
	struct pkt *p;
	size_t wlen = hex2bin(
		/* the End's hand-off: the mark, and again as the priority
		 * (the guard's G0P puts it back, reinject.c) */
		"30000000 0103 0100 01000000 00000000 00 00 0001"
		"0c00 0200 00000001 00000001 0800 0300 7fff0000"
		"0800 1500 7fff0000"
		"28000000 0103 0100 02000000 00000000 00 00 0001"
		"0c00 0200 00000004 00000002 0800 0300 80000000"
		"20000000 0103 0100 03000000 00000000 00 00 0001"
		"0c00 0200 00000000 00000003"
		"28000000 0103 0100 04000000 00000000 00 00 0001"
		"0c00 0200 00000004 00000004 0800 0300 80000000",
		want, sizeof(want));

	ck_assert_ptr_nonnull(cfg);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(kencap_routes_assign(rs, cfg, NULL, NULL), 0);
	/* the End's verdict mark: kernel-end's top offset (8848) under the
	 * default mark-mask 0xffff0000, 0x5d6f0000 + (8848 << 16) */
	ck_assert_uint_eq(config_mark_value(cfg, rs->sids[0].kend_mark),
			  0x7fff0000u);
	rs->kend_on = true;
	nfq_set_header_queue(q, 1);
	for (uint32_t id = 1; id <= 4; id++) {
		p = kend_pkt(&s[id - 1], id == 1 ? end : foreign, 2, 0);
		p->id = id;
		p->from_hqueue = p->truncated = true;
		p->orig_len = 70000;
		p->verdict = id == 4 ? PKT_REPEAT : PKT_NEW_BYTES;
		if (id != 4) {
			p->outcome = PKT_OUT_OK;
			p->st = &ss;
		}
		if (id == 1) {	/* the End's (behavior_end.c) */
			p->facts.kernel = PKT_KERNEL_END;
			p->facts.kernel_mark = rs->sids[0].kend_mark;
			p->facts.kernel_from_original = true;
		}
		if (id == 3)
			p->mark = config_bounce_bit(cfg);	/* bounced already */
		reinject_packet(cfg, rs, NULL, p, q, &io, &st);
	}
	ck_assert_uint_eq(st.forwarded + st.bounced + st.dropped, 0);
	reinject_flush(&io, &st);	/* counted once their way is known */
	ck_assert_bytes(got, nfq_verdict_pending(q, got, sizeof(got), &nmsgs),
			want, wlen);
	ck_assert_uint_eq(nmsgs, 4);
	ck_assert_uint_eq(st.forwarded, 1);
	ck_assert_uint_eq(st.kend, 1);
	ck_assert_uint_eq(st.bounced, 2);
	ck_assert_uint_eq(st.dropped, 1);
	ck_assert_uint_eq(st.drops[DROP_BOUNCE_LOOP], 1);
	/* ids 2 and 3 taken back: only the End's count stays */
	ck_assert_uint_eq(ss.packets, 0);
	ck_assert_uint_eq(ss.bytes, 0);
	ck_assert_uint_eq(ss.errors, 0);
	nfq_socket_close(q);
	runstate_free(rs);
	config_free(cfg);
}
END_TEST

/* The mark's second carrier (reinject.c reinject_mark_carrier()): the
 * End's hand-off gives its mark as the priority too only with `steering
 * auto` (the guard that reads it back and clears it) and only for a
 * packet that came with priority 0 (NFQA_PRIORITY absent). */
START_TEST(test_reinject_mark_carrier)
{
	static const char conf_no[] = "queue 0\ngso yes\nsteering no\n"
		"sid fc00:100::1/128 action End\n";
	static const char conf_auto[] = "queue 0\ngso yes\n"
		"sid fc00:100::1/128 action End\n";
	static const char *const end[] = { "fc00:9::d6", "fc00:100::1" };
	static struct test_slot s[4];
	struct config *cno = config_parse_buffer("t.conf", conf_no,
						 sizeof(conf_no) - 1,
						 kend_noerr, NULL);
	struct config *cauto = config_parse_buffer("t.conf", conf_auto,
						   sizeof(conf_auto) - 1,
						   kend_noerr, NULL);
	struct runstate *rs = cauto ? runstate_new(cauto) : NULL;
	struct reinject_io io = { .pkt_fd = -1, .raw_fd = -1 };
	struct sid_stats ss = { 0 };
	struct worker_stats st = { 0 };
	struct nfq *q = nfq_alloc(0);
	uint8_t got[512], want[512];
	unsigned nmsgs = 0;
	struct pkt *p;
	size_t wlen = hex2bin(
		/* steering no: the mark only */
		"28000000 0103 0100 01000000 00000000 00 00 0001"
		"0c00 0200 00000001 00000001 0800 0300 7fff0000"
		/* steering auto, priority 5 when queued: the mark only */
		"28000000 0103 0100 02000000 00000000 00 00 0001"
		"0c00 0200 00000001 00000002 0800 0300 7fff0000"
		/* steering auto, priority 0: the mark and the priority */
		"30000000 0103 0100 03000000 00000000 00 00 0001"
		"0c00 0200 00000001 00000003 0800 0300 7fff0000"
		"0800 1500 7fff0000"
		/* from output (an operator's own queue rule): the mark
		 * only, the guard is in prerouting */
		"28000000 0103 0100 04000000 00000000 00 00 0001"
		"0c00 0200 00000001 00000004 0800 0300 7fff0000",
		want, sizeof(want));

	ck_assert_ptr_nonnull(cno);
	ck_assert_ptr_nonnull(cauto);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(kencap_routes_assign(rs, cauto, NULL, NULL), 0);
	rs->kend_on = true;
	nfq_set_header_queue(q, 1);	/* a header queue's: handed off */
	for (uint32_t id = 1; id <= 4; id++) {
		p = kend_pkt(&s[id - 1], end, 2, 0);
		p->id = id;
		p->from_hqueue = p->truncated = true;
		p->orig_len = 70000;
		p->verdict = PKT_NEW_BYTES;
		p->outcome = PKT_OUT_OK;
		p->st = &ss;
		p->priority = id == 2 ? 5 : 0;
		p->hook = id == 4 ? NF_INET_LOCAL_OUT : NF_INET_PRE_ROUTING;
		p->facts.kernel = PKT_KERNEL_END;
		p->facts.kernel_mark = rs->sids[0].kend_mark;
		p->facts.kernel_from_original = true;
		reinject_packet(id == 1 ? cno : cauto, rs, NULL, p, q, &io,
				&st);
	}
	reinject_flush(&io, &st);
	ck_assert_bytes(got, nfq_verdict_pending(q, got, sizeof(got), &nmsgs),
			want, wlen);
	ck_assert_uint_eq(nmsgs, 4);
	ck_assert_uint_eq(st.kend, 4);
	nfq_socket_close(q);
	runstate_free(rs);
	config_free(cno);
	config_free(cauto);
}
END_TEST

/* mark-mask 0xffff0000 (srv6d's field the high 16 bits, the operator's
 * the low ones): the End's packet goes to the kernel's End with its
 * kernel-end mark in srv6d's field (0x7fff0000, the top offset) and the
 * operator's bit kept; a bounce sets the bounce bit and keeps the
 * operator's bits; a packet that comes back with the bounce bit and a
 * rewritten mark (0x100 set) is not bounced again: bounce_loop.  With the
 * default mask too (the probe: --set-xmark 0x100/0x100 on a
 * bounced packet). */
START_TEST(test_reinject_mark_mask)
{
	static const char conf[] = "queue 0\ngso yes\nmark-base 0x10000\n"
		"mark-mask 0xffff0000\nsid fc00:100::1/128 action End\n";
	static const char conf_default[] = "queue 0\ngso yes\n"
		"sid fc00:100::1/128 action End\n";
	static const char *const end[] = { "fc00:9::d6", "fc00:100::1" };
	static const char *const foreign[] = { "fc00:9::d6", "fc00:200::1" };
	static const uint32_t marks[] = { 0x1, 0x101, 0x80000100u };
	static struct test_slot s[4];
	struct config *cfg = config_parse_buffer("t.conf", conf,
						 sizeof(conf) - 1,
						 kend_noerr, NULL);
	struct config *dcfg = config_parse_buffer("t.conf", conf_default,
						  sizeof(conf_default) - 1,
						  kend_noerr, NULL);
	struct runstate *rs = cfg ? runstate_new(cfg) : NULL;
	struct reinject_io io = { .pkt_fd = -1, .raw_fd = -1 };
	struct sid_stats ss = { .packets = 3, .bytes = 210000 };
	struct worker_stats st = { 0 };
	struct nfq *q = nfq_alloc(0);
	uint8_t got[512], want[512];
	unsigned nmsgs = 0;
	struct pkt *p;
	size_t wlen = hex2bin(
		"30000000 0103 0100 01000000 00000000 00 00 0001"
		"0c00 0200 00000001 00000001 0800 0300 7fff0001"
		"0800 1500 7fff0001"	/* the operator's bit 0x1 too */
		"28000000 0103 0100 02000000 00000000 00 00 0001"
		"0c00 0200 00000004 00000002 0800 0300 80000101"
		"20000000 0303 0100 04000000 00000000 00 00 0001"
		"0c00 0200 00000000 00000004",
		want, sizeof(want));

	ck_assert_ptr_nonnull(cfg);
	ck_assert_ptr_nonnull(dcfg);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(kencap_routes_assign(rs, cfg, NULL, NULL), 0);
	ck_assert_uint_eq(rs->sids[0].kend_mark, 0x10000 + 0x7ffe);
	rs->kend_on = true;
	nfq_set_header_queue(q, 1);
	for (uint32_t id = 1; id <= 4; id++) {
		p = kend_pkt(&s[id - 1], id == 1 ? end : foreign, 2, 0);
		p->id = id;
		p->from_hqueue = p->truncated = true;
		p->orig_len = 70000;
		p->verdict = PKT_NEW_BYTES;
		p->outcome = PKT_OUT_OK;
		p->st = &ss;
		p->mark = id <= 3 ? marks[id - 1] : 0x80000100u;
		if (id == 1) {	/* the End's (behavior_end.c) */
			p->facts.kernel = PKT_KERNEL_END;
			p->facts.kernel_mark = rs->sids[0].kend_mark;
			p->facts.kernel_from_original = true;
		}
		/* id 4: the default mask's */
		reinject_packet(id == 4 ? dcfg : cfg, rs, NULL, p, q, &io, &st);
	}
	reinject_flush(&io, &st);
	ck_assert_bytes(got, nfq_verdict_pending(q, got, sizeof(got), &nmsgs),
			want, wlen);
	ck_assert_uint_eq(nmsgs, 3);
	ck_assert_uint_eq(st.kend, 1);
	ck_assert_uint_eq(st.bounced, 1);
	ck_assert_uint_eq(st.dropped, 2);
	ck_assert_uint_eq(st.drops[DROP_BOUNCE_LOOP], 2);
	nfq_socket_close(q);
	runstate_free(rs);
	config_free(dcfg);
	config_free(cfg);
}
END_TEST

/* The gso_size: the least room any known MTU leaves behind the headers;
 * IPv6's minimum link MTU when none is known. */
START_TEST(test_reinject_gso_size)
{
	static struct test_slot s;
	struct config cfg = { 0 };
	struct runstate rs = { .payload = PAYLOAD_ANY };
	struct pkt *p = super(&s, vec_v4_super, sizeof(vec_v4_super),
			      ETH_P_IPV6, 100);

	ck_assert_uint_eq(reinject_mtu_room(1500, 52, UINT32_MAX), 1448);
	ck_assert_uint_eq(reinject_mtu_room(9000, 52, 1448), 1448);
	ck_assert_uint_eq(reinject_mtu_room(0, 52, 1448), 1448);
	ck_assert_uint_eq(reinject_mtu_room(40, 52, 1448), 1448);
	/* No mirror: 1280 - 20 - 32. */
	ck_assert_uint_eq(reinject_gso_size(NULL, &cfg, &rs, p, 7), 1228);
	pkt_chain_write(p);	/* the parse kept on p ends */
	p->data[9] = IPPROTO_UDP;
	ck_assert_uint_eq(reinject_gso_size(NULL, &cfg, &rs, p, 7), 0);
}
END_TEST

START_TEST(test_verdict_batch_holds_a_batch)
{
	struct nfq *q = nfq_alloc(3);

	ck_assert_ptr_nonnull(q);
	verdicts_add(q, NFQ_BATCH);	/* a whole batch: no abort */
	nfq_socket_close(q);
}
END_TEST

/* Before the fix the verdict was dropped silently (the packet left
 * without one): the test ended normally instead of with SIGABRT. */
START_TEST(test_verdict_batch_overflow_aborts)
{
	struct nfq *q = nfq_alloc(3);

	ck_assert_ptr_nonnull(q);
	verdicts_add(q, NFQ_BATCH + 1);
	nfq_socket_close(q);
}
END_TEST

/* ---- the watchdog's heartbeat check -------------------------------------- */

#define STALL_NS	2000000000ull

START_TEST(test_beat_stale)
{
	uint64_t now = 100 * STALL_NS;

	ck_assert(!engine_beat_stale(now, now));
	ck_assert(!engine_beat_stale(now, now - STALL_NS));
	ck_assert(engine_beat_stale(now, now - STALL_NS - 1));
	ck_assert(engine_beat_stale(now, 0));
}
END_TEST

/* A busy worker beats after the watchdog read `now`: before the fix,
 * now - beat wrapped and the healthy worker looked stuck. */
START_TEST(test_beat_newer_than_now)
{
	uint64_t now = 100 * STALL_NS;

	ck_assert(!engine_beat_stale(now, now + 1));
	ck_assert(!engine_beat_stale(now, now + 50000));
	ck_assert(!engine_beat_stale(0, 1));
}
END_TEST

static Suite *nfq_suite(void)
{
	Suite *s = suite_create("nfq");
	TCase *build = tcase_create("verdict");
	TCase *parser = tcase_create("parse");
	TCase *rj = tcase_create("reinject");
	TCase *batch = tcase_create("batch");
	TCase *wd = tcase_create("watchdog");

	tcase_add_test(build, test_verdict_accept_unchanged);
	tcase_add_test(build, test_verdict_drop);
	tcase_add_test(build, test_verdict_payload_and_mark);
	tcase_add_test(build, test_verdict_mark_and_priority);
	tcase_add_test(build, test_verdict_add_priority);
	tcase_add_test(build, test_verdict_payload_padding);
	tcase_add_test(build, test_verdict_batch_build);
	tcase_add_test(build, test_verdict_drop_runs);
	tcase_add_test(build, test_verdict_header_queue);
	tcase_add_test(build, test_verdict_drop_run_order);
	tcase_add_test(build, test_verdict_drop_run_counters);
	tcase_add_test(build, test_verdict_hold);
	suite_add_tcase(s, build);

	tcase_add_test(parser, test_parse_packet_mark_indev);
	tcase_add_test(parser, test_parse_hwaddr);
	tcase_add_test(parser, test_parse_packet_minimal);
	tcase_add_test(parser, test_parse_family_wins_over_hw_protocol);
	tcase_add_test(parser, test_parse_truncated_payload);
	tcase_add_test(parser, test_parse_truncated_attr_header);
	tcase_add_test(parser, test_parse_short_mark);
	tcase_add_test(parser, test_parse_priority);
	tcase_add_test(parser, test_parse_no_payload);
	tcase_add_test(parser, test_parse_cap_len);
	tcase_add_test(parser, test_parse_header_queue);
	tcase_add_test(parser, test_parse_skb_info);
	tcase_add_test(parser, test_verdict_gso_and_partial);
	tcase_add_test(parser, test_reinject_decide_gso);
	tcase_add_test(parser, test_reinject_decide_gso_no_payload);
	tcase_add_test(parser, test_reinject_gso_size);
	tcase_add_test(parser, test_pkt_tx_vnet);
	tcase_add_test(parser, test_pkt_tx_vnet_mark);
	tcase_add_test(parser, test_kend_facts);
	tcase_add_test(parser, test_pkt_tx_mark);
	tcase_add_test(parser, test_kend_from_headers);
	tcase_add_test(parser, test_reinject_truncated);
	tcase_add_test(parser, test_reinject_mark_mask);
	tcase_add_test(parser, test_reinject_mark_carrier);
	tcase_add_test(parser, test_parse_no_packet_hdr);
	tcase_add_test(parser, test_parse_nlmsg_error);
	tcase_add_test(parser, test_parse_not_a_packet);
	tcase_add_test(parser, test_parse_bad_nlmsg_len);
	suite_add_tcase(s, parser);

	tcase_add_test(rj, test_reinject_decide);
	tcase_add_test(rj, test_reinject_decide_tun_always);
	tcase_add_test(rj, test_reinject_decide_keep_chain);
	tcase_add_test(rj, test_reinject_kernel_rule);
	tcase_add_test(rj, test_reinject_decide_too_big);
	tcase_add_test(rj, test_reinject_decide_local);
	suite_add_tcase(s, rj);

	/* Needs Check's fork mode (the default): the abort ends a child. */
	tcase_add_test(batch, test_verdict_batch_holds_a_batch);
	tcase_add_test_raise_signal(batch, test_verdict_batch_overflow_aborts,
				    SIGABRT);
	tcase_add_test_raise_signal(batch, test_verdict_drop_run_whole_batch,
				    SIGABRT);
	suite_add_tcase(s, batch);

	tcase_add_test(wd, test_beat_stale);
	tcase_add_test(wd, test_beat_newer_than_now);
	suite_add_tcase(s, wd);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(nfq_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
