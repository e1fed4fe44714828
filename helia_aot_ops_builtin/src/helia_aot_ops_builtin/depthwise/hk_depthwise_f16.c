/*
 * helia-aot kernel library: float16 DEPTHWISE_CONV_2D (see hk_depthwise_f16.h).
 */
#include "hk_depthwise_f16.h"

/* One output pixel, depth multiplier 1, accumulated in float: channels in chunks of
 * HK_DEPTHWISE_F16_CHUNK running sums (the bias, then each in-image tap in order), so each tap
 * reads a contiguous run of the input and the filter. */
#define HK_DEPTHWISE_F16_CHUNK 32
static void depthwise_pixel_float(const hk_depthwise_f16_params_t *p, const hk_f16_t *in, const hk_f16_t *w,
                                  const hk_f16_t *b, hk_f16_t *out, int32_t n, int32_t y0, int32_t x0)
{
    const int32_t channels = p->input_channels;
    float acc[HK_DEPTHWISE_F16_CHUNK];
    for (int32_t c0 = 0; c0 < channels; c0 += HK_DEPTHWISE_F16_CHUNK) {
        const int32_t count = hk_min_i32(HK_DEPTHWISE_F16_CHUNK, channels - c0);
        for (int32_t c = 0; c < count; ++c) {
            acc[c] = b != NULL ? (float)b[c0 + c] : 0.0f;
        }
        for (int32_t ky = 0; ky < p->filter_height; ++ky) {
            const int32_t iy = y0 + ky * p->dilation_height;
            if (iy < 0 || iy >= p->input_height) {
                continue;
            }
            for (int32_t kx = 0; kx < p->filter_width; ++kx) {
                const int32_t ix = x0 + kx * p->dilation_width;
                if (ix < 0 || ix >= p->input_width) {
                    continue;
                }
                const hk_f16_t *xi = in + ((n * p->input_height + iy) * p->input_width + ix) * channels + c0;
                const hk_f16_t *wi = w + (ky * p->filter_width + kx) * channels + c0;
                for (int32_t c = 0; c < count; ++c) {
                    acc[c] += (float)xi[c] * (float)wi[c];
                }
            }
        }
        for (int32_t c = 0; c < count; ++c) {
            out[c0 + c] = hk_f16_clamp(acc[c], p->act_min_f32, p->act_max_f32);
        }
    }
}

/* Follows LiteRT reference_ops::DepthwiseConv (float): output channel ic * m + j is the bias plus
 * the in-image taps of input channel ic times filter channel ic * m + j, then the clamp. */
int32_t hk_depthwise_f16(const hk_depthwise_f16_params_t *params, const uint16_t *input,
                         const uint16_t *filter, const uint16_t *bias, uint16_t *output)
{
    if (params == NULL || input == NULL || filter == NULL || output == NULL || params->depth_multiplier <= 0) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_depthwise_f16_params_t p = *params;
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    const hk_f16_t *w = (const hk_f16_t *)(const void *)filter;
    const hk_f16_t *b = (const hk_f16_t *)(const void *)bias;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    const int32_t out_channels = p.input_channels * p.depth_multiplier;
    for (int32_t n = 0; n < p.batches; ++n) {
        for (int32_t oy = 0; oy < p.output_height; ++oy) {
            for (int32_t ox = 0; ox < p.output_width; ++ox) {
                const int32_t y0 = oy * p.stride_height - p.pad_top;
                const int32_t x0 = ox * p.stride_width - p.pad_left;
#if HK_HAVE_MVE_F16
                if (p.fast_accumulation && p.depth_multiplier == 1) {
                    hk_depthwise_f16_pixel_mve(&p, in, w, b, out, n, y0, x0);
                    out += out_channels;
                    continue;
                }
#endif
                if (p.depth_multiplier == 1) {
                    depthwise_pixel_float(&p, in, w, b, out, n, y0, x0);
                    out += out_channels;
                    continue;
                }
                for (int32_t oc = 0; oc < out_channels; ++oc) {
                    const int32_t ic = oc / p.depth_multiplier;
                    float acc = b != NULL ? (float)b[oc] : 0.0f;
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
                            const float x = (float)in[((n * p.input_height + iy) * p.input_width + ix) * p.input_channels + ic];
                            acc += x * (float)w[(ky * p.filter_width + kx) * out_channels + oc];
                        }
                    }
                    *out++ = hk_f16_clamp(acc, p.act_min_f32, p.act_max_f32);
                }
            }
        }
    }
    return HK_STATUS_OK;
}
