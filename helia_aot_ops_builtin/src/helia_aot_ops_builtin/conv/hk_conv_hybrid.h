/*
 * helia-aot kernel library: hybrid CONV_2D and DEPTHWISE_CONV_2D (float32 activations, int8
 * filters), as LiteRT runs the convolutions of a dynamic-range quantized model.
 *
 * Each batch image is quantized to int8 as a whole (hk_hybrid_quant.h) into `scratch`
 * (input_height * input_width * input_channels bytes), the windows sum int8 products in int32
 * and each sum is scaled back to float32. LiteRT has two forms, and `per_channel` picks one:
 *  - per channel (the filter's scales differ, or a grouped CONV_2D; every DEPTHWISE_CONV_2D):
 *    asymmetric image quantization, taps outside the image skipped, sums of w * (q - offset);
 *    CONV_2D scales as (float(acc) * channel_scale) * image_scale, DEPTHWISE_CONV_2D as
 *    float(acc) * (channel_scale * image_scale), then + bias;
 *  - per tensor (CONV_2D with one filter scale): symmetric image quantization, sums of w * q,
 *    output (0 + float(acc) * (image_scale * filter_scale)) + bias.
 * Then the activation clamp. The float operations and their order are the reference's.
 */
#ifndef HK_CONV_HYBRID_H
#define HK_CONV_HYBRID_H

#include "hk_common.h"

typedef struct {
    int32_t batches;
    int32_t input_height;
    int32_t input_width;
    int32_t input_channels;
    int32_t filter_height;
    int32_t filter_width;
    int32_t filter_input_channels;  /* CONV_2D: input channels per group */
    int32_t depth_multiplier;       /* DEPTHWISE_CONV_2D */
    int32_t output_height;
    int32_t output_width;
    int32_t output_channels;
    int32_t stride_height;
    int32_t stride_width;
    int32_t dilation_height;
    int32_t dilation_width;
    int32_t pad_top;
    int32_t pad_left;
    int32_t per_channel;            /* nonzero: the per-channel form (see above) */
    float filter_scale;             /* per tensor form */
    const float *channel_scale;     /* per channel form: [output_channels] */
    float act_min_f32;
    float act_max_f32;
} hk_conv_hybrid_params_t;

/* CONV_2D: filter [output_channels, filter_height, filter_width, filter_input_channels]. */
int32_t hk_conv_hybrid(const hk_conv_hybrid_params_t *params, const float *input,
                       const int8_t *filter, const float *bias, int8_t *scratch, float *output);

/* DEPTHWISE_CONV_2D: filter [1, filter_height, filter_width, output_channels]. */
int32_t hk_depthwise_hybrid(const hk_conv_hybrid_params_t *params, const float *input,
                            const int8_t *filter, const float *bias, int8_t *scratch,
                            float *output);

#endif /* HK_CONV_HYBRID_H */
