/*
 * helia-aot kernel library: hybrid BATCH_MATMUL (float32 lhs, constant int8 rhs, float32 output).
 *
 * LiteRT quantizes each lhs row (the depth values that meet one output row) to int8 on its own
 * (hk_hybrid_quant.h, symmetric or asymmetric), sums its products with each rhs column in int32,
 * removes the row offset through float as the reference does, total = int(float(sum) -
 * float(row_sum) * float(offset)), and writes 0 + scale * float(total), with scale the row scale
 * times the rhs scale (per tensor) or times the column's scale (per column). Shapes, batch
 * broadcasting and the adjoint flags are those of hk_batch_matmul.h; the adjoint operands are
 * read in place.
 */
#ifndef HK_BATCH_MATMUL_HYBRID_H
#define HK_BATCH_MATMUL_HYBRID_H

#include "hk_common.h"
#include "hk_shapes.h"

typedef struct {
    HK_BATCH_MATMUL_SHAPE_FIELDS
    int32_t asymmetric;          /* nonzero: asymmetric_quantize_inputs */
    float filter_scale;          /* the rhs scale when per tensor */
    const float *channel_scale;  /* per column scales, or NULL (per tensor) */
    const int32_t *row_sums;     /* per rhs matrix and column, the sum of its int8 weights */
} hk_batch_matmul_hybrid_params_t;

/* scratch holds depth floats then depth bytes (5 * depth bytes, 4-byte aligned). */
int32_t hk_batch_matmul_hybrid(const hk_batch_matmul_hybrid_params_t *params, const float *lhs,
                               const int8_t *rhs, void *scratch, float *output);

#endif /* HK_BATCH_MATMUL_HYBRID_H */
