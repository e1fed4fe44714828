/*
 * helia-aot kernel library: float16 SVDF (see hk_svdf_f16.h).
 */
#include "hk_svdf_f16.h"

#include <string.h>

/* Follows LiteRT reference_ops / svdf EvalFloatSVDF: shift the state left by one, write the
 * feature products into the newest slots, reduce each unit's filters against weights_time, add
 * the bias and apply the activation. */
int32_t hk_svdf_f16(const hk_svdf_f16_params_t *params, const uint16_t *input,
                    const uint16_t *weights_feature, const uint16_t *weights_time, const uint16_t *bias,
                    uint16_t *state, uint16_t *output)
{
    if (params == NULL || input == NULL || weights_feature == NULL || weights_time == NULL ||
        state == NULL || output == NULL || params->batches < 1 || params->input_size < 1 ||
        params->rank < 1 || params->filters < params->rank || params->filters % params->rank != 0 ||
        params->memory < 1 || !hk_act_f32_known(params->activation)) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_svdf_f16_params_t p = *params;
    const hk_f16_t *x_all = (const hk_f16_t *)(const void *)input;
    const hk_f16_t *wf = (const hk_f16_t *)(const void *)weights_feature;
    const hk_f16_t *wt = (const hk_f16_t *)(const void *)weights_time;
    const hk_f16_t *b = (const hk_f16_t *)(const void *)bias;
    hk_f16_t *s_all = (hk_f16_t *)(void *)state;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    const int32_t units = p.filters / p.rank;
    const size_t memory = (size_t)p.memory;
    const size_t per_batch = (size_t)p.filters * memory;
    memmove(s_all, s_all + 1, (per_batch * (size_t)p.batches - 1u) * sizeof(hk_f16_t));
    for (int32_t n = 0; n < p.batches; ++n) {
        const hk_f16_t *x = x_all + (size_t)n * (size_t)p.input_size;
        hk_f16_t *s = s_all + (size_t)n * per_batch;
        for (int32_t f = 0; f < p.filters; ++f) {
            const hk_f16_t *w = wf + (size_t)f * (size_t)p.input_size;
            float dot = 0.0f;
            for (int32_t i = 0; i < p.input_size; ++i) {
                dot += (float)w[i] * (float)x[i];
            }
            s[(size_t)f * memory + memory - 1u] = hk_f16_round(dot);
        }
        for (int32_t u = 0; u < units; ++u) {
            float acc = b != NULL ? (float)b[u] : 0.0f;
            for (int32_t k = 0; k < p.rank; ++k) {
                const size_t f = (size_t)u * (size_t)p.rank + (size_t)k;
                const hk_f16_t *w = wt + f * memory;
                const hk_f16_t *sf = s + f * memory;
                float dot = 0.0f;
                for (size_t j = 0; j < memory; ++j) {
                    dot += (float)w[j] * (float)sf[j];
                }
                acc += dot;
            }
            out[(size_t)n * (size_t)units + (size_t)u] = hk_f16_round(hk_act_f32(acc, p.activation));
        }
    }
    return HK_STATUS_OK;
}
