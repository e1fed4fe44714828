/*
 * helia-aot kernel library: DEPTHWISE_CONV_2D.
 *
 * Tensors are NHWC; the filter is [1, filter_height, filter_width, output_channels] with
 * output_channels = input_channels * depth_multiplier, output channel ic * depth_multiplier + m
 * reading input channel ic. Padding is explicit; out-of-image taps are skipped.
 *
 * The int8 kernel has fast paths for a depth multiplier of 1 (Helium, DSP or portable C,
 * chosen at compile time: see hk_simd.h) that work across channels: Helium widens 16 channels
 * to int16 and multiplies them into int32 lanes (VMULLB / VMULLT), the DSP path four at a time
 * (SXTAB16, SMLABB / SMLATT). A window wholly inside the image starts from offset_bias, the
 * bias with the input offset folded in, and multiplies raw inputs; a window cut by the image
 * edge (or any window, without offset_bias) starts from the bias and adds the input offset to
 * each input over the taps inside the image, as the reference does. The DSP path with
 * offset_bias starts cut windows from offset_bias too: their taps outside the image read the
 * input zero point, whose products cancel exactly those taps' share of the folded offset. On
 * Helium, whole 3x3 windows (dilation 1, channels a multiple of 8) along a row run in one
 * assembly block per eight channels with the nine taps unrolled, and windows the image edge
 * cuts to 2 or 3 rows and columns in another block of their own. Without offset_bias (goal
 * size) those whole windows take the same blocks, each group of eight channels starting from
 * the bias plus the input offset times its taps' sum, computed once per group and call (with an
 * input offset of 0, where goal size folds the offset into the bias, that adds nothing). Every
 * path gives the reference's integers; other depth multipliers take the generic loop.
 */
#ifndef HK_DEPTHWISE_H
#define HK_DEPTHWISE_H

#include "hk_common.h"

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
    /* Quantized kernels only. */
    int32_t input_offset;              /* -input zero point (0 for int16) */
    int32_t output_offset;             /* output zero point (0 for int16) */
    int32_t act_min;
    int32_t act_max;
    const int32_t *output_multiplier;  /* [output channels], Q31 */
    const int32_t *output_shift;       /* [output channels], positive = left */
    /* Float kernel only. */
    float act_min_f32;
    float act_max_f32;
    /* int8 fast paths only; may be NULL (then every window adds the offset per input). */
    const int32_t *offset_bias;        /* [output channels]: bias + input_offset * sum of taps */
} hk_depthwise_params_t;

/* int8 activations, int8 weights, int32 bias (may be NULL). */
int32_t hk_depthwise_s8(const hk_depthwise_params_t *params, const int8_t *input,
                        const int8_t *filter, const int32_t *bias, int8_t *output);

/* offset_bias[c] = bias[c] (0 without a bias) + input_offset * the sum of output channel c's
 * taps, in wrapping int32: the fold the other goals store as a constant, computed at run time
 * (goal size's row loops, once per layer into their own stack, for hk_depthwise_s8's fast
 * paths). offset_bias holds input_channels * depth_multiplier entries. */
int32_t hk_depthwise_s8_offset_bias(const hk_depthwise_params_t *params, const int8_t *filter,
                                    const int32_t *bias, int32_t *offset_bias);

/* int16 activations, int8 weights, int64 bias (may be NULL), 64-bit accumulation. */
int32_t hk_depthwise_s16(const hk_depthwise_params_t *params, const int16_t *input,
                         const int8_t *filter, const int64_t *bias, int16_t *output);

/* float32 everything; bias may be NULL. */
int32_t hk_depthwise_f32(const hk_depthwise_params_t *params, const float *input,
                         const float *filter, const float *bias, float *output);

#endif /* HK_DEPTHWISE_H */
