/* nfq.c - NFQUEUE socket I/O with libmnl: bind, recvmmsg() batches into
 * headroom slots, message parsing, batched verdicts in one sendmsg() (split
 * at the socket's send limit).
 *
 * Every queued packet gets exactly one verdict.  Each error path below says
 * what happens to the packet: the queue is bound without fail-open, so a
 * packet the kernel cannot hand to us is dropped by the kernel, never passed
 * through unprocessed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* recvmmsg() */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#include "gso.h"
#include "log.h"
#include "nfq.h"

#define NFQ_SOCKBUF		(8 << 20)	/* receive/send buffers: bursts */
#define NFQ_NLMSG_PACKET	((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET)
#define NFQ_NLMSG_VERDICT	((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_VERDICT)
#define NFQ_NLMSG_VERDICT_BATCH	((NFNL_SUBSYS_QUEUE << 8) | \
				 NFQNL_MSG_VERDICT_BATCH)

#define NFQ_VMSG_MAX	(NFQ_BATCH + 1)	/* a batch's messages and a held run */

/* One per worker, written by that worker at every packet: cache-line
 * aligned (and so padded) so that no two workers' state shares a line. */
struct nfq {
	struct mnl_socket *nl;
	int fd;
	unsigned queue;
	bool has_hqueue;		/* also bound: hqueue (header queue) */
	unsigned hqueue;
	uint32_t csum_completed;
	size_t send_limit;		/* largest sendmsg() the socket takes */
	uint8_t *slots;			/* NFQ_BATCH * NFQ_SLOT_SIZE */

	struct mmsghdr rx_msgs[NFQ_BATCH];
	struct iovec rx_iov[NFQ_BATCH];
	struct sockaddr_nl rx_from[NFQ_BATCH];

	/* Verdicts of the current batch: nverdicts messages for npackets
	 * packets (a NFQNL_MSG_VERDICT_BATCH message covers a run), after
	 * the run held from the batch before, if any (nfq_verdict_hold():
	 * hence one message more than a batch has packets). */
	unsigned nverdicts;
	unsigned npackets;
	unsigned niov;
	bool run_open;			/* the last message may grow a run */
	uint32_t run_verdict;
	uint64_t held_since_ns;		/* 0: no run held */
	uint8_t vhdr[NFQ_VMSG_MAX][NFQ_VERDICT_HDR_MAX] __attribute__((aligned(8)));
	struct iovec viov[NFQ_VMSG_MAX * NFQ_VERDICT_IOV_MAX];
	unsigned vfirst_iov[NFQ_VMSG_MAX + 1];	/* message i: viov[vfirst_iov[i]..] */
	size_t vlen[NFQ_VMSG_MAX];
	uint32_t vid[NFQ_VMSG_MAX];	/* message i's id (a batch's highest) */
	uint16_t vqueue[NFQ_VMSG_MAX];	/* message i's queue */
	unsigned vcount[NFQ_VMSG_MAX];	/* packets message i gives a verdict */
} __attribute__((aligned(64)));

static const uint8_t nfq_zero_pad[4];

/* ---- verdict building --------------------------------------------------- */

static size_t nfq_put_attr(uint8_t *buf, size_t off, uint16_t type,
			   const void *data, uint16_t len, uint16_t nla_len)
{
	struct nlattr nla = { .nla_len = nla_len, .nla_type = type };

	memcpy(buf + off, &nla, sizeof(nla));
	if (len)
		memcpy(buf + off + sizeof(nla), data, len);
	return off + MNL_ALIGN(sizeof(nla) + len);
}

/* nfq_verdict_build() and nfq_verdict_batch_build(): the message of type
 * `type` (the two share their layout; a batch has no payload). */
static unsigned nfq_verdict_msg_build(uint8_t *hdr, uint16_t type,
				      uint16_t queue, uint32_t id,
				      uint32_t nf_verdict, const uint32_t *mark,
				      uint32_t priority, const uint8_t *payload,
				      uint32_t plen, struct iovec *iov)
{
	struct nlmsghdr nlh = {
		.nlmsg_type = type,
		.nlmsg_flags = NLM_F_REQUEST,
		.nlmsg_seq = id,	/* an NLMSG_ERROR names the packet */
	};
	struct nfgenmsg nfg = {
		.nfgen_family = AF_UNSPEC,
		.version = NFNETLINK_V0,
		.res_id = htons(queue),
	};
	struct nfqnl_msg_verdict_hdr vh = {
		.verdict = htonl(nf_verdict),
		.id = htonl(id),
	};
	size_t off = NLMSG_HDRLEN;
	unsigned n = 1;

	memcpy(hdr + off, &nfg, sizeof(nfg));
	off += MNL_ALIGN(sizeof(nfg));
	off = nfq_put_attr(hdr, off, NFQA_VERDICT_HDR, &vh, sizeof(vh),
			   NLA_HDRLEN + sizeof(vh));
	if (mark) {
		uint32_t m = htonl(*mark);

		off = nfq_put_attr(hdr, off, NFQA_MARK, &m, sizeof(m),
				   NLA_HDRLEN + sizeof(m));
	}
	if (priority) {
		uint32_t v = htonl(priority);

		off = nfq_put_attr(hdr, off, NFQA_PRIORITY, &v, sizeof(v),
				   NLA_HDRLEN + sizeof(v));
	}
	nlh.nlmsg_len = (uint32_t)off;
	if (payload) {
		/* Only the attribute header here; the bytes stay in the slot. */
		off = nfq_put_attr(hdr, off, NFQA_PAYLOAD, NULL, 0,
				   (uint16_t)(NLA_HDRLEN + plen));
		iov[n].iov_base = (void *)payload;
		iov[n++].iov_len = plen;
		if (MNL_ALIGN(plen) != plen) {
			iov[n].iov_base = (void *)nfq_zero_pad;
			iov[n++].iov_len = MNL_ALIGN(plen) - plen;
		}
		nlh.nlmsg_len = (uint32_t)(off + MNL_ALIGN(plen));
	}
	memcpy(hdr, &nlh, sizeof(nlh));
	iov[0].iov_base = hdr;
	iov[0].iov_len = off;
	return n;
}

