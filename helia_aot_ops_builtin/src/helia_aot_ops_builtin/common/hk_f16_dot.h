/*
 * helia-aot kernel library: float16 dot products shared by the float16 CONV_2D and
 * FULLY_CONNECTED kernels.
 *
 * hk_f16_dot returns sum(a[i] * b[i]) over n elements as a float. The portable path multiplies
 * float16 operands exactly in float and accumulates in float. On Helium with MVE-F it keeps
 * eight float16 partial sums (vfmaq_f16, one rounding per fused multiply-add) and adds the eight
 * lanes in float at the end: each lane accumulates n / 8 products, which is where the float16
 * accumulation error bound (n + 1) * 2^-11 * sum|a[i] * b[i]| stated in docs/float16.md comes from.
 * That is the `fast` value of the `accumulation` knob; hk_f16_dot_precise (`precise`, the default)
 * accumulates in float on every core.
 */
#ifndef HK_F16_DOT_H
#define HK_F16_DOT_H

#include "hk_f16.h"

#if HK_HAVE_MVE_F16
/* The eight lanes of a float16 vector summed in float (stored, then widened one by one). */
HK_INLINE float hk_f16_lanes_sum(float16x8_t v)
{
    hk_f16_t lanes[8];
    vst1q_f16((float16_t *)lanes, v);
    return (((float)lanes[0] + (float)lanes[1]) + ((float)lanes[2] + (float)lanes[3])) +
           (((float)lanes[4] + (float)lanes[5]) + ((float)lanes[6] + (float)lanes[7]));
}

/* acc += a[0..n) * b[0..n), eight lanes at a time, the tail predicated to zero. */
HK_INLINE float16x8_t hk_f16_dot_acc(float16x8_t acc, const hk_f16_t *a, const hk_f16_t *b, int32_t n)
{
    while (n > 0) {
        const mve_pred16_t pred = vctp16q((uint32_t)n);
        const float16x8_t x = vldrhq_z_f16((const float16_t *)a, pred);
        const float16x8_t y = vldrhq_z_f16((const float16_t *)b, pred);
        acc = vfmaq_f16(acc, x, y);
        a += 8;
        b += 8;
        n -= 8;
    }
    return acc;
}
#endif

/* The float reference's inner product with float accumulation on every core (the `precise`
 * accumulation): each float16 product is exact in float and the sum rounds as a float sum, so
 * the result errs by about n * 2^-24 * sum|a[i] * b[i]|, far below one float16 rounding. On the
 * Cortex-M55 this is the scalar FPU (vcvtb.f32.f16 and vfma.f32 per element): Helium's widening
 * conversions would do four lanes at a time, but QEMU's MVE model faults on them, so they could
 * not be checked. */
HK_INLINE float hk_f16_dot_precise(const hk_f16_t *a, const hk_f16_t *b, int32_t n)
{
    /* Four running sums (four elements per iteration, fewer loop instructions), added at the end. */
    float acc0 = 0.0f;
    float acc1 = 0.0f;
    float acc2 = 0.0f;
    float acc3 = 0.0f;
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        acc0 += (float)a[i] * (float)b[i];
        acc1 += (float)a[i + 1] * (float)b[i + 1];
        acc2 += (float)a[i + 2] * (float)b[i + 2];
        acc3 += (float)a[i + 3] * (float)b[i + 3];
    }
    for (; i < n; ++i) {
        acc0 += (float)a[i] * (float)b[i];
    }
    return (acc0 + acc1) + (acc2 + acc3);
}

/* Follows the float reference's inner product: sum(a[i] * b[i]), in float16 lanes on Helium (the
 * `fast` accumulation) and in float elsewhere. */
HK_INLINE float hk_f16_dot(const hk_f16_t *a, const hk_f16_t *b, int32_t n)
{
#if HK_HAVE_MVE_F16
    return hk_f16_lanes_sum(hk_f16_dot_acc(vdupq_n_f16((hk_f16_t)0.0f), a, b, n));
#else
    float acc = 0.0f;
    for (int32_t i = 0; i < n; ++i) {
        acc += (float)a[i] * (float)b[i];
    }
    return acc;
#endif
}

#endif /* HK_F16_DOT_H */
