/*
 * helia-aot kernel library: DEPTHWISE_CONV_2D (see hk_depthwise.h).
 */
#include "hk_depthwise.h"

#include "hk_depthwise_f32.h"
#include "hk_depthwise_paths.h"
#include "hk_depthwise_s16.h"

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

/* Which integer kernel depthwise_quant is: element, bias and accumulator types, requantization. */
typedef enum {
    DW_S8,  /* int8 input and output, int32 bias and accumulator, hk_requant */
    DW_S16, /* int16 input and output, int64 bias and accumulator, hk_mbqm_64 */
} dw_kind_t;

/*
 * The reference loop of the integer kernels, which differ only in types and requantization.
 * `kind` is a constant at every call and the body is always inlined, so each kernel keeps its
 * own loop with the other kind's code folded away.
 */
HK_INLINE int32_t depthwise_quant(const hk_depthwise_params_t *params, const void *input,
                                  const int8_t *filter, const void *bias, void *output,
                                  dw_kind_t kind)
{
    if (!depthwise_quant_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const bool wide = kind == DW_S16;
    const int8_t *input8 = (const int8_t *)input;
    const int16_t *input16 = (const int16_t *)input;
    const int32_t *bias32 = (const int32_t *)bias;
    const int64_t *bias64 = (const int64_t *)bias;
    int8_t *out8 = (int8_t *)output;
    int16_t *out16 = (int16_t *)output;
    const hk_depthwise_params_t *p = params;
    const int32_t in_c = p->input_channels;
    const int32_t dm = p->depth_multiplier;
    const size_t out_c = (size_t)in_c * (size_t)dm;
    const int32_t in_offset = p->input_offset;
    const int32_t act_min = hk_max_i32(p->act_min, wide ? -32768 : -128);
    const int32_t act_max = hk_min_i32(p->act_max, wide ? 32767 : 127);
    for (int32_t b = 0; b < p->batches; ++b) {
        const size_t image =
            (size_t)b * (size_t)p->input_height * (size_t)p->input_width * (size_t)in_c;
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
                        int32_t acc32 = 0;
                        int64_t acc64 = 0;
                        for (int32_t fy = fy0; fy < fy1; ++fy) {
                            const int32_t iy = iy0 + fy * p->dilation_height;
                            for (int32_t fx = fx0; fx < fx1; ++fx) {
                                const int32_t ix = ix0 + fx * p->dilation_width;
                                const size_t at =
                                    image + ((size_t)iy * (size_t)p->input_width + (size_t)ix) *
                                                (size_t)in_c +
                                    (size_t)ic;
                                const int32_t x = wide ? (int32_t)input16[at] : (int32_t)input8[at];
                                const int32_t w =
                                    filter[((size_t)fy * (size_t)p->filter_width + (size_t)fx) *
                                               out_c +
                                           oc];
                                if (wide) {
                                    acc64 += (int64_t)(w * (x + in_offset));
                                } else {
                                    acc32 += (int32_t)(w * (x + in_offset));
                                }
                            }
                        }
                        int32_t value;
                        if (wide) {
                            if (bias64 != NULL) {
                                acc64 += bias64[oc];
                            }
                            value = hk_mbqm_64(acc64, p->output_multiplier[oc], p->output_shift[oc]);
                        } else {
                            if (bias32 != NULL) {
                                acc32 += bias32[oc];
                            }
                            value = hk_requant(acc32, p->output_multiplier[oc], p->output_shift[oc]);
                        }
                        value += p->output_offset;
                        value = hk_clamp_i32(value, act_min, act_max);
                        if (wide) {
                            *out16++ = (int16_t)value;
                        } else {
                            *out8++ = (int8_t)value;
                        }
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* The int8 fallback for what the fast paths do not cover (depth multipliers above 1), out of
 * line: a call the fast path takes does not pay this loop's prologue. */
HK_NOINLINE int32_t depthwise_s8_generic(const hk_depthwise_params_t *params, const int8_t *input,
                                    const int8_t *filter, const int32_t *bias, int8_t *output)
{
    return depthwise_quant(params, input, filter, bias, output, DW_S8);
}

/* Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int16 x int8, int64 bias). */
int32_t hk_depthwise_s16(const hk_depthwise_params_t *params, const int16_t *input,
                         const int8_t *filter, const int64_t *bias, int16_t *output)
{
#if HK_DW_S16_FAST
    if (depthwise_quant_params_ok(params) && input != NULL && filter != NULL && output != NULL &&
        params->depth_multiplier == 1 && params->input_offset == 0 &&
        params->filter_height * params->filter_width <= HK_DW_S16_MAX_TAPS) {
        hk_depthwise_s16_fast(params, input, filter, bias, output);
        return HK_STATUS_OK;
    }
#endif
    return depthwise_quant(params, input, filter, bias, output, DW_S16);
}

/* The fold of hk_depthwise_s8_offset_bias: Sum((x + off) * w) + b = Sum(x * w) + (b + off *
 * Sum(w)) in wrapping int32, which the LiteRT reference's sums equal whenever no tap is cut. On
 * Helium four channels per step (a layer pays this once). */
int32_t hk_depthwise_s8_offset_bias(const hk_depthwise_params_t *params, const int8_t *filter,
                                    const int32_t *bias, int32_t *offset_bias)
{
    if (!depthwise_params_ok(params) || filter == NULL || offset_bias == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t channels = params->input_channels * params->depth_multiplier;
    const int32_t taps = params->filter_height * params->filter_width;
    const int32_t offset = params->input_offset;
    int32_t c = 0;
#if HK_HAVE_MVE
    c = hk_depthwise_offset_bias_mve(filter, bias, channels, taps, offset, offset_bias);
#endif
    for (; c < channels; ++c) {
        uint32_t sum = 0;
        for (int32_t t = 0; t < taps; ++t) {
            sum += (uint32_t)(int32_t)filter[(size_t)t * (size_t)channels + (size_t)c];
        }
        const uint32_t start = bias != NULL ? (uint32_t)bias[c] : 0u;
        offset_bias[c] = (int32_t)(start + sum * (uint32_t)offset);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int8). */
int32_t hk_depthwise_s8(const hk_depthwise_params_t *params, const int8_t *input,
                        const int8_t *filter, const int32_t *bias, int8_t *output)
{
    if (!depthwise_quant_params_ok(params) || input == NULL || filter == NULL ||
        output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    /* The fast paths add the input offset in int16 lanes: it must be an int8 zero point's. */
    if (params->depth_multiplier == 1 && params->input_offset >= -127 &&
        params->input_offset <= 128) {
#if HK_HAVE_DSP
        if (hk_depthwise_s8_taps_dsp_ok(params)) {
            hk_depthwise_s8_taps_dsp(params, input, filter, output);
            return HK_STATUS_OK;
        }
#endif
        hk_depthwise_s8_fast(params, input, filter, bias, output);
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
#if HK_F32_MVE
    if (params->depth_multiplier == 1) {
        hk_depthwise_f32_mve(params, input, filter, bias, output);
        return HK_STATUS_OK;
    }
#endif
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
