/*
 * helia-aot kernel library: float32 CONV_2D on Helium (see hk_conv_f32.h).
 *
 * Follows LiteRT reference_ops::Conv (float): each output is 0.0f plus the products of its
 * in-image taps in the reference's order, then the bias, then the fused activation's clamp.
 */
#include "hk_conv_f32.h"

#if HK_F32_MVE

#include "hk_window.h"

void hk_conv_f32_mve(const hk_conv_params_t *params, const float *input, const float *filter,
                     const float *bias, float *output)
{
    const hk_conv_params_t *p = params;
    const int32_t channels = p->input_channels;
    const size_t taps = (size_t)p->filter_height * (size_t)p->filter_width * (size_t)channels;
    const uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)taps);
    const float32x4_t lo = vdupq_n_f32(p->act_min_f32), hi = vdupq_n_f32(p->act_max_f32);
    /* A row of in-image taps is one run of input and filter unless dilated across the row. */
    const bool rows = p->dilation_width == 1;
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *image = input + (size_t)b * (size_t)p->input_height *
                                         (size_t)p->input_width * (size_t)channels;
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
                const int32_t run = rows ? (fx1 - fx0) * channels : channels;
                const int32_t cols = rows ? (fx0 < fx1 ? 1 : 0) : fx1 - fx0;
                for (int32_t oc = 0; oc < p->output_channels; oc += 8) {
                    const mve_pred16_t p0 = hk_f32_lanes(p->output_channels - oc);
                    const mve_pred16_t p1 = hk_f32_lanes(p->output_channels - oc - 4);
                    const float *w0 = filter + (size_t)oc * taps;
                    float32x4_t acc0 = vdupq_n_f32(0.0f), acc1 = vdupq_n_f32(0.0f);
                    for (int32_t fy = fy0; fy < fy1; ++fy) {
                        const int32_t iy = iy0 + fy * p->dilation_height;
                        for (int32_t c = 0; c < cols; ++c) {
                            const int32_t fx = fx0 + c;
                            const int32_t ix = ix0 + fx * p->dilation_width;
                            const float *x = image + ((size_t)iy * (size_t)p->input_width +
                                                      (size_t)ix) * (size_t)channels;
                            const float *w =
                                w0 + ((size_t)fy * (size_t)p->filter_width + (size_t)fx) *
                                         (size_t)channels;
                            hk_f32_dot8(x, w, run, offsets, taps, &acc0, &acc1, p0, p1);
                        }
                    }
                    const float *bias0 = bias != NULL ? bias + oc : NULL;
                    hk_f32_store(out + oc, acc0, bias0, p0, lo, hi);
                    hk_f32_store(out + oc + 4, acc1, bias0 != NULL ? bias0 + 4 : NULL, p1, lo, hi);
                }
                out += p->output_channels;
            }
        }
    }
}

#endif /* HK_F32_MVE */
