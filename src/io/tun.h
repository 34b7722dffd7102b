/* tun.h - the TUN device results are written to so that the kernel
 * receives and routes them as if they had arrived on it.
 *
 * The TUN device takes the results of another address family (or every
 * result, with `reinject no-payload`) that need no routing of their own:
 * one multi-queue TUN device, one queue (fd) per worker; writes are
 * non-blocking.  The device is not persistent: closing its last queue
 * removes it.  The packet and raw sockets are pktsock.h's.
 */
#ifndef SRV6D_TUN_H
#define SRV6D_TUN_H

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

#endif
