/* flowhash.h - a packet's flow hash and the weighted choice of a policy's
 * segment list.
 *
 * Every packet of a flow gets the same hash (so the same segment list):
 * IPv6 hashes source, destination and the flow label when it is not zero,
 * otherwise source, destination, upper-layer protocol (past Hop-by-Hop,
 * Routing and Destination Options headers, so past an SRH) and ports, or
 * the flow of the IPv6/IPv4 packet a tunnel carries; IPv4 hashes source,
 * destination, protocol and, unless the packet is a fragment, the
 * ports.  The hash is a pure function of the bytes: no
 * state, nothing shared between workers.
 */
#ifndef SRV6D_FLOWHASH_H
#define SRV6D_FLOWHASH_H

#include <stdint.h>

/* Flow hash of the IP packet pkt[0..len) queued as family hw_proto
 * (ETH_P_IPV6 / ETH_P_IP).  Never fails: fields a short packet does not
 * have count as zero (such a packet is dropped later anyway). */
uint32_t flowhash_packet(const uint8_t *pkt, uint32_t len, uint16_t hw_proto);

/* Index of the segment list for `hash` among n lists of the given
 * weights: list i takes weights[i] / sum(weights) of the hash space.
 * Returns 0 when n <= 1 or every weight is 0. */
unsigned flowhash_pick(uint32_t hash, const uint16_t *weights, unsigned n);

#endif