unsigned nfq_verdict_build(uint8_t *hdr, uint16_t queue, uint32_t id,
			   uint32_t nf_verdict, const uint32_t *mark,
			   uint32_t priority, const uint8_t *payload,
			   uint32_t plen, struct iovec *iov)
{
	return nfq_verdict_msg_build(hdr, NFQ_NLMSG_VERDICT, queue, id,
				     nf_verdict, mark, priority, payload,
				     plen, iov);
}

unsigned nfq_verdict_batch_build(uint8_t *hdr, uint16_t queue, uint32_t maxid,
				 uint32_t nf_verdict, struct iovec *iov)
{
	return nfq_verdict_msg_build(hdr, NFQ_NLMSG_VERDICT_BATCH, queue,
				     maxid, nf_verdict, NULL, 0, NULL, 0, iov);
}

/* ---- parsing ------------------------------------------------------------ */

struct nfq_attrs {
	const struct nfqnl_msg_packet_hdr *hdr;
	const struct nlattr *payload;
	const struct nlattr *mark;
	const struct nlattr *priority;
	const struct nlattr *indev;
	const struct nlattr *cap_len;
	const struct nlattr *skb_info;
	const struct nlattr *hwaddr;
	bool bad;			/* an attribute of the wrong size */
};

static bool nfq_attr_len_ok(const struct nlattr *a, size_t want, bool exact)
{
	size_t len = mnl_attr_get_payload_len(a);

	return exact ? len == want : len >= want;
}

/* Walk the attributes in [payload, payload + len); a truncated attribute
 * ends the walk and marks the message bad. */
static void nfq_attrs_parse(const void *payload, size_t len,
			    struct nfq_attrs *at)
{
	const uint8_t *end = (const uint8_t *)payload + len;
	const struct nlattr *a = payload;

	for (; mnl_attr_ok(a, (int)(end - (const uint8_t *)a));
	     a = mnl_attr_next(a)) {
		switch (mnl_attr_get_type(a)) {
		case NFQA_PACKET_HDR:
			if (nfq_attr_len_ok(a, sizeof(*at->hdr), false))
				at->hdr = mnl_attr_get_payload(a);
			else
				at->bad = true;
			break;
		case NFQA_PAYLOAD:
			at->payload = a;
			break;
		case NFQA_MARK:
			at->mark = a;
			at->bad |= !nfq_attr_len_ok(a, 4, true);
			break;
		case NFQA_PRIORITY:
			at->priority = a;
			at->bad |= !nfq_attr_len_ok(a, 4, true);
			break;
		case NFQA_IFINDEX_INDEV:
			at->indev = a;
			at->bad |= !nfq_attr_len_ok(a, 4, true);
			break;
		case NFQA_CAP_LEN:
			at->cap_len = a;
			at->bad |= !nfq_attr_len_ok(a, 4, true);
			break;
		case NFQA_SKB_INFO:
			at->skb_info = a;
			at->bad |= !nfq_attr_len_ok(a, 4, true);
			break;
		case NFQA_HWADDR:
			at->hwaddr = a;
			at->bad |= !nfq_attr_len_ok(
				a, sizeof(struct nfqnl_msg_packet_hw), true);
			break;
		default:
			break;
		}
	}
	/* Bytes left that do not form a whole attribute: truncated. */
	if ((const uint8_t *)a < end)
		at->bad = true;
}

static uint16_t nfq_family_proto(const struct nfgenmsg *nfg, uint16_t hw)
{
	/* The hook's family is what a verdict's payload must keep (docs:
	 * "Reinjection"); hw_protocol (skb->protocol) is only a fallback
	 * for families other than IPv4/IPv6. */
	switch (nfg->nfgen_family) {
	case NFPROTO_IPV4:
		return ETH_P_IP;
	case NFPROTO_IPV6:
		return ETH_P_IPV6;
	default:
		return hw;
	}
}

