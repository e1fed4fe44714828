/*
 * helia-aot kernel library: float16 elementwise ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MAXIMUM and
 * MINIMUM.
 *
 * The broadcast walk is hk_binary's (the converter folds NumPy broadcasting into at most five
 * output dimensions with per-input element strides, 0 where an input repeats). Each element is
 * the float16 operation rounded once (the exact sum, difference or product of two float16 values
 * fits a float, so computing in float and rounding gives the correctly rounded float16 result),
 * then ADD/SUB/MUL clamp to the fused activation. On Helium with MVE-F, runs of elements where
 * neither input repeats go eight lanes at a time (vaddq_f16, vsubq_f16, vmulq_f16, vmaxnmq_f16,
 * vminnmq_f16) with the same per-element rounding. Inputs are read before the output is written,
 * so the output may share a same-shape input's storage. DIV and SQUARED_DIFFERENCE evaluate each
 * element in float and round once on every core (MVE has no divide; a float16 difference squared
 * would round twice).
 */
#ifndef HK_BINARY_F16_H
#define HK_BINARY_F16_H

#include "hk_f16.h"

#define HK_BINARY_F16_MAX_RANK 5

typedef struct {
    int32_t size;                               /* output elements */
    bool broadcast;                             /* false: both inputs hold `size` elements */
    int32_t shape[HK_BINARY_F16_MAX_RANK];      /* output extents, outermost first */
    int32_t strides1[HK_BINARY_F16_MAX_RANK];   /* input 1 element strides, 0 on repeated dims */
    int32_t strides2[HK_BINARY_F16_MAX_RANK];
} hk_binary_f16_geometry_t;

typedef struct {
    hk_binary_f16_geometry_t geometry;
    float float_min;                            /* ADD/SUB/MUL fused activation clamp */
    float float_max;
} hk_binary_f16_params_t;

int32_t hk_add_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                   const uint16_t *input2, uint16_t *output);
int32_t hk_sub_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                   const uint16_t *input2, uint16_t *output);
int32_t hk_mul_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                   const uint16_t *input2, uint16_t *output);
int32_t hk_maximum_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                       const uint16_t *input2, uint16_t *output);
int32_t hk_minimum_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                       const uint16_t *input2, uint16_t *output);

int32_t hk_div_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                   const uint16_t *input2, uint16_t *output);
int32_t hk_squared_difference_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                                  const uint16_t *input2, uint16_t *output);

#if HK_HAVE_MVE_F16
/* Internal to the family (hk_binary_f16_mve.c): a contiguous run of `n` elements of ADD, SUB,
 * MUL (clamped to params' float bounds), MAXIMUM or MINIMUM on Helium, eight lanes at a time
 * with tail predication. */
void hk_add_f16_run_mve(const hk_binary_f16_params_t *p, const hk_f16_t *a, const hk_f16_t *b, hk_f16_t *out,
                        int32_t n);
void hk_sub_f16_run_mve(const hk_binary_f16_params_t *p, const hk_f16_t *a, const hk_f16_t *b, hk_f16_t *out,
                        int32_t n);
void hk_mul_f16_run_mve(const hk_binary_f16_params_t *p, const hk_f16_t *a, const hk_f16_t *b, hk_f16_t *out,
                        int32_t n);
void hk_maximum_f16_run_mve(const hk_binary_f16_params_t *p, const hk_f16_t *a, const hk_f16_t *b,
                            hk_f16_t *out, int32_t n);
void hk_minimum_f16_run_mve(const hk_binary_f16_params_t *p, const hk_f16_t *a, const hk_f16_t *b,
                            hk_f16_t *out, int32_t n);
#endif

#endif /* HK_BINARY_F16_H */
