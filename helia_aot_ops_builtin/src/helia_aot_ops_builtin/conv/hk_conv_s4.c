/*
 * helia-aot kernel library: CONV_2D int8 with packed int4 weights read per use (see
 * hk_conv_s4.h).
 */
#include "hk_conv_s4.h"

#include "hk_conv_loop.h"
#include "hk_isa.h"

/* One run of a packed int4 filter. A run that starts on a byte (after one nibble if it does
 * not) goes to the fast paths' blocks first (Helium, DSP), which split the nibbles in
 * registers; the rest is read one nibble at a time. */
HK_INLINE int32_t dot_s4(const void *filter, size_t taps, size_t tap, const int8_t *x,
                         int32_t len, int32_t in_offset, int32_t acc)
{
    const uint8_t *packed = (const uint8_t *)filter;
    const int32_t first = (int32_t)(taps + tap);
    int32_t c = 0;
#if HK_HAVE_MVE || HK_HAVE_DSP
    if ((first & 1) != 0 && len > 0) {
        acc += hk_s4_at(packed, first) * ((int32_t)x[0] + in_offset);
        c = 1;
    }
    int32_t done = 0;
    acc = hk_conv_dot_s4_blocks(x + c, packed + ((first + c) >> 1), len - c, in_offset, acc,
                                &done);
    c += done;
#endif
    for (; c < len; ++c) {
        acc += hk_s4_at(packed, first + c) * ((int32_t)x[c] + in_offset);
    }
    return acc;
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8) on the unpacked filter, as
 * hk_conv_s8_generic does on an int8 one (the same loop, hk_conv_loop.h): each weight is read
 * from its nibble where it is multiplied. */
int32_t hk_conv_s8_s4(const hk_conv_params_t *params, const int8_t *input,
                      const uint8_t *filter, const int32_t *bias, int8_t *output)
{
    return hk_conv_s8_loop(params, input, filter, bias, output, dot_s4);
}
