/* markprobe.h - does a mark srv6d gives in a verdict survive to routing?
 * (issue 19 item 3: "detect it ... a probe at start").
 *
 * The carriers (steer.h G0, G0P) make a rule that rewrites only the mark
 * between srv6d's hook and routing harmless, and the catch rules and
 * counters (markguard.h) see what kernel-end and kernel-encap lose.  A
 * rule that rewrites the priority as well beats G0P, and a marked result
 * that is the verdict's payload (End.X's, End.DT6's, ...) has no catch:
 * the main table would route a decapsulated customer packet.  So the
 * daemon asks the kernel, from start on and every MARKPROBE_POLL_MS:
 *
 *   1. it sends a probe (markprobe_frame(): IPv6/UDP from MARKPROBE_SRC
 *      to MARKPROBE_DST, in RFC 6666's discard-only block 100::/64) into
 *      the reinjection device, as the workers send results there;
 *   2. the steering chain's first IPv6 rule queues it (steer.h rule 0:
 *      `iifname TUN ip6 daddr MARKPROBE_DST queue ...`, before the
 *      accept of srv6d's own devices);
 *   3. a worker accepts it (markprobe_is()) with the probe mark
 *      (MARKPROBE_MARK: mark-base itself, offset 0, no SID's) and the
 *      priority carrier, as it gives End.X's results theirs;
 *   4. the guard, the last base chain of prerouting, counts it before
 *      G0, by what reached it (steer.h GP1-GP4), and drops it: the mark
 *      kept (`probe_kept`), the mark rewritten but the priority kept
 *      (`probe_carried`: G0P would put it back), neither, the mark 0
 *      (`probe_zeroed`: `CONNMARK --restore-mark` of a connection
 *      without a mark), or neither, another mark (`probe_lost`);
 *   5. markprobe_judge() reads the four counters (steer_probe_read()).
 *
 * Zeroed or lost, srv6d stops relying on the verdict's mark: every
 * marked IPv6 result goes by the SID's device (reinject.c
 * reinject_carrier_lost(): the frame's source address carries the mark,
 * G0 restores it), a kernel-encap policy of several lists has its
 * inner packet go by the device too (headend.c headend_kernel_facts(),
 * kencap.c: its catch, markguard.h, has its first list only); logged
 * once a disturbance, shown in status (`mark_probe`) and the metrics.
 * Zeroed, the kernel's End and a policy of one list still take their
 * originals by the mark: a packet for a kernel-end SID that reaches the
 * guard with mark 0 gets the SID's mark back (steer.h G0K), and one
 * list's catch encapsulates an original of mark 0 with that list, its
 * outer packet routed unmarked as srv6d's own is.  Lost (m->foreign),
 * kernel-end is held back as well (srv6d makes its End itself: its
 * hand-off is always the verdict's mark, and the catch would route the
 * kernel's result by the foreign mark; status kernel_end `held`), and
 * every kernel-encap policy's super-packet goes as its inner packet by
 * the device (a foreign mark on the original would be counted and hold
 * kernel-encap).  A probe goes every MARKPROBE_POLL_MS, so a rule added
 * or removed at run time is seen within two of them.  From the start
 * (and whenever the guard comes back) to the first answer srv6d falls
 * back as for lost, unlogged: fail safe, for the few hundred
 * milliseconds until it knows.
 *
 * What it cannot see: a rule bound to in-interfaces or prefixes that the
 * probe does not match (`-i eth0`, `! -i srv6d+`, `-d 2001:db8::/32`);
 * the catch and the carriers stay for those.  With `steering no` there is
 * no guard and no probe (status says so).
 */
#ifndef SRV6D_MARKPROBE_H
#define SRV6D_MARKPROBE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "pkt.h"

#define MARKPROBE_POLL_MS	200	/* a probe, and a reading, this often */
#define MARKPROBE_GRACE_MS	2000	/* no answer this long: unanswered */
#define MARKPROBE_EPISODE_MS	2000	/* lost again this soon after the
					 * last recovery: the same
					 * disturbance, not logged again */
/* The probe's addresses (RFC 6666: 100::/64 is discard-only), its UDP
 * ports and its length (Ethernet, IPv6, UDP, 8 bytes of sequence). */
