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

/* int8 activations, packed int4 filter, int32 bias (may be NULL): the general loop (ignores
 * offset_bias and scratch); the outputs of hk_conv_s8 on the unpacked filter. */
int32_t hk_conv_s8_s4(const hk_conv_params_t *params, const int8_t *input,
                      const uint8_t *filter, const int32_t *bias, int8_t *output);

#endif /* HK_CONV_S4_H */
