/*
 * helia-aot kernel library: BATCH_MATMUL.
 *
 * output[b, i, j] = sum_k lhs[b, i, k] * rhs[b, k, j] over up to three batch dimensions
 * (shapes extended to rank 5 with leading 1s), with batch broadcasting: a batch dimension of
 * 1 in lhs or rhs repeats that operand. adj_x means lhs is stored as [.., depth, rows] and
 * adj_y that rhs is stored as [.., cols, depth]; the kernel reads them through strides, so no
 * transposed copy (and no scratch buffer) is needed.
 */
#ifndef HK_BATCH_MATMUL_H
#define HK_BATCH_MATMUL_H

#include "hk_common.h"
#include "hk_shapes.h"

typedef struct {
    HK_BATCH_MATMUL_SHAPE_FIELDS
    /* int8 kernel only (per-tensor quantization). */
    int32_t lhs_offset;    /* -lhs zero point */
    int32_t rhs_offset;    /* -rhs zero point */
    int32_t output_offset; /* output zero point */
    int32_t output_multiplier;
    int32_t output_shift;
    int32_t act_min;
    int32_t act_max;
} hk_batch_matmul_params_t;

int32_t hk_batch_matmul_s8(const hk_batch_matmul_params_t *params, const int8_t *lhs,
                           const int8_t *rhs, int8_t *output);

int32_t hk_batch_matmul_f32(const hk_batch_matmul_params_t *params, const float *lhs,
                            const float *rhs, float *output);

#endif /* HK_BATCH_MATMUL_H */
