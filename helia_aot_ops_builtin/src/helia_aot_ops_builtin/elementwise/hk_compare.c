/*
 * helia-aot kernel library: comparisons, logical AND/OR and select (see hk_compare.h).
 */
#include "hk_compare.h"

/* The ordering test of one comparison op on two ordered values, as a three-way result:
 * below < 0, equal == 0, above > 0; NaN (unordered) is reported as 2 and compares false except
 * for NOT_EQUAL, as C and the reference's std::equal_to / std::greater etc. decide. */
HK_INLINE bool hk_compare_decide(int32_t op, int32_t order)
{
    switch (op) {
    case HK_CMP_EQUAL:
        return order == 0;
    case HK_CMP_NOT_EQUAL:
        return order != 0;
    case HK_CMP_GREATER:
        return order == 1;
    case HK_CMP_GREATER_EQUAL:
        return order == 0 || order == 1;
    case HK_CMP_LESS:
        return order == -1;
    default:
        return order == 0 || order == -1;
    }
}

HK_INLINE int32_t hk_order_i32(int32_t a, int32_t b)
{
    return a < b ? -1 : (a > b ? 1 : 0);
}

/* Follows LiteRT reference_ops::Comparison / BroadcastComparison4DSlow (float32): the C
 * comparison operators, so any comparison with NaN is false and NOT_EQUAL true. */
int32_t hk_compare_f32(const hk_compare_params_t *params, const float *input1,
                       const float *input2, bool *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const float a = input1[pos.offset[0]];
        const float b = input2[pos.offset[1]];
        const int32_t order = a < b ? -1 : (a > b ? 1 : (a == b ? 0 : 2));
        output[i] = hk_compare_decide(params->op, order);
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Comparison (int32): the stored values. */
int32_t hk_compare_s32(const hk_compare_params_t *params, const int32_t *input1,
                       const int32_t *input2, bool *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const int32_t order = hk_order_i32(input1[pos.offset[0]], input2[pos.offset[1]]);
        output[i] = hk_compare_decide(params->op, order);
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Comparison (int64): the stored values. */
int32_t hk_compare_s64(const hk_compare_params_t *params, const int64_t *input1,
                       const int64_t *input2, bool *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const int64_t a = input1[pos.offset[0]];
        const int64_t b = input2[pos.offset[1]];
        const int32_t order = a < b ? -1 : (a > b ? 1 : 0);
        output[i] = hk_compare_decide(params->op, order);
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::ComparisonWithScaling (int8): (offset + q) << left_shift, then
 * MultiplyByQuantizedMultiplierSmallerThanOneExp with each input's scale, then compare. */
int32_t hk_compare_s8(const hk_compare_params_t *params, const int8_t *input1,
                      const int8_t *input2, bool *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const int32_t a = (params->input1_offset + (int32_t)input1[pos.offset[0]]) *
                          (1 << params->left_shift);
        const int32_t b = (params->input2_offset + (int32_t)input2[pos.offset[1]]) *
                          (1 << params->left_shift);
        const int32_t sa =
            hk_mbqm_smaller_than_one(a, params->input1_multiplier, params->input1_shift);
        const int32_t sb =
            hk_mbqm_smaller_than_one(b, params->input2_multiplier, params->input2_shift);
        output[i] = hk_compare_decide(params->op, hk_order_i32(sa, sb));
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Comparison (bool, EQUAL and NOT_EQUAL): false < true. */
int32_t hk_compare_b(const hk_compare_params_t *params, const bool *input1, const bool *input2,
                     bool *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const int32_t order =
            hk_order_i32((int32_t)input1[pos.offset[0]], (int32_t)input2[pos.offset[1]]);
        output[i] = hk_compare_decide(params->op, order);
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT logical LOGICAL_AND: x && y, broadcasting. */
int32_t hk_logical_and(const hk_walk_t *walk, const bool *input1, const bool *input2,
                       bool *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < walk->size; ++i) {
        output[i] = input1[pos.offset[0]] && input2[pos.offset[1]];
        hk_walk_next(walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT logical LOGICAL_OR: x || y, broadcasting. */
int32_t hk_logical_or(const hk_walk_t *walk, const bool *input1, const bool *input2,
                      bool *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < walk->size; ++i) {
        output[i] = input1[pos.offset[0]] || input2[pos.offset[1]];
        hk_walk_next(walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Select / RankOneSelect / BroadcastSelect5DSlow: the element of
 * x where the condition holds, else of y, copied unchanged (no requantization). */
int32_t hk_select_x8(const hk_walk_t *walk, const bool *condition, const uint8_t *x,
                     const uint8_t *y, uint8_t *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < walk->size; ++i) {
        output[i] = condition[pos.offset[0]] ? x[pos.offset[1]] : y[pos.offset[2]];
        hk_walk_next(walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT select (2-byte elements), as hk_select_x8. */
int32_t hk_select_x16(const hk_walk_t *walk, const bool *condition, const uint16_t *x,
                      const uint16_t *y, uint16_t *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < walk->size; ++i) {
        output[i] = condition[pos.offset[0]] ? x[pos.offset[1]] : y[pos.offset[2]];
        hk_walk_next(walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT select (4-byte elements), as hk_select_x8. */
int32_t hk_select_x32(const hk_walk_t *walk, const bool *condition, const uint32_t *x,
                      const uint32_t *y, uint32_t *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < walk->size; ++i) {
        output[i] = condition[pos.offset[0]] ? x[pos.offset[1]] : y[pos.offset[2]];
        hk_walk_next(walk, &pos);
    }
    return HK_STATUS_OK;
}
