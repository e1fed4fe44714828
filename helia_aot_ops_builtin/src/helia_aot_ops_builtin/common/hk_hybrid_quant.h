/*
 * helia-aot kernel library: the per-row input quantization of hybrid kernels.
 *
 * A hybrid operator (float32 activations, int8 weights: what the TFLite converter writes with
 * dynamic-range quantization) quantizes each row of its float input to int8 at run time, sums
 * integer products with the weights, and scales the integer sum back to float. LiteRT's
 * reference does the row quantization in one of two ways, which these helpers follow value for
 * value (same float and double operations, same rounding, half away from zero):
 *  - symmetric: scale = max|x| / 127, q = round(x * (127 / max|x|)) in [-127, 127], offset 0;
 *  - asymmetric (the operator's asymmetric_quantize_inputs): the range [min(0, min x),
 *    max(0, max x)] maps onto [-128, 127], scale = range / 255 and the zero point nudged to an
 *    integer, all in float32 (what ai-edge-litert 2.3.0 computes: its results match float32
 *    arithmetic here, not the double arithmetic of older portable sources), then
 *    q = offset + round(x * (1 / scale)), clamped to [-128, 127]: the offset is added after
 *    the rounding, as ai-edge-litert 2.3.0's reference kernels do (measured on the ties
 *    x / scale = k + 0.5 of a BlazeFace hybrid model, tests/e2e/test_shipped_models.py).
 * An all-zero row (or a row whose range is empty) quantizes to zeros with scale 1, offset 0.
 */
#ifndef HK_HYBRID_QUANT_H
#define HK_HYBRID_QUANT_H

#include <math.h>

#include "hk_common.h"

/* The smallest and largest of n >= 1 values. */
HK_INLINE void hk_hybrid_minmax(const float *x, size_t n, float *lo, float *hi)
{
    float a = x[0];
    float b = x[0];
    for (size_t i = 1; i < n; ++i) {
        a = x[i] < a ? x[i] : a;
        b = x[i] > b ? x[i] : b;
    }
    *lo = a;
    *hi = b;
}

/* Quantizes n >= 1 values into q; returns the row's float scale and stores its offset (the
 * zero point the integer sums must remove, 0 when symmetric). */
HK_INLINE float hk_hybrid_quantize_row(const float *x, size_t n, int8_t *q, bool asymmetric,
                                       int32_t *offset)
{
    float lo;
    float hi;
    hk_hybrid_minmax(x, n, &lo, &hi);
    *offset = 0;
    if (!asymmetric) {
        const float range = fabsf(lo) > fabsf(hi) ? fabsf(lo) : fabsf(hi);
        if (range == 0.0f) {
            memset(q, 0, n);
            return 1.0f;
        }
        const float inverse = 127.0f / range;
        for (size_t i = 0; i < n; ++i) {
            const int32_t v = (int32_t)roundf(x[i] * inverse);
            q[i] = (int8_t)hk_clamp_i32(v, -127, 127);
        }
        return range / 127.0f;
    }
    const float rmin = lo < 0.0f ? lo : 0.0f;
    const float rmax = hi > 0.0f ? hi : 0.0f;
    if (rmin == rmax) {
        memset(q, 0, n);
        return 1.0f;
    }
    const float scale = (rmax - rmin) / 255.0f;
    const float from_min = -128.0f - rmin / scale;
    const float from_max = 127.0f - rmax / scale;
    const float error_min = 128.0f + fabsf(rmin / scale);
    const float error_max = 127.0f + fabsf(rmax / scale);
    const float zero_point = error_min < error_max ? from_min : from_max;
    int32_t nudged;
    if (zero_point <= -128.0f) {
        nudged = -128;
    } else if (zero_point >= 127.0f) {
        nudged = 127;
    } else {
        nudged = (int32_t)roundf(zero_point);
    }
    const float row_scale = scale;
    const float inverse = 1.0f / row_scale;
    for (size_t i = 0; i < n; ++i) {
        /* The zero point is added after rounding, not before: the two differ when x / scale
         * lies exactly halfway between two integers (-128 + 7.5 rounds to -121, -128 + 8 is
         * -120, and the reference gives -120). */
        const int32_t v = nudged + (int32_t)roundf(x[i] * inverse);
        q[i] = (int8_t)hk_clamp_i32(v, -128, 127);
    }
    *offset = nudged;
    return row_scale;
}

/* Whether all n values are zero (the reference then skips the products: output = bias). */
HK_INLINE bool hk_hybrid_all_zero(const float *x, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (x[i] != 0.0f) {
            return false;
        }
    }
    return true;
}

#endif /* HK_HYBRID_QUANT_H */
