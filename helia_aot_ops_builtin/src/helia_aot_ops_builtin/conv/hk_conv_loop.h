/*
 * helia-aot kernel library: CONV_2D int8, the general loop, shared by the entries that differ
 * only in how they store the filter (hk_conv_generic.c: int8; hk_conv_s4.c: packed int4).
 *
 * The loop follows LiteRT reference_integer_ops::ConvPerChannel: for each output, the in-image
 * taps, each a run of the group's input channels, int32 sums, per-channel requantization,
 * clamp. Each run's sum is left to the caller's `dot` function, which reads the filter as it is
 * stored; the loop and `dot` are inlined into each entry, so each compiles to its own loop with
 * the read in its innermost place, as if written out by hand. How a channel's bias, multiplier
 * and shift are stored is left to a `requant` function the same way (hk_conv_requant_s8: int32
 * arrays; the int4 entry's channel words, hk_int4.h).
 */
#ifndef HK_CONV_LOOP_H
#define HK_CONV_LOOP_H

#include "hk_conv.h"
#include "hk_requant.h"
#include "hk_window.h"

/* acc plus the sum over c < len of filter element taps + tap + c times (x[c] + in_offset):
 * `taps` is where the output channel's filter starts, `tap` where the run starts in it. */
typedef int32_t (*hk_conv_run_dot_t)(const void *filter, size_t taps, size_t tap,
                                     const int8_t *x, int32_t len, int32_t in_offset,
                                     int32_t acc);

/* Output channel oc's sum `acc` (the taps only) plus its bias, requantized: what the output
 * offset and clamp are applied to. */
typedef int32_t (*hk_conv_requant_t)(const hk_conv_params_t *p, const int32_t *bias, int32_t oc,
                                     int32_t acc);

/* The int32 bias (may be NULL), output_multiplier and output_shift arrays of hk_conv_s8. */
HK_INLINE int32_t hk_conv_requant_s8(const hk_conv_params_t *p, const int32_t *bias, int32_t oc,
                                     int32_t acc)
{
    if (bias != NULL) {
        acc += bias[oc];
    }
    return hk_requant(acc, p->output_multiplier[oc], p->output_shift[oc]);
}

/* The geometry the general loop needs: sizes at least 1 (output sizes and batches at least
 * 0), groups that divide both channel counts, a clamp range that is not empty. */
HK_INLINE bool hk_conv_loop_params_ok(const hk_conv_params_t *p)
{
    if (p == NULL || p->batches < 0 || p->input_height < 1 || p->input_width < 1 ||
        p->input_channels < 1 || p->filter_height < 1 || p->filter_width < 1 ||
        p->filter_input_channels < 1 || p->output_height < 0 || p->output_width < 0 ||
        p->output_channels < 1 || p->stride_height < 1 || p->stride_width < 1 ||
        p->dilation_height < 1 || p->dilation_width < 1 || p->output_multiplier == NULL ||
        p->output_shift == NULL || p->act_min > p->act_max) {
        return false;
    }
    if (p->input_channels % p->filter_input_channels != 0) {
        return false;
    }
    return p->output_channels % (p->input_channels / p->filter_input_channels) == 0;
}

/* int8 activations, the filter OHWI as `dot` reads it, the bias (may be NULL) and per-channel
 * requantization as `requant` reads them; ignores offset_bias and scratch. */
HK_INLINE int32_t hk_conv_s8_loop_requant(const hk_conv_params_t *params, const int8_t *input,
                                          const void *filter, const int32_t *bias,
                                          int8_t *output, hk_conv_run_dot_t dot,
                                          hk_conv_requant_t requant)
{
    if (!hk_conv_loop_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_conv_params_t *p = params;
    const int32_t fic = p->filter_input_channels;
    const int32_t per_group = p->output_channels / (p->input_channels / fic);
    const size_t taps_per_channel =
        (size_t)p->filter_height * (size_t)p->filter_width * (size_t)fic;
    const int32_t act_min = hk_max_i32(p->act_min, -128);
    const int32_t act_max = hk_min_i32(p->act_max, 127);
    /* Read once: the int8 stores may alias the params, which would reload them per tap. */
    const int32_t in_offset = p->input_offset;
    const size_t in_w = (size_t)p->input_width;
    const size_t in_c = (size_t)p->input_channels;
    const size_t filter_w = (size_t)p->filter_width;
    int8_t *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + (size_t)b * (size_t)p->input_height * in_w * in_c;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t iy0 = oy * p->stride_height - p->pad_top;
            int32_t fy0, fy1;
            hk_window_taps(iy0, p->dilation_height, p->filter_height, p->input_height, &fy0,
                           &fy1);
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                const int32_t ix0 = ox * p->stride_width - p->pad_left;
                int32_t fx0, fx1;
                hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width, &fx0,
                               &fx1);
                for (int32_t oc = 0; oc < p->output_channels; ++oc) {
                    const size_t taps = (size_t)oc * taps_per_channel;
                    const int8_t *channels = image + (size_t)((oc / per_group) * fic);
                    int32_t acc = 0;
                    for (int32_t fy = fy0; fy < fy1; ++fy) {
                        const int32_t iy = iy0 + fy * p->dilation_height;
                        for (int32_t fx = fx0; fx < fx1; ++fx) {
                            const int32_t ix = ix0 + fx * p->dilation_width;
                            const int8_t *x = channels + ((size_t)iy * in_w + (size_t)ix) * in_c;
                            const size_t tap = ((size_t)fy * filter_w + (size_t)fx) * (size_t)fic;
                            acc = dot(filter, taps, tap, x, fic, in_offset, acc);
                        }
                    }
                    const int32_t value = requant(p, bias, oc, acc);
                    *out++ = (int8_t)hk_clamp_i32(value + p->output_offset, act_min, act_max);
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* hk_conv_s8_loop_requant with hk_conv_s8's int32 bias and requantization arrays. */
HK_INLINE int32_t hk_conv_s8_loop(const hk_conv_params_t *params, const int8_t *input,
                                  const void *filter, const int32_t *bias, int8_t *output,
                                  hk_conv_run_dot_t dot)
{
    return hk_conv_s8_loop_requant(params, input, filter, bias, output, dot, hk_conv_requant_s8);
}

#endif /* HK_CONV_LOOP_H */
