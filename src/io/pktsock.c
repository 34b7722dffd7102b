/* pktsock.c - the send-only sockets a worker writes results to: the packet
 * socket that sends frames out of a device (End.DX2's oif, the
 * reinjection device, a VRF SID's veth pair) and the raw IPv4 socket for srv6d's own ICMP errors (see
 * pktsock.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* sendmmsg() */
#endif
#include <errno.h>
#include <stdbool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pktsock.h"

/* The packet socket's send buffer.  A frame stays charged to it until the
 * kernel frees it: after the veth's receive, in the gateway core's backlog
 * (up to netdev_max_backlog, 1000 frames), and on through forwarding.  The
 * default (212,992 bytes) holds about 270 small frames: under load the
 * sends of a batch failed with EAGAIN (0.6% of End's results at 78 kpps
 * on the payload-free way, bench/end-rate.sh, more than the 0.5% the rate
 * search allows). */
#define PKT_SNDBUF	(4 << 20)

/* Let fd's frames in flight (sent, not yet freed by the kernel) take
 * `bytes`: SO_SNDBUFFORCE (CAP_NET_ADMIN) past net.core.wmem_max, else
 * SO_SNDBUF up to it.  A frame over the buffer is refused (EAGAIN). */
static void pkt_sock_sndbuf(int fd, int bytes)
{
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes,
		       sizeof(bytes)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes,
				 sizeof(bytes));
}

int pkt_sock_open(void)
{
	/* Protocol 0: the socket receives nothing, it only sends. */
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd >= 0)
		pkt_sock_sndbuf(fd, PKT_SNDBUF);
	return fd;
}

int pkt_vnet_sock_open(void)
{
	int fd = pkt_sock_open(), on = 1, err;

	if (fd < 0)
		return -1;
	/* Every frame sent is then read as a struct virtio_net_hdr and the
	 * frame (packet_snd_vnet_parse(), virtio_net_hdr_to_skb()). */
	if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &on, sizeof(on)) < 0) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	pkt_sock_sndbuf(fd, PKT_VNET_SNDBUF);
	return fd;
}

struct pkt_tx {
	unsigned n;
	bool vnet;	/* every frame behind a virtio_net_hdr */
	struct mmsghdr msg[PKT_TX_MAX];
	/* Two a frame: its virtio_net_hdr (pkt_tx_add_vnet()) and itself. */
	struct iovec iov[PKT_TX_MAX][2];
	struct sockaddr_ll sll[PKT_TX_MAX];
	struct virtio_net_hdr vhdr[PKT_TX_MAX];
	void *cookie[PKT_TX_MAX];	/* the caller's, for a failure */
	/* An SO_MARK control message (pkt_tx_add_mark(),
	 * pkt_tx_add_vnet_mark()). */
	union {
		char buf[CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} ctl[PKT_TX_MAX];
};

struct pkt_tx *pkt_tx_new(void)
{
	return calloc(1, sizeof(struct pkt_tx));
}

struct pkt_tx *pkt_tx_new_vnet(void)
{
	struct pkt_tx *t = pkt_tx_new();

