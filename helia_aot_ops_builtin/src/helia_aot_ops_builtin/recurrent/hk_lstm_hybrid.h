/*
 * helia-aot kernel library: hybrid UNIDIRECTIONAL_SEQUENCE_LSTM (float32 input, states and
 * output; int8 input, recurrent, peephole and projection weights with one scale each; float32
 * biases and layer-norm coefficients). What the TFLite converter's dynamic-range quantization
 * makes of a float LSTM.
 *
 * Each step follows LiteRT's LstmStepHybrid: the input rows, then the output-state rows, are
 * quantized to int8 row by row (hk_hybrid_quant.h: symmetric, or asymmetric with
 * asymmetric_quantize_inputs), unless the whole block of rows is zero, in which case its products
 * are skipped. Each gate starts at its bias (at zero with layer normalisation) and adds
 * float(W q - row_sum * offset) * (row scale * weight scale) for the input and then the state;
 * the peephole adds (weight scale * w) * c; then the float cell's layer normalisation and
 * activations (hk_lstm.h). The hidden state o * act(c) is, with a projection, quantized in turn
 * and projected onto the projection bias, then clipped. Time-major input steps all batch rows
 * together (one zero test over them all); batch-major input steps one row at a time, as LiteRT.
 */
#ifndef HK_LSTM_HYBRID_H
#define HK_LSTM_HYBRID_H

#include "hk_common.h"
#include "hk_lstm.h"

/* Entries may be NULL as in hk_lstm_f32_weights_t; the row sums (per output row, the sum of its
 * int8 weights) are read only with asymmetric_quantize_inputs. */
typedef struct {
    const int8_t *input_to_gate[HK_LSTM_GATES];
    const int8_t *recurrent_to_gate[HK_LSTM_GATES];
    const int8_t *cell_to_gate[HK_LSTM_GATES];
    const float *layer_norm[HK_LSTM_GATES];
    const float *bias[HK_LSTM_GATES];
    const int8_t *projection_weights;
    const float *projection_bias;
    const int32_t *input_row_sums[HK_LSTM_GATES];
    const int32_t *recurrent_row_sums[HK_LSTM_GATES];
    const int32_t *projection_row_sums;
} hk_lstm_hybrid_weights_t;

typedef struct {
    hk_lstm_shape_t shape;
    int32_t activation; /* as hk_lstm_f32_params_t */
    float cell_clip;    /* 0: no clipping */
    float proj_clip;
    int32_t asymmetric; /* nonzero: asymmetric_quantize_inputs */
    float input_scale[HK_LSTM_GATES];
    float recurrent_scale[HK_LSTM_GATES];
    float cell_scale[HK_LSTM_GATES];
    float projection_scale;
} hk_lstm_hybrid_params_t;

/* Scratch of hk_lstm_hybrid, in bytes, for `rows` batch rows stepped together (all batch rows
 * when time-major, one otherwise): four float gate rows, the dequantized peephole weights, three
 * float row scales and three int32 offsets per row, and the int8 quantized input, state and
 * hidden rows. */
#define HK_LSTM_HYBRID_SCRATCH(rows, n_input, n_cell, n_output)                                  \
    (4 * (4 * (rows) * (n_cell) + (n_cell) + 6 * (rows)) + (rows) * ((n_input) + (n_output) + (n_cell)))

int32_t hk_lstm_hybrid(const hk_lstm_hybrid_params_t *params, const hk_lstm_hybrid_weights_t *weights,
                       const float *input, float *output_state, float *cell_state, float *output,
                       void *scratch);

#endif /* HK_LSTM_HYBRID_H */
