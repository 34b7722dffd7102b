/* daemon.c - the daemon's life: config, policy routing, engine, control
 * socket, signals, one poll() loop (OpenBGPD's habit: signals only become
 * readable on a signalfd; the loop does the work). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* struct ucred */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stddef.h>
#include <linux/capability.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <urcu-qsbr.h>

#include "config.h"
#include "ctl.h"
#include "daemon.h"
#include "log.h"
#include "metrics.h"
#include "metrics_http.h"
#include "reinject.h"
#include "resolve.h"
#include "rtmirror.h"
#include "kencap_routes.h"
#include "markguard.h"
#include "markprobe.h"
#include "rtrules.h"
#include "steer.h"
#include "rtwatch.h"
#include "kpolicy.h"
#include "egress.h"
#include "pktsock.h"
#include "seg6route.h"
#include "trace.h"
#include "worker.h"

#define POLL_MAX_MS	1000	/* control clients' timeouts are checked */
/* The route mirror's first full dump must be complete before srv6d
 * serves: a full Internet table takes seconds (bench/MIRROR-RESULTS.md). */
#define MIRROR_SYNC_MAX_MS	60000
#define MIRROR_SYNC_POLL_MS	10
#define RELOAD_MAX_ERRORS	100	/* reported to srv6ctl (all are logged) */
/* kernel-routes yes: a change of the kernel's SRv6 routes is applied once
 * they have been still for KROUTES_QUIET_MS, or KROUTES_MAX_WAIT_MS after
 * the first change at the latest (a burst becomes one rebuild). */
#define KROUTES_QUIET_MS	5
#define KROUTES_MAX_WAIT_MS	50
/* One srv6d per network namespace: the abstract AF_UNIX name it holds
 * (srv6d(8) "One instance per network namespace"). */
#define INSTANCE_LOCK_NAME	"srv6d/instance"
/* kernel-encap by the kernel's tunsrc: how often it is read (a change
 * under srv6d holds the encapsulations back within this). */
#define TUNSRC_POLL_MS		500
/* The file where srv6d records the tunsrc it set (kencap_routes.h struct
 * kencap_tunsrc): the control socket's path, its ".sock" replaced by
 * this (one file per instance, as the socket is). */
#define TUNSRC_STATE_SUFFIX	".tunsrc"

struct daemon {
	const struct daemon_opts *opts;
	struct engine *engine;
	struct rtmirror *mirror;	/* the kernel's routes, for the workers */
	struct ctl_server *ctl;
	struct steer *steer;		/* srv6d's queue rules (steer.h) */
	struct metrics_http *metrics;	/* `metrics-listen`, or NULL */
	struct trace_session trace;	/* srv6ctl trace, capture */
	int sigfd;
	int lockfd;			/* instance_lock(), held to the end */
	uint64_t started_ms;
	time_t config_loaded;		/* wall clock of the last good load */
	uint64_t reloads, reload_failures;
	/* kernel-routes yes: srv6d.conf's config, which every config in
	 * force is built from (with the kernel's routes); NULL otherwise
	 * (the engine's config is the file's). */
	struct config *file;
	struct ctl_kroutes kr;		/* srv6ctl status "kernel_routes" */
	uint64_t kr_first_ms, kr_due_ms;	/* a rebuild pending (0: none) */
	uint64_t *kr_logged;		/* hashes of the routes reported not
					 * applied, sorted (logged once) */
	size_t kr_nlogged;
	/* kernel-routes yes: a copy of the struct sid_runtime of the config
	 * in force (its nsids entries), for a rebuild that leaves every SID
	 * as it is (daemon_apply()). */
	struct sid_runtime *rt;
	/* The kernel's tunsrc as srv6d holds it, and as last polled
	 * (tunsrc_tick()): the encapsulations are held back while it is not
	 * the config's kencap_tunsrc. */
	struct kencap_tunsrc tunsrc;
	struct in6_addr kernel_tunsrc;
	bool kencap_held;
	uint64_t tunsrc_next_ms;
	/* kernel-end's catch rules, read every second (guard_tick(),
	 * markguard.h): the hand-off is held back while its marks do not
	 * survive to routing. */
	struct markguard guard;
	/* kernel-encap's, by the steering tables' guard counters
	 * (steer_guard_read()): its encapsulations are held back the same
	 * way. */
	struct markguard eguard;
	/* The mark probe (markprobe.h, probe_tick()): sent every
	 * MARKPROBE_POLL_MS on probe_fd (a packet socket, opened at start;
	 * -1: none, the probe off) into the reinjection device; zeroed or
	 * lost, every marked result goes by a device; lost (to a foreign
	 * mark), kernel-end is held too. */
	struct markprobe probe;
	int probe_fd;
	/* The operator's rules the kernel evaluates before srv6d's
	 * (markguard_rules_before()), as last looked at, each warned
	 * about once; rules_due: look again (a rule came or went, a
	 * config was put in force). */
	struct markguard_before before[MARKGUARD_BEFORE_MAX];
	unsigned nbefore, nbefore_more;
	bool rules_due;
	uint64_t nexthops_next_ms;	/* nexthops_tick() */
	/* srv6ctl clear: when, and the kernel's queue drops then (the
	 * readings shown are less these). */
	time_t cleared;
	struct ctl_nfq_queue kq_base[SRV6_MAX_QUEUES * 4];
	unsigned nkq_base;
	/* What srv6d owns in the kernel, watched (rtwatch.h): a kind of
	 * object gone makes the config in force be put in force again at
	 * repair_due_ms (0: nothing pending); the repairs of each kind, and
	 * when the last repair was logged (one a second at most). */
	struct rtwatch *watch;
	unsigned repair_kinds;
	uint64_t repair_due_ms, repair_logged_ms, repair_unlogged;
	uint64_t repair_seen_us;	/* the pending repair's first event */
	uint64_t repairs[RTWATCH_NKINDS], repair_failures, last_repair_us;
	uint64_t wd_interval_ms;	/* 0: no systemd watchdog */
	uint64_t wd_next_ms;
	/* The seg6 encap routes taken for steering's sets and not yet
	 * handed to it (steering_kroutes(): a slice a loop turn), NULL when
	 * none; sk_lost: the take lost some; sk_t0: when it was taken. */
	struct rtmirror_kroute *sk_list;
	size_t sk_n, sk_done;
	bool sk_lost;
	uint64_t sk_t0_ms;
	bool stop;
	bool restarting;	/* SIGUSR2: steering kept for the next start */
};

static void repair_forget(struct daemon *d);

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- configuration --------------------------------------------------- */

/* config_error_fn for the command line: "file:line: message" on stderr. */
static void config_error_stderr(void *arg, const char *file, unsigned line,
				const char *msg)
{
	if (line)
		fprintf(stderr, "%s:%u: %s\n", file, line, msg);
	else
		fprintf(stderr, "%s: %s\n", file, msg);
}

/* config_error_fn of a warning (a deprecated directive), at start and
 * for -t: "file:line: warning: message" on stderr. */
static void config_warning_stderr(void *arg, const char *file,
				  unsigned line, const char *msg)
{
	(void)arg;
	fprintf(stderr, "%s:%u: warning: %s\n", file, line, msg);
}

/* config_error_fn of a reload's warnings: logged, not kept (the reload
 * goes on). */
static void config_warning_reload(void *arg, const char *file,
				  unsigned line, const char *msg)
{
	(void)arg;
	/* log_msg() puts "warning: " in front */
	log_msg(LOG_WARNING, "%s:%u: %s", file, line, msg);
}

/* A reload's errors: logged, and kept for srv6ctl reload. */
struct reload_errors {
	json_t *list;		/* array of "file:line: message", or NULL */
	unsigned count;
};

static void reload_error(struct reload_errors *re, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void reload_error(struct reload_errors *re, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_msg(LOG_ERR, "%s", buf);
	if (re->list && re->count++ < RELOAD_MAX_ERRORS)
		json_array_append_new(re->list, json_string(buf));
}

/* config_error_fn for a reload: "file:line: message", logged and kept. */
static void config_error_reload(void *arg, const char *file, unsigned line,
				const char *msg)
{
	if (line)
		reload_error(arg, "%s:%u: %s", file, line, msg);
	else
		reload_error(arg, "%s: %s", file, msg);
}

int daemon_check_config(const char *path)
{
	struct config *cfg = config_parse_file_warn(path, config_error_stderr,
						    config_warning_stderr, NULL);

	if (!cfg)
		return DAEMON_EXIT_ERROR;
	printf("%s: configuration OK\n", path);
	config_free(cfg);
	return DAEMON_EXIT_OK;
}

int daemon_print_steering(const char *path)
{
	struct config *cfg = config_parse_file_warn(path, config_error_stderr,
						    config_warning_stderr, NULL);
	struct steer_plan plan;

	if (!cfg)
		return DAEMON_EXIT_ERROR;
	if (steer_plan_build(cfg, NULL, &plan) < 0) {
		fprintf(stderr, "srv6d: out of memory\n");
		config_free(cfg);
		return DAEMON_EXIT_ERROR;
	}
	if (!cfg->steering)
		printf("# %s has 'steering no': srv6d installs none of "
		       "these\n", path);
	steer_plan_print(&plan, stdout);
	steer_plan_free(&plan);
	config_free(cfg);
	return DAEMON_EXIT_OK;
}

/* ---- systemd -------------------------------------------------------- */

static void notify_status(const struct daemon *d, const char *state)
{
	const struct config *cfg = engine_config(d->engine);

	sd_notifyf(0, "%s\nSTATUS=queues %u-%u, %u SIDs, %u policies",
		   state, cfg->queue_first, cfg->queue_last, cfg->nsids,
		   cfg->npolicies);
}

static void watchdog_init(struct daemon *d)
{
	uint64_t usec;

	if (sd_watchdog_enabled(0, &usec) > 0 && usec >= 2000) {
		d->wd_interval_ms = usec / 2000;	/* half the timeout */
		d->wd_next_ms = now_ms();
		log_debug("systemd watchdog: keepalive every %llu ms",
			  (unsigned long long)d->wd_interval_ms);
	}
}

/* Send the keepalive when due, only while every worker makes progress. */
static void watchdog_tick(struct daemon *d)
{
	static struct log_ratelimit rl = LOG_RATELIMIT_INIT(60, 1);
	uint64_t now = now_ms();

	if (!d->wd_interval_ms || now < d->wd_next_ms)
		return;
	d->wd_next_ms = now + d->wd_interval_ms;
	if (engine_healthy(d->engine))
		sd_notify(0, "WATCHDOG=1");
	else
		log_ratelimited(&rl, LOG_WARNING, "a worker is stuck: "
				"withholding the watchdog keepalive");
}

/* Whether the outer source of the kernel's encapsulations is the
 * kernel's tunsrc, which someone may change under srv6d (not when
 * srv6d's routes carry their own: kencap_route_src). */
static bool tunsrc_matters(const struct runstate *rs)
{
	return rs->kencap_on && rs->nkencaps && !rs->kencap_route_src;
}

/* Read the kernel's tunsrc (every TUNSRC_POLL_MS, or now when due is 0):
 * while it is not what the config in force was resolved with, the
 * kernel's encapsulations are held back (the workers cut them, fallback
 * `source`, engine_set_kencap_held()); logged when that starts and ends,
 * shown by srv6ctl status. */
static void tunsrc_tick(struct daemon *d)
{
	const struct runstate *rs = engine_runstate(d->engine);
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], why[128];
	uint64_t now = now_ms();
	struct in6_addr cur;
	bool held = false;

	if (now < d->tunsrc_next_ms)
		return;
	d->tunsrc_next_ms = now + TUNSRC_POLL_MS;
	if (tunsrc_matters(rs)) {
		if (kencap_tunsrc_read(&cur, why, sizeof(why)) < 0) {
			log_debug("kernel-encap: %s", why);
			return;
		}
		d->kernel_tunsrc = cur;
		held = !IN6_ARE_ADDR_EQUAL(&cur, &rs->kencap_tunsrc);
	}
	if (held == d->kencap_held)
		return;
	d->kencap_held = held;
	engine_set_kencap_held(d->engine, held);
	inet_ntop(AF_INET6, &d->kernel_tunsrc, a, sizeof(a));
	inet_ntop(AF_INET6, &rs->kencap_tunsrc, b, sizeof(b));
	if (held)
		log_msg(LOG_WARNING, "kernel-encap: the kernel's tunsrc (ip sr "
			"tunsrc) changed under srv6d to %s (it was %s): "
			"super-packet encapsulations are cut by srv6d until it "
			"is %s again or a reload", a, b, b);
	else if (tunsrc_matters(rs))
		log_msg(LOG_INFO, "kernel-encap: the kernel's tunsrc is %s "
			"again: encapsulations go to the kernel", b);
}