	if (t)
		t->vnet = true;
	return t;
}

bool pkt_tx_is_vnet(const struct pkt_tx *t)
{
	return t->vnet;
}

void pkt_tx_free(struct pkt_tx *t)
{
	free(t);
}

unsigned pkt_tx_count(const struct pkt_tx *t)
{
	return t->n;
}

/* Fill entry i of t for frame (behind t->vnet[i] in a vnet batch). */
static void pkt_tx_fill(struct pkt_tx *t, unsigned i, uint32_t ifindex,
			const uint8_t *frame, size_t len, void *cookie)
{
	struct iovec *iov = t->iov[i];
	unsigned n = 0;

	t->sll[i] = (struct sockaddr_ll){
		.sll_family = AF_PACKET,
		.sll_ifindex = (int)ifindex,
		.sll_halen = ETH_ALEN,
	};
	memcpy(&t->sll[i].sll_protocol, frame + 12, 2);	/* the EtherType */
	memcpy(t->sll[i].sll_addr, frame, ETH_ALEN);
	if (t->vnet)
		iov[n++] = (struct iovec){ .iov_base = &t->vhdr[i],
					   .iov_len = sizeof(t->vhdr[i]) };
	iov[n++] = (struct iovec){ .iov_base = (void *)frame, .iov_len = len };
	t->msg[i] = (struct mmsghdr){ .msg_hdr = {
		.msg_name = &t->sll[i],
		.msg_namelen = sizeof(t->sll[i]),
		.msg_iov = iov,
		.msg_iovlen = n,
	} };
	t->cookie[i] = cookie;
	t->n = i + 1;
}

int pkt_tx_add(struct pkt_tx *t, uint32_t ifindex, const uint8_t *frame,
	       size_t len, void *cookie)
{
	if (t->n >= PKT_TX_MAX || len < ETH_HLEN)
		return -1;
	/* In a vnet batch: no offload asked (VIRTIO_NET_HDR_GSO_NONE). */
	memset(&t->vhdr[t->n], 0, sizeof(t->vhdr[t->n]));
	pkt_tx_fill(t, t->n, ifindex, frame, len, cookie);
	return 0;
}

int pkt_tx_add_vnet(struct pkt_tx *t, uint32_t ifindex,
		    const struct virtio_net_hdr *vh, const uint8_t *frame,
		    size_t len, void *cookie)
{
	if (!t->vnet || t->n >= PKT_TX_MAX || len < ETH_HLEN)
		return -1;
	t->vhdr[t->n] = *vh;
	pkt_tx_fill(t, t->n, ifindex, frame, len, cookie);
	return 0;
}

/* Give frame i of t an SO_MARK control message with `mark` (none for 0:
 * the frame goes with the socket's mark, 0). */
static void pkt_tx_set_mark(struct pkt_tx *t, unsigned i, uint32_t mark)
{
	struct msghdr *m = &t->msg[i].msg_hdr;
	struct cmsghdr *c;

	if (!mark)
		return;
	m->msg_control = t->ctl[i].buf;
	m->msg_controllen = sizeof(t->ctl[i].buf);
	c = CMSG_FIRSTHDR(m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SO_MARK;
	c->cmsg_len = CMSG_LEN(sizeof(mark));
	memcpy(CMSG_DATA(c), &mark, sizeof(mark));
}

int pkt_tx_add_mark(struct pkt_tx *t, uint32_t ifindex, const uint8_t *frame,
		    size_t len, uint32_t mark, void *cookie)
{
	unsigned i = t->n;

	if (pkt_tx_add(t, ifindex, frame, len, cookie) < 0)
		return -1;
	pkt_tx_set_mark(t, i, mark);
	return 0;
}

int pkt_tx_add_vnet_mark(struct pkt_tx *t, uint32_t ifindex,
			 const struct virtio_net_hdr *vh, const uint8_t *frame,
			 size_t len, uint32_t mark, void *cookie)
{
	unsigned i = t->n;

	if (pkt_tx_add_vnet(t, ifindex, vh, frame, len, cookie) < 0)
		return -1;
	pkt_tx_set_mark(t, i, mark);
	return 0;
}

const void *pkt_tx_control(const struct pkt_tx *t, unsigned i, size_t *len)
{
	if (i >= t->n)
		return NULL;
	*len = t->msg[i].msg_hdr.msg_controllen;
	return t->msg[i].msg_hdr.msg_control;
}

const struct iovec *pkt_tx_iov(const struct pkt_tx *t, unsigned i,
			       size_t *niov)
{
	if (i >= t->n)
		return NULL;
	*niov = t->msg[i].msg_hdr.msg_iovlen;
	return t->msg[i].msg_hdr.msg_iov;
}

uint32_t pkt_tx_ifindex(const struct pkt_tx *t, unsigned i)
{
	return i < t->n ? (uint32_t)t->sll[i].sll_ifindex : 0;
}

unsigned pkt_tx_flush(int fd, struct pkt_tx *t, pkt_tx_failed_fn *failed,
		      void *arg)
{
	unsigned i = 0, sent = 0;

	while (i < t->n) {
		int r = fd >= 0 ? sendmmsg(fd, &t->msg[i], t->n - i, 0) : -1;
		int err = fd >= 0 ? errno : EBADF;

		if (r > 0) {
			/* A frame is sent whole or not at all (SOCK_RAW). */
			i += (unsigned)r;
			sent += (unsigned)r;
			continue;
		}
		/* The first frame left was refused: skip it. */
		failed(t->cookie[i], r < 0 ? err : EIO, arg);
		i++;
		/* A full send buffer refuses the rest of the batch as well:
		 * one more sendmmsg() per frame, each failing, only made an
		 * overload worse. */
		if (r < 0 && (err == EAGAIN || err == EWOULDBLOCK))
			while (i < t->n)
				failed(t->cookie[i++], err, arg);
	}
	t->n = 0;
	return sent;
}

int raw4_sock_open(void)
{
	/* IPPROTO_RAW implies IP_HDRINCL; the socket receives nothing. */
	return socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		      IPPROTO_RAW);
}

int raw4_sock_send(int fd, const uint8_t *pkt, size_t len)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	if (len < 20 || (pkt[0] >> 4) != 4)
		return -1;
	memcpy(&sin.sin_addr, pkt + 16, 4);	/* the destination */
	return sendto(fd, pkt, len, 0, (const struct sockaddr *)&sin,
		      sizeof(sin)) == (ssize_t)len ? 0 : -1;
}
