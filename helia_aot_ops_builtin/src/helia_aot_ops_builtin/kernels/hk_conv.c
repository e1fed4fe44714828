/*
 * helia-aot kernel library: CONV_2D (see hk_conv.h).
 */
#include "hk_conv.h"

#include "hk_requant.h"
#include "hk_simd.h"
#include "hk_window.h"

static bool conv_params_ok(const hk_conv_params_t *p)
{
    if (p == NULL || p->batches < 0 || p->input_height < 1 || p->input_width < 1 ||
        p->input_channels < 1 || p->filter_height < 1 || p->filter_width < 1 ||
        p->filter_input_channels < 1 || p->output_height < 0 || p->output_width < 0 ||
        p->output_channels < 1 || p->stride_height < 1 || p->stride_width < 1 ||
        p->dilation_height < 1 || p->dilation_width < 1) {
        return false;
    }
    if (p->input_channels % p->filter_input_channels != 0) {
        return false;
    }
    const int32_t groups = p->input_channels / p->filter_input_channels;
    return p->output_channels % groups == 0;
}

static bool conv_quant_params_ok(const hk_conv_params_t *p)
{
    return conv_params_ok(p) && p->output_multiplier != NULL && p->output_shift != NULL &&
           p->act_min <= p->act_max;
}

/*
 * The integer kernels differ only in element, bias and accumulator types and in the
 * requantization step, so one body serves all three. Integer sums are exact, so the loop order
 * is free; it keeps the reference's (taps, then input channels) anyway.
 */
