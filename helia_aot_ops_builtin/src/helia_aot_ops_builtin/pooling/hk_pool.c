/*
 * helia-aot kernel library: AVERAGE_POOL_2D and MAX_POOL_2D (see hk_pool.h).
 *
 * The quantized kernels walk the output pixels and hand each pixel's in-image window to a
 * per-pixel routine that exists once per instruction set, chosen by hk_isa.h: Helium (MVE)
 * sums or compares 16 int8 / 8 int16 channels per instruction, the DSP extension four int8
 * channels (SXTAB16 widening adds, SSUB8 + SEL byte maxima), and plain C
 * is the reference the others equal. Sums are exact on every path (16-bit lanes only when the
 * window is small enough not to overflow them), and the final rounding division is the same
 * scalar code everywhere, so all paths give identical outputs.
 */
#include "hk_pool.h"

#include "hk_isa.h"
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

#if HK_HAVE_MVE

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

#elif HK_HAVE_DSP

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

#endif

#if !HK_HAVE_MVE && !HK_HAVE_DSP
static void pool_avg_pixel_s8(const int8_t *first, const pool_taps_t *t, int8_t *out)
{
    pool_avg_generic_s8(first, t, 0, out);
}

static void pool_max_pixel_s8(const int8_t *first, const pool_taps_t *t, int8_t *out)
{
    pool_max_generic_s8(first, t, 0, out);
}
#endif

#if !HK_HAVE_MVE
static void pool_avg_pixel_s16(const int16_t *first, const pool_taps_t *t, int16_t *out)
{
    pool_avg_generic_s16(first, t, 0, out);
}

static void pool_max_pixel_s16(const int16_t *first, const pool_taps_t *t, int16_t *out)
{
    pool_max_generic_s16(first, t, 0, out);
}
#endif

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

/* Follows LiteRT reference_integer_ops::AveragePool (int8). */
POOL_QUANT_KERNEL(hk_avg_pool_s8, int8_t, -128, 127, pool_avg_pixel_s8, 1)

/* Follows LiteRT reference_integer_ops::MaxPool (int8). */
POOL_QUANT_KERNEL(hk_max_pool_s8, int8_t, -128, 127, pool_max_pixel_s8, 0)

/* Follows LiteRT reference_integer_ops::AveragePool (int16). */
POOL_QUANT_KERNEL(hk_avg_pool_s16, int16_t, -32768, 32767, pool_avg_pixel_s16, 1)

/* Follows LiteRT reference_integer_ops::MaxPool (int16). */
POOL_QUANT_KERNEL(hk_max_pool_s16, int16_t, -32768, 32767, pool_max_pixel_s16, 0)

/* Follows LiteRT reference_ops::AveragePool (float): row-major window sum over the tap count. */
int32_t hk_avg_pool_f32(const hk_pool_params_t *params, const float *input, float *output)
{
    if (!pool_params_ok(params) || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_pool_params_t *p = params;
    const size_t c = (size_t)p->channels;
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *image =
            input + (size_t)b * (size_t)p->input_height * (size_t)p->input_width * c;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                const pool_window_t w = pool_window(p, oy, ox);
                const int32_t count = (w.y1 - w.y0) * (w.x1 - w.x0);
                if (count <= 0) {
                    return HK_STATUS_POOL_EMPTY_WINDOW;
                }
                for (size_t ch = 0; ch < c; ++ch) {
                    float total = 0.0f;
                    for (int32_t iy = w.y0; iy < w.y1; ++iy) {
                        for (int32_t ix = w.x0; ix < w.x1; ++ix) {
                            total += image[((size_t)iy * (size_t)p->input_width + (size_t)ix) *
                                               c + ch];
                        }
                    }
                    *out++ = hk_clamp_f32(total / (float)count, p->act_min_f32,
                                          p->act_max_f32);
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::MaxPool (float): starts from the lowest finite float. */
int32_t hk_max_pool_f32(const hk_pool_params_t *params, const float *input, float *output)
{
    if (!pool_params_ok(params) || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_pool_params_t *p = params;
    const size_t c = (size_t)p->channels;
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *image =
            input + (size_t)b * (size_t)p->input_height * (size_t)p->input_width * c;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                const pool_window_t w = pool_window(p, oy, ox);
                for (size_t ch = 0; ch < c; ++ch) {
                    float best = -3.40282347e+38f; /* std::numeric_limits<float>::lowest() */
                    for (int32_t iy = w.y0; iy < w.y1; ++iy) {
                        for (int32_t ix = w.x0; ix < w.x1; ++ix) {
                            const float v =
                                image[((size_t)iy * (size_t)p->input_width + (size_t)ix) * c +
                                      ch];
                            /* std::max(best, v) keeps best unless best < v. */
                            best = best < v ? v : best;
                        }
                    }
                    *out++ = hk_clamp_f32(best, p->act_min_f32, p->act_max_f32);
                }
            }
        }
    }
    return HK_STATUS_OK;
}
