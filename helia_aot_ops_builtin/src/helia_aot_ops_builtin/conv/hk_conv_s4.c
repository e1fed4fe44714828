/*
 * helia-aot kernel library: CONV_2D int8 with packed int4 weights read per use (see
 * hk_conv_s4.h).
 */
#include "hk_conv_s4.h"

#include "hk_conv_loop.h"
#include "hk_isa.h"

/* One run of a packed int4 filter, one nibble at a time. */
HK_INLINE int32_t dot_s4(const void *filter, size_t taps, size_t tap, const int8_t *x,
                         int32_t len, int32_t in_offset, int32_t acc)
{
    const uint8_t *packed = (const uint8_t *)filter;
    const int32_t first = (int32_t)(taps + tap);
    for (int32_t c = 0; c < len; ++c) {
        acc += hk_s4_at(packed, first + c) * ((int32_t)x[c] + in_offset);
    }
    return acc;
}

#if HK_HAVE_MVE || HK_HAVE_DSP
/* One run through the fast paths' blocks (Helium, DSP), which split the nibbles in registers,
 * from its first whole byte on (after one nibble if it starts on a high one); the rest one
 * nibble at a time. */
HK_INLINE int32_t dot_s4_blocks(const void *filter, size_t taps, size_t tap, const int8_t *x,
                                int32_t len, int32_t in_offset, int32_t acc)
{
    const uint8_t *packed = (const uint8_t *)filter;
    const int32_t first = (int32_t)(taps + tap);
    int32_t c = 0;
    if ((first & 1) != 0) {
        acc += hk_s4_at(packed, first) * ((int32_t)x[0] + in_offset);
        c = 1;
    }
    int32_t done = 0;
    acc = hk_conv_dot_s4_blocks(x + c, packed + ((first + c) >> 1), len - c, in_offset, acc,
                                &done);
    return dot_s4(filter, taps, tap + (size_t)(c + done), x + c + done, len - c - done,
                  in_offset, acc);
}
#endif

/* The bias and shift from channel words (hk_int4.h), the multiplier from its int32. */
HK_INLINE int32_t requant_words(const hk_conv_params_t *p, const int32_t *bias, int32_t oc,
                                int32_t acc)
{
    (void)bias; /* NULL: in the words (the entry checks) */
    const int32_t word = p->output_shift[oc];
    return hk_requant(acc + hk_channel_word_bias(word), p->output_multiplier[oc],
                      hk_channel_word_shift(word));
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8) on the unpacked filter, as
 * hk_conv_s8_generic does on an int8 one (the same loop, hk_conv_loop.h): each weight is read
 * from its nibble where it is multiplied, each channel's bias and shift from its word. */
int32_t hk_conv_s8_s4(const hk_conv_params_t *params, const int8_t *input,
                      const uint8_t *filter, const int32_t *bias, int8_t *output)
{
    if (bias != NULL) {
        return HK_STATUS_BAD_PARAM;
    }
#if HK_HAVE_MVE || HK_HAVE_DSP
    /* Runs are a group's input channels: a first layer's few take the nibble loop whole (the
     * blocks' call would cost more than it saves), chosen once, not per run. */
    if (params != NULL && params->filter_input_channels >= HK_CONV_S4_BLOCKS_FROM) {
        return hk_conv_s8_loop_requant(params, input, filter, bias, output, dot_s4_blocks,
                                       requant_words);
    }
#endif
    return hk_conv_s8_loop_requant(params, input, filter, bias, output, dot_s4, requant_words);
}
