/*
 * helia-aot kernel library: float32 DEPTHWISE_CONV_2D on Helium with floating point
 * (internal to the family; see hk_f32_mve.h for how lanes keep the reference's sums).
 *
 * The portable kernel is the reference and hands a call to this path when HK_F32_MVE is 1.
 */
#ifndef HK_DEPTHWISE_F32_H
#define HK_DEPTHWISE_F32_H

#include "hk_depthwise.h"
#include "hk_f32_mve.h"

#if HK_F32_MVE
/* Depth multiplier 1 only; params must already be checked. */
void hk_depthwise_f32_mve(const hk_depthwise_params_t *params, const float *input,
                          const float *filter, const float *bias, float *output);
#endif

#endif /* HK_DEPTHWISE_F32_H */
