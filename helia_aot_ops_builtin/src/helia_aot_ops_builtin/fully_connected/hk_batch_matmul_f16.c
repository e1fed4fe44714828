/*
 * helia-aot kernel library: float16 BATCH_MATMUL (see hk_batch_matmul_f16.h).
 */
#include "hk_batch_matmul_f16.h"

#include "hk_f16_dot.h"

/* Index of output batch (b0, b1, b2) within an operand whose batch dimensions are `dims`. */
HK_INLINE size_t bmm_f16_batch(const int32_t dims[3], int32_t b0, int32_t b1, int32_t b2)
{
    const size_t i0 = dims[0] == 1 ? 0u : (size_t)b0;
    const size_t i1 = dims[1] == 1 ? 0u : (size_t)b1;
    const size_t i2 = dims[2] == 1 ? 0u : (size_t)b2;
    return (i0 * (size_t)dims[1] + i1) * (size_t)dims[2] + i2;
}

/* Follows LiteRT reference_ops::BatchMatMul (float): output[b, i, j] = sum over k of
 * lhs[b, i, k] * rhs[b, k, j], the batch dimensions broadcast. */
int32_t hk_batch_matmul_f16(const hk_batch_matmul_f16_params_t *params, const uint16_t *lhs,
                            const uint16_t *rhs, uint16_t *output)
{
    if (params == NULL || lhs == NULL || rhs == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_batch_matmul_f16_params_t p = *params;
    if (p.rows < 0 || p.depth < 0 || p.cols < 0) {
        return HK_STATUS_BAD_PARAM;
    }
    for (int d = 0; d < 3; ++d) {
        if (p.batch[d] < 0 || (p.lhs_batch[d] != p.batch[d] && p.lhs_batch[d] != 1) ||
            (p.rhs_batch[d] != p.batch[d] && p.rhs_batch[d] != 1)) {
            return HK_STATUS_BAD_PARAM;
        }
    }
    const size_t lhs_row = p.adj_x ? 1u : (size_t)p.depth;
    const size_t lhs_depth = p.adj_x ? (size_t)p.rows : 1u;
    const size_t rhs_depth = p.adj_y ? 1u : (size_t)p.cols;
    const size_t rhs_col = p.adj_y ? (size_t)p.depth : 1u;
    const size_t lhs_size = (size_t)p.rows * (size_t)p.depth;
    const size_t rhs_size = (size_t)p.depth * (size_t)p.cols;
    const bool contiguous = lhs_depth == 1u && rhs_depth == 1u;
    const hk_f16_t *l = (const hk_f16_t *)(const void *)lhs;
    const hk_f16_t *r = (const hk_f16_t *)(const void *)rhs;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    for (int32_t b0 = 0; b0 < p.batch[0]; ++b0) {
        for (int32_t b1 = 0; b1 < p.batch[1]; ++b1) {
            for (int32_t b2 = 0; b2 < p.batch[2]; ++b2) {
                const hk_f16_t *a = l + bmm_f16_batch(p.lhs_batch, b0, b1, b2) * lhs_size;
                const hk_f16_t *m = r + bmm_f16_batch(p.rhs_batch, b0, b1, b2) * rhs_size;
                for (int32_t i = 0; i < p.rows; ++i) {
                    for (int32_t j = 0; j < p.cols; ++j) {
                        const hk_f16_t *x = a + (size_t)i * lhs_row;
                        const hk_f16_t *y = m + (size_t)j * rhs_col;
                        float total = 0.0f;
                        if (contiguous) {
                            total = hk_f16_dot(x, y, p.depth);
                        } else {
                            for (int32_t k = 0; k < p.depth; ++k) {
                                total += (float)y[(size_t)k * rhs_depth] * (float)x[(size_t)k * lhs_depth];
                            }
                        }
                        *out++ = hk_f16_round(total);
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}
