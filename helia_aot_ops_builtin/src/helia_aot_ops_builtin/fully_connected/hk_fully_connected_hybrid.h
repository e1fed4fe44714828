/*
 * helia-aot kernel library: hybrid FULLY_CONNECTED (float32 activations, int8 weights).
 *
 * What LiteRT runs for a fully connected layer whose weights the converter quantized to int8
 * while the activations stay float32 (dynamic-range quantization): each input row is quantized
 * to int8 at run time (hk_hybrid_quant.h, symmetric or asymmetric), multiplied with the weights
 * in int32, and each sum is scaled back: output = bias + float(sum) * row_scale * weight_scale,
 * then the fused activation. The float operations are the reference's, in its order, so the
 * outputs are the reference's up to the rounding of the cores' libm (none is called unless the
 * activation is TANH).
 */
#ifndef HK_FULLY_CONNECTED_HYBRID_H
#define HK_FULLY_CONNECTED_HYBRID_H

#include "hk_common.h"

typedef struct {
    int32_t batches;
    int32_t input_features;
    int32_t output_features;
    int32_t asymmetric;          /* nonzero: asymmetric_quantize_inputs */
    int32_t activation;          /* HK_ACT_F32_* code (hk_act_f32.h) */
    float filter_scale;          /* the weights' scale when per tensor */
    const float *channel_scale;  /* per output feature scales, or NULL (per tensor) */
    const int32_t *row_sums;     /* per output feature, the sum of its weights (asymmetric only) */
} hk_fully_connected_hybrid_params_t;

/* input [batches, input_features] float32, filter [output_features, input_features] int8
 * row-major, bias float32 or NULL, scratch holds input_features bytes (one quantized row). */
int32_t hk_fully_connected_hybrid(const hk_fully_connected_hybrid_params_t *params,
                                  const float *input, const int8_t *filter, const float *bias,
                                  int8_t *scratch, float *output);

#endif /* HK_FULLY_CONNECTED_HYBRID_H */