/* Whether kernel-encap's catch can be watched (markguard.h): the
 * kernel encapsulates by mark, and srv6d's steering tables hold the
 * guard's counters; why not into why. */
static bool eguard_watched(const struct daemon *d, const char **why)
{
	const struct runstate *rs = engine_runstate(d->engine);
	struct steer_status st;

	steer_get_status(d->steer, &st);
	if (!rs || !rs->kencap_on || !rs->nkencaps)
		*why = "off";
	else if (!st.enabled)
		*why = "not watched: steering no (the catch rules still "
		       "encapsulate what loses its mark)";
	else if (!st.installed)
		*why = "not watched: the steering rules are not installed";
	else if (!st.guard_rules)
		*why = "nothing to watch (no policy with a catch rule)";
	else {
		*why = "nft counter " STEER_GUARD_COUNTER;
		return true;
	}
	return false;
}

/* Read the catches' counters (every MARKGUARD_POLL_MS): kernel-end's
 * catch routes, kernel-encap's guard counters.  Packets for the SIDs or
 * the policies that reached routing without srv6d's mark hold the
 * feature back (engine_set_kend_held(), engine_set_kencap_mark_held())
 * until a probe packet reaches its route marked (the workers' probe
 * tokens); markguard_judge() decides and logs. */
static void guard_tick(struct daemon *d)
{
	const struct runstate *rs = engine_runstate(d->engine);
	uint64_t now = now_ms(), cur = 0;
	const char *why;
	bool taken, active;
	int rc = 0;

	if (markguard_due(&d->guard, now)) {
		active = rs && rs->kend_on && rs->nkends;
		taken = d->guard.armed && engine_kend_probe_disarm(d->engine);
		if (active)
			rc = markguard_caught(engine_config(d->engine), rs,
					      &cur);
		markguard_judge(&d->guard, active, rc, cur, now, taken);
		engine_set_kend_held(d->engine, d->guard.held ||
				     d->probe.foreign);
		if (d->guard.armed)
			engine_kend_probe_arm(d->engine);
		/* what the guard gave its SID's mark back (steer.h G0K) */
		rc = active ? steer_kend_restored_read(d->steer, &cur) : 1;
		markguard_unmarked(&d->guard, active && rc <= 0, rc, cur, now);
	}
	if (markguard_due(&d->eguard, now)) {
		active = eguard_watched(d, &why);
		taken = d->eguard.armed &&
			engine_kencap_probe_disarm(d->engine);
		uint64_t bare = 0;

		cur = 0;
		rc = active ? steer_guard_read(d->steer, &cur, &bare) : 0;
		if (rc > 0)
			active = false;
		markguard_unmarked(&d->eguard, active, rc < 0 ? -1 : 0, bare,
				   now);
		markguard_judge(&d->eguard, active, rc < 0 ? -1 : 0, cur, now,
				taken);
		engine_set_kencap_mark_held(d->engine, d->eguard.held);
		if (d->eguard.armed)
			engine_kencap_probe_arm(d->engine);
	}
}

/* Whether the mark probe can run: the guard that judges it is in force
 * (steering auto, installed) and its socket open. */
static bool probe_active(const struct daemon *d)
{
	return d->probe_fd >= 0 && steer_in_force(d->steer) &&
	       engine_runstate(d->engine);
}

/* The mark probe (markprobe.h), every MARKPROBE_POLL_MS: what the last
 * ones met judged, the fallback set (marked results by the device; to a
 * foreign mark, kernel-end held), the next one sent into the
 * reinjection device. */
