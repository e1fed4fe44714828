/*
 * helia-aot kernel library: AVERAGE_POOL_2D and MAX_POOL_2D, int8 and int16, on Helium (see
 * hk_pool.h; the walk and the plain-C reference are in hk_pool_walk.h).
 *
 * Each pixel's channels go 16 int8 / 8 int16 per instruction with tail predication: sums in
 * 16-bit lanes when the window cannot overflow them, else 32-bit lanes; maxima with VMAX, the
 * clamp and the store vector operations too.
 */
#include "hk_pool.h"

#include "hk_isa.h"

#if HK_HAVE_MVE

#include "hk_pool_walk.h"

/* Sums of up to 16 channels [c0, c0 + lanes) into sums[0..lanes): 16-bit lanes for windows
 * that cannot overflow them (one widening load per 8 channels), else 32-bit lanes (one per 4).
 * Predicated loads read nothing past the last channel. */
static void pool_sum16_s8(const int8_t *first, const pool_taps_t *t, int32_t lanes,
                          int32_t *sums)
{
    if (t->count <= POOL_S16_SUM_TAPS) {
        const mve_pred16_t p0 = vctp16q((uint32_t)lanes);
        const mve_pred16_t p1 = vctp16q((uint32_t)(lanes > 8 ? lanes - 8 : 0));
        int16x8_t s0 = vdupq_n_s16(0), s1 = vdupq_n_s16(0);
        const int8_t *row = first;
        if (lanes > 8) {
            for (int32_t r = 0; r < t->rows; ++r, row += t->row_step) {
                const int8_t *px = row;
                for (int32_t c = 0; c < t->cols; ++c, px += t->channels) {
                    s0 = vaddq_s16(s0, vldrbq_z_s16(px, p0));
                    s1 = vaddq_s16(s1, vldrbq_z_s16(px + 8, p1));
                }
            }
        } else {
            for (int32_t r = 0; r < t->rows; ++r, row += t->row_step) {
                const int8_t *px = row;
                for (int32_t c = 0; c < t->cols; ++c, px += t->channels) {
                    s0 = vaddq_s16(s0, vldrbq_z_s16(px, p0));
                }
            }
        }
        int16_t half[16];
        vst1q_s16(half, s0);
        vst1q_s16(half + 8, s1);
        for (int32_t j = 0; j < lanes; ++j) {
            sums[j] = half[j];
        }
        return;
    }
    for (int32_t k = 0; k < lanes; k += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(lanes - k));
        int32x4_t s = vdupq_n_s32(0);
        const int8_t *row = first + k;
        for (int32_t r = 0; r < t->rows; ++r, row += t->row_step) {
            const int8_t *px = row;
            for (int32_t c = 0; c < t->cols; ++c, px += t->channels) {
                s = vaddq_s32(s, vldrbq_z_s32(px, p));
            }
        }
        vst1q_s32(sums + k, s);
    }
}

static void pool_avg_pixel_s8(const int8_t *first, const pool_taps_t *t, int8_t *out)
{
    for (int32_t c0 = 0; c0 < t->channels; c0 += 16) {
        const int32_t lanes = hk_min_i32(t->channels - c0, 16);
        int32_t sums[16];
        pool_sum16_s8(first + c0, t, lanes, sums);
        for (int32_t j = 0; j < lanes; ++j) {
            out[c0 + j] = (int8_t)pool_average(sums[j], t);
        }
    }
}

/* 16 channels per step, VMAX from -128; the clamp and the store are vector operations too. */
static void pool_max_pixel_s8(const int8_t *first, const pool_taps_t *t, int8_t *out)
{
    const int8x16_t lo = vdupq_n_s8((int8_t)t->act_min), hi = vdupq_n_s8((int8_t)t->act_max);
    for (int32_t c0 = 0; c0 < t->channels; c0 += 16) {
        const mve_pred16_t lanes = vctp8q((uint32_t)(t->channels - c0));
        int8x16_t best = vdupq_n_s8(-128);
        const int8_t *row = first + c0;
        for (int32_t r = 0; r < t->rows; ++r, row += t->row_step) {
            const int8_t *px = row;
            for (int32_t c = 0; c < t->cols; ++c, px += t->channels) {
                best = vmaxq_s8(best, vldrbq_z_s8(px, lanes));
            }
        }
        vstrbq_p_s8(out + c0, vminq_s8(vmaxq_s8(best, lo), hi), lanes);
    }
}

/* int16: eight channels per step, summed in 32-bit lanes. */
static void pool_avg_pixel_s16(const int16_t *first, const pool_taps_t *t, int16_t *out)
{
    for (int32_t c0 = 0; c0 < t->channels; c0 += 8) {
        const uint32_t n = (uint32_t)(t->channels - c0);
        const mve_pred16_t p0 = vctp32q(n), p1 = vctp32q(n > 4u ? n - 4u : 0u);
        int32x4_t s0 = vdupq_n_s32(0), s1 = vdupq_n_s32(0);
        const int16_t *row = first + c0;
        for (int32_t r = 0; r < t->rows; ++r, row += t->row_step) {
            const int16_t *px = row;
            for (int32_t c = 0; c < t->cols; ++c, px += t->channels) {
                s0 = vaddq_s32(s0, vldrhq_z_s32(px, p0));
                s1 = vaddq_s32(s1, vldrhq_z_s32(px + 4, p1));
            }
        }
        int32_t sums[8];
        vst1q_s32(sums, s0);
        vst1q_s32(sums + 4, s1);
        const int32_t lanes = n < 8u ? (int32_t)n : 8;
        for (int32_t j = 0; j < lanes; ++j) {
            out[c0 + j] = (int16_t)pool_average(sums[j], t);
        }
    }
}

static void pool_max_pixel_s16(const int16_t *first, const pool_taps_t *t, int16_t *out)
{
    const int16x8_t lo = vdupq_n_s16((int16_t)t->act_min), hi = vdupq_n_s16((int16_t)t->act_max);
    for (int32_t c0 = 0; c0 < t->channels; c0 += 8) {
        const mve_pred16_t lanes = vctp16q((uint32_t)(t->channels - c0));
        int16x8_t best = vdupq_n_s16(-32768);
        const int16_t *row = first + c0;
        for (int32_t r = 0; r < t->rows; ++r, row += t->row_step) {
            const int16_t *px = row;
            for (int32_t c = 0; c < t->cols; ++c, px += t->channels) {
                best = vmaxq_s16(best, vldrhq_z_s16(px, lanes));
            }
        }
        vstrhq_p_s16(out + c0, vminq_s16(vmaxq_s16(best, lo), hi), lanes);
    }
}

/* Follows LiteRT reference_integer_ops::AveragePool (int8). */
POOL_QUANT_KERNEL(hk_avg_pool_s8, int8_t, -128, 127, pool_avg_pixel_s8, 1)

/* Follows LiteRT reference_integer_ops::MaxPool (int8). */
POOL_QUANT_KERNEL(hk_max_pool_s8, int8_t, -128, 127, pool_max_pixel_s8, 0)

/* Follows LiteRT reference_integer_ops::AveragePool (int16). */
POOL_QUANT_KERNEL(hk_avg_pool_s16, int16_t, -32768, 32767, pool_avg_pixel_s16, 1)

/* Follows LiteRT reference_integer_ops::MaxPool (int16). */
POOL_QUANT_KERNEL(hk_max_pool_s16, int16_t, -32768, 32767, pool_max_pixel_s16, 0)

#endif /* HK_HAVE_MVE */
