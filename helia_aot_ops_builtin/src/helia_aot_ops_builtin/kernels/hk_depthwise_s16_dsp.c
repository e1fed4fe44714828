/*
 * helia-aot kernel library: int16x8 DEPTHWISE_CONV_2D on the DSP extension (see
 * hk_depthwise_s16.h).
 *
 * Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int16 x int8, int64 bias), as
 * the Helium path does: two channels share one word of input, SMLABB and SMLATB add its low and
 * high int16 times each channel's weight to that channel's int32 sum. The requantization takes
 * the 32-bit form of hk_depthwise_s16_mve.c (round(x * r * 2^(16 + shift) / 2^31), half up, with
 * one SMULL) when hk_dw_s16_lanes_ok allows it, else the reference's 64-bit form.
 */
#include "hk_depthwise_s16.h"

#if HK_HAVE_DSP

#include "hk_simd.h"
#include "hk_window.h"

HK_INLINE int16_t dw_s16_dsp_output(const hk_depthwise_params_t *p, const int64_t *bias,
                                    int32_t c, int32_t acc, bool short_form, int32_t lo,
                                    int32_t hi)
{
    const int32_t multiplier = p->output_multiplier[c];
    int32_t value;
    if (short_form) {
        const int32_t reduced =
            multiplier < 0x7FFF0000 ? ((multiplier + (1 << 15)) >> 16) : 0x7FFF;
        const int32_t m = (int32_t)((uint32_t)reduced << (16 + p->output_shift[c]));
        const int32_t x = acc + (bias != NULL ? (int32_t)bias[c] : 0);
        value = (int32_t)(((int64_t)x * m + ((int64_t)1 << 30)) >> 31);
    } else {
        const int64_t x = (int64_t)acc + (bias != NULL ? bias[c] : 0);
        value = hk_mbqm_64(x, multiplier, p->output_shift[c]);
    }
    return (int16_t)hk_clamp_i32(value + p->output_offset, lo, hi);
}

void hk_depthwise_s16_fast(const hk_depthwise_params_t *params, const int16_t *input,
                           const int8_t *filter, const int64_t *bias, int16_t *output)
{
    const hk_depthwise_params_t *p = params;
    const int32_t channels = p->input_channels;
    const size_t row = (size_t)p->input_width * (size_t)channels;
    const size_t filter_row = (size_t)p->filter_width * (size_t)channels;
    const int32_t lo = hk_max_i32(p->act_min, -32768);
    const int32_t hi = hk_min_i32(p->act_max, 32767);
    const bool short_form = hk_dw_s16_lanes_ok(p, bias);
    int16_t *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *image = input + (size_t)b * (size_t)p->input_height * row;
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
                for (int32_t c = 0; c < channels; c += 2) {
                    const bool pair = c + 1 < channels;
                    int32_t a0 = 0, a1 = 0;
                    for (int32_t fy = fy0; fy < fy1; ++fy) {
                        const int32_t iy = iy0 + fy * p->dilation_height;
                        const int16_t *x = image + (size_t)iy * row + (size_t)c;
                        const int8_t *w = filter + (size_t)fy * filter_row + (size_t)c;
                        for (int32_t fx = fx0; fx < fx1; ++fx) {
                            const int32_t ix = ix0 + fx * p->dilation_width;
                            const int16_t *xp = x + (size_t)ix * (size_t)channels;
                            const int8_t *wp = w + (size_t)fx * (size_t)channels;
                            if (pair) {
                                const int32_t xv = (int32_t)hk_load_u32(xp);
                                a0 = __smlabb(xv, wp[0], a0);
                                a1 = __smlatb(xv, wp[1], a1);
                            } else {
                                a0 += (int32_t)xp[0] * wp[0];
                            }
                        }
                    }
                    out[c] = dw_s16_dsp_output(p, bias, c, a0, short_form, lo, hi);
                    if (pair) {
                        out[c + 1] = dw_s16_dsp_output(p, bias, c + 1, a1, short_form, lo, hi);
                    }
                }
                out += channels;
            }
        }
    }
}

#endif /* HK_HAVE_DSP */
