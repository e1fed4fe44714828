/*
 * helia-aot kernel library: L2_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION over the innermost
 * dimension.
 *
 * The int8 L2 kernel repeats LiteRT's integer inverse square root (GetInvSqrtQuantizedMultiplierExp,
 * a fixed-point Newton-Raphson iteration) operation by operation, so it matches the reference
 * interpreter bit for bit. Each row is read completely before it is written, so input and output
 * may be the same buffer for L2; LOCAL_RESPONSE_NORMALIZATION reads neighbours of an element after
 * writing it and so needs distinct buffers.
 */
#ifndef HK_NORMALIZATION_H
#define HK_NORMALIZATION_H

#include "hk_common.h"

typedef struct {
    int32_t outer_size; /* rows */
    int32_t depth;      /* elements per row */
    int32_t input_zero_point; /* int8 only */
} hk_l2_norm_params_t;

typedef struct {
    int32_t outer_size;
    int32_t depth;
    int32_t radius; /* the window is [c - radius, c + radius) */
    float bias;
    float alpha;
    float beta;
} hk_lrn_f32_params_t;

int32_t hk_l2_norm_f32(const hk_l2_norm_params_t *params, const float *input, float *output);
int32_t hk_l2_norm_s8(const hk_l2_norm_params_t *params, const int8_t *input, int8_t *output);
int32_t hk_lrn_f32(const hk_lrn_f32_params_t *params, const float *input, float *output);

#endif /* HK_NORMALIZATION_H */
