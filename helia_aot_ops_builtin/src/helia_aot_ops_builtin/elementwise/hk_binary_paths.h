/*
 * helia-aot kernel library: the int8 ADD, SUB and MUL fast paths (internal to the binary family).
 *
 * hk_binary.c is the portable reference. For int8 ADD, SUB and MUL it offers each run of outputs
 * (the whole tensor when nothing broadcasts, else each innermost row) to one of these first;
 * exactly one file defines them for the instruction set hk_isa.h chose: hk_binary_mve.c (Helium
 * vectors) or hk_binary_scalar.c (an exact scalar requantization cheaper than the reference's,
 * with SMMULR on the DSP extension). A run computes n consecutive outputs whose inputs step by
 * sa and sb elements. It returns false, having written nothing, for strides or parameters
 * outside what it covers (they are outside what LiteRT's Prepare produces); the reference's
 * element loop then computes the run. Where it returns true the bytes are the reference's.
 */
#ifndef HK_BINARY_PATHS_H
#define HK_BINARY_PATHS_H

#include "hk_binary.h"

bool hk_add_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa, const int8_t *b,
                   int32_t sb, int8_t *out, int32_t n);
bool hk_sub_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa, const int8_t *b,
                   int32_t sb, int8_t *out, int32_t n);
bool hk_mul_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa, const int8_t *b,
                   int32_t sb, int8_t *out, int32_t n);

#endif /* HK_BINARY_PATHS_H */
