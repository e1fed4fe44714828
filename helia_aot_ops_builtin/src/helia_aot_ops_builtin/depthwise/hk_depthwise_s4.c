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

/* One channel, one nibble at a time. */
HK_INLINE int32_t sums_s4(const void *filter, const hk_depthwise_window_t *win, size_t oc,
                          int32_t *acc)
{
    acc[0] = hk_depthwise_channel_sum(filter, win, oc, read_s4);
    return 1;
}

#if HK_HAVE_MVE || HK_HAVE_DSP
/* A whole block of channels from the fast paths (Helium, DSP: the nibbles split in
 * registers); the last channels that make no block under Helium's predicates, on the DSP
 * extension one at a time. */
HK_INLINE int32_t sums_s4_blocks(const void *filter, const hk_depthwise_window_t *win, size_t oc,
                                 int32_t *acc)
{
    if (oc + HK_DEPTHWISE_S4_BLOCK <= win->out_c) {
        hk_depthwise_s4_block((const uint8_t *)filter, win, oc, acc);
        return HK_DEPTHWISE_S4_BLOCK;
    }
#if HK_HAVE_MVE
    const int32_t rest = (int32_t)(win->out_c - oc); /* even: the channel count is */
    hk_depthwise_s4_tail((const uint8_t *)filter, win, oc, rest, acc);
    return rest;
#else
    return sums_s4(filter, win, oc, acc);
#endif
}
#endif

/* The bias and shift from channel words (hk_int4.h), the multiplier from its int32. */
HK_INLINE int32_t requant_words(const hk_depthwise_params_t *p, const int32_t *bias, size_t oc,
                                int32_t acc)
{
    (void)bias; /* NULL: in the words (the entry checks) */
    const int32_t word = p->output_shift[oc];
    return hk_requant(acc + hk_channel_word_bias(word), p->output_multiplier[oc],
                      hk_channel_word_shift(word));
}

/* Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int8) on the unpacked filter,
 * as hk_depthwise_s8_generic does on an int8 one (the same loop, hk_depthwise_loop.h), each
 * channel's bias and shift from its word. */
int32_t hk_depthwise_s8_s4(const hk_depthwise_params_t *params, const int8_t *input,
                           const uint8_t *filter, const int32_t *bias, int8_t *output)
{
    if (bias != NULL) {
        return HK_STATUS_BAD_PARAM;
    }
#if HK_HAVE_MVE || HK_HAVE_DSP
    /* Blocks where their weights start on a byte at every tap: a depth multiplier of 1 and an
     * even channel count, at least one block's worth on the DSP extension, two channels on
     * Helium (its tail block), chosen once, not per channel. */
    if (params != NULL && params->depth_multiplier == 1 && (params->input_channels & 1) == 0 &&
        params->input_channels >= HK_DEPTHWISE_S4_FROM) {
        return hk_depthwise_s8_loop_requant(params, input, filter, bias, output, sums_s4_blocks,
                                            requant_words);
    }
#endif
    return hk_depthwise_s8_loop_requant(params, input, filter, bias, output, sums_s4,
                                        requant_words);
}
