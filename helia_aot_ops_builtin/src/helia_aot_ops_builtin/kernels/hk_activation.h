/*
 * helia-aot kernel library: elementwise activations (RELU family, LEAKY_RELU, HARD_SWISH,
 * PRELU, LOGISTIC, TANH).
 *
 * The quantized kernels take the multipliers, shifts and tables LiteRT's Prepare step computes
 * (the converter computes them the same way), so their results match the LiteRT reference
 * interpreter bit for bit. Every elementwise kernel reads element i before writing element i,
 * so input and output may be the same buffer.
 */
#ifndef HK_ACTIVATION_H
#define HK_ACTIVATION_H

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

/* HardSwishParams of LiteRT: 16-bit fixed-point multipliers with power-of-two exponents. */
typedef struct {
    int32_t input_zero_point;
    int32_t output_zero_point;
    int16_t reluish_multiplier; /* (input_scale / 128) / (3 / 32768), downscaled to Q15 */
    int32_t reluish_exponent;
    int16_t output_multiplier;  /* (input_scale / 128) / output_scale, downscaled to Q15 */
    int32_t output_exponent;    /* <= 0 */
} hk_hard_swish_params_t;

#define HK_PRELU_MAX_DIMS 6

/* Output (= input) shape of a PRELU and the element strides of alpha broadcast to it. */
typedef struct {
    int32_t rank; /* 1..HK_PRELU_MAX_DIMS */
    int32_t dims[HK_PRELU_MAX_DIMS];
    int32_t alpha_strides[HK_PRELU_MAX_DIMS]; /* 0 along dimensions where alpha broadcasts */
} hk_prelu_shape_t;

typedef struct {
    hk_prelu_shape_t shape;
    int32_t input_zero_point;
    int32_t alpha_zero_point;
    int32_t output_zero_point;
    int32_t identity_multiplier; /* input_scale / output_scale */
    int32_t identity_shift;
    int32_t alpha_multiplier;    /* input_scale * alpha_scale / output_scale */
    int32_t alpha_shift;
} hk_prelu_params_t;

/* Input rescaling of the int16 LOGISTIC and TANH kernels (LiteRT OpData after Prepare). */
typedef struct {
    int32_t input_multiplier; /* 0 for a power-of-two input scale */
    int32_t input_left_shift;
} hk_sigmoid_s16_params_t;

int32_t hk_relu_s8(const hk_relu_params_t *params, const int8_t *input, int8_t *output,
                   size_t size);
int32_t hk_relu_s16(const hk_relu_params_t *params, const int16_t *input, int16_t *output,
                    size_t size);
int32_t hk_relu_f32(const hk_relu_f32_params_t *params, const float *input, float *output,
                    size_t size);

int32_t hk_leaky_relu_s8(const hk_leaky_relu_params_t *params, const int8_t *input,
                         int8_t *output, size_t size);
int32_t hk_leaky_relu_s16(const hk_leaky_relu_params_t *params, const int16_t *input,
                          int16_t *output, size_t size);
int32_t hk_leaky_relu_f32(const hk_leaky_relu_f32_params_t *params, const float *input,
                          float *output, size_t size);

int32_t hk_hard_swish_s8(const hk_hard_swish_params_t *params, const int8_t *input,
                         int8_t *output, size_t size);
int32_t hk_hard_swish_f32(const float *input, float *output, size_t size);

int32_t hk_prelu_s8(const hk_prelu_params_t *params, const int8_t *input, const int8_t *alpha,
                    int8_t *output);
int32_t hk_prelu_f32(const hk_prelu_shape_t *shape, const float *input, const float *alpha,
                     float *output);

int32_t hk_lut_s8(const int8_t *table, const int8_t *input, int8_t *output, size_t size);
int32_t hk_logistic_s16(const hk_sigmoid_s16_params_t *params, const int16_t *input,
                        int16_t *output, size_t size);
int32_t hk_tanh_s16(const hk_sigmoid_s16_params_t *params, const int16_t *input,
                    int16_t *output, size_t size);
int32_t hk_logistic_f32(const float *input, float *output, size_t size);
int32_t hk_tanh_f32(const float *input, float *output, size_t size);

#endif /* HK_ACTIVATION_H */
