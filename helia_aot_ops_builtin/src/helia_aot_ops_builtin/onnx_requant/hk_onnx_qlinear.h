/*
 * helia-aot kernel library: QuantizeLinear and QLinearSoftmax as onnxruntime computes them.
 *
 * In a model that asks for onnxruntime's requantization (the ONNX front end's QDQ models),
 * QUANTIZE and int8 SOFTMAX run these kernels instead of LiteRT's:
 * - QuantizeLinear divides by the output scale in float32 and rounds half to even (LiteRT's
 *   QUANTIZE multiplies and rounds half away from zero); a NaN quantizes to the range's low end,
 *   as onnxruntime's vector loop gives it. An int8 input is first dequantized in float32
 *   ((q - zp) * scale), as the DequantizeLinear before the QuantizeLinear computes it.
 * - QLinearSoftmax (what onnxruntime's default session fuses DequantizeLinear -> Softmax ->
 *   QuantizeLinear into) reads exp() from a 256-entry float32 table built at conversion from the
 *   input scale and the row length, indexed by x - max(row) + 127 as a byte; it sums the row's
 *   entries in order in float32, and writes rne(entry / sum * floor(1 / y_scale)) + y_zp,
 *   saturated to int8 (divided first: the product cannot overflow).
 * - BatchNormalization between a DequantizeLinear and a QuantizeLinear (onnxruntime runs it in
 *   float32: no integer kernel fuses it) per element of channel c: ((x - zp) * scale - mean[c])
 *   * multiplier[c] + offset[c] in float32, each step rounded (no FMA), then QuantizeLinear; the
 *   int8 input and output need none of the float32 tensors the unfused nodes would. Where, per
 *   channel, one integer line gives the same output for every one of the 256 int8 inputs (the
 *   converter searches for it and checks all of them), the batch normalization runs as
 *   clamp((scale[c] * x + bias[c]) >> shift, -128, 127) instead: the same bytes, a multiply,
 *   an add and a shift per element.
 * All may run in place (each element is read before its output is written).
 */
#ifndef HK_ONNX_QLINEAR_H
#define HK_ONNX_QLINEAR_H

#include "hk_onnx_requant.h"

typedef struct {
    int32_t size;
    float input_scale; /* requantization only */
    int32_t input_zero_point;
    float output_scale;
    int32_t output_zero_point;
} hk_onnx_quantize_params_t;

typedef struct {
    int32_t outer_size;
    int32_t depth;
    float output_multiplier; /* floor(1.0f / output scale) */
    int32_t output_zero_point;
    const float *table;      /* 256 entries, indexed by (uint8_t)(x - row max + 127) */
} hk_onnx_softmax_params_t;

typedef struct {
    int32_t outer;    /* product of the dimensions before the channel axis */
    int32_t channels; /* the channel axis */
    int32_t inner;    /* product of the dimensions after it */
    float input_scale;
    int32_t input_zero_point;
    float output_scale;
    int32_t output_zero_point;
    int32_t vector; /* 1: no float32 step of any int8 input meets a subnormal (checked at
                       conversion), so Helium's vectors, which flush them, give the same bytes */
} hk_onnx_batch_norm_params_t;

typedef struct {
    int32_t outer;    /* product of the dimensions before the channel axis */
    int32_t channels; /* the channel axis */
    int32_t inner;    /* product of the dimensions after it */
    int32_t shift;    /* s: output clamp((scale[c] * x + bias[c]) >> s, -128, 127) */
} hk_onnx_batch_norm_affine_params_t;

int32_t hk_onnx_quantize_f32_s8(const hk_onnx_quantize_params_t *p, const float *input,
                                int8_t *output);
int32_t hk_onnx_requantize_s8(const hk_onnx_quantize_params_t *p, const int8_t *input,
                              int8_t *output);
int32_t hk_onnx_softmax_s8(const hk_onnx_softmax_params_t *p, const int8_t *input, int8_t *output);
int32_t hk_onnx_batch_norm_s8(const hk_onnx_batch_norm_params_t *p, const float *mean,
                              const float *multiplier, const float *offset, const int8_t *input,
                              int8_t *output);
int32_t hk_onnx_batch_norm_affine_s8(const hk_onnx_batch_norm_affine_params_t *p, const int32_t *scale,
                                     const int32_t *bias, const int8_t *input, int8_t *output);

#endif /* HK_ONNX_QLINEAR_H */
