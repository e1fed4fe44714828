/*
 * helia-aot kernel library: float16 AVERAGE_POOL_2D and MAX_POOL_2D pixels on Helium with MVE-F
 * (see hk_pool_f16.h).
 *
 * Sums and maxima stay in float16 lanes (VADD, VMAXNM), the average is the sum times the
 * reciprocal of the tap count, and the clamp is VMAXNM / VMINNM against the bounds as float16.
 */
#include "hk_pool_f16.h"

#if HK_HAVE_MVE_F16

HK_INLINE void pool_f16_pixel_mve(const hk_pool_f16_params_t *p, const hk_f16_t *first, int32_t rows,
                                  int32_t cols, hk_f16_t *out, bool average)
{
    const float16x8_t lo = vdupq_n_f16(hk_f16_bound(p->act_min_f32));
    const float16x8_t hi = vdupq_n_f16(hk_f16_bound(p->act_max_f32));
    const int32_t count = rows * cols;
    for (int32_t c = 0; c < p->channels; c += 8) {
        const mve_pred16_t pred = vctp16q((uint32_t)(p->channels - c));
        float16x8_t acc = vdupq_n_f16(average ? (hk_f16_t)0.0f : hk_f16_bound(-HUGE_VALF));
        for (int32_t y = 0; y < rows; ++y) {
            for (int32_t x = 0; x < cols; ++x) {
                const hk_f16_t *xi = first + (y * p->input_width + x) * p->channels + c;
                const float16x8_t v = vldrhq_z_f16((const float16_t *)xi, pred);
                acc = average ? vaddq_f16(acc, v) : vmaxnmq_f16(acc, v);
            }
        }
        if (average) {
            acc = vmulq_n_f16(acc, (hk_f16_t)(1.0f / (float)count));
        }
        vstrhq_p_f16((float16_t *)(out + c), vminnmq_f16(vmaxnmq_f16(acc, lo), hi), pred);
    }
}

void hk_avg_pool_f16_pixel_mve(const hk_pool_f16_params_t *p, const hk_f16_t *first, int32_t rows,
                               int32_t cols, hk_f16_t *out)
{
    pool_f16_pixel_mve(p, first, rows, cols, out, true);
}

void hk_max_pool_f16_pixel_mve(const hk_pool_f16_params_t *p, const hk_f16_t *first, int32_t rows,
                               int32_t cols, hk_f16_t *out)
{
    pool_f16_pixel_mve(p, first, rows, cols, out, false);
}

#endif /* HK_HAVE_MVE_F16 */