#define CONV_QUANT_KERNEL(STORAGE, NAME, IN_T, BIAS_T, ACC_T, REQUANT, LO, HI)                 \
    STORAGE int32_t NAME(const hk_conv_params_t *params, const IN_T *input, const int8_t *filter,      \
                 const BIAS_T *bias, IN_T *output)                                             \
    {                                                                                          \
        if (!conv_quant_params_ok(params) || input == NULL || filter == NULL ||                \
            output == NULL) {                                                                  \
            return HK_STATUS_BAD_PARAM;                                                        \
        }                                                                                      \
        const hk_conv_params_t *p = params;                                                    \
        const int32_t fic = p->filter_input_channels;                                          \
        const int32_t per_group = p->output_channels / (p->input_channels / fic);              \
        const int32_t in_offset = p->input_offset;                                             \
        const int32_t act_min = hk_max_i32(p->act_min, LO);                                    \
        const int32_t act_max = hk_min_i32(p->act_max, HI);                                    \
        IN_T *out = output;                                                                    \
        for (int32_t b = 0; b < p->batches; ++b) {                                             \
            const IN_T *image = input + (size_t)b * (size_t)p->input_height *                  \
                                            (size_t)p->input_width * (size_t)p->input_channels;\
            for (int32_t oy = 0; oy < p->output_height; ++oy) {                                \
                const int32_t iy0 = oy * p->stride_height - p->pad_top;                        \
                int32_t fy0, fy1;                                                              \
                hk_window_taps(iy0, p->dilation_height, p->filter_height, p->input_height,     \
                               &fy0, &fy1);                                                    \
                for (int32_t ox = 0; ox < p->output_width; ++ox) {                             \
                    const int32_t ix0 = ox * p->stride_width - p->pad_left;                    \
                    int32_t fx0, fx1;                                                          \
                    hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width,    \
                                   &fx0, &fx1);                                                \
                    for (int32_t oc = 0; oc < p->output_channels; ++oc) {                      \
                        const int32_t channel0 = (oc / per_group) * fic;                       \
                        const int8_t *taps = filter + (size_t)oc * (size_t)p->filter_height *  \
                                                          (size_t)p->filter_width *            \
                                                          (size_t)fic;                         \
                        ACC_T acc = 0;                                                         \
                        for (int32_t fy = fy0; fy < fy1; ++fy) {                               \
                            const int32_t iy = iy0 + fy * p->dilation_height;                  \
                            for (int32_t fx = fx0; fx < fx1; ++fx) {                           \
                                const int32_t ix = ix0 + fx * p->dilation_width;               \
                                const IN_T *x = image + ((size_t)iy * (size_t)p->input_width + \
                                                         (size_t)ix) *                         \
                                                            (size_t)p->input_channels +        \
                                                channel0;                                      \
                                const int8_t *w =                                              \
                                    taps + ((size_t)fy * (size_t)p->filter_width +             \
                                            (size_t)fx) * (size_t)fic;                         \
                                for (int32_t ic = 0; ic < fic; ++ic) {                         \
                                    acc += (ACC_T)((int32_t)w[ic] *                            \
                                                   ((int32_t)x[ic] + in_offset));              \
                                }                                                              \
                            }                                                                  \
                        }                                                                      \
                        if (bias != NULL) {                                                    \
                            acc += bias[oc];                                                   \
                        }                                                                      \
                        int32_t value =                                                        \
                            REQUANT(acc, p->output_multiplier[oc], p->output_shift[oc]);       \
                        value += p->output_offset;                                             \
                        *out++ = (IN_T)hk_clamp_i32(value, act_min, act_max);                  \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        return HK_STATUS_OK;                                                                   \
    }

/* The int8 fallback for what the fast paths do not cover (grouped filters, no offset_bias). */
CONV_QUANT_KERNEL(static, conv_s8_generic, int8_t, int32_t, int32_t, hk_requant, -128, 127)

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int16 x int8, int64 bias). */
CONV_QUANT_KERNEL(, hk_conv_s16, int16_t, int64_t, int64_t, hk_mbqm_64, -32768, 32767)

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int16 x int8, int32 bias). */
CONV_QUANT_KERNEL(, hk_conv_s16_b32, int16_t, int32_t, int32_t, hk_requant, -32768, 32767)

/* ---- int8 fast paths ------------------------------------------------------------------------ */

/*
 * Scratch layout (every path sizes it the same; each uses what it needs):
 *   words   round16(4 * round4(taps))  two pixels' receptive fields widened to int16 (DSP)
 *   patch0  round16(taps)               a gathered receptive field
 *   patch1  round16(taps)               the second pixel's (DSP)
 *   acc0    4 * round4(channels)        a pixel's int32 accumulators, requantized as a row
 *   acc1    4 * round4(channels)        the second pixel's (DSP)
 */
typedef struct {
    uint8_t *words;
    int8_t *patch0, *patch1;
    int32_t *acc0, *acc1;
} conv_scratch_t;

static int32_t conv_round16(int32_t n) { return (n + 15) & ~15; }

static int32_t conv_scratch_layout(int32_t taps, int32_t channels, uint8_t *base,
                                   conv_scratch_t *layout)
{
    const int32_t words = conv_round16(4 * ((taps + 3) & ~3));
    const int32_t patch = conv_round16(taps);
    const int32_t acc = 4 * ((channels + 3) & ~3);
    if (layout != NULL) {
        layout->words = base;
        layout->patch0 = (int8_t *)(base + words);
        layout->patch1 = (int8_t *)(base + words + patch);
        layout->acc0 = (int32_t *)(void *)(base + words + 2 * patch);
        layout->acc1 = (int32_t *)(void *)(base + words + 2 * patch + acc);
    }
    return words + 2 * patch + 2 * acc;
}

int32_t hk_conv_s8_scratch_size(const hk_conv_params_t *params)
{
    if (params == NULL || params->filter_input_channels != params->input_channels) {
        return 0;
    }
    const int32_t taps = params->filter_height * params->filter_width * params->input_channels;
    return conv_scratch_layout(taps, params->output_channels, NULL, NULL);
}

/*
 * Gathers the receptive field of the output pixel whose window starts at (iy0, ix0) into
 * patch[filter_height * filter_width * channels], in the filter's (fy, fx, c) order. Taps
 * outside the image hold `fill`, the input zero point: with the offset folded into the bias,
 * each contributes filter * (zero_point + input_offset) = 0, as a skipped tap does.
 */
static void conv_gather_s8(const hk_conv_params_t *p, const int8_t *image, int32_t iy0,
                           int32_t ix0, int8_t fill, int8_t *patch)
{
    const int32_t channels = p->input_channels;
    const int32_t row = p->filter_width * channels;
    int32_t fx0, fx1;
    hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width, &fx0, &fx1);
#if HK_SIMD_MVE
    const int32_t first = fx0 * channels, end = fx1 * channels;
    if (p->dilation_width == 1 && first == 0 && end == row) {
        /* The window is inside the image left to right: whole rows are copied or filled. */
        for (int32_t fy = 0; fy < p->filter_height; ++fy, patch += row) {
            const int32_t iy = iy0 + fy * p->dilation_height;
            if (iy >= 0 && iy < p->input_height) {
                hk_copy_s8(patch, image + ((size_t)iy * (size_t)p->input_width + (size_t)ix0) *
                                              (size_t)channels,
                           row);
            } else {
                hk_fill_s8(patch, fill, row);
            }
        }
        return;
    }
    if (p->dilation_width == 1) {
        /* Each filter row is one run of the input row, taken 16 bytes at a time: lanes inside
         * the image are loaded (the others are not read at all) and the rest get the fill. */
        const int8x16_t fills = vdupq_n_s8(fill);
        for (int32_t fy = 0; fy < p->filter_height; ++fy, patch += row) {
            const int32_t iy = iy0 + fy * p->dilation_height;
            const bool inside = iy >= 0 && iy < p->input_height;
            /* Where the row's first tap would be; only lanes of in-image taps are read. */
            const uintptr_t run = (uintptr_t)image +
                                  (uintptr_t)(((intptr_t)iy * p->input_width + ix0) * channels);
            for (int32_t j = 0; j < row; j += 16) {
                const mve_pred16_t upto = vctp8q((uint32_t)hk_max_i32(end - j, 0));
                const mve_pred16_t before = vctp8q((uint32_t)hk_max_i32(first - j, 0));
                const mve_pred16_t in = inside ? (mve_pred16_t)(upto & ~before) : 0;
                const int8x16_t v = vldrbq_z_s8((const int8_t *)(run + (uintptr_t)j), in);
                vstrbq_p_s8(patch + j, vpselq_s8(v, fills, in), vctp8q((uint32_t)(row - j)));
            }
        }
        return;
    }
#endif
    for (int32_t fy = 0; fy < p->filter_height; ++fy, patch += row) {
        const int32_t iy = iy0 + fy * p->dilation_height;
        if (iy < 0 || iy >= p->input_height || fx0 >= fx1) {
            hk_fill_s8(patch, fill, row);
            continue;
        }
        const int8_t *line = image + (size_t)iy * (size_t)p->input_width * (size_t)channels;
        hk_fill_s8(patch, fill, fx0 * channels);
        if (p->dilation_width == 1) {
            hk_copy_s8(patch + fx0 * channels, line + (size_t)(ix0 + fx0) * (size_t)channels,
                       (fx1 - fx0) * channels);
        } else {
            for (int32_t fx = fx0; fx < fx1; ++fx) {
                hk_copy_s8(patch + fx * channels,
                           line + (size_t)(ix0 + fx * p->dilation_width) * (size_t)channels,
                           channels);
            }
        }
        hk_fill_s8(patch + fx1 * channels, fill, (p->filter_width - fx1) * channels);
    }
}

