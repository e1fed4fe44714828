/*
 * helia-aot kernel library: int16x8 DEPTHWISE_CONV_2D on the DSP extension (see
 * hk_depthwise_s16.h).
 *
 * Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int16 x int8, int64 bias), as
 * the Helium path does: two channels share one word of input, SMLABB and SMLATB add its low and
 * high int16 times each channel's weight to that channel's int32 sum. The requantization takes
 * the 32-bit form of hk_depthwise_s16_mve.c (round(x * r * 2^(16 + shift) / 2^31), half up, with
 * one SMULL) when hk_dw_s16_lanes_ok allows it, else the reference's 64-bit form.
 */
#include "hk_depthwise_s16.h"

#if HK_HAVE_DSP

#include "hk_depthwise_walk.h"
#include "hk_simd.h"

HK_INLINE int16_t dw_s16_dsp_output(const hk_dw_s16_call_t *k, int32_t c, int32_t acc)
{
    const hk_depthwise_params_t *p = k->p;
    const int64_t *bias = k->bias;
    const int32_t multiplier = p->output_multiplier[c];
    int32_t value;
    if (k->lanes_ok) {
        const int32_t reduced =
            multiplier < 0x7FFF0000 ? ((multiplier + (1 << 15)) >> 16) : 0x7FFF;
        const int32_t m = (int32_t)((uint32_t)reduced << (16 + p->output_shift[c]));
        const int32_t x = acc + (bias != NULL ? (int32_t)bias[c] : 0);
        value = (int32_t)(((int64_t)x * m + ((int64_t)1 << 30)) >> 31);
    } else {
        const int64_t x = (int64_t)acc + (bias != NULL ? bias[c] : 0);
        value = hk_mbqm_64(x, multiplier, p->output_shift[c]);
    }
    return (int16_t)hk_clamp_i32(value + p->output_offset, k->lo, k->hi);
}

/* Two channels' sums: the low and high int16 of one input word times each channel's weight. */
HK_INLINE void dw_s16_dsp_pair(void *acc, const void *x, const void *w)
{
    int32_t *a = (int32_t *)acc;
    const int8_t *wp = (const int8_t *)w;
    const int32_t xv = (int32_t)hk_load_u32(x);
    a[0] = __smlabb(xv, wp[0], a[0]);
    a[1] = __smlatb(xv, wp[1], a[1]);
}

/* The last channel of an odd count, alone. */
HK_INLINE void dw_s16_dsp_single(void *acc, const void *x, const void *w)
{
    int32_t *a = (int32_t *)acc;
    a[0] += (int32_t)*(const int16_t *)x * *(const int8_t *)w;
}

HK_INLINE void dw_s16_dsp_group(void *ctx, const hk_dw_pixel_t *px, int32_t c, size_t pixel)
{
    const hk_dw_s16_call_t *k = (const hk_dw_s16_call_t *)ctx;
    int16_t *out = k->output + pixel;
    int32_t a[2] = {0, 0};
    if (c + 1 < px->channels) {
        hk_dw_taps(px, c, k->filter, sizeof(int16_t), sizeof(int8_t), dw_s16_dsp_pair, a);
        out[c] = dw_s16_dsp_output(k, c, a[0]);
        out[c + 1] = dw_s16_dsp_output(k, c + 1, a[1]);
    } else {
        hk_dw_taps(px, c, k->filter, sizeof(int16_t), sizeof(int8_t), dw_s16_dsp_single, a);
        out[c] = dw_s16_dsp_output(k, c, a[0]);
    }
}

void hk_depthwise_s16_fast(const hk_depthwise_params_t *params, const int16_t *input,
                           const int8_t *filter, const int64_t *bias, int16_t *output)
{
    const hk_dw_s16_call_t k = hk_dw_s16_call(params, filter, bias, output);
    hk_dw_walk(params, input, sizeof(int16_t), sizeof(int8_t), 2, dw_s16_dsp_group, (void *)&k);
}

#endif /* HK_HAVE_DSP */
