/* oamsock.c - a worker's socket to the OAM process (oamsock.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* sendmmsg */
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "oamsock.h"

struct oamsock {
	int fd;			/* -1: none open */
	struct sockaddr_storage dest;	/* fd is connected to */
	socklen_t dest_len;
	struct mmsghdr msgs[OAM_RING_SLOTS];
	struct iovec iov[OAM_RING_SLOTS];
};

struct oamsock *oamsock_new(void)
{
	struct oamsock *os = calloc(1, sizeof(*os));

	if (os)
		os->fd = -1;
	return os;
}

static void oamsock_close(struct oamsock *os)
{
	if (os->fd >= 0)
		close(os->fd);
	os->fd = -1;
}

void oamsock_free(struct oamsock *os)
{
	if (!os)
		return;
	oamsock_close(os);
	free(os);
}

/* A socket connected to o's destination, opened once per destination
 * (again after a failed send).  Returns 0, or -1 when it cannot be made
 * (AF_UNIX: no socket bound at the path yet). */
static int oamsock_ready(struct oamsock *os, const struct config_oam *o)
{
	if (os->fd >= 0 && os->dest_len == o->dest_len &&
	    !memcmp(&os->dest, &o->dest, o->dest_len))
		return 0;
	oamsock_close(os);
	if (o->dest_len > sizeof(os->dest))
		return -1;
	os->fd = socket(o->family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	if (os->fd < 0)
		return -1;
	if (connect(os->fd, &o->dest.sa, o->dest_len) < 0) {
		oamsock_close(os);
		return -1;
	}
	memcpy(&os->dest, &o->dest, o->dest_len);
	os->dest_len = o->dest_len;
	return 0;
}

/* Copy i of ring did not leave. */
static void oamsock_failed(struct oam_ring *ring, unsigned i,
			   struct worker_stats *st)
{
	struct pkt *p = ring->punt[i];

	st->oam_send_errors++;
	if (p) {	/* End.OP's packet: a drop, not a success */
		p->way.failed = true;
		p->way.reason = DROP_OAM_SEND;
	}
}

void oamsock_flush(struct oamsock *os, struct oam_ring *ring,
		   const struct config_oam *o, struct worker_stats *st)
{
	unsigned n = ring->n, i = 0;

	if (!n)
		return;
	if (!os || !o->on || oamsock_ready(os, o) < 0)
		goto fail;
	for (unsigned k = 0; k < n; k++) {
		uint32_t len;

		os->iov[k].iov_base = (void *)oam_ring_copy(ring, k, &len);
		os->iov[k].iov_len = len;
		os->msgs[k].msg_hdr = (struct msghdr){
			.msg_iov = &os->iov[k],
			.msg_iovlen = 1,
		};
	}
	while (i < n) {
		int sent = sendmmsg(os->fd, &os->msgs[i], n - i, MSG_DONTWAIT);

		if (sent < 0) {
			if (errno == EINTR)
				continue;
			/* The one at i failed: the receiver is full (EAGAIN),
			 * or gone (ECONNREFUSED: a restarted one is another
			 * socket, connected to by the next flush), or the
			 * destination unreachable; the rest would fail the
			 * same way. */
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				oamsock_close(os);
			break;
		}
		st->oam_sent += (unsigned)sent;
		i += (unsigned)sent;
	}
fail:
	for (; i < n; i++)
		oamsock_failed(ring, i, st);
	ring->n = 0;
	ring->held_since_ns = 0;
}
