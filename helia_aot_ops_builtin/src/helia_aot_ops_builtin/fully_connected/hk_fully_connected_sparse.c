/*
 * helia-aot kernel library: FULLY_CONNECTED int8 over block-sparse weights (see
 * hk_fully_connected_sparse.h).
 */
#include "hk_fully_connected_sparse.h"

#include "hk_fc_requant.h"

int32_t hk_fully_connected_s8_sparse(const hk_fully_connected_sparse_params_t *params,
                                     const int8_t *input, const int8_t *block_values,
                                     int8_t *output)
{
    if (params == NULL || input == NULL || block_values == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_fully_connected_params_t *p = &params->fc;
    const int32_t bu = params->block_units;
    const int32_t bd = params->block_depth;
    if (p->batches < 0 || p->input_features < 1 || p->output_features < 1 || bu < 1 || bd < 1 ||
        p->output_features % bu != 0 || p->input_features % bd != 0 || p->output_scale == NULL ||
        p->act_min > p->act_max || p->filter_offset != 0 || params->block_starts == NULL ||
        params->block_columns == NULL || params->folded_bias == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t depth = p->input_features;
    const int32_t units = p->output_features;
    const int32_t act_min = hk_max_i32(p->act_min, -128);
    const int32_t act_max = hk_min_i32(p->act_max, 127);
    const int32_t step = p->per_channel ? 1 : 0;
    const size_t block_size = (size_t)bu * (size_t)bd;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *x = input + (size_t)b * (size_t)depth;
        int8_t *out = output + (size_t)b * (size_t)units;
        for (int32_t r = 0; r < units / bu; ++r) {
            const int32_t first = params->block_starts[r];
            const int32_t last = params->block_starts[r + 1];
            for (int32_t u = 0; u < bu; ++u) {
                const int32_t o = r * bu + u;
                uint32_t acc = (uint32_t)params->folded_bias[o];
                for (int32_t k = first; k < last; ++k) {
                    const int8_t *w = block_values + (size_t)k * block_size + (size_t)u * (size_t)bd;
                    const int8_t *xs = x + (size_t)params->block_columns[k] * (size_t)bd;
                    for (int32_t j = 0; j < bd; ++j) {
                        acc += (uint32_t)((int32_t)w[j] * (int32_t)xs[j]);
                    }
                }
                const int32_t value = hk_fc_requant((int32_t)acc, p->output_scale[o * step]);
                const int32_t shifted = (int32_t)((uint32_t)value + (uint32_t)p->output_offset);
                out[o] = (int8_t)hk_clamp_i32(shifted, act_min, act_max);
            }
        }
    }
    return HK_STATUS_OK;
}
