/*
 * helia-aot kernel library: DEPTHWISE_CONV_2D (see hk_depthwise.h).
 */
#include "hk_depthwise.h"

#include "hk_requant.h"
#include "hk_simd.h"
#include "hk_window.h"

static bool depthwise_params_ok(const hk_depthwise_params_t *p)
{
    return p != NULL && p->batches >= 0 && p->input_height >= 1 && p->input_width >= 1 &&
           p->input_channels >= 1 && p->depth_multiplier >= 1 && p->filter_height >= 1 &&
           p->filter_width >= 1 && p->output_height >= 0 && p->output_width >= 0 &&
           p->stride_height >= 1 && p->stride_width >= 1 && p->dilation_height >= 1 &&
           p->dilation_width >= 1;
}

static bool depthwise_quant_params_ok(const hk_depthwise_params_t *p)
{
    return depthwise_params_ok(p) && p->output_multiplier != NULL &&
           p->output_shift != NULL && p->act_min <= p->act_max;
}

/* One body for the integer kernels, which differ only in types and requantization. */
#define DEPTHWISE_QUANT_KERNEL(STORAGE, NAME, IN_T, BIAS_T, ACC_T, REQUANT, LO, HI)            \
    STORAGE int32_t NAME(const hk_depthwise_params_t *params, const IN_T *input, const int8_t *filter, \
                 const BIAS_T *bias, IN_T *output)                                             \
    {                                                                                          \
        if (!depthwise_quant_params_ok(params) || input == NULL || filter == NULL ||           \
            output == NULL) {                                                                  \
            return HK_STATUS_BAD_PARAM;                                                        \
        }                                                                                      \
        const hk_depthwise_params_t *p = params;                                               \
        const int32_t in_c = p->input_channels;                                                \
        const int32_t dm = p->depth_multiplier;                                                \
        const size_t out_c = (size_t)in_c * (size_t)dm;                                        \
        const int32_t in_offset = p->input_offset;                                             \
        const int32_t act_min = hk_max_i32(p->act_min, LO);                                    \
        const int32_t act_max = hk_min_i32(p->act_max, HI);                                    \
        IN_T *out = output;                                                                    \
        for (int32_t b = 0; b < p->batches; ++b) {                                             \
            const IN_T *image = input + (size_t)b * (size_t)p->input_height *                  \
                                            (size_t)p->input_width * (size_t)in_c;             \
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
                    for (int32_t ic = 0; ic < in_c; ++ic) {                                    \
                        for (int32_t m = 0; m < dm; ++m) {                                     \
                            const size_t oc = (size_t)ic * (size_t)dm + (size_t)m;             \
                            ACC_T acc = 0;                                                     \
                            for (int32_t fy = fy0; fy < fy1; ++fy) {                           \
                                const int32_t iy = iy0 + fy * p->dilation_height;              \
                                for (int32_t fx = fx0; fx < fx1; ++fx) {                       \
                                    const int32_t ix = ix0 + fx * p->dilation_width;           \
                                    const int32_t x =                                          \
                                        image[((size_t)iy * (size_t)p->input_width +           \
                                               (size_t)ix) * (size_t)in_c + (size_t)ic];       \
                                    const int32_t w =                                          \
                                        filter[((size_t)fy * (size_t)p->filter_width +         \
                                                (size_t)fx) * out_c + oc];                     \
                                    acc += (ACC_T)(w * (x + in_offset));                       \
                                }                                                              \
                            }                                                                  \
                            if (bias != NULL) {                                                \
                                acc += bias[oc];                                               \
                            }                                                                  \
                            int32_t value =                                                    \
                                REQUANT(acc, p->output_multiplier[oc], p->output_shift[oc]);   \
                            value += p->output_offset;                                         \
                            *out++ = (IN_T)hk_clamp_i32(value, act_min, act_max);              \
                        }                                                                      \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        return HK_STATUS_OK;                                                                   \
    }

/* The int8 fallback for what the fast paths do not cover (depth multipliers above 1). */
DEPTHWISE_QUANT_KERNEL(static, depthwise_s8_generic, int8_t, int32_t, int32_t, hk_requant, -128,
                       127)

/* Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int16 x int8, int64 bias). */
DEPTHWISE_QUANT_KERNEL(, hk_depthwise_s16, int16_t, int64_t, int64_t, hk_mbqm_64, -32768, 32767)

/* ---- int8, depth multiplier 1 ------------------------------------------------------------- */

/* One output pixel's window: its first input row and column, and the taps inside the image. */
typedef struct {
    int32_t iy0, ix0;
    int32_t fy0, fy1, fx0, fx1;
    bool left; /* some channel's requantization shifts left (hk_requant_any_left) */
} dw_window_t;

HK_INLINE bool dw_window_whole(const hk_depthwise_params_t *p, const dw_window_t *win)
{
    return win->fy0 == 0 && win->fy1 == p->filter_height && win->fx0 == 0 &&
           win->fx1 == p->filter_width;
}

/* Channel c of the window's first in-image tap of filter row fy, and the filter taps there. */
HK_INLINE const int8_t *dw_tap_input(const hk_depthwise_params_t *p, const int8_t *image,
                                     const dw_window_t *win, int32_t fy, int32_t c)
{
    const int32_t iy = win->iy0 + fy * p->dilation_height;
    const int32_t ix = win->ix0 + win->fx0 * p->dilation_width;
    return image + ((size_t)iy * (size_t)p->input_width + (size_t)ix) *
                       (size_t)p->input_channels + (size_t)c;
}

HK_INLINE const int8_t *dw_tap_filter(const hk_depthwise_params_t *p, const int8_t *filter,
                                      int32_t fy, int32_t fx, int32_t c)
{
    return filter + ((size_t)fy * (size_t)p->filter_width + (size_t)fx) *
                        (size_t)p->input_channels + (size_t)c;
}

HK_INLINE bool dw_tap_inside(const dw_window_t *win, int32_t fy, int32_t fx)
{
    return fy >= win->fy0 && fy < win->fy1 && fx >= win->fx0 && fx < win->fx1;
}

#if HK_SIMD_MVE

/* Where one pixel's in-image taps are: the first one's input and filter bytes (channel 0), how
 * many rows and columns, and the steps between them. */
typedef struct {
    const int8_t *x;
    const int8_t *w;
    int32_t rows, cols;
    size_t x_row, w_row; /* from one filter row to the next */
    int32_t x_col;       /* from one tap to the next in a row; the filter's is the channels */
} dw_taps_mve_t;

/* Sixteen channels' accumulators, as int32 lanes of even (e) and odd (o) channels. */
typedef struct {
    int32x4_t e0, o0, e1, o1;
} dw_acc16_mve_t;

/* Adds input * filter over the taps for channels c..c+15. With `offset` the input offset is
 * added to each input first (windows cut by the image edge, which start from the plain bias);
 * without it the offset is already in the bias (whole windows, offset_bias). */
HK_INLINE dw_acc16_mve_t dw_taps16_mve(const dw_taps_mve_t *t, int32_t channels, int32_t c,
                                      dw_acc16_mve_t a, bool offset, int16_t input_offset)
{
    const int8_t *xr = t->x + c, *wr = t->w + c;
    for (int32_t r = t->rows; r > 0; --r, xr += t->x_row, wr += t->w_row) {
        const int8_t *x = xr, *w = wr;
        for (int32_t n = t->cols; n > 0; --n) {
            /* The upper half first: GCC then addresses both halves from x and w as they are
             * instead of copying them for post-incremented loads. */
            int16x8_t xv = vldrbq_s16(x + 8), wv = vldrbq_s16(w + 8);
            if (offset) {
                xv = vaddq_n_s16(xv, input_offset);
            }
            a.e1 = vaddq_s32(a.e1, vmullbq_int_s16(xv, wv));
            a.o1 = vaddq_s32(a.o1, vmulltq_int_s16(xv, wv));
            /* Loading both halves first needs nine Q registers of the eight; keep the
             * scheduler from hoisting the second pair of loads. */
            HK_COMPILER_BARRIER();
            xv = vldrbq_s16(x);
            wv = vldrbq_s16(w);
            if (offset) {
                xv = vaddq_n_s16(xv, input_offset);
            }
            a.e0 = vaddq_s32(a.e0, vmullbq_int_s16(xv, wv));
            a.o0 = vaddq_s32(a.o0, vmulltq_int_s16(xv, wv));
            x += t->x_col;
            w += channels;
        }
    }
    return a;
}

/* Channels c..c+7, accumulated as even (0, 2, 4, 6) and odd lanes, requantized (every shift a
 * right shift: see dw_pixel_s8) and stored in channel order. Saturating to int16 before the output offset and the clamp gives the same
 * bytes as clamping the int32 results (both bounds lie well inside int16) at half the work. */
HK_INLINE void dw_store8_mve(const hk_depthwise_params_t *p, int32_t c, int32x4_t even,
                             int32x4_t odd, int16x8_t lo, int16x8_t hi, int8_t *out)
{
    const int32x4x2_t m = vld2q_s32(p->output_multiplier + c);
    const int32x4x2_t s = vld2q_s32(p->output_shift + c);
    even = hk_requant_right_mve(even, m.val[0], s.val[0]);
    odd = hk_requant_right_mve(odd, m.val[1], s.val[1]);
    /* Narrowing into `lo` overwrites every lane: it only saves materializing a vector. */
    int16x8_t y = vqmovntq_s32(vqmovnbq_s32(lo, even), odd);
    y = vqaddq_n_s16(y, (int16_t)p->output_offset);
    vstrbq_s16(out + c, vminq_s16(vmaxq_s16(y, lo), hi));
}

/* Channels c..c+3 (fewer where `keep` says) in int32 lanes, for the channels after the last
 * whole sixteen. */
HK_INLINE int32x4_t dw_taps4_mve(const dw_taps_mve_t *t, int32_t channels, int32_t c,
                                 int32x4_t acc, mve_pred16_t keep, int32_t input_offset)
{
    const int8_t *xr = t->x + c, *wr = t->w + c;
    for (int32_t r = t->rows; r > 0; --r, xr += t->x_row, wr += t->w_row) {
        const int8_t *x = xr, *w = wr;
        for (int32_t n = t->cols; n > 0; --n) {
            const int32x4_t xv = vaddq_n_s32(vldrbq_z_s32(x, keep), input_offset);
            acc = vaddq_s32(acc, vmulq_s32(xv, vldrbq_z_s32(w, keep)));
            x += t->x_col;
            w += channels;
        }
    }
    return acc;
}

/*
 * Every channel of one output pixel. Sixteen channels at a time are widened to int16 and
 * multiplied into int32 with VMULLB / VMULLT, which leave channels 0, 2, 4, 6 in one vector
 * and 1, 3, 5, 7 in another; VLD2 loads biases and multipliers in that order and VMOVNB /
 * VMOVNT put the results back in channel order. A whole window starts from offset_bias and
 * multiplies raw inputs; one cut by the image edge starts from the bias and adds the input
 * offset to each input, as the reference does. The last channels go four at a time, and so do
 * all of them when a requantization shift is a left shift (rare: a multiplier above one), which
 * keeps the sixteen-channel loop within the eight Q registers.
 */
HK_NOINLINE void dw_pixel_s8(const hk_depthwise_params_t *p, const int8_t *image,
                             const dw_window_t *win, const int8_t *filter, const int32_t *bias,
                             int8_t *out)
{
    const int32_t channels = p->input_channels;
    const int32_t lo = hk_max_i32(p->act_min, -128), hi = hk_min_i32(p->act_max, 127);
    const bool whole = dw_window_whole(p, win);
    dw_taps_mve_t t;
    t.rows = win->fy1 - win->fy0;
    t.cols = win->fx1 - win->fx0;
    t.x = t.rows > 0 && t.cols > 0 ? dw_tap_input(p, image, win, win->fy0, 0) : image;
    t.w = dw_tap_filter(p, filter, win->fy0, win->fx0, 0);
    t.x_row = (size_t)p->dilation_height * (size_t)p->input_width * (size_t)channels;
    t.w_row = (size_t)p->filter_width * (size_t)channels;
    t.x_col = p->dilation_width * channels;
    const int32_t *start = whole ? p->offset_bias : bias;
    int32_t c = 0;
    if (channels >= 16 && !win->left) {
        const int16x8_t lo16 = vdupq_n_s16((int16_t)lo), hi16 = vdupq_n_s16((int16_t)hi);
        const int16_t input_offset = (int16_t)p->input_offset;
        for (; c + 16 <= channels; c += 16) {
            dw_acc16_mve_t a;
            if (start != NULL) {
                const int32x4x2_t b0 = vld2q_s32(start + c);
                const int32x4x2_t b1 = vld2q_s32(start + c + 8);
                a.e0 = b0.val[0];
                a.o0 = b0.val[1];
                a.e1 = b1.val[0];
                a.o1 = b1.val[1];
            } else {
                a.e0 = a.o0 = a.e1 = a.o1 = vdupq_n_s32(0);
            }
            if (whole) {
                a = dw_taps16_mve(&t, channels, c, a, false, input_offset);
            } else {
                a = dw_taps16_mve(&t, channels, c, a, true, input_offset);
            }
            dw_store8_mve(p, c, a.e0, a.o0, lo16, hi16, out);
            dw_store8_mve(p, c + 8, a.e1, a.o1, lo16, hi16, out);
        }
    }
    for (; c < channels; c += 4) {
        const mve_pred16_t keep = vctp32q((uint32_t)(channels - c));
        int32x4_t acc = start != NULL ? vldrwq_z_s32(start + c, keep) : vdupq_n_s32(0);
        acc = dw_taps4_mve(&t, channels, c, acc, keep, whole ? 0 : p->input_offset);
        const int32x4_t y = hk_requant_clamp_mve(acc, vldrwq_z_s32(p->output_multiplier + c, keep),
                                                 vldrwq_z_s32(p->output_shift + c, keep),
                                                 p->output_offset, lo, hi);
        vstrbq_p_s32(out + c, y, keep);
    }
}

#elif HK_SIMD_DSP

/* Every channel of one output pixel, four at a time: SXTAB16 adds the input offset while it
 * widens two input bytes, SMLABB / SMLATT multiply-accumulate each int16 lane on its own. */
HK_NOINLINE void dw_pixel_s8(const hk_depthwise_params_t *p, const int8_t *image,
                             const dw_window_t *win, const int8_t *filter, const int32_t *bias,
                             int8_t *out)
{
    const int32_t channels = p->input_channels;
    const int32_t step = p->dilation_width * channels;
    const int32_t in_offset = p->input_offset;
    const int32_t offsets = hk_dup_s16x2(in_offset);
    const int32_t offset = p->output_offset;
    const int32_t lo = hk_max_i32(p->act_min, -128), hi = hk_min_i32(p->act_max, 127);
    int32_t c = 0;
    for (; c + 4 <= channels; c += 4) {
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        if (bias != NULL) {
            a0 = bias[c];
            a1 = bias[c + 1];
            a2 = bias[c + 2];
            a3 = bias[c + 3];
        }
        for (int32_t fy = win->fy0; fy < win->fy1; ++fy) {
            const int8_t *x = dw_tap_input(p, image, win, fy, c);
            const int8_t *w = dw_tap_filter(p, filter, fy, win->fx0, c);
            for (int32_t n = win->fx1 - win->fx0; n > 0; --n) {
                const uint32_t xb = hk_load_u32(x), wb = hk_load_u32(w);
                const int32_t x02 = hk_sxtab16_even(offsets, xb);
                const int32_t x13 = hk_sxtab16_odd(offsets, xb);
                const int32_t w02 = hk_sxtb16_even(wb), w13 = hk_sxtb16_odd(wb);
                a0 = __smlabb(x02, w02, a0);
                a2 = __smlatt(x02, w02, a2);
                a1 = __smlabb(x13, w13, a1);
                a3 = __smlatt(x13, w13, a3);
                x += step;
                w += channels;
            }
        }
        const int32_t *m = p->output_multiplier + c;
        const int32_t *s = p->output_shift + c;
        out[c] = (int8_t)hk_requant_clamp(a0, m[0], s[0], offset, lo, hi);
        out[c + 1] = (int8_t)hk_requant_clamp(a1, m[1], s[1], offset, lo, hi);
        out[c + 2] = (int8_t)hk_requant_clamp(a2, m[2], s[2], offset, lo, hi);
        out[c + 3] = (int8_t)hk_requant_clamp(a3, m[3], s[3], offset, lo, hi);
    }
    for (; c < channels; ++c) {
        int32_t acc = bias != NULL ? bias[c] : 0;
        for (int32_t fy = win->fy0; fy < win->fy1; ++fy) {
            const int8_t *x = dw_tap_input(p, image, win, fy, c);
            const int8_t *w = dw_tap_filter(p, filter, fy, win->fx0, c);
            for (int32_t n = 0; n < win->fx1 - win->fx0; ++n) {
                acc += (x[(size_t)n * (size_t)step] + in_offset) * w[(size_t)n * (size_t)channels];
            }
        }
        out[c] = (int8_t)hk_requant_clamp(acc, p->output_multiplier[c], p->output_shift[c],
                                          offset, lo, hi);
    }
}

#else

/* Every channel of one output pixel, four at a time so each tap's offsets are computed once:
 * start from offset_bias, add raw input * filter over the taps inside the image, then
 * zero_point * filter over those outside (offset_bias counted them; the reference skips them). */
HK_NOINLINE void dw_pixel_s8(const hk_depthwise_params_t *p, const int8_t *image,
                             const dw_window_t *win, const int8_t *filter, int8_t *out)
{
    const int32_t channels = p->input_channels;
    const size_t step = (size_t)p->dilation_width * (size_t)channels;
    const int32_t zero_point = -p->input_offset;
    const int32_t offset = p->output_offset;
    const int32_t lo = hk_max_i32(p->act_min, -128), hi = hk_min_i32(p->act_max, 127);
    const bool whole = dw_window_whole(p, win);
    const int32_t taps_x = win->fx1 - win->fx0;
    int32_t c = 0;
    for (; c < channels; c += 4) {
        const int32_t lanes = hk_min_i32(channels - c, 4);
        int32_t acc[4] = {0, 0, 0, 0};
        for (int32_t j = 0; j < lanes; ++j) {
            acc[j] = p->offset_bias[c + j];
        }
        for (int32_t fy = win->fy0; fy < win->fy1; ++fy) {
            const int8_t *x = dw_tap_input(p, image, win, fy, c);
            const int8_t *w = dw_tap_filter(p, filter, fy, win->fx0, c);
            for (int32_t n = 0; n < taps_x; ++n) {
                const int8_t *xn = x + (size_t)n * step;
                const int8_t *wn = w + (size_t)n * (size_t)channels;
                for (int32_t j = 0; j < lanes; ++j) {
                    acc[j] += xn[j] * wn[j];
                }
            }
        }
        if (!whole) {
            for (int32_t fy = 0; fy < p->filter_height; ++fy) {
                for (int32_t fx = 0; fx < p->filter_width; ++fx) {
                    if (!dw_tap_inside(win, fy, fx)) {
                        const int8_t *w = dw_tap_filter(p, filter, fy, fx, c);
                        for (int32_t j = 0; j < lanes; ++j) {
                            acc[j] += zero_point * w[j];
                        }
                    }
                }
            }
        }
        for (int32_t j = 0; j < lanes; ++j) {
            out[c + j] = (int8_t)hk_requant_clamp(acc[j], p->output_multiplier[c + j],
                                                  p->output_shift[c + j], offset, lo, hi);
        }
    }
}

#endif /* HK_SIMD_MVE / HK_SIMD_DSP */

/* Depth multiplier 1: output channel c reads input channel c only. */
static void dw_s8_fast(const hk_depthwise_params_t *p, const int8_t *input,
                       const int8_t *filter, const int32_t *bias, int8_t *output)
{
#if !HK_SIMD_MVE && !HK_SIMD_DSP
    (void)bias;
#endif
    const int32_t channels = p->input_channels;
    const size_t image_size =
        (size_t)p->input_height * (size_t)p->input_width * (size_t)channels;
    int8_t *out = output;
    dw_window_t win;
    win.left = hk_requant_any_left(p->output_shift, channels);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + (size_t)b * image_size;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            win.iy0 = oy * p->stride_height - p->pad_top;
            hk_window_taps(win.iy0, p->dilation_height, p->filter_height, p->input_height,
                           &win.fy0, &win.fy1);
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                win.ix0 = ox * p->stride_width - p->pad_left;
                hk_window_taps(win.ix0, p->dilation_width, p->filter_width, p->input_width,
                               &win.fx0, &win.fx1);
#if HK_SIMD_MVE || HK_SIMD_DSP
                dw_pixel_s8(p, image, &win, filter, bias, out);
#else
                dw_pixel_s8(p, image, &win, filter, out);
#endif
                out += channels;
            }
        }
    }
}

/* Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int8). */
int32_t hk_depthwise_s8(const hk_depthwise_params_t *params, const int8_t *input,
                        const int8_t *filter, const int32_t *bias, int8_t *output)
{
    if (!depthwise_quant_params_ok(params) || input == NULL || filter == NULL ||
        output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    /* Without offset_bias only the DSP path applies; it needs the offset to fit int16. */
    const bool folded = params->offset_bias != NULL || HK_SIMD_DSP;
    if (params->depth_multiplier == 1 && folded && params->input_offset >= -127 &&
        params->input_offset <= 128) {
        dw_s8_fast(params, input, filter, bias, output);
        return HK_STATUS_OK;
    }
    return depthwise_s8_generic(params, input, filter, bias, output);
}

/* Follows LiteRT reference_ops::DepthwiseConv (float): each sum runs over the taps in order. */
int32_t hk_depthwise_f32(const hk_depthwise_params_t *params, const float *input,
                         const float *filter, const float *bias, float *output)
{
    if (!depthwise_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_depthwise_params_t *p = params;
    const int32_t in_c = p->input_channels;
    const int32_t dm = p->depth_multiplier;
    const size_t out_c = (size_t)in_c * (size_t)dm;
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *image =
            input + (size_t)b * (size_t)p->input_height * (size_t)p->input_width * (size_t)in_c;
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
                for (int32_t ic = 0; ic < in_c; ++ic) {
                    for (int32_t m = 0; m < dm; ++m) {
                        const size_t oc = (size_t)ic * (size_t)dm + (size_t)m;
                        float total = 0.0f;
                        for (int32_t fy = fy0; fy < fy1; ++fy) {
                            const int32_t iy = iy0 + fy * p->dilation_height;
                            for (int32_t fx = fx0; fx < fx1; ++fx) {
                                const int32_t ix = ix0 + fx * p->dilation_width;
                                total += image[((size_t)iy * (size_t)p->input_width +
                                                (size_t)ix) * (size_t)in_c + (size_t)ic] *
                                         filter[((size_t)fy * (size_t)p->filter_width +
                                                 (size_t)fx) * out_c + oc];
                            }
                        }
                        /* Always adding the bias term (0 when absent) matches the reference's
                         * sign of zero. */
                        const float bias_value = bias != NULL ? bias[oc] : 0.0f;
                        *out++ = hk_clamp_f32(total + bias_value, p->act_min_f32,
                                              p->act_max_f32);
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}
