/*
 * helia-aot kernel library: elementwise binary operators with NumPy-style broadcasting.
 *
 * ADD, SUB, MUL, SQUARED_DIFFERENCE, MAXIMUM and MINIMUM for int8, int16 and float32, each with
 * the arithmetic of the LiteRT reference kernel. The converter folds the broadcast into at most
 * five output dimensions (dropping extent-1 dimensions and merging neighbours that broadcast the
 * same way) and hands each input's element strides, 0 where the input repeats; when neither
 * input broadcasts the kernels take a flat loop instead.
 *
 * Every kernel reads both inputs of an element before writing its output, walking the output
 * forwards, so the output may share storage with an input of the output's shape.
 *
 * int8 ADD, SUB and MUL have fast paths chosen at compile time (Helium vectors on Cortex-M55,
 * a cheaper exact scalar requantization elsewhere); they give the element code's bytes, and
 * fall back to it for parameters outside what LiteRT's Prepare produces.
 */
#ifndef HK_BINARY_H
#define HK_BINARY_H

#include "hk_common.h"

#define HK_BINARY_MAX_RANK 5

/* Element (i0..i4) of the output reads input1[sum(i_k * strides1[k])] and
 * input2[sum(i_k * strides2[k])]; dimensions are outermost first, unused ones have extent 1. */
typedef struct {
    int32_t size;                           /* output elements; 0 makes every kernel a no-op */
    bool broadcast;                         /* false: both inputs hold `size` elements in order */
    int32_t shape[HK_BINARY_MAX_RANK];      /* output extents (read only when broadcast) */
    int32_t strides1[HK_BINARY_MAX_RANK];   /* input 1 element strides, 0 on repeated dims */
    int32_t strides2[HK_BINARY_MAX_RANK];   /* input 2 element strides, 0 on repeated dims */
} hk_broadcast_t;

/* Quantized rescaling, as LiteRT's Prepare computes it; fields an operator does not use are 0.
 * Offsets are the negated input zero points and the output zero point. Shifts follow LiteRT's
 * sign convention (positive = left). */
typedef struct {
    int32_t input1_offset;
    int32_t input2_offset;
    int32_t output_offset;
    int32_t left_shift;          /* ADD/SUB: 20 (int8) or 15 (int16); SQUARED_DIFFERENCE: 7 */
    int32_t input1_multiplier;   /* ADD/SUB/SQUARED_DIFFERENCE input rescale (shift <= 0) */
    int32_t input1_shift;        /* int16 power-of-two ADD/SUB: input 1's right shift, negated */
    int32_t input2_multiplier;
    int32_t input2_shift;
    int32_t output_multiplier;   /* ADD/SUB/SQUARED_DIFFERENCE: shift <= 0; MUL: any shift */
    int32_t output_shift;
    int32_t activation_min;      /* fused activation clamp, quantized */
    int32_t activation_max;
    bool pot_scale;              /* int16 ADD/SUB: LiteRT's power-of-two-scale path */
} hk_binary_quant_t;

typedef struct {
    hk_broadcast_t geometry;
    hk_binary_quant_t quant;     /* int8/int16 kernels */
    float float_min;             /* float32 ADD/SUB/MUL fused activation clamp */
    float float_max;
} hk_binary_params_t;

int32_t hk_add_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output);
int32_t hk_sub_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output);
int32_t hk_mul_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output);
int32_t hk_squared_difference_s8(const hk_binary_params_t *params, const int8_t *input1,
                                 const int8_t *input2, int8_t *output);
int32_t hk_maximum_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                      int8_t *output);
int32_t hk_minimum_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                      int8_t *output);

int32_t hk_add_s16(const hk_binary_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output);
int32_t hk_sub_s16(const hk_binary_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output);
int32_t hk_mul_s16(const hk_binary_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output);
int32_t hk_maximum_s16(const hk_binary_params_t *params, const int16_t *input1,
                       const int16_t *input2, int16_t *output);
int32_t hk_minimum_s16(const hk_binary_params_t *params, const int16_t *input1,
                       const int16_t *input2, int16_t *output);

int32_t hk_add_f32(const hk_binary_params_t *params, const float *input1, const float *input2,
                   float *output);
int32_t hk_sub_f32(const hk_binary_params_t *params, const float *input1, const float *input2,
                   float *output);
int32_t hk_mul_f32(const hk_binary_params_t *params, const float *input1, const float *input2,
                   float *output);
int32_t hk_squared_difference_f32(const hk_binary_params_t *params, const float *input1,
                                  const float *input2, float *output);
int32_t hk_maximum_f32(const hk_binary_params_t *params, const float *input1,
                       const float *input2, float *output);
int32_t hk_minimum_f32(const hk_binary_params_t *params, const float *input1,
                       const float *input2, float *output);

#endif /* HK_BINARY_H */
