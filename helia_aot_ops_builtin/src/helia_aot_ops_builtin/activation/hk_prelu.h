/*
 * helia-aot kernel library: PRELU (x above zero, a broadcast alpha tensor times x below).
 *
 * The quantized kernels take the multipliers, shifts and tables LiteRT's Prepare step computes (the
 * converter computes them the same way, in activation_quantization.py), so their results match
 * the LiteRT reference interpreter bit for bit. Every elementwise kernel reads element i before
 * writing element i, so input and output may be the same buffer.
 */
#ifndef HK_PRELU_H
#define HK_PRELU_H

#include "hk_common.h"

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

int32_t hk_prelu_s8(const hk_prelu_params_t *params, const int8_t *input, const int8_t *alpha,
                    int8_t *output);
int32_t hk_prelu_s16(const hk_prelu_params_t *params, const int16_t *input, const int8_t *alpha,
                     int16_t *output);
int32_t hk_prelu_f32(const hk_prelu_shape_t *shape, const float *input, const float *alpha,
                     float *output);

#endif /* HK_PRELU_H */
