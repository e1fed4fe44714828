/*
 * helia-aot kernel library: integer NEG, FLOOR_DIV, FLOOR_MOD, SQUARED_DIFFERENCE (see
 * hk_math_narrow.h).
 */
#include "hk_math_narrow.h"

#include <math.h>

/* Follows LiteRT neg (integer types): -x, the most negative value onto itself. */
#define HK_NEG_BODY(T, U)                                                                      \
    if (input == NULL || output == NULL) {                                                     \
        return HK_STATUS_BAD_PARAM;                                                            \
    }                                                                                          \
    for (size_t i = 0; i < size; ++i) {                                                        \
        output[i] = (T)(0u - (U)input[i]);                                                     \
    }                                                                                          \
    return HK_STATUS_OK;

int32_t hk_neg_s8(const int8_t *input, int8_t *output, size_t size) { HK_NEG_BODY(int8_t, uint32_t) }
int32_t hk_neg_s16(const int16_t *input, int16_t *output, size_t size) { HK_NEG_BODY(int16_t, uint32_t) }
int32_t hk_neg_s64(const int64_t *input, int64_t *output, size_t size) { HK_NEG_BODY(int64_t, uint64_t) }

/* A zero divisor anywhere (the walk's input 1). */
#define HK_HAS_ZERO_DIVISOR(result)                                                            \
    do {                                                                                       \
        hk_walk_pos_t zpos;                                                                    \
        hk_walk_start(&zpos);                                                                  \
        (result) = false;                                                                      \
        for (int32_t z = 0; z < params->walk.size; ++z) {                                      \
            if (input2[zpos.offset[1]] == 0) {                                                 \
                (result) = true;                                                               \
                break;                                                                         \
            }                                                                                  \
            hk_walk_next(&params->walk, &zpos);                                                \
        }                                                                                      \
    } while (0)

/* Follows LiteRT FloorDiv (integer types): floor(double(x) / double(y)), narrowed through int32
 * as x86-64 converts (so int8 -128 / -1 gives -128). */
#define HK_FLOOR_DIV_BODY(T)                                                                   \
    bool zero;                                                                                 \
    HK_HAS_ZERO_DIVISOR(zero);                                                                 \
    if (zero) {                                                                                \
        return HK_STATUS_BAD_PARAM;                                                            \
    }                                                                                          \
    hk_walk_pos_t pos;                                                                         \
    hk_walk_start(&pos);                                                                       \
    for (int32_t i = 0; i < params->walk.size; ++i) {                                          \
        const double q = floor((double)input1[pos.offset[0]] / (double)input2[pos.offset[1]]); \
        output[i] = (T)(int32_t)q;                                                             \
        hk_walk_next(&params->walk, &pos);                                                     \
    }                                                                                          \
    return HK_STATUS_OK;

int32_t hk_floor_div_s8(const hk_math_narrow_params_t *params, const int8_t *input1, const int8_t *input2,
                        int8_t *output)
{
    HK_FLOOR_DIV_BODY(int8_t)
}

int32_t hk_floor_div_s16(const hk_math_narrow_params_t *params, const int16_t *input1,
                         const int16_t *input2, int16_t *output)
{
    HK_FLOOR_DIV_BODY(int16_t)
}

/* x % y (truncated, the sign of x) for int64 without libgcc's 64-bit division, whose unwind
 * table the Cortex-M55 test image cannot place near its code: binary long division. */
static int64_t narrow_rem_s64(int64_t x, int64_t y)
{
    const uint64_t n = x < 0 ? 0u - (uint64_t)x : (uint64_t)x;
    const uint64_t d = y < 0 ? 0u - (uint64_t)y : (uint64_t)y;
    uint64_t r = 0;
    for (int bit = 63; bit >= 0; --bit) {
        const uint64_t top = r >> 63;
        r = (r << 1) | ((n >> bit) & 1u);
        if (top != 0u || r >= d) {
            r -= d;
        }
    }
    return x < 0 ? (int64_t)(0u - r) : (int64_t)r;
}

/* Follows LiteRT FloorMod (integer types): the truncated remainder, moved by the divisor when
 * its sign differs from the divisor's. W is the type the remainder is computed in, REM(x, y)
 * its truncated remainder. */
#define NARROW_REM(x, y) ((x) % (y))
#define HK_FLOOR_MOD_BODY(T, W, REM)                                                                \
    bool zero;                                                                                 \
    HK_HAS_ZERO_DIVISOR(zero);                                                                 \
    if (zero) {                                                                                \
        return HK_STATUS_BAD_PARAM;                                                            \
    }                                                                                          \
    hk_walk_pos_t pos;                                                                         \
    hk_walk_start(&pos);                                                                       \
    for (int32_t i = 0; i < params->walk.size; ++i) {                                          \
        const W x = input1[pos.offset[0]];                                                     \
        const W y = input2[pos.offset[1]];                                                     \
        const W r = (y == -1) ? 0 : REM(x, y);                                                     \
        output[i] = (T)((r != 0 && ((y < 0) != (r < 0))) ? r + y : r);                         \
        hk_walk_next(&params->walk, &pos);                                                     \
    }                                                                                          \
    return HK_STATUS_OK;

int32_t hk_floor_mod_s8(const hk_math_narrow_params_t *params, const int8_t *input1, const int8_t *input2,
                        int8_t *output)
{
    HK_FLOOR_MOD_BODY(int8_t, int32_t, NARROW_REM)
}

int32_t hk_floor_mod_s16(const hk_math_narrow_params_t *params, const int16_t *input1,
                         const int16_t *input2, int16_t *output)
{
    HK_FLOOR_MOD_BODY(int16_t, int32_t, NARROW_REM)
}

int32_t hk_floor_mod_s64(const hk_math_narrow_params_t *params, const int64_t *input1,
                         const int64_t *input2, int64_t *output)
{
    HK_FLOOR_MOD_BODY(int64_t, int64_t, narrow_rem_s64)
}

/* Follows LiteRT SquaredDifference (int32): (x - y) * (x - y), wrapping. */
int32_t hk_squared_difference_s32(const hk_math_narrow_params_t *params, const int32_t *input1,
                                  const int32_t *input2, int32_t *output)
{
    if (params == NULL || input1 == NULL || input2 == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    hk_walk_pos_t pos;
    hk_walk_start(&pos);
    for (int32_t i = 0; i < params->walk.size; ++i) {
        const uint32_t d = (uint32_t)input1[pos.offset[0]] - (uint32_t)input2[pos.offset[1]];
        output[i] = (int32_t)(d * d);
        hk_walk_next(&params->walk, &pos);
    }
    return HK_STATUS_OK;
}
