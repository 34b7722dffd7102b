/* naive-nfq.c - the naive NFQUEUE End loop that bench/end-rate.sh compares
 * srv6d against.
 *
 * One recv() and one verdict per packet, with the legacy libnetfilter_queue
 * API as most NFQUEUE programs use it (nfq_open, nfq_create_queue,
 * nfq_set_mode(NFQNL_COPY_PACKET), nfq_handle_packet).  The callback does
 * the SRv6 End behavior (RFC 8986 4.1: SL--, DA = Segment List[SL]) on the
 * copy in the receive buffer and returns it with nfq_set_verdict(NF_ACCEPT).
 * A packet that is not an SRv6 packet with SL > 0 is accepted unchanged.
 *
 * Usage: naive-nfq [-q QUEUE] [-r RCVBUF_BYTES] [-m QUEUE_MAXLEN]
 * Runs until SIGINT/SIGTERM, then prints its counters on stderr.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip6.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IPV6_HDR_LEN	40
#define SRH_FIXED_LEN	8
#define RT_TYPE_SRH	4

static volatile sig_atomic_t stop;
static unsigned long n_packets, n_rewritten, n_unchanged, n_enobufs;

static void on_signal(int sig)
{
	stop = sig;
}

/* End on an IPv6 packet in place.  Returns 1 when it rewrote the packet,
 * 0 when the packet is not an SRv6 packet with SL > 0 (left as it is). */
static int end_rewrite(unsigned char *pkt, int len)
{
	struct ip6_hdr *ip6 = (struct ip6_hdr *)pkt;
	unsigned char *srh = pkt + IPV6_HDR_LEN;
	unsigned int hdrlen, sl;

	if (len < IPV6_HDR_LEN + SRH_FIXED_LEN || (pkt[0] >> 4) != 6 ||
	    ip6->ip6_nxt != IPPROTO_ROUTING || srh[2] != RT_TYPE_SRH)
		return 0;
	hdrlen = (srh[1] + 1u) * 8;
	sl = srh[3];
	if (sl == 0 || len < (int)(IPV6_HDR_LEN + hdrlen) ||
	    SRH_FIXED_LEN + sl * 16u + 16u > hdrlen)
		return 0;
	sl--;
	srh[3] = (unsigned char)sl;
	memcpy(&ip6->ip6_dst, srh + SRH_FIXED_LEN + sl * 16u, 16);
	return 1;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *nfmsg,
		     struct nfq_data *nfa, void *data)
{
	struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
	unsigned char *payload;
	uint32_t id;
	int len;

	if (ph == NULL)
		return -1;
	id = ntohl(ph->packet_id);
	n_packets++;
	len = nfq_get_payload(nfa, &payload);
	if (len > 0 && end_rewrite(payload, len)) {
		n_rewritten++;
		return nfq_set_verdict(qh, id, NF_ACCEPT, (uint32_t)len,
				       payload);
	}
	n_unchanged++;
	return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
}

int main(int argc, char **argv)
{
	static char buf[65536] __attribute__((aligned(8)));
	struct nfq_handle *h;
	struct nfq_q_handle *qh;
	unsigned int rcvbuf = 0, maxlen = 0;
	uint16_t queue = 0;
	struct sigaction sa;
	int opt, fd, rv;

	while ((opt = getopt(argc, argv, "q:r:m:")) != -1) {
		switch (opt) {
		case 'q':
			queue = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			rcvbuf = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'm':
			maxlen = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-q queue] [-r rcvbuf] [-m maxlen]\n",
				argv[0]);
			return 2;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: recv() returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	h = nfq_open();
	if (h == NULL) {
		perror("nfq_open");
		return 1;
	}
	qh = nfq_create_queue(h, queue, on_packet, NULL);
	if (qh == NULL) {
		perror("nfq_create_queue");
		return 1;
	}
	if (nfq_set_mode(qh, NFQNL_COPY_PACKET, 0xffff) < 0) {
		perror("nfq_set_mode");
		return 1;
	}
	if (maxlen && nfq_set_queue_maxlen(qh, maxlen) < 0)
		perror("nfq_set_queue_maxlen");
	if (rcvbuf && nfnl_rcvbufsiz(nfq_nfnlh(h), rcvbuf) == 0)
		fprintf(stderr, "naive-nfq: cannot set rcvbuf\n");
	fd = nfq_fd(h);
	fprintf(stderr, "naive-nfq: queue %u ready\n", queue);

	while (!stop) {
		rv = (int)recv(fd, buf, sizeof(buf), 0);
		if (rv >= 0) {
			nfq_handle_packet(h, buf, rv);
			continue;
		}
		if (errno == ENOBUFS)	/* kernel dropped: socket full */
			n_enobufs++;
		else if (errno != EINTR)
			break;
	}

	fprintf(stderr, "naive-nfq: packets %lu rewritten %lu unchanged %lu "
		"enobufs %lu\n", n_packets, n_rewritten, n_unchanged,
		n_enobufs);
	nfq_destroy_queue(qh);
	nfq_close(h);
	return 0;
}
