/*
 * helia-aot kernel library: GELU on float32 (see hk_gelu.h).
 */
#include <math.h>

#include "hk_gelu.h"

/* Follows LiteRT GeluTransform: 0.5 x erfc(-x / sqrt(2)) (erfc avoids cancellation for x << 0). */
int32_t hk_gelu_f32(const float *input, float *output, size_t size)
{
    const float minus_sqrt_half = -0.70710678118654752440f;
    for (size_t i = 0; i < size; ++i) {
        const float x = input[i];
        output[i] = 0.5f * x * erfcf(x * minus_sqrt_half);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT GeluTransformApproximate: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))). */
int32_t hk_gelu_tanh_f32(const float *input, float *output, size_t size)
{
    const float sqrt_two_over_pi = 0.79788456080286535588f;
    for (size_t i = 0; i < size; ++i) {
        const float x = input[i];
        output[i] = 0.5f * x * (1.0f + tanhf(sqrt_two_over_pi * (x + 0.044715f * x * x * x)));
    }
    return HK_STATUS_OK;
}
