/*
 * helia-aot kernel library: the plain-C fast path of int8 CONV_2D, for cores with neither Helium
 * nor the DSP extension (see hk_conv_paths.h): four filters per pass over the receptive field.
 */
#include "hk_conv_paths.h"

#if !HK_HAVE_MVE && !HK_HAVE_DSP

/* The gather of this path, kept out of the pixel loop (HK_NOINLINE's reason). */
HK_NOINLINE void conv_gather_s8(const hk_conv_params_t *p, const int8_t *image, int32_t iy0,
                                int32_t ix0, int8_t fill, int8_t *patch)
{
    conv_gather_rows_s8(p, image, iy0, ix0, fill, patch);
}

/* acc[c] = bias[c] + dot(x[0..taps), filter c) for every filter. */
HK_NOINLINE void conv_dots_s8(const int8_t *x, int32_t taps, const int8_t *filter,
                              int32_t channels, const int32_t *bias, int32_t *acc)
{
    int32_t oc = 0;
    for (; oc + 4 <= channels; oc += 4) {
        const int8_t *w0 = filter + (size_t)oc * (size_t)taps;
        const int8_t *w1 = w0 + taps;
        const int8_t *w2 = w1 + taps;
        const int8_t *w3 = w2 + taps;
        int32_t a0 = bias[oc], a1 = bias[oc + 1], a2 = bias[oc + 2], a3 = bias[oc + 3];
        for (int32_t k = 0; k < taps; ++k) {
            const int32_t v = x[k];
            a0 += v * w0[k];
            a1 += v * w1[k];
            a2 += v * w2[k];
            a3 += v * w3[k];
        }
        acc[oc] = a0;
        acc[oc + 1] = a1;
        acc[oc + 2] = a2;
        acc[oc + 3] = a3;
    }
    for (; oc < channels; ++oc) {
        const int8_t *w = filter + (size_t)oc * (size_t)taps;
        int32_t a = bias[oc];
        for (int32_t k = 0; k < taps; ++k) {
            a += x[k] * w[k];
        }
        acc[oc] = a;
    }
}

void hk_conv_s8_fast(const hk_conv_params_t *p, const int8_t *input, const int8_t *filter,
                     int8_t *output)
{
    const int32_t taps = p->filter_height * p->filter_width * p->input_channels;
    const int32_t channels = p->output_channels;
    /* A 1x1 filter whose every window lies in the image reads its pixel in place. */
    const bool direct = p->filter_height == 1 && p->filter_width == 1 && p->pad_top == 0 &&
                        p->pad_left == 0 &&
                        (p->output_height - 1) * p->stride_height < p->input_height &&
                        (p->output_width - 1) * p->stride_width < p->input_width;
    conv_scratch_t s;
    conv_scratch_layout(taps, channels, (uint8_t *)p->scratch, &s);
    const int32_t lo = hk_max_i32(p->act_min, -128), hi = hk_min_i32(p->act_max, 127);
    const int32_t mode = hk_requant_mode(p->output_multiplier, p->output_shift, channels);
    const int32_t pixels = p->batches * p->output_height * p->output_width;
    conv_pixel_t at = {0, 0, 0};
    int8_t *out = output;
    for (int32_t i = 0; i < pixels; ++i, out += channels) {
        const int8_t *x = conv_source(p, input, direct, &at, s.patch0, conv_gather_s8);
        conv_dots_s8(x, taps, filter, channels, p->offset_bias, s.acc0);
        const int32_t *acc = s.acc0;
        hk_requant_row_s8(acc, p->output_multiplier, p->output_shift, channels,
                          p->output_offset, lo, hi, mode, out);
    }
}

#endif /* !HK_HAVE_MVE && !HK_HAVE_DSP */