#if HK_SIMD_MVE

/* Up to 64 bytes of the receptive field, held in four vectors while every filter passes. */
typedef struct {
    int8x16_t v0, v1, v2, v3;
} conv_x64_t;

/* The dot product of the chunk's first `vectors` vectors with the filter row at w; the last
 * one is loaded under `last` (the bytes the chunk has), so nothing past the row is read. */
HK_INLINE int32_t conv_dot_chunk_mve(const conv_x64_t *x, const int8_t *w, int32_t vectors,
                                     bool partial, mve_pred16_t last)
{
#define CONV_W(k) ((partial && vectors == (k) + 1) ? vldrbq_z_s8(w + 16 * (k), last) \
                                                   : vldrbq_s8(w + 16 * (k)))
    int32_t a = vmladavq_s8(x->v0, CONV_W(0));
    if (vectors > 1) {
        a = vmladavaq_s8(a, x->v1, CONV_W(1));
    }
    if (vectors > 2) {
        a = vmladavaq_s8(a, x->v2, CONV_W(2));
    }
    if (vectors > 3) {
        a = vmladavaq_s8(a, x->v3, CONV_W(3));
    }
#undef CONV_W
    return a;
}

/*
 * Adds one chunk (x, `vectors` vectors, the last one `partial`ly filled) of every filter's dot
 * product to acc[round4(channels)]. Four filters at a time; the last group's missing filters
 * repeat its first row (nothing is read past the filter) and fill lanes nobody reads.
 */
