/*
 * helia-aot kernel library: what the int8 DEPTHWISE_CONV_2D fast paths share (internal to the
 * depthwise family).
 *
 * hk_depthwise.c is the portable reference. It hands an int8 call with depth multiplier 1 and
 * an int8 zero point's input offset to hk_depthwise_s8_fast (on the DSP extension first to
 * hk_depthwise_s8_taps_dsp when that takes it), which exactly one file defines for
 * the instruction set hk_isa.h chose: hk_depthwise_mve.c (Helium), hk_depthwise_dsp.c (DSP
 * extension) or hk_depthwise_scalar.c (plain C, for cores with neither); the other two compile
 * to nothing. Each path keeps its whole pixel loop (dw_s8_walk, below, with its own pixel
 * functions) in one translation unit, so nothing on it crosses a file boundary.
 */
#ifndef HK_DEPTHWISE_PATHS_H
#define HK_DEPTHWISE_PATHS_H

#include "hk_depthwise.h"
#include "hk_isa.h"
#include "hk_requant.h"
#include "hk_simd.h"
#include "hk_window.h"

/* params checked, depth_multiplier 1, input_offset in [-127, 128]. */
void hk_depthwise_s8_fast(const hk_depthwise_params_t *params, const int8_t *input,
                          const int8_t *filter, const int32_t *bias, int8_t *output);

#if HK_HAVE_DSP
/* The DSP path with offset_bias takes windows of at most this many taps (a 5x5 filter). */
#define DW_MAX_TAPS 25

/* Whether hk_depthwise_s8_taps_dsp takes a call hk_depthwise_s8_fast would: offset_bias and at
 * most DW_MAX_TAPS taps. The reference asks before it calls either, so the call costs what one
 * call to a fast path costs. */
HK_INLINE bool hk_depthwise_s8_taps_dsp_ok(const hk_depthwise_params_t *p)
{
    return p->offset_bias != NULL && p->filter_height * p->filter_width <= DW_MAX_TAPS;
}

/* Every window from offset_bias, taps outside the image read as the input zero point
 * (hk_depthwise_dsp.c); params as for hk_depthwise_s8_fast. */
void hk_depthwise_s8_taps_dsp(const hk_depthwise_params_t *p, const int8_t *input,
                              const int8_t *filter, int8_t *output);
#endif

#if HK_HAVE_MVE
/* hk_depthwise_s8_offset_bias's fold for the channels Helium takes four at a time (every whole
 * four of `channels`); returns how many it did, the reference loop does the rest. */
int32_t hk_depthwise_offset_bias_mve(const int8_t *filter, const int32_t *bias, int32_t channels,
                                     int32_t taps, int32_t offset, int32_t *offset_bias);
#endif

/*
 * A window wholly inside the image starts from offset_bias (the bias plus input_offset times
 * the sum of the filter taps) and multiplies raw inputs, which saves an add per multiply. A
 * window cut by the image edge starts from the plain bias and adds input_offset to each input,
 * as the reference does, over the taps inside the image only.
 */

/* What is fixed for one kernel call. */
typedef struct {
    const hk_depthwise_params_t *p;
    const int32_t *bias;  /* may be NULL */
    size_t x_row, w_row;  /* from one filter row to the next: input and filter */
    int32_t x_col;        /* from one tap to the next in a row: input (the filter's: channels) */
    int32_t lo, hi;       /* the activation clamp within int8 */
    int32_t mode;         /* hk_requant_mode over the channels */
} dw_call_t;

/* One output pixel's taps inside the image, from the first one's input and filter bytes. */
typedef struct {
    const int8_t *x;
    const int8_t *w;
    int32_t rows, cols;
    bool whole; /* the window lies wholly inside the image */
} dw_taps_t;

/* A path's functions for dw_s8_walk: one output pixel's channels (dw_taps_t), or `count` whole
 * 3x3 windows along an output row from the input x. */
typedef void (*dw_pixel_fn)(const dw_call_t *k, const dw_taps_t *t, int8_t *out);
typedef void (*dw_row_fn)(const dw_call_t *k, const int8_t *x, const int8_t *filter,
                          int32_t count, int8_t *out);
