/*
 * helia-aot kernel library: ELU on float32 (see hk_elu.h).
 */
#include <math.h>

#include "hk_elu.h"

/* Follows LiteRT optimized_ops::Elu: expm1(x) below zero, x elsewhere. */
int32_t hk_elu_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const float x = input[i];
        output[i] = x < 0.0f ? expm1f(x) : x;
    }
    return HK_STATUS_OK;
}
