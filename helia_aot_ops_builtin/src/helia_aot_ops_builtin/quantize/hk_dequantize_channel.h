/*
 * helia-aot kernel library: DEQUANTIZE per channel, integer -> float32.
 *
 * What ai-edge-quantizer's weight-only recipes write: constant weights quantized per channel
 * (int8, or int4 unpacked to int8 first, see hk_int4.h) and a DEQUANTIZE feeding a float
 * operator. The element at [o, c, i] (outer, channel, inner) is scales[c] * (q - zero_points[c]),
 * as LiteRT's reference PerChannelDequantize computes it: an int32 difference, one float
 * multiply. A family of its own, beside hk_quantize.h's per-tensor entries.
 */
#ifndef HK_DEQUANTIZE_CHANNEL_H
#define HK_DEQUANTIZE_CHANNEL_H

#include "hk_quantize.h"

int32_t hk_dequantize_channel_s8_f32(const hk_quantize_channel_params_t *params,
                                     const float *scales, const int32_t *zero_points,
                                     const int8_t *input, float *output);

#endif /* HK_DEQUANTIZE_CHANNEL_H */
