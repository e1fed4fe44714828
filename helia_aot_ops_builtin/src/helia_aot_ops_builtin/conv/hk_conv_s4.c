/*
 * helia-aot kernel library: CONV_2D int8 with packed int4 weights read per use (see
 * hk_conv_s4.h).
 */
#include "hk_conv_s4.h"

#include "hk_requant.h"
#include "hk_window.h"

static bool conv_s4_params_ok(const hk_conv_params_t *p)
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

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8) on the unpacked filter, as
 * hk_conv_s8_generic does on an int8 one: each weight is read from its nibble where it is
 * multiplied. */
int32_t hk_conv_s8_s4(const hk_conv_params_t *params, const int8_t *input,
                      const uint8_t *filter, const int32_t *bias, int8_t *output)
{
    if (!conv_s4_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
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
                            const int32_t w =
                                (int32_t)(taps + ((size_t)fy * filter_w + (size_t)fx) * (size_t)fic);
                            for (int32_t ic = 0; ic < fic; ++ic) {
                                acc += hk_s4_at(filter, w + ic) * ((int32_t)x[ic] + in_offset);
                            }
                        }
                    }
                    if (bias != NULL) {
                        acc += bias[oc];
                    }
                    const int32_t value =
                        hk_requant(acc, p->output_multiplier[oc], p->output_shift[oc]);
                    *out++ = (int8_t)hk_clamp_i32(value + p->output_offset, act_min, act_max);
                }
            }
        }
    }
    return HK_STATUS_OK;
}
