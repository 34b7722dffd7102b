/* kend.h - EXPERIMENTAL: the kernel's End for srv6d's transit
 * super-packets (issue 10).
 *
 * A `gso yes` queue's super-packet whose result is a transit rewrite goes
 * back as the payload of its verdict (or, where the kernel would segment
 * it wrongly from a payload or refuses one, by the vnet way, slower
 * still: packet_snd() copies it into a new skb, which every device then
 * validates again): its 64 KiB cross netlink twice and
 * nfqnl_mangle() linearizes the skb (skb_ensure_writable() over the whole
 * length: a 128 KiB allocation and a copy) before copying the payload
 * over it, which costs more than the kernel's whole End.  With the
 * environment variable SRV6D_EXP_KERNEL_END_MARK=M set when srv6d starts,
 * a super-packet whose result is one plain End (no flavor, no other local
 * SID before or after it) is instead accepted unchanged with packet mark
 * M, no payload, and the kernel's seg6local End makes the same rewrite by
 * routes the operator (today: bench/transit-tcp.sh) installed for every
 * such SID:
 *
 *   ip -6 rule add fwmark M lookup T
 *   ip -6 route add SID/128 encap seg6local action End dev EGRESS table T
 *
 * (after the End the packet, still marked, finds no route in T and falls
 * through to the main table).  srv6d still parses, checks (HMAC too) and
 * counts the packet: only the rewrite is not handed back.  For measuring
 * only: one mark for all such SIDs, the routes must match the config.
 */
#ifndef SRV6D_KEND_H
#define SRV6D_KEND_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "pkt.h"

/* The mark of SRV6D_EXP_KERNEL_END_MARK, 0 when unset or not a number
 * (then nothing changes).  Read once, when a worker starts. */
uint32_t kend_mark_from_env(void);

/* True when p's result is what one plain End of cfg (no flavor) makes,
 * with no other local SID just before it in the list (a chain srv6d ran
 * through) and a destination that is no local SID: what the kernel's End
 * redoes from the original packet. */
bool kend_eligible(const struct config *cfg, struct pkt *p);

#endif
