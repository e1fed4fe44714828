/*
 * helia-aot kernel library: CONV_2D (see hk_conv.h), the portable reference.
 *
 * Every kernel here is plain C99 that follows the LiteRT reference loop. hk_conv_s8 hands what
 * the int8 fast paths cover to hk_conv_s8_fast (hk_conv_paths.h: Helium, DSP or plain C, in
 * hk_conv_mve.c, hk_conv_dsp.c and hk_conv_scalar.c); they must give the bytes of this code.
 */
#include "hk_conv.h"

#include "hk_conv_f32.h"
#include "hk_conv_paths.h"
#include "hk_conv_s16.h"
#include "hk_requant.h"
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

/* Which integer kernel conv_quant is: element, bias and accumulator types, requantization. */
typedef enum {
    CONV_S8,      /* int8 input and output, int32 bias and accumulator, hk_requant */
    CONV_S16,     /* int16 input and output, int64 bias and accumulator, hk_mbqm_64 */
    CONV_S16_B32, /* int16 input and output, int32 bias and accumulator, hk_requant */
} conv_kind_t;

/*
 * The integer kernels differ only in element, bias and accumulator types and in the
 * requantization step, so one body serves all three. `kind` is a constant at every call and the
 * body is always inlined, so each kernel is compiled into its own loop with the other kinds' code
 * folded away. Integer sums are exact, so the loop order is free; it keeps the reference's (taps,
 * then input channels) anyway.
 */
