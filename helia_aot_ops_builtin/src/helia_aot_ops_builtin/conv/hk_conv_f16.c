/*
 * helia-aot kernel library: float16 CONV_2D (see hk_conv_f16.h).
 */
#include "hk_conv_f16.h"

#include "hk_f16_dot.h"

/* The whole convolution with one accumulation: `fast` is a constant at both calls, so each keeps a
 * loop of its own with its dot product inlined. The channel run of one tap is contiguous in both
 * the input and the filter, so each tap is one dot product. */
HK_INLINE int32_t conv_f16_run(const hk_conv_f16_params_t *params, const uint16_t *input, const uint16_t *filter,
                               const uint16_t *bias, uint16_t *output, bool fast)
{
    const hk_conv_f16_params_t p = *params;
    if (p.filter_input_channels <= 0 || p.input_channels % p.filter_input_channels != 0 ||
        p.output_channels % (p.input_channels / p.filter_input_channels) != 0) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    const hk_f16_t *w = (const hk_f16_t *)(const void *)filter;
    const hk_f16_t *b = (const hk_f16_t *)(const void *)bias;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    const int32_t fic = p.filter_input_channels;
    const int32_t per_group = p.output_channels / (p.input_channels / fic);
    for (int32_t n = 0; n < p.batches; ++n) {
        for (int32_t oy = 0; oy < p.output_height; ++oy) {
            for (int32_t ox = 0; ox < p.output_width; ++ox) {
                const int32_t y0 = oy * p.stride_height - p.pad_top;
                const int32_t x0 = ox * p.stride_width - p.pad_left;
                for (int32_t oc = 0; oc < p.output_channels; ++oc) {
                    const int32_t c0 = (oc / per_group) * fic;
                    float acc = 0.0f;
                    for (int32_t ky = 0; ky < p.filter_height; ++ky) {
                        const int32_t iy = y0 + ky * p.dilation_height;
                        if (iy < 0 || iy >= p.input_height) {
                            continue;
                        }
                        for (int32_t kx = 0; kx < p.filter_width; ++kx) {
                            const int32_t ix = x0 + kx * p.dilation_width;
                            if (ix < 0 || ix >= p.input_width) {
                                continue;
                            }
                            const hk_f16_t *xi =
                                in + (((int32_t)n * p.input_height + iy) * p.input_width + ix) * p.input_channels + c0;
                            const hk_f16_t *wi = w + ((oc * p.filter_height + ky) * p.filter_width + kx) * fic;
                            acc += fast ? hk_f16_dot(xi, wi, fic) : hk_f16_dot_precise(xi, wi, fic);
                        }
                    }
                    if (b != NULL) {
                        acc += (float)b[oc];
                    }
                    *out++ = hk_f16_clamp(acc, p.act_min_f32, p.act_max_f32);
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Conv (float): for every output pixel and filter, the bias plus
 * the products of the filter with the in-image taps of its group's channels, then the fused
 * activation clamp. */
int32_t hk_conv_f16(const hk_conv_f16_params_t *params, const uint16_t *input, const uint16_t *filter,
                    const uint16_t *bias, uint16_t *output)
{
    if (params == NULL || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    return params->fast_accumulation ? conv_f16_run(params, input, filter, bias, output, true)
                                     : conv_f16_run(params, input, filter, bias, output, false);
}
