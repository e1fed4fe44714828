/*
 * helia-aot kernel library: the int16x8 DEPTHWISE_CONV_2D path for Helium (internal to the
 * depthwise family).
 *
 * hk_depthwise_s16 (hk_depthwise.c, the portable reference) hands a call with depth multiplier 1
 * and at most HK_DW_S16_MAX_TAPS filter taps to hk_depthwise_s16_mve. Four channels share a
 * vector: int16 inputs and int8 weights are widened by the loads and their products summed in
 * int32 lanes, which is exact because a product is below 2^22 in magnitude and there are at most
 * 256 of them. The requantization (LiteRT's 64-bit MultiplyByQuantizedMultiplier of the 16x8
 * kernels) runs on the lanes too when every channel allows it (see hk_depthwise_s16_mve.c), else
 * per channel in scalar code.
 */
#ifndef HK_DEPTHWISE_S16_H
#define HK_DEPTHWISE_S16_H

#include "hk_depthwise.h"
#include "hk_isa.h"

#define HK_DW_S16_MAX_TAPS 256

#if HK_HAVE_MVE
#define HK_DW_S16_FAST 1
/* params must already be checked, with depth_multiplier 1, input_offset 0 and at most
 * HK_DW_S16_MAX_TAPS taps. */
void hk_depthwise_s16_mve(const hk_depthwise_params_t *params, const int16_t *input,
                          const int8_t *filter, const int64_t *bias, int16_t *output);
#else
#define HK_DW_S16_FAST 0
#endif

#endif /* HK_DEPTHWISE_S16_H */
