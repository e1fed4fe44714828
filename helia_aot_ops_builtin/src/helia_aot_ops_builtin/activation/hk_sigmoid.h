/*
 * helia-aot kernel library: LOGISTIC and TANH, which share LiteRT's sigmoid table (int16) and the
 * table lookup of int8.
 *
 * The quantized kernels take the multipliers, shifts and tables LiteRT's Prepare step computes (the
 * converter computes them the same way, in activation_quantization.py), so their results match
 * the LiteRT reference interpreter bit for bit. Every elementwise kernel reads element i before
 * writing element i, so input and output may be the same buffer.
 */
#ifndef HK_SIGMOID_H
#define HK_SIGMOID_H

#include "hk_common.h"

/* Input rescaling of the int16 LOGISTIC and TANH kernels (LiteRT OpData after Prepare). */
typedef struct {
    int32_t input_multiplier; /* 0 for a power-of-two input scale */
    int32_t input_left_shift;
} hk_sigmoid_s16_params_t;

int32_t hk_lut_s8(const int8_t *table, const int8_t *input, int8_t *output, size_t size);
int32_t hk_logistic_s16(const hk_sigmoid_s16_params_t *params, const int16_t *input,
                        int16_t *output, size_t size);
int32_t hk_tanh_s16(const hk_sigmoid_s16_params_t *params, const int16_t *input,
                    int16_t *output, size_t size);
int32_t hk_logistic_f32(const float *input, float *output, size_t size);
int32_t hk_tanh_f32(const float *input, float *output, size_t size);

#endif /* HK_SIGMOID_H */
