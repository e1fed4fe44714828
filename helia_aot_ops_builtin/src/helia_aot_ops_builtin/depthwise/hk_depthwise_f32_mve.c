/*
 * helia-aot kernel library: float32 DEPTHWISE_CONV_2D on Helium (see hk_depthwise_f32.h).
 *
 * Follows LiteRT reference_ops::DepthwiseConv (float): each output is 0.0f plus the products of its
 * in-image taps in the reference's order, then the bias, then the fused activation's clamp.
 */
#include "hk_depthwise_f32.h"

#if HK_F32_MVE

#include "hk_depthwise_walk.h"

/* What the group function needs besides the pixel. */
typedef struct {
    const float *filter;
    const float *bias;
    float *output;
    float32x4_t lo;
    float32x4_t hi;
} dw_f32_mve_t;

typedef struct {
    float32x4_t sum;
    mve_pred16_t lanes;
} dw_f32_mve_acc_t;

/* Four channels' products, each added to its lane's sum in the reference's tap order. */
HK_INLINE void dw_f32_mve_mac(void *acc, const void *x, const void *w)
{
    dw_f32_mve_acc_t *a = (dw_f32_mve_acc_t *)acc;
    const float32x4_t xv = vldrwq_z_f32((const float *)x, a->lanes);
    const float32x4_t wv = vldrwq_z_f32((const float *)w, a->lanes);
    a->sum = vaddq_f32(a->sum, vmulq_f32(xv, wv));
}

HK_INLINE void dw_f32_mve_group(void *ctx, const hk_dw_pixel_t *px, int32_t c, size_t pixel)
{
    const dw_f32_mve_t *k = (const dw_f32_mve_t *)ctx;
    dw_f32_mve_acc_t a = {vdupq_n_f32(0.0f), hk_f32_lanes(px->channels - c)};
    hk_dw_taps(px, c, k->filter, sizeof(float), sizeof(float), dw_f32_mve_mac, &a);
    hk_f32_store(k->output + pixel + c, a.sum, k->bias != NULL ? k->bias + c : NULL, a.lanes,
                 k->lo, k->hi);
}

void hk_depthwise_f32_mve(const hk_depthwise_params_t *params, const float *input,
                          const float *filter, const float *bias, float *output)
{
    const dw_f32_mve_t k = {filter,
                            bias,
                            output,
                            vdupq_n_f32(params->act_min_f32),
                            vdupq_n_f32(params->act_max_f32)};
    hk_dw_walk(params, input, sizeof(float), sizeof(float), 4, dw_f32_mve_group, (void *)&k);
}

#endif /* HK_F32_MVE */
