/*
 * helia-aot kernel library: FULLY_CONNECTED int8 over block-sparse weights (goal `size`).
 *
 * A pruned model may store its weights [units, depth] sparse in blocks of block_units x
 * block_depth values. For such a layer the converter can keep only the blocks that hold a nonzero
 * value: block_values has them one after another (each row-major), and for the block row r
 * (units r * block_units onwards) block_starts[r] .. block_starts[r + 1] index block_columns,
 * the block columns present (depth block_columns[k] * block_depth onwards). The skipped weights
 * are zero, so the integer sums are the dense ones: folded_bias[o] (bias plus input_offset times
 * the unit's weight sum, wrapped to int32) plus the products of the present blocks, requantized
 * by the double scale (hk_fc_requant.h), offset and clamped, as hk_fully_connected_s8_generic.
 * The weights' zero point is 0 (filter_offset must be 0).
 */
#ifndef HK_FULLY_CONNECTED_SPARSE_H
#define HK_FULLY_CONNECTED_SPARSE_H

#include "hk_fully_connected.h"

typedef struct {
    hk_fully_connected_params_t fc; /* shapes, offsets, clamp and scales; bias not read */
    int32_t block_units;
    int32_t block_depth;
    const int32_t *block_starts;  /* [units / block_units + 1] */
    const int16_t *block_columns; /* [block_starts[last]], each >= 0 */
    const int32_t *folded_bias;    /* [units] */
} hk_fully_connected_sparse_params_t;

int32_t hk_fully_connected_s8_sparse(const hk_fully_connected_sparse_params_t *params,
                                     const int8_t *input, const int8_t *block_values,
                                     int8_t *output);

#endif /* HK_FULLY_CONNECTED_SPARSE_H */
