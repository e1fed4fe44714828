/*
 * helia-aot kernel library: FULLY_CONNECTED int8, one unit at a time (see
 * hk_fully_connected_generic.h).
 */
#include "hk_fully_connected_generic.h"

#include "hk_fc_dot.h"
#include "hk_fc_requant.h"

/* Follows LiteRT reference_integer_ops::FullyConnected / FullyConnectedPerChannel with float
 * scales (int8): bias plus the sum of (w + filter_offset) * (x + input_offset), wrapped to
 * int32, requantized by the double-precision scale (hk_fc_requant), offset and clamped. */
int32_t hk_fully_connected_s8_generic(const hk_fully_connected_params_t *params,
                                      const int8_t *input, const int8_t *filter,
                                      const int32_t *bias, int8_t *output)
{
    const hk_fully_connected_params_t *p = params;
    if (p == NULL || p->batches < 0 || p->input_features < 0 || p->output_features < 0 ||
        p->output_scale == NULL || p->act_min > p->act_max || p->packed_filter || input == NULL ||
        filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t depth = p->input_features;
    const int32_t units = p->output_features;
    const int32_t input_offset = p->input_offset;
    const int32_t filter_offset = p->filter_offset;
    const int32_t output_offset = p->output_offset;
    const int32_t act_min = hk_max_i32(p->act_min, -128);
    const int32_t act_max = hk_min_i32(p->act_max, 127);
    const double *scales = p->output_scale;
    const int32_t step = p->per_channel ? 1 : 0;
    /* sum (w + fo)(x + io) = sum w*x + fo * sum x + io * (sum w + depth * fo), modulo 2^32: the
     * plain dot product (hk_fc_dot.h) plus a per-row and a per-unit term. */
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *x = input + (size_t)b * (size_t)depth;
        int8_t *out = output + (size_t)b * (size_t)units;
        uint32_t row = 0u;
        for (int32_t d = 0; d < depth; ++d) {
            row += (uint32_t)(int32_t)x[d];
        }
        row *= (uint32_t)filter_offset;
        for (int32_t o = 0; o < units; ++o) {
            const int8_t *w = filter + (size_t)o * (size_t)depth;
            uint32_t weights = (uint32_t)depth * (uint32_t)filter_offset;
            for (int32_t d = 0; d < depth; ++d) {
                weights += (uint32_t)(int32_t)w[d];
            }
            const uint32_t start = (bias != NULL ? (uint32_t)bias[o] : 0u) +
                                   (uint32_t)input_offset * weights + row;
            const uint32_t acc = hk_fc_dot1_s8(x, w, depth, start);
            const int32_t value = hk_fc_requant((int32_t)acc, scales[o * step]);
            const int32_t shifted = (int32_t)((uint32_t)value + (uint32_t)output_offset);
            out[o] = (int8_t)hk_clamp_i32(shifted, act_min, act_max);
        }
    }
    return HK_STATUS_OK;
}
