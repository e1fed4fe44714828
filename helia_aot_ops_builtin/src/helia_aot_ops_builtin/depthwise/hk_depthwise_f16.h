/*
 * helia-aot kernel library: float16 DEPTHWISE_CONV_2D.
 *
 * NHWC input, [1, filter_height, filter_width, input_channels * depth_multiplier] filter,
 * explicit padding (taps outside the image are skipped), float16 operands and bias. With the
 * `accumulation` knob on `fast`, on Helium with MVE-F and a depth multiplier of 1, eight channels
 * go at a time: the bias vector plus one vfmaq_f16 per in-image tap, clamped and stored as
 * float16; otherwise (`precise`, the default, or another core) each output channel accumulates
 * its taps in float.
 */
#ifndef HK_DEPTHWISE_F16_H
#define HK_DEPTHWISE_F16_H

#include "hk_f16.h"

typedef struct {
    int32_t batches;
    int32_t input_height;
    int32_t input_width;
    int32_t input_channels;
    int32_t depth_multiplier;
    int32_t filter_height;
    int32_t filter_width;
    int32_t output_height;
    int32_t output_width; /* output channels = input_channels * depth_multiplier */
    int32_t stride_height;
    int32_t stride_width;
    int32_t dilation_height;
    int32_t dilation_width;
    int32_t pad_top;
    int32_t pad_left;
    float act_min_f32;
    float act_max_f32;
    bool fast_accumulation;        /* accumulation knob: true = float16 lanes on Helium (fast) */
} hk_depthwise_f16_params_t;

int32_t hk_depthwise_f16(const hk_depthwise_f16_params_t *params, const uint16_t *input,
                         const uint16_t *filter, const uint16_t *bias, uint16_t *output);

#if HK_HAVE_MVE_F16
/* Internal to the family (hk_depthwise_f16_mve.c): one output pixel of batch n, depth multiplier
 * 1, window origin (y0, x0), eight channels per vector with the tail predicated, summed in
 * float16 (fast_accumulation). */
void hk_depthwise_f16_pixel_mve(const hk_depthwise_f16_params_t *p, const hk_f16_t *in, const hk_f16_t *w,
                                const hk_f16_t *b, hk_f16_t *out, int32_t n, int32_t y0, int32_t x0);
#endif

#endif /* HK_DEPTHWISE_F16_H */
