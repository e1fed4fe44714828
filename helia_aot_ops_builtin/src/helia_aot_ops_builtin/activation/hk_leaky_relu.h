/*
 * helia-aot kernel library: LEAKY_RELU (x above zero, alpha * x below).
 *
 * The quantized kernels take the multipliers, shifts and tables LiteRT's Prepare step computes (the
 * converter computes them the same way, in activation_quantization.py), so their results match
 * the LiteRT reference interpreter bit for bit. Every elementwise kernel reads element i before
 * writing element i, so input and output may be the same buffer.
 */
#ifndef HK_LEAKY_RELU_H
#define HK_LEAKY_RELU_H

#include "hk_common.h"

typedef struct {
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t identity_multiplier; /* input_scale / output_scale */
    int32_t identity_shift;
    int32_t alpha_multiplier;    /* input_scale * alpha / output_scale; negative for alpha < 0 */
    int32_t alpha_shift;
} hk_leaky_relu_params_t;

typedef struct {
    float alpha;
} hk_leaky_relu_f32_params_t;

int32_t hk_leaky_relu_s8(const hk_leaky_relu_params_t *params, const int8_t *input,
                         int8_t *output, size_t size);
int32_t hk_leaky_relu_s16(const hk_leaky_relu_params_t *params, const int16_t *input,
                          int16_t *output, size_t size);
int32_t hk_leaky_relu_f32(const hk_leaky_relu_f32_params_t *params, const float *input,
                          float *output, size_t size);

#endif /* HK_LEAKY_RELU_H */
