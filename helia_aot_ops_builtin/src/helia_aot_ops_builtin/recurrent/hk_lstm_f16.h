/*
 * helia-aot kernel library: float16 UNIDIRECTIONAL_SEQUENCE_LSTM (the Keras subset).
 *
 * The float LSTM of hk_lstm.h without peephole, projection or layer normalization (CIFG
 * allowed), on float16 input, weights, biases, states and output. Each gate sums its float16
 * products in float, the gates and the cell are evaluated in float, and h and c stay in float
 * from one time step to the next inside a run: only what leaves the kernel is rounded to float16,
 * once (each output row, and the states written back at the end of the run). `scratch` holds
 * HK_LSTM_F16_SCRATCH(n_cell) floats.
 */
#ifndef HK_LSTM_F16_H
#define HK_LSTM_F16_H

#include "hk_f16.h"

#define HK_LSTM_F16_GATES 4 /* input, forget, cell, output (LiteRT's order) */

/* Scratch of hk_lstm_f16, in floats: four gates, h and c. */
#define HK_LSTM_F16_SCRATCH(n_cell) (6 * (n_cell))

typedef struct {
    int32_t max_time;
    int32_t n_batch;
    int32_t n_input;
    int32_t n_cell;     /* = n_output (no projection) */
    int32_t time_major; /* 1: input [time, batch, input]; 0: [batch, time, input] */
    int32_t activation; /* LiteRT fused activation of the cell gate and output: 1, 2, 3 or 4 (tanh) */
    float cell_clip;    /* 0: no clipping */
} hk_lstm_f16_params_t;

/* float16 weights [n_cell, n_input] / [n_cell, n_cell] and biases [n_cell]; the input gate's are
 * NULL for CIFG (input gate = 1 - forget gate). */
typedef struct {
    const uint16_t *input_to_gate[HK_LSTM_F16_GATES];
    const uint16_t *recurrent_to_gate[HK_LSTM_F16_GATES];
    const uint16_t *bias[HK_LSTM_F16_GATES];
} hk_lstm_f16_weights_t;

int32_t hk_lstm_f16(const hk_lstm_f16_params_t *params, const hk_lstm_f16_weights_t *weights,
                    const uint16_t *input, uint16_t *output_state, uint16_t *cell_state, uint16_t *output,
                    float *scratch);

#endif /* HK_LSTM_F16_H */