/* Four channels' sums from c (dw_pixel_rows_s8): start (or 0) plus (input + offset) * filter. */
typedef void (*dw_taps4_fn)(const dw_call_t *k, const dw_taps_t *t, int32_t c,
                            const int32_t *start, int32_t offset, int32_t *acc);

/* Whether a path's whole-row 3x3 loops (dw_s8_walk's `row` and `row_unfolded`) serve this
 * call's whole windows: 3x3, dilation 1, channels a multiple of 8, no general requantization. */
HK_INLINE bool dw_row3x3_ok(const dw_call_t *k)
{
    const hk_depthwise_params_t *p = k->p;
    return p->filter_height == 3 && p->filter_width == 3 && p->dilation_height == 1 &&
           p->dilation_width == 1 && p->input_channels % 8 == 0 &&
           k->mode != HK_REQUANT_GENERAL;
}

/*
 * Depth multiplier 1: output channel c reads input channel c only. Every output pixel goes to
 * the path's `pixel`; a path with whole-row 3x3 loops (Helium) passes `row` (whole windows
 * with offset_bias), `row_unfolded` (without) and `edge` (3x3 windows cut to 2 or 3 rows and
 * columns), the others NULL. Always inlined with constant callbacks, so each path compiles to
 * the loop it would have written out and a NULL callback's branches fold away.
 */
HK_INLINE void dw_s8_walk(const hk_depthwise_params_t *p, const int8_t *input,
                          const int8_t *filter, const int32_t *bias, int8_t *output,
                          dw_pixel_fn pixel, dw_row_fn row, dw_row_fn row_unfolded,
                          dw_pixel_fn edge)
{
    const int32_t channels = p->input_channels;
    const size_t image_size =
        (size_t)p->input_height * (size_t)p->input_width * (size_t)channels;
    dw_call_t k;
    k.p = p;
    k.bias = bias;
    k.x_row = (size_t)p->dilation_height * (size_t)p->input_width * (size_t)channels;
    k.w_row = (size_t)p->filter_width * (size_t)channels;
    k.x_col = p->dilation_width * channels;
    k.lo = hk_max_i32(p->act_min, -128);
    k.hi = hk_min_i32(p->act_max, 127);
    k.mode = hk_requant_mode(p->output_multiplier, p->output_shift, channels);
    const bool row3x3 = row != NULL && dw_row3x3_ok(&k);
    /* A path without whole-row loops (DSP, plain C) gives every pixel to `pixel`: the columns
     * whose windows lie wholly inside the image's width, [in_lo, in_hi), take the whole filter
     * row without hk_window_taps' divisions. (Helium's row loops take those pixels instead.) */
    int32_t in_lo = 0, in_hi = 0;
    if (row == NULL) {
        in_lo = p->pad_left > 0 ? (p->pad_left + p->stride_width - 1) / p->stride_width : 0;
        const int32_t last =
            p->input_width - 1 - (p->filter_width - 1) * p->dilation_width + p->pad_left;
        in_hi = last < 0 ? 0 : hk_min_i32(p->output_width, last / p->stride_width + 1);
    }
    int8_t *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + (size_t)b * image_size;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t iy0 = oy * p->stride_height - p->pad_top;
            int32_t fy0, fy1;
            hk_window_taps(iy0, p->dilation_height, p->filter_height, p->input_height, &fy0,
                           &fy1);
            int32_t ox_lo = p->output_width, ox_hi = p->output_width; /* whole windows */
            if (row3x3 && fy0 == 0 && fy1 == 3) {
                /* The whole windows of a row: ox * stride - pad_left in [0, width - 3]. */
                ox_lo = (p->pad_left + p->stride_width - 1) / p->stride_width;
                const int32_t last = p->input_width - 3 + p->pad_left;
                ox_hi = last < 0 ? 0 : hk_min_i32(p->output_width, last / p->stride_width + 1);
                if (ox_hi <= ox_lo) {
                    ox_lo = ox_hi = p->output_width;
                }
            }
            for (int32_t ox = 0; ox < p->output_width; ++ox, out += channels) {
                const int32_t ix0 = ox * p->stride_width - p->pad_left;
                if (row != NULL && ox == ox_lo) {
                    const int8_t *x = image + ((size_t)iy0 * (size_t)p->input_width + (size_t)ix0) *
                                                  (size_t)channels;
                    if (p->offset_bias != NULL) {
                        row(&k, x, filter, ox_hi - ox_lo, out);
                    } else {
                        row_unfolded(&k, x, filter, ox_hi - ox_lo, out);
                    }
                    out += (size_t)(ox_hi - ox_lo - 1) * (size_t)channels;
                    ox = ox_hi - 1;
                    continue;
                }
                int32_t fx0 = 0, fx1 = p->filter_width;
                if (row != NULL || ox < in_lo || ox >= in_hi) {
                    hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width, &fx0,
                                   &fx1);
                }
                dw_taps_t t;
                t.rows = fy1 - fy0;
                t.cols = fx1 - fx0;
                /* Without offset_bias every window takes the per-input offset. */
                t.whole = t.rows == p->filter_height && t.cols == p->filter_width &&
                          p->offset_bias != NULL;
                t.w = filter + ((size_t)fy0 * (size_t)p->filter_width + (size_t)fx0) *
                                   (size_t)channels;
                t.x = image;
                if (t.rows > 0 && t.cols > 0) {
                    const int32_t iy = iy0 + fy0 * p->dilation_height;
                    const int32_t ix = ix0 + fx0 * p->dilation_width;
                    t.x = image + ((size_t)iy * (size_t)p->input_width + (size_t)ix) *
                                      (size_t)channels;
                } else {
                    t.rows = 0; /* no tap inside: the bias alone */
                }
                if (edge != NULL && row3x3 && !t.whole && t.rows >= 2 && t.cols >= 2) {
                    edge(&k, &t, out);
                    continue;
                }
                pixel(&k, &t, out);
            }
        }
    }
}

