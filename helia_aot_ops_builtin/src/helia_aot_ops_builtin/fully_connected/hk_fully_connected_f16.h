/*
 * helia-aot kernel library: float16 FULLY_CONNECTED.
 *
 * output[b, o] = bias[o] + dot(input[b, :], filter[o, :]) over row-major
 * [output_features, input_features] float16 weights, clamped to the fused activation.
 * The dot products are hk_f16_dot.h's, as the `accumulation` knob says: `precise` (the default)
 * accumulates in float on every core, `fast` in eight float16 lanes (vfmaq_f16) on Helium.
 */
#ifndef HK_FULLY_CONNECTED_F16_H
#define HK_FULLY_CONNECTED_F16_H

#include "hk_f16.h"

typedef struct {
    int32_t batches;
    int32_t input_features;
    int32_t output_features;
    float act_min_f32;
    float act_max_f32;
    bool fast_accumulation;        /* accumulation knob: true = float16 lanes on Helium (fast) */
} hk_fully_connected_f16_params_t;

int32_t hk_fully_connected_f16(const hk_fully_connected_f16_params_t *params, const uint16_t *input,
                               const uint16_t *filter, const uint16_t *bias, uint16_t *output);

#endif /* HK_FULLY_CONNECTED_F16_H */