HK_INLINE void conv_chunk_mve(const conv_x64_t *x, const int8_t *w, int32_t taps,
                              int32_t channels, int32_t vectors, bool partial,
                              mve_pred16_t last, int32_t *acc)
{
    int32_t o1 = taps, o2 = 2 * taps, o3 = 3 * taps;
    for (int32_t left = channels; left > 0; left -= 4) {
        if (left < 4) {
            o1 = left > 1 ? taps : 0;
            o2 = left > 2 ? 2 * taps : 0;
            o3 = 0;
        }
        /* The barriers keep GCC's scheduler from hoisting the next filter's loads over the
         * current one's, which would need more than the eight Q registers and spill. */
        const int32_t d0 = conv_dot_chunk_mve(x, w, vectors, partial, last);
        HK_COMPILER_BARRIER();
        const int32_t d1 = conv_dot_chunk_mve(x, w + o1, vectors, partial, last);
        HK_COMPILER_BARRIER();
        const int32_t d2 = conv_dot_chunk_mve(x, w + o2, vectors, partial, last);
        HK_COMPILER_BARRIER();
        const int32_t d3 = conv_dot_chunk_mve(x, w + o3, vectors, partial, last);
        HK_COMPILER_BARRIER();
        int32x4_t dots = vsetq_lane_s32(d1, vdupq_n_s32(d0), 1);
        dots = vsetq_lane_s32(d3, vsetq_lane_s32(d2, dots, 2), 3);
        vstrwq_s32(acc, vaddq_s32(vldrwq_s32(acc), dots));
        acc += 4;
        w += 4 * taps;
    }
}

/*
 * acc[c] = bias[c] + dot(x[0..taps), filter c) for every filter. x is taken 64 bytes at a time into
 * registers, so each filter row costs one load per 16 bytes and no reload of x; a last partial
 * chunk is loaded under predicates that zero the lanes past taps.
 */
HK_NOINLINE void conv_dots_s8(const int8_t *x, int32_t taps, const int8_t *filter,
                              int32_t channels, const int32_t *bias, int32_t *acc)
{
    for (int32_t c = 0; c < channels; c += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(channels - c));
        vstrwq_s32(acc + c, vldrwq_z_s32(bias + c, p));
    }
    conv_x64_t v;
    int32_t done = 0;
    for (; done + 64 <= taps; done += 64) {
        v.v0 = vldrbq_s8(x + done);
        v.v1 = vldrbq_s8(x + done + 16);
        v.v2 = vldrbq_s8(x + done + 32);
        v.v3 = vldrbq_s8(x + done + 48);
        conv_chunk_mve(&v, filter + done, taps, channels, 4, false, 0, acc);
    }
    const int32_t rest = taps - done;
    if (rest == 0) {
        return;
    }
    const int32_t vectors = (rest + 15) >> 4;
    const mve_pred16_t last = vctp8q((uint32_t)(rest - 16 * (vectors - 1)));
    const int8_t *xr = x + done;
    const int8_t *w = filter + done;
    v.v0 = vldrbq_z_s8(xr, vctp8q((uint32_t)rest));
    v.v1 = vldrbq_z_s8(xr + 16, vctp8q((uint32_t)hk_max_i32(rest - 16, 0)));
    v.v2 = vldrbq_z_s8(xr + 32, vctp8q((uint32_t)hk_max_i32(rest - 32, 0)));
    v.v3 = vldrbq_z_s8(xr + 48, vctp8q((uint32_t)hk_max_i32(rest - 48, 0)));
    /* One copy of the filter loop per vector count, so none tests it per filter. */
    switch (vectors) {
    case 1:
        conv_chunk_mve(&v, w, taps, channels, 1, true, last, acc);
        break;
    case 2:
        conv_chunk_mve(&v, w, taps, channels, 2, true, last, acc);
        break;
    case 3:
        conv_chunk_mve(&v, w, taps, channels, 3, true, last, acc);
        break;
    default:
        conv_chunk_mve(&v, w, taps, channels, 4, true, last, acc);
        break;
    }
}

