/* oamsock.h - a worker's socket to the OAM process (RFC 9259, `oam-copy`):
 * the copies of O-flag packets and End.OP's punts that the packet path
 * wrote into the worker's ring (src/srv6/oam.h), sent in one sendmmsg().
 *
 * The socket is a datagram socket of the destination's family (AF_UNIX,
 * AF_INET6, AF_INET), non-blocking, connected to the destination, so
 * that a send looks up neither the path nor the route per copy; opened by
 * the worker itself the first time a config asks for that destination
 * (never per packet), and again after a send fails other than for a full
 * receiver, so that an OAM process started after srv6d, or restarted,
 * gets the copies of the batch after.
 */
#ifndef SRV6D_OAMSOCK_H
#define SRV6D_OAMSOCK_H

#include "config.h"
#include "oam.h"
#include "stats.h"

struct oamsock;

/* A worker's oamsock, with no socket yet; NULL: out of memory. */
struct oamsock *oamsock_new(void);

/* Send ring's copies to o's destination and empty the ring: each that
 * left is counted in st->oam_sent, each that did not (no socket, a full
 * or absent receiver, any error) in st->oam_send_errors, and an End.OP
 * punt among those becomes a drop for DROP_OAM_SEND when its packet is
 * counted (p->way, reinject_count()).  Never blocks. */
void oamsock_flush(struct oamsock *os, struct oam_ring *ring,
		   const struct config_oam *o, struct worker_stats *st);

/* Close its socket and free it (NULL: nothing). */
void oamsock_free(struct oamsock *os);

#endif
