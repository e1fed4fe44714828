/*
 * helia-aot kernel library: CONV_2D.
 *
 * Tensors are NHWC; the filter is OHWI ([output_channels, filter_height, filter_width,
 * filter_input_channels]). Padding is explicit (the converter computes SAME/VALID padding the
 * way LiteRT's Prepare does); taps falling outside the image are skipped, as in the reference.
 * When input_channels is a multiple k of filter_input_channels the convolution is grouped into
 * k groups of output_channels / k filters each, which is what the LiteRT reference kernel does.
 *
 * The int8 kernel has fast paths (Helium, DSP or portable C, chosen at compile time: see
 * hk_simd.h) for ungrouped convolutions given offset_bias and scratch, which the converter
 * provides. offset_bias holds the input offset folded into the bias, so the paths multiply raw
 * int8 inputs; each output pixel's receptive field is read in place (a 1x1 pixel, or the
 * filter rows of a window inside the image on Helium) or gathered into scratch, where taps
 * outside the image hold the input zero point and so add exactly nothing. Its dot products
 * with every filter (Helium, receptive fields of whole vectors: four pixels against two
 * filters, their eight VMLADAV sums in registers, the filter loop and requantization in
 * assembly; otherwise VMLADAV over whole vectors, four filters at a time; DSP: SMLAD,
 * two pixels and two filters at a time; pointwise with at most 16 input channels on Helium:
 * four pixels at a time) fill a row of int32 accumulators, which is then requantized in one
 * pass (hk_requant.h). Helium takes two pixels against four filters, their eight sums in
 * registers and requantized as two vectors, where windows are read in place by rows or the
 * filters are few. Every path gives the reference's integers; without offset_bias or
 * scratch, or for grouped filters, the generic loop runs, except that Helium has a
 * scratch-free variant (offset_bias without scratch: accumulators in registers, windows read
 * in place), which the converter picks where a scratch buffer would raise the arena.
 */
#ifndef HK_CONV_H
#define HK_CONV_H

#include "hk_common.h"

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
    /* Quantized kernels only. */
    int32_t input_offset;              /* -input zero point (0 for int16) */
    int32_t output_offset;             /* output zero point (0 for int16) */
    int32_t act_min;                   /* fused activation clamp, quantized */
    int32_t act_max;
    const int32_t *output_multiplier;  /* [output_channels], Q31 */
    const int32_t *output_shift;       /* [output_channels], positive = left */
    /* Float kernel only. */
    float act_min_f32;
    float act_max_f32;
    /* int8 fast paths only; NULL / 0 selects the generic loop. */
    const int32_t *offset_bias;        /* [round4(output_channels)]: bias + input_offset *
                                          sum(filter), zero padded to whole vectors of four */
    void *scratch;                     /* hk_conv_s8_scratch_size() bytes, 4-byte aligned */
    int32_t scratch_size;
} hk_conv_params_t;

/* Bytes of scratch the int8 fast paths need (0 when they do not apply: grouped filters). */
int32_t hk_conv_s8_scratch_size(const hk_conv_params_t *params);

/* int8 activations, int8 weights, int32 bias (may be NULL). */
int32_t hk_conv_s8(const hk_conv_params_t *params, const int8_t *input, const int8_t *filter,
                   const int32_t *bias, int8_t *output);

/*
 * hk_conv_s8's two halves, for a converter that knows at conversion time which one runs, so a
 * module links only the code it calls (hk_conv_s8 links both). hk_conv_s8_scratch is the fast
 * path with its buffer (offset_bias, scratch of hk_conv_s8_scratch_size bytes, an ungrouped
 * filter): it returns HK_STATUS_BAD_PARAM for anything else and never reads bias.
 * hk_conv_s8_scratch_free is what hk_conv_s8 runs without the buffer (Helium's lean path, else
 * the general loop).
 */
int32_t hk_conv_s8_scratch(const hk_conv_params_t *params, const int8_t *input,
                           const int8_t *filter, const int32_t *bias, int8_t *output);
int32_t hk_conv_s8_scratch_free(const hk_conv_params_t *params, const int8_t *input,
                                const int8_t *filter, const int32_t *bias, int8_t *output);

/* int16 activations, int8 weights, int64 bias (may be NULL), 64-bit accumulation. */
int32_t hk_conv_s16(const hk_conv_params_t *params, const int16_t *input, const int8_t *filter,
                    const int64_t *bias, int16_t *output);

/* int16 activations, int8 weights, int32 bias (may be NULL), 32-bit accumulation: the path
 * LiteRT takes when the operator's quantized_bias_type is INT32. */
int32_t hk_conv_s16_b32(const hk_conv_params_t *params, const int16_t *input,
                        const int8_t *filter, const int32_t *bias, int16_t *output);

/* float32 everything; bias may be NULL. */
int32_t hk_conv_f32(const hk_conv_params_t *params, const float *input, const float *filter,
                    const float *bias, float *output);

#endif /* HK_CONV_H */
