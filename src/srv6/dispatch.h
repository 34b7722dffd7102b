/* dispatch.h - the function that runs each SID behavior on the packet
 * path.  The rest of a behavior's row (its name, what it decapsulates to,
 * how its result is routed, its attributes) is data, in the behavior
 * table below the packet path (behavior_table.h); the functions are here,
 * beside the behaviors they name, so that no layer below srv6 refers to a
 * symbol of it (tests/layers.sh checks the objects too).
 */
#ifndef SRV6D_DISPATCH_H
#define SRV6D_DISPATCH_H

#include "behavior_table.h"
#include "ctx.h"

/* Run the behavior of SID `sid` on p (behavior.h, behavior_b6.h). */
typedef void behavior_fn(struct proc_ctx *ctx, const struct sid *sid,
			 struct pkt *p);

/* The function that runs behavior b: End, End.X and End.T share
 * behavior_end(), the decapsulating ones behavior_decap().  NULL when b
 * is out of range. */
behavior_fn *dispatch_fn(enum behavior b);

#endif
