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
	int family;		/* fd's */
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

/* A socket of o's family, opened once per family.  Returns 0 or -1. */
static int oamsock_ready(struct oamsock *os, const struct config_oam *o)
{
	if (os->fd >= 0 && os->family == o->family)
		return 0;
	oamsock_close(os);
	os->fd = socket(o->family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	os->family = o->family;
	return os->fd >= 0 ? 0 : -1;
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
			.msg_name = (void *)&o->dest,
			.msg_namelen = o->dest_len,
			.msg_iov = &os->iov[k],
			.msg_iovlen = 1,
		};
	}
	while (i < n) {
		int sent = sendmmsg(os->fd, &os->msgs[i], n - i, MSG_DONTWAIT);

		if (sent < 0) {
			if (errno == EINTR)
				continue;
			/* The one at i failed: the receiver is absent or full
			 * (ENOENT, ECONNREFUSED, EAGAIN), or the destination
			 * unreachable; the rest would fail the same way. */
			break;
		}
		st->oam_sent += (unsigned)sent;
		i += (unsigned)sent;
	}
fail:
	for (; i < n; i++)
		oamsock_failed(ring, i, st);
	ring->n = 0;
}
