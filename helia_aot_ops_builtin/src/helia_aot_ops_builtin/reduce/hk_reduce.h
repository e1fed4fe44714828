/*
 * helia-aot kernel library: MEAN, SUM, PROD, MAX and MIN over constant axes.
 *
 * The converter splits the input's dimensions into kept and reduced ones (dropping extent-1
 * dimensions and merging neighbours of the same kind), at most four of each, and hands their
 * extents with the input's element strides. Outputs come out in row-major order of the kept
 * dimensions (keep_dims does not change the layout), and each output adds its inputs in
 * row-major order of the reduced dimensions, the order in which LiteRT's reference visits them.
 */
#ifndef HK_REDUCE_H
#define HK_REDUCE_H

#include "hk_common.h"

#define HK_REDUCE_MAX_DIMS 4

typedef struct {
    int32_t kept_extents[HK_REDUCE_MAX_DIMS];     /* outermost first; unused ones 1 */
    int32_t kept_strides[HK_REDUCE_MAX_DIMS];     /* input element strides */
    int32_t reduced_extents[HK_REDUCE_MAX_DIMS];
    int32_t reduced_strides[HK_REDUCE_MAX_DIMS];
    int32_t count;               /* reduced elements per output (product of reduced_extents) */
    /* int8/int16 only: out = clamp(MBQM(sum - input_zero_point * count, multiplier, shift)
     * + output_zero_point). For MEAN the multiplier and shift already include 1 / count the way
     * LiteRT's QuantizedMeanOrSum folds it in. */
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t multiplier;
    int32_t shift;               /* positive = left */
} hk_reduce_params_t;

int32_t hk_reduce_sum_f32(const hk_reduce_params_t *params, const float *input, float *output);
int32_t hk_reduce_mean_f32(const hk_reduce_params_t *params, const float *input, float *output);

/* Quantized SUM and MEAN share one kernel: only the rescale constants differ. */
int32_t hk_reduce_sum_mean_s8(const hk_reduce_params_t *params, const int8_t *input,
                              int8_t *output);
int32_t hk_reduce_sum_mean_s16(const hk_reduce_params_t *params, const int16_t *input,
                               int16_t *output);

/* float PROD, MAX and MIN read only the extents and strides: MAX and MIN compare the
 * stored values, the output quantized as the input. */
int32_t hk_reduce_prod_f32(const hk_reduce_params_t *params, const float *input, float *output);
int32_t hk_reduce_max_f32(const hk_reduce_params_t *params, const float *input, float *output);
int32_t hk_reduce_min_f32(const hk_reduce_params_t *params, const float *input, float *output);
int32_t hk_reduce_max_s8(const hk_reduce_params_t *params, const int8_t *input, int8_t *output);
int32_t hk_reduce_min_s8(const hk_reduce_params_t *params, const int8_t *input, int8_t *output);
int32_t hk_reduce_max_s16(const hk_reduce_params_t *params, const int16_t *input,
                          int16_t *output);
int32_t hk_reduce_min_s16(const hk_reduce_params_t *params, const int16_t *input,
                          int16_t *output);

/* Quantized PROD (LiteRT QuantizedReduceProd): multiplier and shift quantize
 * input_scale / output_scale^(1 / count), applied after every multiplication and once at the end;
 * shift must lie in [-31, 7] as LiteRT's 64-bit rescale requires. */
int32_t hk_reduce_prod_s8(const hk_reduce_params_t *params, const int8_t *input, int8_t *output);
int32_t hk_reduce_prod_s16(const hk_reduce_params_t *params, const int16_t *input,
                           int16_t *output);

/* int32 and int64 SUM, PROD (both wrapping), MAX and MIN: extents and strides only. */
int32_t hk_reduce_sum_s32(const hk_reduce_params_t *params, const int32_t *input, int32_t *output);
int32_t hk_reduce_prod_s32(const hk_reduce_params_t *params, const int32_t *input, int32_t *output);
int32_t hk_reduce_max_s32(const hk_reduce_params_t *params, const int32_t *input, int32_t *output);
int32_t hk_reduce_min_s32(const hk_reduce_params_t *params, const int32_t *input, int32_t *output);
int32_t hk_reduce_sum_s64(const hk_reduce_params_t *params, const int64_t *input, int64_t *output);
int32_t hk_reduce_prod_s64(const hk_reduce_params_t *params, const int64_t *input, int64_t *output);
int32_t hk_reduce_max_s64(const hk_reduce_params_t *params, const int64_t *input, int64_t *output);
int32_t hk_reduce_min_s64(const hk_reduce_params_t *params, const int64_t *input, int64_t *output);

#endif /* HK_REDUCE_H */
