/*
 * helia-aot kernel library: float16 SVDF.
 *
 * The float SVDF of hk_svdf.h on float16 input, weights, bias and state: per run the state
 * [batches, filters, memory] ages by one step, each filter's feature product (float16 products
 * summed in float) is rounded once into its newest slot, and each unit's output is bias + the sum
 * over its `rank` filters of weights_time[f] . state[f] in float, then the fused activation,
 * rounded once to float16. The state is the module's persistent float16 tensor.
 */
#ifndef HK_SVDF_F16_H
#define HK_SVDF_F16_H

#include "hk_act_f32.h"
#include "hk_f16.h"
#include "hk_shapes.h"

typedef struct {
    HK_SVDF_SHAPE_FIELDS
    int32_t activation; /* HK_ACT_F32_* */
} hk_svdf_f16_params_t;

int32_t hk_svdf_f16(const hk_svdf_f16_params_t *params, const uint16_t *input,
                    const uint16_t *weights_feature, const uint16_t *weights_time, const uint16_t *bias,
                    uint16_t *state, uint16_t *output);

#endif /* HK_SVDF_F16_H */
