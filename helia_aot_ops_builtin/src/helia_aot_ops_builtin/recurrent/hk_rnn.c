/*
 * helia-aot kernel library: UNIDIRECTIONAL_SEQUENCE_RNN (see hk_rnn.h).
 */
#include "hk_rnn.h"

/* Follows LiteRT kernel_utils::RnnBatchStep (float): the output starts at the bias, the input
 * and then the recurrent matrix-vector products are added (each dot product summed on its
 * own first), the activation is applied, and the output becomes the hidden state. */
static void rnn_step_f32(const hk_rnn_params_t *p, const float *x, const float *input_weights,
                         const float *recurrent_weights, const float *bias, float *h, float *y)
{
    const size_t units = (size_t)p->units;
    const size_t input_size = (size_t)p->input_size;
    for (size_t u = 0; u < units; ++u) {
        float acc = bias != NULL ? bias[u] : 0.0f;
        const float *w = input_weights + u * input_size;
        float dot = 0.0f;
        for (size_t i = 0; i < input_size; ++i) {
            dot += w[i] * x[i];
        }
        acc += dot;
        const float *r = recurrent_weights + u * units;
        dot = 0.0f;
        for (size_t j = 0; j < units; ++j) {
            dot += r[j] * h[j];
        }
        acc += dot;
        y[u] = hk_act_f32(acc, p->activation);
    }
    memcpy(h, y, units * sizeof(float));
}

/* Follows LiteRT unidirectional_sequence_rnn.cc EvalFloat (time-major and batch-major orders). */
int32_t hk_rnn_sequence_f32(const hk_rnn_params_t *params, const float *input,
                            const float *input_weights, const float *recurrent_weights,
                            const float *bias, float *hidden, float *output)
{
    if (params == NULL || params->batches < 1 || params->steps < 1 || params->input_size < 1 ||
        params->units < 1 || !hk_act_f32_known(params->activation) || input == NULL ||
        input_weights == NULL || recurrent_weights == NULL || hidden == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_rnn_params_t *p = params;
    const size_t batches = (size_t)p->batches;
    const size_t steps = (size_t)p->steps;
    const size_t in = (size_t)p->input_size;
    const size_t units = (size_t)p->units;
    for (size_t outer = 0; outer < (p->time_major ? steps : batches); ++outer) {
        for (size_t inner = 0; inner < (p->time_major ? batches : steps); ++inner) {
            const size_t b = p->time_major ? inner : outer;
            const size_t row = outer * (p->time_major ? batches : steps) + inner;
            rnn_step_f32(p, input + row * in, input_weights, recurrent_weights, bias,
                         hidden + b * units, output + row * units);
        }
    }
    return HK_STATUS_OK;
}
