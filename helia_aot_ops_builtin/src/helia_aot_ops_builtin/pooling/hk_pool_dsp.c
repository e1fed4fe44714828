/*
 * helia-aot kernel library: AVERAGE_POOL_2D and MAX_POOL_2D, int8 on the DSP extension (see
 * hk_pool.h; the walk and the plain-C reference are in hk_pool_walk.h).
 *
 * Four int8 channels per step: SXTAB16 widening adds into two int16x2 sums for averages, SSUB8 +
 * SEL byte maxima; the leftover channels, larger windows and int16 take the plain-C routines
 * (defined here too, so the DSP cores' quantized kernels all come from this one file).
 */
#include "hk_pool.h"

#include "hk_isa.h"

#if HK_HAVE_DSP

#include "hk_pool_walk.h"

HK_INLINE uint32_t pool_load4(const int8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v); /* one LDR: these cores allow unaligned word loads */
    return v;
}

/* acc + bytes 1 and 3 of v as int16 lanes: SXTAB16's built-in rotation, which GCC does not
 * form from a shift. */
HK_INLINE int32_t pool_sxtab16_odd(int32_t acc, uint32_t v)
{
#if defined(__GNUC__)
    int32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(acc), "r"(v));
    return r;
#else
    return __sxtab16(acc, (int32_t)(v >> 8));
#endif
}

/* Four channels per step in two int16x2 sums (even and odd bytes), for windows small enough
 * not to overflow them; other channels and larger windows take the plain loop. */
static void pool_avg_pixel_s8(const int8_t *first, const pool_taps_t *t, int8_t *out)
{
    int32_t c0 = 0;
    if (t->count <= POOL_S16_SUM_TAPS) {
        for (; c0 + 4 <= t->channels; c0 += 4) {
            int32_t even = 0, odd = 0;
            const int8_t *row = first + c0;
            for (int32_t r = 0; r < t->rows; ++r, row += t->row_step) {
                const int8_t *px = row;
                for (int32_t c = 0; c < t->cols; ++c, px += t->channels) {
                    const uint32_t v = pool_load4(px);
                    even = __sxtab16(even, (int32_t)v);
                    odd = pool_sxtab16_odd(odd, v);
                }
            }
            out[c0] = (int8_t)pool_average((int16_t)even, t);
            out[c0 + 1] = (int8_t)pool_average((int16_t)odd, t);
            out[c0 + 2] = (int8_t)pool_average((int16_t)((uint32_t)even >> 16), t);
            out[c0 + 3] = (int8_t)pool_average((int16_t)((uint32_t)odd >> 16), t);
        }
    }
    pool_avg_generic_s8(first, t, c0, out);
}

/* Four channels per step: SSUB8 sets a GE flag per byte where the tap is not below the best
 * so far and SEL keeps those bytes; the clamp is two more SSUB8/SEL pairs. */
static void pool_max_pixel_s8(const int8_t *first, const pool_taps_t *t, int8_t *out)
{
    const uint32_t lo = (uint32_t)(uint8_t)t->act_min * 0x01010101u;
    const uint32_t hi = (uint32_t)(uint8_t)t->act_max * 0x01010101u;
    int32_t c0 = 0;
    for (; c0 + 4 <= t->channels; c0 += 4) {
        int32_t best = (int32_t)0x80808080u;
        const int8_t *row = first + c0;
        for (int32_t r = 0; r < t->rows; ++r, row += t->row_step) {
            const int8_t *px = row;
            for (int32_t c = 0; c < t->cols; ++c, px += t->channels) {
                const int32_t v = (int32_t)pool_load4(px);
                (void)__ssub8(v, best);
                best = __sel(v, best);
            }
        }
        (void)__ssub8(best, (int32_t)lo);
        best = __sel(best, (int32_t)lo);
        (void)__ssub8((int32_t)hi, best);
        best = __sel(best, (int32_t)hi);
        memcpy(out + c0, &best, sizeof best);
    }
    pool_max_generic_s8(first, t, c0, out);
}

static void pool_avg_pixel_s16(const int16_t *first, const pool_taps_t *t, int16_t *out)
{
    pool_avg_generic_s16(first, t, 0, out);
}

static void pool_max_pixel_s16(const int16_t *first, const pool_taps_t *t, int16_t *out)
{
    pool_max_generic_s16(first, t, 0, out);
}

/* Follows LiteRT reference_integer_ops::AveragePool (int8). */
POOL_QUANT_KERNEL(hk_avg_pool_s8, int8_t, -128, 127, pool_avg_pixel_s8, 1)

/* Follows LiteRT reference_integer_ops::MaxPool (int8). */
POOL_QUANT_KERNEL(hk_max_pool_s8, int8_t, -128, 127, pool_max_pixel_s8, 0)

/* Follows LiteRT reference_integer_ops::AveragePool (int16). */
POOL_QUANT_KERNEL(hk_avg_pool_s16, int16_t, -32768, 32767, pool_avg_pixel_s16, 1)

/* Follows LiteRT reference_integer_ops::MaxPool (int16). */
POOL_QUANT_KERNEL(hk_max_pool_s16, int16_t, -32768, 32767, pool_max_pixel_s16, 0)

#endif /* HK_HAVE_DSP */
