/* markprobe.c - the probe that asks whether srv6d's verdict marks
 * survive to routing (markprobe.h; issue 19 item 3). */
#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

#include <linux/if_ether.h>

#include "checksum.h"
#include "log.h"
#include "markprobe.h"
#include "rtrules.h"

/* 100::5d6f:2 */
const struct in6_addr markprobe_dst = { .s6_addr = {
	0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x5d, 0x6f, 0x00, 0x02 } };

/* 100::5d6f:1 */
static const struct in6_addr markprobe_src = { .s6_addr = {
	0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x5d, 0x6f, 0x00, 0x01 } };

void markprobe_frame(uint8_t buf[MARKPROBE_FRAME_LEN], uint64_t seq)
{
	uint8_t *ip = buf + ETH_HLEN, *udp = ip + 40;
	const uint16_t plen = 8 + 8;
	uint32_t sum;

	memset(buf, 0, MARKPROBE_FRAME_LEN);
	rtrules_dev_mac(0, true, buf);
	rtrules_dev_mac(0, false, buf + ETH_ALEN);
	buf[12] = ETH_P_IPV6 >> 8;
	buf[13] = ETH_P_IPV6 & 0xff;
	ip[0] = 0x60;
	ip[4] = (uint8_t)(plen >> 8);
	ip[5] = (uint8_t)plen;
	ip[6] = IPPROTO_UDP;
	ip[7] = 1;		/* never forwarded: the guard drops it */
	memcpy(ip + 8, &markprobe_src, 16);
	memcpy(ip + 24, &markprobe_dst, 16);
	udp[0] = udp[2] = MARKPROBE_PORT >> 8;
	udp[1] = udp[3] = MARKPROBE_PORT & 0xff;
	udp[4] = (uint8_t)(plen >> 8);
	udp[5] = (uint8_t)plen;
	for (int i = 0; i < 8; i++)
		udp[8 + i] = (uint8_t)(seq >> (56 - 8 * i));
	sum = csum_ipv6_pseudo(ip + 8, ip + 24, plen, IPPROTO_UDP);
	sum = csum_partial(udp, plen, sum);
	udp[6] = (uint8_t)(csum_fold(sum) >> 8);
	udp[7] = (uint8_t)csum_fold(sum);
}

bool markprobe_is(const struct pkt *p)
{
	return p->hw_proto == ETH_P_IPV6 && p->len >= 40 &&
	       (p->data[0] >> 4) == 6 &&
	       !memcmp(p->data + 24, &markprobe_dst, 16);
}

const char *markprobe_state_name(enum markprobe_state s)
{
	switch (s) {
	case MARKPROBE_PENDING:
		return "pending";
	case MARKPROBE_KEPT:
		return "kept";
	case MARKPROBE_CARRIED:
		return "carried";
	case MARKPROBE_ZEROED:
		return "zeroed";
	case MARKPROBE_LOST:
		return "lost";
	case MARKPROBE_UNANSWERED:
		return "unanswered";
	case MARKPROBE_OFF:
	default:
		return "off";
	}
}

