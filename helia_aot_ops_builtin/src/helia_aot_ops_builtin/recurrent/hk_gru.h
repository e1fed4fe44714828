/*
 * helia-aot kernel library: GRU over a sequence, batch 1, Keras gate order (update z, reset r,
 * candidate n) with reset_after=True:
 *
 *   gx = W x_t + b_in, gh = R h + b_rec (each 3 * units: z, r, n)
 *   z = sigmoid(gx_z + gh_z), r = sigmoid(gx_r + gh_r), n = tanh(gx_n + r * gh_n)
 *   h = z * h + (1 - z) * n
 *
 * The state starts from `initial` (or zeros when NULL); with `state` set, the last h is written
 * back there, so a persistent state tensor carries it to the next run. `scratch` holds
 * 7 * units floats (gx, gh and h).
 */
#ifndef HK_GRU_H
#define HK_GRU_H

#include "hk_act_f32.h"
#include "hk_common.h"
#include "hk_shapes.h"

typedef struct {
    HK_GRU_SHAPE_FIELDS
} hk_gru_params_t;

int32_t hk_gru_f32(const hk_gru_params_t *params, const float *input, const float *kernel,
                   const float *recurrent_kernel, const float *input_bias,
                   const float *recurrent_bias, const float *initial, float *state,
                   float *output, float *scratch);

#endif /* HK_GRU_H */