#elif HK_SIMD_DSP

/* Two pixels' receptive fields x0, x1 [0..taps) widened for SMLAD (hk_widen_s8x4) and
 * interleaved per four taps: x0's (0, 2) and (1, 3) lanes, then x1's. The last taps % 4 stay
 * bytes in x0 and x1. */
static void conv_widen2_s8(const int8_t *x0, const int8_t *x1, int32_t taps, uint8_t *words)
{
    for (int32_t i = 0; i + 4 <= taps; i += 4, words += 16) {
        uint32_t pair[2];
        hk_widen_s8x4(hk_load_u32(x0 + i), pair);
        hk_store_u32(words, pair[0]);
        hk_store_u32(words + 4, pair[1]);
        hk_widen_s8x4(hk_load_u32(x1 + i), pair);
        hk_store_u32(words + 8, pair[0]);
        hk_store_u32(words + 12, pair[1]);
    }
}

/*
 * acc0[c] = bias[c] + dot(x0, filter c) and acc1[c] likewise for x1, two filters and two
 * pixels at a time: each filter word is widened once for both pixels and each pixel word
 * (widened once for all filters by conv_widen2_s8) serves both filters, so four SMLADs share
 * two loads of each.
 */
HK_NOINLINE void conv_dots2_s8(const int8_t *x0, const int8_t *x1, int32_t taps,
                               const int8_t *filter, int32_t channels, const int32_t *bias,
                               uint8_t *words, int32_t *acc0, int32_t *acc1)
{
    const int32_t whole = taps & ~3;
    conv_widen2_s8(x0, x1, taps, words);
    int32_t oc = 0;
    for (; oc < channels; oc += 2) {
        /* An odd last filter is computed twice and stored once. */
        const int8_t *w0 = filter + (size_t)oc * (size_t)taps;
        const int8_t *w1 = oc + 1 < channels ? w0 + taps : w0;
        const int32_t b0 = bias[oc], b1 = oc + 1 < channels ? bias[oc + 1] : b0;
        int32_t a00 = b0, a10 = b0, a01 = b1, a11 = b1;
        const uint8_t *xw = words;
        for (int32_t k = 0; k < whole; k += 4, xw += 16) {
            const int32_t p02 = (int32_t)hk_load_u32(xw), p13 = (int32_t)hk_load_u32(xw + 4);
            const int32_t q02 = (int32_t)hk_load_u32(xw + 8), q13 = (int32_t)hk_load_u32(xw + 12);
            uint32_t w = hk_load_u32(w0 + k);
            int32_t even = hk_sxtb16_even(w), odd = hk_sxtb16_odd(w);
            a00 = __smlad(even, p02, a00);
            a00 = __smlad(odd, p13, a00);
            a10 = __smlad(even, q02, a10);
            a10 = __smlad(odd, q13, a10);
            w = hk_load_u32(w1 + k);
            even = hk_sxtb16_even(w);
            odd = hk_sxtb16_odd(w);
            a01 = __smlad(even, p02, a01);
            a01 = __smlad(odd, p13, a01);
            a11 = __smlad(even, q02, a11);
            a11 = __smlad(odd, q13, a11);
        }
        for (int32_t k = whole; k < taps; ++k) {
            a00 += x0[k] * w0[k];
            a10 += x1[k] * w0[k];
            a01 += x0[k] * w1[k];
            a11 += x1[k] * w1[k];
        }
        acc0[oc] = a00;
        acc1[oc] = a10;
        if (oc + 1 < channels) {
            acc0[oc + 1] = a01;
            acc1[oc + 1] = a11;
        }
    }
}

#else /* portable: four filters per pass over x */

