/*
 * helia-aot kernel library: UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM.
 *
 * One call runs the whole sequence: every time step of every batch row, updating the output
 * state and cell state in place (they are the model's persistent state tensors, so they carry
 * from one model run to the next, as in the LiteRT interpreter). Gates are indexed input,
 * forget, cell, output (HK_LSTM_GATE_*); a NULL input-gate weight means CIFG (the input gate is
 * 1 - forget), NULL peephole, layer-norm or projection pointers switch those parts off.
 */
#ifndef HK_LSTM_H
#define HK_LSTM_H

#include "hk_common.h"

#define HK_LSTM_GATES 4
#define HK_LSTM_GATE_INPUT 0
#define HK_LSTM_GATE_FORGET 1
#define HK_LSTM_GATE_CELL 2
#define HK_LSTM_GATE_OUTPUT 3

/* Shapes and options shared by the float and integer kernels. */
typedef struct {
    int32_t max_time;
    int32_t n_batch;
    int32_t n_input;
    int32_t n_cell;
    int32_t n_output;
    int32_t time_major;    /* 1: input [time, batch, input]; 0: [batch, time, input] */
    int32_t reverse;       /* 1: walk the time steps backwards (the backward direction) */
    int32_t output_stride; /* elements from one output row to the next (n_output unless merged) */
} hk_lstm_shape_t;

/* float32 weights; entries may be NULL as described above. */
typedef struct {
    const float *input_to_gate[HK_LSTM_GATES];
    const float *aux_to_gate[HK_LSTM_GATES]; /* auxiliary input (bidirectional), or NULL */
    const float *recurrent_to_gate[HK_LSTM_GATES];
    const float *cell_to_gate[HK_LSTM_GATES]; /* peephole, never for the cell gate */
    const float *layer_norm[HK_LSTM_GATES];
    const float *bias[HK_LSTM_GATES];
    const float *projection_weights;
    const float *projection_bias;
} hk_lstm_f32_weights_t;

typedef struct {
    hk_lstm_shape_t shape;
    int32_t n_aux_input;
    int32_t activation; /* LiteRT fused activation of the cell gate and output: 0,1,2,3 or 4 (tanh) */
    float cell_clip;    /* 0: no clipping */
    float proj_clip;
} hk_lstm_f32_params_t;

/* Scratch of hk_lstm_f32, in floats. */
#define HK_LSTM_F32_SCRATCH(n_cell, n_output) (5 * (n_cell) + (n_output))

int32_t hk_lstm_f32(const hk_lstm_f32_params_t *params, const hk_lstm_f32_weights_t *weights,
                    const float *input, const float *aux_input, float *output_state,
                    float *cell_state, float *output, float *scratch);

/* The float cell's pieces the hybrid kernel (hk_lstm_hybrid.h) shares: a gate or cell
 * activation (the codes of hk_lstm_f32_params_t.activation, 6 the sigmoid) and the layer
 * normalisation of one gate row (mean/stddev, times the coefficients, plus the bias). */
float hk_lstm_activate_f32(float x, int32_t activation);
void hk_lstm_layer_norm_f32(float *gate, const float *coefficients, const float *bias, int32_t n_cell);

/* 8x8_16 integer weights: int8 matrices, int16 peephole and layer-norm coefficients; the
 * effective biases fold the zero points (and, without layer norm, the gate bias) in. */
typedef struct {
    const int8_t *input_to_gate[HK_LSTM_GATES];
    const int8_t *recurrent_to_gate[HK_LSTM_GATES];
    const int16_t *cell_to_gate[HK_LSTM_GATES];
    const int16_t *layer_norm[HK_LSTM_GATES];
    const int32_t *layer_norm_bias[HK_LSTM_GATES];
    const int32_t *input_bias[HK_LSTM_GATES];
    const int32_t *recurrent_bias[HK_LSTM_GATES];
    const int8_t *projection_weights;
    const int32_t *projection_bias;
} hk_lstm_s8_weights_t;

typedef struct {
    hk_lstm_shape_t shape;
    int32_t input_multiplier[HK_LSTM_GATES];
    int32_t input_shift[HK_LSTM_GATES];
    int32_t recurrent_multiplier[HK_LSTM_GATES];
    int32_t recurrent_shift[HK_LSTM_GATES];
    int32_t cell_multiplier[HK_LSTM_GATES];
    int32_t cell_shift[HK_LSTM_GATES];
    int32_t layer_norm_multiplier[HK_LSTM_GATES];
    int32_t layer_norm_shift[HK_LSTM_GATES];
    int32_t variance_guard[HK_LSTM_GATES];
    int32_t hidden_multiplier;
    int32_t hidden_shift;
    int32_t hidden_zero_point;
    int32_t projection_multiplier;
    int32_t projection_shift;
    int32_t output_state_zero_point;
    int32_t cell_scale_log2; /* the cell state's scale is 2^cell_scale_log2 */
    int32_t cell_clip;       /* quantized; 0: no clipping */
    int32_t proj_clip;
} hk_lstm_s8_params_t;

/* Scratch of hk_lstm_s8, in bytes: four int16 gate rows and one int8 row per batch row processed
 * together (all batch rows when time-major, one otherwise). */
#define HK_LSTM_S8_SCRATCH(rows, n_cell) (9 * (rows) * (n_cell))

int32_t hk_lstm_s8(const hk_lstm_s8_params_t *params, const hk_lstm_s8_weights_t *weights,
                   const int8_t *input, int8_t *output_state, int16_t *cell_state, int8_t *output,
                   void *scratch);

/* gemmlowp's logistic / tanh on int16 fixed point with integer_bits integer bits, result Q0.15
 * (exposed for the kernel tests). */
int16_t hk_lstm_logistic_q15(int16_t x, int32_t integer_bits);
int16_t hk_lstm_tanh_q15(int16_t x, int32_t integer_bits);

#endif /* HK_LSTM_H */
