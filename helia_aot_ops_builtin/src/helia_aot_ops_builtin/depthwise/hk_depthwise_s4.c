/*
 * helia-aot kernel library: DEPTHWISE_CONV_2D int8 with packed int4 weights read per use (see
 * hk_depthwise_s4.h).
 */
#include "hk_depthwise_s4.h"

#include "hk_isa.h"

HK_INLINE int32_t read_s4(const void *filter, size_t index)
{
    return hk_s4_at((const uint8_t *)filter, (int32_t)index);
}

/* A whole block of channels from the fast paths (Helium, DSP: the nibbles split in registers)
 * where its weights start on a byte at every tap, that is with a depth multiplier of 1 and an
 * even channel count; otherwise one channel, one nibble at a time. */
HK_INLINE int32_t sums_s4(const void *filter, const hk_depthwise_window_t *win, size_t oc,
                          int32_t *acc)
{
#if HK_HAVE_MVE || HK_HAVE_DSP
    if (win->depth_multiplier == 1 && (win->out_c & 1u) == 0 &&
        oc + HK_DEPTHWISE_S4_BLOCK <= win->out_c) {
        hk_depthwise_s4_block((const uint8_t *)filter, win, oc, acc);
        return HK_DEPTHWISE_S4_BLOCK;
    }
#endif
    acc[0] = hk_depthwise_channel_sum(filter, win, oc, read_s4);
    return 1;
}

/* Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int8) on the unpacked filter,
 * as hk_depthwise_s8_generic does on an int8 one (the same loop, hk_depthwise_loop.h). */
int32_t hk_depthwise_s8_s4(const hk_depthwise_params_t *params, const int8_t *input,
                           const uint8_t *filter, const int32_t *bias, int8_t *output)
{
    return hk_depthwise_s8_loop(params, input, filter, bias, output, sums_s4);
}
