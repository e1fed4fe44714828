/*
 * helia-aot kernel library: float32 DEPTHWISE_CONV_2D on Helium (see hk_depthwise_f32.h).
 *
 * Follows LiteRT reference_ops::DepthwiseConv (float): each output is 0.0f plus the products of its
 * in-image taps in the reference's order, then the bias, then the fused activation's clamp.
 */
#include "hk_depthwise_f32.h"

#if HK_F32_MVE

#include "hk_window.h"

void hk_depthwise_f32_mve(const hk_depthwise_params_t *params, const float *input,
                          const float *filter, const float *bias, float *output)
{
    const hk_depthwise_params_t *p = params;
    const int32_t channels = p->input_channels;
    const size_t row = (size_t)p->input_width * (size_t)channels;
    const size_t filter_row = (size_t)p->filter_width * (size_t)channels;
    const float32x4_t lo = vdupq_n_f32(p->act_min_f32), hi = vdupq_n_f32(p->act_max_f32);
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *image = input + (size_t)b * (size_t)p->input_height * row;
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
                for (int32_t c = 0; c < channels; c += 4) {
                    const mve_pred16_t lanes = hk_f32_lanes(channels - c);
                    float32x4_t acc = vdupq_n_f32(0.0f);
                    for (int32_t fy = fy0; fy < fy1; ++fy) {
                        const int32_t iy = iy0 + fy * p->dilation_height;
                        const float *x = image + (size_t)iy * row + (size_t)c;
                        const float *w = filter + (size_t)fy * filter_row + (size_t)c;
                        for (int32_t fx = fx0; fx < fx1; ++fx) {
                            const int32_t ix = ix0 + fx * p->dilation_width;
                            const float32x4_t xv =
                                vldrwq_z_f32(x + (size_t)ix * (size_t)channels, lanes);
                            const float32x4_t wv =
                                vldrwq_z_f32(w + (size_t)fx * (size_t)channels, lanes);
                            acc = vaddq_f32(acc, vmulq_f32(xv, wv));
                        }
                    }
                    hk_f32_store(out + c, acc, bias != NULL ? bias + c : NULL, lanes, lo, hi);
                }
                out += channels;
            }
        }
    }
}

#endif /* HK_F32_MVE */
