/*
 * helia-aot kernel library: float32 CONV_2D on Helium with floating point
 * (internal to the family; see hk_f32_mve.h for how lanes keep the reference's sums).
 *
 * The portable kernel is the reference and hands a call to this path when HK_F32_MVE is 1.
 */
#ifndef HK_CONV_F32_H
#define HK_CONV_F32_H

#include "hk_conv.h"
#include "hk_f32_mve.h"

#if HK_F32_MVE
/* Ungrouped convolutions only; params must already be checked. */
void hk_conv_f32_mve(const hk_conv_params_t *params, const float *input, const float *filter,
                     const float *bias, float *output);
#endif

#endif /* HK_CONV_F32_H */
