/*
 * helia-aot kernel library: the plain-C fast path of int8 DEPTHWISE_CONV_2D with depth
 * multiplier 1, for cores with neither Helium nor the DSP extension (see hk_depthwise_paths.h):
 * four channels at a time through dw_s8_walk, each pixel's channels requantized as a row.
 */
#include "hk_depthwise_paths.h"

#if !HK_HAVE_MVE && !HK_HAVE_DSP

/* acc[0..4) = start[c..c+4) (0 without start) plus (input + offset) * filter over the taps for
 * the four channels from c. */
HK_INLINE void dw_taps4_c(const dw_call_t *k, const dw_taps_t *t, int32_t c, const int32_t *start,
                        int32_t offset, int32_t *acc)
{
    const int32_t channels = k->p->input_channels;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    if (start != NULL) {
        a0 = start[c];
        a1 = start[c + 1];
        a2 = start[c + 2];
        a3 = start[c + 3];
    }
    const int8_t *xr = t->x + c, *wr = t->w + c;
    for (int32_t r = t->rows; r > 0; --r, xr += k->x_row, wr += k->w_row) {
        const int8_t *x = xr, *w = wr;
        for (int32_t n = t->cols; n > 0; --n) {
            a0 += (x[0] + offset) * w[0];
            a1 += (x[1] + offset) * w[1];
            a2 += (x[2] + offset) * w[2];
            a3 += (x[3] + offset) * w[3];
            x += k->x_col;
            w += channels;
        }
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

HK_NOINLINE void dw_pixel_s8(const dw_call_t *k, const dw_taps_t *t, int8_t *out)
{
    dw_pixel_rows_s8(k, t, out, dw_taps4_c);
}

void hk_depthwise_s8_fast(const hk_depthwise_params_t *params, const int8_t *input,
                          const int8_t *filter, const int32_t *bias, int8_t *output)
{
    dw_s8_walk(params, input, filter, bias, output, dw_pixel_s8, NULL, NULL, NULL);
}

#endif /* !HK_HAVE_MVE && !HK_HAVE_DSP */
