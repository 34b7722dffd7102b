/* testutil.h - helpers shared by the Check unit tests. */
#ifndef SRV6D_TESTUTIL_H
#define SRV6D_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

/* Parse a hex string (whitespace ignored) into buf; returns the length,
 * aborts the test on a bad string or overflow. */
size_t hex2bin(const char *hex, uint8_t *buf, size_t cap);

/* Fail the test with a hex dump of both sides unless got == want. */
#define ck_assert_bytes(got, glen, want, wlen) \
	testutil_assert_bytes(__FILE__, __LINE__, (got), (glen), (want), (wlen))
void testutil_assert_bytes(const char *file, int line, const uint8_t *got,
			   size_t glen, const uint8_t *want, size_t wlen);

/* A packet slot for tests: PKT_HEADROOM in front, 64 KiB behind. */
struct test_slot {
	uint8_t buf[PKT_HEADROOM + 65536];
	struct pkt p;
};

/* Place bytes in the slot as a packet queued from hook family `hw_proto`
 * (ETH_P_IPV6 / ETH_P_IP); returns &slot->p. */
struct pkt *test_pkt(struct test_slot *s, const uint8_t *bytes, size_t len,
		     uint16_t hw_proto);

/* Append a pcap record of the packet to $SRV6D_TEST_PCAP if set, so a
 * rewrite can be looked at in Wireshark (lldpd's habit). */
void test_pcap_write(const uint8_t *bytes, size_t len);

#endif
