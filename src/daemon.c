/* daemon.c - the daemon's life: config, policy routing, engine, control
 * socket, signals, one poll() loop (OpenBGPD's habit: signals only become
 * readable on a signalfd; the loop does the work). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "config.h"
#include "ctl.h"
#include "daemon.h"
#include "log.h"
#include "rtrules.h"
#include "worker.h"

#define POLL_MAX_MS	1000	/* control clients' timeouts are checked */

struct daemon {
	const struct daemon_opts *opts;
	struct engine *engine;
	struct ctl_server *ctl;
	int sigfd;
	uint64_t started_ms;
	struct rtrules_scope scope;	/* of the config in force */
	uint64_t wd_interval_ms;	/* 0: no systemd watchdog */
	uint64_t wd_next_ms;
	bool stop;
};

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

/* config_error_fn for a reload: the same, logged. */
static void config_error_log(void *arg, const char *file, unsigned line,
			     const char *msg)
{
	if (line)
		log_msg(LOG_ERR, "%s:%u: %s", file, line, msg);
	else
		log_msg(LOG_ERR, "%s: %s", file, msg);
}

int daemon_check_config(const char *path)
{
	struct config *cfg = config_parse_file(path, config_error_stderr, NULL);

	if (!cfg)
		return DAEMON_EXIT_ERROR;
	printf("%s: configuration OK\n", path);
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

/* Milliseconds poll() may sleep. */
static int poll_timeout(const struct daemon *d)
{
	uint64_t now = now_ms();

	if (!d->wd_interval_ms)
		return POLL_MAX_MS;
	if (d->wd_next_ms <= now)
		return 0;
	return d->wd_next_ms - now < POLL_MAX_MS ? (int)(d->wd_next_ms - now)
						 : POLL_MAX_MS;
}

/* ---- control requests ------------------------------------------------ */

static json_t *daemon_status(const struct daemon *d)
{
	const struct config *cfg = engine_config(d->engine);
	unsigned n = engine_nworkers(d->engine);
	struct ctl_status_src src = {
		.pid = getpid(),
		.uptime = (now_ms() - d->started_ms) / 1000,
		.config_path = d->opts->config_path,
		.nworkers = n,
		.cfg = cfg,
	};
	struct worker_stats total, *workers;
	struct sid_stats *sids, *pols;
	unsigned *queues;
	json_t *doc = NULL;

	workers = aligned_alloc(64, (n + 1) * sizeof(*workers));
	queues = calloc(n + 1, sizeof(*queues));
	sids = calloc(cfg->nsids + 1, sizeof(*sids));
	pols = calloc(cfg->npolicies + 1, sizeof(*pols));
	if (workers && queues && sids && pols) {
		for (unsigned i = 0; i < n; i++) {
			queues[i] = engine_worker_queue(d->engine, i);
			engine_read_worker_stats(d->engine, i, &workers[i]);
		}
		engine_read_stats(d->engine, &total, sids, pols);
		src.queues = queues;
		src.workers = workers;
		src.totals = &total;
		src.sids = sids;
		src.pols = pols;
		doc = ctl_status_json(&src);
	}
	free(workers);
	free(queues);
	free(sids);
	free(pols);
	return doc;
}

static json_t *daemon_ctl_request(void *arg, const struct ctl_request *req,
				  uint16_t *status)
{
	const struct daemon *d = arg;

	*status = CTL_OK;
	switch (req->type) {
	case CTL_REQ_STATUS:
		return daemon_status(d);
	case CTL_REQ_VERSION:
		return json_pack("{s:s,s:i}", "version", SRV6D_VERSION,
				 "protocol", CTL_PROTO_VERSION);
	default:
		*status = CTL_ERR_UNKNOWN;
		return json_pack("{s:s}", "error", "unknown request type");
	}
}

/* ---- reload ----------------------------------------------------------- */

/* What a running engine cannot change (worker.h): returns the directive
 * that differs, or NULL. */
static const char *reload_needs_restart(const struct config *old,
					const struct config *ncfg)
{
	if (old->queue_first != ncfg->queue_first ||
	    old->queue_last != ncfg->queue_last)
		return "queue";
	if (strcmp(old->tun_name, ncfg->tun_name))
		return "tun-name";
	return NULL;
}

/* SIGHUP: parse the file anew; only a valid config replaces the running
 * one (its rules first, then the engine's pointer). */
static void daemon_reload(struct daemon *d)
{
	const char *path = d->opts->config_path;
	struct rtrules_scope nscope;
	struct config *ncfg;
	char err[512], err2[512];
	const char *what;

	log_msg(LOG_INFO, "SIGHUP: reloading %s", path);
	sd_notify(0, "RELOADING=1");
	ncfg = config_parse_file(path, config_error_log, NULL);
	if (!ncfg) {
		log_msg(LOG_ERR, "%s has errors: keeping the running "
			"configuration", path);
		goto out;
	}
	what = reload_needs_restart(engine_config(d->engine), ncfg);
	if (what) {
		log_msg(LOG_ERR, "%s: '%s' changed, which needs a restart: "
			"keeping the running configuration", path, what);
		config_free(ncfg);
		goto out;
	}
	rtrules_scope_of(ncfg, &nscope);
	if (rtrules_install(ncfg, &d->scope, err, sizeof(err)) < 0) {
		log_msg(LOG_ERR, "%s; keeping the running configuration", err);
		config_free(ncfg);
		goto restore;
	}
	if (engine_swap_config(d->engine, ncfg) != 0) {
		/* The engine keeps the old config (and disposes of ncfg). */
		log_msg(LOG_ERR, "the engine refused %s: keeping the running "
			"configuration", path);
		goto restore;
	}
	d->scope = nscope;
	log_msg(LOG_INFO, "reloaded %s: %u SIDs, %u policies", path,
		engine_config(d->engine)->nsids,
		engine_config(d->engine)->npolicies);
	goto out;
restore:
	if (rtrules_install(engine_config(d->engine), &nscope, err2,
			    sizeof(err2)) < 0)
		log_msg(LOG_ERR, "restoring the running configuration's rules: "
			"%s", err2);
out:
	notify_status(d, "READY=1");
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
			daemon_reload(d);
			break;
		default:
			break;
		}
	}
}

