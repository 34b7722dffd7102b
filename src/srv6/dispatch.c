/* dispatch.c - the function of every SID behavior (dispatch.h). */
#include <stddef.h>

#include "behavior.h"
#include "behavior_b6.h"
#include "behavior_proxy.h"
#include "dispatch.h"
#include "mobile.h"
#include "oam.h"

static behavior_fn *const dispatch_table[BHV__COUNT] = {
	[BHV_END] = behavior_end,		/* RFC 8986 4.1 */
	[BHV_END_X] = behavior_end,		/* 4.2 */
	[BHV_END_T] = behavior_end,		/* 4.3 */
	[BHV_END_DX6] = behavior_decap,		/* 4.4 */
	[BHV_END_DX4] = behavior_decap,		/* 4.5 */
	[BHV_END_DT6] = behavior_decap,		/* 4.6 */
	[BHV_END_DT4] = behavior_decap,		/* 4.7 */
	[BHV_END_DT46] = behavior_decap,	/* 4.8 */
	[BHV_END_DX2] = behavior_decap,		/* 4.9 */
	[BHV_END_B6] = behavior_end_b6,		/* Linux End.B6 (insertion) */
	[BHV_END_B6_ENCAPS] = behavior_end_b6_encaps,		/* 4.13 */
	[BHV_END_B6_ENCAPS_RED] = behavior_end_b6_encaps_red,	/* 4.14 */
	[BHV_END_M_GTP6_D] = behavior_end_m_gtp6_d,	/* RFC 9433 6.3 */
	[BHV_END_M_GTP6_DI] = behavior_end_m_gtp6_di,	/* RFC 9433 6.4 */
	[BHV_END_M_GTP6_E] = behavior_end_m_gtp6_e,	/* RFC 9433 6.5 */
	[BHV_END_M_GTP4_E] = behavior_end_m_gtp4_e,	/* RFC 9433 6.6 */
	/* draft-ietf-spring-sr-service-programming-10 6.1, 6.2, 6.4 */
	[BHV_END_AS] = behavior_proxy,
	[BHV_END_AS4] = behavior_proxy,
	[BHV_END_AD] = behavior_proxy,
	[BHV_END_AD4] = behavior_proxy,
	[BHV_END_AM] = behavior_proxy,
	[BHV_END_OP] = behavior_end_op,		/* RFC 9259 End.OP */
	[BHV_END_MAP] = behavior_end_map,	/* RFC 9433 6.2 */
};

behavior_fn *dispatch_fn(enum behavior b)
{
	if ((unsigned)b >= BHV__COUNT)
		return NULL;
	return dispatch_table[b];
}
