/*
 * helia-aot kernel library: int8 CONV_2D from the model's own bias (optimization.goal: size).
 *
 * The fast paths of hk_conv.c start each window from offset_bias (a constant the converter
 * folds: the bias plus the input offset times the filter's sum) and gather into a scratch
 * buffer. Goal size keeps neither, so this family runs from the bias alone with no buffer: on
 * Helium two output pixels against four filters at a time, both windows read in place, pixels
 * paired by the way the image edges cut their windows, the filters' sums taken at run time once
 * per group of four and window shape; elsewhere the general loop (hk_conv_generic.h). Where no
 * tap is padded the converter may fold the offset into the bias it replaces and pass an input
 * offset of 0: the sums are then skipped. A family of its own, so the fast paths' translation
 * unit is untouched.
 */
#ifndef HK_CONV_UNFOLDED_H
#define HK_CONV_UNFOLDED_H

#include "hk_conv.h"
#include "hk_conv_generic.h"
#include "hk_isa.h"

/* int8 activations, int8 weights, int32 bias (may be NULL); ignores offset_bias and scratch.
 * The general entry: on Helium it chooses its loop per call (windows gathered into columns for
 * at most 8 input channels, read in place otherwise), so a module calling it links every loop. */
int32_t hk_conv_s8_unfolded(const hk_conv_params_t *params, const int8_t *input,
                            const int8_t *filter, const int32_t *bias, int8_t *output);

/*
 * The same integers through part of the loops, for a call whose geometry the converter knows
 * (the generated code names the entry, so --gc-sections drops the loops a module never takes).
 * Each takes any call, with hk_conv_s8_unfolded's signature, and falls back to the general loop
 * without Helium or for parameters its loop does not take:
 * - hk_conv_s8_unfolded_columns: at most 8 input channels, any other filter (first layers):
 *   Helium gathers windows into columns (hk_conv_s8_unfolded_im2col_windows), else reads them
 *   in place; never the columns' pointwise loop.
 * - hk_conv_s8_unfolded_few_pointwise: a 1x1 filter without padding over at most 8 input
 *   channels: Helium reads two pixels per vector (hk_conv_s8_unfolded_im2col_pointwise), else
 *   in place; never the window gathering.
 * - hk_conv_s8_unfolded_in_place: windows read in place (more than 8 input channels): no column
 *   code at all.
 */
int32_t hk_conv_s8_unfolded_columns(const hk_conv_params_t *params, const int8_t *input,
                                    const int8_t *filter, const int32_t *bias, int8_t *output);
int32_t hk_conv_s8_unfolded_few_pointwise(const hk_conv_params_t *params, const int8_t *input,
                                          const int8_t *filter, const int32_t *bias,
                                          int8_t *output);
int32_t hk_conv_s8_unfolded_in_place(const hk_conv_params_t *params, const int8_t *input,
                                     const int8_t *filter, const int32_t *bias, int8_t *output);

#if HK_HAVE_MVE
/* The Helium loop (hk_conv_unfolded_mve.c): ungrouped filters, windows that do not dilate along
 * the width; hk_conv_s8_unfolded has checked the parameters. */
void hk_conv_s8_unfolded_mve(const hk_conv_params_t *p, const int8_t *input,
                             const int8_t *filter, const int32_t *bias, int8_t *output);
#endif

#endif /* HK_CONV_UNFOLDED_H */