#define MARKPROBE_SRC		"100::5d6f:1"
#define MARKPROBE_DST		"100::5d6f:2"
#define MARKPROBE_PORT		0x5d6f
#define MARKPROBE_FRAME_LEN	(14 + 40 + 8 + 8)

/* The probe's mark under mark-mask: mark-base, offset 0 (config.h). */
static inline uint32_t markprobe_mark(const struct config *cfg)
{
	return config_mark_value(cfg, cfg->mark_base);
}

/* The probe's destination, as bytes (MARKPROBE_DST). */
extern const struct in6_addr markprobe_dst;

/* Write probe number seq into buf (MARKPROBE_FRAME_LEN bytes): an
 * Ethernet header to the reinjection device's receiving end from its
 * sending end (rtrules_dev_mac() of mark 0), IPv6 from MARKPROBE_SRC to
 * MARKPROBE_DST, hop limit 1, UDP MARKPROBE_PORT to MARKPROBE_PORT with
 * its checksum, seq big-endian.  Pure. */
void markprobe_frame(uint8_t buf[MARKPROBE_FRAME_LEN], uint64_t seq);

/* Whether the queued packet p (one from srv6d's own devices) is a probe:
 * IPv6 to MARKPROBE_DST.  Pure. */
bool markprobe_is(const struct pkt *p);

enum markprobe_state {
	MARKPROBE_OFF = 0,	/* no guard (steering no, not installed) */
	MARKPROBE_PENDING,	/* probing, no answer yet */
	MARKPROBE_KEPT,		/* the last probe kept its mark */
	MARKPROBE_CARRIED,	/* ... lost the mark, kept the priority */
	MARKPROBE_ZEROED,	/* ... lost both, the mark 0 */
	MARKPROBE_LOST,		/* ... lost both, another mark */
	MARKPROBE_UNANSWERED,	/* none reached the guard for
				 * MARKPROBE_GRACE_MS */
};

/* What the guard's probe counters count (steer.h GP1-GP4). */
enum { MARKPROBE_N_KEPT, MARKPROBE_N_CARRIED, MARKPROBE_N_ZEROED,
       MARKPROBE_N_LOST, MARKPROBE_N };

/* Control thread only. */
struct markprobe {
	enum markprobe_state state;
	bool lost;		/* the fallback is on (the engine's flag) */
	bool foreign;		/* ... with kernel-end held and every
				 * encapsulation by the device (lost, not
				 * zeroed; pending too) */
	bool lost_logged;	/* ... for a loss logged (not the start's) */
	uint64_t seen[MARKPROBE_N];	/* the counters when last read */
	bool primed;		/* seen is a reading of the guard in force */
	uint64_t count[MARKPROBE_N];	/* answers since start (status) */
	uint64_t sent;		/* probes sent since start */
	uint64_t send_errors;
	bool send_failing;	/* the last send failed (logged once) */
	uint64_t losses;	/* disturbances (status, metrics) */
	uint64_t since_ms;	/* probing (or answered) since */
	uint64_t recovered_ms;	/* the last end of a loss, 0 */
	uint64_t next_ms;	/* the next probe and reading */
	bool warned_unanswered;
};

/* "off", "pending", "kept", "carried", "zeroed", "lost", "unanswered". */
const char *markprobe_state_name(enum markprobe_state s);

/* Whether a probe and a reading are due. */
static inline bool markprobe_due(const struct markprobe *m, uint64_t now_ms)
{
	return now_ms >= m->next_ms;
}

/* One reading of the guard's probe counters (cur, read: 0, -1 when it
 * failed, 1 when there is no guard: active false) decides m->state and
 * m->lost and m->foreign, and logs a change: zeroed or lost (a warning,
 * once a disturbance; a notice when one becomes the other), carried (a
 * notice), kept again (info), unanswered (a warning, once).  The guard
 * there again (off before), it is pending with m->lost and m->foreign
 * set until the first answer.
 * The counters' growth since the last reading is what the probes sent
 * in between met; the worst of it wins (lost, zeroed, carried, kept);
 * none: the state stays, unanswered after MARKPROBE_GRACE_MS without an
 * answer (m->lost stays as it was: no answer says nothing).  Pure but
 * for the log. */
void markprobe_judge(struct markprobe *m, bool active, int read,
		     const uint64_t cur[MARKPROBE_N], uint64_t now_ms);

#endif
