/* tun.h - the devices results are written to so that the kernel receives
 * and routes them as if they had arrived on them.
 *
 * The TUN device takes the results of another address family (or every
 * result, with `reinject tun`) that need no routing of their own: one
 * multi-queue TUN device, one queue (fd) per worker; writes are
 * non-blocking.  The device is not persistent: closing its last queue
 * removes it.
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
#ifndef SRV6D_TUN_H
#define SRV6D_TUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Create TUN device `name` (IFF_TUN, no packet info, multi-queue) with
 * nqueues queues, store their non-blocking fds in fds[], bring it up, and
 * set its sysctls (rp_filter 0, accept_local 1, IPv6 forwarding as
 * all/forwarding; a failed sysctl write is only logged).  Returns 0, or -1
 * with a message in err and nothing left open. */
int tun_open(const char *name, unsigned nqueues, int *fds, char *err,
	     size_t errlen);

/* Close every queue: the device disappears with the last one. */
void tun_close(int *fds, unsigned nqueues);

/* Write one IPv4/IPv6 packet (len bytes at data) to the TUN queue fd.
 * Returns 0, or -1 when the kernel did not take it whole (EAGAIN, a bad
 * packet, ...); the caller counts DROP_REINJECT. */
int tun_write(int fd, const uint8_t *data, size_t len);

/* MAC address of the receiving end of the veth pair of the SID with
 * `mark` (02:00 and the mark, big-endian); the sending end has 06:00 and
 * the mark.  Pure. */
void tun_veth_mac(uint32_t mark, bool rx, uint8_t mac[6]);

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
