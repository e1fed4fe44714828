/*
 * helia-aot kernel library: hybrid UNIDIRECTIONAL_SEQUENCE_RNN and RNN (see hk_rnn_hybrid.h).
 */
#include "hk_rnn_hybrid.h"

#include "hk_hybrid_quant.h"

/* y += float(W q - row_sums * offset) * scale for one quantized row of n values. */
static void rnn_hybrid_product(const int8_t *w, const float *x, size_t n, size_t units,
                               bool asymmetric, float weight_scale, const int32_t *row_sums,
                               int8_t *q, float *y)
{
    if (hk_hybrid_all_zero(x, n)) {
        return;
    }
    int32_t offset;
    const float scale = hk_hybrid_quantize_row(x, n, q, asymmetric, &offset) * weight_scale;
    for (size_t u = 0; u < units; ++u) {
        const int8_t *row = w + u * n;
        uint32_t dot = 0;
        for (size_t i = 0; i < n; ++i) {
            dot += (uint32_t)((int32_t)row[i] * (int32_t)q[i]);
        }
        if (asymmetric) {
            dot -= (uint32_t)row_sums[u] * (uint32_t)offset;
        }
        y[u] += (float)(int32_t)dot * scale;
    }
}

int32_t hk_rnn_sequence_hybrid(const hk_rnn_hybrid_params_t *params, const float *input,
                               const int8_t *input_weights, const int8_t *recurrent_weights,
                               const float *bias, int8_t *scratch, float *hidden, float *output)
{
    if (params == NULL || params->rnn.batches < 1 || params->rnn.steps < 1 ||
        params->rnn.input_size < 1 || params->rnn.units < 1 ||
        !hk_act_f32_known(params->rnn.activation) || input == NULL || input_weights == NULL ||
        recurrent_weights == NULL || scratch == NULL || hidden == NULL || output == NULL ||
        (params->asymmetric && (params->input_row_sums == NULL || params->recurrent_row_sums == NULL))) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_rnn_params_t *p = &params->rnn;
    const bool asymmetric = params->asymmetric != 0;
    const size_t batches = (size_t)p->batches;
    const size_t steps = (size_t)p->steps;
    const size_t in = (size_t)p->input_size;
    const size_t units = (size_t)p->units;
    for (size_t outer = 0; outer < (p->time_major ? steps : batches); ++outer) {
        for (size_t inner = 0; inner < (p->time_major ? batches : steps); ++inner) {
            const size_t b = p->time_major ? inner : outer;
            const size_t row = outer * (p->time_major ? batches : steps) + inner;
            float *y = output + row * units;
            float *h = hidden + b * units;
            for (size_t u = 0; u < units; ++u) {
                y[u] = bias != NULL ? bias[u] : 0.0f;
            }
            rnn_hybrid_product(input_weights, input + row * in, in, units, asymmetric,
                               params->input_scale, params->input_row_sums, scratch, y);
            rnn_hybrid_product(recurrent_weights, h, units, units, asymmetric,
                               params->recurrent_scale, params->recurrent_row_sums, scratch, y);
            for (size_t u = 0; u < units; ++u) {
                y[u] = hk_act_f32(y[u], p->activation);
            }
            memcpy(h, y, units * sizeof(float));
        }
    }
    return HK_STATUS_OK;
}