/* NFQA_SKB_INFO (nfqnl_put_packet_info()): only on a queue bound with
 * NFQA_CFG_F_GSO can a packet be a super-packet or have a partial
 * checksum; without it the kernel segments and completes before queueing.
 * A super-packet's headers are parsed here, once (gso_pkt_info(): the
 * parse stays on p for the steps after). */
static void nfq_parse_skb_info(struct pkt *p, uint32_t info,
			       struct worker_stats *st)
{
	const struct gso_info *gi;

	p->csum_partial = info & NFQA_SKB_CSUMNOTREADY;
	p->csum_unverified = info & NFQA_SKB_CSUM_NOTVERIFIED;
	if (!(info & NFQA_SKB_GSO))
		return;
	p->gso = true;
	st->gso_packets++;
	gi = gso_pkt_info(p);
	if (gi)
		p->gso_l4_off = gi->l4_off;
}

/* NFQA_HWADDR (the frame's source, dev_parse_header()): kept when it is
 * an Ethernet address, the one an error back the way the packet came
 * goes to (REINJECT_SERVICE, reinject.h). */
static void nfq_parse_hwaddr(struct pkt *p,
			     const struct nfqnl_msg_packet_hw *hw)
{
	if (ntohs(hw->hw_addrlen) != sizeof(p->hw_src))
		return;
	memcpy(p->hw_src, hw->hw_addr, sizeof(p->hw_src));
	p->hw_src_len = sizeof(p->hw_src);
}

/* Fill p from one NFQNL_MSG_PACKET message of which `avail` bytes were
 * received (less than nlmsg_len when the datagram was truncated). */
static enum nfq_parse_result nfq_parse_packet(uint8_t *slot, uint8_t *slot_end,
					      const struct nlmsghdr *nlh,
					      size_t avail, int hqueue,
					      struct pkt *p,
					      struct worker_stats *st)
{
	const size_t hlen = NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct nfgenmsg));
	const struct nfgenmsg *nfg = mnl_nlmsg_get_payload(nlh);
	struct nfq_attrs at = { .bad = avail < nlh->nlmsg_len };
	uint32_t plen, cap = 0;

	if (avail < hlen) {
		st->bad_messages++;	/* no id: nothing to give a verdict to */
		return NFQ_PARSE_NONE;
	}
	nfq_attrs_parse((const uint8_t *)nlh + hlen, avail - hlen, &at);
	if (!at.hdr) {
		st->bad_messages++;	/* no id: nothing to give a verdict to */
		return NFQ_PARSE_NONE;
	}
	memset(p, 0, sizeof(*p));
	p->head = slot;
	p->end = slot_end;
	p->data = slot + PKT_HEADROOM;
	p->id = ntohl(at.hdr->packet_id);
	p->hw_proto = nfq_family_proto(nfg, ntohs(at.hdr->hw_protocol));
	p->hook = at.hdr->hook;
	p->from_hqueue = hqueue >= 0 && ntohs(nfg->res_id) == (unsigned)hqueue;
	if (at.mark && !at.bad)
		p->mark = ntohl(mnl_attr_get_u32(at.mark));
	if (at.priority && !at.bad)
		p->priority = ntohl(mnl_attr_get_u32(at.priority));
	if (at.indev && !at.bad)
		p->indev = ntohl(mnl_attr_get_u32(at.indev));
	if (at.hwaddr && !at.bad)
		nfq_parse_hwaddr(p, mnl_attr_get_payload(at.hwaddr));
	plen = at.payload ? mnl_attr_get_payload_len(at.payload) : 0;
	/* A payload cut short by the copy range (NFQA_CAP_LEN: a packet
	 * longer than 65531 bytes, a BIG TCP super-packet) must not be
	 * rewritten: the verdict would cut the packet.  Accepting it
	 * unchanged would pass SRv6 traffic on unprocessed: it is dropped,
	 * counted in rx_too_long and bad_messages.  On the header queue it
	 * is what the copy range is for: p->truncated, its whole length in
	 * orig_len (the worker decides, kend.h). */
	if (at.cap_len && !at.bad)
		cap = ntohl(mnl_attr_get_u32(at.cap_len));
	if (cap && cap != plen) {
		if (p->from_hqueue && cap > plen && plen) {
			p->truncated = true;
			st->hq_truncated++;
		} else {
			st->rx_too_long++;
			at.bad = true;
		}
	}
	if (at.bad || !at.payload) {
		/* The id is known: the packet is dropped, never passed on
		 * unprocessed. */
		st->bad_messages++;
		p->verdict = PKT_DROP;
		return NFQ_PARSE_BAD_PACKET;
	}
	p->data = mnl_attr_get_payload(at.payload);
	p->len = p->queued_len = plen;
	p->orig_len = p->truncated ? cap : plen;
	p->verdict = PKT_ACCEPT;
	if (at.skb_info)
		nfq_parse_skb_info(p, ntohl(mnl_attr_get_u32(at.skb_info)), st);
	return NFQ_PARSE_PACKET;
}

