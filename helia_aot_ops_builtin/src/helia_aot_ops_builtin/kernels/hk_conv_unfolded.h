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

/* int8 activations, int8 weights, int32 bias (may be NULL); ignores offset_bias and scratch. */
int32_t hk_conv_s8_unfolded(const hk_conv_params_t *params, const int8_t *input,
                            const int8_t *filter, const int32_t *bias, int8_t *output);

#if HK_HAVE_MVE
/* The Helium loop (hk_conv_unfolded_mve.c): ungrouped filters, windows that do not dilate along
 * the width; hk_conv_s8_unfolded has checked the parameters. */
void hk_conv_s8_unfolded_mve(const hk_conv_params_t *p, const int8_t *input,
                             const int8_t *filter, const int32_t *bias, int8_t *output);
#endif

#endif /* HK_CONV_UNFOLDED_H */
