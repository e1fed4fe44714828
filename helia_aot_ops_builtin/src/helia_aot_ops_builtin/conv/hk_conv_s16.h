/*
 * helia-aot kernel library: the int16x8 CONV_2D fast paths (internal to the conv family).
 *
 * hk_conv_s16 and hk_conv_s16_b32 (hk_conv.c, the portable reference) hand the whole call to
 * hk_conv_s16_fast (hk_conv_s16.c) when hk_isa.h chose Helium or the DSP extension: four output
 * channels per pass over the receptive field, whose dot products hk_dot_s16.h computes for that
 * instruction set (VMLALDAV / VMLADAV on Helium, SMLALD / SMLAD on the DSP). Integer sums are
 * exact, so the order of the taps is free and every path gives the reference's integers.
 * HK_CONV_S16_FAST says whether a fast path is compiled in.
 */
#ifndef HK_CONV_S16_H
#define HK_CONV_S16_H

#include "hk_conv.h"
#include "hk_isa.h"

#if HK_HAVE_MVE || HK_HAVE_DSP
#define HK_CONV_S16_FAST 1
/* bias is int64_t (wide64 nonzero: 64-bit sums, hk_mbqm_64) or int32_t (32-bit sums,
 * hk_requant); params must already be checked. */
void hk_conv_s16_fast(const hk_conv_params_t *params, const int16_t *input, const int8_t *filter,
                      const void *bias, int16_t *output, int32_t wide64);
#else
#define HK_CONV_S16_FAST 0
#endif

#endif /* HK_CONV_S16_H */
