/* pktsock.h - the send-only sockets a worker writes results to, besides
 * the verdict.
 *
 * A packet socket (AF_PACKET, SOCK_RAW, send only), one per worker, sends
 * frames out of any device by its ifindex: every result that does not go
 * as a verdict's payload, into srv6d's reinjection device (a veth pair,
 * rtrules.h; a marked SID's result with its mark as SO_MARK, which its
 * fwmark rules route) or a VRF SID's veth pair, behind an Ethernet header
 * to the receiving end's address, and the inner frames of End.DX2 out of
 * their oif.  With `offload yes` (the default)
 * it has PACKET_VNET_HDR: super-packets go whole behind a virtio_net_hdr,
 * plain frames behind an all-zero one, in one batch.
 *
 * A raw IPv4 socket per worker sends the ICMP errors srv6d originates as
 * locally generated packets (reinject.h).
 */
#ifndef SRV6D_PKTSOCK_H
#define SRV6D_PKTSOCK_H

#include <linux/virtio_net.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Frames a worker collects during a batch and sends on its packet socket
 * in one sendmmsg() at the batch's end (pkt_tx_flush()): no syscall per
 * frame.  The frames are not copied: each stays where it is (a slot of
 * the worker's pool) until the flush. */
#define PKT_TX_MAX	64	/* one per packet of a receive batch */

struct pkt_tx;

/* Called by pkt_tx_flush() for each frame the kernel did not take, with
 * its cookie and the errno of its send (EMSGSIZE: larger than the
 * device's MTU; ENXIO, ENODEV, ENETDOWN: the device is gone or down;
 * EAGAIN, ENOBUFS: its queue is full). */
typedef void pkt_tx_failed_fn(void *cookie, int err, void *arg);

/* Open a send-only packet socket with a send buffer for a few batches in
 * flight (PKT_SNDBUF, pktsock.c).  Returns the fd, or -1 with errno. */
int pkt_sock_open(void);

/* Open a send-only packet socket with PACKET_VNET_HDR: each frame sent on
 * it is preceded by a struct virtio_net_hdr (pkt_tx_add_vnet()), which
 * lets the kernel take a TCP super-packet whole (gso_type, gso_size) with
 * a partial checksum (VIRTIO_NET_HDR_F_NEEDS_CSUM) and segment it itself
 * (virtio_net_hdr_to_skb(): the skb is SKB_GSO_DODGY, its headers checked
 * again when it is segmented).  A frame of such a socket may exceed the
 * device's MTU when it has a gso_type: its segments are what is judged.
 * A super-packet stays charged to the socket until the kernel has
 * forwarded it (in the same namespace nothing orphans it earlier), and the
 * default send buffer (net.core.wmem_default, 208 KB) holds three: the
 * socket asks for PKT_VNET_SNDBUF, a whole batch of the largest.
 * Returns the fd, or -1 with errno. */
int pkt_vnet_sock_open(void);

/* A batch of PKT_TX_MAX super-packets of 64 KB (the kernel doubles it,
 * for the skbs' overhead). */
#define PKT_VNET_SNDBUF	(PKT_TX_MAX * 65536)

/* A batch of PKT_TX_MAX frames, empty; NULL when memory runs out.
 * Allocated once per worker, at start. */
struct pkt_tx *pkt_tx_new(void);
void pkt_tx_free(struct pkt_tx *t);

/* The same for a socket of pkt_vnet_sock_open(): every frame goes behind a
 * virtio_net_hdr, all-zero (no offload) for pkt_tx_add()'s, so that one
 * batch, in one order, holds plain frames and super-packets. */
struct pkt_tx *pkt_tx_new_vnet(void);

/* t was made by pkt_tx_new_vnet(). */
bool pkt_tx_is_vnet(const struct pkt_tx *t);

/* Frames in t waiting for the flush. */
unsigned pkt_tx_count(const struct pkt_tx *t);

/* Add the Ethernet frame (len bytes at frame, which must stay there until
 * the flush) for ifindex to t.  Returns 0, or -1 when t is full or the
 * frame shorter than an Ethernet header (the caller counts a drop). */
int pkt_tx_add(struct pkt_tx *t, uint32_t ifindex, const uint8_t *frame,
	       size_t len, void *cookie);

/* As pkt_tx_add(), for a batch of pkt_tx_new_vnet(): the frame is sent
 * after a copy of *vh (10 bytes, kept in t; the frame itself is not
 * copied: the message is an iovec of two parts).  -1 also when t is not a
 * vnet batch. */
int pkt_tx_add_vnet(struct pkt_tx *t, uint32_t ifindex,
		    const struct virtio_net_hdr *vh, const uint8_t *frame,
		    size_t len, void *cookie);

/* As pkt_tx_add(), the frame sent with the packet mark `mark` (an
 * SO_MARK control message; none for 0): the skb has that mark, which a
 * veth pair within one namespace keeps, so that the kernel routes it by
 * the rules for the mark where the receiving end hands it to IP.  How a
 * marked SID's result goes into the reinjection device (reinject.h).
 * Returns 0, or -1 as pkt_tx_add(). */
int pkt_tx_add_mark(struct pkt_tx *t, uint32_t ifindex, const uint8_t *frame,
		    size_t len, uint32_t mark, void *cookie);

/* As pkt_tx_add_vnet(), the frame sent with the packet mark `mark` as
 * pkt_tx_add_mark() (a super-packet of a marked SID; the kernel's
 * encapsulation, kencap.h). */
int pkt_tx_add_vnet_mark(struct pkt_tx *t, uint32_t ifindex,
			 const struct virtio_net_hdr *vh, const uint8_t *frame,
			 size_t len, uint32_t mark, void *cookie);

/* The control messages frame i of t is sent with (*len bytes), NULL when
 * none (or no frame i).  For tests. */
const void *pkt_tx_control(const struct pkt_tx *t, unsigned i, size_t *len);

/* The iovec of frame i of t, *niov parts (2 with a virtio_net_hdr, else
 * 1), as the flush will send it; NULL when t has no frame i.  For the
 * tests. */
const struct iovec *pkt_tx_iov(const struct pkt_tx *t, unsigned i,
			       size_t *niov);

/* The device frame i of t goes out of, 0 when t has no frame i.  For
 * the tests. */
uint32_t pkt_tx_ifindex(const struct pkt_tx *t, unsigned i);

/* Send t's frames on the packet socket fd (fd < 0: none is sent) with
 * sendmmsg(): one call for the whole batch, one more after each frame the
 * kernel refuses, which is skipped and reported to failed(); after EAGAIN
 * (the socket's send buffer is full) every frame left is reported at once,
 * without a call each.  Never blocks (the socket is non-blocking).  t is
 * empty afterwards.  Returns the number of frames sent. */
unsigned pkt_tx_flush(int fd, struct pkt_tx *t, pkt_tx_failed_fn *failed,
		      void *arg);

/* Open a send-only raw IPv4 socket (IPPROTO_RAW: the caller gives the
 * whole IP header), non-blocking: how a worker sends the ICMP errors it
 * builds as this node's own packets.  Returns the fd, or -1 with errno
 * (EPERM without CAP_NET_RAW). */
int raw4_sock_open(void);

/* Send the IPv4 packet (len bytes at pkt, its header included) to its
 * destination address on the raw socket fd; the kernel routes it as a
 * locally generated packet.  Returns 0, or -1 when the kernel did not
 * take it whole (the caller counts DROP_REINJECT). */
int raw4_sock_send(int fd, const uint8_t *pkt, size_t len);

#endif
