/*
 * helia-aot kernel library: CONV_2D int8, the general loop alone (see hk_conv_generic.h).
 */
#include "hk_conv_generic.h"

#include "hk_conv_loop.h"

/* One run of an int8 filter. */
HK_INLINE int32_t dot_s8(const void *filter, size_t taps, size_t tap, const int8_t *x,
                         int32_t len, int32_t in_offset, int32_t acc)
{
    const int8_t *w = ((const int8_t *)filter + taps) + tap;
    for (int32_t ic = 0; ic < len; ++ic) {
        acc += (int32_t)w[ic] * ((int32_t)x[ic] + in_offset);
    }
    return acc;
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8), see hk_conv_loop.h. */
int32_t hk_conv_s8_generic(const hk_conv_params_t *params, const int8_t *input,
                           const int8_t *filter, const int32_t *bias, int8_t *output)
{
    return hk_conv_s8_loop(params, input, filter, bias, output, dot_s8);
}
