/*
 * helia-aot kernel library: float16 DEPTHWISE_CONV_2D pixels on Helium with MVE-F (see
 * hk_depthwise_f16.h).
 *
 * With fast_accumulation and depth multiplier 1, hk_depthwise_f16.c hands each output pixel here:
 * the sums stay in float16 lanes (VFMA), which is what fast_accumulation allows.
 */
#include "hk_depthwise_f16.h"

#if HK_HAVE_MVE_F16

/* One output pixel, depth multiplier 1: eight channels per vector, the tail predicated. */
void hk_depthwise_f16_pixel_mve(const hk_depthwise_f16_params_t *p, const hk_f16_t *in, const hk_f16_t *w,
                                const hk_f16_t *b, hk_f16_t *out, int32_t n, int32_t y0, int32_t x0)
{
    const int32_t channels = p->input_channels;
    const float16x8_t lo = vdupq_n_f16(hk_f16_bound(p->act_min_f32));
    const float16x8_t hi = vdupq_n_f16(hk_f16_bound(p->act_max_f32));
    for (int32_t c = 0; c < channels; c += 8) {
        const mve_pred16_t pred = vctp16q((uint32_t)(channels - c));
        float16x8_t acc = b != NULL ? vldrhq_z_f16((const float16_t *)(b + c), pred) : vdupq_n_f16((hk_f16_t)0.0f);
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
                const hk_f16_t *xi = in + ((n * p->input_height + iy) * p->input_width + ix) * channels + c;
                const hk_f16_t *wi = w + (ky * p->filter_width + kx) * channels + c;
                acc = vfmaq_f16(acc, vldrhq_z_f16((const float16_t *)xi, pred),
                                vldrhq_z_f16((const float16_t *)wi, pred));
            }
        }
        vstrhq_p_f16((float16_t *)(out + c), vminnmq_f16(vmaxnmq_f16(acc, lo), hi), pred);
    }
}

#endif /* HK_HAVE_MVE_F16 */
