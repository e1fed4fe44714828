/*
 * helia-aot kernel library: float16 FULLY_CONNECTED (see hk_fully_connected_f16.h).
 */
#include "hk_fully_connected_f16.h"

#include "hk_f16_dot.h"

/* The layer with one accumulation: `fast` is a constant at both calls, so each keeps a loop of
 * its own with its dot product inlined. */
HK_INLINE int32_t fully_connected_f16_run(const hk_fully_connected_f16_params_t *params, const uint16_t *input,
                                          const uint16_t *filter, const uint16_t *bias, uint16_t *output,
                                          bool fast)
{
    const hk_fully_connected_f16_params_t p = *params;
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    const hk_f16_t *w = (const hk_f16_t *)(const void *)filter;
    const hk_f16_t *b = (const hk_f16_t *)(const void *)bias;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    for (int32_t n = 0; n < p.batches; ++n) {
        const hk_f16_t *row = in + n * p.input_features;
        for (int32_t o = 0; o < p.output_features; ++o) {
            const hk_f16_t *unit = w + o * p.input_features;
            float acc = fast ? hk_f16_dot(row, unit, p.input_features)
                             : hk_f16_dot_precise(row, unit, p.input_features);
            if (b != NULL) {
                acc += (float)b[o];
            }
            out[n * p.output_features + o] = hk_f16_clamp(acc, p.act_min_f32, p.act_max_f32);
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::FullyConnected (float): the bias plus the dot product of the input
 * row with the unit's weights, then the fused activation clamp. */
int32_t hk_fully_connected_f16(const hk_fully_connected_f16_params_t *params, const uint16_t *input,
                               const uint16_t *filter, const uint16_t *bias, uint16_t *output)
{
    if (params == NULL || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    return params->fast_accumulation ? fully_connected_f16_run(params, input, filter, bias, output, true)
                                     : fully_connected_f16_run(params, input, filter, bias, output, false);
}
