/* metrics.c - the metrics document (metrics.h): Prometheus' text format
 * written with stdio into memory. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kpolicy.h"
#include "metrics.h"
#include "rtwatch.h"

/* ---- writing ---------------------------------------------------------- */

/* "# HELP name help" and "# TYPE name type". */
static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value with \, " and newline escaped (the format's rule). */
static void label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* name{labels} value: labels is NULL or the pairs k1, v1, k2, v2, ...
 * (n of them, values escaped). */
static void sample(FILE *f, const char *name, const char *const *labels,
		   unsigned n, uint64_t value)
{
	fputs(name, f);
	for (unsigned i = 0; i < n; i++) {
		fprintf(f, "%s%s=\"", i ? "," : "{", labels[2 * i]);
		label_value(f, labels[2 * i + 1]);
		fputc('"', f);
	}
	fprintf(f, "%s %" PRIu64 "\n", n ? "}" : "", value);
}

/* ---- the daemon -------------------------------------------------------- */

static void daemon_metrics(FILE *f, const struct ctl_status_src *src)
{
	const char *version[2] = { "version", SRV6D_VERSION };
	const struct config *cfg = src->cfg;

	family(f, "srv6d_build_info", "gauge",
	       "srv6d's version, as a label (the value is 1).");
	sample(f, "srv6d_build_info", version, 1, 1);
	family(f, "srv6d_uptime_seconds", "gauge", "Seconds since srv6d started.");
	sample(f, "srv6d_uptime_seconds", NULL, 0, src->uptime);
	family(f, "srv6d_config_load_timestamp_seconds", "gauge",
	       "When the configuration in force was loaded (Unix time).");
	sample(f, "srv6d_config_load_timestamp_seconds", NULL, 0,
	       src->config_loaded > 0 ? (uint64_t)src->config_loaded : 0);
	family(f, "srv6d_config_reloads_total", "counter",
	       "Reloads of the configuration applied.");
	sample(f, "srv6d_config_reloads_total", NULL, 0, src->reloads);
	family(f, "srv6d_config_reload_failures_total", "counter",
	       "Reloads refused (the running configuration kept).");
	sample(f, "srv6d_config_reload_failures_total", NULL, 0,
	       src->reload_failures);
	family(f, "srv6d_counters_cleared_timestamp_seconds", "gauge",
	       "When srv6ctl clear last cleared the counters (Unix time; 0: "
	       "never).");
	sample(f, "srv6d_counters_cleared_timestamp_seconds", NULL, 0,
	       src->cleared > 0 ? (uint64_t)src->cleared : 0);
	if (src->repairs) {
		static const char *const kinds[RTWATCH_NKINDS] = {
			"rule", "route", "kernel_encap_route",
			"kernel_end_route", "device",
		};

		family(f, "srv6d_repairs_total", "counter",
		       "srv6d's rules, routes and devices made again after "
		       "they went away, by kind.");
		for (unsigned k = 0; k < RTWATCH_NKINDS; k++) {
			const char *l[2] = { "kind", kinds[k] };

			sample(f, "srv6d_repairs_total", l, 1,
			       src->repairs[k]);
		}
		family(f, "srv6d_repair_failures_total", "counter",
		       "Repairs that failed (the next event tries again).");
		sample(f, "srv6d_repair_failures_total", NULL, 0,
		       src->repair_failures);
	}
	family(f, "srv6d_kernel_end_held", "gauge",
	       "1 while kernel-end is held back: packets for its SIDs reached "
	       "routing without srv6d's mark.");
	sample(f, "srv6d_kernel_end_held", NULL, 0, src->kend_held ? 1 : 0);
	family(f, "srv6d_kernel_end_caught_total", "counter",
	       "Packets for kernel-end's SIDs its catch rules took (their "
	       "mark did not survive).");
	sample(f, "srv6d_kernel_end_caught_total", NULL, 0, src->kend_caught);
	family(f, "srv6d_kernel_end_holds_total", "counter",
	       "Times kernel-end was held back for lost marks.");
	sample(f, "srv6d_kernel_end_holds_total", NULL, 0, src->kend_holds);
	family(f, "srv6d_kernel_end_restored_total", "counter",
	       "Packets for kernel-end's SIDs that reached the steering guard "
	       "with no mark at all and got their SID's mark back (the "
	       "kernel's End took them, nothing held back).");
	sample(f, "srv6d_kernel_end_restored_total", NULL, 0,
	       src->kend_restored);
	family(f, "srv6d_kernel_encap_mark_held", "gauge",
	       "1 while kernel-encap is held back: packets for its policies "
	       "reached routing without srv6d's mark.");
	sample(f, "srv6d_kernel_encap_mark_held", NULL, 0,
	       src->kencap_mark_held ? 1 : 0);
	family(f, "srv6d_kernel_encap_caught_total", "counter",
	       "Packets for kernel-encap's policies that reached routing "
	       "without srv6d's mark (its guard counters).");
	sample(f, "srv6d_kernel_encap_caught_total", NULL, 0,
	       src->kencap_caught);
	family(f, "srv6d_kernel_encap_caught_unmarked_total", "counter",
	       "Packets for kernel-encap's policies of one list that reached "
	       "routing with no mark at all: caught and encapsulated as srv6d "
	       "would, nothing held back.");
	sample(f, "srv6d_kernel_encap_caught_unmarked_total", NULL, 0,
	       src->kencap_unmarked);
	family(f, "srv6d_kernel_encap_holds_total", "counter",
	       "Times kernel-encap was held back for lost marks.");
	sample(f, "srv6d_kernel_encap_holds_total", NULL, 0,
	       src->kencap_holds);
	family(f, "srv6d_rules_before", "gauge",
	       "Rules not srv6d's that the kernel evaluates before srv6d's "
	       "fwmark and catch rules.");
	sample(f, "srv6d_rules_before", NULL, 0, src->nbefore);
	if (src->probe) {
		static const char *const outcome[MARKPROBE_N][2] = {
			{ "outcome", "kept" }, { "outcome", "carried" },
			{ "outcome", "zeroed" }, { "outcome", "lost" },
		};

		family(f, "srv6d_mark_probe_total", "counter",
		       "Mark probes that reached the steering guard: their "
		       "mark kept, carried by the priority, lost to mark 0 "
		       "(zeroed), or lost to another mark.");
		for (int i = 0; i < MARKPROBE_N; i++)
			sample(f, "srv6d_mark_probe_total", outcome[i], 1,
			       src->probe->count[i]);
		family(f, "srv6d_mark_probe_fallback", "gauge",
		       "1 while the mark probe finds srv6d's verdict marks "
		       "lost (zeroed or to another mark): marked results go "
		       "by the reinjection device.");
		sample(f, "srv6d_mark_probe_fallback", NULL, 0,
		       src->probe->lost ? 1 : 0);
		family(f, "srv6d_mark_probe_losses_total", "counter",
		       "Times the mark probe found srv6d's verdict marks lost.");
		sample(f, "srv6d_mark_probe_losses_total", NULL, 0,
		       src->probe->losses);
	}
	family(f, "srv6d_sids", "gauge", "SIDs in the configuration in force.");
	sample(f, "srv6d_sids", NULL, 0, cfg ? cfg->nsids : 0);
	family(f, "srv6d_policies", "gauge",
	       "srv6d.conf's steering policies in force.");
	sample(f, "srv6d_policies", NULL, 0, cfg ? cfg->npolicies : 0);
}

