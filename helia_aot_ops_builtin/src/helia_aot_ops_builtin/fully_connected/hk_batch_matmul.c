/*
 * helia-aot kernel library: BATCH_MATMUL (see hk_batch_matmul.h).
 */
#include "hk_batch_matmul.h"

/* Element strides of one lhs or rhs matrix and offsets of its batch matrices. */
typedef struct {
    size_t lhs_row;   /* step between lhs[i] and lhs[i + 1] */
    size_t lhs_depth; /* step between lhs[., k] and lhs[., k + 1] */
    size_t rhs_depth;
    size_t rhs_col;
} bmm_strides_t;

static bool bmm_params_ok(const hk_batch_matmul_params_t *p)
{
    if (p == NULL || p->rows < 0 || p->depth < 0 || p->cols < 0) {
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

static bmm_strides_t bmm_strides(const hk_batch_matmul_params_t *p)
{
    bmm_strides_t s;
    s.lhs_row = p->adj_x ? 1u : (size_t)p->depth;
    s.lhs_depth = p->adj_x ? (size_t)p->rows : 1u;
    s.rhs_depth = p->adj_y ? 1u : (size_t)p->cols;
    s.rhs_col = p->adj_y ? (size_t)p->depth : 1u;
    return s;
}

/* Index of output batch (b0, b1, b2) within an operand whose batch dimensions are `dims`
 * (a dimension of 1 is broadcast). */
static size_t bmm_batch_index(const int32_t dims[3], int32_t b0, int32_t b1, int32_t b2)
{
    const size_t i0 = dims[0] == 1 ? 0u : (size_t)b0;
    const size_t i1 = dims[1] == 1 ? 0u : (size_t)b1;
    const size_t i2 = dims[2] == 1 ? 0u : (size_t)b2;
    return (i0 * (size_t)dims[1] + i1) * (size_t)dims[2] + i2;
}

/* Follows LiteRT reference_ops::BatchMatMul (int8, per-tensor, 32-bit accumulation). */
int32_t hk_batch_matmul_s8(const hk_batch_matmul_params_t *params, const int8_t *lhs,
                           const int8_t *rhs, int8_t *output)
{
    if (!bmm_params_ok(params) || params->act_min > params->act_max || lhs == NULL ||
        rhs == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_batch_matmul_params_t *p = params;
    const bmm_strides_t s = bmm_strides(p);
    const size_t lhs_size = (size_t)p->rows * (size_t)p->depth;
    const size_t rhs_size = (size_t)p->depth * (size_t)p->cols;
    const int32_t act_min = hk_max_i32(p->act_min, -128);
    const int32_t act_max = hk_min_i32(p->act_max, 127);
    int8_t *out = output;
    for (int32_t b0 = 0; b0 < p->batch[0]; ++b0) {
        for (int32_t b1 = 0; b1 < p->batch[1]; ++b1) {
            for (int32_t b2 = 0; b2 < p->batch[2]; ++b2) {
                const int8_t *a = lhs + bmm_batch_index(p->lhs_batch, b0, b1, b2) * lhs_size;
                const int8_t *m = rhs + bmm_batch_index(p->rhs_batch, b0, b1, b2) * rhs_size;
                for (int32_t i = 0; i < p->rows; ++i) {
                    for (int32_t j = 0; j < p->cols; ++j) {
                        const int8_t *x = a + (size_t)i * s.lhs_row;
                        const int8_t *y = m + (size_t)j * s.rhs_col;
                        int32_t acc = 0;
                        for (int32_t k = 0; k < p->depth; ++k) {
                            acc += ((int32_t)y[(size_t)k * s.rhs_depth] + p->rhs_offset) *
                                   ((int32_t)x[(size_t)k * s.lhs_depth] + p->lhs_offset);
                        }
                        int32_t value = hk_mbqm(acc, p->output_multiplier, p->output_shift);
                        value += p->output_offset;
                        *out++ = (int8_t)hk_clamp_i32(value, act_min, act_max);
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::BatchMatMul (float): each sum runs over the depth in order. */
int32_t hk_batch_matmul_f32(const hk_batch_matmul_params_t *params, const float *lhs,
                            const float *rhs, float *output)
{
    if (!bmm_params_ok(params) || lhs == NULL || rhs == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_batch_matmul_params_t *p = params;
    const bmm_strides_t s = bmm_strides(p);
    const size_t lhs_size = (size_t)p->rows * (size_t)p->depth;
    const size_t rhs_size = (size_t)p->depth * (size_t)p->cols;
    float *out = output;
    for (int32_t b0 = 0; b0 < p->batch[0]; ++b0) {
        for (int32_t b1 = 0; b1 < p->batch[1]; ++b1) {
            for (int32_t b2 = 0; b2 < p->batch[2]; ++b2) {
                const float *a = lhs + bmm_batch_index(p->lhs_batch, b0, b1, b2) * lhs_size;
                const float *m = rhs + bmm_batch_index(p->rhs_batch, b0, b1, b2) * rhs_size;
                for (int32_t i = 0; i < p->rows; ++i) {
                    for (int32_t j = 0; j < p->cols; ++j) {
                        const float *x = a + (size_t)i * s.lhs_row;
                        const float *y = m + (size_t)j * s.rhs_col;
                        float total = 0.0f;
                        for (int32_t k = 0; k < p->depth; ++k) {
                            total += y[(size_t)k * s.rhs_depth] * x[(size_t)k * s.lhs_depth];
                        }
                        *out++ = total;
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}
