/*
 * helia-aot kernel library: DEPTHWISE_CONV_2D (see hk_depthwise.h).
 */
#include "hk_depthwise.h"

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
#define DEPTHWISE_QUANT_KERNEL(NAME, IN_T, BIAS_T, ACC_T, REQUANT, LO, HI)                     \
    int32_t NAME(const hk_depthwise_params_t *params, const IN_T *input, const int8_t *filter, \
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

/* Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int8). */
DEPTHWISE_QUANT_KERNEL(hk_depthwise_s8, int8_t, int32_t, int32_t, hk_mbqm, -128, 127)

/* Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int16 x int8, int64 bias). */
DEPTHWISE_QUANT_KERNEL(hk_depthwise_s16, int16_t, int64_t, int64_t, hk_mbqm_64, -32768, 32767)

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
