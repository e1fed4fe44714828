/*
 * helia-aot kernel library: float16 GRU over a sequence (batch 1, Keras gate order, reset_after).
 *
 * The cell of hk_gru.h on float16 input, weights, biases, state and output: the gate products
 * (float16 operands, exact in float) are summed in float, the gates and h are evaluated in float,
 * and h stays in float from one step to the next inside a run. Only what leaves the kernel is
 * rounded to float16, once: each output row, and the last h written back to a variable state.
 * `scratch` holds 7 * units floats (gx, gh and h).
 */
#ifndef HK_GRU_F16_H
#define HK_GRU_F16_H

#include "hk_act_f32.h"
#include "hk_f16.h"
#include "hk_shapes.h"

typedef struct {
    HK_GRU_SHAPE_FIELDS
} hk_gru_f16_params_t;

int32_t hk_gru_f16(const hk_gru_f16_params_t *params, const uint16_t *input, const uint16_t *kernel,
                   const uint16_t *recurrent_kernel, const uint16_t *input_bias,
                   const uint16_t *recurrent_bias, const uint16_t *initial, uint16_t *state,
                   uint16_t *output, float *scratch);

#endif /* HK_GRU_F16_H */
