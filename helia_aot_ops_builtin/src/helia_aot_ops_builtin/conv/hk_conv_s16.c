/*
 * helia-aot kernel library: int16x8 CONV_2D on Helium and the DSP extension (see
 * hk_conv_s16.h).
 *
 * Follows LiteRT reference_integer_ops::ConvPerChannel (int16 x int8): per output, the sum of
 * input times weight over the in-image taps, plus the bias, requantized per channel and clamped.
 * The input offset of int16 is zero, so raw inputs are multiplied. A row of in-image taps is one
 * contiguous run of input and of filter when the filter is not grouped and not dilated across
 * the row, so the dot products run over whole rows; otherwise over each tap's channels.
 */
#include "hk_conv_s16.h"

#if HK_CONV_S16_FAST

#include "hk_dot_s16.h"
#include "hk_requant.h"
#include "hk_simd.h"
#include "hk_window.h"

/* One output pixel's in-image taps: rows [fy0, fy1), columns [fx0, fx1) of the window at
 * (iy0, ix0), and the length of one contiguous run (a row, or one tap's channels). */
typedef struct {
    int32_t iy0, ix0, fy0, fy1, fx0, fx1;
} s16_window_t;

/* `count` (1 or 4) channels' sums from `oc` on, over the window's taps. */
HK_INLINE void s16_channels(const hk_conv_params_t *p, const int16_t *image, const int8_t *filter,
                            const s16_window_t *win, int32_t oc, int32_t count, bool wide64,
                            int64_t *acc)
{
    int32_t acc32[4] = {0, 0, 0, 0};
    const int32_t fic = p->filter_input_channels;
    const int32_t per_group = p->output_channels / (p->input_channels / fic);
    const size_t taps = (size_t)p->filter_height * (size_t)p->filter_width * (size_t)fic;
    const int32_t channel0 = (oc / per_group) * fic;
    const int8_t *w0 = filter + (size_t)oc * taps;
    /* Whole rows are contiguous in input and filter when neither groups nor dilation split them. */
    const bool rows = fic == p->input_channels && p->dilation_width == 1;
    const int32_t run = rows ? (win->fx1 - win->fx0) * fic : fic;
    const int32_t cols = rows ? (win->fx0 < win->fx1 ? 1 : 0) : win->fx1 - win->fx0;
    for (int32_t fy = win->fy0; fy < win->fy1; ++fy) {
        const int32_t iy = win->iy0 + fy * p->dilation_height;
        for (int32_t c = 0; c < cols; ++c) {
            const int32_t fx = win->fx0 + c;
            const int32_t ix = win->ix0 + fx * p->dilation_width;
            const int16_t *x = image +
                               ((size_t)iy * (size_t)p->input_width + (size_t)ix) *
                                   (size_t)p->input_channels +
                               (size_t)channel0;
            const int8_t *w =
                w0 + ((size_t)fy * (size_t)p->filter_width + (size_t)fx) * (size_t)fic;
            if (count == 4) {
                if (wide64) {
                    hk_dot4_s16_64(x, w, taps, run, acc);
                } else {
                    hk_dot4_s16_32(x, w, taps, run, acc32);
                }
            } else if (wide64) {
                acc[0] = hk_dot1_s16_64(x, w, run, acc[0]);
            } else {
                acc32[0] = hk_dot1_s16_32(x, w, run, acc32[0]);
            }
        }
    }
    if (!wide64) {
        for (int32_t k = 0; k < count; ++k) {
            acc[k] = acc32[k];
        }
    }
}

HK_INLINE int16_t s16_output(const hk_conv_params_t *p, const void *bias, int32_t oc, int64_t acc,
                             bool wide64, int32_t lo, int32_t hi)
{
    int32_t value;
    if (wide64) {
        if (bias != NULL) {
            acc += ((const int64_t *)bias)[oc];
        }
        value = hk_mbqm_64(acc, p->output_multiplier[oc], p->output_shift[oc]);
    } else {
        int32_t acc32 = (int32_t)acc;
        if (bias != NULL) {
            acc32 = (int32_t)((uint32_t)acc32 + (uint32_t)((const int32_t *)bias)[oc]);
        }
        value = hk_requant(acc32, p->output_multiplier[oc], p->output_shift[oc]);
    }
    return (int16_t)hk_clamp_i32(value + p->output_offset, lo, hi);
}

HK_INLINE void conv_s16_fast(const hk_conv_params_t *p, const int16_t *input, const int8_t *filter,
                            const void *bias, int16_t *output, bool wide64)
{
    const int32_t fic = p->filter_input_channels;
    const int32_t per_group = p->output_channels / (p->input_channels / fic);
    const int32_t lo = hk_max_i32(p->act_min, -32768);
    const int32_t hi = hk_min_i32(p->act_max, 32767);
    int16_t *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *image = input + (size_t)b * (size_t)p->input_height *
                                           (size_t)p->input_width * (size_t)p->input_channels;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            s16_window_t win;
            win.iy0 = oy * p->stride_height - p->pad_top;
            hk_window_taps(win.iy0, p->dilation_height, p->filter_height, p->input_height,
                           &win.fy0, &win.fy1);
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                win.ix0 = ox * p->stride_width - p->pad_left;
                hk_window_taps(win.ix0, p->dilation_width, p->filter_width, p->input_width,
                               &win.fx0, &win.fx1);
                int32_t oc = 0;
                for (; oc + 4 <= p->output_channels; oc += 4) {
                    int64_t acc[4] = {0, 0, 0, 0};
                    if (oc / per_group == (oc + 3) / per_group) {
                        s16_channels(p, image, filter, &win, oc, 4, wide64, acc);
                    } else {
                        for (int32_t k = 0; k < 4; ++k) {
                            s16_channels(p, image, filter, &win, oc + k, 1, wide64, acc + k);
                        }
                    }
                    for (int32_t k = 0; k < 4; ++k) {
                        *out++ = s16_output(p, bias, oc + k, acc[k], wide64, lo, hi);
                    }
                }
                for (; oc < p->output_channels; ++oc) {
                    int64_t acc = 0;
                    s16_channels(p, image, filter, &win, oc, 1, wide64, &acc);
                    *out++ = s16_output(p, bias, oc, acc, wide64, lo, hi);
                }
            }
        }
    }
}

HK_NOINLINE void conv_s16_fast_64(const hk_conv_params_t *p, const int16_t *input,
                                 const int8_t *filter, const void *bias, int16_t *output)
{
    conv_s16_fast(p, input, filter, bias, output, true);
}

HK_NOINLINE void conv_s16_fast_32(const hk_conv_params_t *p, const int16_t *input,
                                 const int8_t *filter, const void *bias, int16_t *output)
{
    conv_s16_fast(p, input, filter, bias, output, false);
}

void hk_conv_s16_fast(const hk_conv_params_t *params, const int16_t *input, const int8_t *filter,
                      const void *bias, int16_t *output, int32_t wide64)
{
    if (wide64) {
        conv_s16_fast_64(params, input, filter, bias, output);
    } else {
        conv_s16_fast_32(params, input, filter, bias, output);
    }
}

#endif /* HK_CONV_S16_FAST */
