/*
 * helia-aot kernel library: SVDF (a fully connected layer factored into a feature and a time
 * filter, with a memory of the last `memory` feature activations per filter).
 *
 * Per run: the state [batches, filters, memory] ages by one step (the whole buffer moves one
 * element towards the start), the feature product weights_feature . input of each filter becomes
 * that filter's newest slot (memory - 1), and each unit's output is bias + the sum over its `rank`
 * filters of weights_time[f] . state[f], then the activation. The state is the module's
 * persistent tensor, kept from one run to the next; no scratch memory is needed.
 *
 * Integer kernels (int8 input/output, int8 feature weights, int32 bias) keep the state and the
 * time weights in int16 (LiteRT's integer SVDF) or int8 (the int8-state variant of TFLM): the
 * feature product is requantized to the state scale and clamped to the state type, the time sum
 * requantized to the output. As in LiteRT, the integer output gets no activation beyond the int8
 * clamp. Zero points of weights and state are 0 (symmetric), as that arithmetic assumes.
 */
#ifndef HK_SVDF_H
#define HK_SVDF_H

#include "hk_act_f32.h"
#include "hk_common.h"
#include "hk_shapes.h"

typedef struct {
    HK_SVDF_SHAPE_FIELDS
    /* float32 kernel only. */
    int32_t activation; /* HK_ACT_F32_* */
    /* Integer kernels only. */
    int32_t input_offset;       /* -input zero point */
    int32_t output_offset;      /* output zero point */
    int32_t feature_multiplier; /* input * weights_feature / state scale, Q31 */
    int32_t feature_shift;
    int32_t time_multiplier; /* state * weights_time / output scale, Q31 */
    int32_t time_shift;
} hk_svdf_params_t;

int32_t hk_svdf_s8_s16(const hk_svdf_params_t *params, const int8_t *input,
                       const int8_t *weights_feature, const int16_t *weights_time,
                       const int32_t *bias, int16_t *state, int8_t *output);

int32_t hk_svdf_s8_s8(const hk_svdf_params_t *params, const int8_t *input,
                      const int8_t *weights_feature, const int8_t *weights_time,
                      const int32_t *bias, int8_t *state, int8_t *output);

int32_t hk_svdf_f32(const hk_svdf_params_t *params, const float *input,
                    const float *weights_feature, const float *weights_time, const float *bias,
                    float *state, float *output);

#endif /* HK_SVDF_H */
