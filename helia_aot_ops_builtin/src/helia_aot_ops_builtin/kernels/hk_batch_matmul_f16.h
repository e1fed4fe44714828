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

typedef struct {
    int32_t batch[3];      /* output batch dimensions */
    int32_t lhs_batch[3];  /* lhs batch dimensions: batch[d] or 1 */
    int32_t rhs_batch[3];  /* rhs batch dimensions: batch[d] or 1 */
    int32_t rows;          /* output rows */
    int32_t depth;         /* summed dimension */
    int32_t cols;          /* output columns */
    int32_t adj_x;         /* nonzero: lhs matrices are stored transposed */
    int32_t adj_y;         /* nonzero: rhs matrices are stored transposed */
} hk_batch_matmul_f16_params_t;

int32_t hk_batch_matmul_f16(const hk_batch_matmul_f16_params_t *params, const uint16_t *lhs,
                            const uint16_t *rhs, uint16_t *output);

#endif /* HK_BATCH_MATMUL_F16_H */
