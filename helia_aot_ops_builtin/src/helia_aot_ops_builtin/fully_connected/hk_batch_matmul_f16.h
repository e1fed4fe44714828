/*
 * helia-aot kernel library: float16 BATCH_MATMUL.
 *
 * The geometry of hk_batch_matmul.h (up to three broadcast batch dimensions, adjoints as
 * strides) over float16 operands. Each output is a dot product over the depth: on Helium with
 * MVE-F, when both operands run contiguously along the depth (lhs not adjoint, rhs adjoint),
 * hk_f16_dot.h's vfmaq_f16 lanes; otherwise products of float16 operands accumulated in float.
 * Each result is rounded once to float16.
 */
#ifndef HK_BATCH_MATMUL_F16_H
#define HK_BATCH_MATMUL_F16_H

#include "hk_f16.h"
#include "hk_shapes.h"

typedef struct {
    HK_BATCH_MATMUL_SHAPE_FIELDS
} hk_batch_matmul_f16_params_t;

int32_t hk_batch_matmul_f16(const hk_batch_matmul_f16_params_t *params, const uint16_t *lhs,
                            const uint16_t *rhs, uint16_t *output);

#endif /* HK_BATCH_MATMUL_F16_H */
