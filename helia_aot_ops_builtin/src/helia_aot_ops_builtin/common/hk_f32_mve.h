/*
 * helia-aot kernel library: what the float32 Helium paths share (hk_conv_f32.h,
 * hk_depthwise_f32.h, hk_fully_connected_f32.h).
 *
 * Those paths run when the core has MVE floating point (HK_F32_MVE). Each vector lane holds one
 * output channel (or unit) and adds its products in exactly the reference's order (taps, then
 * input channels; a separate multiply and add, as the portable C compiles without contraction),
 * so every output is the portable kernel's float bit for bit: no reduction across lanes
 * reorders a sum. The weights of four output channels are read with one gather (a whole filter
 * between lanes), so the converter's OHWI and row-major layouts stay as they are.
 */
#ifndef HK_F32_MVE_H
#define HK_F32_MVE_H

#include "hk_common.h"
#include "hk_isa.h"

#if HK_HAVE_MVE && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#define HK_F32_MVE 1

/* hk_clamp_f32 on four lanes: x < lo ? lo : (x > hi ? hi : x), NaN passing through. */
HK_INLINE float32x4_t hk_f32_clamp(float32x4_t x, float32x4_t lo, float32x4_t hi)
{
    x = vpselq_f32(lo, x, vcmpltq_f32(x, lo));
    return vpselq_f32(hi, x, vcmpgtq_f32(x, hi));
}

/* The lanes' results: sum + bias (0.0f when absent, as the reference adds), clamped, stored. */
HK_INLINE void hk_f32_store(float *out, float32x4_t sum, const float *bias, mve_pred16_t p,
                         float32x4_t lo, float32x4_t hi)
{
    const float32x4_t b = bias != NULL ? vldrwq_z_f32(bias, p) : vdupq_n_f32(0.0f);
    vstrwq_p_f32(out, hk_f32_clamp(vaddq_f32(sum, b), lo, hi), p);
}

/* Predicate of the first n (clamped to [0, 4]) lanes. */
HK_INLINE mve_pred16_t hk_f32_lanes(int32_t n) { return vctp32q((uint32_t)(n < 0 ? 0 : n)); }

/* Eight outputs' sums over n inputs x[0..n): lane k of acc0 (acc1) reads its weight at
 * w[k * stride] (w[(4 + k) * stride]), the weights of one input `stride` floats apart. */
HK_INLINE void hk_f32_dot8(const float *x, const float *w, int32_t n, uint32x4_t offsets,
                        size_t stride, float32x4_t *acc0, float32x4_t *acc1, mve_pred16_t p0,
                        mve_pred16_t p1)
{
    float32x4_t a0 = *acc0, a1 = *acc1;
    const float *w1 = w + 4 * stride;
    for (int32_t i = 0; i < n; ++i) {
        const float xi = x[i];
        const float32x4_t g0 = vldrwq_gather_shifted_offset_z_f32(w + i, offsets, p0);
        const float32x4_t g1 = vldrwq_gather_shifted_offset_z_f32(w1 + i, offsets, p1);
        a0 = vaddq_f32(a0, vmulq_n_f32(g0, xi));
        a1 = vaddq_f32(a1, vmulq_n_f32(g1, xi));
    }
    *acc0 = a0;
    *acc1 = a1;
}

#else
#define HK_F32_MVE 0
#endif

#endif /* HK_F32_MVE_H */