static void nfq_parse_error(const struct nlmsghdr *nlh, size_t avail,
			    struct worker_stats *st)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	/* error 0 is an ACK (we ask for none on verdicts); anything else is
	 * a verdict the kernel refused (e.g. -ENOENT: unknown id). */
	if (avail < NLMSG_HDRLEN + sizeof(*e) || e->error != 0)
		st->nl_errors++;
}

enum nfq_parse_result nfq_parse(uint8_t *slot, uint8_t *slot_end,
				uint8_t *msg, size_t len, struct pkt *p,
				struct worker_stats *st)
{
	return nfq_parse_hq(slot, slot_end, msg, len, -1, p, st);
}

enum nfq_parse_result nfq_parse_hq(uint8_t *slot, uint8_t *slot_end,
				   uint8_t *msg, size_t len, int hqueue,
				   struct pkt *p, struct worker_stats *st)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)msg;
	enum nfq_parse_result res = NFQ_PARSE_NONE;
	size_t left = len;

	while (left >= NLMSG_HDRLEN) {
		size_t avail = nlh->nlmsg_len < left ? nlh->nlmsg_len : left;

		if (nlh->nlmsg_len < NLMSG_HDRLEN) {
			st->bad_messages++;
			break;
		}
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			nfq_parse_error(nlh, avail, st);
		} else if (nlh->nlmsg_type == NFQ_NLMSG_PACKET &&
			   res == NFQ_PARSE_NONE) {
			res = nfq_parse_packet(slot, slot_end, nlh, avail,
					       hqueue, p, st);
		} else if (nlh->nlmsg_type != NLMSG_NOOP) {
			/* Not ours, or a second packet in one datagram: the
			 * kernel sends one packet per datagram
			 * (nfnetlink_unicast() per packet), so this is not
			 * an NFQUEUE message we can hold. */
			st->bad_messages++;
		}
		if (MNL_ALIGN(nlh->nlmsg_len) >= left)
			break;
		left -= MNL_ALIGN(nlh->nlmsg_len);
		nlh = (const struct nlmsghdr *)((const uint8_t *)nlh +
						MNL_ALIGN(nlh->nlmsg_len));
	}
	if (left > 0 && left < NLMSG_HDRLEN)
		st->bad_messages++;	/* trailing bytes: not a message */
	return res;
}

/* ---- socket ------------------------------------------------------------- */

static int nfq_setsockopt_int(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val));
}

/* Size a socket buffer: the forced size (needs CAP_NET_ADMIN, which a
 * queue bind needs anyway), else as much as net.core.*mem_max allows. */
static void nfq_size_buffer(int fd, int force_opt, int opt, int size)
{
	if (nfq_setsockopt_int(fd, SOL_SOCKET, force_opt, size) < 0)
		nfq_setsockopt_int(fd, SOL_SOCKET, opt, size);
}

static int nfq_socket_setup(struct nfq *q)
{
	struct timeval tv = { .tv_usec = NFQ_RECV_TIMEOUT_MS * 1000 };
	int sndbuf = 0;
	socklen_t sl = sizeof(sndbuf);

	/* Overruns are counted by the kernel (queue_user_dropped) and must
	 * never stop the reader: no ENOBUFS. */
	if (nfq_setsockopt_int(q->fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, 1) < 0)
		return -1;
	/* Errors must not echo a whole 64 KiB verdict back at us. */
	if (nfq_setsockopt_int(q->fd, SOL_NETLINK, NETLINK_CAP_ACK, 1) < 0)
		return -1;
	nfq_setsockopt_int(q->fd, SOL_NETLINK, NETLINK_EXT_ACK, 0);
	nfq_size_buffer(q->fd, SO_RCVBUFFORCE, SO_RCVBUF, NFQ_SOCKBUF);
	nfq_size_buffer(q->fd, SO_SNDBUFFORCE, SO_SNDBUF, NFQ_SOCKBUF);
	if (setsockopt(q->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return -1;
	if (getsockopt(q->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sl) < 0)
		return -1;
	/* netlink_sendmsg() refuses a message longer than sk_sndbuf - 32. */
	q->send_limit = sndbuf > 4096 ? (size_t)sndbuf - 64 : 4096;
	return 0;
}

static int nfq_sendv(struct nfq *q, struct iovec *iov, size_t niov)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct msghdr mh = {
		.msg_name = &kernel,
		.msg_namelen = sizeof(kernel),
		.msg_iov = iov,
		.msg_iovlen = niov,
	};

	for (int attempt = 0; attempt < 2; attempt++) {
		if (sendmsg(q->fd, &mh, 0) >= 0)
			return 0;
		if (errno != EINTR && errno != ENOBUFS && errno != EAGAIN)
			break;
	}
	return -1;
}

/* A bare NF_DROP for packet id (config time and the last fallback), or
 * (upto) for every packet still queued up to id. */
static int nfq_send_drop_msg(struct nfq *q, uint16_t queue, uint32_t id,
			     bool upto)
{
	uint8_t hdr[NFQ_VERDICT_HDR_MAX] __attribute__((aligned(8)));
	struct iovec iov[NFQ_VERDICT_IOV_MAX];
	unsigned n;

	n = upto ? nfq_verdict_batch_build(hdr, queue, id, NF_DROP, iov) :
		   nfq_verdict_build(hdr, queue, id, NF_DROP, NULL, 0, NULL, 0,
				     iov);
	return nfq_sendv(q, iov, n);
}

/* While waiting for a config ACK, a packet may already arrive (the queue
 * is bound before its copy mode is set): it is dropped, as it cannot be
 * processed from here. */
static int nfq_config_data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nfq_attrs at = { 0 };
	const size_t hlen = NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct nfgenmsg));
	const struct nfgenmsg *nfg = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_type != NFQ_NLMSG_PACKET || nlh->nlmsg_len < hlen)
		return MNL_CB_OK;
	nfq_attrs_parse((const uint8_t *)nlh + hlen, nlh->nlmsg_len - hlen, &at);
	if (at.hdr)
		nfq_send_drop_msg(data, ntohs(nfg->res_id),
				  ntohl(at.hdr->packet_id), false);
	return MNL_CB_OK;
}

