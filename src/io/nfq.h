/* nfq.h - NFQUEUE socket I/O: bind a queue, receive batches of packets into
 * headroom slots, send the verdicts of a batch in one sendmsg() (split where
 * it exceeds the socket's send limit).
 *
 * One struct nfq per queue, used by one worker thread.  Everything the
 * packet path needs (slots, iovecs, verdict headers) is allocated by
 * nfq_socket_open(); nfq_recv_batch() and nfq_verdict_flush() never allocate.
 *
 * The parsing and verdict-building functions are pure, so that
 * tests/check_nfq.c can check them byte by byte without a kernel.
 */
#ifndef SRV6D_NFQ_H
#define SRV6D_NFQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "pkt.h"
#include "stats.h"

#define NFQ_BATCH		64	/* messages per recvmmsg() */
/* A slot: headroom, the netlink message (payload up to 64 KiB), and room
 * for the netlink headers and attributes around the payload. */
#define NFQ_SLOT_SIZE		(PKT_HEADROOM + 65536 + 512)
#define NFQ_DEFAULT_MAXLEN	8192	/* packets the kernel may hold queued */
/* nla_len is 16 bits: the largest payload a verdict can carry. */
#define NFQ_MAX_PAYLOAD		PKT_MAX_LEN
/* nlmsghdr + nfgenmsg + NFQA_VERDICT_HDR + NFQA_MARK + NFQA_PRIORITY +
 * NFQA_PAYLOAD header */
#define NFQ_VERDICT_HDR_MAX	(16 + 4 + 12 + 8 + 8 + 4)
#define NFQ_VERDICT_IOV_MAX	3	/* header, payload, padding */
/* How long a worker blocks for the next batch: how soon it sees a stop,
 * and the longest a held NF_DROP run (nfq_verdict_hold()) waits. */
#define NFQ_RECV_TIMEOUT_MS	10
/* A held NF_DROP run goes out with the first batch that finds it this
 * old or this long. */
#define NFQ_HOLD_NS		2000000ull
#define NFQ_HOLD_MAX		NFQ_BATCH

struct nfq;

/* Open a netlink socket, bind `queue` (copy whole packets, at most maxlen
 * queued, no fail-open, no GSO, no conntrack).  Returns NULL with a
 * message in err (e.g. bind refused: another program holds the queue). */
struct nfq *nfq_socket_open(unsigned queue, uint32_t maxlen, char *err,
			    size_t errlen);

/* nfq_socket_open() flags. */
#define NFQ_OPEN_GSO	0x1	/* NFQA_CFG_F_GSO: super-packets whole,
				 * partial checksums kept (pkt.h) */

/* nfq_socket_open() with flags (NFQ_OPEN_*). */
struct nfq *nfq_socket_open_flags(unsigned queue, uint32_t maxlen,
				  unsigned flags, char *err, size_t errlen);

/* Also bind hqueue on q's socket, a header queue: packets longer than
 * `copy` bytes arrive cut short (NFQA_CAP_LEN), as p->truncated with
 * p->from_hqueue (`header-queue`, srv6d.conf(5)); same maxlen and flags.
 * Verdicts go to the queue each packet came from.  Returns 0, or -1 with
 * a message in err. */
int nfq_bind_header_queue(struct nfq *q, unsigned hqueue, uint32_t copy,
			  uint32_t maxlen, unsigned flags, char *err,
			  size_t errlen);

/* Make hqueue q's header queue: nfq_bind_header_queue()'s last step, the
 * tests' way on a struct nfq from nfq_alloc(). */
void nfq_set_header_queue(struct nfq *q, unsigned hqueue);

/* The buffers of `queue` without a socket (nfq_socket_open()'s first
 * step; the tests' way to a struct nfq): verdicts can be added, not sent.
 * Returns NULL when memory runs out. */
struct nfq *nfq_alloc(unsigned queue);

/* Unbind the queue (the kernel drops what is still queued) and free
 * everything.  q may be NULL, or from nfq_alloc(). */
void nfq_socket_close(struct nfq *q);

/* Receive up to NFQ_BATCH messages.  wait: block (up to the socket's
 * receive timeout, NFQ_RECV_TIMEOUT_MS) for the first one; otherwise return at once.
 * Fills pkts[0..n) with the packets that need a verdict; process[i] is
 * false for a message that was a packet but could not be parsed (its
 * verdict is PKT_DROP, counted in bad_messages).  Returns n >= 0, or -1
 * with errno EAGAIN (nothing arrived) or another recv error (counted). */
int nfq_recv_batch(struct nfq *q, bool wait, struct pkt *pkts,
		   bool *process, struct worker_stats *st);

/* Queue the verdict for one packet of the current batch (to the header
 * queue for p->from_hqueue).  nf_verdict is NF_ACCEPT, NF_DROP or
 * NF_REPEAT; with_payload sends p->data[0..len) back (pointed to, not
 * copied); the mark goes along when p->set_mark and the verdict is
 * NF_ACCEPT or NF_REPEAT.  A payload with a partial checksum (p->csum_partial) is
 * completed in place first (counted in csum_completed); a super-packet
 * (p->gso) is given as its payload only where the kernel segments it
 * right (reinject_decide() decides it).
 * There is room for NFQ_BATCH verdicts, one per packet of a batch: one
 * more (a packet given two verdicts) aborts srv6d.  Packets are added in
 * the order they were received (id order): a plain NF_DROP (no payload)
 * right after another becomes part of one NFQNL_MSG_VERDICT_BATCH up to
 * its id (nfq.c, nfq_verdict_extend(), says why that is exact). */
