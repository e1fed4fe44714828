/*
 * helia-aot kernel library: FULLY_CONNECTED with packed int4 weights read where they are
 * multiplied (goal size: no int8 copy of the weights anywhere, see hk_int4.h).
 *
 * The weights are LiteRT's row-major [output_features, input_features] int4 tensor as stored,
 * two per byte. A family of its own, so that modules without int4 layers compile the int8 paths
 * exactly as before.
 */
#ifndef HK_FULLY_CONNECTED_S4_H
#define HK_FULLY_CONNECTED_S4_H

#include "hk_fully_connected.h"
#include "hk_int4.h"

/* int8 activations, packed int4 weights (packed_filter must be 0), int32 bias (may be NULL; not
 * read when folded_bias is set); the outputs of hk_fully_connected_s8 on the unpacked weights. */
int32_t hk_fully_connected_s8_s4(const hk_fully_connected_params_t *params, const int8_t *input,
                                 const uint8_t *filter, const int32_t *bias, int8_t *output);

/* The fast paths' part of the dot product (hk_fully_connected_s4_mve.c, _dsp.c): acc plus the
 * products of x and a row of packed weights that starts on a byte, over the first *done inputs
 * they take in whole blocks (the reference adds the rest). */
uint32_t hk_fc_dot_s4_blocks(const int8_t *x, const uint8_t *w, int32_t depth, uint32_t acc,
                             int32_t *done);

#endif /* HK_FULLY_CONNECTED_S4_H */
