/*
 * helia-aot kernel library: int8 CONV_2D from the model's own bias on Helium (see
 * hk_conv_unfolded.h).
 */
#include "hk_conv_unfolded.h"

#include "hk_conv_dots4.h"
#include "hk_requant.h"
#include "hk_window.h"

#if HK_HAVE_MVE

/* hk_conv_dots4_mve without sums (a window inside the image: inlined into the pixel loop) and with
 * them (one cut by the edge: out of line, so its eight accumulators do not crowd that loop). */
HK_INLINE int32x4_t unfolded_whole4(const int8_t *x, size_t x_step, int32_t runs, int32_t len,
                                      const int8_t *const *w, size_t w_step)
{
    return hk_conv_dots4_mve(x, x_step, runs, len, w[0], w[1], w[2], w[3], (int32_t)w_step,
                             NULL);
}

HK_NOINLINE int32x4_t unfolded_clipped4(const int8_t *x, size_t x_step, int32_t runs,
                                        int32_t len, const int8_t *const *w, size_t skip,
                                        size_t w_step, int32x4_t *sums)
{
    return hk_conv_dots4_mve(x, x_step, runs, len, w[0] + skip, w[1] + skip, w[2] + skip,
                             w[3] + skip, (int32_t)w_step, sums);
}

/* What one group of four filters needs over every pixel, read once per group. */
typedef struct {
    const int8_t *w[4];
    int32x4_t bias;  /* the model's bias (0 without one) */
    int32x4_t whole; /* bias + input_offset * each filter's sum: a window inside the image */
    int32x4_t mult, shift;
    mve_pred16_t real; /* the group's real filters (the others repeat the first) */
} unfolded_group_t;

/*
 * Every output pixel against four filters, in output order: a window inside the image is its
 * dot products plus `whole` (the offset over all taps, once per group: no per-pixel sums); a
 * window cut by the image edge adds the offset over its own taps, as the reference skips the
 * others. Requantized, clamped and stored four bytes per pixel.
 */
