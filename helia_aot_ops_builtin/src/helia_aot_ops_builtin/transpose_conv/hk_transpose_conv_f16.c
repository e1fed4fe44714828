/*
 * helia-aot kernel library: float16 TRANSPOSE_CONV (see hk_transpose_conv_f16.h).
 */
#include "hk_transpose_conv_f16.h"

/* floor(a / b) for b > 0. */
HK_INLINE int32_t tconv_f16_floor_div(int32_t a, int32_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The input rows [*first, *last] whose taps reach output row `out` (out + pad = in * stride +
 * tap, 0 <= tap < taps), clipped to the input. */
HK_INLINE void tconv_f16_sources(int32_t out, int32_t pad, int32_t stride, int32_t taps, int32_t size,
                                 int32_t *first, int32_t *last)
{
    const int32_t t = out + pad;
    *first = hk_max_i32(0, tconv_f16_floor_div(t - taps, stride) + 1);
    *last = hk_min_i32(size - 1, tconv_f16_floor_div(t, stride));
}

/* Follows LiteRT reference_ops::TransposeConv (float): every input pixel scatters filter * x into
 * the output window it reaches, then the bias (only when present) and the activation clamp. */
int32_t hk_transpose_conv_f16(const hk_transpose_conv_f16_params_t *params, const uint16_t *input,
                              const uint16_t *filter, const uint16_t *bias, uint16_t *output)
{
    if (params == NULL || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_transpose_conv_f16_params_t p = *params;
    if (p.batches < 0 || p.input_height < 1 || p.input_width < 1 || p.input_channels < 1 ||
        p.filter_height < 1 || p.filter_width < 1 || p.output_height < 0 || p.output_width < 0 ||
        p.output_channels < 1 || p.stride_height < 1 || p.stride_width < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    const hk_f16_t *w = (const hk_f16_t *)(const void *)filter;
    const hk_f16_t *b = (const hk_f16_t *)(const void *)bias;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    const int32_t in_c = p.input_channels;
    for (int32_t n = 0; n < p.batches; ++n) {
        const hk_f16_t *image = in + n * p.input_height * p.input_width * in_c;
        for (int32_t oy = 0; oy < p.output_height; ++oy) {
            int32_t iy0;
            int32_t iy1;
            tconv_f16_sources(oy, p.pad_top, p.stride_height, p.filter_height, p.input_height, &iy0, &iy1);
            for (int32_t ox = 0; ox < p.output_width; ++ox) {
                int32_t ix0;
                int32_t ix1;
                tconv_f16_sources(ox, p.pad_left, p.stride_width, p.filter_width, p.input_width, &ix0, &ix1);
                for (int32_t oc = 0; oc < p.output_channels; ++oc) {
                    float total = 0.0f;
                    for (int32_t iy = iy0; iy <= iy1; ++iy) {
                        const int32_t fy = oy + p.pad_top - iy * p.stride_height;
                        for (int32_t ix = ix0; ix <= ix1; ++ix) {
                            const int32_t fx = ox + p.pad_left - ix * p.stride_width;
                            const hk_f16_t *x = image + (iy * p.input_width + ix) * in_c;
                            const hk_f16_t *f = w + ((oc * p.filter_height + fy) * p.filter_width + fx) * in_c;
                            for (int32_t ic = 0; ic < in_c; ++ic) {
                                total += (float)x[ic] * (float)f[ic];
                            }
                        }
                    }
                    if (b != NULL) {
                        total += (float)b[oc];
                    }
                    *out++ = hk_f16_clamp(total, p.act_min_f32, p.act_max_f32);
                }
            }
        }
    }
    return HK_STATUS_OK;
}