/* ---- workers ----------------------------------------------------------- */

/* The worker counters that are a family each (the outcomes and the drops
 * are labelled families of their own). */
static const struct {
	const char *name;
	size_t off;
	const char *help;
} worker_counters[] = {
#define W(f, h) { "srv6d_worker_" #f "_total", \
		  offsetof(struct worker_stats, f), h }
	W(rx_packets, "Packets received from the worker's queues."),
	W(rx_bytes, "Bytes of packets received (as copied to srv6d)."),
	W(rx_batches, "Receive calls that returned packets."),
	W(verdicts, "Verdicts sent."),
	W(verdict_batches, "Verdict send calls."),
	W(unmatched, "Packets of no SID and no policy (of the accepted)."),
	W(mark_probes, "srv6d's mark probes (of the unmatched)."),
	W(icmp_sent, "ICMP errors sent about dropped packets."),
	W(icmp_ratelimited, "ICMP errors owed but over icmp-rate."),
	W(icmp_send_errors, "ICMP errors built that could not be sent."),
	W(enobufs, "ENOBUFS on the queue socket (the kernel dropped "
		   "messages)."),
	W(recv_errors, "Other receive errors on the queue socket."),
	W(send_errors, "Verdict sends that failed."),
	W(tx_full, "Results the packet socket refused for want of room."),
	W(nl_errors, "Netlink error messages from the kernel."),
	W(bad_messages, "Queue messages that could not be parsed."),
	W(rx_too_long, "Packets longer than the queue's copy range."),
	W(gso_packets, "Super-packets received."),
	W(gso_refused, "Super-packet results no way back carries."),
	W(gso_vnet, "Super-packet results sent whole behind a "
		    "virtio_net_hdr."),
	W(csum_completed, "Partial checksums completed."),
	W(gso_segments, "Segments cut from encapsulated super-packets."),
	W(kencap, "Encapsulated super-packets handed to the kernel's seg6."),
	W(kend, "Results handed to the kernel's seg6local with their SID's "
		"mark."),
	W(hq_truncated, "Header queue packets cut short by its copy range."),
	W(oam_sent, "OAM copies and End.OP punts sent to oam-copy."),
	W(oam_ratelimited, "OAM copies and punts owed but over oam-rate."),
	W(oam_send_errors, "OAM copies and punts the oam-copy socket refused."),