void nfq_verdict_add(struct nfq *q, const struct pkt *p, uint32_t nf_verdict,
		     bool with_payload);

/* Send every queued verdict: one sendmsg() when it fits the socket's send
 * buffer, retried once on EINTR/ENOBUFS, then one message at a time (a
 * packet whose verdict still cannot be sent is given NF_DROP without
 * payload, a run its batch NF_DROP).  Counts the packets in verdicts and
 * the sendmsg() calls in verdict_batches.  Returns 0, or -1 if some
 * verdict could not be sent at all (counted in send_errors). */
int nfq_verdict_flush(struct nfq *q, struct worker_stats *st);

/* Keep the current batch's verdicts for the next batch when they are one
 * run of plain NF_DROPs (the originals whose results left by a device, or
 * dropped packets): the next batch's drops grow that run, and its
 * verdicts carry it in their sendmsg().  At a packet a wakeup that is the
 * one system call a packet of a family-changing behavior (or any other
 * result sent by a device) would otherwise pay for its original's drop;
 * the packets' results have left already, so holding back the drop
 * delays no traffic.  A run is held while it is younger than NFQ_HOLD_NS
 * (by now_ns, the batch's clock) and shorter than NFQ_HOLD_MAX packets;
 * the worker sends it when its receive times out (NFQ_RECV_TIMEOUT_MS)
 * and before the queue is closed.  Returns true when held (nothing to
 * send now), false when the caller must nfq_verdict_flush(). */
bool nfq_verdict_hold(struct nfq *q, uint64_t now_ns);

/* Whether verdicts are waiting to be sent (a held run). */
bool nfq_verdict_waiting(const struct nfq *q);

/* The bytes the next nfq_verdict_flush() would send, laid end to end in
 * buf (the tests' view), and in *nmsgs the number of netlink messages.
 * Returns their length, or 0 when more than len. */
size_t nfq_verdict_pending(const struct nfq *q, uint8_t *buf, size_t len,
			   unsigned *nmsgs);

/* Send q's verdicts on fd (the tests': a netlink socket of their own on
 * a struct nfq from nfq_alloc(); nfq_socket_close() does not close it). */
void nfq_attach_fd(struct nfq *q, int fd);

/* ---- pure helpers (tested without a kernel) ---------------------------- */

/* Result of parsing one received datagram. */
enum nfq_parse_result {
	NFQ_PARSE_NONE,		/* nothing to give a verdict to */
	NFQ_PARSE_PACKET,	/* p is a packet to process */
	NFQ_PARSE_BAD_PACKET,	/* p->id is valid, the rest is not: drop it */
};

/* Parse the datagram of `len` bytes received at `msg` inside the slot
 * [slot, slot_end).  Fills p (head = slot, data = the payload, end =
 * slot_end).  Counts NLMSG_ERROR messages in st->nl_errors and unusable
 * messages in st->bad_messages. */
enum nfq_parse_result nfq_parse(uint8_t *slot, uint8_t *slot_end,
				uint8_t *msg, size_t len, struct pkt *p,
				struct worker_stats *st);

/* nfq_parse() on a socket that also serves header queue hqueue (-1:
 * none): a packet of that queue is p->from_hqueue, and one cut short by
 * its copy range is p->truncated (counted in hq_truncated) instead of a
 * bad message. */
enum nfq_parse_result nfq_parse_hq(uint8_t *slot, uint8_t *slot_end,
				   uint8_t *msg, size_t len, int hqueue,
				   struct pkt *p, struct worker_stats *st);

/* Build the verdict message for packet `id` of `queue` in hdr (at least
 * NFQ_VERDICT_HDR_MAX bytes) and iov[0..NFQ_VERDICT_IOV_MAX): the header,
 * then (payload != NULL) the payload itself and its padding to 4 bytes.
 * mark is sent when non-NULL, priority (NFQA_PRIORITY: skb->priority)
 * when not 0.  Returns the number of iovecs used; the message's total
 * length is the sum of their lengths (nlmsg_len). */
unsigned nfq_verdict_build(uint8_t *hdr, uint16_t queue, uint32_t id,
			   uint32_t nf_verdict, const uint32_t *mark,
			   uint32_t priority, const uint8_t *payload,
			   uint32_t plen, struct iovec *iov);

/* Build a NFQNL_MSG_VERDICT_BATCH: nf_verdict for every packet still
 * queued with an id up to maxid (serial number order), in hdr (at least
 * NFQ_VERDICT_HDR_MAX bytes) and iov[0].  Returns 1 (iovecs used). */
unsigned nfq_verdict_batch_build(uint8_t *hdr, uint16_t queue, uint32_t maxid,
				 uint32_t nf_verdict, struct iovec *iov);

#endif
