/*
 * helia-aot kernel library: LEAKY_RELU (see hk_leaky_relu.h).
 */
#include "hk_leaky_relu.h"

/* The alpha branch negates after scaling by |multiplier| so rounding is symmetric in alpha. */
static int32_t leaky_relu_value(const hk_leaky_relu_params_t *params, int32_t q)
{
    const int32_t x = q - params->input_zero_point;
    if (x >= 0) {
        return params->output_zero_point +
               hk_mbqm(x, params->identity_multiplier, params->identity_shift);
    }
    if (params->alpha_multiplier < 0) {
        return params->output_zero_point -
               hk_mbqm(x, -params->alpha_multiplier, params->alpha_shift);
    }
    return params->output_zero_point + hk_mbqm(x, params->alpha_multiplier, params->alpha_shift);
}

/* Follows LiteRT reference_ops::QuantizeLeakyRelu (int8). */
int32_t hk_leaky_relu_s8(const hk_leaky_relu_params_t *params, const int8_t *input,
                         int8_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = hk_sat_s8(leaky_relu_value(params, input[i]));
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::QuantizeLeakyRelu (int16). */
int32_t hk_leaky_relu_s16(const hk_leaky_relu_params_t *params, const int16_t *input,
                          int16_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = hk_sat_s16(leaky_relu_value(params, input[i]));
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::LeakyRelu (float): alpha may exceed one or be negative. */
int32_t hk_leaky_relu_f32(const hk_leaky_relu_f32_params_t *params, const float *input,
                          float *output, size_t size)
{
    const float alpha = params->alpha;
    for (size_t i = 0; i < size; ++i) {
        const float v = input[i];
        output[i] = v > 0.0f ? v : v * alpha;
    }
    return HK_STATUS_OK;
}