/* Send a config request and wait for its ACK.  Returns 0, or -1 with errno
 * (the kernel's error, or ETIMEDOUT). */
static int nfq_config_request(struct nfq *q, struct nlmsghdr *nlh,
			      uint8_t *buf, size_t buflen)
{
	unsigned portid = mnl_socket_get_portid(q->nl);
	uint32_t seq = nlh->nlmsg_seq;
	int ret;

	nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		ssize_t n = mnl_socket_recvfrom(q->nl, buf, buflen);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				errno = ETIMEDOUT;
			return -1;
		}
		ret = mnl_cb_run(buf, (size_t)n, seq, portid,
				 nfq_config_data_cb, q);
	} while (ret > 0);
	return ret < 0 ? -1 : 0;
}

static const char *nfq_bind_hint(int err)
{
	switch (err) {
	case EPERM:
		/* The kernel's answer both to a queue another socket holds
		 * and to a missing CAP_NET_ADMIN. */
		return " (is another program bound to it? "
		       "does srv6d have CAP_NET_ADMIN?)";
	case EINVAL:
	case ENOENT:
	case EPROTONOSUPPORT:
		return " (is nfnetlink_queue available in this kernel?)";
	default:
		return "";
	}
}

/* Bind queue on q's socket, copying up to `copy` bytes of each packet. */
static int nfq_bind(struct nfq *q, unsigned queue, uint32_t copy,
		    uint32_t maxlen, unsigned flags, char *err, size_t errlen)
{
	uint8_t *buf = malloc(NFQ_SLOT_SIZE);
	struct nlmsghdr *nlh;
	int ret = -1;

	if (!buf) {
		snprintf(err, errlen, "queue %u: %s", queue, strerror(errno));
		return -1;
	}
	nlh = nfq_nlmsg_put((char *)buf, NFQNL_MSG_CONFIG, queue);
	nlh->nlmsg_seq = 1;
	nfq_nlmsg_cfg_put_cmd(nlh, AF_UNSPEC, NFQNL_CFG_CMD_BIND);
	if (nfq_config_request(q, nlh, buf, NFQ_SLOT_SIZE) < 0) {
		int e = errno;

		snprintf(err, errlen, "queue %u: bind failed: %s%s", queue,
			 strerror(e), nfq_bind_hint(e));
		goto out;
	}
	nlh = nfq_nlmsg_put((char *)buf, NFQNL_MSG_CONFIG, queue);
	nlh->nlmsg_seq = 2;
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, copy);
	nfq_nlmsg_cfg_put_qmaxlen(nlh, maxlen);
	/* All flags off but GSO, asked by `offload yes` (the default):
	 * - no FAIL_OPEN: when the queue is full the kernel drops; SRv6
	 *   traffic passed on unprocessed would be worse than lost;
	 * - GSO: super-packets are queued whole (up to the
	 *   65531-byte copy range: longer ones arrive truncated and are
	 *   dropped), and any packet may keep a partial checksum
	 *   (NFQA_SKB_INFO); without it the kernel segments (and completes
	 *   CHECKSUM_PARTIAL checksums) before queueing, so every payload is
	 *   a whole packet with its checksums;
	 * - no CONNTRACK, UID_GID, SECCTX: attributes we would not read. */
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS,
			 htonl(flags & NFQ_OPEN_GSO ? NFQA_CFG_F_GSO : 0));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK,
			 htonl(NFQA_CFG_F_FAIL_OPEN | NFQA_CFG_F_CONNTRACK |
			       NFQA_CFG_F_GSO | NFQA_CFG_F_UID_GID |
			       NFQA_CFG_F_SECCTX));
	if (nfq_config_request(q, nlh, buf, NFQ_SLOT_SIZE) < 0) {
		snprintf(err, errlen, "queue %u: configuring copy mode failed: %s",
			 queue, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(buf);
	return ret;
}

static void nfq_unbind(struct nfq *q, unsigned queue)
{
	char buf[256] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, queue);

	/* The kernel drops whatever is still queued (nfqnl_flush). Closing
	 * the socket would unbind as well; asking is explicit. */
	nfq_nlmsg_cfg_put_cmd(nlh, AF_UNSPEC, NFQNL_CFG_CMD_UNBIND);
	mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len);
}

