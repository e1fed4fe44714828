/*
 * helia-aot kernel library: CONV_2D int8 with packed int4 weights read where they are multiplied
 * (goal size: no int8 copy of the filter anywhere, see hk_int4.h). The filter is LiteRT's OHWI
 * int4 tensor as stored, two values per byte. A family of its own, so that modules without int4
 * layers compile the int8 paths exactly as before.
 */
#ifndef HK_CONV_S4_H
#define HK_CONV_S4_H

#include "hk_conv.h"
#include "hk_int4.h"

/* int8 activations, packed int4 filter, bias NULL: the general loop (ignores offset_bias and
 * scratch); the outputs of hk_conv_s8 on the unpacked filter and its int32 bias. output_shift
 * holds channel words (hk_int4.h), each channel's shift and bias in one int32; a non-NULL
 * `bias` is HK_STATUS_BAD_PARAM (it would be a second one). */
int32_t hk_conv_s8_s4(const hk_conv_params_t *params, const int8_t *input,
                      const uint8_t *filter, const int32_t *bias, int8_t *output);

/* The fast paths' part of one run (hk_conv_s4_mve.c, _dsp.c): acc plus the products of
 * x[c] + in_offset and the packed weights w (a run that starts on a byte) over the first *done
 * of `len` inputs, which they take in whole blocks (the caller adds the rest); worth the call
 * from HK_CONV_S4_BLOCKS_FROM inputs on. */
#define HK_CONV_S4_BLOCKS_FROM 8
int32_t hk_conv_dot_s4_blocks(const int8_t *x, const uint8_t *w, int32_t len, int32_t in_offset,
                              int32_t acc, int32_t *done);

#endif /* HK_CONV_S4_H */
