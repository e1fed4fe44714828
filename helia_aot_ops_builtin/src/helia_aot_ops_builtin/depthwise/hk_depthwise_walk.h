/*
 * helia-aot kernel library: the output walk of the depthwise fast paths (depth multiplier 1),
 * shared by hk_depthwise_s16_mve.c, hk_depthwise_s16_dsp.c and hk_depthwise_f32_mve.c.
 *
 * Follows the loop order of LiteRT reference_ops::DepthwiseConv: hk_dw_walk visits the output
 * pixels in order (batch, row, column) and calls the path's group function for each group of
 * `group` channels; hk_dw_taps visits one group's in-image taps in the reference's order (filter
 * rows, then columns; hk_window_taps gives the in-image range) and calls the path's
 * multiply-accumulate with the addresses of the tap's input and weight for the group's first
 * channel. Both are always inlined with constant callbacks and element sizes, so each path
 * compiles to the loops it would have written out; only its group function (the sums' type,
 * the loads, the requantization or bias and clamp) is its own.
 */
#ifndef HK_DEPTHWISE_WALK_H
#define HK_DEPTHWISE_WALK_H

#include "hk_depthwise.h"
#include "hk_window.h"

/* One output pixel: its batch's input image (bytes), the input coordinates of tap (0, 0), the
 * in-image taps [fy0, fy1) x [fx0, fx1), and, fixed for the call, the channel count and the byte
 * steps between input rows and columns and between filter rows and columns. */
typedef struct {
    const hk_depthwise_params_t *p;
    const char *image;
    int32_t channels;
    int32_t iy0;
    int32_t ix0;
    int32_t fy0;
    int32_t fy1;
    int32_t fx0;
    int32_t fx1;
    size_t x_row;
    size_t x_col;
    size_t w_row;
    size_t w_col;
} hk_dw_pixel_t;

/* The outputs of channels c.. of one pixel; `out` is the pixel's first output element. */
typedef void (*hk_dw_group_fn)(void *ctx, const hk_dw_pixel_t *px, int32_t c, size_t out);

/* One tap: accumulate the products of the input at x and the weights at w into *acc. */
typedef void (*hk_dw_mac_fn)(void *acc, const void *x, const void *w);

HK_INLINE void hk_dw_walk(const hk_depthwise_params_t *p, const void *input, size_t in_size,
                          size_t w_size, int32_t group, hk_dw_group_fn fn, void *ctx)
{
    const int32_t channels = p->input_channels;
    const size_t row = (size_t)p->input_width * (size_t)channels;
    const size_t image = (size_t)p->input_height * row * in_size;
    hk_dw_pixel_t px = {p,
                        (const char *)input,
                        channels,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        row * in_size,
                        (size_t)channels * in_size,
                        (size_t)p->filter_width * (size_t)channels * w_size,
                        (size_t)channels * w_size};
    size_t out = 0;
    for (int32_t b = 0; b < p->batches; ++b) {
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            px.iy0 = oy * p->stride_height - p->pad_top;
            hk_window_taps(px.iy0, p->dilation_height, p->filter_height, p->input_height,
                           &px.fy0, &px.fy1);
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                px.ix0 = ox * p->stride_width - p->pad_left;
                hk_window_taps(px.ix0, p->dilation_width, p->filter_width, p->input_width,
                               &px.fx0, &px.fx1);
                for (int32_t c = 0; c < channels; c += group) {
                    fn(ctx, &px, c, out);
                }
                out += (size_t)channels;
            }
        }
        px.image += image;
    }
}

HK_INLINE void hk_dw_taps(const hk_dw_pixel_t *px, int32_t c, const void *filter, size_t in_size,
                          size_t w_size, hk_dw_mac_fn mac, void *acc)
{
    const hk_depthwise_params_t *p = px->p;
    for (int32_t fy = px->fy0; fy < px->fy1; ++fy) {
        const int32_t iy = px->iy0 + fy * p->dilation_height;
        const char *x = px->image + (size_t)iy * px->x_row + (size_t)c * in_size;
        const char *w = (const char *)filter + (size_t)fy * px->w_row + (size_t)c * w_size;
        for (int32_t fx = px->fx0; fx < px->fx1; ++fx) {
            const int32_t ix = px->ix0 + fx * p->dilation_width;
            mac(acc, x + (size_t)ix * px->x_col, w + (size_t)fx * px->w_col);
        }
    }
}

#endif /* HK_DEPTHWISE_WALK_H */
