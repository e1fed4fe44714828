/*
 * helia-aot kernel library: FULLY_CONNECTED.
 *
 * The input is viewed as [batches, input_features] and the weights as [output_features,
 * input_features], row-major; the output is [batches, output_features].
 *
 * LiteRT's reference kernel requantizes fully-connected accumulators in double precision,
 * round(double(acc) * effective_scale) with effective_scale = double(input_scale) *
 * double(filter_scale) / double(output_scale), not with a fixed-point multiplier; the two
 * differ by one on about 0.1% of outputs, so the quantized kernels take the double scales.
 *
 * The quantized kernels never add the offsets per multiply-accumulate: the sum of
 * (w + filter_offset) * (x + input_offset) is the plain dot product of w and x, plus
 * filter_offset * sum(x) once per input row, plus a per-unit constant the converter
 * precomputes (`folded_bias`). The int8 kernel also reads weights packed four units at a time
 * (`packed_filter`, layout in hk_fc_dot.h), so that one pointer feeds four dot products. The
 * dot products run on Helium (MVE) on Cortex-M55, on SMLAD on cores with the DSP extension
 * (Cortex-M4) and in plain C elsewhere; the double requantization is exact on every core
 * (hk_fc_requant.h), so all paths give identical outputs.
 */
#ifndef HK_FULLY_CONNECTED_H
#define HK_FULLY_CONNECTED_H

#include "hk_common.h"

typedef struct {
    int32_t batches;
    int32_t input_features;
    int32_t output_features;
    /* Quantized kernels only. */
    int32_t input_offset;        /* -input zero point */
    int32_t filter_offset;       /* -filter zero point (0 when per channel) */
    int32_t output_offset;       /* output zero point */
    int32_t act_min;
    int32_t act_max;
    const double *output_scale;  /* effective scales: [output_features] or [1] */
    int32_t per_channel;         /* nonzero: output_scale has one entry per output feature */
    /* Float kernel only. */
    float act_min_f32;
    float act_max_f32;
    /* hk_fully_connected_s8 only, optional: per output feature, bias[o] + input_offset *
     * (sum of the unit's weights + input_features * filter_offset), wrapped to int32. When set,
     * the bias argument is not read; when NULL the kernel computes the same values itself. */
    const int32_t *folded_bias;
    /* hk_fully_connected_s8 only: nonzero when the filter is in the packed layout of
     * hk_fc_dot.h rather than row-major; needs folded_bias. */
    int32_t packed_filter;
    /* hk_fully_connected_s8 only, optional (read on Helium, with packed_filter): per output
     * feature, the multiplier of an integer requantization of eight units at once,
     * sat((sat(acc << requant_left) * multiplier * 2 + 2^31) >> 32) shifted right by
     * requant_right with rounding, which the converter checked gives the double form's outputs
     * for every accumulator (helia_aot_ops_builtin.fully_connected.fc_integer_requant). */
    const int32_t *requant_multiplier;
    int32_t requant_left;
    int32_t requant_right;
} hk_fully_connected_params_t;

/* int8 activations and weights, int32 bias (may be NULL). On the Cortex-M55 the double
 * requantization is VCVTA alone (hk_fc_requant_bounded), exact when a value beyond int32 cannot
 * change an output: the output offset is not 0, or every |acc * scale| stays below 2^31 - 1
 * (fc_integer_requant.saturation_free; the converter calls hk_fully_connected_s8_generic for
 * the other layers). */
int32_t hk_fully_connected_s8(const hk_fully_connected_params_t *params, const int8_t *input,
                              const int8_t *filter, const int32_t *bias, int8_t *output);

/* int16 activations, int8 weights, int64 bias (may be NULL), 64-bit accumulation. */
int32_t hk_fully_connected_s16(const hk_fully_connected_params_t *params, const int16_t *input,
                               const int8_t *filter, const int64_t *bias, int16_t *output);

/* int16 activations, int8 weights, int32 bias (may be NULL), 32-bit accumulation: the path
 * LiteRT takes when the operator's quantized_bias_type is INT32. */
int32_t hk_fully_connected_s16_b32(const hk_fully_connected_params_t *params,
                                   const int16_t *input, const int8_t *filter,
                                   const int32_t *bias, int16_t *output);

/* float32 everything; bias may be NULL. */
int32_t hk_fully_connected_f32(const hk_fully_connected_params_t *params, const float *input,
                               const float *filter, const float *bias, float *output);

#endif /* HK_FULLY_CONNECTED_H */
