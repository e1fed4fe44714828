/*
 * helia-aot kernel library: the basic recurrent cell, h = activation(W x + R h + b), over a
 * sequence (UNIDIRECTIONAL_SEQUENCE_RNN).
 *
 * The hidden state [batches, units] is the module's persistent tensor: each step writes its
 * output row and copies it into the state, so the next step, and the next run, continue from it.
 * Batch-major sequences are [batches, steps, features] and run batch by batch; time-major ones
 * are [steps, batches, features] and run step by step.
 */
#ifndef HK_RNN_H
#define HK_RNN_H

#include "hk_act_f32.h"
#include "hk_common.h"

typedef struct {
    int32_t batches;
    int32_t steps;
    int32_t input_size;
    int32_t units;
    int32_t time_major; /* nonzero: input [steps, batches, input_size] */
    int32_t activation; /* HK_ACT_F32_* */
} hk_rnn_params_t;

int32_t hk_rnn_sequence_f32(const hk_rnn_params_t *params, const float *input,
                            const float *input_weights, const float *recurrent_weights,
                            const float *bias, float *hidden, float *output);

#endif /* HK_RNN_H */
