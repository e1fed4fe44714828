/*
 * helia-aot kernel library: GELU on float32 (int8 and int16 GELU are tables, see hk_table.h).
 *
 * LiteRT's reference GELU evaluates erfc and tanh with Eigen's vectorised float approximations,
 * not with the C library, so these kernels evaluate the same rational approximations in the same
 * order (see hk_gelu.c) and match the reference bit for bit on a host without fused multiply-add.
 */
#ifndef HK_GELU_H
#define HK_GELU_H

#include "hk_common.h"

int32_t hk_gelu_f32(const float *input, float *output, size_t size);
int32_t hk_gelu_tanh_f32(const float *input, float *output, size_t size);

#endif /* HK_GELU_H */
