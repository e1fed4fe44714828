/*
 * helia-aot kernel library: binary elementwise math with broadcasting (DIV, POW, FLOOR_DIV,
 * FLOOR_MOD, ATAN2, and int32/int64 ADD/SUB/MUL/MAXIMUM/MINIMUM) and ADD_N, for float32 and int32.
 *
 * Each kernel follows the LiteRT reference kernel's expression (float32 through the same C
 * library calls, int32 through the same integer or double arithmetic). Where the reference stops
 * with an error (an int32 division by zero, a negative int32 exponent) the kernel returns
 * HK_STATUS_BAD_PARAM. Inputs 1 and 2 are the walk's inputs 0 and 1 (see hk_walk.h).
 */
#ifndef HK_MATH_H
#define HK_MATH_H

#include "hk_common.h"
#include "hk_walk.h"

typedef struct {
    hk_walk_t walk;
    float float_min;   /* float32 DIV fused activation clamp (+-FLT_MAX without one) */
    float float_max;
    int32_t int_min;   /* int32 DIV fused activation clamp */
    int32_t int_max;
} hk_math_params_t;

int32_t hk_div_f32(const hk_math_params_t *params, const float *input1, const float *input2,
                   float *output);
int32_t hk_pow_f32(const hk_math_params_t *params, const float *input1, const float *input2,
                   float *output);
int32_t hk_floor_div_f32(const hk_math_params_t *params, const float *input1,
                         const float *input2, float *output);
int32_t hk_floor_mod_f32(const hk_math_params_t *params, const float *input1,
                         const float *input2, float *output);
int32_t hk_atan2_f32(const hk_math_params_t *params, const float *input1, const float *input2,
                     float *output);

int32_t hk_div_s32(const hk_math_params_t *params, const int32_t *input1,
                   const int32_t *input2, int32_t *output);
int32_t hk_pow_s32(const hk_math_params_t *params, const int32_t *input1,
                   const int32_t *input2, int32_t *output);
int32_t hk_floor_div_s32(const hk_math_params_t *params, const int32_t *input1,
                         const int32_t *input2, int32_t *output);
int32_t hk_floor_mod_s32(const hk_math_params_t *params, const int32_t *input1,
                         const int32_t *input2, int32_t *output);

/* int32 ADD, SUB and MUL (two's-complement wrap-around, then the fused activation clamp) and
 * MAXIMUM / MINIMUM (no activation: leave int_min/int_max at the int32 limits). */
int32_t hk_add_s32(const hk_math_params_t *params, const int32_t *input1, const int32_t *input2,
                   int32_t *output);
int32_t hk_sub_s32(const hk_math_params_t *params, const int32_t *input1, const int32_t *input2,
                   int32_t *output);
int32_t hk_mul_s32(const hk_math_params_t *params, const int32_t *input1, const int32_t *input2,
                   int32_t *output);
int32_t hk_maximum_s32(const hk_math_params_t *params, const int32_t *input1,
                       const int32_t *input2, int32_t *output);
int32_t hk_minimum_s32(const hk_math_params_t *params, const int32_t *input1,
                       const int32_t *input2, int32_t *output);

/* int64 ADD, SUB, MUL (wrap-around, fused activation NONE only), MAXIMUM and MINIMUM. */
int32_t hk_add_s64(const hk_math_params_t *params, const int64_t *input1, const int64_t *input2,
                   int64_t *output);
int32_t hk_sub_s64(const hk_math_params_t *params, const int64_t *input1, const int64_t *input2,
                   int64_t *output);
int32_t hk_mul_s64(const hk_math_params_t *params, const int64_t *input1, const int64_t *input2,
                   int64_t *output);
int32_t hk_maximum_s64(const hk_math_params_t *params, const int64_t *input1,
                       const int64_t *input2, int64_t *output);
int32_t hk_minimum_s64(const hk_math_params_t *params, const int64_t *input1,
                       const int64_t *input2, int64_t *output);

/* ADD_N: output[i] = 0 + inputs[0][i] + ... + inputs[count - 1][i], every input `size` long. */
int32_t hk_add_n_f32(const float *const *inputs, int32_t count, float *output, size_t size);
int32_t hk_add_n_s32(const int32_t *const *inputs, int32_t count, int32_t *output,
                     size_t size);

#endif /* HK_MATH_H */
