/* pgs_wide_set8.h: the float layouts' three kernels computing in float on eight lanes, two
 * groups of a colour (WideGroup.pair) per 256-bit vector (a colour's odd last group goes
 * to the four-lane float kernel), included by pgs_wide.c with
 *   W8_ATTR   the target,  W8_PATH  the names' stem (_f, _fj, _fjb appended),
 *   W8_LONE   the four-lane float kernels' stem.
 * It leaves none of these defined. */
#define W8_CAT2(a, b) a##b
#define W8_CAT(a, b) W8_CAT2(a, b)
#define WK_V v8f
#define WK_I v8si
#define WK_N 8
#define WK_ATTR W8_ATTR
#define WK_E float
#ifdef W8_UF
#define WK_U float
#ifdef W8_GATHER
#define WK_GATHER(U, g, u) W8_GATHER(U, g, u)
#endif
#else
#define WK_DV v8d
#endif
#define WK_S float
#define WK_SV v8f
#define WK_GZ 1
#define WK_ANY(m) (_mm256_movemask_ps((__m256)(m)) != 0)
#define WK_LOAD_ROW2(p, q) \
  ((v8f)_mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), _mm_loadu_ps(q), 1))
#define WK_KIND WIDE_KIND_FULL
#define WK_NAME W8_CAT(W8_PATH, _f)
#define WK_LONE W8_CAT(W8_LONE, _f)
#include "pgs_wide_kernel.h"
#undef WK_NAME
#undef WK_LONE
#undef WK_KIND
#define WK_KIND WIDE_KIND_J
#define WK_NAME W8_CAT(W8_PATH, _fj)
#define WK_LONE W8_CAT(W8_LONE, _fj)
#include "pgs_wide_kernel.h"
#undef WK_NAME
#undef WK_LONE
#undef WK_KIND
#define WK_KIND WIDE_KIND_JB
#define WK_NAME W8_CAT(W8_PATH, _fjb)
#define WK_LONE W8_CAT(W8_LONE, _fjb)
#include "pgs_wide_kernel.h"
#undef WK_NAME
#undef WK_LONE
#undef WK_KIND
#undef WK_LOAD_ROW2
#undef WK_ANY
#undef WK_GZ
#undef WK_S
#undef WK_SV
#undef WK_E
#undef WK_DV
#undef WK_V
#undef WK_I
#undef WK_N
#undef WK_ATTR

#undef WK_U
#undef WK_GATHER
#undef W8_GATHER
#undef W8_UF
#undef W8_ATTR
#undef W8_PATH
#undef W8_LONE
#undef W8_CAT
#undef W8_CAT2
