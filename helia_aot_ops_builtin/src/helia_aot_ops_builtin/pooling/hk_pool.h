/*
 * helia-aot kernel library: AVERAGE_POOL_2D and MAX_POOL_2D.
 *
 * Tensors are NHWC with the same channel count in and out. Padding is explicit; window taps
 * outside the image are ignored, so an average divides by the number of in-image taps. The
 * quantized kernels work on raw values: LiteRT requires the input and output quantization to
 * match, so neither pooling needs requantization. The int8 (and, on Helium, int16) kernels
 * pool many channels per instruction where the core allows, with the same results.
 */
#ifndef HK_POOL_H
#define HK_POOL_H

#include "hk_common.h"
#include "hk_shapes.h"

/* Returned by the average kernels when a window has no in-image tap (LiteRT fails too). */
#define HK_STATUS_POOL_EMPTY_WINDOW 7

typedef struct {
    HK_POOL_SHAPE_FIELDS
    int32_t act_min;    /* quantized kernels: fused activation clamp */
    int32_t act_max;
    float act_min_f32;  /* float kernels */
    float act_max_f32;
} hk_pool_params_t;

int32_t hk_avg_pool_s8(const hk_pool_params_t *params, const int8_t *input, int8_t *output);
int32_t hk_avg_pool_s16(const hk_pool_params_t *params, const int16_t *input, int16_t *output);
int32_t hk_avg_pool_f32(const hk_pool_params_t *params, const float *input, float *output);

int32_t hk_max_pool_s8(const hk_pool_params_t *params, const int8_t *input, int8_t *output);
int32_t hk_max_pool_s16(const hk_pool_params_t *params, const int16_t *input, int16_t *output);
int32_t hk_max_pool_f32(const hk_pool_params_t *params, const float *input, float *output);

#endif /* HK_POOL_H */
