/* kend.h - the kernel's End for srv6d's transit super-packets
 * (`kernel-end`, srv6d.conf(5); issue 10), and its decapsulations (issue 18).
 *
 * A super-packet (`offload yes`) whose result is a transit rewrite would
 * go back as the payload of its verdict (or by the vnet way, slower
 * still): its 64 KiB cross netlink twice and nfqnl_mangle() linearizes
 * the skb before copying the payload over it, which costs more than the
 * kernel's whole End.  A super-packet whose result is one plain End (no
 * flavor, no other local SID before or after it, no TLV in its SRH) is
 * instead accepted unchanged with its SID's kend_mark, no payload, and the
 * kernel's seg6local End of that mark's table (src/route/kencap_routes.h)
 * makes the same rewrite.  srv6d still parses, checks and counts the
 * packet: only the rewrite is not handed back.
 */
#ifndef SRV6D_KEND_H
#define SRV6D_KEND_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "runstate.h"
#include "pkt.h"

/* Whether p, as queued, is a packet whose result the kernel's seg6local
 * makes from the original (the behavior records it in p->facts: End in
 * behavior_end.c, End.DT6/DX6/DX4 in behavior_decap.c): its destination
 * segment SL of its SRH, a plain End SID of srv6d.conf with a kend_mark,
 * no TLV, no local SID just before or after it in the list; or its
 * destination a decapsulating SID with a kend_mark, the outer headers
 * behavior_decap_kernel_len() wants and the inner header at hand, whose
 * length ends the packet.  What a header
 * queue's packet needs (`header-queue`): cut short, its headers suffice
 * then, as the kernel rewrites the original.  Any other packet there is
 * bounced to be queued whole (the worker). */
bool kend_from_headers(const struct config *cfg, const struct runstate *rs,
		       struct pkt *p);

#endif