static void nfq_rx_setup(struct nfq *q)
{
	for (unsigned i = 0; i < NFQ_BATCH; i++) {
		struct msghdr *mh = &q->rx_msgs[i].msg_hdr;

		q->rx_iov[i].iov_base = q->slots + (size_t)i * NFQ_SLOT_SIZE +
					PKT_HEADROOM;
		q->rx_iov[i].iov_len = NFQ_SLOT_SIZE - PKT_HEADROOM;
		mh->msg_iov = &q->rx_iov[i];
		mh->msg_iovlen = 1;
		mh->msg_name = &q->rx_from[i];
		mh->msg_namelen = sizeof(q->rx_from[i]);
	}
}

struct nfq *nfq_alloc(unsigned queue)
{
	struct nfq *q;

	if (posix_memalign((void **)&q, _Alignof(struct nfq), sizeof(*q)) != 0)
		return NULL;
	memset(q, 0, sizeof(*q));
	q->fd = -1;
	if (posix_memalign((void **)&q->slots, 4096,
			   (size_t)NFQ_BATCH * NFQ_SLOT_SIZE) != 0) {
		free(q);
		return NULL;
	}
	q->queue = queue;
	nfq_rx_setup(q);
	return q;
}

struct nfq *nfq_socket_open(unsigned queue, uint32_t maxlen, char *err,
			    size_t errlen)
{
	return nfq_socket_open_flags(queue, maxlen, 0, err, errlen);
}

