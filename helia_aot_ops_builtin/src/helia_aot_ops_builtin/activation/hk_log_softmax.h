/*
 * helia-aot kernel library: LOG_SOFTMAX over the innermost dimension.
 *
 * The int8 kernel takes the multipliers LiteRT's Prepare step computes (the converter computes
 * them the same way, in activation_quantization.py) and repeats the reference's gemmlowp fixed
 * point operation by operation, so its results match the LiteRT reference interpreter bit for bit.
 * Each row is read completely before it is written, so input and output may be the same buffer.
 */
#ifndef HK_LOG_SOFTMAX_H
#define HK_LOG_SOFTMAX_H

#include "hk_common.h"

typedef struct {
    int32_t outer_size; /* rows */
    int32_t depth;      /* elements per row (the innermost dimension) */
} hk_log_softmax_f32_params_t;

/* LiteRT SoftmaxParams of the int8 LOG_SOFTMAX (output scale 16/256, zero point 127). */
typedef struct {
    int32_t outer_size;
    int32_t depth;
    int32_t input_multiplier;  /* beta * input_scale in Q5.26, as a Q31 multiplier */
    int32_t input_left_shift;
    int32_t reverse_multiplier; /* the inverse scaling, Q31 */
    int32_t reverse_shift;      /* its exponent (<= 0) */
    int32_t diff_min;           /* differences below this contribute nothing */
} hk_log_softmax_s8_params_t;

int32_t hk_log_softmax_f32(const hk_log_softmax_f32_params_t *params, const float *input,
                           float *output);
int32_t hk_log_softmax_s8(const hk_log_softmax_s8_params_t *params, const int8_t *input,
                          int8_t *output);

#endif /* HK_LOG_SOFTMAX_H */
