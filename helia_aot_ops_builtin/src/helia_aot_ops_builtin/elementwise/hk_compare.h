/*
 * helia-aot kernel library: comparisons (EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS,
 * LESS_EQUAL) into bool, LOGICAL_AND and LOGICAL_OR of bools, and SELECT / SELECT_V2, all with
 * broadcasting (see hk_walk.h: input k of the walk is the operator's input k).
 *
 * float32, int32 and bool comparisons compare the stored values; int8 ones first rescale both
 * inputs the way LiteRT's ComparisonWithScaling does (offset, shift left by 8, multiply by the
 * input scale as a quantized multiplier below one), so inputs of different scales compare by
 * their real values exactly as the reference decides. SELECT copies elements bit for bit, so one
 * kernel per element size serves every element type.
 */
#ifndef HK_COMPARE_H
#define HK_COMPARE_H

#include "hk_common.h"
#include "hk_walk.h"

typedef enum {
    HK_CMP_EQUAL = 0,
    HK_CMP_NOT_EQUAL = 1,
    HK_CMP_GREATER = 2,
    HK_CMP_GREATER_EQUAL = 3,
    HK_CMP_LESS = 4,
    HK_CMP_LESS_EQUAL = 5
} hk_compare_op_t;

typedef struct {
    hk_walk_t walk;
    int32_t op;                  /* an hk_compare_op_t */
    int32_t left_shift;          /* int8: 8 */
    int32_t input1_offset;       /* int8: negated zero points */
    int32_t input2_offset;
    int32_t input1_multiplier;   /* int8: the input scales as quantized multipliers (shift <= 0) */
    int32_t input1_shift;
    int32_t input2_multiplier;
    int32_t input2_shift;
} hk_compare_params_t;

int32_t hk_compare_f32(const hk_compare_params_t *params, const float *input1,
                       const float *input2, bool *output);
int32_t hk_compare_s32(const hk_compare_params_t *params, const int32_t *input1,
                       const int32_t *input2, bool *output);
int32_t hk_compare_s64(const hk_compare_params_t *params, const int64_t *input1,
                       const int64_t *input2, bool *output);
int32_t hk_compare_s8(const hk_compare_params_t *params, const int8_t *input1,
                      const int8_t *input2, bool *output);
int32_t hk_compare_b(const hk_compare_params_t *params, const bool *input1, const bool *input2,
                     bool *output);

int32_t hk_logical_and(const hk_walk_t *walk, const bool *input1, const bool *input2,
                       bool *output);
int32_t hk_logical_or(const hk_walk_t *walk, const bool *input1, const bool *input2,
                      bool *output);

/* output = condition ? x : y per element, for elements of 1, 2 or 4 bytes. */
int32_t hk_select_x8(const hk_walk_t *walk, const bool *condition, const uint8_t *x,
                     const uint8_t *y, uint8_t *output);
int32_t hk_select_x16(const hk_walk_t *walk, const bool *condition, const uint16_t *x,
                      const uint16_t *y, uint16_t *output);
int32_t hk_select_x32(const hk_walk_t *walk, const bool *condition, const uint32_t *x,
                      const uint32_t *y, uint32_t *output);

#endif /* HK_COMPARE_H */