/* m's state becomes s (an answer), logged when it changes. */
static void probe_answer(struct markprobe *m, enum markprobe_state s,
			 uint64_t now_ms)
{
	enum markprobe_state was = m->state;

	m->state = s;
	m->since_ms = now_ms;
	m->warned_unanswered = false;
	if (s == MARKPROBE_LOST || s == MARKPROBE_ZEROED) {
		bool foreign = s == MARKPROBE_LOST, again = m->lost &&
							     m->lost_logged;

		if (again && m->foreign == foreign)
			return;
		m->foreign = foreign;
		if (again) {	/* the same disturbance, another mark */
			log_msg(LOG_NOTICE, "mark probe: the rule that loses "
				"srv6d's marks now gives %s: %s", foreign ?
				"another mark" : "mark 0", foreign ?
				"kernel-end is held back and every kernel-encap "
				"super-packet goes by the reinjection device" :
				"kernel-end and kernel-encap's policies of one "
				"list take their packets by the mark again");
			return;
		}
		m->lost = m->lost_logged = true;
		m->losses++;
		if (m->recovered_ms &&
		    now_ms < m->recovered_ms + MARKPROBE_EPISODE_MS)
			log_debug("mark probe: lost again right after the "
				  "recovery");
		else if (foreign)
			log_msg(LOG_WARNING, "mark probe: a rule between srv6d's "
				"hook and routing rewrites both the mark and the "
				"priority srv6d gives its verdicts: srv6d's marked "
				"results and kernel-encap's super-packets go by its "
				"reinjection device and kernel-end is held back, "
				"until a probe keeps its mark again");
		else
			log_msg(LOG_WARNING, "mark probe: a rule between srv6d's "
				"hook and routing rewrites both the mark and the "
				"priority srv6d gives its verdicts, the mark to 0: "
				"srv6d's marked results go by its reinjection "
				"device, the steering guard gives kernel-end's "
				"packets their mark back, until a probe keeps its "
				"mark again");
		return;
	}
	m->foreign = false;
	if (m->lost && !m->lost_logged) {	/* the first answer */
		m->lost = false;
		log_debug("mark probe: srv6d's marks reach routing (%s): its "
			  "results take their usual ways", s == MARKPROBE_KEPT ?
			  "kept" : "carried by the priority");
	} else if (m->lost) {
		m->lost = m->lost_logged = false;
		m->recovered_ms = now_ms;
		log_msg(LOG_INFO, "mark probe: srv6d's marks reach routing "
			"again (%s): its results take their usual ways",
			s == MARKPROBE_KEPT ? "kept" : "carried by the priority");
		return;
	}
	if (s == MARKPROBE_CARRIED && was != MARKPROBE_CARRIED)
		log_msg(LOG_NOTICE, "mark probe: a rule between srv6d's hook "
			"and routing rewrites the mark srv6d gives its verdicts; "
			"the priority carries it (the steering guard puts it "
			"back)");
	else if (s == MARKPROBE_KEPT && was == MARKPROBE_CARRIED)
		log_msg(LOG_INFO, "mark probe: srv6d's marks reach routing "
			"unchanged again");
}

void markprobe_judge(struct markprobe *m, bool active, int read,
		     const uint64_t cur[MARKPROBE_N], uint64_t now_ms)
{
	uint64_t d[MARKPROBE_N];

	m->next_ms = now_ms + MARKPROBE_POLL_MS;
	if (!active || read > 0) {
		if (m->lost)
			log_msg(LOG_INFO, "mark probe: off (no steering guard): "
				"srv6d's results take their usual ways");
		m->state = MARKPROBE_OFF;
		m->lost = m->lost_logged = m->primed = false;
		m->foreign = false;
		m->warned_unanswered = false;
		return;
	}
	if (m->state == MARKPROBE_OFF) {
		/* fail safe until the first answer: as if lost, unlogged */
		m->state = MARKPROBE_PENDING;
		m->since_ms = now_ms;
		m->lost = m->foreign = true;
	}
	memset(d, 0, sizeof(d));
	if (read < 0) {	/* no answer this tick: the grace below still runs */
		log_debug("mark probe: cannot read the guard's counters");
	} else {
		for (int i = 0; i < MARKPROBE_N; i++) {
			/* a counter made again (a reinstall) starts from 0 */
			d[i] = !m->primed ? 0 : cur[i] >= m->seen[i] ?
			       cur[i] - m->seen[i] : cur[i];
			m->seen[i] = cur[i];
			m->count[i] += d[i];
		}
		m->primed = true;
	}
	if (d[MARKPROBE_N_LOST])
		probe_answer(m, MARKPROBE_LOST, now_ms);
	else if (d[MARKPROBE_N_ZEROED])
		probe_answer(m, MARKPROBE_ZEROED, now_ms);
	else if (d[MARKPROBE_N_CARRIED])
		probe_answer(m, MARKPROBE_CARRIED, now_ms);
	else if (d[MARKPROBE_N_KEPT])
		probe_answer(m, MARKPROBE_KEPT, now_ms);
	else if (now_ms >= m->since_ms + MARKPROBE_GRACE_MS &&
		 m->state != MARKPROBE_UNANSWERED) {
		m->state = MARKPROBE_UNANSWERED;
		if (!m->warned_unanswered)
			log_msg(LOG_WARNING, "mark probe: no probe reached the "
				"steering guard in %u ms (a rule drops what comes "
				"from srv6d's reinjection device or goes to "
				"100::/64, RFC 6666's discard prefix, before "
				"srv6d's hook; the guard's counters cannot be "
				"read; or no worker answers): whether srv6d's "
				"marks survive is not known%s", MARKPROBE_GRACE_MS, m->lost ?
				"; its results keep going by the device" : "");
		m->warned_unanswered = true;
	}
}
