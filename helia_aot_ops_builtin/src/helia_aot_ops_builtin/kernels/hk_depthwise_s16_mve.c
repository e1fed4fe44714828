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

#include "hk_window.h"

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

void hk_depthwise_s16_fast(const hk_depthwise_params_t *params, const int16_t *input,
                           const int8_t *filter, const int64_t *bias, int16_t *output)
{
    const hk_depthwise_params_t *p = params;
    const int32_t channels = p->input_channels;
    const size_t row = (size_t)p->input_width * (size_t)channels;
    const size_t filter_row = (size_t)p->filter_width * (size_t)channels;
    const int32_t lo = hk_max_i32(p->act_min, -32768);
    const int32_t hi = hk_min_i32(p->act_max, 32767);
    const bool on_lanes = hk_dw_s16_lanes_ok(p, bias);
    int16_t *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *image = input + (size_t)b * (size_t)p->input_height * row;
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
                    const mve_pred16_t lanes = vctp32q((uint32_t)(channels - c));
                    int32x4_t acc = vdupq_n_s32(0);
                    for (int32_t fy = fy0; fy < fy1; ++fy) {
                        const int32_t iy = iy0 + fy * p->dilation_height;
                        const int16_t *x = image + (size_t)iy * row + (size_t)c;
                        const int8_t *w = filter + (size_t)fy * filter_row + (size_t)c;
                        for (int32_t fx = fx0; fx < fx1; ++fx) {
                            const int32_t ix = ix0 + fx * p->dilation_width;
                            const int32x4_t xv =
                                vldrhq_z_s32(x + (size_t)ix * (size_t)channels, lanes);
                            const int32x4_t wv =
                                vldrbq_z_s32(w + (size_t)fx * (size_t)channels, lanes);
                            acc = vaddq_s32(acc, vmulq_s32(xv, wv));
                        }
                    }
                    if (on_lanes) {
                        if (bias != NULL) {
                            /* Each bias fits int32 (dw_s16_lanes_ok); the low words hold it. */
                            const int32x4_t low = vldrwq_gather_shifted_offset_z_s32(
                                (const int32_t *)(const void *)(bias + c),
                                vidupq_n_u32(0, 2), lanes);
                            acc = vaddq_s32(acc, low);
                        }
                        int32x4_t y = vqrdmulhq_s32(
                            acc, dw_s16_multipliers(p->output_multiplier + c,
                                                    p->output_shift + c, lanes));
                        y = vaddq_n_s32(y, p->output_offset);
                        y = vminq_s32(vmaxq_s32(y, vdupq_n_s32(lo)), vdupq_n_s32(hi));
                        vstrhq_p_s32(out + c, y, lanes);
                    } else {
                        int32_t sums[4];
                        vstrwq_s32(sums, acc);
                        const int32_t n = channels - c < 4 ? channels - c : 4;
                        for (int32_t k = 0; k < n; ++k) {
                            int64_t x = sums[k];
                            if (bias != NULL) {
                                x += bias[c + k];
                            }
                            const int32_t value = hk_mbqm_64(x, p->output_multiplier[c + k],
                                                             p->output_shift[c + k]);
                            out[c + k] =
                                (int16_t)hk_clamp_i32(value + p->output_offset, lo, hi);
                        }
                    }
                }
                out += channels;
            }
        }
    }
}

#endif /* HK_HAVE_MVE */
