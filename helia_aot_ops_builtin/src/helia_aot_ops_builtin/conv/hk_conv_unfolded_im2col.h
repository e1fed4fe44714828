/*
 * helia-aot kernel library: int8 CONV_2D over few input channels from the model's own bias, on
 * Helium (optimization.goal: size).
 *
 * First layers (at most 8 input channels: KWS's 10x4 over one channel, 3x3 over three, VWW's
 * 8 -> 16 pointwise) have window rows of a few bytes, which fill Helium's vectors badly when read
 * in place. Balanced gathers each window into a column and multiplies it by filters the converter
 * packed (hk_conv_im2col.h); goal size keeps the model's constants only, so this entry reads the
 * filters as stored (OHWI: each filter's window is one run of taps bytes) and takes the input
 * offset from each filter's sum, computed at run time once per call, instead of from a folded
 * offset_bias. Its only buffer is a fixed one on the kernel's stack (see
 * hk_conv_unfolded_im2col_mve.c), not in the arena.
 *
 * hk_conv_s8_unfolded calls it first on Helium (hk_conv_s8_unfolded_columns and
 * hk_conv_s8_unfolded_few_pointwise call one of its two parts alone); it returns HK_STATUS_BAD_PARAM, having written nothing, for a call it does not
 * cover (the caller then runs its own loop).
 */
#ifndef HK_CONV_UNFOLDED_IM2COL_H
#define HK_CONV_UNFOLDED_IM2COL_H

#include "hk_conv.h"
#include "hk_isa.h"

#if HK_HAVE_MVE
/* int8 activations, int8 weights, int32 bias (may be NULL); ignores offset_bias and scratch.
 * Covers ungrouped filters of at most 8 input channels, windows not dilated along the width and
 * of at most 64 taps (any 1x1 filter whose windows lie in the image); HK_STATUS_BAD_PARAM
 * otherwise. */
int32_t hk_conv_s8_unfolded_im2col(const hk_conv_params_t *params, const int8_t *input,
                                   const int8_t *filter, const int32_t *bias, int8_t *output);

/* The same without the pointwise loop: every covered call, 1x1 or not, gathers its windows into
 * columns (windows of at most 64 taps), so a module whose first layers are not pointwise links
 * no pointwise code; HK_STATUS_BAD_PARAM otherwise. */
int32_t hk_conv_s8_unfolded_im2col_windows(const hk_conv_params_t *params, const int8_t *input,
                                           const int8_t *filter, const int32_t *bias,
                                           int8_t *output);

/* The pointwise loop alone: a 1x1 filter, no padding, every pixel in the image (two pixels per
 * vector, read in place); HK_STATUS_BAD_PARAM for any other call. */
int32_t hk_conv_s8_unfolded_im2col_pointwise(const hk_conv_params_t *params,
                                             const int8_t *input, const int8_t *filter,
                                             const int32_t *bias, int8_t *output);
#endif

#endif /* HK_CONV_UNFOLDED_IM2COL_H */
