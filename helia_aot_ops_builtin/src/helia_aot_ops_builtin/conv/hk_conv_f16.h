/*
 * helia-aot kernel library: float16 CONV_2D.
 *
 * NHWC tensors, OHWI filter, explicit padding (taps outside the image are skipped) and grouped
 * filters as in hk_conv.h; the operands, bias included, are float16. Each output is the bias
 * plus the dot products of its in-image taps, clamped to the fused activation and rounded once
 * to float16. The `accumulation` knob picks the dot product (hk_f16_dot.h): `precise` (the
 * default) accumulates in float on every core; `fast` keeps eight float16 lanes (vfmaq_f16) on
 * Helium, and float elsewhere.
 */
#ifndef HK_CONV_F16_H
#define HK_CONV_F16_H

#include "hk_f16.h"

typedef struct {
    int32_t batches;
    int32_t input_height;
    int32_t input_width;
    int32_t input_channels;
    int32_t filter_height;
    int32_t filter_width;
    int32_t filter_input_channels; /* input_channels / groups */
    int32_t output_height;
    int32_t output_width;
    int32_t output_channels;
    int32_t stride_height;
    int32_t stride_width;
    int32_t dilation_height;
    int32_t dilation_width;
    int32_t pad_top;
    int32_t pad_left;
    float act_min_f32;             /* fused activation clamp */
    float act_max_f32;
    bool fast_accumulation;        /* accumulation knob: true = float16 lanes on Helium (fast) */
} hk_conv_f16_params_t;

/* float16 input, filter, bias (may be NULL) and output. */
int32_t hk_conv_f16(const hk_conv_f16_params_t *params, const uint16_t *input, const uint16_t *filter,
                    const uint16_t *bias, uint16_t *output);

#endif /* HK_CONV_F16_H */
