/*
 * helia-aot kernel library: RELU, RELU6 and RELU_N1_TO_1 (see hk_relu.h).
 */
#include "hk_relu.h"

/* Follows LiteRT reference_ops::ReluX (int8): requantize, then clamp to the activation range. */
int32_t hk_relu_s8(const hk_relu_params_t *params, const int8_t *input, int8_t *output,
                   size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const int32_t v = params->output_zero_point +
                          hk_mbqm((int32_t)input[i] - params->input_zero_point,
                                  params->output_multiplier, params->output_shift);
        output[i] = (int8_t)hk_clamp_i32(v, params->activation_min, params->activation_max);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::ReluX (int16). */
int32_t hk_relu_s16(const hk_relu_params_t *params, const int16_t *input, int16_t *output,
                    size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const int32_t v = params->output_zero_point +
                          hk_mbqm((int32_t)input[i] - params->input_zero_point,
                                  params->output_multiplier, params->output_shift);
        output[i] = (int16_t)hk_clamp_i32(v, params->activation_min, params->activation_max);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Relu / Relu6 / Relu1 (float): NaN passes through unchanged. */
int32_t hk_relu_f32(const hk_relu_f32_params_t *params, const float *input, float *output,
                    size_t size)
{
    const float lo = params->activation_min;
    const float hi = params->activation_max;
    for (size_t i = 0; i < size; ++i) {
        const float v = input[i];
        output[i] = v > hi ? hi : (v < lo ? lo : v);
    }
    return HK_STATUS_OK;
}