/* acc[c] = bias[c] + dot(x[0..taps), filter c) for every filter. */
HK_NOINLINE void conv_dots_s8(const int8_t *x, int32_t taps, const int8_t *filter,
                              int32_t channels, const int32_t *bias, int32_t *acc)
{
    int32_t oc = 0;
    for (; oc + 4 <= channels; oc += 4) {
        const int8_t *w0 = filter + (size_t)oc * (size_t)taps;
        const int8_t *w1 = w0 + taps;
        const int8_t *w2 = w1 + taps;
        const int8_t *w3 = w2 + taps;
        int32_t a0 = bias[oc], a1 = bias[oc + 1], a2 = bias[oc + 2], a3 = bias[oc + 3];
        for (int32_t k = 0; k < taps; ++k) {
            const int32_t v = x[k];
            a0 += v * w0[k];
            a1 += v * w1[k];
            a2 += v * w2[k];
            a3 += v * w3[k];
        }
        acc[oc] = a0;
        acc[oc + 1] = a1;
        acc[oc + 2] = a2;
        acc[oc + 3] = a3;
    }
    for (; oc < channels; ++oc) {
        const int8_t *w = filter + (size_t)oc * (size_t)taps;
        int32_t a = bias[oc];
        for (int32_t k = 0; k < taps; ++k) {
            a += x[k] * w[k];
        }
        acc[oc] = a;
    }
}

#endif /* HK_SIMD_MVE / HK_SIMD_DSP */

/* An output pixel of the fast path, walked in output order. */
typedef struct {
    int32_t b, oy, ox;
} conv_pixel_t;

/* The pixel's receptive field: the input pixel itself for a `direct` (unpadded 1x1) filter,
 * else gathered into `patch`. Then steps to the next pixel. */
static const int8_t *conv_source(const hk_conv_params_t *p, const int8_t *input, bool direct,
                                 conv_pixel_t *at, int8_t *patch)
{
    const int32_t iy0 = at->oy * p->stride_height - p->pad_top;
    const int32_t ix0 = at->ox * p->stride_width - p->pad_left;
    const int8_t *image = input + (size_t)at->b * (size_t)p->input_height *
                                      (size_t)p->input_width * (size_t)p->input_channels;
    const int8_t *x = patch;
    if (direct) {
        x = image + ((size_t)iy0 * (size_t)p->input_width + (size_t)ix0) *
                        (size_t)p->input_channels;
    } else {
        conv_gather_s8(p, image, iy0, ix0, (int8_t)(-p->input_offset), patch);
    }
    if (++at->ox == p->output_width) {
        at->ox = 0;
        if (++at->oy == p->output_height) {
            at->oy = 0;
            ++at->b;
        }
    }
    return x;
}

/*
 * Ungrouped int8 convolution with the input offset folded into offset_bias: per output pixel
 * (two at a time on the DSP path) the receptive field, its dot product with every filter, and
 * the row of accumulators requantized.
 */
