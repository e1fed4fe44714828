/*
 * helia-aot kernel library: the int16x8 DEPTHWISE_CONV_2D path for Helium and the DSP extension
 * (internal to the depthwise family).
 *
 * hk_depthwise_s16 (hk_depthwise.c, the portable reference) hands a call with depth multiplier 1
 * and at most HK_DW_S16_MAX_TAPS filter taps to hk_depthwise_s16_fast. On the DSP extension
 * (hk_depthwise_s16_dsp.c) two channels share an input word (SMLABB / SMLATB into int32 sums)
 * and the requantization takes the 32-bit form below when every channel allows it. On Helium
 * (hk_depthwise_s16_mve.c) four channels share a vector: int16 inputs and int8 weights are
 * widened by the loads and their products summed in int32 lanes. Both sum in int32, which is
 * exact because a product is below 2^22 in magnitude and there are at most 256 of them. On
 * Helium the requantization (LiteRT's 64-bit MultiplyByQuantizedMultiplier of the 16x8 kernels)
 * runs on the lanes too when every channel allows it (see hk_depthwise_s16_mve.c), else per
 * channel in scalar code.
 */
#ifndef HK_DEPTHWISE_S16_H
#define HK_DEPTHWISE_S16_H

#include "hk_depthwise.h"
#include "hk_isa.h"

#define HK_DW_S16_MAX_TAPS 256

#if HK_HAVE_MVE || HK_HAVE_DSP
#define HK_DW_S16_FAST 1
/* params must already be checked, with depth_multiplier 1, input_offset 0 and at most
 * HK_DW_S16_MAX_TAPS taps. */
void hk_depthwise_s16_fast(const hk_depthwise_params_t *params, const int16_t *input,
                           const int8_t *filter, const int64_t *bias, int16_t *output);
#else
#define HK_DW_S16_FAST 0
#endif

/* Whether every channel can take the 32-bit requantization (see hk_depthwise_s16_mve.c): every
 * shift in [-16, 0] and every bias below 2^30 in magnitude. */
static inline bool hk_dw_s16_lanes_ok(const hk_depthwise_params_t *p, const int64_t *bias)
{
    for (int32_t c = 0; c < p->input_channels; ++c) {
        if (p->output_shift[c] < -16 || p->output_shift[c] > 0) {
            return false;
        }
        if (bias != NULL && (bias[c] <= -(1 << 30) || bias[c] >= (1 << 30))) {
            return false;
        }
    }
    return true;
}

#if HK_DW_S16_FAST
/* One call's arguments and the choices made once for it, which both paths' group functions
 * read: the activation clamp within int16 and whether the 32-bit requantization applies. */
typedef struct {
    const hk_depthwise_params_t *p;
    const int8_t *filter;
    const int64_t *bias;
    int16_t *output;
    int32_t lo;
    int32_t hi;
    bool lanes_ok;
} hk_dw_s16_call_t;

static inline hk_dw_s16_call_t hk_dw_s16_call(const hk_depthwise_params_t *p,
                                              const int8_t *filter, const int64_t *bias,
                                              int16_t *output)
{
    const hk_dw_s16_call_t k = {p,
                                filter,
                                bias,
                                output,
                                hk_max_i32(p->act_min, -32768),
                                hk_min_i32(p->act_max, 32767),
                                hk_dw_s16_lanes_ok(p, bias)};
    return k;
}
#endif

#endif /* HK_DEPTHWISE_S16_H */
