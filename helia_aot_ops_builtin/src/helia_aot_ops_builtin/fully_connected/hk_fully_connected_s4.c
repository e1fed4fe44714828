/*
 * helia-aot kernel library: FULLY_CONNECTED int8 x packed int4 (see hk_fully_connected_s4.h).
 */
#include "hk_fully_connected_s4.h"

#include "hk_fc_requant.h"
#include "hk_isa.h"

/* acc + the dot product of x and `depth` int4 weights starting at element `first`. A row that
 * starts on a byte (even `first`) goes to the fast paths' blocks first (Helium, DSP), which split
 * the nibbles in registers; the rest is read one nibble at a time. */
static uint32_t dot_s4(const int8_t *x, const uint8_t *packed, int32_t first, int32_t depth,
                       uint32_t acc)
{
    int32_t d = 0;
#if HK_HAVE_MVE || HK_HAVE_DSP
    if ((first & 1) == 0) {
        acc = hk_fc_dot_s4_blocks(x, packed + (first >> 1), depth, acc, &d);
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