static void conv_s8_fast(const hk_conv_params_t *p, const int8_t *input, const int8_t *filter,
                         int8_t *output)
{
    const int32_t taps = p->filter_height * p->filter_width * p->input_channels;
    const int32_t channels = p->output_channels;
    /* A 1x1 filter whose every window lies in the image reads its pixel in place. */
    const bool direct = p->filter_height == 1 && p->filter_width == 1 && p->pad_top == 0 &&
                        p->pad_left == 0 &&
                        (p->output_height - 1) * p->stride_height < p->input_height &&
                        (p->output_width - 1) * p->stride_width < p->input_width;
    conv_scratch_t s;
    conv_scratch_layout(taps, channels, (uint8_t *)p->scratch, &s);
    const int32_t lo = hk_max_i32(p->act_min, -128), hi = hk_min_i32(p->act_max, 127);
    const bool left = hk_requant_any_left(p->output_shift, channels);
    const int32_t pixels = p->batches * p->output_height * p->output_width;
    conv_pixel_t at = {0, 0, 0};
    int8_t *out = output;
    for (int32_t i = 0; i < pixels; ++i, out += channels) {
        const int8_t *x0 = conv_source(p, input, direct, &at, s.patch0);
#if HK_SIMD_DSP
        if (i + 1 < pixels) {
            const int8_t *x1 = conv_source(p, input, direct, &at, s.patch1);
            conv_dots2_s8(x0, x1, taps, filter, channels, p->offset_bias, s.words, s.acc0,
                          s.acc1);
            hk_requant_row_s8(s.acc0, p->output_multiplier, p->output_shift, channels,
                              p->output_offset, lo, hi, left, out);
            ++i;
            out += channels;
            hk_requant_row_s8(s.acc1, p->output_multiplier, p->output_shift, channels,
                              p->output_offset, lo, hi, left, out);
            continue;
        }
        conv_dots2_s8(x0, x0, taps, filter, channels, p->offset_bias, s.words, s.acc0, s.acc1);
#else
        conv_dots_s8(x0, taps, filter, channels, p->offset_bias, s.acc0);
#endif
        hk_requant_row_s8(s.acc0, p->output_multiplier, p->output_shift, channels,
                          p->output_offset, lo, hi, left, out);
    }
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8). */
int32_t hk_conv_s8(const hk_conv_params_t *params, const int8_t *input, const int8_t *filter,
                   const int32_t *bias, int8_t *output)
{
    if (!conv_quant_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t need = hk_conv_s8_scratch_size(params);
    /* The input offset must make the zero point representable: -input_offset in [-128, 127]. */
    if (params->offset_bias != NULL && need > 0 && params->scratch != NULL &&
        params->scratch_size >= need && params->input_offset >= -127 &&
        params->input_offset <= 128) {
        conv_s8_fast(params, input, filter, output);
        return HK_STATUS_OK;
    }
    return conv_s8_generic(params, input, filter, bias, output);
}

/* Follows LiteRT reference_ops::Conv (float): each sum runs over taps then channels, as there. */
int32_t hk_conv_f32(const hk_conv_params_t *params, const float *input, const float *filter,
                    const float *bias, float *output)
{
    if (!conv_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_conv_params_t *p = params;
    const int32_t fic = p->filter_input_channels;
    const int32_t per_group = p->output_channels / (p->input_channels / fic);
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *image = input + (size_t)b * (size_t)p->input_height *
                                         (size_t)p->input_width * (size_t)p->input_channels;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t iy0 = oy * p->stride_height - p->pad_top;
            int32_t fy0, fy1;
            hk_window_taps(iy0, p->dilation_height, p->filter_height, p->input_height, &fy0,
                           &fy1);
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                const int32_t ix0 = ox * p->stride_width - p->pad_left;
                int32_t fx0, fx1;
                hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width, &fx0,
                               &fx1);
                for (int32_t oc = 0; oc < p->output_channels; ++oc) {
                    const int32_t channel0 = (oc / per_group) * fic;
                    const float *taps = filter + (size_t)oc * (size_t)p->filter_height *
                                                     (size_t)p->filter_width * (size_t)fic;
                    float total = 0.0f;
                    for (int32_t fy = fy0; fy < fy1; ++fy) {
                        const int32_t iy = iy0 + fy * p->dilation_height;
                        for (int32_t fx = fx0; fx < fx1; ++fx) {
                            const int32_t ix = ix0 + fx * p->dilation_width;
                            const float *x =
                                image +
                                ((size_t)iy * (size_t)p->input_width + (size_t)ix) *
                                    (size_t)p->input_channels +
                                channel0;
                            const float *w =
                                taps + ((size_t)fy * (size_t)p->filter_width + (size_t)fx) *
                                           (size_t)fic;
                            for (int32_t ic = 0; ic < fic; ++ic) {
                                total += x[ic] * w[ic];
                            }
                        }
                    }
                    /* The reference always adds a bias term (0 when absent), which turns a
                     * -0.0f sum into +0.0f; adding 0.0f here keeps that. */
                    const float bias_value = bias != NULL ? bias[oc] : 0.0f;
                    *out++ = hk_clamp_f32(total + bias_value, p->act_min_f32, p->act_max_f32);
                }
            }
        }
    }
    return HK_STATUS_OK;
}
