/*
 * helia-aot kernel library: ARG_MAX / ARG_MIN over one axis.
 *
 * The input is viewed as [outer_size, axis_size, inner_size] and the output as
 * [outer_size, inner_size]. A later element replaces the running best only when strictly
 * greater (ARG_MAX) or strictly smaller (ARG_MIN), so ties keep the smallest index; for float a
 * NaN is never chosen over a number (LiteRT's NaN-aware comparator). Float16 inputs (uint16_t bit
 * patterns) compare through an order-preserving integer key, in portable C.
 */
#ifndef HK_ARGMINMAX_H
#define HK_ARGMINMAX_H

#include "hk_common.h"

typedef struct {
    int32_t outer_size;  /* product of the dimensions before the axis */
    int32_t axis_size;   /* size of the reduced axis, >= 1 */
    int32_t inner_size;  /* product of the dimensions after the axis */
    bool is_arg_max;     /* true: ARG_MAX, false: ARG_MIN */
    bool output_int64;   /* true: output is int64_t, false: int32_t */
} hk_argminmax_params_t;

int32_t hk_argminmax_s8(const hk_argminmax_params_t *params, const int8_t *input, void *output);
int32_t hk_argminmax_u8(const hk_argminmax_params_t *params, const uint8_t *input, void *output);
int32_t hk_argminmax_s16(const hk_argminmax_params_t *params, const int16_t *input,
                         void *output);
int32_t hk_argminmax_s32(const hk_argminmax_params_t *params, const int32_t *input,
                         void *output);
int32_t hk_argminmax_f32(const hk_argminmax_params_t *params, const float *input, void *output);
int32_t hk_argminmax_f16(const hk_argminmax_params_t *params, const uint16_t *input, void *output);

#endif /* HK_ARGMINMAX_H */
