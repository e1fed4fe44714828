/*
 * helia-aot kernel library: quantized DIV (int8 and int16) with broadcasting.
 *
 * LiteRT divides two quantized values without going through float: the divisor's reciprocal
 * comes from the fixed-point Newton iteration of GetReciprocal, the dividend is normalised by its
 * leading sign bits, and one multiplier (input1 scale / (input2 scale * output scale)) rescales
 * the quotient; a negative divisor flips both signs first. The kernels follow that arithmetic
 * value for value; a zero divisor (after its offset), which the reference never checks, makes
 * them return HK_STATUS_BAD_PARAM. Inputs 1 and 2 are the walk's inputs 0 and 1 (hk_walk.h).
 */
#ifndef HK_DIV_QUANT_H
#define HK_DIV_QUANT_H

#include "hk_common.h"
#include "hk_walk.h"

typedef struct {
    hk_walk_t walk;
    int32_t input1_offset;     /* -input1 zero point */
    int32_t input2_offset;     /* -input2 zero point */
    int32_t output_offset;     /* output zero point */
    int32_t output_multiplier;
    int32_t output_shift;
    int32_t act_min;
    int32_t act_max;
} hk_div_quant_params_t;

int32_t hk_div_s8(const hk_div_quant_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output);
int32_t hk_div_s16(const hk_div_quant_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output);

#endif /* HK_DIV_QUANT_H */
