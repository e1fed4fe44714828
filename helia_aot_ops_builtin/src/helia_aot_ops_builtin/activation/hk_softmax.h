/*
 * helia-aot kernel library: SOFTMAX over the innermost dimension.
 *
 * The tensor is viewed as outer_size rows of depth elements. The int8 kernels follow the LiteRT
 * kReference path (gemmlowp fixed-point exp of beta-scaled differences to the row maximum), the
 * int16 kernel LiteRT's table-driven SoftmaxInt16; their parameters and tables are what LiteRT's
 * SoftmaxPrepare computes. Every kernel may run in place (input == output) when the element
 * types match.
 */
#ifndef HK_SOFTMAX_H
#define HK_SOFTMAX_H

#include "hk_common.h"

#define HK_SOFTMAX_LUT_SIZE 513

typedef struct {
    int32_t outer_size;
    int32_t depth;
    float beta;
} hk_softmax_f32_params_t;

typedef struct {
    int32_t outer_size;
    int32_t depth;
    int32_t input_multiplier; /* PreprocessSoftmaxScaling(beta, input_scale, 5 integer bits) */
    int32_t input_left_shift;
    int32_t diff_min;         /* -CalculateInputRadius(5, input_left_shift); smaller diffs give 0 */
} hk_softmax_s8_params_t;

typedef struct {
    int32_t outer_size;
    int32_t depth;
    int32_t input_multiplier; /* input_scale * beta / (10 / 65535), LiteRT QuantizeMultiplier */
    int32_t input_shift;      /* positive = left */
} hk_softmax_s16_params_t;

int32_t hk_softmax_f32(const hk_softmax_f32_params_t *params, const float *input, float *output);
int32_t hk_softmax_s8(const hk_softmax_s8_params_t *params, const int8_t *input, int8_t *output);
int32_t hk_softmax_s8_s16(const hk_softmax_s8_params_t *params, const int8_t *input,
                          int16_t *output);
/* exp_lut and one_over_one_plus_x_lut hold HK_SOFTMAX_LUT_SIZE entries each. */
int32_t hk_softmax_s16(const hk_softmax_s16_params_t *params, const int16_t *exp_lut,
                       const int16_t *one_over_one_plus_x_lut, const int16_t *input,
                       int16_t *output);

#endif /* HK_SOFTMAX_H */