/* Channels are requantized as one row after their taps (a separate pass keeps the accumulating
 * loop's registers), this many at a time in a stack buffer. */
#define DW_ROW 64

/* Every channel of one output pixel, four at a time through the path's `taps4`, then
 * requantized a row at a time (the DSP and plain-C paths' dw_s8_walk `pixel`). A whole window
 * starts from offset_bias and multiplies raw inputs (offset 0). */
HK_INLINE void dw_pixel_rows_s8(const dw_call_t *k, const dw_taps_t *t, int8_t *out,
                                dw_taps4_fn taps4)
{
    const hk_depthwise_params_t *p = k->p;
    const int32_t channels = p->input_channels;
    const int32_t *start = t->whole ? p->offset_bias : k->bias;
    const int32_t offset = t->whole ? 0 : p->input_offset;
    int32_t acc[DW_ROW];
    for (int32_t c0 = 0; c0 < channels; c0 += DW_ROW) {
        const int32_t end = hk_min_i32(channels, c0 + DW_ROW);
        int32_t c = c0;
        for (; c + 4 <= end; c += 4) {
            taps4(k, t, c, start, offset, acc + (c - c0));
        }
        for (; c < end; ++c) {
            int32_t a = start != NULL ? start[c] : 0;
            const int8_t *xr = t->x + c, *wr = t->w + c;
            for (int32_t r = t->rows; r > 0; --r, xr += k->x_row, wr += k->w_row) {
                for (int32_t n = 0; n < t->cols; ++n) {
                    a += (xr[(size_t)n * (size_t)k->x_col] + offset) *
                         wr[(size_t)n * (size_t)channels];
                }
            }
            acc[c - c0] = a;
        }
        hk_requant_row_s8(acc, p->output_multiplier + c0, p->output_shift + c0, end - c0,
                          p->output_offset, k->lo, k->hi, k->mode, out + c0);
    }
}

#endif /* HK_DEPTHWISE_PATHS_H */
