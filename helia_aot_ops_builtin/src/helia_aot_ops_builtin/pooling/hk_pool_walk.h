/*
 * helia-aot kernel library: the output walk of the quantized pools (internal to the pool family).
 *
 * POOL_QUANT_KERNEL defines one int8 or int16 kernel: it walks the output pixels and hands each
 * pixel's in-image window to a per-pixel routine. The plain-C routines below (the reference,
 * and the fast paths' leftover channels) are instantiated by hk_pool.c for cores without a fast
 * path; hk_pool_mve.c (Helium: 16 int8 / 8 int16 channels per instruction) and hk_pool_dsp.c
 * (the DSP extension: four int8 channels, SXTAB16 widening adds, SSUB8 + SEL byte maxima)
 * define the same kernels with their own routines, so each path keeps its whole walk, pixel
 * functions inlined, in one translation unit. Sums are exact on every path (16-bit lanes only
 * when the window is small enough not to overflow them) and the final rounding division is
 * pool_average everywhere, so all paths give identical outputs.
 */
#ifndef HK_POOL_WALK_H
#define HK_POOL_WALK_H

#include "hk_isa.h"
#include "hk_pool.h"
#include "hk_window.h"

/* Windows of at most this many taps sum int8 in 16-bit lanes: 256 * -128 = INT16_MIN. */
#define POOL_S16_SUM_TAPS 256

static bool pool_params_ok(const hk_pool_params_t *p)
{
    return p != NULL && p->batches >= 0 && p->input_height >= 1 && p->input_width >= 1 &&
           p->channels >= 0 && p->output_height >= 0 && p->output_width >= 0 &&
           p->filter_height >= 1 && p->filter_width >= 1 && p->stride_height >= 1 &&
           p->stride_width >= 1;
}

/* The in-image window of output pixel (oy, ox). */
typedef struct {
    int32_t y0, y1, x0, x1;
} pool_window_t;

static pool_window_t pool_window(const hk_pool_params_t *p, int32_t oy, int32_t ox)
{
    pool_window_t w;
    hk_window_taps(oy * p->stride_height - p->pad_top, 1, p->filter_height, p->input_height,
                   &w.y0, &w.y1);
    hk_window_taps(ox * p->stride_width - p->pad_left, 1, p->filter_width, p->input_width,
                   &w.x0, &w.x1);
    w.y0 += oy * p->stride_height - p->pad_top;
    w.y1 += oy * p->stride_height - p->pad_top;
    w.x0 += ox * p->stride_width - p->pad_left;
    w.x1 += ox * p->stride_width - p->pad_left;
    return w;
}

/* One output pixel's taps: `rows` x `cols` pixels from `first`, pixels `channels` apart and
 * rows `row_step` apart; `count` = rows * cols. */
typedef struct {
    int32_t rows;
    int32_t cols;
    int32_t channels;
    int32_t count;
    size_t row_step;
    int32_t act_min;
    int32_t act_max;
} pool_taps_t;

/* The integer average: the window sum over the tap count, rounding half away from zero as
 * (sum +- count / 2) / count with C's truncating division, then the activation clamp. */
HK_INLINE int32_t pool_average(int32_t sum, const pool_taps_t *t)
{
    const int32_t half = t->count / 2;
    const int32_t avg = sum > 0 ? (sum + half) / t->count : (sum - half) / t->count;
    return hk_clamp_i32(avg, t->act_min, t->act_max);
}

/* Channels [from, channels) of one pixel in plain C: the reference, and the fast paths'
 * leftover channels. */
#define POOL_GENERIC_PIXEL(AVG_NAME, MAX_NAME, T, LO)                                          \
    static inline void AVG_NAME(const T *first, const pool_taps_t *t, int32_t from, T *out)    \
    {                                                                                          \
        for (int32_t ch = from; ch < t->channels; ++ch) {                                      \
            int32_t sum = 0;                                                                   \
            const T *row = first + ch;                                                         \
            for (int32_t r = 0; r < t->rows; ++r, row += t->row_step) {                        \
                for (int32_t c = 0; c < t->cols; ++c) {                                        \
                    sum += row[(size_t)c * (size_t)t->channels];                               \
                }                                                                              \
            }                                                                                  \
            out[ch] = (T)pool_average(sum, t);                                                 \
        }                                                                                      \
    }                                                                                          \
                                                                                               \
    static inline void MAX_NAME(const T *first, const pool_taps_t *t, int32_t from, T *out)    \
    {                                                                                          \
        for (int32_t ch = from; ch < t->channels; ++ch) {                                      \
            int32_t best = LO;                                                                 \
            const T *row = first + ch;                                                         \
            for (int32_t r = 0; r < t->rows; ++r, row += t->row_step) {                        \
                for (int32_t c = 0; c < t->cols; ++c) {                                        \
                    best = hk_max_i32(best, row[(size_t)c * (size_t)t->channels]);             \
                }                                                                              \
            }                                                                                  \
            out[ch] = (T)hk_clamp_i32(best, t->act_min, t->act_max);                           \
        }                                                                                      \
    }

POOL_GENERIC_PIXEL(pool_avg_generic_s8, pool_max_generic_s8, int8_t, -128)
POOL_GENERIC_PIXEL(pool_avg_generic_s16, pool_max_generic_s16, int16_t, -32768)

/* The output pixels of the quantized kernels; each pixel's window goes to PIXEL, and an
 * average (AVERAGE nonzero) over an empty window fails like LiteRT's. */
#define POOL_QUANT_KERNEL(NAME, T, LO, HI, PIXEL, AVERAGE)                                     \
    int32_t NAME(const hk_pool_params_t *params, const T *input, T *output)                    \
    {                                                                                          \
        if (!pool_params_ok(params) || params->act_min > params->act_max || input == NULL ||   \
            output == NULL) {                                                                  \
            return HK_STATUS_BAD_PARAM;                                                        \
        }                                                                                      \
        const hk_pool_params_t *p = params;                                                    \
        const size_t c = (size_t)p->channels;                                                  \
        pool_taps_t t = {0, 0, p->channels, 0, (size_t)p->input_width * c,                     \
                         hk_max_i32(p->act_min, LO), hk_min_i32(p->act_max, HI)};              \
        T *out = output;                                                                       \
        for (int32_t b = 0; b < p->batches; ++b) {                                             \
            const T *image = input + (size_t)b * (size_t)p->input_height * t.row_step;         \
            for (int32_t oy = 0; oy < p->output_height; ++oy) {                                \
                for (int32_t ox = 0; ox < p->output_width; ++ox) {                             \
                    const pool_window_t w = pool_window(p, oy, ox);                            \
                    t.rows = w.y1 - w.y0;                                                      \
                    t.cols = w.x1 - w.x0;                                                      \
                    t.count = t.rows * t.cols;                                                 \
                    if ((AVERAGE) && t.count <= 0) {                                           \
                        return HK_STATUS_POOL_EMPTY_WINDOW;                                    \
                    }                                                                          \
                    PIXEL(image + (size_t)w.y0 * t.row_step + (size_t)w.x0 * c, &t, out);      \
                    out += c;                                                                  \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        return HK_STATUS_OK;                                                                   \
    }

#endif /* HK_POOL_WALK_H */
