/*
 * helia-aot kernel library: the float32 fused activations of the recurrent kernels.
 *
 * Codes are LiteRT's ActivationFunctionType values (NONE 0, RELU 1, RELU_N1_TO_1 2, RELU6 3,
 * TANH 4); HK_ACT_F32_SIGMOID is this library's own code for the logistic gates of GRU.
 */
#ifndef HK_ACT_F32_H
#define HK_ACT_F32_H

#include <math.h>

#include "hk_common.h"

#define HK_ACT_F32_NONE 0
#define HK_ACT_F32_RELU 1
#define HK_ACT_F32_RELU_N1_TO_1 2
#define HK_ACT_F32_RELU6 3
#define HK_ACT_F32_TANH 4
#define HK_ACT_F32_SIGMOID 100

/* Whether `code` is one of the activations above. */
HK_INLINE bool hk_act_f32_known(int32_t code)
{
    return (code >= HK_ACT_F32_NONE && code <= HK_ACT_F32_TANH) || code == HK_ACT_F32_SIGMOID;
}

/* Follows LiteRT tensor_utils ApplyActivationToVector on one value (std::tanh, 1 / (1 + exp(-x))). */
HK_INLINE float hk_act_f32(float x, int32_t code)
{
    switch (code) {
    case HK_ACT_F32_RELU:
        return x < 0.0f ? 0.0f : x;
    case HK_ACT_F32_RELU_N1_TO_1:
        return hk_clamp_f32(x, -1.0f, 1.0f);
    case HK_ACT_F32_RELU6:
        return hk_clamp_f32(x, 0.0f, 6.0f);
    case HK_ACT_F32_TANH:
        return tanhf(x);
    case HK_ACT_F32_SIGMOID:
        return 1.0f / (1.0f + expf(-x));
    default:
        return x;
    }
}

#endif /* HK_ACT_F32_H */
