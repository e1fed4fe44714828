/*
 * helia-aot kernel library: the integer forms of NEG, FLOOR_DIV, FLOOR_MOD and SQUARED_DIFFERENCE
 * that LiteRT's reference kernels run on the stored integers (quantization parameters, where a
 * tensor has them, play no part): int8, int16 and int64 NEG, int8 and int16 FLOOR_DIV, int8,
 * int16 and int64 FLOOR_MOD, int32 SQUARED_DIFFERENCE. Results that leave the type wrap as the
 * reference's two's-complement arithmetic does; a zero divisor anywhere makes the division
 * kernels return HK_STATUS_BAD_PARAM, where the reference stops with "Division by 0".
 * The binary kernels broadcast through a walk (hk_walk.h), without the rest of hk_math.
 */
#ifndef HK_MATH_NARROW_H
#define HK_MATH_NARROW_H

#include "hk_common.h"
#include "hk_walk.h"

typedef struct {
    hk_walk_t walk;
} hk_math_narrow_params_t;

int32_t hk_neg_s8(const int8_t *input, int8_t *output, size_t size);
int32_t hk_neg_s16(const int16_t *input, int16_t *output, size_t size);
int32_t hk_neg_s64(const int64_t *input, int64_t *output, size_t size);

int32_t hk_floor_div_s8(const hk_math_narrow_params_t *params, const int8_t *input1, const int8_t *input2,
                        int8_t *output);
int32_t hk_floor_div_s16(const hk_math_narrow_params_t *params, const int16_t *input1,
                         const int16_t *input2, int16_t *output);
int32_t hk_floor_mod_s8(const hk_math_narrow_params_t *params, const int8_t *input1, const int8_t *input2,
                        int8_t *output);
int32_t hk_floor_mod_s16(const hk_math_narrow_params_t *params, const int16_t *input1,
                         const int16_t *input2, int16_t *output);
int32_t hk_floor_mod_s64(const hk_math_narrow_params_t *params, const int64_t *input1,
                         const int64_t *input2, int64_t *output);

int32_t hk_squared_difference_s32(const hk_math_narrow_params_t *params, const int32_t *input1,
                                  const int32_t *input2, int32_t *output);

#endif /* HK_MATH_NARROW_H */
