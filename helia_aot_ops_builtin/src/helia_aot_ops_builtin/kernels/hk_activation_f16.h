/*
 * helia-aot kernel library: float16 activations (RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH,
 * HARD_SWISH).
 *
 * The clamps are exact (vmaxnmq_f16 / vminnmq_f16 on Helium with MVE-F); the others evaluate
 * the float reference formula on the float16 input in float and round the result once to
 * float16. One flat loop each: the output may share the input's storage.
 */
#ifndef HK_ACTIVATION_F16_H
#define HK_ACTIVATION_F16_H

#include "hk_f16.h"

typedef struct {
    float lo; /* clamp bounds: [0, inf) RELU, [0, 6] RELU6, [-1, 1] RELU_N1_TO_1 */
    float hi;
} hk_relu_f16_params_t;

int32_t hk_relu_f16(const hk_relu_f16_params_t *params, const uint16_t *input, uint16_t *output,
                    size_t size);
int32_t hk_logistic_f16(const uint16_t *input, uint16_t *output, size_t size);
int32_t hk_tanh_f16(const uint16_t *input, uint16_t *output, size_t size);
int32_t hk_hard_swish_f16(const uint16_t *input, uint16_t *output, size_t size);

#endif /* HK_ACTIVATION_F16_H */