HK_NOINLINE void unfolded_group(const hk_conv_params_t *p, const int8_t *input,
                                const unfolded_group_t *g, bool general, int8_t *out)
{
    const int32_t cin = p->input_channels;
    const size_t row = (size_t)p->filter_width * (size_t)cin;
    const size_t x_step = (size_t)p->dilation_height * (size_t)p->input_width * (size_t)cin;
    const size_t channels = (size_t)p->output_channels;
    const int32x4_t lo = vdupq_n_s32(hk_max_i32(p->act_min, -128));
    const int32x4_t hi = vdupq_n_s32(hk_min_i32(p->act_max, 127));
    if (p->filter_height == 1 && p->filter_width == 1 && p->pad_top == 0 && p->pad_left == 0 &&
        (p->output_height - 1) * p->stride_height < p->input_height &&
        (p->output_width - 1) * p->stride_width < p->input_width) {
        /* A pointwise filter whose every window lies in the image: one run of cin bytes per
         * pixel, stepped without the window arithmetic. */
        const size_t x_col = (size_t)p->stride_width * (size_t)cin;
        const size_t x_line = (size_t)p->stride_height * (size_t)p->input_width * (size_t)cin;
        const size_t image = (size_t)p->input_height * (size_t)p->input_width * (size_t)cin;
        for (int32_t b = 0; b < p->batches; ++b) {
            for (int32_t oy = 0; oy < p->output_height; ++oy) {
                const int8_t *x = input + (size_t)b * image + (size_t)oy * x_line;
                for (int32_t ox = 0; ox < p->output_width; ++ox, x += x_col, out += channels) {
                    int32x4_t acc = vaddq_s32(unfolded_whole4(x, 0, 1, cin, g->w, 0), g->whole);
                    acc = general ? hk_requant_mve(acc, g->mult, g->shift)
                                  : hk_requant_right_mve(acc, g->mult, g->shift);
                    acc = vminq_s32(vmaxq_s32(vaddq_n_s32(acc, p->output_offset), lo), hi);
                    vstrbq_p_s32(out, acc, g->real);
                }
            }
        }
        return;
    }
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + (size_t)b * (size_t)p->input_height *
                                          (size_t)p->input_width * (size_t)cin;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t iy0 = oy * p->stride_height - p->pad_top;
            int32_t fy0, fy1;
            hk_window_taps(iy0, p->dilation_height, p->filter_height, p->input_height, &fy0,
                           &fy1);
            const int8_t *line =
                image + (size_t)(iy0 + fy0 * p->dilation_height) * (size_t)p->input_width *
                            (size_t)cin;
            for (int32_t ox = 0; ox < p->output_width; ++ox, out += channels) {
                const int32_t ix0 = ox * p->stride_width - p->pad_left;
                int32_t fx0, fx1;
                hk_window_taps(ix0, 1, p->filter_width, p->input_width, &fx0, &fx1);
                const int32_t runs = fx1 > fx0 ? fy1 - fy0 : 0;
                const int8_t *x = line + (size_t)(ix0 + fx0) * (size_t)cin;
                const size_t skip = (size_t)fy0 * row + (size_t)fx0 * (size_t)cin;
                const int32_t len = (fx1 - fx0) * cin;
                int32x4_t acc;
                if (fy1 - fy0 == p->filter_height && fx1 - fx0 == p->filter_width) {
                    acc = vaddq_s32(unfolded_whole4(x, x_step, runs, len, g->w, row), g->whole);
                } else {
                    int32x4_t sums;
                    acc = unfolded_clipped4(x, x_step, runs, len, g->w, skip, row, &sums);
                    acc = vaddq_s32(vmlaq_n_s32(acc, sums, p->input_offset), g->bias);
                }
                acc = general ? hk_requant_mve(acc, g->mult, g->shift)
                              : hk_requant_right_mve(acc, g->mult, g->shift);
                acc = vminq_s32(vmaxq_s32(vaddq_n_s32(acc, p->output_offset), lo), hi);
                vstrbq_p_s32(out, acc, g->real);
            }
        }
    }
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8): sum of filter * (input +
 * input_offset) over the taps inside the image, plus the bias, computed as the dot product
 * with the raw input plus the offset times the filter taps' sum (the same int32 integers). */
void hk_conv_s8_unfolded_mve(const hk_conv_params_t *p, const int8_t *input,
                             const int8_t *filter, const int32_t *bias, int8_t *output)
{
    const int32_t channels = p->output_channels;
    const size_t taps = (size_t)p->filter_height * (size_t)p->filter_width *
                        (size_t)p->input_channels;
    const bool general =
        hk_requant_mode(p->output_multiplier, p->output_shift, channels) == HK_REQUANT_GENERAL;
    for (int32_t oc = 0; oc < channels; oc += 4) {
        const int32_t n = hk_min_i32(channels - oc, 4);
        unfolded_group_t g;
        /* Missing filters repeat the first and are not stored. */
        g.w[0] = filter + (size_t)oc * taps;
        for (int32_t j = 1; j < 4; ++j) {
            g.w[j] = j < n ? g.w[0] + (size_t)j * taps : g.w[0];
        }
        g.real = vctp32q((uint32_t)n);
        g.bias = bias != NULL ? vldrwq_z_s32(bias + oc, g.real) : vdupq_n_s32(0);
        int32x4_t sums;
        (void)unfolded_clipped4(g.w[0], 0, 1, (int32_t)taps, g.w, 0, 0, &sums);
        g.whole = vmlaq_n_s32(g.bias, sums, p->input_offset);
        g.mult = vldrwq_z_s32(p->output_multiplier + oc, g.real);
        g.shift = vldrwq_z_s32(p->output_shift + oc, g.real);
        unfolded_group(p, input, &g, general, output + oc);
    }
}

#endif /* HK_HAVE_MVE */
