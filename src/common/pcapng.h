/* pcapng.h - the few pcapng blocks `srv6ctl capture` writes (the pcapng
 * draft, IETF opsawg): a Section Header Block, one Interface Description
 * Block, and an Enhanced Packet Block per packet with its comment.  All
 * in little-endian order (a reader learns it from the SHB's magic), so
 * that the bytes are the same on any host; timestamps in microseconds
 * (the IDB's default resolution).
 *
 * Each function writes one block into buf (cap bytes) and returns its
 * length, or 0 when it does not fit (nothing is written then).
 */
#ifndef SRV6D_PCAPNG_H
#define SRV6D_PCAPNG_H

#include <stddef.h>
#include <stdint.h>

#define PCAPNG_LINKTYPE_RAW	101	/* raw IPv4 or IPv6, no link header */

/* The Section Header Block (version 1.0, section length unknown), with
 * shb_userappl `app` when not NULL. */
size_t pcapng_shb(uint8_t *buf, size_t cap, const char *app);

/* An Interface Description Block of linktype and snaplen, with if_name
 * `name` when not NULL. */
size_t pcapng_idb(uint8_t *buf, size_t cap, uint16_t linktype,
		  uint32_t snaplen, const char *name);

/* An Enhanced Packet Block: interface ifid, time ts_us (microseconds
 * since the Epoch), caplen bytes of data of a packet of origlen bytes,
 * with opt_comment `comment` when not NULL. */
size_t pcapng_epb(uint8_t *buf, size_t cap, uint32_t ifid, uint64_t ts_us,
		  const uint8_t *data, uint32_t caplen, uint32_t origlen,
		  const char *comment);

#endif
