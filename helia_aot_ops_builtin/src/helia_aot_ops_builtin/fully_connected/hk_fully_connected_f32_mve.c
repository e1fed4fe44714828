/*
 * helia-aot kernel library: float32 FULLY_CONNECTED on Helium (see hk_fully_connected_f32.h).
 *
 * Follows LiteRT reference_ops::FullyConnected (float): each output is 0.0f plus the products of
 * its inputs in order, then the bias, then the fused activation's clamp.
 */
#include "hk_fully_connected_f32.h"

#if HK_F32_MVE

void hk_fully_connected_f32_mve(const hk_fully_connected_params_t *params, const float *input,
                                const float *filter, const float *bias, float *output)
{
    const hk_fully_connected_params_t *p = params;
    const int32_t depth = p->input_features;
    const uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)depth);
    const float32x4_t lo = vdupq_n_f32(p->act_min_f32), hi = vdupq_n_f32(p->act_max_f32);
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *x = input + (size_t)b * (size_t)depth;
        float *out = output + (size_t)b * (size_t)p->output_features;
        for (int32_t o = 0; o < p->output_features; o += 8) {
            const mve_pred16_t p0 = hk_f32_lanes(p->output_features - o);
            const mve_pred16_t p1 = hk_f32_lanes(p->output_features - o - 4);
            float32x4_t acc0 = vdupq_n_f32(0.0f), acc1 = vdupq_n_f32(0.0f);
            hk_f32_dot8(x, filter + (size_t)o * (size_t)depth, depth, offsets, (size_t)depth, &acc0,
                     &acc1, p0, p1);
            const float *bias0 = bias != NULL ? bias + o : NULL;
            hk_f32_store(out + o, acc0, bias0, p0, lo, hi);
            hk_f32_store(out + o + 4, acc1, bias0 != NULL ? bias0 + 4 : NULL, p1, lo, hi);
        }
    }
}

#endif /* HK_F32_MVE */
