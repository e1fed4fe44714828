/*
 * helia-aot kernel library: float16 TRANSPOSE_CONV.
 *
 * NHWC tensors and an OHWI filter as in hk_transpose_conv.h, every operand (bias included)
 * float16. Each output element gathers its contributions (input row, then column, then channel,
 * the order the reference scatters them in), sums the exact float16 products in float, adds the
 * bias when there is one, clamps to the fused activation and rounds once to float16. No scratch
 * buffer is needed.
 */
#ifndef HK_TRANSPOSE_CONV_F16_H
#define HK_TRANSPOSE_CONV_F16_H

#include "hk_f16.h"
#include "hk_shapes.h"

typedef struct {
    HK_TRANSPOSE_CONV_SHAPE_FIELDS
    float act_min_f32; /* fused activation clamp */
    float act_max_f32;
} hk_transpose_conv_f16_params_t;

/* float16 input, filter, bias (may be NULL) and output. */
int32_t hk_transpose_conv_f16(const hk_transpose_conv_f16_params_t *params, const uint16_t *input,
                              const uint16_t *filter, const uint16_t *bias, uint16_t *output);

#endif /* HK_TRANSPOSE_CONV_F16_H */
