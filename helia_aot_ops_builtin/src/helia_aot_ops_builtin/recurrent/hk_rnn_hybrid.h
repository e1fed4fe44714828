/*
 * helia-aot kernel library: hybrid UNIDIRECTIONAL_SEQUENCE_RNN and RNN (float32 sequence and
 * state, int8 input and recurrent weights with one scale each).
 *
 * Each step follows LiteRT's hybrid RnnBatchStep: the output row starts at the bias; unless the
 * input row is zero everywhere it is quantized (hk_hybrid_quant.h) and float(W q) * (row scale
 * * weight scale) is added; then the same for the hidden state and the recurrent weights; the
 * activation is applied and the output row becomes the hidden state. Shapes and step orders are
 * those of hk_rnn.h.
 */
#ifndef HK_RNN_HYBRID_H
#define HK_RNN_HYBRID_H

#include "hk_common.h"
#include "hk_rnn.h"

typedef struct {
    hk_rnn_params_t rnn;
    int32_t asymmetric;             /* nonzero: asymmetric_quantize_inputs */
    float input_scale;              /* the input weights' scale */
    float recurrent_scale;          /* the recurrent weights' scale */
    const int32_t *input_row_sums;  /* per unit, the sum of its input weights (asymmetric) */
    const int32_t *recurrent_row_sums;
} hk_rnn_hybrid_params_t;

/* scratch holds max(input_size, units) bytes (one quantized row). */
int32_t hk_rnn_sequence_hybrid(const hk_rnn_hybrid_params_t *params, const float *input,
                               const int8_t *input_weights, const int8_t *recurrent_weights,
                               const float *bias, int8_t *scratch, float *hidden, float *output);

#endif /* HK_RNN_HYBRID_H */
