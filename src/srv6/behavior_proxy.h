/* behavior_proxy.h - the SR proxies of draft-ietf-spring-sr-service-
 * programming-10 section 6: End.AS (static, 6.1), End.AD (dynamic, 6.2)
 * and End.AM (masquerading, 6.4), for a service that knows nothing of
 * SRv6, reached by a next hop (nh6 or nh4) on `oif`, sending back on
 * `iif`.
 *
 * Toward the service (the SID's function, dispatch.c): End.AS and End.AD
 * remove the outer IPv6 header with its extension headers and send the
 * inner packet to the service as End.DX6 / End.DX4 do (the SID's mark:
 * its table's route via the next hop; an IPv4 one through the SID's
 * device); End.AD first decrements Segments Left, sets the DA to
 * SRH[SL] and keeps the headers in its cache.  End.AM sets the DA to
 * the last segment, SRH[0], and leaves the SRH (the service sees the
 * packet to its final destination), to nh6 by the mark.
 *
 * Back from the service (proxy_return(), before any SID lookup: the
 * packet came in on the iif of a proxy SID): End.AS pushes its
 * configured headers, End.AD the newest it learned, in the headroom,
 * after decrementing the inner hop limit / TTL (the proxy routes the
 * service's packet into the SR policy, as VPP does); End.AM decrements
 * Segments Left and puts SRH[SL] back as the DA.  The result is
 * unmarked: the main table routes it by its new DA, and a local SID
 * there runs next (sid_chain()).
 *
 * End.AD's cache: one slot per SID and worker (struct proxy_slot), which
 * only that worker writes, under a sequence number (odd while it
 * writes); the way back reads every worker's slot of the SID and takes
 * the newest, retrying once when a write went on meanwhile.  A worker
 * rewrites its slot only when the headers differ, or once a millisecond
 * with the same, so that a flow's packets do not keep the line moving.
 * The slots are the engine's generation's (worker.c): a reload starts
 * empty.
 */
#ifndef SRV6D_BEHAVIOR_PROXY_H
#define SRV6D_BEHAVIOR_PROXY_H

#include "ctx.h"

/* A worker's copy of the headers End.AD learned (PROXY_HDR_MAX,
 * config.h); ctx->proxy_slots[sid->proxy * ctx->proxy_nworkers +
 * ctx->worker] is the one it writes. */
struct proxy_slot {
	uint32_t seq;		/* odd while its worker writes */
	uint16_t len;		/* 0: nothing learned */
	uint64_t stamp;		/* ctx->now_ns of the write */
	uint8_t hdr[PROXY_HDR_MAX];
} __attribute__((aligned(64)));

/* A slot is rewritten with the same headers once this old. */
#define PROXY_RESTAMP_NS	1000000ull

/* The SID's function toward the service (dispatch.c): End.AS, End.AD,
 * End.AM as above.  Drops: DROP_BAD_SRH (End.AD, End.AM: no SRH or SL
 * 0, ICMPv6 Parameter Problem for SL 0), DROP_UPPER_LAYER (not the
 * SID's inner type: RFC 8986 4.1.1 as End.DX6 does), DROP_TRUNCATED /
 * DROP_BAD_IP (the inner packet), DROP_PROXY_CACHE_SIZE (End.AD:
 * headers longer than PROXY_HDR_MAX), and the next hop's
 * (behavior_unreachable()). */
void behavior_proxy(struct proc_ctx *ctx, const struct sid *sid,
		    struct pkt *p);

/* The proxy SID whose iif p came in on (ctx->rs's iif_index), of p's
 * family when an IPv4 and an IPv6 one share the iif (else the one there
 * is, which drops it), or NULL: none, or an IPv6 neighbor discovery
 * message (the kernel's). */
const struct sid *proxy_return_sid(const struct proc_ctx *ctx,
				   const struct pkt *p);

/* p came back from the service of proxy SID sid: re-encapsulate
 * (End.AS, End.AD) or restore the DA (End.AM) as above, counted in the
 * SID's counters.  Drops: DROP_PROXY_RETURN (not the SID's inner type;
 * End.AM: no SRH, SL 0 or a bad SRH), DROP_TRUNCATED / DROP_BAD_IP,
 * DROP_HOP_LIMIT (inner hop limit / TTL <= 1), DROP_PROXY_NO_CACHE
 * (End.AD before it learned), DROP_NO_HEADROOM, DROP_TOO_BIG (with
 * the route mirror: the result would not fit the route to its DA; a
 * Packet Too Big / Fragmentation Needed to p's source, from an address
 * of p's in-interface, that goes back into the service the way p came,
 * p->facts.icmp_to_service: reinject.h REINJECT_SERVICE). */
void proxy_return(struct proc_ctx *ctx, const struct sid *sid,
		  struct pkt *p);

#endif