HK_INLINE int32_t conv_quant(const hk_conv_params_t *params, const void *input,
                             const int8_t *filter, const void *bias, void *output, conv_kind_t kind)
{
    if (!conv_quant_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_conv_params_t *p = params;
    const bool wide = kind != CONV_S8;
    const int8_t *input8 = (const int8_t *)input;
    const int16_t *input16 = (const int16_t *)input;
    const int32_t *bias32 = (const int32_t *)bias;
    const int64_t *bias64 = (const int64_t *)bias;
    int8_t *out8 = (int8_t *)output;
    int16_t *out16 = (int16_t *)output;
    const int32_t fic = p->filter_input_channels;
    const int32_t per_group = p->output_channels / (p->input_channels / fic);
    const int32_t in_offset = p->input_offset;
    const int32_t act_min = hk_max_i32(p->act_min, wide ? -32768 : -128);
    const int32_t act_max = hk_min_i32(p->act_max, wide ? 32767 : 127);
    for (int32_t b = 0; b < p->batches; ++b) {
        const size_t image = (size_t)b * (size_t)p->input_height * (size_t)p->input_width *
                             (size_t)p->input_channels;
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
                    const int8_t *taps = filter + (size_t)oc * (size_t)p->filter_height *
                                                      (size_t)p->filter_width * (size_t)fic;
                    int32_t acc32 = 0;
                    int64_t acc64 = 0;
                    for (int32_t fy = fy0; fy < fy1; ++fy) {
                        const int32_t iy = iy0 + fy * p->dilation_height;
                        for (int32_t fx = fx0; fx < fx1; ++fx) {
                            const int32_t ix = ix0 + fx * p->dilation_width;
                            const size_t x = image +
                                             ((size_t)iy * (size_t)p->input_width + (size_t)ix) *
                                                 (size_t)p->input_channels +
                                             (size_t)channel0;
                            const int8_t *w =
                                taps + ((size_t)fy * (size_t)p->filter_width + (size_t)fx) *
                                           (size_t)fic;
                            for (int32_t ic = 0; ic < fic; ++ic) {
                                const int32_t xv = wide ? (int32_t)input16[x + (size_t)ic]
                                                        : (int32_t)input8[x + (size_t)ic];
                                const int32_t product = (int32_t)w[ic] * (xv + in_offset);
                                if (kind == CONV_S16) {
                                    acc64 += product;
                                } else {
                                    acc32 += product;
                                }
                            }
                        }
                    }
                    int32_t value;
                    if (kind == CONV_S16) {
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
                    value = hk_clamp_i32(value + p->output_offset, act_min, act_max);
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

/* The int8 fallback for what the fast paths do not cover (grouped filters, no offset_bias). */
HK_NOINLINE int32_t conv_s8_generic(const hk_conv_params_t *params, const int8_t *input,
                                    const int8_t *filter, const int32_t *bias, int8_t *output)
{
    return conv_quant(params, input, filter, bias, output, CONV_S8);
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int16 x int8, int64 bias). */
int32_t hk_conv_s16(const hk_conv_params_t *params, const int16_t *input, const int8_t *filter,
                    const int64_t *bias, int16_t *output)
{
#if HK_CONV_S16_FAST
    if (conv_quant_params_ok(params) && input != NULL && filter != NULL && output != NULL &&
        params->input_offset == 0) {
        hk_conv_s16_fast(params, input, filter, bias, output, 1);
        return HK_STATUS_OK;
    }
#endif
    return conv_quant(params, input, filter, bias, output, CONV_S16);
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int16 x int8, int32 bias). */
int32_t hk_conv_s16_b32(const hk_conv_params_t *params, const int16_t *input,
                        const int8_t *filter, const int32_t *bias, int16_t *output)
{
#if HK_CONV_S16_FAST
    if (conv_quant_params_ok(params) && input != NULL && filter != NULL && output != NULL &&
        params->input_offset == 0) {
        hk_conv_s16_fast(params, input, filter, bias, output, 0);
        return HK_STATUS_OK;
    }
#endif
    return conv_quant(params, input, filter, bias, output, CONV_S16_B32);
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
 * Without the fast path's scratch (the converter's memory-aware choice) Helium still reads in
 * place (hk_conv_s8_lean); otherwise the generic loop. Kept out of line so that hk_conv_s8's
 * fast-path dispatch compiles to the same instructions as without this variant.
 */
HK_NOINLINE int32_t conv_s8_scratch_free(const hk_conv_params_t *params, const int8_t *input,
                                         const int8_t *filter, const int32_t *bias,
                                         int8_t *output)
{
#if HK_HAVE_MVE
    if (params->offset_bias != NULL && params->scratch == NULL && params->dilation_width == 1 &&
        hk_conv_s8_scratch_size(params) > 0 && params->input_offset >= -127 &&
        params->input_offset <= 128) {
        hk_conv_s8_lean(params, input, filter, bias, output);
        return HK_STATUS_OK;
    }
#endif
    return conv_s8_generic(params, input, filter, bias, output);
}

/* Whether hk_conv_s8_fast may run: offset_bias, a large enough scratch, an ungrouped filter,
 * and an input offset that makes the zero point representable (-input_offset in [-128, 127]). */
static bool conv_s8_fast_ok(const hk_conv_params_t *params)
{
    const int32_t need = hk_conv_s8_scratch_size(params);
    return params->offset_bias != NULL && need > 0 && params->scratch != NULL &&
           params->scratch_size >= need && params->input_offset >= -127 &&
           params->input_offset <= 128;
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8). */
int32_t hk_conv_s8(const hk_conv_params_t *params, const int8_t *input, const int8_t *filter,
                   const int32_t *bias, int8_t *output)
{
    if (!conv_quant_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    if (conv_s8_fast_ok(params)) {
        hk_conv_s8_fast(params, input, filter, output);
        return HK_STATUS_OK;
    }
    return conv_s8_scratch_free(params, input, filter, bias, output);
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8), through the fast path alone. */
int32_t hk_conv_s8_scratch(const hk_conv_params_t *params, const int8_t *input,
                           const int8_t *filter, const int32_t *bias, int8_t *output)
{
    (void)bias; /* folded into offset_bias */
    if (!conv_quant_params_ok(params) || input == NULL || filter == NULL || output == NULL ||
        !conv_s8_fast_ok(params)) {
        return HK_STATUS_BAD_PARAM;
    }
    hk_conv_s8_fast(params, input, filter, output);
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8), without the fast path's buffer. */
int32_t hk_conv_s8_scratch_free(const hk_conv_params_t *params, const int8_t *input,
                                const int8_t *filter, const int32_t *bias, int8_t *output)
{
    if (!conv_quant_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    return conv_s8_scratch_free(params, input, filter, bias, output);
}

/* Follows LiteRT reference_ops::Conv (float): each sum runs over taps then channels, as there. */
int32_t hk_conv_f32(const hk_conv_params_t *params, const float *input, const float *filter,
                    const float *bias, float *output)
{
    if (!conv_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
#if HK_F32_MVE
    if (params->filter_input_channels == params->input_channels) {
        hk_conv_f32_mve(params, input, filter, bias, output);
        return HK_STATUS_OK;
    }
#endif
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