#undef W
};

static uint64_t worker_field(const struct worker_stats *ws, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)ws + off, sizeof(v));
	return v;
}

/* The worker and queue labels of worker i: buffers for their values. */
struct worker_labels {
	char worker[16], queue[16];
};

static void worker_labels_fill(const struct ctl_status_src *src, unsigned i,
			       struct worker_labels *wl, const char *l[4])
{
	snprintf(wl->worker, sizeof(wl->worker), "%u", i);
	snprintf(wl->queue, sizeof(wl->queue), "%u", src->queues[i]);
	l[0] = "worker";
	l[1] = wl->worker;
	l[2] = "queue";
	l[3] = wl->queue;
}

/* The family `name` with one sample per worker and per value of the
 * label `key` (names[0..n), the counts by get()). */
static void worker_labelled(FILE *f, const struct ctl_status_src *src,
			    const char *name, const char *help,
			    const char *key, unsigned n,
			    const char *(*label)(unsigned),
			    uint64_t (*get)(const struct worker_stats *,
					    unsigned))
{
	struct worker_labels wl;
	const char *l[6];

	family(f, name, "counter", help);
	for (unsigned i = 0; i < src->nworkers; i++) {
		worker_labels_fill(src, i, &wl, l);
		l[4] = key;
		for (unsigned k = 0; k < n; k++) {
			l[5] = label(k);
			sample(f, name, l, 3, get(&src->workers[i], k));
		}
	}
}

static const char *outcome_label(unsigned k)
{
	return worker_outcome_name((enum worker_outcome)k);
}

static uint64_t outcome_get(const struct worker_stats *ws, unsigned k)
{
	return worker_outcome_count(ws, (enum worker_outcome)k);
}

static const char *reason_label(unsigned k)
{
	return drop_reason_name((enum drop_reason)k);
}

static uint64_t drop_get(const struct worker_stats *ws, unsigned k)
{
	return ws->drops[k];
}

static const char *fallback_label(unsigned k)
{
	return kencap_fallback_name((enum kencap_fallback)k);
}

static uint64_t fallback_get(const struct worker_stats *ws, unsigned k)
{
	return ws->kencap_fallback[k];
}

static void worker_metrics(FILE *f, const struct ctl_status_src *src)
{
	struct worker_labels wl;
	const char *l[4];

	for (size_t c = 0; c < sizeof(worker_counters) /
			       sizeof(worker_counters[0]); c++) {
		family(f, worker_counters[c].name, "counter",
		       worker_counters[c].help);
		for (unsigned i = 0; i < src->nworkers; i++) {
			worker_labels_fill(src, i, &wl, l);
			sample(f, worker_counters[c].name, l, 2,
			       worker_field(&src->workers[i],
					    worker_counters[c].off));
		}
	}
	worker_labelled(f, src, "srv6d_worker_packets_total",
			"Packets received, by what became of them: each in "
			"exactly one outcome (their sum is rx_packets).",
			"outcome", WORKER_OUT__COUNT, outcome_label,
			outcome_get);
	worker_labelled(f, src, "srv6d_worker_drops_total",
			"Packets dropped (or answered with an ICMP error), by "
			"reason.", "reason", DROP__COUNT, reason_label,
			drop_get);
	worker_labelled(f, src, "srv6d_worker_kencap_fallbacks_total",
			"Encapsulated super-packets cut by srv6d instead of "
			"the kernel's seg6, by reason.", "reason",
			KENCAP_FB__COUNT, fallback_label, fallback_get);
}

