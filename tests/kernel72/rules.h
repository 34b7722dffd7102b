/* rules.h - what Linux 7.2 accepts as an NFQUEUE verdict payload,
 * restated from mainline 54f34607d184 ("netfilter: nfnetlink_queue:
 * restrict writes to network header", net-7.2-rc2; ../shared/BRIEF.md).
 *
 * The kernel judges the new payload against the packet it queued:
 *   IPv6: version 6, Payload Length equal to the new length - 40, the
 *         first Next Header equal to the original's, and every extension
 *         header of the original chain (Hop-by-Hop, Routing, Fragment,
 *         AH, Destination Options) byte-identical, with the same next
 *         headers.  Addresses, hop limit, traffic class, flow label and
 *         what follows the last extension header may change.
 *   IPv4: version 4, Total Length equal to the new length, the same IHL
 *         and byte-identical options, the fragment field equal but for
 *         DF.
 * A refused payload turns the verdict into NF_DROP without a word.
 *
 * These functions are the test suite's copy of that rule (tests/kernel72/
 * nfq72.c applies it to every verdict srv6d sends on this 6.18 machine);
 * srv6d itself never calls them.
 */
#ifndef SRV6D_TESTS_KERNEL72_RULES_H
#define SRV6D_TESTS_KERNEL72_RULES_H

#include <stddef.h>
#include <stdint.h>

/* Why a payload is refused (K72_OK: accepted). */
enum k72_verdict {
	K72_OK = 0,
	K72_BAD_FAMILY,		/* not the family queued, or too short */
	K72_BAD_LENGTH,		/* Payload Length / Total Length != length */
	K72_FIRST_NH,		/* IPv6 first Next Header changed */
	K72_EXT_CHANGED,	/* an extension header of the chain changed */
	K72_IHL_OPTIONS,	/* IPv4 header length or options changed */
	K72_FRAG,		/* IPv4 fragment field changed (DF aside) */
};

/* Bytes of the original that the rule looks at: the IPv6 header and its
 * extension header chain, or the IPv4 header with its options.  Returns
 * that length (<= olen; the whole chain may be cut short by olen). */
size_t k72_header_span(uint16_t hw_proto, const uint8_t *orig, size_t olen);

/* Judge the new payload np[0..nlen) of a packet queued as orig[0..olen)
 * (olen may be only k72_header_span() bytes) with hardware protocol
 * hw_proto (ETH_P_IPV6 or ETH_P_IP, host order). */
enum k72_verdict k72_payload_judge(uint16_t hw_proto, const uint8_t *orig,
				   size_t olen, const uint8_t *np, size_t nlen);

/* A short name for v ("ok", "first_nh", ...). */
const char *k72_verdict_name(enum k72_verdict v);

#endif
