/*
 * helia-aot kernel library: hybrid SVDF (float32 input, output and state; int8 feature weights;
 * the int8 time weights dequantized to float32 by the converter, as LiteRT dequantizes them once).
 *
 * Follows LiteRT's EvalHybridSVDF: the state ages one step; each input row, unless the input is
 * zero everywhere, is quantized (hk_hybrid_quant.h) and each filter's newest slot becomes
 * 0 + float(W q - row_sum * offset) * (row scale * feature scale); each unit's output is the sum
 * over its rank filters of weights_time[f] . state[f] (from 0), plus the bias, then the activation.
 */
#ifndef HK_SVDF_HYBRID_H
#define HK_SVDF_HYBRID_H

#include "hk_act_f32.h"
#include "hk_common.h"
#include "hk_shapes.h"

typedef struct {
    HK_SVDF_SHAPE_FIELDS
    int32_t activation;       /* HK_ACT_F32_* */
    int32_t asymmetric;       /* nonzero: asymmetric_quantize_inputs */
    float feature_scale;      /* the feature weights' scale */
    const int32_t *row_sums;  /* per filter, the sum of its feature weights (asymmetric only) */
} hk_svdf_hybrid_params_t;

/* scratch holds input_size bytes (one quantized row). */
int32_t hk_svdf_hybrid(const hk_svdf_hybrid_params_t *params, const float *input,
                       const int8_t *weights_feature, const float *weights_time, const float *bias,
                       int8_t *scratch, float *state, float *output);

#endif /* HK_SVDF_HYBRID_H */
