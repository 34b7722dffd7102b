/* floor-nfq.c - what NFQUEUE itself costs per packet on this machine: the
 * floor under any NFQUEUE data plane, srv6d included (bench/end-rate.sh,
 * configuration `floor`).
 *
 * It does nothing with the packets: recvmmsg() batches of up to 64
 * messages (each packet copied whole, as srv6d asks), then one
 * NFQNL_MSG_VERDICT_BATCH that accepts every packet up to the last id of
 * the batch, unchanged.  So per packet it pays the kernel's queueing, the
 * copy to userspace and its share of two syscalls and of one verdict, and
 * nothing else: no parsing beyond the packet id, no rewrite, no payload
 * back.  end-rate.sh queues plain forwarded traffic (DA = the final
 * segment, SL 0) to it, so the packets it accepts reach the sink as they
 * are.
 *
 * Usage: floor-nfq [-q QUEUE] [-r RCVBUF_BYTES] [-m QUEUE_MAXLEN]
 * Runs until SIGINT/SIGTERM, then prints its counters on stderr.
 */
#define _GNU_SOURCE	/* recvmmsg() */
#include <netinet/in.h>	/* before linux/netfilter.h */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH		64
#define SLOT		(65536 + 512)

static volatile sig_atomic_t stop;
static unsigned long n_packets, n_batches, n_enobufs;

static void on_signal(int sig)
{
	stop = sig;
}

static struct nlmsghdr *nfq_hdr_put(char *buf, int type, uint16_t queue)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *g;

	nlh->nlmsg_type = (NFNL_SUBSYS_QUEUE << 8) | type;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = AF_UNSPEC;
	g->version = NFNETLINK_V0;
	g->res_id = htons(queue);
	return nlh;
}

/* Bind QUEUE in copy-packet mode (whole packets) with maxlen. */
static int queue_bind(struct mnl_socket *nl, uint16_t queue, uint32_t maxlen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nfqnl_msg_config_params params = {
		.copy_range = htonl(0xffff),
		.copy_mode = NFQNL_COPY_PACKET,
	};
	struct nfqnl_msg_config_cmd cmd = { .command = NFQNL_CFG_CMD_BIND };
	struct nlmsghdr *nlh;

	nlh = nfq_hdr_put(buf, NFQNL_MSG_CONFIG, queue);
	mnl_attr_put(nlh, NFQA_CFG_CMD, sizeof(cmd), &cmd);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	nlh = nfq_hdr_put(buf, NFQNL_MSG_CONFIG, queue);
	mnl_attr_put(nlh, NFQA_CFG_PARAMS, sizeof(params), &params);
	if (maxlen)
		mnl_attr_put_u32(nlh, NFQA_CFG_QUEUE_MAXLEN, htonl(maxlen));
	return mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0 ? -1 : 0;
}

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (type == NFQA_PACKET_HDR)
		tb[type] = a;
	return MNL_CB_OK;
}

/* The packet id of the queue message at buf, or 0 when it is none. */
static uint32_t packet_id(const char *buf, size_t len)
{
	const struct nlattr *tb[NFQA_MAX + 1] = { 0 };
	const struct nlmsghdr *nlh = (const void *)buf;
	const struct nfqnl_msg_packet_hdr *ph;

	if (!mnl_nlmsg_ok(nlh, (int)len) ||
	    (nlh->nlmsg_type & 0xff) != NFQNL_MSG_PACKET ||
	    mnl_attr_parse(nlh, sizeof(struct nfgenmsg), attr_cb, tb) < 0 ||
	    !tb[NFQA_PACKET_HDR])
		return 0;
	ph = mnl_attr_get_payload(tb[NFQA_PACKET_HDR]);
	return ntohl(ph->packet_id);
}

/* NF_ACCEPT every packet of the queue up to id, in one message. */
static int verdict_batch(struct mnl_socket *nl, uint16_t queue, uint32_t id)
{
	char buf[128];
	struct nfqnl_msg_verdict_hdr vh = {
		.verdict = htonl(NF_ACCEPT),
		.id = htonl(id),
	};
	struct nlmsghdr *nlh = nfq_hdr_put(buf, NFQNL_MSG_VERDICT_BATCH, queue);

	mnl_attr_put(nlh, NFQA_VERDICT_HDR, sizeof(vh), &vh);
	return mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	static struct mmsghdr msgs[BATCH];
	static struct iovec iov[BATCH];
	static char *slots;
	struct mnl_socket *nl;
	uint32_t maxlen = 0, last;
	unsigned int rcvbuf = 0;
	uint16_t queue = 0;
	struct sigaction sa;
	int opt, fd, n, one = 1;

	while ((opt = getopt(argc, argv, "q:r:m:")) != -1) {
		switch (opt) {
		case 'q':
			queue = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			rcvbuf = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'm':
			maxlen = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-q queue] [-r rcvbuf] [-m maxlen]\n",
				argv[0]);
			return 2;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: recvmmsg() returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	slots = malloc((size_t)BATCH * SLOT);
	nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!slots || !nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("floor-nfq: netlink");
		return 1;
	}
	fd = mnl_socket_get_fd(nl);
	setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof(one));
	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
				 sizeof(rcvbuf)) < 0)
		perror("floor-nfq: rcvbuf");
	if (queue_bind(nl, queue, maxlen) < 0) {
		perror("floor-nfq: bind");
		return 1;
	}
	for (int i = 0; i < BATCH; i++) {
		iov[i].iov_base = slots + (size_t)i * SLOT;
		iov[i].iov_len = SLOT;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	fprintf(stderr, "floor-nfq: queue %u ready\n", queue);

	while (!stop) {
		n = recvmmsg(fd, msgs, BATCH, MSG_WAITFORONE, NULL);
		if (n < 0) {
			if (errno == ENOBUFS)
				n_enobufs++;
			else if (errno != EINTR)
				break;
			continue;
		}
		last = 0;
		for (int i = 0; i < n; i++) {
			uint32_t id = packet_id(iov[i].iov_base, msgs[i].msg_len);

			if (id) {
				last = id;
				n_packets++;
			}
		}
		if (last && verdict_batch(nl, queue, last) == 0)
			n_batches++;
	}
	fprintf(stderr, "floor-nfq: packets %lu batches %lu enobufs %lu\n",
		n_packets, n_batches, n_enobufs);
	mnl_socket_close(nl);
	free(slots);
	return 0;
}
