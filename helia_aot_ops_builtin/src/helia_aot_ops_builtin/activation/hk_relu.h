/*
 * helia-aot kernel library: RELU, RELU6 and RELU_N1_TO_1 (requantizing clamps).
 *
 * The quantized kernels take the multipliers, shifts and tables LiteRT's Prepare step computes (the
 * converter computes them the same way, in activation_quantization.py), so their results match
 * the LiteRT reference interpreter bit for bit. Every elementwise kernel reads element i before
 * writing element i, so input and output may be the same buffer.
 */
#ifndef HK_RELU_H
#define HK_RELU_H

#include "hk_common.h"

/* Requantizing clamp of RELU, RELU6 and RELU_N1_TO_1 on int8/int16 tensors. */
typedef struct {
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t output_multiplier; /* input_scale / output_scale, LiteRT QuantizeMultiplier */
    int32_t output_shift;      /* positive = left */
    int32_t activation_min;    /* quantized clamp bounds, already intersected with the type */
    int32_t activation_max;
} hk_relu_params_t;

/* Clamp bounds of a float RELU-family op (use INFINITY for an open upper bound). */
typedef struct {
    float activation_min;
    float activation_max;
} hk_relu_f32_params_t;

int32_t hk_relu_s8(const hk_relu_params_t *params, const int8_t *input, int8_t *output,
                   size_t size);
int32_t hk_relu_s16(const hk_relu_params_t *params, const int16_t *input, int16_t *output,
                    size_t size);
int32_t hk_relu_f32(const hk_relu_f32_params_t *params, const float *input, float *output,
                    size_t size);

#endif /* HK_RELU_H */
