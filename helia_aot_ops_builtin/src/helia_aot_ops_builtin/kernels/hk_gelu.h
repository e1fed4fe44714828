/*
 * helia-aot kernel library: GELU on float32 (int8 and int16 GELU are tables, see hk_table.h).
 *
 * Both forms follow LiteRT's scalar GeluTransform / GeluTransformApproximate with the C library's
 * erfcf and tanhf. LiteRT's float32 kernel evaluates the same formulas with Eigen's vectorised
 * approximations of erfc and tanh, so results differ from it by a few units in the last place.
 */
#ifndef HK_GELU_H
#define HK_GELU_H

#include "hk_common.h"

int32_t hk_gelu_f32(const float *input, float *output, size_t size);
int32_t hk_gelu_tanh_f32(const float *input, float *output, size_t size);

#endif /* HK_GELU_H */
