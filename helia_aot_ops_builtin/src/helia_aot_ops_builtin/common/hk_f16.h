/*
 * helia-aot kernel library: the float16 element type and its helpers.
 *
 * Float16 tensors are stored as IEEE 754 binary16 bit patterns; the module's API and arena see
 * them as uint16_t, and the float16 kernels take uint16_t pointers and read them as hk_f16_t
 * (_Float16, the C23 / TS 18661-3 type GCC offers as an extension on x86-64 and on Arm cores
 * with FP16 arithmetic, such as the Cortex-M55). A Cortex-M4 compiler has no _Float16, which is
 * why the converter refuses float16 operators on platforms without the FP16 capability.
 *
 * HK_HAVE_MVE_F16 is 1 where Helium has its floating-point half (MVE-F, __ARM_FEATURE_MVE bit
 * 2): the kernels then run eight float16 lanes per vector instruction (vfmaq_f16 and friends).
 */
#ifndef HK_F16_H
#define HK_F16_H

#include "hk_common.h"
#include "hk_isa.h"

#include <math.h>

__extension__ typedef _Float16 hk_f16_t;

#if HK_HAVE_MVE && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#define HK_HAVE_MVE_F16 1
#else
#define HK_HAVE_MVE_F16 0
#endif

/* Floats at or beyond this magnitude round to a float16 infinity (65504 + half an ulp). */
#define HK_F16_OVERFLOW 65520.0f

/* A float rounded to the nearest float16 (ties to even), as the hardware conversion does; values
 * past the float16 range become infinities explicitly, so the conversion never leaves the range
 * C defines it on. */
HK_INLINE hk_f16_t hk_f16_round(float x)
{
    if (x >= HK_F16_OVERFLOW) {
        return (hk_f16_t)HUGE_VALF;
    }
    if (x <= -HK_F16_OVERFLOW) {
        return (hk_f16_t)-HUGE_VALF;
    }
    return (hk_f16_t)x;
}

/* The fused activation clamp [lo, hi] applied in float, then rounded to float16. */
HK_INLINE hk_f16_t hk_f16_clamp(float x, float lo, float hi)
{
    return hk_f16_round(hk_clamp_f32(x, lo, hi));
}

/* A clamp bound as float16 (for vector clamps): +-FLT_MAX becomes +-infinity, so a clamp without
 * an activation leaves every float16, infinities included, unchanged. */
HK_INLINE hk_f16_t hk_f16_bound(float x)
{
    return hk_f16_round(x);
}

#endif /* HK_F16_H */