static void probe_tick(struct daemon *d)
{
	uint64_t now = now_ms(), cur[MARKPROBE_N];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_IPV6),
				   .sll_halen = ETH_ALEN };
	uint8_t frame[MARKPROBE_FRAME_LEN];
	bool active, was = d->probe.lost, was_foreign = d->probe.foreign;
	int rc;

	if (!markprobe_due(&d->probe, now))
		return;
	active = probe_active(d);
	rc = active ? steer_probe_read(d->steer, cur) : 1;
	markprobe_judge(&d->probe, active, rc, cur, now);
	if (d->probe.lost != was || d->probe.foreign != was_foreign) {
		engine_set_marks_lost(d->engine, d->probe.lost,
				      d->probe.foreign);
		engine_set_kend_held(d->engine, d->guard.held ||
				     d->probe.foreign);
	}
	if (!active || rc > 0)
		return;
	sll.sll_ifindex = (int)engine_reinject_tx_ifindex(d->engine);
	rtrules_dev_mac(0, true, sll.sll_addr);
	markprobe_frame(frame, d->probe.sent);
	if (sendto(d->probe_fd, frame, sizeof(frame), 0,
		   (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		d->probe.send_errors++;
		if (!d->probe.send_failing)	/* once an outage */
			log_msg(LOG_WARNING, "mark probe: cannot send into %s: "
				"%s", engine_config(d->engine)->tun_name,
				strerror(errno));
		d->probe.send_failing = true;
		return;
	}
	if (d->probe.send_failing)
		log_msg(LOG_INFO, "mark probe: sent into %s again",
			engine_config(d->engine)->tun_name);
	d->probe.send_failing = false;
	d->probe.sent++;
}

/* Whether two lists of the operator's rules name the same rule. */
static bool before_has(const struct markguard_before *l, unsigned n,
		       const struct markguard_before *r)
{
	for (unsigned i = 0; i < n; i++)
		if (l[i].family == r->family && l[i].priority == r->priority &&
		    !strcmp(l[i].text, r->text))
			return true;
	return false;
}

/* The operator's rules before srv6d's (markguard.h), looked at again
 * when due: a new one is warned about once (it stays in status while
 * it is there). */
static void rules_tick(struct daemon *d)
{
	static const uint8_t families[2] = { AF_INET6, AF_INET };
	struct markguard_before now[MARKGUARD_BEFORE_MAX];
	const struct config *cfg = engine_config(d->engine);
	unsigned n = 0, more = 0;

	if (!d->rules_due)
		return;
	d->rules_due = false;
	for (unsigned f = 0; f < 2; f++) {
		int k = markguard_rules_before(cfg, families[f], now + n,
					       MARKGUARD_BEFORE_MAX - n);

		if (k < 0) {
			log_debug("mark guard: cannot list the rules: %s",
				  strerror(errno));
			return;
		}
		if ((unsigned)k > MARKGUARD_BEFORE_MAX - n) {
			more += (unsigned)k - (MARKGUARD_BEFORE_MAX - n);
			k = (int)(MARKGUARD_BEFORE_MAX - n);
		}
		n += (unsigned)k;
	}
	for (unsigned i = 0; i < n; i++) {
		if (before_has(d->before, d->nbefore, &now[i]))
			continue;
		log_msg(LOG_WARNING, "IPv%c rule priority %u %s (not srv6d's) "
			"comes before srv6d's rules (rule-priority %u, its "
			"catch rules to %u): a packet srv6d hands the kernel by "
			"mark, or one that lost the mark, may be routed by it "
			"instead; set rule-priority below %u if it must not "
			"see them", now[i].family == AF_INET ? '4' : '6',
			now[i].priority, now[i].text, cfg->rule_priority,
			cfg->rule_priority + MARKGUARD_PRIORITIES - 1,
			now[i].priority);
	}
	memcpy(d->before, now, n * sizeof(now[0]));
	d->nbefore = n;
	d->nbefore_more = more;
}

/* Milliseconds poll() may sleep: until the watchdog's keepalive, a
 * pending kernel routes rebuild or the tunsrc's poll is due. */
static int poll_timeout(const struct daemon *d)
{
	uint64_t now = now_ms(), next = now + POLL_MAX_MS;

	if (d->wd_interval_ms && d->wd_next_ms < next)
		next = d->wd_next_ms;
	if (tunsrc_matters(engine_runstate(d->engine)) &&
	    d->tunsrc_next_ms < next)
		next = d->tunsrc_next_ms;
	if (d->kr_due_ms && d->kr_due_ms < next)
		next = d->kr_due_ms;
	if (engine_runstate(d->engine) && engine_runstate(d->engine)->kend_on &&
	    engine_runstate(d->engine)->nkends && d->guard.next_ms < next)
		next = d->guard.next_ms;
	if (engine_runstate(d->engine) &&
	    engine_runstate(d->engine)->kencap_on &&
	    engine_runstate(d->engine)->nkencaps && d->eguard.next_ms < next)
		next = d->eguard.next_ms;
	if (probe_active(d) && d->probe.next_ms < next)
		next = d->probe.next_ms;
	if (d->rules_due)
		next = now;
	if (d->repair_due_ms && d->repair_due_ms < next)
		next = d->repair_due_ms;
	if (metrics_http_timeout_ms(d->metrics) >= 0 &&
	    now + (uint64_t)metrics_http_timeout_ms(d->metrics) < next)
		next = now + (uint64_t)metrics_http_timeout_ms(d->metrics);
	return next <= now ? 0 : (int)(next - now);
}

/* ---- control requests ------------------------------------------------ */

/* The counters and config a reply is built from (daemon_source_free()
 * releases them). */
struct daemon_source {
	struct ctl_status_src src;
	struct worker_stats total, *workers;
	struct sid_stats *sids, *pols;
	unsigned *queues;
	long *hqueues;
	struct steer_status steering;
	struct ctl_nfq_queue kq[SRV6_MAX_QUEUES * 4];
};

static void daemon_source_free(struct daemon_source *ds)
{
	free(ds->workers);
	free(ds->queues);
	free(ds->hqueues);
	free(ds->sids);
	free(ds->pols);
}

/* The kernel's drops of q less those at the last srv6ctl clear (a queue
 * bound again since counts from its own zero). */
static void kq_less_base(const struct daemon *d, struct ctl_nfq_queue *q)
{
	for (unsigned i = 0; i < d->nkq_base; i++) {
		const struct ctl_nfq_queue *b = &d->kq_base[i];

		if (b->queue != q->queue || b->portid != q->portid ||
		    b->queue_dropped > q->queue_dropped ||
		    b->user_dropped > q->user_dropped)
			continue;
		q->queue_dropped -= b->queue_dropped;
		q->user_dropped -= b->user_dropped;
	}
}

/* CLEAR: the counters shown start from zero (engine_clear_stats(); the
 * kernel's queue drops by a baseline kept here). */
static json_t *daemon_clear(struct daemon *d, const struct ctl_request *req)
{
	int nk = ctl_nfq_read(CTL_NFQ_PROC, d->kq_base,
			      sizeof(d->kq_base) / sizeof(d->kq_base[0]));

	d->nkq_base = nk > 0 ? (unsigned)nk : 0;
	engine_clear_stats(d->engine);
	d->cleared = time(NULL);
	log_msg(LOG_INFO, "counters cleared by pid %d (uid %u)", (int)req->pid,
		(unsigned)req->uid);
	return json_pack("{s:I}", "cleared", (json_int_t)d->cleared);
}

/* Read every counter.  with_kernel: the kernel's queues too.  Returns 0,
 * or -1 when memory runs out. */
static int daemon_source_read(const struct daemon *d, struct daemon_source *ds,
			      bool with_kernel)
{
	const struct config *cfg = engine_config(d->engine);
	unsigned n = engine_nworkers(d->engine);

	memset(ds, 0, sizeof(*ds));
	ds->src = (struct ctl_status_src){
		.pid = getpid(),
		.uptime = (now_ms() - d->started_ms) / 1000,
		.config_path = d->opts->config_path,
		.config_loaded = d->config_loaded,
		.reloads = d->reloads,
		.reload_failures = d->reload_failures,
		.cleared = d->cleared,
		.nworkers = n,
		.cfg = cfg,
		.rs = engine_runstate(d->engine),
	};
	ds->workers = aligned_alloc(64, (n + 1) * sizeof(*ds->workers));
	ds->queues = calloc(n + 1, sizeof(*ds->queues));
	ds->hqueues = calloc(n + 1, sizeof(*ds->hqueues));
	ds->sids = calloc(cfg->nsids + 1, sizeof(*ds->sids));
	ds->pols = calloc(cfg->npolicies + 1, sizeof(*ds->pols));
	if (!ds->workers || !ds->queues || !ds->hqueues || !ds->sids ||
	    !ds->pols) {
		daemon_source_free(ds);
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		ds->queues[i] = engine_worker_queue(d->engine, i);
		ds->hqueues[i] = engine_worker_hqueue(d->engine, i);
		engine_read_worker_stats(d->engine, i, &ds->workers[i]);
	}
	engine_read_stats(d->engine, &ds->total, ds->sids, ds->pols);
	ds->src.queues = ds->queues;
	ds->src.hqueues = ds->hqueues;
	ds->src.hqueue_copy = engine_hqueue_copy(d->engine);
	ds->src.workers = ds->workers;
	ds->src.totals = &ds->total;
	ds->src.sids = ds->sids;
	ds->src.pols = ds->pols;
	ds->src.mirror = d->mirror;
	ds->src.kroutes = &d->kr;
	steer_get_status(d->steer, &ds->steering);
	ds->src.steering = &ds->steering;
	ds->src.repairs = d->repairs;
	ds->src.repair_failures = d->repair_failures;
	ds->src.last_repair_us = d->last_repair_us;
	ds->src.kencap_held = d->kencap_held;
	ds->src.kend_held = d->guard.held || d->probe.foreign;
	ds->src.kend_caught = d->guard.total;
	ds->src.kend_restored = d->guard.unmarked;
	ds->src.kend_holds = d->guard.holds;
	ds->src.kencap_mark_held = d->eguard.held;
	ds->src.probe = &d->probe;
	ds->src.kencap_caught = d->eguard.total;
	ds->src.kencap_unmarked = d->eguard.unmarked;
	ds->src.kencap_holds = d->eguard.holds;
	eguard_watched(d, &ds->src.kencap_watch);
	ds->src.before = d->before;
	ds->src.nbefore = d->nbefore;
	ds->src.kernel_tunsrc = d->kernel_tunsrc;
	if (with_kernel) {
		int nk = ctl_nfq_read(CTL_NFQ_PROC, ds->kq,
				      sizeof(ds->kq) / sizeof(ds->kq[0]));

		for (int i = 0; i < nk; i++)
			kq_less_base(d, &ds->kq[i]);
		if (nk > 0) {
			ds->src.kq = ds->kq;
			ds->src.nkq = (unsigned)nk;
		}
	}
	return 0;
}

/* A scrape of `metrics-listen` (metrics_http.h): the metrics of fresh
 * counters, as daemon_query() reads them. */
static char *daemon_metrics(void *arg, size_t *len)
{
	const struct daemon *d = arg;
	struct daemon_source ds;
	char *text;

	if (daemon_source_read(d, &ds, true) < 0)
		return NULL;
	rcu_thread_online();
	text = metrics_text(&ds.src, len);
	rcu_thread_offline();
	daemon_source_free(&ds);
	return text;
}

/* ROUTES: the payload is "" or a table id. */
static json_t *daemon_routes(const struct daemon *d,
			     const struct ctl_request *req, uint16_t *status)
{
	const char *text = req->payload ? req->payload : "";
	unsigned long table = 0;
	char *end;

	if (*text) {
		errno = 0;
		table = strtoul(text, &end, 10);
		if (errno || *end || table > UINT32_MAX) {
			*status = CTL_ERR_INVALID;
			return json_pack("{s:s}", "error",
					 "expected a table number");
		}
	}
	return ctl_routes_json(d->mirror, (uint32_t)table, status);
}

/* A read-only request: the document of type, built from fresh counters.
 * The main thread reads the route mirror as a QSBR reader: online only
 * while it builds the document (offline, it never holds up a grace
 * period). */
static json_t *daemon_query(const struct daemon *d,
			    const struct ctl_request *req, uint16_t *status)
{
	struct daemon_source ds;
	json_t *doc = NULL;

	if (daemon_source_read(d, &ds, req->type == CTL_REQ_STATS) < 0)
		return NULL;
	rcu_thread_online();
	switch (req->type) {
	case CTL_REQ_ROUTES:
		doc = daemon_routes(d, req, status);
		break;
	case CTL_REQ_ROUTE_GET:
		doc = ctl_route_get_json(d->mirror, req->payload, status);
		break;
	case CTL_REQ_STATUS:
		doc = ctl_status_json(&ds.src);
		break;
	case CTL_REQ_SIDS:
		doc = ctl_sids_json(&ds.src, req->payload, status);
		break;
	case CTL_REQ_POLICIES:
		doc = ctl_policy_find_json(&ds.src, req->payload, status);
		break;
	case CTL_REQ_STATS:
		doc = ctl_stats_json(&ds.src);
		break;
	default:
		break;
	}
	rcu_thread_offline();
	daemon_source_free(&ds);
	return doc;
}

static int daemon_reload(struct daemon *d, json_t *errors);

static json_t *daemon_ctl_request(void *arg, const struct ctl_request *req,
				  uint16_t *status)
{
	struct daemon *d = arg;
	json_t *errors, *doc;
	const struct config *cfg;

	*status = CTL_OK;
	switch (req->type) {
	case CTL_REQ_STATUS:
	case CTL_REQ_SIDS:
	case CTL_REQ_POLICIES:
	case CTL_REQ_STATS:
	case CTL_REQ_ROUTES:
	case CTL_REQ_ROUTE_GET:
		return daemon_query(d, req, status);
	case CTL_REQ_CLEAR:
		return daemon_clear(d, req);
	case CTL_REQ_TRACE:
		return trace_request(&d->trace, d->engine, req, status);
	case CTL_REQ_VERSION:
		return json_pack("{s:s,s:i}", "version", SRV6D_VERSION,
				 "protocol", CTL_PROTO_VERSION);
	case CTL_REQ_RELOAD:
		log_msg(LOG_INFO, "reload asked by pid %d (uid %u)",
			(int)req->pid, (unsigned)req->uid);
		errors = json_array();
		if (!errors)
			return NULL;
		if (daemon_reload(d, errors) < 0) {
			*status = CTL_ERR_FAILED;
			return json_pack("{s:s,s:o}", "error",
					 "the configuration was refused: the "
					 "running one is kept", "errors",
					 errors);
		}
		json_decref(errors);
		cfg = engine_config(d->engine);
		doc = json_pack("{s:s,s:I,s:i,s:i}", "config",
				d->opts->config_path, "loaded",
				(json_int_t)d->config_loaded,
				"sids", (int)cfg->nsids,
				"policies", (int)cfg->npolicies);
		return doc;
	default:
		*status = CTL_ERR_UNKNOWN;
		return json_pack("{s:s}", "error", "unknown request type");
	}
}

/* ---- reload ----------------------------------------------------------- */

/* What a running daemon cannot change (worker.h; the control socket's
 * group is set once, before the capabilities are dropped): returns the
 * directive that differs, or NULL. */
static const char *reload_needs_restart(const struct config *old,
					const struct config *ncfg,
					bool steering_on)
{
	if (old->queue_first != ncfg->queue_first ||
	    old->queue_last != ncfg->queue_last)
		return "queue";
	/* The header queues bound at start stay; ncfg's may differ only
	 * where no rule of srv6d's will feed them: `header-queue auto`
	 * with srv6d's steering off in force (`steering no` at start,
	 * which a reload does not turn on) or off in ncfg. */
	if ((old->has_hqueue != ncfg->has_hqueue ||
	     old->hqueue_first != ncfg->hqueue_first ||
	     old->hqueue_last != ncfg->hqueue_last ||
	     old->hqueue_copy != ncfg->hqueue_copy) &&
	    !(ncfg->hqueue_auto && (!steering_on || !ncfg->steering)))
		return "header-queue";
	/* Before mark-mask the bounce mark was mark-base, which header
	 * queues' rules of that time name: kept as it was. */
	if (ncfg->has_hqueue && old->mark_base != ncfg->mark_base)
		return "mark-base";
	/* The marks' field: every rule's fwmark/mask and the offsets that
	 * fit it (config.h mark_count) would change under the running
	 * state's marks.  Without a mark-mask line it follows mark-base
	 * (config.h config_default_mark_mask()): mark-base is what changed. */
	if (old->mark_mask != ncfg->mark_mask)
		return old->has_mark_mask || ncfg->has_mark_mask ?
		       "mark-mask" : "mark-base";
	if (strcmp(old->tun_name, ncfg->tun_name))
		return "tun-name";
	if (old->gso != ncfg->gso)
		return "offload";	/* the queues' bind flags (or 'gso') */
	if (old->has_control_group != ncfg->has_control_group ||
	    old->control_gid != ncfg->control_gid)
		return "control-group";
	if (old->kernel_routes != ncfg->kernel_routes)
		return "kernel-routes";	/* the mirror keeps them or not */
	if (old->has_metrics != ncfg->has_metrics ||
	    old->metrics_family != ncfg->metrics_family ||
	    memcmp(&old->metrics_addr, &ncfg->metrics_addr,
		   sizeof(old->metrics_addr)) ||
	    old->metrics_port != ncfg->metrics_port)
		return "metrics-listen";	/* bound once, before the
						 * capabilities go */
	return NULL;
}

/* A copy of rt (n entries), or NULL (none, or out of memory: the next
 * rebuild then takes the full path). */
static struct sid_runtime *runtime_dup(const struct sid_runtime *rt,
				       unsigned n)
{
	struct sid_runtime *c = rt && n ? malloc(n * sizeof(*rt)) : NULL;

	if (c)
		memcpy(c, rt, n * sizeof(*rt));
	return c;
}

/* A kernel routes rebuild that leaves every SID as it is (only policies
 * or binding SIDs' segment lists changed): the swap alone, with a copy
 * of the runtime in force; the rules, routes and devices stay (no dump
 * of the kernel's routes: with a full table that would take a second). */
static int daemon_apply_same_sids(struct daemon *d, struct config *ncfg,
				  struct runstate *rs,
				  struct reload_errors *re, const char *what)
{
	struct sid_runtime *rt = NULL;

	if (ncfg->nsids && !d->rt) {
		reload_error(re, "%s: no runtime to reuse", what);
		runstate_free(rs);
		config_free(ncfg);
		return -1;
	}
	if (ncfg->nsids) {
		rt = runtime_dup(d->rt, ncfg->nsids);
		if (!rt) {
			reload_error(re, "%s: out of memory", what);
			runstate_free(rs);
			config_free(ncfg);
			return -1;
		}
	}
	if (engine_swap_config(d->engine, ncfg, rs, rt) != 0) {
		reload_error(re, "the engine refused %s: keeping the running "
			     "configuration", what);
		return -1;
	}
	return 0;
}

/* The workers send End.DX2's frames and the results that go by a device
 * on packet sockets (reinject.h, rtrules_sid_by_device()), which need
 * CAP_NET_RAW: check that srv6d can open one before cfg's rules and
 * devices are installed, a clear error at start or at a reload rather
 * than a drop per packet later.  Returns 0, or -1 with a message in err. */
static int daemon_pkt_sock_check(const struct config *cfg,
				 const struct runstate *rs, char *err,
				 size_t errlen)
{
	const struct sid *s = rtrules_sid_by_device(cfg, rs);
	char a[INET6_ADDRSTRLEN];
	int fd, e;

	if (!s)
		return 0;
	fd = pkt_sock_open();
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	e = errno;
	inet_ntop(AF_INET6, &s->prefix, a, sizeof(a));
	snprintf(err, errlen, "%s %s/%u: cannot open a packet socket to send "
		 "its results: %s%s", behavior_name(s->behavior), a, s->plen,
		 strerror(e), e == EPERM ? " (srv6d needs CAP_NET_RAW)" : "");
	return -1;
}

/* Put ncfg in force (docs/design.md "Reload"): its state resolved
 * (resolve_state(): the SIDs keep their marks where their routing is
 * unchanged), ncfg's
 * rules, routes and devices are added without touching the old one's,
 * the engine's pointer is swapped, and only then is what the old config
 * alone used removed; reuse (a kernel routes rebuild): when ncfg's SIDs
 * are the old ones, only the swap (daemon_apply_same_sids()).  `what`
 * names ncfg in messages.  Returns 0 when
 * ncfg is in force, -1 when the old config is kept (ncfg freed, the
 * errors in re). */
/* The config in force's queue rules in force (steer.h: one batch, none
 * when they did not change); a failure keeps the previous ones. */
static void steering_update(struct daemon *d)
{
	char err[256];

	if (steer_update(d->steer, engine_config(d->engine),
			 engine_runstate(d->engine), err,
			 sizeof(err)) < 0)
		log_msg(LOG_ERR, "%s (the previous rules stay)", err);
	/* a probe queued before the engine's swap was accepted with the
	 * new config's mark-base and met the old guard (or the reverse):
	 * the probe's next reading only primes (markprobe.h) */
	d->probe.primed = false;
}

static int daemon_apply(struct daemon *d, struct config *ncfg,
			struct reload_errors *re, const char *what, bool reuse)
{
	const struct config *old = engine_config(d->engine);
	const struct runstate *ors = engine_runstate(d->engine);
	struct sid_runtime *rt, *kept = NULL;
	char err[512], err2[512];
	struct runstate *rs;
	bool same;

	rs = resolve_state(ncfg, old, ors, reuse, &d->tunsrc, &same, err,
			   sizeof(err));
	if (!rs) {
		reload_error(re, "%s: %s; keeping the running configuration",
			     what, err);
		config_free(ncfg);
		return -1;
	}
	if (same) {
		if (daemon_apply_same_sids(d, ncfg, rs, re, what) < 0)
			return -1;
		steering_update(d);
		return 0;
	}
	if (daemon_pkt_sock_check(ncfg, rs, err, sizeof(err)) < 0 ||
	    rtrules_install_add(ncfg, rs, old, ors, &rt, err,
				sizeof(err)) < 0) {
		reload_error(re, "%s; keeping the running configuration", err);
		runstate_free(rs);
		config_free(ncfg);
		goto restore;
	}
	switch (kencap_routes_install(rs, ncfg, ors, err, sizeof(err))) {
	case -1:
		reload_error(re, "%s; keeping the running configuration", err);
		free(rt);
		runstate_free(rs);
		config_free(ncfg);
		goto restore;
	case 1:	/* an `auto` fell back: what it added goes */
		if (rtrules_prune_keep(ncfg, rs, old, ors, err2,
				       sizeof(err2)) < 0)
			log_msg(LOG_WARNING, "reload: removing what "
				"kernel-encap / kernel-end added: %s", err2);
		break;
	default:
		break;
	}
	if (d->file)
		kept = runtime_dup(rt, ncfg->nsids);
	if (engine_swap_config(d->engine, ncfg, rs, rt) != 0) {
		/* The engine keeps the old config (and disposes of ncfg,
		 * rs and rt). */
		reload_error(re, "the engine refused %s: keeping the running "
			     "configuration", what);
		free(kept);
		goto restore;
	}
	if (d->file) {
		free(d->rt);
		d->rt = kept;
	}
	steering_update(d);
	/* No worker uses the old config now: what it alone needed goes. */
	if (rtrules_prune(engine_config(d->engine), engine_runstate(d->engine),
			  err2, sizeof(err2)) < 0)
		log_msg(LOG_WARNING, "reload: removing the previous "
			"configuration's rules: %s (the next reload or the "
			"exit tries again)", err2);
	kencap_tunsrc_settle(engine_runstate(d->engine), &d->tunsrc);
	d->tunsrc_next_ms = 0;	/* the new config's tunsrc: held back? */
	tunsrc_tick(d);
	markguard_reset(&d->guard);	/* the new config's catch tables */
	markguard_reset(&d->eguard);
	d->rules_due = true;		/* its rule-priority, its rules */
	repair_forget(d);
	return 0;
restore:
	if (rtrules_prune(engine_config(d->engine), engine_runstate(d->engine),
			  err2, sizeof(err2)) < 0)
		reload_error(re, "removing the refused configuration's "
			     "rules: %s", err2);
	return -1;
}

static struct config *kroutes_build(struct daemon *d,
				    const struct config *file, char *err,
				    size_t errlen);

/* SIGHUP or srv6ctl reload: parse the file anew; only a valid config
 * replaces the running one (daemon_apply()).  With kernel-routes yes,
 * what is put in force is the new file's config with the kernel's SRv6
 * routes (kroutes_build()), and the file's is kept for the next change
 * of those.  Every error is logged and, when errors is not NULL,
 * appended to it.  Returns 0 when the new config is in force, -1 when
 * the old one is kept. */
static int daemon_reload(struct daemon *d, json_t *errors)
{
	const char *path = d->opts->config_path;
	struct reload_errors re = { .list = errors };
	struct config *fcfg, *ncfg;
	struct steer_status sst;
	char err[512];
	const char *what;

	log_msg(LOG_INFO, "reloading %s", path);
	sd_notify(0, "RELOADING=1\nSTATUS=reloading");
	fcfg = config_parse_file_warn(path, config_error_reload,
				      config_warning_reload, &re);
	if (!fcfg) {
		reload_error(&re, "%s has errors: keeping the running "
			     "configuration", path);
		goto fail;
	}
	steer_get_status(d->steer, &sst);
	what = reload_needs_restart(engine_config(d->engine), fcfg,
				    sst.enabled);
	if (what) {
		reload_error(&re, "%s: '%s' changed, which needs a restart: "
			     "keeping the running configuration", path, what);
		config_free(fcfg);
		goto fail;
	}
	ncfg = fcfg;
	if (fcfg->kernel_routes) {
		ncfg = kroutes_build(d, fcfg, err, sizeof(err));
		if (!ncfg) {
			reload_error(&re, "%s with the kernel's routes: %s; "
				     "keeping the running configuration",
				     path, err);
			config_free(fcfg);
			goto fail;
		}
	}
	if (daemon_apply(d, ncfg, &re, path, false) < 0) {
		if (ncfg != fcfg)
			config_free(fcfg);
		goto fail;
	}
	if (ncfg != fcfg) {
		config_free(d->file);
		d->file = fcfg;
	}
	d->config_loaded = time(NULL);
	d->reloads++;
	log_msg(LOG_INFO, "reloaded %s: %u SIDs, %u policies", path,
		engine_config(d->engine)->nsids,
		engine_config(d->engine)->npolicies);
	notify_status(d, "READY=1");
	return 0;
fail:
	d->reload_failures++;
	notify_status(d, "READY=1");
	sd_notifyf(0, "STATUS=reload of %s failed: running configuration "
		   "kept (see the log)", path);
	return -1;
}

/* ---- the kernel's SRv6 routes (kernel-routes yes) ---------------------- */

/* The parsed seg6local routes of one rebuild (the arrays grow as they
 * fill: a struct policy is large).  The seg6 encap routes' policies are
 * not rebuilt: they live with their routes in the mirror (kpolicy.h). */
struct kroutes_in {
	struct sid *sids;
	struct policy *bpols;		/* bpols[i]: sids[i]'s binding policy */
	size_t *sid_msg;		/* which message each came from */
	unsigned nsids, sids_cap;
	uint64_t *logged;		/* this rebuild's reported routes */
	size_t nlogged;
	bool oom;
};

/* Room for one more SID in in.  Returns 0, or -1 when memory runs out
 * (in->oom). */
static int kroutes_in_grow(struct kroutes_in *in)
{
	unsigned ncap;
	void *a, *b, *c;

	if (in->nsids < in->sids_cap)
		return 0;
	ncap = in->sids_cap ? in->sids_cap * 2 : 16;
	a = realloc(in->sids, ncap * sizeof(*in->sids));
	if (a)
		in->sids = a;
	b = realloc(in->bpols, ncap * sizeof(*in->bpols));
	if (b)
		in->bpols = b;
	c = realloc(in->sid_msg, ncap * sizeof(*in->sid_msg));
	if (c)
		in->sid_msg = c;
	if (!a || !b || !c) {
		in->oom = true;
		return -1;
	}
	in->sids_cap = ncap;
	return 0;
}

static uint64_t kroute_hash(const struct nlmsghdr *nlh, const char *why)
{
	const uint8_t *p = (const uint8_t *)nlh;
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */

	for (size_t i = 0; i < nlh->nlmsg_len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	for (; *why; why++)
		h = (h ^ (uint8_t)*why) * 1099511628211ull;
	return h;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "fc00::/64 (table 254)" of a route message. */
static void kroute_name(const struct nlmsghdr *nlh, char *buf, size_t len)
{
	static struct seg6route r;	/* the main thread's */
	char a[INET6_ADDRSTRLEN] = "?";

	if (seg6route_parse(nlh, &r) <= 0) {
		snprintf(buf, len, "?");
		return;
	}
	inet_ntop(r.family, r.kind == SEG6ROUTE_SID ? (const void *)&r.sid.prefix
						    : (const void *)&r.pol.prefix,
		  a, sizeof(a));
	snprintf(buf, len, "%s %s/%u (table %u)",
		 r.kind == SEG6ROUTE_SID ? "seg6local" : "seg6", a, r.pol.plen,
		 r.table);
}

/* A kernel route srv6d does not apply: logged when it was not at the
 * last rebuild (once per route and reason). */
static void kroute_report(const struct daemon *d, struct kroutes_in *in,
			  const struct nlmsghdr *nlh, const char *why,
			  unsigned line)
{
	uint64_t h = kroute_hash(nlh, why);
	char name[128];

	in->logged[in->nlogged++] = h;
	if (d->kr_logged && bsearch(&h, d->kr_logged, d->kr_nlogged,
				    sizeof(h), u64_cmp))
		return;
	kroute_name(nlh, name, sizeof(name));
	if (line)
		log_msg(LOG_WARNING, "kernel route %s not applied: %s (line "
			"%u)", name, why, line);
	else
		log_msg(LOG_WARNING, "kernel route %s not applied: %s", name,
			why);
}

static void kroutes_in_free(struct kroutes_in *in)
{
	free(in->sids);
	free(in->bpols);
	free(in->sid_msg);
	free(in->logged);
}

/* One seg6local route message into in, or reported (unsupported, outside
 * main).  A seg6local route is a SID only in main: srv6d's SIDs
 * answer whatever table a packet's in-interface has, where the kernel
 * reaches a SID route of another table only by the rules or VRF that
 * lead to it (srv6d.conf(5) kernel-routes).  The main thread is an
 * online QSBR reader (the SID's oif by name). */
static void kroute_take(struct daemon *d, struct kroutes_in *in,
			struct nlmsghdr *const *msgs, size_t i)
{
	static struct seg6route r;	/* the main thread's */
	const struct rtmirror_link *l;
	const char *why;

	if (seg6route_parse(msgs[i], &r) <= 0 || r.kind != SEG6ROUTE_SID)
		return;
	why = r.unsupported;
	if (!why && r.kind == SEG6ROUTE_SID && r.sid_oif) {
		l = rtmirror_link_get(d->mirror, r.sid_oif);
		if (l)
			memcpy(r.sid.oif, l->name, sizeof(r.sid.oif));
		else
			why = "its oif is not a link";
	}
	if (why) {
		d->kr.unsupported++;
		kroute_report(d, in, msgs[i], why, 0);
		return;
	}
	if (r.table != RT_TABLE_MAIN) {
		d->kr.other_table++;
		kroute_report(d, in, msgs[i], "srv6d applies the main table's "
			      "seg6local routes only", 0);
		return;
	}
	if (kroutes_in_grow(in) < 0)
		return;
	in->sids[in->nsids] = r.sid;	/* .policy: kroutes_in_bind() */
	in->bpols[in->nsids] = r.pol;
	in->sid_msg[in->nsids++] = i;
}

/* Each binding SID's policy, once the arrays have stopped moving. */
static void kroutes_in_bind(struct kroutes_in *in)
{
	for (unsigned i = 0; i < in->nsids; i++)
		in->sids[i].policy = behavior_is_binding(in->sids[i].behavior) ?
				     &in->bpols[i] : NULL;
}

/* What config_merge_kernel() said of each route, counted and reported. */
static void kroutes_results(struct daemon *d, struct kroutes_in *in,
			    struct nlmsghdr *const *msgs,
			    const struct config_kroute_result *res)
{
	for (unsigned i = 0; i < in->nsids; i++) {
		size_t m = in->sid_msg[i];

		if (res[i].status == CONFIG_KROUTE_APPLIED) {
			d->kr.applied++;
			continue;
		}
		if (res[i].status == CONFIG_KROUTE_SHADOWED)
			d->kr.shadowed++;
		else
			d->kr.refused++;
		kroute_report(d, in, msgs[m], res[i].why, res[i].line);
	}
}

/* The config to put in force: file's with the kernel's SRv6 routes now
 * (config_merge_kernel()); the counts in d->kr, each route srv6d does not
 * apply logged once.  Returns NULL with a message in err. */
static struct config *kroutes_build(struct daemon *d,
				    const struct config *file, char *err,
				    size_t errlen)
{
	struct config_kroute_result *res = NULL;
	struct kroutes_in in = { 0 };
	struct config *ncfg = NULL;
	struct nlmsghdr **msgs;
	long n = rtmirror_seg6_snapshot(d->mirror, &msgs);
	size_t c;

	if (n < 0)
		goto oom;
	c = (size_t)n + 1;
	in.logged = calloc(c, sizeof(*in.logged));
	res = calloc(c, sizeof(*res));
	if (!in.logged || !res)
		goto oom;
	d->kr = (struct ctl_kroutes){ .enabled = true, .routes = (uint64_t)n,
		.rebuilds = d->kr.rebuilds,
		.rebuild_failures = d->kr.rebuild_failures,
		.last_rebuild_us = d->kr.last_rebuild_us };
	rcu_thread_online();
	for (size_t i = 0; i < (size_t)n && !in.oom; i++)
		kroute_take(d, &in, msgs, i);
	rcu_thread_offline();
	if (in.oom)
		goto oom;
	kroutes_in_bind(&in);
	ncfg = config_merge_kernel(file, in.sids, in.nsids, res, err, errlen);
	if (ncfg)
		kroutes_results(d, &in, msgs, res);
	qsort(in.logged, in.nlogged, sizeof(*in.logged), u64_cmp);
	free(d->kr_logged);
	d->kr_logged = in.logged;
	d->kr_nlogged = in.nlogged;
	in.logged = NULL;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	free(res);
	kroutes_in_free(&in);
	seg6route_snapshot_free(msgs, n > 0 ? (size_t)n : 0);
	return ncfg;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* The kernel's SRv6 routes changed: srv6d.conf's config with them in
 * force, as a reload puts a new file in force.  A failure keeps the
 * running config (logged, counted); the next change tries again.
 * reuse: SIDs unchanged, nothing is installed (daemon_apply()); a repair
 * passes false, so that what went missing is installed again. */
static void kroutes_rebuild(struct daemon *d, bool reuse)
{
	struct reload_errors re = { .list = NULL };
	uint64_t t0 = now_us();
	struct config *ncfg;
	char err[512];

	ncfg = kroutes_build(d, d->file, err, sizeof(err));
	if (!ncfg) {
		log_msg(LOG_ERR, "kernel routes: %s; keeping the running "
			"configuration", err);
		d->kr.rebuild_failures++;
		return;
	}
	if (daemon_apply(d, ncfg, &re, "the kernel's routes", reuse) < 0) {
		d->kr.rebuild_failures++;
		return;
	}
	d->kr.rebuilds++;
	d->kr.last_rebuild_us = now_us() - t0;
	log_debug("kernel routes: %llu of %llu applied in %llu us: %u SIDs, "
		  "%u policies in force",
		  (unsigned long long)d->kr.applied,
		  (unsigned long long)d->kr.routes,
		  (unsigned long long)d->kr.last_rebuild_us,
		  engine_config(d->engine)->nsids,
		  engine_config(d->engine)->npolicies);
}

/* The mirror says the kernel's SRv6 routes changed: a rebuild once they
 * are quiet (KROUTES_QUIET_MS), within KROUTES_MAX_WAIT_MS. */
static void kroutes_changed(struct daemon *d)
{
	uint64_t now = now_ms(), v;

	while (read(rtmirror_seg6_fd(d->mirror), &v, sizeof(v)) > 0)
		;
	if (!d->kr_first_ms)
		d->kr_first_ms = now;
	d->kr_due_ms = now + KROUTES_QUIET_MS;
	if (d->kr_due_ms > d->kr_first_ms + KROUTES_MAX_WAIT_MS)
		d->kr_due_ms = d->kr_first_ms + KROUTES_MAX_WAIT_MS;
}

static void kroutes_tick(struct daemon *d)
{
	if (!d->kr_due_ms || now_ms() < d->kr_due_ms)
		return;
	d->kr_due_ms = d->kr_first_ms = 0;
	kroutes_rebuild(d, true);
}

/* ---- links named by SIDs ------------------------------------------------ */

/* The first SID whose oif (or an SR proxy's iif) is not the link it was
 * resolved to (struct sid_marks' oif_index, iif_index,
 * resolve_link_index()): one that was missing or down is up now, or one
 * went down, was deleted, made again or renamed; NULL when none.
 * *appeared: it was missing or down; *name: the link's name. */
static const struct sid *links_moved(const struct daemon *d, bool *appeared,
				     const char **name)
{
	const struct config *cfg = engine_config(d->engine);
	const struct runstate *rs = engine_runstate(d->engine);
	bool exists;

	for (unsigned i = 0; i < cfg->nsids; i++) {
		const struct sid *s = &cfg->sids[i];
		uint32_t was = runstate_sid(rs, s).oif_index;

		if (s->oif[0] && resolve_link_index(s->oif, &exists) != was) {
			*appeared = !was;
			*name = s->oif;
			return s;
		}
		was = runstate_sid(rs, s).iif_index;
		if (s->iif[0] && resolve_link_index(s->iif, &exists) != was) {
			*appeared = !was;
			*name = s->iif;
			return s;
		}
	}
	return NULL;
}

/* Put the config in force again (as a reload does, the file not read),
 * because of `why`: a SID that waited for its oif or its next hop's
 * route gets its route, an object of srv6d's that went away is made
 * again.  With kernel-routes yes, a rebuild of the kernel's routes
 * (`reuse`: the SIDs' runtime kept when they resolve the same, nothing
 * installed; else everything installed again).  Returns 0, or -1 when
 * it failed and the running config stays (logged); the next change
 * tries again. */
static int daemon_reapply(struct daemon *d, const char *why, bool reuse)
{
	struct reload_errors re = { .list = NULL };
	struct config *ncfg;
	char err[512];

	if (d->file) {		/* kernel-routes yes */
		uint64_t ok = d->kr.rebuilds;

		kroutes_rebuild(d, reuse);
		return d->kr.rebuilds > ok ? 0 : -1;
	}
	ncfg = config_merge_kernel(engine_config(d->engine), NULL, 0, NULL,
				   err, sizeof(err));
	if (!ncfg) {
		log_msg(LOG_ERR, "%s: %s; keeping the running configuration",
			why, err);
		return -1;
	}
	return daemon_apply(d, ncfg, &re, why, false);
}

/* The mirror saw a link appear, go, go up or down, or be renamed: when
 * it is one a SID names, the config in force is put in force again. */
struct steer_links_acc {
	struct steer_link *l;
	size_t n, cap;
};

static void steer_link_add(const struct rtmirror_link *l, void *arg)
{
	struct steer_links_acc *a = arg;

	if (l->table4 == RT_TABLE_MAIN && l->table6 == RT_TABLE_MAIN)
		return;
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		void *n = realloc(a->l, cap * sizeof(*a->l));

		if (!n)
			return;
		a->l = n;
		a->cap = cap;
	}
	memset(&a->l[a->n], 0, sizeof(a->l[a->n]));
	memcpy(a->l[a->n].name, l->name, sizeof(a->l[a->n].name));
	a->l[a->n].table4 = l->table4;
	a->l[a->n].table6 = l->table6;
	a->n++;
}

/* The links whose table is not main, to steering (its rules follow the
 * in-interfaces, steer.h). */
static void steering_links(struct daemon *d)
{
	struct steer_links_acc a = { 0 };
	char err[256];

	if (!d->steer)
		return;
	rcu_thread_online();
	rtmirror_links_read(d->mirror, steer_link_add, &a);
	rcu_thread_offline();
	if (steer_links(d->steer, engine_config(d->engine),
			engine_runstate(d->engine), a.l, a.n, err,
			sizeof(err)) < 0)
		log_msg(LOG_ERR, "%s (the previous rules stay)", err);
	free(a.l);
}

/* The links the tenants' catch rules follow (markguard_set_links()): the
 * mirror's links of another table than main, a VRF's slave by its VRF
 * device (what a rule's iif matches), srv6d's own devices left out.  A
 * change puts the config in force again, which makes and prunes the
 * rules.  Returns whether it did. */
struct guard_links_acc {
	struct guard_link {
		uint32_t ifindex, master, table4, table6;
		char name[IF_NAMESIZE];
	} *v;
	size_t n, cap;
};

static void guard_link_add(const struct rtmirror_link *l, void *arg)
{
	struct guard_links_acc *a = arg;

	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		void *n = realloc(a->v, cap * sizeof(*a->v));

		if (!n)
			return;
		a->v = n;
		a->cap = cap;
	}
	a->v[a->n] = (struct guard_link){ .ifindex = l->ifindex,
					  .master = l->master,
					  .table4 = l->table4,
					  .table6 = l->table6 };
	snprintf(a->v[a->n].name, sizeof(a->v[a->n].name), "%s", l->name);
	a->n++;
}

static bool guard_links(struct daemon *d)
{
	const struct config *cfg = engine_config(d->engine);
	struct guard_links_acc a = { 0 };
	struct markguard_link *l;
	size_t k = 0;
	bool changed;

	rcu_thread_online();
	rtmirror_links_read(d->mirror, guard_link_add, &a);
	rcu_thread_offline();
	l = calloc(a.n + 1, sizeof(*l));
	if (!l) {
		free(a.v);
		return false;
	}
	for (size_t i = 0; i < a.n; i++) {
		const struct guard_link *g = &a.v[i];
		const char *name = g->name;

		if ((g->table4 == RT_TABLE_MAIN && g->table6 == RT_TABLE_MAIN) ||
		    !strncmp(name, "srv6d", 5) || !strcmp(name, cfg->tun_name))
			continue;
		for (size_t j = 0; g->master && j < a.n; j++)
			if (a.v[j].ifindex == g->master)
				name = a.v[j].name;	/* its VRF device */
		snprintf(l[k].name, sizeof(l[k].name), "%s", name);
		l[k].table4 = g->table4;
		l[k].table6 = g->table6;
		k++;
	}
	changed = markguard_set_links(l, k);
	free(l);
	free(a.v);
	if (changed && engine_runstate(d->engine)->kencap_on &&
	    engine_runstate(d->engine)->nkencaps) {
		log_msg(LOG_INFO, "the tenants' in-interfaces changed: their "
			"catch rules follow");
		daemon_reapply(d, "the tenants' links", false);
		return true;
	}
	return false;
}

static void links_changed(struct daemon *d)
{
	const char *name = NULL;
	const struct sid *s;
	bool appeared;
	uint64_t v;

	while (read(rtmirror_links_fd(d->mirror), &v, sizeof(v)) > 0)
		;
	steering_links(d);
	if (guard_links(d))
		return;		/* put in force again already */
	s = links_moved(d, &appeared, &name);
	if (!s)
		return;
	log_msg(LOG_INFO, "%s %s %s: putting the configuration in force "
		"again", name == s->iif ? "iif" : "oif", name,
		appeared ? "is up now" : "changed");
	daemon_reapply(d, "the links", true);
}

/* A SID without oif whose next hop had no route at install
 * (sid_runtime's route_pending, rtrules.c sid_route_add()): once a
 * second, when the route mirror has a route to it now, the config in
 * force is put in force again, which installs the SID's route (a next
 * hop reached only through a gateway stays pending: the kernel takes
 * none such). */
static void nexthops_tick(struct daemon *d)
{
	const struct sid_runtime *rt = engine_sid_runtime(d->engine);
	const struct config *cfg = engine_config(d->engine);
	uint64_t now = now_ms();

	if (!rt || now < d->nexthops_next_ms)
		return;
	d->nexthops_next_ms = now + 1000;
	for (unsigned i = 0; i < cfg->nsids; i++) {
		const struct sid *s = &cfg->sids[i];

		if (rt[i].route_pending &&
		    egress_nexthop_connected(d->mirror, s)) {
			char a[INET6_ADDRSTRLEN];

			inet_ntop(AF_INET6, &s->prefix, a, sizeof(a));
			log_msg(LOG_INFO, "%s %s/%u: its next hop has a route "
				"now: putting the configuration in force again",
				behavior_name(s->behavior), a, s->plen);
			daemon_reapply(d, "the next hops", false);
			return;
		}
	}
}

/* ---- watch and repair (issue 19 item 4) ------------------------------- */

/* REPAIR_DELAY_MS after the first event that says one of srv6d's objects
 * went away, the config in force is put in force again: the events of
 * one deletion (a device takes its routes with it) come together. */
#define REPAIR_DELAY_MS		5
#define REPAIR_LOG_MS		1000	/* one repair logged a second */

/* What the watcher holds now came from srv6d's own changes (an apply
 * adds, replaces and prunes its objects): not repairs. */
static void repair_forget(struct daemon *d)
{
	if (d->watch)
		rtwatch_read(d->watch);
	d->repair_kinds = 0;
	d->repair_due_ms = 0;
	d->rules_due = true;	/* srv6d's rules changed: those before them */
}

static void repair_changed(struct daemon *d)
{
	unsigned k = rtwatch_read(d->watch);

	if (k & RTWATCH_OTHER_RULE)
		d->rules_due = true;
	k &= ~RTWATCH_OTHER_RULE;
	if (!k)
		return;
	d->repair_kinds |= k;
	if (!d->repair_due_ms) {
		d->repair_due_ms = now_ms() + REPAIR_DELAY_MS;
		d->repair_seen_us = now_us();
	}
}

/* "rule, kernel-end route" into buf: the kinds in bits. */
static void repair_kind_list(unsigned kinds, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (unsigned k = 0; k < RTWATCH_NKINDS && o < len; k++)
		if (kinds & 1u << k)
			o += (size_t)snprintf(buf + o, len - o, "%s%s",
					      o ? ", " : "",
					      rtwatch_kind_name(k));
	if (kinds & RTWATCH_OVERRUN && o < len)
		snprintf(buf + o, len - o, "%sevents lost", o ? ", " : "");
}

/* The config in force, put in force again (as links_changed() does):
 * what went away is made again, the rest stays.  The time it took, from
 * the event that told it to the objects made again (REPAIR_DELAY_MS
 * included), is status's repairs.last_us. */
static void repair_tick(struct daemon *d)
{
	unsigned kinds = d->repair_kinds;
	uint64_t t0 = d->repair_seen_us, now = now_ms();
	char what[128];
	int rc;

	if (!d->repair_due_ms || now < d->repair_due_ms)
		return;
	for (unsigned k = 0; k < RTWATCH_NKINDS; k++)
		if (kinds & 1u << k)
			d->repairs[k]++;
	repair_kind_list(kinds, what, sizeof(what));
	rc = daemon_reapply(d, "the repair", false);	/* what is missing */
	repair_forget(d);
	d->last_repair_us = now_us() - t0;
	if (rc < 0) {
		d->repair_failures++;
		log_msg(LOG_ERR, "srv6d's %s went away; putting the "
			"configuration in force again failed (the next event "
			"tries again)", what);
		return;
	}
	if (now < d->repair_logged_ms + REPAIR_LOG_MS) {
		d->repair_unlogged++;
		return;
	}
	log_msg(LOG_WARNING, "srv6d's %s went away: made again in %llu us"
		"%s", what, (unsigned long long)d->last_repair_us,
		d->repair_unlogged ? " (and repairs not logged since the "
		"last message)" : "");
	d->repair_logged_ms = now;
	d->repair_unlogged = 0;
}

/* ---- signals and the loop -------------------------------------------- */

/* Block the signals we handle (before any thread starts, so that workers
 * inherit the mask) and return a signalfd for them, or -1. */
static int signals_open(void)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static void signals_read(struct daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			log_msg(LOG_INFO, "%s: stopping",
				si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
			d->stop = true;
			break;
		case SIGHUP:
			log_msg(LOG_INFO, "SIGHUP");
			daemon_reload(d, NULL);
			break;
		case SIGUSR2:
			/* systemd's RestartKillSignal=: the node stays
			 * closed until the next start takes over */
			log_msg(LOG_INFO, "SIGUSR2: stopping for a restart: "
				"the steering rules stay (their queues drop "
				"what comes until the next start takes them "
				"over)");
			d->stop = true;
			d->restarting = true;
			break;
		default:
			break;
		}
	}
}

/* Close the connections of instances that asked who holds the lock (they
 * have read our pid already), so that the backlog never fills. */
static void instance_lock_serve(int lockfd)
{
	int fd;

	while ((fd = accept4(lockfd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
		close(fd);
}

/* Someone changed nf_tables: srv6d's tables back if they lost rules. */
static void steering_repair(struct daemon *d)
{
	char err[256];

	if (steer_event(d->steer, err, sizeof(err)) < 0)
		log_msg(LOG_ERR, "%s", err);
}

/* Routes of the kernel's seg6 encap routes that one loop turn hands to
 * steering's sets at most.  A start with a full table takes a million at
 * once, 10-16 s of set transactions (BENCHMARKS.md row 11): in slices,
 * the loop serves the control socket, signals and the watchdog between
 * them (a status request waits for one slice, not for the whole load).
 * Each slice is a change of the sets of its own, after the one before:
 * the sets end as one change of them all would leave them. */
#define STEER_KROUTES_SLICE	65536

/* The kernel's seg6 encap routes came or went: their prefixes into
 * steering's sets (taken also with steering no: the list never grows),
 * one slice of them a call; steering_kroutes_pending() while some are
 * left. */
static void steering_kroutes(struct daemon *d)
{
	char err[256];
	size_t n;

	if (!d->sk_list) {
		d->sk_n = rtmirror_kroutes_take(d->mirror, &d->sk_list,
						&d->sk_lost);
		d->sk_done = 0;
		d->sk_t0_ms = now_ms();
		if (!d->sk_list) {
			/* nothing recorded, but maybe some lost: said */
			if (d->sk_lost &&
			    steer_kroutes(d->steer, engine_config(d->engine),
					  engine_runstate(d->engine), NULL, 0,
					  true, err, sizeof(err)) < 0)
				log_msg(LOG_ERR, "%s", err);
			return;
		}
	}
	n = d->sk_n - d->sk_done;
	if (n > STEER_KROUTES_SLICE)
		n = STEER_KROUTES_SLICE;
	if (steer_kroutes(d->steer, engine_config(d->engine),
			  engine_runstate(d->engine), d->sk_list + d->sk_done,
			  n, d->sk_lost && !d->sk_done, err, sizeof(err)) < 0)
		log_msg(LOG_ERR, "%s", err);
	d->sk_done += n;
	if (d->sk_done < d->sk_n)
		return;
	if (d->sk_n > STEER_KROUTES_SLICE)
		log_msg(LOG_INFO, "steering: kernel routes: %zu route changes "
			"taken in %zu slices in %llu ms", d->sk_n,
			(d->sk_n + STEER_KROUTES_SLICE - 1) /
			STEER_KROUTES_SLICE,
			(unsigned long long)(now_ms() - d->sk_t0_ms));
	free(d->sk_list);
	d->sk_list = NULL;
}

static bool steering_kroutes_pending(const struct daemon *d)
{
	return d->sk_list != NULL;
}

static void daemon_loop(struct daemon *d)
{
	/* [0] signals [1] instance lock [2] seg6 routes [3] metrics
	 * [4] links [5] steering's nf_tables watch [6] srv6d's rules,
	 * routes and devices watched (rtwatch) [7] seg6 encap routes for
	 * steering's sets, the control clients from CTL_FD_FIRST on */
	enum { CTL_FD_FIRST = 8 };
	struct pollfd fds[CTL_FD_FIRST + CTL_MAX_CLIENTS];

	while (!d->stop) {
		unsigned n;
		int r;

		fds[0] = (struct pollfd){ .fd = d->sigfd, .events = POLLIN };
		fds[1] = (struct pollfd){ .fd = d->lockfd, .events = POLLIN };
		/* -1 (kernel-routes no): poll() leaves it out */
		fds[2] = (struct pollfd){ .fd = rtmirror_seg6_fd(d->mirror),
					  .events = POLLIN };
		/* -1 without metrics-listen */
		fds[3] = (struct pollfd){ .fd = metrics_http_fd(d->metrics),
					  .events = POLLIN };
		fds[4] = (struct pollfd){ .fd = rtmirror_links_fd(d->mirror),
					  .events = POLLIN };
		/* -1 with steering no */
		fds[5] = (struct pollfd){ .fd = steer_fd(d->steer),
					  .events = POLLIN };
		/* -1 when the watcher could not be opened */
		fds[6] = (struct pollfd){ .fd = rtwatch_fd(d->watch),
					  .events = POLLIN };
		/* -1 (kernel-routes no); left out while a take's slices
		 * are pending (the next take waits for them) */
		fds[7] = (struct pollfd){
			.fd = steering_kroutes_pending(d) ? -1 :
			      rtmirror_kroutes_fd(d->mirror),
			.events = POLLIN };
		n = CTL_FD_FIRST + ctl_server_pollfds(d->ctl,
				fds + CTL_FD_FIRST,
				sizeof(fds) / sizeof(fds[0]) - CTL_FD_FIRST);
		r = poll(fds, n, steering_kroutes_pending(d) ? 0 :
			 poll_timeout(d));
		if (r < 0 && errno != EINTR) {
			log_msg(LOG_ERR, "poll: %s", strerror(errno));
			d->stop = true;
			break;
		}
		if (r >= 0) {
			if (fds[0].revents & POLLIN)
				signals_read(d);
			if (fds[1].revents & POLLIN)
				instance_lock_serve(d->lockfd);
			if (fds[2].revents & POLLIN)
				kroutes_changed(d);
			if (fds[4].revents & POLLIN)
				links_changed(d);
			if (fds[5].revents & POLLIN)
				steering_repair(d);
			if (fds[6].revents & POLLIN)
				repair_changed(d);
			/* also on a timeout: idle clients are closed */
			ctl_server_dispatch(d->ctl, fds + CTL_FD_FIRST,
					    n - CTL_FD_FIRST);
			metrics_http_run(d->metrics);
			/* after the clients: one waits one slice at most */
			if ((fds[7].revents & POLLIN) ||
			    steering_kroutes_pending(d))
				steering_kroutes(d);
		}
		kroutes_tick(d);
		repair_tick(d);
		tunsrc_tick(d);
		guard_tick(d);
		probe_tick(d);
		rules_tick(d);
		nexthops_tick(d);
		trace_tick(&d->trace, d->engine);
		watchdog_tick(d);
	}
}

/* ---- capabilities ------------------------------------------------------ */

/* What the running daemon still needs: CAP_NET_ADMIN, to send verdicts
 * (nfnetlink checks it on every message), to change its rules, routes and
 * veth pairs on a reload, and to unbind the queues at the end; CAP_NET_RAW,
 * for the packet sockets that send End.DX2 frames and the IPv4 results of
 * End.DX4/DT4/DT46 (opened by the engine, and checked again by a reload
 * that adds such a SID).  Everything else (CAP_CHOWN for the control
 * socket's group, CAP_SYS_ADMIN, ...) goes once setup is done. */
#define DAEMON_KEEP_CAPS	((1ull << CAP_NET_ADMIN) | (1ull << CAP_NET_RAW))

static int capget_self(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return (int)syscall(SYS_capget, &hdr, data);
}

static int capset_self(struct __user_cap_data_struct data[2])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};

	return (int)syscall(SYS_capset, &hdr, data);
}

/* Bits of a capability set outside DAEMON_KEEP_CAPS. */
static uint64_t caps_extra(uint32_t lo, uint32_t hi)
{
	return ((uint64_t)hi << 32 | lo) & ~DAEMON_KEEP_CAPS;
}

/* Drop every capability but DAEMON_KEEP_CAPS from the bounding set (when
 * we may), the ambient, permitted and effective sets, empty the
 * inheritable set when anything is to be dropped, and forbid gaining any
 * back (no_new_privs).  Started as a user with just those as ambient
 * capabilities (srv6d.service), there is nothing to drop but the ambient
 * set: capset(2) is then not called, so that the unit may deny it
 * (SystemCallFilter=~@privileged), and the inheritable set keeps what the
 * unit gave (DAEMON_KEEP_CAPS at most; srv6d never execs).  Call before any thread
 * starts: capabilities are per thread, and threads inherit them.  Returns
 * 0, or -1 with a message in err. */
static int caps_reduce(char *err, size_t errlen)
{
	struct __user_cap_data_struct data[2];
	uint64_t eff, perm;
	bool extra;

	if (capget_self(data) < 0) {
		snprintf(err, errlen, "capget: %s", strerror(errno));
		return -1;
	}
	if (data[0].effective & (1u << CAP_SETPCAP)) {
		for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0;
		     cap++) {
			if ((DAEMON_KEEP_CAPS >> cap) & 1)
				continue;
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
				snprintf(err, errlen, "dropping capability %d "
					 "from the bounding set: %s", cap,
					 strerror(errno));
				return -1;
			}
		}
	}
	/* EINVAL: a kernel without ambient capabilities has none to clear. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL) {
		snprintf(err, errlen, "clearing ambient capabilities: %s",
			 strerror(errno));
		return -1;
	}
	extra = caps_extra(data[0].effective, data[1].effective) ||
		caps_extra(data[0].permitted, data[1].permitted) ||
		caps_extra(data[0].inheritable, data[1].inheritable);
	eff = ((uint64_t)data[1].effective << 32 | data[0].effective) &
	      DAEMON_KEEP_CAPS;
	perm = ((uint64_t)data[1].permitted << 32 | data[0].permitted) &
	       DAEMON_KEEP_CAPS;
	data[0].effective = (uint32_t)eff;
	data[1].effective = (uint32_t)(eff >> 32);
	data[0].permitted = (uint32_t)perm;
	data[1].permitted = (uint32_t)(perm >> 32);
	data[0].inheritable = data[1].inheritable = 0;
	if (extra && capset_self(data) < 0) {
		snprintf(err, errlen, "capset: %s", strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(err, errlen, "no_new_privs: %s", strerror(errno));
		return -1;
	}
	if (!(eff & (1ull << CAP_NET_ADMIN)))
		log_msg(LOG_WARNING, "running without CAP_NET_ADMIN: queues, "
			"rules and verdicts will fail");
	if (!(eff & (1ull << CAP_NET_RAW)))
		log_msg(LOG_WARNING, "running without CAP_NET_RAW: End.DX2, "
			"End.DX4, End.DT4 and End.DT46 SIDs (with offload yes, "
			"the default, also End.X, End.T, End.DX6 and End.DT6) "
			"are refused, ICMP errors to IPv4 sources are dropped");
	return 0;
}

/* ---- start and stop ---------------------------------------------------- */

/* mkdir -p the directory that will hold path (the control socket). */
static int runtime_dir_create(const char *path)
{
	char dir[4096];
	char *slash;

	if (strlen(path) >= sizeof(dir))
		return -1;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* The abstract address of INSTANCE_LOCK_NAME, and its length. */
static socklen_t instance_lock_addr(struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* sun_path[0] = '\0': abstract, no file. */
	memcpy(sa->sun_path + 1, INSTANCE_LOCK_NAME,
	       sizeof(INSTANCE_LOCK_NAME) - 1);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   sizeof(INSTANCE_LOCK_NAME) - 1);
}

/* The pid of the srv6d that holds the lock (it listens on it), or 0 when
 * it cannot be told. */
static pid_t instance_lock_holder(void)
{
	struct sockaddr_un sa;
	socklen_t len = instance_lock_addr(&sa), cl = sizeof(struct ucred);
	struct ucred cred = { 0 };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return 0;
	if (connect(fd, (struct sockaddr *)&sa, len) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0)
		cred.pid = 0;
	close(fd);
	return cred.pid;
}

/* Take the lock of this network namespace before anything else: one srv6d
 * per network namespace, whatever its control socket or queues, since the
 * policy routing it sweeps at start and removes at exit (its reinjection veth,
 * veth pairs, rules at its priority, tables of its mark range) belongs to
 * the namespace.  An abstract socket name is per network namespace and
 * goes away with the process, even on kill -9: nothing stale to clean.
 * Returns the fd to keep open until the end, or -1 (logged). */
static int instance_lock(void)
{
	struct sockaddr_un sa;
	socklen_t len = instance_lock_addr(&sa);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	pid_t pid;

	if (fd < 0) {
		log_msg(LOG_ERR, "instance lock: socket: %s", strerror(errno));
		return -1;
	}
	/* Listening, so that another instance can read our pid (the loop
	 * accepts and closes its connection: instance_lock_serve()). */
	if (bind(fd, (struct sockaddr *)&sa, len) == 0 && listen(fd, 4) == 0)
		return fd;
	if (errno != EADDRINUSE) {
		log_msg(LOG_ERR, "instance lock: %s", strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	pid = instance_lock_holder();
	if (pid > 0)
		log_msg(LOG_ERR, "another srv6d (pid %d) runs in this network "
			"namespace: not starting (one srv6d per network "
			"namespace; nothing was changed)", (int)pid);
	else
		log_msg(LOG_ERR, "another srv6d runs in this network "
			"namespace: not starting (one srv6d per network "
			"namespace; nothing was changed)");
	return -1;
}

/* Refuse to run beside another instance; clear a stale socket.  Returns
 * 0 when we may go on. */
static int single_instance_check(const char *sock)
{
	char err[512];
	int r = ctl_probe(sock, err, sizeof(err));

	if (r > 0)
		log_msg(LOG_ERR, "another srv6d is running on %s", sock);
	else if (r < 0)
		log_msg(LOG_ERR, "%s", err);
	return r == 0 ? 0 : -1;
}

/* Everything of srv6d's in the kernel goes: its rules, routes and
 * devices (rtrules_remove()), and the tunsrc it set is given back. */
static void owned_remove(struct daemon *d)
{
	char err[512];

	if (rtrules_remove(err, sizeof(err)) < 0)
		log_msg(LOG_ERR, "removing policy routing: %s", err);
	kencap_tunsrc_restore(&d->tunsrc);
}

/* d->tunsrc with its state file beside the control socket at ctl_path
 * (srv6d.sock: srv6d.tunsrc; what a crashed srv6d recorded there is
 * read). */
static void tunsrc_open(struct daemon *d, const char *ctl_path)
{
	char path[sizeof(d->tunsrc.path)];
	size_t n = strlen(ctl_path);

	if (n >= 5 && !strcmp(ctl_path + n - 5, ".sock"))
		n -= 5;
	if (snprintf(path, sizeof(path), "%.*s%s", (int)n, ctl_path,
		     TUNSRC_STATE_SUFFIX) >= (int)sizeof(path)) {
		kencap_tunsrc_open(&d->tunsrc, NULL);
		return;
	}
	kencap_tunsrc_open(&d->tunsrc, path);
}

/* The control socket's group: `control-group` when the config names one,
 * else (gid_t)-1 (the socket keeps the daemon's group: root's). */
static gid_t control_gid(const struct config *cfg)
{
	return cfg->has_control_group ? cfg->control_gid : (gid_t)-1;
}

/* READY=1 for systemd, with a STATUS= line.  What must be complete before
 * srv6d serves is by then: the route mirror's first full dump
 * (mirror_start() waits for it) and the queues (bound when engine_start()
 * returns). */
static void notify_ready(struct daemon *d)
{
	notify_status(d, "READY=1");
}

/* Start the route mirror and wait (bounded) for its first full dump of
 * the kernel's links, addresses and routes.  Returns 0, or -1 with a
 * message in err (the mirror freed). */
static int mirror_start(struct daemon *d, const struct config *cfg, char *err,
			size_t errlen)
{
	struct rtmirror_opts o = {
		.seg6_routes = cfg->kernel_routes,
		.nworkers = cfg->queue_last - cfg->queue_first + 1,
	};
	struct rtmirror_stats st;
	int rc;

	d->mirror = rtmirror_new(&o);
	if (!d->mirror) {
		snprintf(err, errlen, "route mirror: out of memory");
		return -1;
	}
	rc = rtmirror_start(d->mirror);
	if (rc < 0) {
		snprintf(err, errlen, "route mirror: rtnetlink: %s",
			 strerror(-rc));
		goto fail;
	}
	for (unsigned ms = 0; ms < MIRROR_SYNC_MAX_MS; ms += MIRROR_SYNC_POLL_MS) {
		struct timespec ts = { .tv_nsec = MIRROR_SYNC_POLL_MS * 1000000L };

		rtmirror_get_stats(d->mirror, &st);
		if (st.synced) {
			log_msg(LOG_INFO, "route mirror synced in %llu ms",
				(unsigned long long)(st.last_sync_ns / 1000000));
			return 0;
		}
		nanosleep(&ts, NULL);
	}
	snprintf(err, errlen, "route mirror: no complete dump of the kernel's "
		 "routes after %u s (last error: %s): not starting",
		 MIRROR_SYNC_MAX_MS / 1000,
		 st.last_error ? strerror(st.last_error) : "none");
fail:
	rtmirror_free(d->mirror);
	d->mirror = NULL;
	return -1;
}

/* srv6d's queue rules in force (steering auto), once the queues are
 * bound.  Returns false when they could not be installed: srv6d then
 * refuses to run (fail closed: running unsteered, tenant packets would
 * follow the kernel's routes natively; what an earlier srv6d left stays
 * and drops them), with the reason logged. */
static bool steering_start(struct daemon *d)
{
	char err[256];
	bool ok;

	d->steer = steer_open(engine_config(d->engine),
			      engine_runstate(d->engine), &ok, err, sizeof(err));
	if (!ok) {
		log_msg(LOG_ERR, "%s: refusing to run unsteered (fail closed; "
			"with rules of your own, 'steering no')", d->steer ?
			err : "steering: out of memory");
		return false;
	}
	steering_links(d);	/* the rules follow the in-interfaces */
	/* the mark probe's socket (markprobe.h), opened while srv6d may */
	d->probe_fd = pkt_sock_open();
	if (d->probe_fd < 0)
		log_msg(LOG_WARNING, "mark probe: cannot open a packet socket "
			"(%s): off, whether srv6d's marks survive to routing is "
			"not probed", strerror(errno));
	probe_tick(d);	/* pending: fail safe until the first answer */
	return true;
}

/* Everything up to the loop.  Returns 0, -1 (logged, undone), or 1 when
 * everything but steering started (logged: daemon_stop() undoes it). */
static int daemon_start(struct daemon *d)
{
	const struct daemon_opts *o = d->opts;
	struct sid_runtime *rt = NULL;
	struct runstate *rs = NULL;
	struct config *cfg;
	char err[512];
	bool same;

	d->lockfd = instance_lock();
	if (d->lockfd < 0)
		return -1;
	cfg = config_parse_file_warn(o->config_path, config_error_stderr,
				     config_warning_stderr, NULL);
	if (!cfg) {
		log_msg(LOG_ERR, "%s has errors: not starting", o->config_path);
		goto fail_lock;
	}
	d->config_loaded = time(NULL);
	if (single_instance_check(o->ctl_path) < 0)
		goto fail_cfg;
	if (runtime_dir_create(o->ctl_path) < 0) {
		log_msg(LOG_ERR, "cannot create the directory of %s: %s",
			o->ctl_path, strerror(errno));
		goto fail_cfg;
	}
	tunsrc_open(d, o->ctl_path);
	/* The socket first: giving it its group may need CAP_CHOWN.  Clients
	 * wait in the backlog until the loop runs. */
	d->ctl = ctl_server_open(o->ctl_path, control_gid(cfg),
				 daemon_ctl_request, d, err, sizeof(err));
	if (!d->ctl) {
		/* EPERM as a user: the chown(2) to control-group, which
		 * needs membership of it (or CAP_CHOWN), and which
		 * srv6d.service denies. */
		log_msg(LOG_ERR, "%s%s", err, cfg->has_control_group &&
			errno == EPERM && geteuid() != 0 ?
			" (control-group: srv6d's user must "
			"be a member of the group, and srv6d.service needs "
			"SystemCallFilter=@chown: see srv6d(8) SECURITY)" : "");
		goto fail_cfg;
	}
	/* Its port too, before the capabilities go (no thread: the loop
	 * drives it). */
	if (cfg->has_metrics && !(d->metrics = metrics_http_open(cfg,
			daemon_metrics, d, err, sizeof(err)))) {
		log_msg(LOG_ERR, "%s", err);
		goto fail_ctl;
	}
	if (caps_reduce(err, sizeof(err)) < 0) {
		log_msg(LOG_ERR, "%s", err);
		goto fail_ctl;
	}
	rs = resolve_state(cfg, NULL, NULL, false, &d->tunsrc, &same, err,
			   sizeof(err));
	if (!rs) {
		log_msg(LOG_ERR, "%s", err);
		goto fail_rules;
	}
	if (daemon_pkt_sock_check(cfg, rs, err, sizeof(err)) < 0 ||
	    rtrules_install(cfg, rs, &rt, err, sizeof(err)) < 0) {
		log_msg(LOG_ERR, "%s", err);
		goto fail_rules;
	}
	switch (kencap_routes_install(rs, cfg, NULL, err, sizeof(err))) {
	case -1:
		log_msg(LOG_ERR, "%s", err);
		goto fail_rules;
	case 1:	/* an `auto` fell back: what it added goes */
		if (rtrules_prune(cfg, rs, err, sizeof(err)) < 0)
			log_msg(LOG_WARNING, "removing what kernel-encap / "
				"kernel-end added: %s", err);
		break;
	default:
		break;
	}
	if (mirror_start(d, cfg, err, sizeof(err)) < 0) {
		log_msg(LOG_ERR, "%s", err);
		goto fail_rules;
	}
	if (cfg->kernel_routes) {
		/* the file's config stays the daemon's, the engine runs a
		 * copy (the kernel's routes join it: kroutes_start()) with
		 * the same SIDs, so the same state rs */
		d->rt = runtime_dup(rt, cfg->nsids);
		d->file = cfg;
		cfg = config_merge_kernel(d->file, NULL, 0, NULL, err,
					  sizeof(err));
		if (!cfg) {
			log_msg(LOG_ERR, "%s", err);
			rtmirror_free(d->mirror);
			cfg = d->file;
			d->file = NULL;
			free(d->rt);
			d->rt = NULL;
			goto fail_rules;
		}
	}
	d->engine = engine_start(cfg, rs, rt, d->mirror, err, sizeof(err));
	if (!d->engine) {
		config_free(d->file);
		d->file = NULL;
		free(d->rt);
		d->rt = NULL;
		/* engine_start() owns cfg, rs and rt, even when it fails. */
		log_msg(LOG_ERR, "%s", err);
		rtmirror_free(d->mirror);
		owned_remove(d);
		metrics_http_close(d->metrics);
		ctl_server_close(d->ctl);
		close(d->lockfd);
		return -1;
	}
	kencap_tunsrc_settle(engine_runstate(d->engine), &d->tunsrc);
	if (!steering_start(d))
		return 1;	/* running: daemon_stop() undoes it */
	return 0;
fail_rules:
	free(rt);
	runstate_free(rs);
	owned_remove(d);
fail_ctl:
	metrics_http_close(d->metrics);
	d->metrics = NULL;
	ctl_server_close(d->ctl);
fail_cfg:
	config_free(cfg);
fail_lock:
	close(d->lockfd);
	return -1;
}

/* kernel-routes yes: the kernel's SRv6 routes in force before srv6d
 * says it is ready (the mirror has dumped them all by now). */
static void kroutes_start(struct daemon *d)
{
	struct rtmirror_stats st;
	uint64_t v;

	if (!d->file)
		return;
	d->kr.enabled = true;
	while (read(rtmirror_seg6_fd(d->mirror), &v, sizeof(v)) > 0)
		;
	kroutes_rebuild(d, true);
	rtmirror_get_stats(d->mirror, &st);
	log_msg(LOG_INFO, "kernel routes: %llu seg6local routes, %llu applied, "
		"%llu shadowed, %llu refused, %llu unsupported, %llu outside "
		"main; %zu seg6 routes' policies, %llu seg6 routes unsupported",
		(unsigned long long)d->kr.routes,
		(unsigned long long)d->kr.applied,
		(unsigned long long)d->kr.shadowed,
		(unsigned long long)d->kr.refused,
		(unsigned long long)d->kr.unsupported,
		(unsigned long long)d->kr.other_table,
		kpolicy_count(rtmirror_kpolicies(d->mirror)),
		(unsigned long long)st.kpol_unsupported);
}

static void daemon_stop(struct daemon *d)
{
	sd_notify(0, "STOPPING=1\nSTATUS=stopping: draining the queues");
	trace_session_end(&d->trace, d->engine);
	/* a clean stop: srv6d's rules go; a restart's (SIGUSR2): they
	 * stay, fail closed, for the next start to replace in one batch */
	steer_close(d->steer, !d->restarting);
	if (d->probe_fd >= 0)
		close(d->probe_fd);
	engine_stop(d->engine);		/* every queued packet gets a verdict */
	rtmirror_free(d->mirror);	/* no worker reads it any more */
	rtwatch_close(d->watch);	/* what goes now is srv6d's doing */
	d->watch = NULL;
	owned_remove(d);
	metrics_http_close(d->metrics);
	ctl_server_close(d->ctl);	/* unlinks the socket */
	close(d->lockfd);		/* last: the next srv6d may start */
	config_free(d->file);
	free(d->kr_logged);
	free(d->rt);
	free(d->sk_list);	/* a take's slices not handed over */
	log_msg(LOG_INFO, "stopped");
}

int daemon_run(const struct daemon_opts *opts)
{
	struct daemon d = { .opts = opts, .started_ms = now_ms(),
			    .guard.kind = MARKGUARD_END,
			    .eguard.kind = MARKGUARD_ENCAP,
			    .probe_fd = -1, .rules_due = true };
	int rc;

	log_init("srv6d", opts->debug);
	log_stderr(true);
	d.sigfd = signals_open();
	if (d.sigfd < 0) {
		log_msg(LOG_ERR, "signalfd: %s", strerror(errno));
		return DAEMON_EXIT_ERROR;
	}
	/* A QSBR reader of the route mirror for the read-only control
	 * requests (daemon_query()), offline whenever it is not building
	 * one's reply. */
	rcu_register_thread();
	rcu_thread_offline();
	rc = daemon_start(&d);
	if (rc < 0) {
		rcu_unregister_thread();
		close(d.sigfd);
		log_close();
		return DAEMON_EXIT_ERROR;
	}
	if (rc > 0) {	/* started but for steering: stopped again */
		daemon_stop(&d);
		rcu_unregister_thread();
		close(d.sigfd);
		log_close();
		return DAEMON_EXIT_ERROR;
	}
	log_msg(LOG_INFO, "srv6d %s started: %s, %u workers, control %s",
		SRV6D_VERSION, opts->config_path, engine_nworkers(d.engine),
		opts->ctl_path);
	log_stderr(false);
	watchdog_init(&d);
	d.watch = rtwatch_open(engine_config(d.engine)->tun_name);
	if (!d.watch)
		log_msg(LOG_WARNING, "watching srv6d's rules, routes and "
			"devices: %s (what goes away is made again only by a "
			"reload)", strerror(errno));
	kroutes_start(&d);
	guard_links(&d);	/* the tenants' catch rules */
	repair_forget(&d);
	notify_ready(&d);
	daemon_loop(&d);
	daemon_stop(&d);
	rcu_unregister_thread();
	close(d.sigfd);
	log_close();
	return DAEMON_EXIT_OK;
}
