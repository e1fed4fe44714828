/*
 * helia-aot kernel library: what the int8 CONV_2D fast paths share (internal to the conv family).
 *
 * hk_conv.c is the portable reference. It hands an ungrouped int8 convolution that has
 * offset_bias and scratch to hk_conv_s8_fast, which exactly one file defines for the instruction
 * set hk_isa.h chose: hk_conv_mve.c (Helium), hk_conv_dsp.c (DSP extension) or hk_conv_scalar.c
 * (plain C, for cores with neither); the other two compile to nothing. Each fast path keeps
 * its whole pixel loop in one translation unit, so nothing on it crosses a file boundary.
 */
#ifndef HK_CONV_PATHS_H
#define HK_CONV_PATHS_H

#include "hk_conv.h"
#include "hk_isa.h"
#include "hk_requant.h"
#include "hk_simd.h"
#include "hk_window.h"

/*
 * Scratch layout (every path sizes it the same; each uses what it needs):
 *   words   round16(4 * round4(taps))  two pixels' receptive fields widened to int16 (DSP);
 *                                       Helium: four (or two) pixels' fields interleaved
 *   patch0  round16(taps)               a gathered receptive field
 *   patch1  round16(taps)               the second pixel's (DSP)
 *   acc0    4 * round4(channels)        a pixel's int32 accumulators, requantized as a row
 *   acc1    4 * round4(channels)        the second pixel's (DSP)
 */
typedef struct {
    uint8_t *words;
    int8_t *patch0, *patch1;
    int32_t *acc0, *acc1;
} conv_scratch_t;

static inline int32_t conv_round16(int32_t n) { return (n + 15) & ~15; }

static inline int32_t conv_scratch_layout(int32_t taps, int32_t channels, uint8_t *base,
                                          conv_scratch_t *layout)
{
    const int32_t words = conv_round16(4 * ((taps + 3) & ~3));
    const int32_t patch = conv_round16(taps);
    const int32_t acc = 4 * ((channels + 3) & ~3);
    if (layout != NULL) {
        layout->words = base;
        layout->patch0 = (int8_t *)(base + words);
        layout->patch1 = (int8_t *)(base + words + patch);
        layout->acc0 = (int32_t *)(void *)(base + words + 2 * patch);
        layout->acc1 = (int32_t *)(void *)(base + words + 2 * patch + acc);
    }
    return words + 2 * patch + 2 * acc;
}

/*
 * Gathers (in plain C) the receptive field of the output pixel whose window starts at (iy0, ix0) into
 * patch[filter_height * filter_width * channels], in the filter's (fy, fx, c) order. Taps
 * outside the image hold `fill`, the input zero point: with the offset folded into the bias,
 * each contributes filter * (zero_point + input_offset) = 0, as a skipped tap does.
 */
static inline void conv_gather_rows_s8(const hk_conv_params_t *p, const int8_t *image,
                                       int32_t iy0, int32_t ix0, int8_t fill, int8_t *patch)
{
    const int32_t channels = p->input_channels;
    const int32_t row = p->filter_width * channels;
    int32_t fx0, fx1;
    hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width, &fx0, &fx1);
    for (int32_t fy = 0; fy < p->filter_height; ++fy, patch += row) {
        const int32_t iy = iy0 + fy * p->dilation_height;
        if (iy < 0 || iy >= p->input_height || fx0 >= fx1) {
            hk_fill_s8(patch, fill, row);
            continue;
        }
        const int8_t *line = image + (size_t)iy * (size_t)p->input_width * (size_t)channels;
        hk_fill_s8(patch, fill, fx0 * channels);
        if (p->dilation_width == 1) {
            hk_copy_s8(patch + fx0 * channels, line + (size_t)(ix0 + fx0) * (size_t)channels,
                       (fx1 - fx0) * channels);
        } else {
            for (int32_t fx = fx0; fx < fx1; ++fx) {
                hk_copy_s8(patch + fx * channels,
                           line + (size_t)(ix0 + fx * p->dilation_width) * (size_t)channels,
                           channels);
            }
        }
        hk_fill_s8(patch + fx1 * channels, fill, (p->filter_width - fx1) * channels);
    }
}

/* An output pixel of the fast path, walked in output order. */
typedef struct {
    int32_t b, oy, ox;
} conv_pixel_t;

/* Steps to the next output pixel. */
static inline void conv_advance(const hk_conv_params_t *p, conv_pixel_t *at)
{
    if (++at->ox == p->output_width) {
        at->ox = 0;
        if (++at->oy == p->output_height) {
            at->oy = 0;
            ++at->b;
        }
    }
}

/* The gather of one fast path (conv_gather_rows_s8, or Helium's vector gather). */
typedef void (*conv_gather_fn)(const hk_conv_params_t *p, const int8_t *image, int32_t iy0,
                               int32_t ix0, int8_t fill, int8_t *patch);

/* The pixel's receptive field: the input pixel itself for a `direct` (unpadded 1x1) filter,
 * else gathered into `patch` by `gather` (a constant at every call, so the call is direct once
 * this is inlined). Then steps to the next pixel. */
HK_INLINE const int8_t *conv_source(const hk_conv_params_t *p, const int8_t *input, bool direct,
                                    conv_pixel_t *at, int8_t *patch, conv_gather_fn gather)
{
    const int32_t iy0 = at->oy * p->stride_height - p->pad_top;
    const int32_t ix0 = at->ox * p->stride_width - p->pad_left;
    const int8_t *image = input + (size_t)at->b * (size_t)p->input_height *
                                      (size_t)p->input_width * (size_t)p->input_channels;
    const int8_t *x = patch;
    if (direct) {
        x = image + ((size_t)iy0 * (size_t)p->input_width + (size_t)ix0) *
                        (size_t)p->input_channels;
    } else {
        gather(p, image, iy0, ix0, (int8_t)(-p->input_offset), patch);
    }
    conv_advance(p, at);
    return x;
}

/*
 * Ungrouped int8 convolution with the input offset folded into offset_bias: per output pixel
 * (two at a time on the DSP path) the receptive field, its dot product with every filter, and
 * the row of accumulators requantized. hk_conv_s8 has checked the parameters and the scratch.
 */
void hk_conv_s8_fast(const hk_conv_params_t *p, const int8_t *input, const int8_t *filter,
                     int8_t *output);

#if HK_HAVE_MVE
/*
 * The Helium path without scratch (hk_conv_mve.c): what hk_conv_s8 runs when offset_bias is
 * given but scratch is not, for windows that do not dilate along the width. Other cores run
 * the generic loop then.
 */
void hk_conv_s8_lean(const hk_conv_params_t *p, const int8_t *input, const int8_t *filter,
                     const int32_t *bias, int8_t *output);
#endif

#endif /* HK_CONV_PATHS_H */
