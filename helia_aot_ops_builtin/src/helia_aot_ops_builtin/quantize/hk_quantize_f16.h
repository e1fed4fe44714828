/*
 * helia-aot kernel library: QUANTIZE float32 -> float16.
 *
 * Each float is rounded to the nearest float16 (ties to even) with _Float16's conversion;
 * magnitudes past the float16 range become infinities. (DEQUANTIZE float16 -> float32 is
 * hk_quantize's hk_dequantize_f16_f32, portable to every core.)
 */
#ifndef HK_QUANTIZE_F16_H
#define HK_QUANTIZE_F16_H

#include "hk_f16.h"

int32_t hk_quantize_f32_f16(int32_t size, const float *input, uint16_t *output);

#endif /* HK_QUANTIZE_F16_H */
