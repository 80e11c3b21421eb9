/* pgs_wide_set.h: one instruction set's four kernels of the coloured wide sweep (_d, _f,
 * _fj, _fjb: see pgs_wide.c), included by pgs_wide.c once per set with
 *   WK_V, WK_I, WK_N, WK_ATTR   as pgs_wide_kernel.h takes them,
 *   WS_DV, WS_FV                the vectors of WK_N doubles and of WK_N floats,
 *   WS_PATH                     the names' stem: wide_avx2 makes wide_avx2_d .. _fjb,
 *   WS_LOAD_ROW                 optional: the float kernels' WK_LOAD_ROW,
 *   WS_ARITH_F                  optional: the float layouts' three kernels alone, computing
 *                               in float (WK_V, WK_I then of floats and 32-bit integers,
 *                               WS_DV the doubles of u; pgs_wide_kernel.h's WK_E, WK_DV).
 * It leaves none of these, nor its own names, defined. */

#define WS_CAT2(a, b) a##b
#define WS_CAT(a, b) WS_CAT2(a, b)

#ifndef WS_ARITH_F
/* Doubles, z by index. */
#define WK_S double
#define WK_SV WS_DV
#define WK_GZ 0
#define WK_KIND WIDE_KIND_FULL
#define WK_NAME WS_CAT(WS_PATH, _d)
#include "pgs_wide_kernel.h"
#undef WK_S
#undef WK_SV
#undef WK_NAME
#undef WK_GZ
#else
#define WK_E float
#ifdef WS_UF
#define WK_U float
#else
#define WK_DV WS_DV
#endif
#define WK_KIND WIDE_KIND_FULL
#endif

/* Floats, z in the groups: rows full, J's compact, J's and B's compact. */
#define WK_S float
#define WK_SV WS_FV
#define WK_GZ 1
#ifdef WS_LOAD_ROW
#define WK_LOAD_ROW(p) WS_LOAD_ROW(p)
#endif
#define WK_NAME WS_CAT(WS_PATH, _f)
#include "pgs_wide_kernel.h"
#undef WK_NAME
#undef WK_KIND
#define WK_KIND WIDE_KIND_J
#define WK_NAME WS_CAT(WS_PATH, _fj)
#include "pgs_wide_kernel.h"
#undef WK_NAME
#undef WK_KIND
#define WK_KIND WIDE_KIND_JB
#define WK_NAME WS_CAT(WS_PATH, _fjb)
#include "pgs_wide_kernel.h"
#undef WK_NAME
#undef WK_KIND
#ifdef WS_LOAD_ROW
#undef WK_LOAD_ROW
#endif
#undef WK_GZ
#undef WK_S
#undef WK_SV
#ifdef WS_ARITH_F
#undef WK_E
#undef WK_DV
#undef WK_U
#undef WS_ARITH_F
#undef WS_UF
#endif

#undef WK_V
#undef WK_I
#undef WK_N
#undef WK_ATTR
#undef WS_DV
#undef WS_FV
#undef WS_PATH
#undef WS_LOAD_ROW
#undef WS_CAT
#undef WS_CAT2
