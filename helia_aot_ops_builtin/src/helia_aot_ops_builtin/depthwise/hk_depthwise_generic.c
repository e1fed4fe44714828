/*
 * helia-aot kernel library: DEPTHWISE_CONV_2D int8, the general loop alone (see
 * hk_depthwise_generic.h).
 */
#include "hk_depthwise_generic.h"

#include "hk_depthwise_loop.h"

HK_INLINE int32_t read_s8(const void *filter, size_t index)
{
    return ((const int8_t *)filter)[index];
}

/* One channel at a time, each weight an int8. */
HK_INLINE int32_t sums_s8(const void *filter, const hk_depthwise_window_t *win, size_t oc,
                          int32_t *acc)
{
    acc[0] = hk_depthwise_channel_sum(filter, win, oc, read_s8);
    return 1;
}

/* Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int8), see
 * hk_depthwise_loop.h. */
int32_t hk_depthwise_s8_generic(const hk_depthwise_params_t *params, const int8_t *input,
                                const int8_t *filter, const int32_t *bias, int8_t *output)
{
    return hk_depthwise_s8_loop(params, input, filter, bias, output, sums_s8);
}
