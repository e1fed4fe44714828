/*
 * helia-aot kernel library: TRANSPOSE_CONV.
 *
 * Tensors are NHWC; the filter is OHWI ([output_channels, filter_height, filter_width,
 * input_channels]). Input pixel (iy, ix) scatters into output pixel (iy * stride - pad_top + fy,
 * ix * stride - pad_left + fx) in the reference kernel, which needs a whole-output accumulator
 * buffer. These kernels gather instead: each output element sums its contributions in the
 * order the reference adds them (input row, then column, then channel), so integer results are
 * identical and float results round identically, and no scratch buffer is needed.
 */
#ifndef HK_TRANSPOSE_CONV_H
#define HK_TRANSPOSE_CONV_H

#include "hk_common.h"
#include "hk_shapes.h"

typedef struct {
    HK_TRANSPOSE_CONV_SHAPE_FIELDS
    /* Quantized kernels only. */
    int32_t input_offset;              /* -input zero point (0 for int16) */
    int32_t output_offset;             /* output zero point (0 for int16) */
    int32_t act_min;
    int32_t act_max;
    const int32_t *output_multiplier;  /* [output_channels], Q31 */
    const int32_t *output_shift;       /* [output_channels], positive = left */
    /* Float kernel only. */
    float act_min_f32;
    float act_max_f32;
} hk_transpose_conv_params_t;

/* int8 activations, int8 weights, int32 bias (may be NULL). */
int32_t hk_transpose_conv_s8(const hk_transpose_conv_params_t *params, const int8_t *input,
                             const int8_t *filter, const int32_t *bias, int8_t *output);

/* int16 activations, int8 weights, int64 bias (may be NULL), 64-bit accumulation. */
int32_t hk_transpose_conv_s16(const hk_transpose_conv_params_t *params, const int16_t *input,
                              const int8_t *filter, const int64_t *bias, int16_t *output);

/* int16 activations, int8 weights, int32 bias (may be NULL), 32-bit accumulation: the path
 * LiteRT takes when the operator's quantized_bias_type is INT32. */
int32_t hk_transpose_conv_s16_b32(const hk_transpose_conv_params_t *params,
                                  const int16_t *input, const int8_t *filter,
                                  const int32_t *bias, int16_t *output);

/* float32 everything; bias may be NULL. */
int32_t hk_transpose_conv_f32(const hk_transpose_conv_params_t *params, const float *input,
                              const float *filter, const float *bias, float *output);

#endif /* HK_TRANSPOSE_CONV_H */
