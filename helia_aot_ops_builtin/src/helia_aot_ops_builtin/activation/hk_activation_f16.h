/*
 * helia-aot kernel library: float16 activations (RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH,
 * HARD_SWISH, GELU, PRELU).
 *
 * The clamps are exact (vmaxnmq_f16 / vminnmq_f16 on Helium with MVE-F); the others evaluate
 * the float reference formula on the float16 input in float and round the result once to
 * float16. One flat loop each (PRELU walks its alpha's broadcast beside it): the output may share
 * the input's storage.
 */
#ifndef HK_ACTIVATION_F16_H
#define HK_ACTIVATION_F16_H

#include "hk_f16.h"

typedef struct {
    float lo; /* clamp bounds: [0, inf) RELU, [0, 6] RELU6, [-1, 1] RELU_N1_TO_1 */
    float hi;
} hk_relu_f16_params_t;

#define HK_PRELU_F16_MAX_DIMS 6

/* PRELU's output (= input) shape and the element strides of alpha broadcast to it. */
typedef struct {
    int32_t rank; /* 1..HK_PRELU_F16_MAX_DIMS */
    int32_t dims[HK_PRELU_F16_MAX_DIMS];
    int32_t alpha_strides[HK_PRELU_F16_MAX_DIMS]; /* 0 along dimensions where alpha broadcasts */
} hk_prelu_f16_shape_t;

int32_t hk_relu_f16(const hk_relu_f16_params_t *params, const uint16_t *input, uint16_t *output,
                    size_t size);
int32_t hk_logistic_f16(const uint16_t *input, uint16_t *output, size_t size);
int32_t hk_tanh_f16(const uint16_t *input, uint16_t *output, size_t size);
int32_t hk_hard_swish_f16(const uint16_t *input, uint16_t *output, size_t size);
int32_t hk_gelu_f16(const uint16_t *input, uint16_t *output, size_t size);
int32_t hk_gelu_tanh_f16(const uint16_t *input, uint16_t *output, size_t size);
int32_t hk_prelu_f16(const hk_prelu_f16_shape_t *shape, const uint16_t *input, const uint16_t *alpha,
                     uint16_t *output);

#if HK_HAVE_MVE_F16
/* Internal to the family (hk_activation_f16_mve.c): hk_relu_f16's clamp on Helium, eight lanes
 * at a time with tail predication; params and pointers checked. */
void hk_relu_f16_mve(const hk_relu_f16_params_t *params, const hk_f16_t *in, hk_f16_t *out, size_t size);
#endif

#endif /* HK_ACTIVATION_F16_H */
