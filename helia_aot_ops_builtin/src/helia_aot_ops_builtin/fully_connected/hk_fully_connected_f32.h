/*
 * helia-aot kernel library: float32 FULLY_CONNECTED on Helium with floating point
 * (internal to the family; see hk_f32_mve.h for how lanes keep the reference's sums).
 *
 * The portable kernel is the reference and hands a call to this path when HK_F32_MVE is 1.
 */
#ifndef HK_FULLY_CONNECTED_F32_H
#define HK_FULLY_CONNECTED_F32_H

#include "hk_fully_connected.h"
#include "hk_f32_mve.h"

#if HK_F32_MVE
/* params must already be checked. */
void hk_fully_connected_f32_mve(const hk_fully_connected_params_t *params, const float *input,
                                const float *filter, const float *bias, float *output);
#endif

#endif /* HK_FULLY_CONNECTED_F32_H */
