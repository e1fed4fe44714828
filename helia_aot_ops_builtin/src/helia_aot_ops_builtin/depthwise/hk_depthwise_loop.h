/*
 * helia-aot kernel library: DEPTHWISE_CONV_2D int8, the general loop, shared by the entries
 * that differ only in how they store the filter (hk_depthwise_generic.c: int8;
 * hk_depthwise_s4.c: packed int4).
 *
 * The loop follows LiteRT reference_integer_ops::DepthwiseConvPerChannel: output channel
 * ic * depth_multiplier + m sums input channel ic over the in-image taps, int32 sums,
 * per-channel requantization, clamp. The sums of one output pixel are left to the caller's
 * `sums` function, which reads the filter as it is stored and may fill several channels at once
 * (a fast path's block); the loop and `sums` are inlined into each entry, so each compiles to
 * its own loop, as if written out by hand. How a channel's bias, multiplier and shift are stored
 * is left to a `requant` function the same way (hk_depthwise_requant_s8: int32 arrays; the int4
 * entry's channel words, hk_int4.h).
 */
#ifndef HK_DEPTHWISE_LOOP_H
#define HK_DEPTHWISE_LOOP_H

#include "hk_depthwise.h"
#include "hk_requant.h"
#include "hk_window.h"

/* Most channels a `sums` function fills in one call. */
#define HK_DEPTHWISE_LOOP_MOST 8

/* One output pixel's window: its in-image taps [fy0, fy1) x [fx0, fx1), the first at input
 * row iy0 + fy0 * dilation_height and column ix0 + fx0 * dilation_width of `image`. */
typedef struct {
    const int8_t *image;
    size_t in_w;
    size_t in_c;
    size_t out_c;
    size_t filter_w;
    int32_t iy0, ix0, fy0, fy1, fx0, fx1;
    int32_t dilation_height, dilation_width;
    int32_t depth_multiplier;
    int32_t in_offset;
} hk_depthwise_window_t;

/* Fills acc[0..n) with the window's sums of output channels oc..oc+n-1 (n at most
 * HK_DEPTHWISE_LOOP_MOST, channels that exist) and returns n, at least 1. */
typedef int32_t (*hk_depthwise_sums_t)(const void *filter, const hk_depthwise_window_t *win,
                                       size_t oc, int32_t *acc);

/* Filter element `index`, as stored. */
typedef int32_t (*hk_depthwise_read_t)(const void *filter, size_t index);

/* The window's sum of output channel oc, one tap at a time, each weight read by `read`. */
HK_INLINE int32_t hk_depthwise_channel_sum(const void *filter, const hk_depthwise_window_t *win,
                                           size_t oc, hk_depthwise_read_t read)
{
    const size_t ic = oc / (size_t)win->depth_multiplier;
    int32_t acc = 0;
    for (int32_t fy = win->fy0; fy < win->fy1; ++fy) {
        const int32_t iy = win->iy0 + fy * win->dilation_height;
        for (int32_t fx = win->fx0; fx < win->fx1; ++fx) {
            const int32_t ix = win->ix0 + fx * win->dilation_width;
            const int32_t x = win->image[((size_t)iy * win->in_w + (size_t)ix) * win->in_c + ic];
            const int32_t w = read(filter, ((size_t)fy * win->filter_w + (size_t)fx) * win->out_c + oc);
            acc += w * (x + win->in_offset);
        }
    }
    return acc;
}

/* Output channel oc's sum `acc` (the taps only) plus its bias, requantized: what the output
 * offset and clamp are applied to. */
typedef int32_t (*hk_depthwise_requant_t)(const hk_depthwise_params_t *p, const int32_t *bias,
                                          size_t oc, int32_t acc);

