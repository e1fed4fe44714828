/*
 * helia-aot kernel library: FULLY_CONNECTED int8 x packed int4 (see hk_fully_connected_s4.h).
 */
#include "hk_fully_connected_s4.h"

#include <string.h>

#include "hk_fc_requant.h"
#include "hk_isa.h"

/* acc + the dot product of x and `depth` int4 weights starting at element `first`. A row that
 * starts on a byte (even `first`) is read a byte pair at a time with the nibbles split in
 * registers: Helium splits sixteen bytes into the even and odd elements and multiplies them with
 * the even and odd inputs of a two-way load; the DSP extension splits two bytes into two int16
 * pairs for SMLAD against the input's sign-extended even and odd bytes. */
static uint32_t dot_s4(const int8_t *x, const uint8_t *packed, int32_t first, int32_t depth,
                       uint32_t acc)
{
    int32_t d = 0;
#if HK_HAVE_MVE || HK_HAVE_DSP
    if ((first & 1) == 0) {
        const uint8_t *w = packed + (first >> 1);
#if HK_HAVE_MVE
        int32_t sum = (int32_t)acc;
        for (; d + 32 <= depth; d += 32) {
            const int8x16_t bytes = vreinterpretq_s8_u8(vld1q_u8(w + (d >> 1)));
            const int8x16x2_t xs = vld2q_s8(x + d);
            sum = vmladavaq_s8(sum, vshrq_n_s8(vshlq_n_s8(bytes, 4), 4), xs.val[0]);
            sum = vmladavaq_s8(sum, vshrq_n_s8(bytes, 4), xs.val[1]);
        }
        acc = (uint32_t)sum;
#elif HK_HAVE_DSP
        int32_t sum = (int32_t)acc;
        for (; d + 4 <= depth; d += 4) {
            uint32_t xv;
            memcpy(&xv, x + d, sizeof xv);
            const uint32_t pair = (uint32_t)w[d >> 1] | ((uint32_t)w[(d >> 1) + 1] << 16);
            /* Halves hold weights d and d+2 (low nibbles) or d+1 and d+3 (high nibbles), each
             * 0..15 then sign-extended by subtracting 16 where bit 3 is set. */
            const uint32_t lo = pair & 0x000F000Fu;
            const uint32_t hi = (pair >> 4) & 0x000F000Fu;
            const int16x2_t wlo = (int16x2_t)__ssub16((int16x2_t)lo, (int16x2_t)((lo & 0x00080008u) << 1));
            const int16x2_t whi = (int16x2_t)__ssub16((int16x2_t)hi, (int16x2_t)((hi & 0x00080008u) << 1));
            sum = __smlad(wlo, __sxtb16((int32_t)xv), sum);
            sum = __smlad(whi, __sxtb16((int32_t)(xv >> 8)), sum);
        }
        acc = (uint32_t)sum;
#endif
    }
#endif
    for (; d < depth; ++d) {
        acc += (uint32_t)(hk_s4_at(packed, first + d) * (int32_t)x[d]);
    }
    return acc;
}

/* Follows LiteRT reference_integer_ops::FullyConnected / FullyConnectedPerChannel on the
 * unpacked filter, as hk_fully_connected_s8_generic does on an int8 one. */
int32_t hk_fully_connected_s8_s4(const hk_fully_connected_params_t *params, const int8_t *input,
                                 const uint8_t *filter, const int32_t *bias, int8_t *output)
{
    const hk_fully_connected_params_t *p = params;
    if (p == NULL || p->batches < 0 || p->input_features < 0 || p->output_features < 0 ||
        p->output_scale == NULL || p->act_min > p->act_max || p->packed_filter || input == NULL ||
        filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t depth = p->input_features;
    const int32_t units = p->output_features;
    const int32_t act_min = hk_max_i32(p->act_min, -128);
    const int32_t act_max = hk_min_i32(p->act_max, 127);
    const int32_t step = p->per_channel ? 1 : 0;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *x = input + (size_t)b * (size_t)depth;
        int8_t *out = output + (size_t)b * (size_t)units;
        uint32_t row = 0u;
        for (int32_t d = 0; d < depth; ++d) {
            row += (uint32_t)(int32_t)x[d];
        }
        row *= (uint32_t)p->filter_offset;
        for (int32_t o = 0; o < units; ++o) {
            const int32_t first = o * depth;
            uint32_t start = row;
            if (p->folded_bias != NULL) {
                start += (uint32_t)p->folded_bias[o];
            } else {
                uint32_t weights = (uint32_t)depth * (uint32_t)p->filter_offset;
                for (int32_t d = 0; d < depth; ++d) {
                    weights += (uint32_t)hk_s4_at(filter, first + d);
                }
                start += (bias != NULL ? (uint32_t)bias[o] : 0u) + (uint32_t)p->input_offset * weights;
            }
            const uint32_t acc = dot_s4(x, filter, first, depth, start);
            const int32_t value = hk_fc_requant((int32_t)acc, p->output_scale[o * step]);
            const int32_t shifted = (int32_t)((uint32_t)value + (uint32_t)p->output_offset);
            out[o] = (int8_t)hk_clamp_i32(shifted, act_min, act_max);
        }
    }
    return HK_STATUS_OK;
}
