/* resolve.h - the one resolver: from a parsed config, and the config in
 * force with its state, to the new config's running state (runstate.h).
 *
 * In order: which results may be a verdict's payload on this kernel
 * (reinject_resolve()), the ifindex of each SID's oif (0: no such link,
 * or down, which the SID waits for), the SIDs' marks (kept from the config in
 * force where their routing is the same: runstate_inherit_marks()), the marks
 * of what the kernel's seg6/seg6local do for srv6d (kencap_routes_assign())
 * and whether the kernel can do it (kencap_routes_resolve(), which probes
 * the kernel: tunsrc, sysctls, the reinjection device), or, when nothing
 * is to be installed, the decision in force (kencap_routes_keep()).  The
 * daemon then installs what the state asks for (rtrules.h,
 * kencap_routes.h) and publishes the pair (worker.h).  Nothing here or
 * later writes the config.
 */
#ifndef SRV6D_RESOLVE_H
#define SRV6D_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "kencap_routes.h"
#include "runstate.h"

/* cfg's state, against old (the config in force) and ors (its state);
 * both NULL at start; t: the kernel's tunsrc as srv6d holds it
 * (kencap_routes.h).  With reuse (a kernel routes rebuild), when cfg's
 * SIDs are old's with the same marks and routing, the kernel's objects
 * stay as they are: the state then takes ors's kernel decisions and
 * *same_sids is true (nothing to install); otherwise *same_sids is false
 * and the kernel is probed.  Each decision is logged at start and when it
 * changes.  Returns the state, or NULL with a message in err (out of
 * memory, or more marks than the range has). */
struct runstate *resolve_state(const struct config *cfg,
			       const struct config *old,
			       const struct runstate *ors, bool reuse,
			       struct kencap_tunsrc *t, bool *same_sids,
			       char *err, size_t errlen);

/* The ifindex of link `name` when it exists and is up, else 0 (*exists
 * says whether it exists): a SID's oif as resolve_state() resolves it
 * (struct sid_marks' oif_index). */
uint32_t resolve_link_index(const char *name, bool *exists);

#endif
