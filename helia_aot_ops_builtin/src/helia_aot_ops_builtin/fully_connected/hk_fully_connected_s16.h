/*
 * helia-aot kernel library: the int16x8 FULLY_CONNECTED path for Helium and the DSP extension
 * (internal to the family).
 *
 * hk_fully_connected_s16 and _s16_b32 (hk_fully_connected.c, the portable reference) hand a call
 * whose filter offset is 0 (symmetric weights, as LiteRT's 16x8 quantization makes them) to
 * hk_fully_connected_s16_fast (hk_fully_connected_s16.c), which computes four units per pass
 * over the input (hk_dot_s16.h) and requantizes each as the reference does (hk_fc_requant.h).
 */
#ifndef HK_FULLY_CONNECTED_S16_H
#define HK_FULLY_CONNECTED_S16_H

#include "hk_fully_connected.h"
#include "hk_isa.h"

#if HK_HAVE_MVE || HK_HAVE_DSP
#define HK_FC_S16_FAST 1
/* bias is int64_t (wide64 nonzero) or int32_t; params must already be checked, with
 * filter_offset 0. */
void hk_fully_connected_s16_fast(const hk_fully_connected_params_t *params, const int16_t *input,
                                const int8_t *filter, const void *bias, int16_t *output,
                                int32_t wide64);
#else
#define HK_FC_S16_FAST 0
#endif

#endif /* HK_FULLY_CONNECTED_S16_H */