struct nfq *nfq_socket_open_flags(unsigned queue, uint32_t maxlen,
				  unsigned flags, char *err, size_t errlen)
{
	struct nfq *q;

	if (queue > 0xffff) {
		snprintf(err, errlen, "queue %u: out of range (0-65535)", queue);
		return NULL;
	}
	q = nfq_alloc(queue);
	if (!q) {
		snprintf(err, errlen, "queue %u: cannot allocate buffers", queue);
		return NULL;
	}
	q->nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	if (!q->nl) {
		snprintf(err, errlen, "queue %u: netlink socket: %s", queue,
			 strerror(errno));
		goto fail;
	}
	q->fd = mnl_socket_get_fd(q->nl);
	if (nfq_socket_setup(q) < 0 ||
	    mnl_socket_bind(q->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		snprintf(err, errlen, "queue %u: netlink socket setup: %s",
			 queue, strerror(errno));
		goto fail;
	}
	if (nfq_bind(q, queue, 0xffff, maxlen, flags, err, errlen) < 0)
		goto fail;
	return q;
fail:
	if (q->nl)
		mnl_socket_close(q->nl);
	free(q->slots);
	free(q);
	return NULL;
}

int nfq_bind_header_queue(struct nfq *q, unsigned hqueue, uint32_t copy,
			  uint32_t maxlen, unsigned flags, char *err,
			  size_t errlen)
{
	if (hqueue > 0xffff || hqueue == q->queue) {
		snprintf(err, errlen, "header queue %u: out of range or the "
			 "queue itself", hqueue);
		return -1;
	}
	if (nfq_bind(q, hqueue, copy, maxlen, flags, err, errlen) < 0)
		return -1;
	nfq_set_header_queue(q, hqueue);
	return 0;
}

void nfq_set_header_queue(struct nfq *q, unsigned hqueue)
{
	q->has_hqueue = true;
	q->hqueue = hqueue;
}

void nfq_socket_close(struct nfq *q)
{
	if (!q)
		return;
	if (q->nl) {
		if (q->has_hqueue)
			nfq_unbind(q, q->hqueue);
		nfq_unbind(q, q->queue);
		mnl_socket_close(q->nl);
	}
	free(q->slots);
	free(q);
}

/* ---- the batch ---------------------------------------------------------- */

int nfq_recv_batch(struct nfq *q, bool wait, struct pkt *pkts,
		   bool *process, struct worker_stats *st)
{
	int n, out = 0;

	n = recvmmsg(q->fd, q->rx_msgs, NFQ_BATCH,
		     wait ? MSG_WAITFORONE : MSG_DONTWAIT, NULL);
	if (n < 0) {
		if (errno == ENOBUFS)
			st->enobufs++;
		else if (errno != EAGAIN && errno != EWOULDBLOCK &&
			 errno != EINTR)
			st->recv_errors++;
		return -1;
	}
	st->rx_batches++;
	for (int i = 0; i < n; i++) {
		uint8_t *slot = q->slots + (size_t)i * NFQ_SLOT_SIZE;
		enum nfq_parse_result r;

		/* Only the kernel may hand us packets: a message from another
		 * socket could otherwise rewrite a queued packet. */
		if (q->rx_from[i].nl_pid != 0) {
			st->bad_messages++;
			continue;
		}
		r = nfq_parse_hq(slot, slot + NFQ_SLOT_SIZE, slot + PKT_HEADROOM,
				 q->rx_msgs[i].msg_len,
				 q->has_hqueue ? (int)q->hqueue : -1,
				 &pkts[out], st);
		if (r == NFQ_PARSE_NONE)
			continue;
		st->rx_packets++;
		process[out] = r == NFQ_PARSE_PACKET;
		if (process[out])
			st->rx_bytes += pkts[out].len;
		out++;
	}
	return out;
}

/* More verdicts than packets in a batch: log and abort. */
static void nfq_verdict_overflow(const struct nfq *q)
	__attribute__((noreturn, cold));

static void nfq_verdict_overflow(const struct nfq *q)
{
	log_msg(LOG_CRIT, "queue %u: more than %u verdicts in one batch: "
		"a verdict was given twice (bug): aborting", q->queue,
		NFQ_BATCH);
	abort();
}

/* A payload gets CHECKSUM_NONE (nfqnl_mangle()): a packet that came with a
 * partial checksum leaves with whatever its checksum field holds, so
 * complete it.  A super-packet's is summed again by the kernel's GSO
 * (reinject_decide() gives one as a payload only where that is right). */
static void nfq_payload_fix(struct nfq *q, const struct pkt *p)
{
	if (!p->gso && p->csum_partial &&
	    gso_csum_complete(p->data, p->len) == 0)
		q->csum_completed++;
}

/* Serial number order of packet ids (the kernel's nfq_id_after()). */
static bool nfq_id_after(uint32_t id, uint32_t max)
{
	return (int32_t)(id - max) > 0;
}

/* Give packet `id` NF_DROP by growing the last message into (or along)
 * a NFQNL_MSG_VERDICT_BATCH up to id.  Returns false when the last
 * message is not a plain NF_DROP or id does not come after it.
 *
 * The kernel (nfqnl_recv_verdict_batch()) gives the verdict to every
 * packet still queued with an id up to the batch's, walking the queue in
 * id order.  That is right for a run of NF_DROPs because of what else can
 * be queued below the highest id:
 * - the packets of this batch before the run: their messages come first
 *   in the same sendmsg() (or an earlier one) and the kernel handles the
 *   messages of a datagram in order, so they are dequeued already; one
 *   whose own message failed (and whose fallback drop too) is dropped by
 *   the batch: still exactly one verdict, the one the fallback meant;
 * - packets of earlier batches whose verdict could not be sent at all
 *   (send_errors): dropped now instead of at the unbind;
 * - a packet whose message arrived without a usable id (bad_messages,
 *   NFQ_PARSE_NONE): dropped, never passed on;
 * - not a packet whose message the kernel could not deliver to our
 *   socket (receive buffer full: queue_user_dropped): the kernel queues a
 *   packet only once its message was delivered (__nfqnl_enqueue_packet()
 *   enqueues after nfnetlink_unicast() succeeds, and drops it otherwise),
 *   so such a packet is gone already and no verdict can reach it.
 * NF_ACCEPT runs are not batched: a batch NF_ACCEPT would also accept the
 * stale packets above, unprocessed. */
static bool nfq_verdict_extend(struct nfq *q, uint16_t queue, uint32_t id,
			       uint32_t nf_verdict)
{
	unsigned last = q->nverdicts - 1;
	struct iovec *iov;

	/* Ids are the queue's own: a run never spans two queues. */
	if (q->nverdicts == 0 || !q->run_open || nf_verdict != NF_DROP ||
	    q->run_verdict != NF_DROP || q->vqueue[last] != queue ||
	    !nfq_id_after(id, q->vid[last]))
		return false;
	iov = &q->viov[q->vfirst_iov[last]];
	/* Same length as the plain verdict it replaces: one iovec. */
	nfq_verdict_batch_build(q->vhdr[last], queue, id, NF_DROP, iov);
	q->vlen[last] = iov[0].iov_len;
	q->vid[last] = id;
	q->vcount[last]++;
	return true;
}

void nfq_verdict_add(struct nfq *q, const struct pkt *p, uint32_t nf_verdict,
		     bool with_payload)
{
	unsigned i = q->nverdicts, n;
	struct iovec *iov = &q->viov[q->niov];
	uint16_t queue = (uint16_t)(p->from_hqueue ? q->hqueue : q->queue);
	bool marked;

	if (with_payload && p->csum_partial)
		nfq_payload_fix(q, p);

	/* The arrays hold one verdict per packet of a batch (at most
	 * NFQ_BATCH), and every packet gets exactly one: a verdict more is a
	 * bug that would leave a packet without its verdict, or give one
	 * packet two.  Fatal, never silent. */
	if (q->npackets >= NFQ_BATCH)
		nfq_verdict_overflow(q);
	q->npackets++;
	marked = p->set_mark &&
		 (nf_verdict == NF_ACCEPT || nf_verdict == NF_REPEAT);
	if (!with_payload && !marked &&
	    nfq_verdict_extend(q, queue, p->id, nf_verdict))
		return;
	n = nfq_verdict_build(q->vhdr[i], queue, p->id, nf_verdict,
			      marked ? &p->verdict_mark : NULL,
			      marked && nf_verdict == NF_ACCEPT ?
			      p->verdict_priority : 0,
			      with_payload ? p->data : NULL,
			      with_payload ? p->len : 0, iov);
	q->vfirst_iov[i] = q->niov;
	q->vid[i] = p->id;
	q->vqueue[i] = queue;
	q->vcount[i] = 1;
	q->vlen[i] = 0;
	for (unsigned k = 0; k < n; k++)
		q->vlen[i] += iov[k].iov_len;
	q->niov += n;
	q->nverdicts++;
	q->vfirst_iov[q->nverdicts] = q->niov;
	q->run_open = !with_payload && !marked;
	q->run_verdict = nf_verdict;
}

size_t nfq_verdict_pending(const struct nfq *q, uint8_t *buf, size_t len,
			   unsigned *nmsgs)
{
	size_t off = 0;

	for (unsigned k = 0; k < q->niov; k++) {
		if (off + q->viov[k].iov_len > len)
			return 0;
		memcpy(buf + off, q->viov[k].iov_base, q->viov[k].iov_len);
		off += q->viov[k].iov_len;
	}
	*nmsgs = q->nverdicts;
	return off;
}

bool nfq_verdict_hold(struct nfq *q, uint64_t now_ns)
{
	if (q->nverdicts != 1 || !q->run_open || q->run_verdict != NF_DROP ||
	    q->vcount[0] >= NFQ_HOLD_MAX)
		return false;
	if (q->held_since_ns == 0)
		q->held_since_ns = now_ns ? now_ns : 1;
	else if (now_ns - q->held_since_ns >= NFQ_HOLD_NS)
		return false;
	/* The next batch counts its own packets (nfq_verdict_add()'s
	 * bound); the run stays open for its drops. */
	q->npackets = 0;
	return true;
}

bool nfq_verdict_waiting(const struct nfq *q)
{
	return q->nverdicts > 0;
}

void nfq_attach_fd(struct nfq *q, int fd)
{
	q->fd = fd;
	q->send_limit = 4096;	/* well below any socket's default */
}

/* Send verdicts [first, last) one by one after their batch failed. */
static int nfq_verdict_send_each(struct nfq *q, unsigned first, unsigned last,
				 struct worker_stats *st)
{
	int ret = 0;

	for (unsigned i = first; i < last; i++) {
		struct iovec *iov = &q->viov[q->vfirst_iov[i]];
		size_t niov = q->vfirst_iov[i + 1] - q->vfirst_iov[i];

		if (nfq_sendv(q, iov, niov) == 0) {
			st->verdicts += q->vcount[i];
			st->verdict_batches++;
			continue;
		}
		st->send_errors++;
		/* Still refused: drop it (a run: all of it) rather than leave
		 * it queued. */
		if (nfq_send_drop_msg(q, q->vqueue[i], q->vid[i],
				      q->vcount[i] > 1) == 0) {
			st->verdicts += q->vcount[i];
			continue;
		}
		/* The packet stays queued until the queue is unbound (the
		 * kernel then drops it). */
		st->send_errors++;
		ret = -1;
	}
	return ret;
}

int nfq_verdict_flush(struct nfq *q, struct worker_stats *st)
{
	unsigned first = 0;
	int ret = 0;

	while (first < q->nverdicts) {
		unsigned last = first, packets = 0;
		size_t bytes = 0;

		while (last < q->nverdicts &&
		       (last == first || bytes + q->vlen[last] <= q->send_limit)) {
			packets += q->vcount[last];
			bytes += q->vlen[last++];
		}
		if (nfq_sendv(q, &q->viov[q->vfirst_iov[first]],
			      q->vfirst_iov[last] - q->vfirst_iov[first]) == 0) {
			st->verdicts += packets;
			st->verdict_batches++;
		} else {
			st->send_errors++;
			if (nfq_verdict_send_each(q, first, last, st) < 0)
				ret = -1;
		}
		first = last;
	}
	q->nverdicts = 0;
	q->npackets = 0;
	q->niov = 0;
	q->run_open = false;
	q->held_since_ns = 0;
	st->csum_completed += q->csum_completed;
	q->csum_completed = 0;
	return ret;
}