/* The int32 bias (may be NULL), output_multiplier and output_shift arrays of hk_depthwise_s8. */
HK_INLINE int32_t hk_depthwise_requant_s8(const hk_depthwise_params_t *p, const int32_t *bias,
                                          size_t oc, int32_t acc)
{
    const int32_t sum = bias != NULL ? acc + bias[oc] : acc;
    return hk_requant(sum, p->output_multiplier[oc], p->output_shift[oc]);
}

/* The geometry the general loop needs: sizes at least 1 (output sizes and batches at least
 * 0), a clamp range that is not empty. */
HK_INLINE bool hk_depthwise_loop_params_ok(const hk_depthwise_params_t *p)
{
    return p != NULL && p->batches >= 0 && p->input_height >= 1 && p->input_width >= 1 &&
           p->input_channels >= 1 && p->depth_multiplier >= 1 && p->filter_height >= 1 &&
           p->filter_width >= 1 && p->output_height >= 0 && p->output_width >= 0 &&
           p->stride_height >= 1 && p->stride_width >= 1 && p->dilation_height >= 1 &&
           p->dilation_width >= 1 && p->output_multiplier != NULL && p->output_shift != NULL &&
           p->act_min <= p->act_max;
}

/* int8 activations, the filter [1, H, W, output channels] as `sums` reads it, the bias (may be
 * NULL) and per-channel requantization as `requant` reads them; ignores offset_bias. */
HK_INLINE int32_t hk_depthwise_s8_loop_requant(const hk_depthwise_params_t *params,
                                               const int8_t *input, const void *filter,
                                               const int32_t *bias, int8_t *output,
                                               hk_depthwise_sums_t sums,
                                               hk_depthwise_requant_t requant)
{
    if (!hk_depthwise_loop_params_ok(params) || input == NULL || filter == NULL ||
        output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_depthwise_params_t *p = params;
    const int32_t act_min = hk_max_i32(p->act_min, -128);
    const int32_t act_max = hk_min_i32(p->act_max, 127);
    /* Read once: the int8 stores may alias the params, which would reload them per tap. */
    hk_depthwise_window_t win = {
        .in_w = (size_t)p->input_width,
        .in_c = (size_t)p->input_channels,
        .out_c = (size_t)p->input_channels * (size_t)p->depth_multiplier,
        .filter_w = (size_t)p->filter_width,
        .dilation_height = p->dilation_height,
        .dilation_width = p->dilation_width,
        .depth_multiplier = p->depth_multiplier,
        .in_offset = p->input_offset,
    };
    int8_t *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        win.image = input + (size_t)b * (size_t)p->input_height * win.in_w * win.in_c;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            win.iy0 = oy * p->stride_height - p->pad_top;
            hk_window_taps(win.iy0, p->dilation_height, p->filter_height, p->input_height,
                           &win.fy0, &win.fy1);
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                win.ix0 = ox * p->stride_width - p->pad_left;
                hk_window_taps(win.ix0, p->dilation_width, p->filter_width, p->input_width,
                               &win.fx0, &win.fx1);
                for (size_t oc = 0; oc < win.out_c;) {
                    int32_t acc[HK_DEPTHWISE_LOOP_MOST];
                    const int32_t n = sums(filter, &win, oc, acc);
                    for (int32_t k = 0; k < n; ++k, ++oc) {
                        const int32_t value = requant(p, bias, oc, acc[k]);
                        *out++ = (int8_t)hk_clamp_i32(value + p->output_offset, act_min, act_max);
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* hk_depthwise_s8_loop_requant with hk_depthwise_s8's int32 bias and requantization arrays. */
HK_INLINE int32_t hk_depthwise_s8_loop(const hk_depthwise_params_t *params, const int8_t *input,
                                       const void *filter, const int32_t *bias, int8_t *output,
                                       hk_depthwise_sums_t sums)
{
    return hk_depthwise_s8_loop_requant(params, input, filter, bias, output, sums,
                                        hk_depthwise_requant_s8);
}

#endif /* HK_DEPTHWISE_LOOP_H */
