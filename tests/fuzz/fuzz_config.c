/* fuzz_config.c - libFuzzer target: any bytes through config_parse_buffer().
 *
 * The parser must never crash, overflow or leak, whatever the input; when
 * it accepts a config, the tables it built must agree with the arrays
 * (checked here, a trap otherwise). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config.h"
#include "lpm.h"
#include "runstate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void discard(void *arg, const char *file, unsigned line,
		    const char *msg)
{
	size_t *n = arg;

	/* Touch the message: it must be a valid string. */
	*n += strlen(file) + strlen(msg) + line;
}

static void check_invariants(const struct config *cfg)
{
	struct runstate *rs = runstate_new(cfg);

	if (!rs)
		return;	/* out of memory: nothing to check */
	if (cfg->queue_first > cfg->queue_last ||
	    cfg->queue_last - cfg->queue_first >= SRV6_MAX_QUEUES)
		__builtin_trap();
	for (unsigned i = 0; i < cfg->nsids; i++) {
		const struct sid *s = &cfg->sids[i];

		if (s->index != i || s->plen > 128 ||
		    lpm_get(cfg->sid_table, &s->prefix, s->plen) != s ||
		    lpm_lookup(cfg->sid_table, &s->prefix) != s)
			__builtin_trap();
		if ((s->behavior == BHV_END) != (rs->sids[i].mark == 0))
			__builtin_trap();
		if ((s->flavors & FLV_NEXT_CSID) &&
		    (s->lblen + s->nflen > s->plen || s->lblen % 8 || s->nflen % 8))
			__builtin_trap();
	}
	for (unsigned i = 0; i < cfg->npolicies; i++) {
		const struct policy *r = &cfg->policies[i];
		struct in6_addr k;
		unsigned plen = r->plen;

		if (r->index != i || r->sl.nsegs < 1 || r->sl.nsegs > SRV6_MAX_SEGS)
			__builtin_trap();
		if (r->family == AF_INET6) {
			k = r->prefix.v6;
			if (lpm_get(config_policy_table(cfg, r->table)->v6, &k,
				    plen) != r ||
			    lpm_lookup(cfg->sid_table, &k))
				__builtin_trap();
		} else {
			lpm_v4_key(&k, r->prefix.v4);
			plen += 96;
			if (lpm_get(config_policy_table(cfg, r->table)->v4, &k,
				    plen) != r)
				__builtin_trap();
		}
	}
	runstate_free(rs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = 0;
	struct config *cfg;

	cfg = config_parse_buffer("fuzz.conf", (const char *)data, size,
				  discard, &n);
	if (cfg) {
		check_invariants(cfg);
		config_free(cfg);
	}
	return 0;
}
