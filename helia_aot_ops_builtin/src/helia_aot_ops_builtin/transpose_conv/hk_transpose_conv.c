/*
 * helia-aot kernel library: TRANSPOSE_CONV (see hk_transpose_conv.h).
 */
#include "hk_transpose_conv.h"

static bool tconv_params_ok(const hk_transpose_conv_params_t *p)
{
    return p != NULL && p->batches >= 0 && p->input_height >= 1 && p->input_width >= 1 &&
           p->input_channels >= 1 && p->filter_height >= 1 && p->filter_width >= 1 &&
           p->output_height >= 0 && p->output_width >= 0 && p->output_channels >= 1 &&
           p->stride_height >= 1 && p->stride_width >= 1;
}

static bool tconv_quant_params_ok(const hk_transpose_conv_params_t *p)
{
    return tconv_params_ok(p) && p->output_multiplier != NULL && p->output_shift != NULL &&
           p->act_min <= p->act_max;
}

static int32_t tconv_floor_div(int32_t a, int32_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The input rows iy in [*first, *last] that reach output row `out` (out + pad = iy * stride +
 * tap for a tap in [0, taps)), clipped to the input. */
static void tconv_sources(int32_t out, int32_t pad, int32_t stride, int32_t taps, int32_t size,
                          int32_t *first, int32_t *last)
{
    const int32_t t = out + pad;
    *first = hk_max_i32(0, tconv_floor_div(t - taps, stride) + 1);
    *last = hk_min_i32(size - 1, tconv_floor_div(t, stride));
}

/* Which integer kernel tconv_quant is: element, bias and accumulator types, requantization. */
typedef enum {
    TCONV_S8,      /* int8 input and output, int32 bias and accumulator, hk_mbqm */
    TCONV_S16,     /* int16 input and output, int64 bias and accumulator, hk_mbqm_64 */
    TCONV_S16_B32, /* int16 input and output, int32 bias and accumulator, hk_mbqm */
} tconv_kind_t;

/*
 * The integer kernels, which differ only in types and requantization. `kind` is a constant at
 * every call and the body is always inlined, so each kernel keeps its own loop with the other
 * kinds' code folded away.
 */
HK_INLINE int32_t tconv_quant(const hk_transpose_conv_params_t *params, const void *input,
                              const int8_t *filter, const void *bias, void *output,
                              tconv_kind_t kind)
{
    if (!tconv_quant_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const bool wide = kind != TCONV_S8;
    const int8_t *input8 = (const int8_t *)input;
    const int16_t *input16 = (const int16_t *)input;
    const int32_t *bias32 = (const int32_t *)bias;
    const int64_t *bias64 = (const int64_t *)bias;
    int8_t *out8 = (int8_t *)output;
    int16_t *out16 = (int16_t *)output;
    const hk_transpose_conv_params_t *p = params;
    const size_t in_c = (size_t)p->input_channels;
    const int32_t act_min = hk_max_i32(p->act_min, wide ? -32768 : -128);
    const int32_t act_max = hk_min_i32(p->act_max, wide ? 32767 : 127);
    for (int32_t b = 0; b < p->batches; ++b) {
        const size_t image = (size_t)b * (size_t)p->input_height * (size_t)p->input_width * in_c;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            int32_t iy0, iy1;
            tconv_sources(oy, p->pad_top, p->stride_height, p->filter_height, p->input_height,
                          &iy0, &iy1);
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                int32_t ix0, ix1;
                tconv_sources(ox, p->pad_left, p->stride_width, p->filter_width,
                              p->input_width, &ix0, &ix1);
                for (int32_t oc = 0; oc < p->output_channels; ++oc) {
                    int32_t acc32 = 0;
                    int64_t acc64 = 0;
                    for (int32_t iy = iy0; iy <= iy1; ++iy) {
                        const int32_t fy = oy + p->pad_top - iy * p->stride_height;
                        for (int32_t ix = ix0; ix <= ix1; ++ix) {
                            const int32_t fx = ox + p->pad_left - ix * p->stride_width;
                            const size_t x =
                                image + ((size_t)iy * (size_t)p->input_width + (size_t)ix) * in_c;
                            const int8_t *w =
                                filter + (((size_t)oc * (size_t)p->filter_height + (size_t)fy) *
                                              (size_t)p->filter_width +
                                          (size_t)fx) * in_c;
                            for (size_t ic = 0; ic < in_c; ++ic) {
                                const int32_t xv = wide ? (int32_t)input16[x + ic]
                                                        : (int32_t)input8[x + ic];
                                const int32_t product = (xv + p->input_offset) * (int32_t)w[ic];
                                if (kind == TCONV_S16) {
                                    acc64 += (int64_t)product;
                                } else {
                                    acc32 += product;
                                }
                            }
                        }
                    }
                    int32_t value;
                    if (kind == TCONV_S16) {
                        if (bias64 != NULL) {
                            acc64 += bias64[oc];
                        }
                        value = hk_mbqm_64(acc64, p->output_multiplier[oc], p->output_shift[oc]);
                    } else {
                        if (bias32 != NULL) {
                            acc32 += bias32[oc];
                        }
                        value = hk_mbqm(acc32, p->output_multiplier[oc], p->output_shift[oc]);
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
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_integer_ops::TransposeConv (int8). */
int32_t hk_transpose_conv_s8(const hk_transpose_conv_params_t *params, const int8_t *input,
                             const int8_t *filter, const int32_t *bias, int8_t *output)
{
    return tconv_quant(params, input, filter, bias, output, TCONV_S8);
}

/* Follows LiteRT reference_integer_ops::TransposeConv (int16 x int8, int64 bias). */
int32_t hk_transpose_conv_s16(const hk_transpose_conv_params_t *params, const int16_t *input,
                              const int8_t *filter, const int64_t *bias, int16_t *output)
{
    return tconv_quant(params, input, filter, bias, output, TCONV_S16);
}

/* Follows LiteRT reference_integer_ops::TransposeConv (int16 x int8, int32 bias). */
int32_t hk_transpose_conv_s16_b32(const hk_transpose_conv_params_t *params, const int16_t *input,
                                  const int8_t *filter, const int32_t *bias, int16_t *output)
{
    return tconv_quant(params, input, filter, bias, output, TCONV_S16_B32);
}

/* Follows LiteRT reference_ops::TransposeConv (float). */
int32_t hk_transpose_conv_f32(const hk_transpose_conv_params_t *params, const float *input,
                              const float *filter, const float *bias, float *output)
{
    if (!tconv_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_transpose_conv_params_t *p = params;
    const size_t in_c = (size_t)p->input_channels;
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *image =
            input + (size_t)b * (size_t)p->input_height * (size_t)p->input_width * in_c;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            int32_t iy0, iy1;
            tconv_sources(oy, p->pad_top, p->stride_height, p->filter_height, p->input_height,
                          &iy0, &iy1);
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                int32_t ix0, ix1;
                tconv_sources(ox, p->pad_left, p->stride_width, p->filter_width,
                              p->input_width, &ix0, &ix1);
                for (int32_t oc = 0; oc < p->output_channels; ++oc) {
                    float total = 0.0f;
                    for (int32_t iy = iy0; iy <= iy1; ++iy) {
                        const int32_t fy = oy + p->pad_top - iy * p->stride_height;
                        for (int32_t ix = ix0; ix <= ix1; ++ix) {
                            const int32_t fx = ox + p->pad_left - ix * p->stride_width;
                            const float *x =
                                image + ((size_t)iy * (size_t)p->input_width + (size_t)ix) * in_c;
                            const float *w =
                                filter + (((size_t)oc * (size_t)p->filter_height + (size_t)fy) *
                                              (size_t)p->filter_width +
                                          (size_t)fx) * in_c;
                            for (size_t ic = 0; ic < in_c; ++ic) {
                                total += x[ic] * w[ic];
                            }
                        }
                    }
                    /* Unlike CONV_2D, the reference adds nothing when there is no bias. */
                    if (bias != NULL) {
                        total += bias[oc];
                    }
                    *out++ = hk_clamp_f32(total, p->act_min_f32, p->act_max_f32);
                }
            }
        }
    }
    return HK_STATUS_OK;
}
