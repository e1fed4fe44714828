/*
 * helia-aot kernel library: QUANTIZE (float to integer, and integer requantization) and
 * DEQUANTIZE (integer or float16 to float32), per tensor.
 *
 * Every kernel reads element i before writing element i, walking forwards when the output
 * elements are no wider than the input's and backwards when they are wider, so the output may
 * share storage that starts at the input's address.
 */
#ifndef HK_QUANTIZE_H
#define HK_QUANTIZE_H

#include "hk_common.h"

/* float32 -> integer: q = clamp(round(x / scale) + zero_point). */
typedef struct {
    int32_t size;
    float scale;          /* output scale */
    int32_t zero_point;   /* output zero point */
} hk_quantize_params_t;

/* float32 -> integer per channel: the element at [o, c, i] (outer, channel, inner) uses
 * scales[c] and zero_points[c]; outer * channels * inner elements in all. */
typedef struct {
    int32_t outer;
    int32_t channels;
    int32_t inner;
} hk_quantize_channel_params_t;

/* integer -> integer: q = clamp(MBQM(x - input_zero_point, multiplier, shift) + output_zero_point),
 * multiplier/shift being QuantizeMultiplier(input_scale / output_scale). */
typedef struct {
    int32_t size;
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t multiplier;
    int32_t shift;        /* positive = left */
} hk_requantize_params_t;

/* integer -> float32: x = scale * (q - zero_point). */
typedef struct {
    int32_t size;
    float scale;
    int32_t zero_point;
} hk_dequantize_params_t;

int32_t hk_quantize_f32_s8(const hk_quantize_params_t *params, const float *input, int8_t *output);
int32_t hk_quantize_f32_s16(const hk_quantize_params_t *params, const float *input,
                            int16_t *output);

int32_t hk_quantize_channel_f32_s8(const hk_quantize_channel_params_t *params,
                                   const float *scales, const int32_t *zero_points,
                                   const float *input, int8_t *output);
int32_t hk_quantize_channel_f32_s16(const hk_quantize_channel_params_t *params,
                                    const float *scales, const int32_t *zero_points,
                                    const float *input, int16_t *output);

int32_t hk_requantize_s8_s8(const hk_requantize_params_t *params, const int8_t *input,
                            int8_t *output);
int32_t hk_requantize_s8_s16(const hk_requantize_params_t *params, const int8_t *input,
                             int16_t *output);
int32_t hk_requantize_s16_s8(const hk_requantize_params_t *params, const int16_t *input,
                             int8_t *output);
int32_t hk_requantize_s16_s16(const hk_requantize_params_t *params, const int16_t *input,
                              int16_t *output);

/* uint8 model inputs and outputs (a wake-word model ends with QUANTIZE int8 -> uint8). */
int32_t hk_quantize_f32_u8(const hk_quantize_params_t *params, const float *input, uint8_t *output);
int32_t hk_requantize_s8_u8(const hk_requantize_params_t *params, const int8_t *input,
                            uint8_t *output);
int32_t hk_requantize_u8_s8(const hk_requantize_params_t *params, const uint8_t *input,
                            int8_t *output);
int32_t hk_requantize_u8_u8(const hk_requantize_params_t *params, const uint8_t *input,
                            uint8_t *output);
int32_t hk_dequantize_u8_f32(const hk_dequantize_params_t *params, const uint8_t *input,
                             float *output);

int32_t hk_dequantize_s8_f32(const hk_dequantize_params_t *params, const int8_t *input,
                             float *output);
int32_t hk_dequantize_s16_f32(const hk_dequantize_params_t *params, const int16_t *input,
                              float *output);

/* IEEE 754 binary16 bits to float32, exact for every input (subnormals, infinities, NaN payloads). */
float hk_half_to_float(uint16_t bits);

/* float16 -> float32 for `size` elements given as raw binary16 bits. */
int32_t hk_dequantize_f16_f32(int32_t size, const uint16_t *input, float *output);

#endif /* HK_QUANTIZE_H */
