/* segment.c - encapsulated super-packets cut into frames in a worker's
 * area (segment.h). */
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "gso.h"
#include "segment.h"

#define SEG_ALIGN	64	/* each frame on its own cache line */
#define SEG_BATCH_MAX	64	/* frames cut per call (the caller's
				 * arrays; PKT_TX_MAX) */

int seg_area_init(struct seg_area *a, uint32_t size)
{
	a->buf = malloc(size);
	a->size = a->buf ? size : 0;
	a->used = 0;
	return a->buf ? 0 : -1;
}

void seg_area_fini(struct seg_area *a)
{
	free(a->buf);
	a->buf = NULL;
	a->size = a->used = 0;
}

uint16_t seg_size_default(const struct gso_info *gi)
{
	uint32_t hdr = gso_segment_len(gi, 0);

	if (!hdr || hdr >= SEG_MTU_DEFAULT)
		return 0;
	return (uint16_t)(SEG_MTU_DEFAULT - hdr);
}

unsigned seg_cut(struct seg_area *a, const uint8_t *pkt, uint32_t len,
		 const struct gso_info *gi, uint16_t gso_size,
		 const uint8_t *eth, unsigned first, unsigned max,
		 uint8_t **frames, uint32_t *lens, unsigned *total)
{
	uint8_t *segs[SEG_BATCH_MAX];
	uint32_t hdr = gso_segment_len(gi, 0), room, stride;
	unsigned fit, n;

	*total = 0;
	if (!hdr || !gso_size || hdr > len)
		return 0;
	/* Every segment but the last has gso_size bytes of payload; a
	 * frame's slot holds the largest. */
	room = hdr + (len - hdr < gso_size ? len - hdr : gso_size);
	stride = (ETH_HLEN + room + SEG_ALIGN - 1) & ~(uint32_t)(SEG_ALIGN - 1);
	fit = a->used < a->size ? (a->size - a->used) / stride : 0;
	if (max > fit)
		max = fit;
	if (max > SEG_BATCH_MAX)
		max = SEG_BATCH_MAX;
	for (unsigned k = 0; k < max; k++) {
		frames[k] = a->buf + a->used + k * stride;
		segs[k] = frames[k] + ETH_HLEN;
	}
	n = gso_segment_part(pkt, len, gi, gso_size, first, segs, room, lens,
			     max, total);
	if (!*total)
		return 0;
	/* max 0 (no room): n 0, *total still says how many there are. */
	for (unsigned k = 0; k < n; k++) {
		memcpy(frames[k], eth, ETH_HLEN);
		lens[k] += ETH_HLEN;
	}
	a->used += n * stride;
	return n;
}
