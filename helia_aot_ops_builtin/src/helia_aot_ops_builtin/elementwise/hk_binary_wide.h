/*
 * helia-aot kernel library: the int16 and float32 ADD, SUB and MUL runs for Helium, and the
 * int16 ADD and MUL runs for the DSP extension (internal to the binary family).
 *
 * hk_binary.c is the portable reference. With HK_BINARY_WIDE_FAST its int16 ADD and MUL and its
 * float32 ADD, SUB and MUL offer each run of outputs (the whole tensor when nothing broadcasts,
 * else each innermost row) to one of these first, as the int8 kernels do (hk_binary_paths.h).
 * A run computes n consecutive outputs whose inputs step by sa and sb elements; it covers steps
 * of 0 and 1 and returns false, having written nothing, otherwise (the element loop then runs).
 * int16 on Helium (hk_binary_wide_mve.c): four int32 lanes per step, requantized by
 * hk_requant_mve (the reference's integers); on the DSP extension (hk_binary_wide_dsp.c): two
 * outputs per input word, SMULBB / SMULTT products and single-instruction doubling high
 * multiplies (SMMULR / SMMLAR) for the multipliers QuantizeMultiplier produces, zero points 0.
 * LiteRT's power-of-two ADD is left to the element loop on both. float32: four lanes of the same single
 * add, subtract or multiply and clamp as the element function, so the floats are the same.
 */
#ifndef HK_BINARY_WIDE_H
#define HK_BINARY_WIDE_H

#include "hk_binary.h"
#include "hk_isa.h"

#define HK_BINARY_ADD 0
#define HK_BINARY_SUB 1
#define HK_BINARY_MUL 2

#if HK_HAVE_MVE || HK_HAVE_DSP
#define HK_BINARY_WIDE_FAST 1
bool hk_binary_run_s16(int32_t op, const hk_binary_quant_t *q, const int16_t *a, int32_t sa,
                       const int16_t *b, int32_t sb, int16_t *out, int32_t n);
#else
#define HK_BINARY_WIDE_FAST 0
#endif

#if HK_HAVE_MVE && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#define HK_BINARY_F32_FAST 1
bool hk_binary_run_f32(int32_t op, const hk_binary_params_t *p, const float *a, int32_t sa,
                       const float *b, int32_t sb, float *out, int32_t n);
#else
#define HK_BINARY_F32_FAST 0
#endif

#endif /* HK_BINARY_WIDE_H */
