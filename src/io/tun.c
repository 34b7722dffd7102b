/* tun.c - the reinjection TUN device: one multi-queue TUN, a queue per
 * worker, brought up with the sysctls that let the kernel route what we
 * write to it (the packet and raw sockets are pktsock.c's). */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "sysctl.h"
#include "tun.h"

#define TUN_DEV "/dev/net/tun"

/* Attach one queue of device `name` (created by the first). Returns the
 * fd or -1 with errno. */
static int tun_queue_open(const char *name)
{
	struct ifreq ifr = { 0 };
	int fd;

	fd = open(TUN_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_MULTI_QUEUE;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int tun_set_up(const char *name)
{
	struct ifreq ifr = { 0 };
	int s, ret = -1;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return ret;
}

/* What the kernel must allow for packets arriving on the TUN device. */
static void tun_sysctls(const char *name)
{
	char fwd[16], rpf[16];

	/* IPv4 sources are anything (decapsulated traffic): no reverse
	 * path check on our device, and local sources are fine (locally
	 * originated traffic steered through srv6d). */
	sysctl_dev_write("ipv4", name, "rp_filter", "0");
	sysctl_dev_write("ipv4", name, "accept_local", "1");
	/* The effective rp_filter is max(all, device). */
	if (sysctl_read("/proc/sys/net/ipv4/conf/all/rp_filter", rpf,
			sizeof(rpf)) == 0 && strcmp(rpf, "1") == 0)
		log_msg(LOG_WARNING, "%s: net.ipv4.conf.all.rp_filter is 1 "
			"(strict): decapsulated IPv4 whose source is not routed "
			"via %s will be dropped", name, name);
	if (sysctl_read("/proc/sys/net/ipv6/conf/all/forwarding", fwd,
			sizeof(fwd)) == 0)
		sysctl_dev_write("ipv6", name, "forwarding", fwd);
}

int tun_open(const char *name, unsigned nqueues, int *fds, char *err,
	     size_t errlen)
{
	unsigned i;

	for (i = 0; i < nqueues; i++) {
		fds[i] = tun_queue_open(name);
		if (fds[i] < 0) {
			snprintf(err, errlen, "TUN device %s, queue %u: %s%s",
				 name, i, strerror(errno),
				 errno == EINVAL || errno == EBUSY ?
				 " (does a device of that name, not a "
				 "multi-queue TUN, exist?)" : "");
			goto fail;
		}
	}
	if (tun_set_up(name) < 0) {
		snprintf(err, errlen, "TUN device %s: cannot bring it up: %s",
			 name, strerror(errno));
		goto fail;
	}
	tun_sysctls(name);
	return 0;
fail:
	tun_close(fds, i);
	return -1;
}

void tun_close(int *fds, unsigned nqueues)
{
	for (unsigned i = 0; i < nqueues; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

int tun_write(int fd, const uint8_t *data, size_t len)
{
	return write(fd, data, len) == (ssize_t)len ? 0 : -1;
}
