/*
 * helia-aot kernel library: int16x8 DEPTHWISE_CONV_2D on Helium (see hk_depthwise_s16.h).
 *
 * Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int16 x int8, int64 bias): per
 * output channel, the products of input and weight over the in-image taps, plus the bias,
 * requantized by the 64-bit MultiplyByQuantizedMultiplier, plus the output offset, clamped.
 *
 * That requantization is floor((x * r + 2^(s - 1)) / 2^s), with r the multiplier rounded to 15
 * bits and s = 15 - shift. When x fits int32 and shift is in [-16, 0], it equals VQRDMULH of x
 * by r * 2^(16 + shift) (below 2^31): floor((x * m + 2^30) / 2^31) is the same quotient. x fits
 * int32 when every bias is below 2^30 in magnitude, since the sums of at most 256 products are at
 * most 2^30. The kernel checks both once per call and otherwise requantizes channel by channel.
 */
#include "hk_depthwise_s16.h"

#if HK_HAVE_MVE

#include "hk_depthwise_walk.h"

/* Four channels' multipliers for VQRDMULH: r * 2^(16 + shift). */
HK_INLINE int32x4_t dw_s16_multipliers(const int32_t *multiplier, const int32_t *shift,
                                       mve_pred16_t lanes)
{
    const int32x4_t m = vldrwq_z_s32(multiplier, lanes);
    const int32x4_t rounded = vshrq_n_s32(vaddq_n_s32(m, 1 << 15), 16);
    const int32x4_t r = vpselq_s32(vdupq_n_s32(0x7FFF), rounded,
                                   vcmpgeq_n_s32(m, 0x7FFF0000));
    return vshlq_s32(r, vaddq_n_s32(vldrwq_z_s32(shift, lanes), 16));
}

typedef struct {
    int32x4_t sum;
    mve_pred16_t lanes;
} dw_s16_mve_acc_t;

/* Four channels' products, widened by the loads, added in int32 lanes. */
HK_INLINE void dw_s16_mve_mac(void *acc, const void *x, const void *w)
{
    dw_s16_mve_acc_t *a = (dw_s16_mve_acc_t *)acc;
    const int32x4_t xv = vldrhq_z_s32((const int16_t *)x, a->lanes);
    const int32x4_t wv = vldrbq_z_s32((const int8_t *)w, a->lanes);
    a->sum = vaddq_s32(a->sum, vmulq_s32(xv, wv));
}

HK_INLINE void dw_s16_mve_group(void *ctx, const hk_dw_pixel_t *px, int32_t c, size_t pixel)
{
    const hk_dw_s16_call_t *k = (const hk_dw_s16_call_t *)ctx;
    const hk_depthwise_params_t *p = k->p;
    const int32_t channels = px->channels;
    const int64_t *bias = k->bias;
    int16_t *out = k->output + pixel;
    const mve_pred16_t lanes = vctp32q((uint32_t)(channels - c));
    dw_s16_mve_acc_t a = {vdupq_n_s32(0), lanes};
    hk_dw_taps(px, c, k->filter, sizeof(int16_t), sizeof(int8_t), dw_s16_mve_mac, &a);
    int32x4_t acc = a.sum;
    if (k->lanes_ok) {
        if (bias != NULL) {
            /* Each bias fits int32 (dw_s16_lanes_ok); the low words hold it. */
            const int32x4_t low = vldrwq_gather_shifted_offset_z_s32(
                (const int32_t *)(const void *)(bias + c), vidupq_n_u32(0, 2), lanes);
            acc = vaddq_s32(acc, low);
        }
        int32x4_t y = vqrdmulhq_s32(
            acc, dw_s16_multipliers(p->output_multiplier + c, p->output_shift + c, lanes));
        y = vaddq_n_s32(y, p->output_offset);
        y = vminq_s32(vmaxq_s32(y, vdupq_n_s32(k->lo)), vdupq_n_s32(k->hi));
        vstrhq_p_s32(out + c, y, lanes);
    } else {
        int32_t sums[4];
        vstrwq_s32(sums, acc);
        const int32_t n = channels - c < 4 ? channels - c : 4;
        for (int32_t j = 0; j < n; ++j) {
            int64_t x = sums[j];
            if (bias != NULL) {
                x += bias[c + j];
            }
            const int32_t value =
                hk_mbqm_64(x, p->output_multiplier[c + j], p->output_shift[c + j]);
            out[c + j] = (int16_t)hk_clamp_i32(value + p->output_offset, k->lo, k->hi);
        }
    }
}

void hk_depthwise_s16_fast(const hk_depthwise_params_t *params, const int16_t *input,
                           const int8_t *filter, const int64_t *bias, int16_t *output)
{
    const hk_dw_s16_call_t k = hk_dw_s16_call(params, filter, bias, output);
    hk_dw_walk(params, input, sizeof(int16_t), sizeof(int8_t), 4, dw_s16_mve_group, (void *)&k);
}

#endif /* HK_HAVE_MVE */
