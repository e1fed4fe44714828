/*
 * helia-aot kernel library: float16 SOFTMAX over the innermost dimension.
 *
 * Each row is evaluated in float from its float16 inputs (maximum, exp(beta * (x - max)), their
 * sum, the quotient) and each result rounded once to float16.
 */
#ifndef HK_SOFTMAX_F16_H
#define HK_SOFTMAX_F16_H

#include "hk_f16.h"

typedef struct {
    int32_t outer_size;
    int32_t depth;
    float beta;
} hk_softmax_f16_params_t;

int32_t hk_softmax_f16(const hk_softmax_f16_params_t *params, const uint16_t *input, uint16_t *output);

#endif /* HK_SOFTMAX_F16_H */