static void daemon_loop(struct daemon *d)
{
	struct pollfd fds[2 + CTL_MAX_CLIENTS];

	while (!d->stop) {
		unsigned n;
		int r;

		fds[0] = (struct pollfd){ .fd = d->sigfd, .events = POLLIN };
		n = 1 + ctl_server_pollfds(d->ctl, fds + 1,
					   sizeof(fds) / sizeof(fds[0]) - 1);
		r = poll(fds, n, poll_timeout(d));
		if (r < 0 && errno != EINTR) {
			log_msg(LOG_ERR, "poll: %s", strerror(errno));
			d->stop = true;
			break;
		}
		if (r >= 0) {
			if (fds[0].revents & POLLIN)
				signals_read(d);
			/* also on a timeout: idle clients are closed */
			ctl_server_dispatch(d->ctl, fds + 1, n - 1);
		}
		watchdog_tick(d);
	}
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

static void rules_remove(const struct rtrules_scope *scope)
{
	char err[512];

	if (rtrules_remove(scope, err, sizeof(err)) < 0)
		log_msg(LOG_ERR, "removing policy routing: %s", err);
}

/* Everything up to the loop.  Returns 0, or -1 (logged, undone). */
static int daemon_start(struct daemon *d)
{
	const struct daemon_opts *o = d->opts;
	struct config *cfg;
	char err[512];

	cfg = config_parse_file(o->config_path, config_error_stderr, NULL);
	if (!cfg) {
		log_msg(LOG_ERR, "%s has errors: not starting", o->config_path);
		return -1;
	}
	if (single_instance_check(o->ctl_path) < 0)
		goto fail_cfg;
	if (runtime_dir_create(o->ctl_path) < 0) {
		log_msg(LOG_ERR, "cannot create the directory of %s: %s",
			o->ctl_path, strerror(errno));
		goto fail_cfg;
	}
	rtrules_scope_of(cfg, &d->scope);
	if (rtrules_install(cfg, NULL, err, sizeof(err)) < 0) {
		log_msg(LOG_ERR, "%s", err);
		goto fail_rules;
	}
	d->engine = engine_start(cfg, err, sizeof(err));
	if (!d->engine) {
		/* engine_start() owns cfg, even when it fails. */
		log_msg(LOG_ERR, "%s", err);
		rules_remove(&d->scope);
		return -1;
	}
	d->ctl = ctl_server_open(o->ctl_path, daemon_ctl_request, d, err,
				 sizeof(err));
	if (!d->ctl) {
		log_msg(LOG_ERR, "%s", err);
		engine_stop(d->engine);
		rules_remove(&d->scope);
		return -1;
	}
	return 0;
fail_rules:
	rules_remove(&d->scope);
fail_cfg:
	config_free(cfg);
	return -1;
}

static void daemon_stop(struct daemon *d)
{
	sd_notify(0, "STOPPING=1");
	engine_stop(d->engine);		/* every queued packet gets a verdict */
	rules_remove(&d->scope);
	ctl_server_close(d->ctl);	/* unlinks the socket */
	log_msg(LOG_INFO, "stopped");
}

int daemon_run(const struct daemon_opts *opts)
{
	struct daemon d = { .opts = opts, .started_ms = now_ms() };

	log_init("srv6d", opts->debug);
	log_stderr(true);
	d.sigfd = signals_open();
	if (d.sigfd < 0) {
		log_msg(LOG_ERR, "signalfd: %s", strerror(errno));
		return DAEMON_EXIT_ERROR;
	}
	if (daemon_start(&d) < 0) {
		close(d.sigfd);
		log_close();
		return DAEMON_EXIT_ERROR;
	}
	log_msg(LOG_INFO, "srv6d %s started: %s, %u workers, control %s",
		SRV6D_VERSION, opts->config_path, engine_nworkers(d.engine),
		opts->ctl_path);
	log_stderr(false);
	watchdog_init(&d);
	notify_status(&d, "READY=1");
	daemon_loop(&d);
	daemon_stop(&d);
	close(d.sigfd);
	log_close();
	return DAEMON_EXIT_OK;
}
