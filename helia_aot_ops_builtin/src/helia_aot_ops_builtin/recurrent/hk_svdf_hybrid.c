/*
 * helia-aot kernel library: hybrid SVDF (see hk_svdf_hybrid.h).
 */
#include "hk_svdf_hybrid.h"

#include "hk_hybrid_quant.h"

int32_t hk_svdf_hybrid(const hk_svdf_hybrid_params_t *params, const float *input,
                       const int8_t *weights_feature, const float *weights_time, const float *bias,
                       int8_t *scratch, float *state, float *output)
{
    const hk_svdf_hybrid_params_t *p = params;
    if (p == NULL || p->batches < 1 || p->input_size < 1 || p->rank < 1 || p->filters < 1 ||
        p->filters % p->rank != 0 || p->memory < 1 || !hk_act_f32_known(p->activation) ||
        input == NULL || weights_feature == NULL || weights_time == NULL || scratch == NULL ||
        state == NULL || output == NULL || (p->asymmetric && p->row_sums == NULL)) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t batches = (size_t)p->batches;
    const size_t in = (size_t)p->input_size;
    const size_t filters = (size_t)p->filters;
    const size_t memory = (size_t)p->memory;
    const size_t per_batch = filters * memory;
    const size_t units = filters / (size_t)p->rank;
    memmove(state, state + 1, (per_batch * batches - 1u) * sizeof(float));
    const bool zero = hk_hybrid_all_zero(input, batches * in);
    for (size_t b = 0; b < batches; ++b) {
        float *s = state + b * per_batch;
        int32_t offset = 0;
        float scale = 0.0f;
        if (!zero) {
            scale = hk_hybrid_quantize_row(input + b * in, in, scratch, p->asymmetric != 0, &offset);
            scale *= p->feature_scale;
        }
        for (size_t f = 0; f < filters; ++f) {
            float newest = 0.0f;
            if (!zero) {
                const int8_t *w = weights_feature + f * in;
                uint32_t dot = 0;
                for (size_t i = 0; i < in; ++i) {
                    dot += (uint32_t)((int32_t)w[i] * (int32_t)scratch[i]);
                }
                if (p->asymmetric) {
                    dot -= (uint32_t)p->row_sums[f] * (uint32_t)offset;
                }
                newest += (float)(int32_t)dot * scale;
            }
            s[f * memory + memory - 1u] = newest;
        }
        for (size_t u = 0; u < units; ++u) {
            float acc = 0.0f;
            for (size_t k = 0; k < (size_t)p->rank; ++k) {
                const size_t f = u * (size_t)p->rank + k;
                const float *wt = weights_time + f * memory;
                const float *sf = s + f * memory;
                float dot = 0.0f;
                for (size_t j = 0; j < memory; ++j) {
                    dot += wt[j] * sf[j];
                }
                acc += dot;
            }
            if (bias != NULL) {
                acc += bias[u];
            }
            output[b * units + u] = hk_act_f32(acc, p->activation);
        }
    }
    return HK_STATUS_OK;
}
