/*
 * helia-aot kernel library: DEPTHWISE_CONV_2D int8 with packed int4 weights read where they are
 * multiplied (goal size: no int8 copy of the filter, see hk_int4.h). The filter is LiteRT's
 * [1, H, W, C] int4 tensor as stored. A family of its own, like hk_conv_s4.h.
 */
#ifndef HK_DEPTHWISE_S4_H
#define HK_DEPTHWISE_S4_H

#include "hk_depthwise.h"
#include "hk_depthwise_loop.h"
#include "hk_int4.h"
#include "hk_isa.h"

/* int8 activations, packed int4 filter, bias NULL: the general loop (ignores offset_bias);
 * the outputs of hk_depthwise_s8 on the unpacked filter and its int32 bias. output_shift holds
 * channel words (hk_int4.h), each channel's shift and bias in one int32; a non-NULL `bias` is
 * HK_STATUS_BAD_PARAM (it would be a second one). */
int32_t hk_depthwise_s8_s4(const hk_depthwise_params_t *params, const int8_t *input,
                           const uint8_t *filter, const int32_t *bias, int8_t *output);

/* The fast paths' block (hk_depthwise_s4_mve.c, _dsp.c): the window's sums of output channels
 * oc..oc+HK_DEPTHWISE_S4_BLOCK-1 into acc, for a depth multiplier of 1, an even channel count
 * and oc a multiple of 2 (the block's weights start on a byte at every tap). */
#if HK_HAVE_MVE
#define HK_DEPTHWISE_S4_BLOCK 8
#else
#define HK_DEPTHWISE_S4_BLOCK 4
#endif
void hk_depthwise_s4_block(const uint8_t *filter, const hk_depthwise_window_t *win, size_t oc,
                           int32_t *acc);

#if HK_HAVE_MVE
/* Helium's block for the last `count` channels when fewer than a block remain (count 2, 4 or 6:
 * the channel count is even), so a layer of 2 to 6 channels, or a block's remainder, is not
 * read one nibble at a time. */
void hk_depthwise_s4_tail(const uint8_t *filter, const hk_depthwise_window_t *win, size_t oc,
                          int32_t count, int32_t *acc);
#define HK_DEPTHWISE_S4_FROM 2
#else
#define HK_DEPTHWISE_S4_FROM HK_DEPTHWISE_S4_BLOCK
#endif

#endif /* HK_DEPTHWISE_S4_H */
