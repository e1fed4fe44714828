/*
 * helia-aot kernel library: int16x8 FULLY_CONNECTED on Helium and the DSP extension (see
 * hk_fully_connected_s16.h).
 *
 * Follows LiteRT reference_integer_ops::FullyConnected (int16 x int8): per unit, the sum of
 * input times weight (64-bit, or 32-bit for an int32 bias) plus the bias, scaled by the unit's
 * double scale and rounded half away from zero, plus the output offset, clamped.
 */
#include "hk_fully_connected_s16.h"

#if HK_FC_S16_FAST

#include "hk_dot_s16.h"
#include "hk_fc_requant.h"

HK_INLINE int16_t fc_s16_output(const hk_fully_connected_params_t *p, const void *bias,
                                int32_t o, int64_t acc, bool wide64, int32_t lo, int32_t hi)
{
    const double scale = p->output_scale[p->per_channel ? o : 0];
    int32_t value;
    if (wide64) {
        value = hk_fc_requant64(acc + (bias != NULL ? ((const int64_t *)bias)[o] : 0), scale);
    } else {
        const uint32_t sum =
            (uint32_t)acc + (bias != NULL ? (uint32_t)((const int32_t *)bias)[o] : 0u);
        value = hk_fc_requant((int32_t)sum, scale);
    }
    value = (int32_t)((uint32_t)value + (uint32_t)p->output_offset);
    return (int16_t)hk_clamp_i32(value, lo, hi);
}

HK_INLINE void fc_s16_fast(const hk_fully_connected_params_t *p, const int16_t *input,
                          const int8_t *filter, const void *bias, int16_t *output, bool wide64)
{
    const int32_t depth = p->input_features;
    const int32_t lo = hk_max_i32(p->act_min, -32768);
    const int32_t hi = hk_min_i32(p->act_max, 32767);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *x = input + (size_t)b * (size_t)depth;
        int16_t *out = output + (size_t)b * (size_t)p->output_features;
        int32_t o = 0;
        for (; o + 4 <= p->output_features; o += 4) {
            const int8_t *w = filter + (size_t)o * (size_t)depth;
            int64_t acc[4] = {0, 0, 0, 0};
            if (wide64) {
                hk_dot4_s16_64(x, w, (size_t)depth, depth, acc);
            } else {
                int32_t acc32[4] = {0, 0, 0, 0};
                hk_dot4_s16_32(x, w, (size_t)depth, depth, acc32);
                for (int32_t k = 0; k < 4; ++k) {
                    acc[k] = acc32[k];
                }
            }
            for (int32_t k = 0; k < 4; ++k) {
                out[o + k] = fc_s16_output(p, bias, o + k, acc[k], wide64, lo, hi);
            }
        }
        for (; o < p->output_features; ++o) {
            const int8_t *w = filter + (size_t)o * (size_t)depth;
            const int64_t acc =
                wide64 ? hk_dot1_s16_64(x, w, depth, 0) : hk_dot1_s16_32(x, w, depth, 0);
            out[o] = fc_s16_output(p, bias, o, acc, wide64, lo, hi);
        }
    }
}

void hk_fully_connected_s16_fast(const hk_fully_connected_params_t *params, const int16_t *input,
                                const int8_t *filter, const void *bias, int16_t *output,
                                int32_t wide64)
{
    if (wide64) {
        fc_s16_fast(params, input, filter, bias, output, true);
    } else {
        fc_s16_fast(params, input, filter, bias, output, false);
    }
}

#endif /* HK_FC_S16_FAST */
