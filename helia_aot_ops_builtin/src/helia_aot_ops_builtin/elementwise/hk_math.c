/*
 * helia-aot kernel library: binary elementwise math and ADD_N (see hk_math.h).
 */
#include "hk_math.h"

#include <math.h>

/* True when any element of the second input is zero (the reference checks before computing). */
static bool hk_math_has_zero_s32(const hk_math_params_t *params, const int32_t *input2)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        if (input2[pos.offset[1]] == 0) {
            return true;
        }
        hk_walk_next(&params->walk, &pos);
    }
    return false;
}

/* Follows LiteRT reference_ops::Div / BroadcastDivSlow (float32): x / y, then
 * ActivationFunctionWithMinMax (std::max then std::min, so NaN passes through). */
int32_t hk_div_f32(const hk_math_params_t *params, const float *input1, const float *input2,
                   float *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        float v = input1[pos.offset[0]] / input2[pos.offset[1]];
        v = v < params->float_min ? params->float_min : v;
        v = params->float_max < v ? params->float_max : v;
        output[i] = v;
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Pow (float32): std::pow. */
int32_t hk_pow_f32(const hk_math_params_t *params, const float *input1, const float *input2,
                   float *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        output[i] = powf(input1[pos.offset[0]], input2[pos.offset[1]]);
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT floor_div FloorDiv (float32): std::floor of the quotient taken in double,
 * rounded to float. */
int32_t hk_floor_div_f32(const hk_math_params_t *params, const float *input1,
                         const float *input2, float *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const double q = (double)input1[pos.offset[0]] / (double)input2[pos.offset[1]];
        output[i] = (float)floor(q);
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::FloorMod (float32): r = fmodf(x, y); r + y when r is non-zero
 * and its sign differs from y's. */
int32_t hk_floor_mod_f32(const hk_math_params_t *params, const float *input1,
                         const float *input2, float *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const float y = input2[pos.offset[1]];
        const float r = fmodf(input1[pos.offset[0]], y);
        output[i] = (r != 0.0f && ((y < 0.0f) != (r < 0.0f))) ? r + y : r;
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT atan2 (float32): std::atan2(y = input1, x = input2). */
int32_t hk_atan2_f32(const hk_math_params_t *params, const float *input1, const float *input2,
                     float *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        output[i] = atan2f(input1[pos.offset[0]], input2[pos.offset[1]]);
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT div (int32): a zero divisor anywhere is an error; else truncating x / y, then
 * the fused activation clamp. INT32_MIN / -1 wraps to INT32_MIN (the reference leaves it
 * undefined). */
int32_t hk_div_s32(const hk_math_params_t *params, const int32_t *input1,
                   const int32_t *input2, int32_t *output)
{
    if (hk_math_has_zero_s32(params, input2)) {
        return HK_STATUS_BAD_PARAM;
    }
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const int32_t x = input1[pos.offset[0]];
        const int32_t y = input2[pos.offset[1]];
        const int32_t q = (x == INT32_MIN && y == -1) ? INT32_MIN : x / y;
        output[i] = hk_clamp_i32(q, params->int_min, params->int_max);
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Pow (int32): a negative exponent anywhere is an error; else
 * std::pow in double, converted to int32 (results outside int32 give INT32_MIN, as the x86
 * conversion the reference relies on does). */
int32_t hk_pow_s32(const hk_math_params_t *params, const int32_t *input1,
                   const int32_t *input2, int32_t *output)
{
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        if (input2[pos.offset[1]] < 0) {
            return HK_STATUS_BAD_PARAM;
        }
        hk_walk_next(&params->walk, &pos);
    }
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const double v = pow((double)input1[pos.offset[0]], (double)input2[pos.offset[1]]);
        output[i] = (v >= -2147483648.0 && v < 2147483648.0) ? (int32_t)v : INT32_MIN;
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT floor_div FloorDiv (int32): a zero divisor anywhere is an error; else
 * std::floor of the double quotient, converted back to int32. */
int32_t hk_floor_div_s32(const hk_math_params_t *params, const int32_t *input1,
                         const int32_t *input2, int32_t *output)
{
    if (hk_math_has_zero_s32(params, input2)) {
        return HK_STATUS_BAD_PARAM;
    }
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const double q = floor((double)input1[pos.offset[0]] / (double)input2[pos.offset[1]]);
        output[i] = q < 2147483648.0 ? (int32_t)q : INT32_MIN;
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::FloorMod (int32): a zero divisor anywhere is an error; else
 * r = x % y, plus y when r is non-zero and its sign differs from y's. */
int32_t hk_floor_mod_s32(const hk_math_params_t *params, const int32_t *input1,
                         const int32_t *input2, int32_t *output)
{
    if (hk_math_has_zero_s32(params, input2)) {
        return HK_STATUS_BAD_PARAM;
    }
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const int32_t x = input1[pos.offset[0]];
        const int32_t y = input2[pos.offset[1]];
        const int32_t r = (y == -1) ? 0 : x % y;
        output[i] = (r != 0 && ((y < 0) != (r < 0))) ? r + y : r;
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::AddN (float32): a zero accumulator plus each input in order. */
int32_t hk_add_n_f32(const float *const *inputs, int32_t count, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        float sum = 0.0f;
        for (int32_t j = 0; j < count; ++j) {
            sum += inputs[j][i];
        }
        output[i] = sum;
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::AddN (int32), summing with two's complement wrap. */
int32_t hk_add_n_s32(const int32_t *const *inputs, int32_t count, int32_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        uint32_t sum = 0u;
        for (int32_t j = 0; j < count; ++j) {
            sum += (uint32_t)inputs[j][i];
        }
        output[i] = (int32_t)sum;
    }
    return HK_STATUS_OK;
}

/* The int32 arithmetic operators: one walk, `kind` constant at each (inlined) call. */
typedef enum { S32_ADD, S32_SUB, S32_MUL, S32_MAX, S32_MIN } s32_kind_t;

HK_INLINE int32_t s32_walk(const hk_math_params_t *params, const int32_t *input1,
                           const int32_t *input2, int32_t *output, s32_kind_t kind)
{
    if (params == NULL || params->walk.size < 0 ||
        (params->walk.size > 0 && (input1 == NULL || input2 == NULL || output == NULL))) {
        return HK_STATUS_BAD_PARAM;
    }
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const int32_t x = input1[pos.offset[0]];
        const int32_t y = input2[pos.offset[1]];
        const uint32_t ux = (uint32_t)x;
        const uint32_t uy = (uint32_t)y;
        uint32_t bits;
        switch (kind) {
        case S32_ADD:
            bits = ux + uy;
            break;
        case S32_SUB:
            bits = ux - uy;
            break;
        case S32_MUL:
            bits = ux * uy;
            break;
        case S32_MAX:
            bits = (uint32_t)(x > y ? x : y);
            break;
        default:
            bits = (uint32_t)(x < y ? x : y);
            break;
        }
        /* The wrapped bits read back as two's complement without implementation-defined casts. */
        const int32_t value = bits <= (uint32_t)INT32_MAX ? (int32_t)bits
                                                          : -(int32_t)(~bits) - 1;
        output[i] = hk_clamp_i32(value, params->int_min, params->int_max);
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Add / BroadcastAdd6DSlow (int32): x + y (wrapping as the
 * reference's two's-complement hosts do), then the fused activation clamp. */
int32_t hk_add_s32(const hk_math_params_t *params, const int32_t *input1, const int32_t *input2,
                   int32_t *output)
{
    return s32_walk(params, input1, input2, output, S32_ADD);
}

/* Follows LiteRT reference_ops::Sub / BroadcastSubSlow (int32): x - y, then the clamp. */
int32_t hk_sub_s32(const hk_math_params_t *params, const int32_t *input1, const int32_t *input2,
                   int32_t *output)
{
    return s32_walk(params, input1, input2, output, S32_SUB);
}

/* Follows LiteRT reference_ops::Mul / BroadcastMul6DSlow (int32): x * y (low 32 bits), then the
 * clamp. */
int32_t hk_mul_s32(const hk_math_params_t *params, const int32_t *input1, const int32_t *input2,
                   int32_t *output)
{
    return s32_walk(params, input1, input2, output, S32_MUL);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with std::max (int32). */
int32_t hk_maximum_s32(const hk_math_params_t *params, const int32_t *input1,
                       const int32_t *input2, int32_t *output)
{
    return s32_walk(params, input1, input2, output, S32_MAX);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with std::min (int32). */
int32_t hk_minimum_s32(const hk_math_params_t *params, const int32_t *input1,
                       const int32_t *input2, int32_t *output)
{
    return s32_walk(params, input1, input2, output, S32_MIN);
}

/* The int64 arithmetic operators (LiteRT's int64 ADD/SUB/MUL/MAXIMUM/MINIMUM, fused activation
 * NONE): wrap-around on uint64, no clamp. */
HK_INLINE int32_t s64_walk(const hk_math_params_t *params, const int64_t *input1,
                           const int64_t *input2, int64_t *output, s32_kind_t kind)
{
    if (params == NULL || params->walk.size < 0 ||
        (params->walk.size > 0 && (input1 == NULL || input2 == NULL || output == NULL))) {
        return HK_STATUS_BAD_PARAM;
    }
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const int64_t x = input1[pos.offset[0]];
        const int64_t y = input2[pos.offset[1]];
        uint64_t bits;
        switch (kind) {
        case S32_ADD:
            bits = (uint64_t)x + (uint64_t)y;
            break;
        case S32_SUB:
            bits = (uint64_t)x - (uint64_t)y;
            break;
        case S32_MUL:
            bits = (uint64_t)x * (uint64_t)y;
            break;
        case S32_MAX:
            bits = (uint64_t)(x > y ? x : y);
            break;
        default:
            bits = (uint64_t)(x < y ? x : y);
            break;
        }
        output[i] = bits <= (uint64_t)INT64_MAX ? (int64_t)bits : -(int64_t)(~bits) - 1;
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Add / BroadcastAdd6DSlow (int64, no activation): x + y. */
int32_t hk_add_s64(const hk_math_params_t *params, const int64_t *input1, const int64_t *input2,
                   int64_t *output)
{
    return s64_walk(params, input1, input2, output, S32_ADD);
}

/* Follows LiteRT reference_ops::Sub / BroadcastSubSlow (int64, no activation): x - y. */
int32_t hk_sub_s64(const hk_math_params_t *params, const int64_t *input1, const int64_t *input2,
                   int64_t *output)
{
    return s64_walk(params, input1, input2, output, S32_SUB);
}

/* Follows LiteRT reference_ops::Mul / BroadcastMul6DSlow (int64, no activation): x * y. */
int32_t hk_mul_s64(const hk_math_params_t *params, const int64_t *input1, const int64_t *input2,
                   int64_t *output)
{
    return s64_walk(params, input1, input2, output, S32_MUL);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with std::max (int64). */
int32_t hk_maximum_s64(const hk_math_params_t *params, const int64_t *input1,
                       const int64_t *input2, int64_t *output)
{
    return s64_walk(params, input1, input2, output, S32_MAX);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with std::min (int64). */
int32_t hk_minimum_s64(const hk_math_params_t *params, const int64_t *input1,
                       const int64_t *input2, int64_t *output)
{
    return s64_walk(params, input1, input2, output, S32_MIN);
}
