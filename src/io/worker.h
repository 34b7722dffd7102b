/* worker.h - the data plane engine: one worker thread per NFQUEUE queue.
 *
 * Each worker owns its queue socket, its buffer pool, its counters and its
 * packet socket and frames; workers share nothing they write.  They read the current
 * configuration through an RCU-protected pointer (liburcu QSBR): a swap
 * never stalls them, and the old config is freed after a grace period.
 * With each config the engine publishes the ifindexes of srv6d's own
 * devices (the reinjection device, the VRF SIDs' veth pairs): a packet queued from one
 * of them is a result srv6d made, accepted unchanged and counted as
 * `unmatched`, never processed again.
 */
#ifndef SRV6D_WORKER_H
#define SRV6D_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "pkt_trace.h"
#include "stats.h"

struct engine;
struct rtmirror;
struct runstate;
struct sid_runtime;

/* Bind every queue of cfg, create the reinjection device (rtrules.h),
 * start the workers.  cfg, rs (what the daemon decided for it,
 * runstate.h) and rt (its SIDs' devices, rtrules_install(); may be NULL:
 * none) are owned
 * by the engine from now on, even when this fails (they are freed).
 * mirror (may be NULL: no route checks) is the route mirror every
 * worker's proc_ctx reads; it must outlive the engine.  Returns the
 * running engine once every queue is bound (the daemon may then report
 * READY), or NULL with a message in err, everything undone. */
struct engine *engine_start(struct config *cfg, struct runstate *rs,
			    struct sid_runtime *rt,
			    const struct rtmirror *mirror, char *err,
			    size_t errlen);

/* Stop: each worker drains its queue (every queued packet gets a verdict),
 * unbinds, and exits; the reinjection device is removed; the config freed. */
void engine_stop(struct engine *e);

/* Publish newcfg with rs (its state) and rt (its SIDs' devices,
 * rtrules_install_add(); may be NULL) to the workers, wait for a grace period, free the old ones.
 * Counters of SIDs/policies present in both (same prefix) keep counting.
 * newcfg, rs and rt are owned by the engine from now on.  Returns 0, or
 * -1 (all freed, the old config still in force, the reason logged) when newcfg
 * changes the queues or the reinjection device (a restart applies those) or
 * memory runs out. */
int engine_swap_config(struct engine *e, struct config *newcfg,
		       struct runstate *rs, struct sid_runtime *rt);

/* The config in force and its state (control thread only; valid until
 * the next swap). */
/* Hold the kernel's seg6 encapsulations back (held: every super-packet
 * encapsulation is cut by srv6d, kencap fallback `source`), or let them
 * go to the kernel again; the control thread's, read by the workers at
 * once.  The daemon holds them while the kernel's tunsrc is not the one
 * the config in force was resolved with (rs->kencap_tunsrc). */
void engine_set_kencap_held(struct engine *e, bool held);
bool engine_kencap_held(const struct engine *e);

/* Hold kernel-end's hand-off back (held: srv6d makes every End and
 * decapsulation result itself), or let it go again; the control thread's
 * (daemon.c: while packets for the SIDs reach routing without srv6d's
 * mark, markguard.h), read by the workers at once. */
void engine_set_kend_held(struct engine *e, bool held);

/* While kernel-end is held back: let each worker hand one packet to the
 * kernel all the same (a probe: is the mark still lost?).  Disarm takes
 * the tokens back and returns whether a worker took its one. */
void engine_kend_probe_arm(struct engine *e);
bool engine_kend_probe_disarm(struct engine *e);

/* The same for kernel-encap (daemon.c: while packets for its policies
 * reach routing without srv6d's mark, markguard.h): held, every
 * super-packet encapsulation is cut by srv6d (kencap fallback `held`)
 * but for one probe per worker and window. */
void engine_set_kencap_mark_held(struct engine *e, bool held);
void engine_kencap_probe_arm(struct engine *e);
bool engine_kencap_probe_disarm(struct engine *e);

/* The mark probe (markprobe.h): verdict marks do not survive to
 * routing, so every marked IPv6 result goes by the SID's device (lost),
 * and, where a rule gives them another mark than 0 (foreign), every
 * kernel-encap super-packet as its inner packet by the reinjection
 * device; or they do again.  The control thread's, read by the workers
 * at once. */
void engine_set_marks_lost(struct engine *e, bool lost, bool foreign);

/* The reinjection device's sending end (its ifindex), where the mark
 * probe is sent; control thread only. */
uint32_t engine_reinject_tx_ifindex(const struct engine *e);

const struct config *engine_config(const struct engine *e);
const struct runstate *engine_runstate(const struct engine *e);
/* The SIDs' struct sid_runtime in force (cfg->nsids entries, or NULL). */
const struct sid_runtime *engine_sid_runtime(const struct engine *e);

unsigned engine_nworkers(const struct engine *e);
unsigned engine_worker_queue(const struct engine *e, unsigned i);
/* Worker i's header queue as bound at start (the queues are bound once:
 * a reload's config may name others, which are not served), or -1 when
 * the engine has none. */
long engine_worker_hqueue(const struct engine *e, unsigned i);
/* Their copy range as bound (0: no header queue). */
uint32_t engine_hqueue_copy(const struct engine *e);

/* True if every worker has made progress (or idled in recv) recently:
 * for the systemd watchdog. */
bool engine_healthy(const struct engine *e);

/* A worker's heartbeat `beat` (CLOCK_MONOTONIC ns) is older than the stall
 * limit (2 s) at `now`; a beat newer than now is fresh.  Pure. */
bool engine_beat_stale(uint64_t now, uint64_t beat);

/* Sum the counters of all workers.  sids/pols may be NULL; otherwise they
 * have engine_config(e)->nsids / ->npolicies entries. */
void engine_read_stats(const struct engine *e, struct worker_stats *total,
		       struct sid_stats *sids, struct sid_stats *pols);

/* One worker's totals (per-queue view). */
void engine_read_worker_stats(const struct engine *e, unsigned i,
			      struct worker_stats *out);

/* `srv6ctl clear` (control thread only): from now on the readings above
 * count from zero.  The workers' counters are not written: the engine's
 * bases (its own, which a reload carries over with the SIDs and policies
 * they are of) become minus what the workers counted so far. */
void engine_clear_stats(struct engine *e);

/* A trace (pkt_trace.h), control thread only, offline (RCU): stop any,
 * wait for the workers' batches in flight, empty the rings, give them f
 * and turn them on.  Each worker writes at most f->budget records. */
void engine_trace_start(struct engine *e, const struct pkt_trace_filter *f);

/* Turn the trace off (what the rings hold can still be drained). */
void engine_trace_stop(struct engine *e);

/* Move at most max records out of the workers' rings into out (worker
 * by worker, each in its order).  *overflow: the records lost so far in
 * this trace (rings full).  Returns how many. */
unsigned engine_trace_drain(struct engine *e, struct pkt_trace_record *out,
			    unsigned max, uint64_t *overflow);

#endif
