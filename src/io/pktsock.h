/* pktsock.h - the send-only sockets a worker writes results to, besides
 * the TUN device (tun.h).
 *
 * A packet socket (AF_PACKET, SOCK_RAW, send only), one per worker, sends
 * frames out of any device by its ifindex: the inner frames of End.DX2
 * out of their oif, and the IPv4 results of End.DX4/DT4/DT46 into the
 * SID's veth pair (rtrules.h), behind an Ethernet header to the receiving
 * end's address, so that the kernel routes them by that device's rule.
 *
 * A raw IPv4 socket per worker sends the ICMP errors srv6d originates as
 * locally generated packets (reinject.h).
 */
#ifndef SRV6D_PKTSOCK_H
#define SRV6D_PKTSOCK_H

#include <stddef.h>
#include <stdint.h>

/* Open a send-only packet socket.  Returns the fd, or -1 with errno. */
int pkt_sock_open(void);

/* Send the Ethernet frame (len bytes at frame) out of ifindex on the
 * packet socket fd.  Returns 0, or -1 when the kernel did not take it
 * whole (the caller counts DROP_REINJECT). */
int pkt_sock_send(int fd, uint32_t ifindex, const uint8_t *frame, size_t len);

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
