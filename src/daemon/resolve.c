/* resolve.c - the one resolver (resolve.h). */
#include <arpa/inet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kencap_routes.h"
#include "log.h"
#include "reinject.h"
#include "resolve.h"

/* Which results may go as a verdict's payload on this kernel
 * (reinject_resolve()); said, with the reason, at start (ors NULL) and
 * when a reload changes it.  Any rule runs `offload yes`: a super-packet
 * that may not go as a payload goes by the vnet socket (reinject.h). */
static void resolve_payload(struct runstate *rs, const struct config *cfg,
			    const struct config *old,
			    const struct runstate *ors)
{
	reinject_resolve(rs, cfg);
	if (ors && old && ors->payload == rs->payload &&
	    old->reinject == cfg->reinject)
		return;
	log_msg(LOG_INFO, "reinject %s: %s payloads (%s)%s",
		reinject_mode_name(cfg->reinject),
		reinject_payload_name(rs->payload), rs->payload_why,
		rs->payload == PAYLOAD_ANY ? "" :
		rs->payload == PAYLOAD_KEEP_CHAIN ?
		"; other results re-enter by srv6d's devices" :
		"; every result re-enters by srv6d's devices");
	if (cfg->reinject == REINJECT_MODE_VERDICT) {
		char why[128];

		if (reinject_running_kernel(why, sizeof(why)) != PAYLOAD_ANY)
			log_msg(LOG_WARNING, "reinject verdict: %s: such "
				"results will be lost (reinject auto avoids it)",
				why);
	}
}

uint32_t resolve_link_index(const char *name, bool *exists)
{
	struct ifreq ifr = { 0 };
	uint32_t index = 0;
	int fd;

	*exists = false;
	if (strlen(name) >= sizeof(ifr.ifr_name))
		return 0;
	memcpy(ifr.ifr_name, name, strlen(name));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		*exists = true;
		if ((ifr.ifr_flags & IFF_UP) && ioctl(fd, SIOCGIFINDEX, &ifr) == 0)
			index = (uint32_t)ifr.ifr_ifindex;
	}
	close(fd);
	return index;
}

/* The ifindex of every SID's oif now (struct sid_marks' oif_index), 0
 * while it is no link or down (the kernel takes no route by a device
 * that is down, and deletes those it had when it goes down).  Said once
 * (with reuse, a rebuild of the config in force, only when it was not
 * already so): the SID waits for it, and drops its packets as
 * nexthop_unreachable meanwhile. */
static void resolve_links(struct runstate *rs, const struct config *cfg,
			  const struct config *old,
			  const struct runstate *ors, bool reuse)
{
	for (unsigned i = 0; i < cfg->nsids; i++) {
		const struct sid *s = &cfg->sids[i];
		bool exists, said;

		if (s->iif[0] &&
		    !(rs->sids[i].iif_index = resolve_link_index(s->iif,
								 &exists)))
			log_msg(LOG_WARNING, "%s:%u: iif %s: %s now: the "
				"service's packets back are not taken until it "
				"is up", cfg->path, s->line, s->iif, exists ?
				"link down" : "no such link");
		if (!s->oif[0])
			continue;
		rs->sids[i].oif_index = resolve_link_index(s->oif, &exists);
		if (rs->sids[i].oif_index)
			continue;
		said = reuse && old && ors && i < old->nsids &&
		       i < ors->nsids && !strcmp(old->sids[i].oif, s->oif) &&
		       !ors->sids[i].oif_index;
		if (!said)
			log_msg(LOG_WARNING, "%s:%u: oif %s: %s now: the SID "
				"drops its packets until it is up", cfg->path,
				s->line, s->oif, exists ? "link down" :
				"no such link");
	}
}

/* old and cfg have the same SIDs, in the same order, with the same
 * marks and routing: the kernel's rules, routes and devices for them are
 * what they were (a policy needs none). */
static bool sids_unchanged(const struct config *old,
			   const struct runstate *ors,
			   const struct config *cfg,
			   const struct runstate *rs)
{
	if (old->nsids != cfg->nsids)
		return false;
	for (unsigned i = 0; i < cfg->nsids; i++) {
		const struct sid *a = &old->sids[i], *b = &cfg->sids[i];
		struct sid_marks ma = runstate_sid(ors, a);
		struct sid_marks mb = runstate_sid(rs, b);

		if (a->plen != b->plen ||
		    !IN6_ARE_ADDR_EQUAL(&a->prefix, &b->prefix) ||
		    a->behavior != b->behavior || a->flavors != b->flavors ||
		    a->lblen != b->lblen || a->nflen != b->nflen ||
		    !IN6_ARE_ADDR_EQUAL(&a->nh6, &b->nh6) ||
		    a->nh4.s_addr != b->nh4.s_addr || strcmp(a->oif, b->oif) ||
		    a->table != b->table || a->vrf != b->vrf ||
		    ma.mark != mb.mark || ma.route_table != mb.route_table ||
		    ma.oif_index != mb.oif_index ||
		    strcmp(a->iif, b->iif) || ma.iif_index != mb.iif_index)
			return false;
	}
	return true;
}

struct runstate *resolve_state(const struct config *cfg,
			       const struct config *old,
			       const struct runstate *ors, bool reuse,
			       struct kencap_tunsrc *t, bool *same_sids,
			       char *err, size_t errlen)
{
	struct runstate *rs = runstate_new(cfg);

	*same_sids = false;
	if (!rs) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* what may be a payload decides which devices the SIDs get */
	resolve_payload(rs, cfg, old, ors);
	resolve_links(rs, cfg, old, ors, reuse);
	if (runstate_inherit_marks(rs, cfg, ors, old, err, errlen) < 0)
		goto fail;
	if (kencap_routes_assign(rs, cfg, ors, old) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (reuse && old && ors && sids_unchanged(old, ors, cfg, rs)) {
		/* nothing is installed: what is in the kernel stays */
		kencap_routes_keep(rs, cfg, ors, old);
		*same_sids = true;
		return rs;
	}
	kencap_routes_resolve(rs, cfg, ors, t);
	return rs;
fail:
	runstate_free(rs);
	return NULL;
}
