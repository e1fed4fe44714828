/*
 * helia-aot kernel library: CONV_2D (see hk_conv.h).
 */
#include "hk_conv.h"

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
#define CONV_QUANT_KERNEL(NAME, IN_T, BIAS_T, ACC_T, REQUANT, LO, HI)                          \
    int32_t NAME(const hk_conv_params_t *params, const IN_T *input, const int8_t *filter,      \
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

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8). */
CONV_QUANT_KERNEL(hk_conv_s8, int8_t, int32_t, int32_t, hk_mbqm, -128, 127)

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int16 x int8, int64 bias). */
CONV_QUANT_KERNEL(hk_conv_s16, int16_t, int64_t, int64_t, hk_mbqm_64, -32768, 32767)

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int16 x int8, int32 bias). */
CONV_QUANT_KERNEL(hk_conv_s16_b32, int16_t, int32_t, int32_t, hk_mbqm, -32768, 32767)

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
