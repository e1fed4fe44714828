/*
 * helia-aot kernel library: HARD_SWISH (x * relu6(x + 3) / 6).
 *
 * The quantized kernels take the multipliers, shifts and tables LiteRT's Prepare step computes (the
 * converter computes them the same way, in activation_quantization.py), so their results match
 * the LiteRT reference interpreter bit for bit. Every elementwise kernel reads element i before
 * writing element i, so input and output may be the same buffer.
 */
#ifndef HK_HARD_SWISH_H
#define HK_HARD_SWISH_H

#include "hk_common.h"

/* HardSwishParams of LiteRT: 16-bit fixed-point multipliers with power-of-two exponents. */
typedef struct {
    int32_t input_zero_point;
    int32_t output_zero_point;
    int16_t reluish_multiplier; /* (input_scale / 128) / (3 / 32768), downscaled to Q15 */
    int32_t reluish_exponent;
    int16_t output_multiplier;  /* (input_scale / 128) / output_scale, downscaled to Q15 */
    int32_t output_exponent;    /* <= 0 */
} hk_hard_swish_params_t;

int32_t hk_hard_swish_s8(const hk_hard_swish_params_t *params, const int8_t *input,
                         int8_t *output, size_t size);
int32_t hk_hard_swish_f32(const float *input, float *output, size_t size);

#endif /* HK_HARD_SWISH_H */