/* ---- SIDs and policies ------------------------------------------------ */

/* "prefix/len" of family into buf. */
static const char *prefix_text(int family, const void *addr, unsigned plen,
			       char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(family, addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	snprintf(buf, len, "%s/%u", a, plen);
	return buf;
}

/* Which counter of struct sid_stats a family shows. */
enum entry_counter { ENTRY_PACKETS, ENTRY_BYTES, ENTRY_ERRORS };

static uint64_t entry_get(const struct sid_stats *st, enum entry_counter c)
{
	return c == ENTRY_PACKETS ? st->packets : c == ENTRY_BYTES ? st->bytes
								  : st->errors;
}

/* The labels of entry i (a SID: sid, behavior; a policy: policy,
 * table), in l[0..4); buf holds their text. */
struct entry_labels {
	char prefix[INET6_ADDRSTRLEN + 8], table[16];
};

static void entry_labels_fill(const struct config *cfg, bool policies,
			      unsigned i, struct entry_labels *el,
			      const char *l[4])
{
	if (policies) {
		const struct policy *p = &cfg->policies[i];

		l[0] = "policy";
		l[1] = prefix_text(p->family, &p->prefix, p->plen, el->prefix,
				   sizeof(el->prefix));
		snprintf(el->table, sizeof(el->table), "%u", p->table);
		l[2] = "table";
		l[3] = el->table;
		return;
	}
	l[0] = "sid";
	l[1] = prefix_text(AF_INET6, &cfg->sids[i].prefix, cfg->sids[i].plen,
			   el->prefix, sizeof(el->prefix));
	l[2] = "behavior";
	l[3] = behavior_name(cfg->sids[i].behavior);
}

/* srv6d_sid_* or srv6d_policy_*: packets, bytes, errors, drops. */
static void entry_metrics(FILE *f, const struct ctl_status_src *src,
			  bool policies)
{
	static const struct {
		const char *sid, *policy, *help;
	} counters[] = {
		[ENTRY_PACKETS] = { "srv6d_sid_packets_total",
				    "srv6d_policy_packets_total",
				    "Packets processed successfully (RFC 8986 "
				    "section 6)." },
		[ENTRY_BYTES] = { "srv6d_sid_bytes_total",
				  "srv6d_policy_bytes_total",
				  "Bytes of the packets processed "
				  "successfully." },
		[ENTRY_ERRORS] = { "srv6d_sid_errors_total",
				   "srv6d_policy_errors_total",
				   "Packets dropped or answered with an ICMP "
				   "error (the sum of the drops)." },
	};
	const struct sid_stats *st = policies ? src->pols : src->sids;
	const struct config *cfg = src->cfg;
	unsigned n = !cfg || !st ? 0 : policies ? cfg->npolicies : cfg->nsids;
	const char *drops = policies ? "srv6d_policy_drops_total"
				     : "srv6d_sid_drops_total";
	struct entry_labels el;
	const char *l[6];

	for (unsigned c = 0; c < 3; c++) {
		const char *name = policies ? counters[c].policy
					    : counters[c].sid;

		family(f, name, "counter", counters[c].help);
		for (unsigned i = 0; i < n; i++) {
			entry_labels_fill(cfg, policies, i, &el, l);
			sample(f, name, l, 2, entry_get(&st[i], c));
		}
	}
	family(f, drops, "counter", "Packets dropped (or answered with an "
	       "ICMP error), by reason (the reasons counted only).");
	for (unsigned i = 0; i < n; i++) {
		entry_labels_fill(cfg, policies, i, &el, l);
		l[4] = "reason";
		for (unsigned r = 0; r < DROP__COUNT; r++) {
			if (!st[i].drops[r])
				continue;
			l[5] = drop_reason_name((enum drop_reason)r);
			sample(f, drops, l, 3, st[i].drops[r]);
		}
	}
	if (policies)
		return;
	family(f, "srv6d_sid_oam_copies_total", "counter", "O-flag packets "
	       "(RFC 9259 section 2.1.1) copied to oam-copy, or not (over "
	       "oam-rate, the ring full), the SIDs that had any.");
	for (unsigned i = 0; i < n; i++) {
		if (!st[i].oam_copies && !st[i].oam_uncopied)
			continue;
		entry_labels_fill(cfg, policies, i, &el, l);
		l[4] = "outcome";
		l[5] = "copied";
		sample(f, "srv6d_sid_oam_copies_total", l, 3, st[i].oam_copies);
		l[5] = "uncopied";
		sample(f, "srv6d_sid_oam_copies_total", l, 3,
		       st[i].oam_uncopied);
	}
}

/* ---- the kernel's queues, the route mirror ----------------------------- */

/* q is the queue of a worker, or its header queue. */
static bool queue_is_ours(const struct ctl_status_src *src, unsigned q)
{
	for (unsigned i = 0; src->queues && i < src->nworkers; i++)
		if (src->queues[i] == q ||
		    (src->hqueues && src->hqueues[i] == (long)q))
			return true;
	return false;
}

/* The kernel's lines of the workers' queues and header queues. */
static void queue_metrics(FILE *f, const struct ctl_status_src *src)
{
	static const struct {
		const char *name, *type, *help;
		size_t off;
		bool u32;
	} q[] = {
		{ "srv6d_nfqueue_waiting", "gauge",
		  "Packets waiting for a verdict in the kernel's queue.",
		  offsetof(struct ctl_nfq_queue, waiting), true },
		{ "srv6d_nfqueue_queue_dropped_total", "counter",
		  "Packets the kernel dropped: the queue was full.",
		  offsetof(struct ctl_nfq_queue, queue_dropped), false },
		{ "srv6d_nfqueue_user_dropped_total", "counter",
		  "Packets the kernel dropped: srv6d's socket buffer was "
		  "full.", offsetof(struct ctl_nfq_queue, user_dropped), false },
	};
	char num[16];
	const char *l[2] = { "queue", num };

	if (!src->kq || !src->nkq)
		return;
	for (size_t k = 0; k < sizeof(q) / sizeof(q[0]); k++) {
		family(f, q[k].name, q[k].type, q[k].help);
		for (unsigned i = 0; i < src->nkq; i++) {
			const char *p = (const char *)&src->kq[i] + q[k].off;
			unsigned w;
			uint64_t v;

			if (!queue_is_ours(src, src->kq[i].queue))
				continue;
			if (q[k].u32) {
				memcpy(&w, p, sizeof(w));
				v = w;
			} else {
				memcpy(&v, p, sizeof(v));
			}
			snprintf(num, sizeof(num), "%u", src->kq[i].queue);
			sample(f, q[k].name, l, 1, v);
		}
	}
}

static void mirror_metrics(FILE *f, const struct ctl_status_src *src)
{
	const struct kpolicy_db *db;
	struct rtmirror_stats st;

	if (!src->mirror)
		return;
	rtmirror_get_stats(src->mirror, &st);
	db = rtmirror_kpolicies(src->mirror);
	family(f, "srv6d_route_mirror_synced", "gauge",
	       "1 when the route mirror is in step with the kernel (a full "
	       "dump done, no event lost since).");
	sample(f, "srv6d_route_mirror_synced", NULL, 0, st.synced && !st.stale);
	family(f, "srv6d_route_mirror_resyncs_total", "counter",
	       "Full dumps of the kernel's routes completed.");
	sample(f, "srv6d_route_mirror_resyncs_total", NULL, 0, st.resyncs);
	family(f, "srv6d_route_mirror_events_total", "counter",
	       "Route, link and address events applied.");
	sample(f, "srv6d_route_mirror_events_total", NULL, 0, st.events);
	family(f, "srv6d_route_mirror_enobufs_total", "counter",
	       "Overflows of the mirror's event socket.");
	sample(f, "srv6d_route_mirror_enobufs_total", NULL, 0, st.enobufs);
	family(f, "srv6d_route_mirror_errors_total", "counter",
	       "Messages the mirror could not apply.");
	sample(f, "srv6d_route_mirror_errors_total", NULL, 0, st.errors);
	family(f, "srv6d_kernel_policies", "gauge",
	       "Policies of the kernel's seg6 routes srv6d applies "
	       "(kernel-routes yes).");
	sample(f, "srv6d_kernel_policies", NULL, 0, db ? kpolicy_count(db) : 0);
}

char *metrics_text(const struct ctl_status_src *src, size_t *len)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	if (!f)
		return NULL;
	daemon_metrics(f, src);
	if (src->workers && src->queues)
		worker_metrics(f, src);
	entry_metrics(f, src, false);
	entry_metrics(f, src, true);
	queue_metrics(f, src);
	mirror_metrics(f, src);
	if (ferror(f)) {
		fclose(f);
		free(text);
		return NULL;
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	*len = n;
	return text;
}
