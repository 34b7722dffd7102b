/* segment.h - an encapsulated super-packet cut into Ethernet frames for
 * the packet socket (pktsock.h), in a worker's preallocated area.
 *
 * No userspace interface hands the kernel an IPv6-in-IPv6 (or IPv4-in-
 * IPv6) TCP super-packet (virtio_net_hdr has no IPXIP6 GSO type), so the
 * results of H.Encaps, H.Encaps.Red and End.B6.Encaps* that are super-
 * packets go back as their segments (reinject.h, REINJECT_SEGMENT): each
 * a whole outer IPv6 (+SRH) + inner packet cut by gso_segment_part()
 * (src/srv6/gso.h), behind the Ethernet header of the device it is sent
 * into.  The area is allocated once per worker, at start; it is emptied
 * after each flush of the worker's frames (reinject_flush()).
 */
#ifndef SRV6D_SEGMENT_H
#define SRV6D_SEGMENT_H

#include <stdint.h>

#include "gso_info.h"

/* Bytes of a worker's area: 64 frames (PKT_TX_MAX, one flush) of a
 * 9000-byte MTU with their Ethernet headers and more. */
#define SEG_AREA_BYTES	(1u << 20)

/* A segment size no route says anything about: what fits IPv6's minimum
 * link MTU, 1280 (RFC 8200 5), with all the result's headers. */
#define SEG_MTU_DEFAULT	1280

struct seg_area {
	uint8_t *buf;
	uint32_t size;
	uint32_t used;	/* bytes taken by frames not yet sent */
};

/* Allocate a's `size` bytes, empty.  Returns 0, or -1 (out of memory). */
int seg_area_init(struct seg_area *a, uint32_t size);

/* Free a's bytes (a zeroed or finished area: nothing). */
void seg_area_fini(struct seg_area *a);

/* Every frame in a has been sent: reuse its bytes. */
static inline void seg_area_reset(struct seg_area *a)
{
	a->used = 0;
}

/* The segment size for the TCP super-packet result of facts gi
 * (gso_pkt_info()) when nothing chose one (p->facts.gso_size 0: no route
 * mirror): what fits SEG_MTU_DEFAULT with its headers.  0 when gi is NULL
 * or not TCP's, or its headers alone do not fit.  Pure. */
uint16_t seg_size_default(const struct gso_info *gi);

/* Cut the TCP super-packet at pkt (len bytes, facts gi: its GSO parse,
 * gso_pkt_info(); NULL: none) into segments of gso_size payload bytes
 * from segment number `first` on, as many as fit a's room
 * and at most max: frames[k] gets the address of the k-th frame in a,
 * lens[k] its length, each the 14 bytes at eth (an Ethernet header) then
 * the segment (gso_segment_part()).  *total is the number of segments of
 * the whole super-packet, 0 when it cannot be cut (not TCP, gso_size 0,
 * or too deep).  Returns the frames written: 0 with *total > first when
 * a has no room for one more (flush and call again). */
unsigned seg_cut(struct seg_area *a, const uint8_t *pkt, uint32_t len,
		 const struct gso_info *gi, uint16_t gso_size,
		 const uint8_t *eth, unsigned first, unsigned max,
		 uint8_t **frames, uint32_t *lens, unsigned *total);

#endif
