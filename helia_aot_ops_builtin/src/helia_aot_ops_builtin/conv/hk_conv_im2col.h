/*
 * helia-aot kernel library: int8 CONV_2D over few input channels (first layers), im2col on Helium.
 *
 * A convolution whose window row (filter_width x input_channels bytes) is short fills Helium's
 * 16-byte vectors badly when read in place. This family gathers each output pixel's whole
 * receptive field once into a small contiguous column (taps outside the image hold the input
 * zero point, so the folded offset_bias stays exact) and takes its dot products with filters the
 * converter packed for that loop: per group of four filters (output channels zero padded to a
 * multiple of four), vector k of each of the four rows in turn, every row zero padded to
 * `column` = round16(taps) bytes. Two pixels meet four filters at a time, their eight sums in
 * registers, and are requantized as two vectors of four channels, whose folded biases,
 * multipliers and shifts the converter also packed per group.
 *
 * The packed filters are only read on Helium. Every other core (and any call the Helium path
 * does not cover) runs hk_conv_s8 with `conv` unchanged, so the portable reference and the DSP
 * path are exactly those of the conv family; a generated module calls this entry under
 * HK_HAVE_MVE only, and its usual conv call otherwise. A separate family so that hk_conv.c and its fast
 * paths compile as they do without this entry, and only modules that call it copy it.
 */
#ifndef HK_CONV_IM2COL_H
#define HK_CONV_IM2COL_H

#include "hk_conv.h"
#include "hk_isa.h" /* HK_HAVE_MVE: a generated call site picks this entry on Helium only */

typedef struct {
    hk_conv_params_t conv;  /* as for hk_conv_s8, with offset_bias and scratch */
    const int8_t *packed;   /* [round4(output_channels) * column]: see above */
    int32_t column;         /* round16(filter_height * filter_width * input_channels) */
    const int32_t *quant;   /* per group of four filters: offset_bias, output_multiplier and
                               output_shift of its four channels (zero padded), 12 words */
    int32_t general;        /* 1: some shift is left (hk_requant_mve), 0: all right */
    int32_t half;           /* 1: taps <= 8, each filter row packed twice (bytes 0.. and 8..),
                               pixel B's taps in lanes 8..15: two pixels fill one vector */
} hk_conv_im2col_params_t;

/* int8, as hk_conv_s8 (same integers); on Helium the scratch holds two columns, except for an
 * unpadded 1x1 filter with `half`, which reads its pixels in place and needs none. */
int32_t hk_conv_s8_im2col(const hk_conv_im2col_params_t *params, const int8_t *input,
                          const int8_t *filter, const int32_t *bias, int8_t *output);

#endif /* HK_CONV_IM2COL_H */
