/*
 * helia-aot kernel library: hybrid BATCH_MATMUL (see hk_batch_matmul_hybrid.h).
 *
 * Follows LiteRT's EvalHybrid and the hybrid reference_ops::BatchMatMul.
 */
#include "hk_batch_matmul_hybrid.h"

#include "hk_hybrid_quant.h"

static bool bmm_hybrid_params_ok(const hk_batch_matmul_hybrid_params_t *p)
{
    if (p == NULL || p->rows < 0 || p->depth < 1 || p->cols < 0 || p->row_sums == NULL) {
        return false;
    }
    for (int d = 0; d < 3; ++d) {
        if (p->batch[d] < 0 || (p->lhs_batch[d] != p->batch[d] && p->lhs_batch[d] != 1) ||
            (p->rhs_batch[d] != p->batch[d] && p->rhs_batch[d] != 1)) {
            return false;
        }
    }
    return true;
}

/* Index of output batch (b0, b1, b2) within an operand whose batch dimensions are `dims`. */
static size_t bmm_hybrid_batch(const int32_t dims[3], int32_t b0, int32_t b1, int32_t b2)
{
    const size_t i0 = dims[0] == 1 ? 0u : (size_t)b0;
    const size_t i1 = dims[1] == 1 ? 0u : (size_t)b1;
    const size_t i2 = dims[2] == 1 ? 0u : (size_t)b2;
    return (i0 * (size_t)dims[1] + i1) * (size_t)dims[2] + i2;
}

int32_t hk_batch_matmul_hybrid(const hk_batch_matmul_hybrid_params_t *params, const float *lhs,
                               const int8_t *rhs, void *scratch, float *output)
{
    const hk_batch_matmul_hybrid_params_t *p = params;
    if (!bmm_hybrid_params_ok(p) || lhs == NULL || rhs == NULL || scratch == NULL ||
        output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t depth = (size_t)p->depth;
    const size_t lhs_row = p->adj_x ? 1u : depth;
    const size_t lhs_step = p->adj_x ? (size_t)p->rows : 1u;
    const size_t rhs_step = p->adj_y ? 1u : (size_t)p->cols;
    const size_t rhs_col = p->adj_y ? depth : 1u;
    const size_t lhs_size = (size_t)p->rows * depth;
    const size_t rhs_size = depth * (size_t)p->cols;
    float *row = (float *)scratch;
    int8_t *q = (int8_t *)(row + depth);
    float *out = output;
    for (int32_t b0 = 0; b0 < p->batch[0]; ++b0) {
        for (int32_t b1 = 0; b1 < p->batch[1]; ++b1) {
            for (int32_t b2 = 0; b2 < p->batch[2]; ++b2) {
                const float *a = lhs + bmm_hybrid_batch(p->lhs_batch, b0, b1, b2) * lhs_size;
                const size_t matrix = bmm_hybrid_batch(p->rhs_batch, b0, b1, b2);
                const int8_t *m = rhs + matrix * rhs_size;
                const int32_t *sums = p->row_sums + matrix * (size_t)p->cols;
                for (int32_t i = 0; i < p->rows; ++i) {
                    const float *x = a + (size_t)i * lhs_row;
                    for (size_t k = 0; k < depth; ++k) {
                        row[k] = x[k * lhs_step];
                    }
                    int32_t offset;
                    float row_scale = hk_hybrid_quantize_row(row, depth, q, p->asymmetric != 0, &offset);
                    if (p->channel_scale == NULL) {
                        row_scale *= p->filter_scale;
                    }
                    const float row_offset = (float)offset;
                    for (int32_t j = 0; j < p->cols; ++j) {
                        const int8_t *y = m + (size_t)j * rhs_col;
                        uint32_t dot = 0;
                        for (size_t k = 0; k < depth; ++k) {
                            dot += (uint32_t)((int32_t)y[k * rhs_step] * (int32_t)q[k]);
                        }
                        const float shifted = (float)(int32_t)dot - (float)sums[j] * row_offset;
                        const int32_t total = (int32_t)shifted;
                        float scale = row_scale;
                        if (p->channel_scale != NULL) {
                            scale *= p->channel_scale[j];
                        }
                        float v = 0.0f;
                        v += scale * (float)total;
                        *out++ = v;
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}
