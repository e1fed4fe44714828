/*
 * helia-aot kernel library: hybrid CONV_2D and DEPTHWISE_CONV_2D (see hk_conv_hybrid.h).
 *
 * Follows LiteRT's HybridConvPerChannel and DepthwiseConvHybridPerChannel reference loops and,
 * for a per-tensor CONV_2D, the sums LiteRT's HybridConv takes from its int8 im2col product.
 * Integer sums wrap as the reference's int32 accumulators do (unsigned arithmetic here).
 */
#include "hk_conv_hybrid.h"

#include "hk_hybrid_quant.h"

static bool conv_hybrid_params_ok(const hk_conv_hybrid_params_t *p)
{
    return p != NULL && p->batches >= 0 && p->input_height > 0 && p->input_width > 0 &&
           p->input_channels > 0 && p->filter_height > 0 && p->filter_width > 0 &&
           p->output_height >= 0 && p->output_width >= 0 && p->output_channels > 0 &&
           p->stride_height > 0 && p->stride_width > 0 && p->dilation_height > 0 &&
           p->dilation_width > 0 && (p->per_channel == 0 || p->channel_scale != NULL);
}

/* Quantizes image b into scratch; returns its scale and stores its offset. */
static float conv_hybrid_image(const hk_conv_hybrid_params_t *p, const float *image,
                               int8_t *scratch, int32_t *offset)
{
    const size_t size = (size_t)p->input_height * (size_t)p->input_width * (size_t)p->input_channels;
    return hk_hybrid_quantize_row(image, size, scratch, p->per_channel != 0, offset);
}

HK_INLINE float conv_hybrid_clamp(const hk_conv_hybrid_params_t *p, float v)
{
    return hk_clamp_f32(v, p->act_min_f32, p->act_max_f32);
}

int32_t hk_conv_hybrid(const hk_conv_hybrid_params_t *params, const float *input,
                       const int8_t *filter, const float *bias, int8_t *scratch, float *output)
{
    const hk_conv_hybrid_params_t *p = params;
    if (!conv_hybrid_params_ok(p) || p->filter_input_channels <= 0 ||
        p->input_channels % p->filter_input_channels != 0 || input == NULL || filter == NULL ||
        scratch == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t h = p->input_height, w = p->input_width, c = p->input_channels;
    const int32_t fic = p->filter_input_channels, oc_count = p->output_channels;
    const int32_t groups = c / fic;
    const int32_t per_group = oc_count / groups;
    if (per_group <= 0 || per_group * groups != oc_count) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t image = (size_t)h * (size_t)w * (size_t)c;
    const size_t filter_size = (size_t)p->filter_height * (size_t)p->filter_width * (size_t)fic;
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        int32_t offset;
        float scale = conv_hybrid_image(p, input + (size_t)b * image, scratch, &offset);
        if (!p->per_channel) {
            scale *= p->filter_scale;
        }
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                const int32_t y0 = oy * p->stride_height - p->pad_top;
                const int32_t x0 = ox * p->stride_width - p->pad_left;
                for (int32_t o = 0; o < oc_count; ++o) {
                    const int8_t *f = filter + (size_t)o * filter_size;
                    const int32_t first = (o / per_group) * fic;
                    uint32_t acc = 0;
                    for (int32_t ky = 0; ky < p->filter_height; ++ky) {
                        const int32_t y = y0 + ky * p->dilation_height;
                        if (y < 0 || y >= h) {
                            continue;
                        }
                        for (int32_t kx = 0; kx < p->filter_width; ++kx) {
                            const int32_t x = x0 + kx * p->dilation_width;
                            if (x < 0 || x >= w) {
                                continue;
                            }
                            const int8_t *q = scratch + ((size_t)y * (size_t)w + (size_t)x) * (size_t)c + (size_t)first;
                            const int8_t *fk = f + ((size_t)ky * (size_t)p->filter_width + (size_t)kx) * (size_t)fic;
                            for (int32_t i = 0; i < fic; ++i) {
                                acc += (uint32_t)((int32_t)fk[i] * ((int32_t)q[i] - offset));
                            }
                        }
                    }
                    float v;
                    if (p->per_channel) {
                        v = (float)(int32_t)acc * p->channel_scale[o] * scale;
                        if (bias != NULL) {
                            v += bias[o];
                        }
                    } else {
                        v = 0.0f;
                        v += (float)(int32_t)acc * scale;
                        if (bias != NULL) {
                            v += bias[o];
                        }
                    }
                    *out++ = conv_hybrid_clamp(p, v);
                }
            }
        }
    }
    return HK_STATUS_OK;
}

int32_t hk_depthwise_hybrid(const hk_conv_hybrid_params_t *params, const float *input,
                            const int8_t *filter, const float *bias, int8_t *scratch,
                            float *output)
{
    const hk_conv_hybrid_params_t *p = params;
    if (!conv_hybrid_params_ok(p) || p->depth_multiplier <= 0 ||
        p->output_channels != p->input_channels * p->depth_multiplier || input == NULL ||
        filter == NULL || scratch == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t h = p->input_height, w = p->input_width, c = p->input_channels;
    const int32_t oc_count = p->output_channels, m = p->depth_multiplier;
    const size_t image = (size_t)h * (size_t)w * (size_t)c;
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        int32_t offset;
        float scale = conv_hybrid_image(p, input + (size_t)b * image, scratch, &offset);
        if (!p->per_channel) {
            scale *= p->filter_scale;
        }
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                const int32_t y0 = oy * p->stride_height - p->pad_top;
                const int32_t x0 = ox * p->stride_width - p->pad_left;
                for (int32_t o = 0; o < oc_count; ++o) {
                    const int32_t ic = o / m;
                    uint32_t acc = 0;
                    for (int32_t ky = 0; ky < p->filter_height; ++ky) {
                        const int32_t y = y0 + ky * p->dilation_height;
                        if (y < 0 || y >= h) {
                            continue;
                        }
                        for (int32_t kx = 0; kx < p->filter_width; ++kx) {
                            const int32_t x = x0 + kx * p->dilation_width;
                            if (x < 0 || x >= w) {
                                continue;
                            }
                            const int32_t q = scratch[((size_t)y * (size_t)w + (size_t)x) * (size_t)c + (size_t)ic];
                            const int32_t f = filter[((size_t)ky * (size_t)p->filter_width + (size_t)kx) * (size_t)oc_count + (size_t)o];
                            acc += (uint32_t)(f * (q - offset));
                        }
                    }
                    float v = (float)(int32_t)acc;
                    if (p->per_channel) {
                        v *= p->channel_scale[o] * scale;
                    } else {
                        v *= scale;
                    }
                    if (bias != NULL) {
                        v += bias[o];
                    }
                    *out++ = conv_hybrid_clamp(p, v);
                }
            }
        }
    }
    return HK_STATUS_OK;
}
