/*
 * helia-aot kernel library: QuantizeLinear and QLinearSoftmax as onnxruntime computes them (see
 * hk_onnx_qlinear.h). One portable loop serves every core: the divisions have no vector form on
 * Helium, the softmax runs once per model on a handful of logits, and a batch normalization
 * left between quantized nodes is one pass over a dense layer's outputs.
 */
#include "hk_onnx_qlinear.h"

#if defined(__GNUC__) && !defined(__clang__)
/* (q - zp) * scale / output_scale: two roundings, as onnxruntime, never an FMA. */
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* QuantizeLinear of an already divided value: NaN to the low end, else clamp and round. */
static int8_t onnx_quantize_value(float v, int32_t zero_point)
{
    const float lo = (float)(-128 - zero_point);
    if (!(v >= lo)) { /* also NaN */
        return -128;
    }
    return (int8_t)hk_onnx_quantize(v, zero_point, -128, 127);
}

int32_t hk_onnx_quantize_f32_s8(const hk_onnx_quantize_params_t *p, const float *input,
                                int8_t *output)
{
    for (int32_t i = 0; i < p->size; ++i) {
        output[i] = onnx_quantize_value(input[i] / p->output_scale, p->output_zero_point);
    }
    return 0;
}

int32_t hk_onnx_requantize_s8(const hk_onnx_quantize_params_t *p, const int8_t *input,
                              int8_t *output)
{
    for (int32_t i = 0; i < p->size; ++i) {
        const float real = (float)((int32_t)input[i] - p->input_zero_point) * p->input_scale;
        output[i] = onnx_quantize_value(real / p->output_scale, p->output_zero_point);
    }
    return 0;
}

int32_t hk_onnx_softmax_s8(const hk_onnx_softmax_params_t *p, const int8_t *input, int8_t *output)
{
    const int32_t depth = p->depth;
    for (int32_t row = 0; row < p->outer_size; ++row) {
        const int8_t *x = input + (int64_t)row * depth;
        int8_t *y = output + (int64_t)row * depth;
        int32_t max = x[0];
        for (int32_t i = 1; i < depth; ++i) {
            max = x[i] > max ? x[i] : max;
        }
        const int32_t adjustment = 127 - max; /* the row maximum reads entry 127 */
        float sum = 0.0f;
        for (int32_t i = 0; i < depth; ++i) {
            sum += p->table[(uint8_t)(x[i] + adjustment)];
        }
        for (int32_t i = 0; i < depth; ++i) {
            const float ratio = (p->table[(uint8_t)(x[i] + adjustment)] / sum) * p->output_multiplier;
            y[i] = (int8_t)hk_onnx_quantize(ratio, p->output_zero_point, -128, 127);
        }
    }
    return 0;
}

int32_t hk_onnx_batch_norm_s8(const hk_onnx_batch_norm_params_t *p, const float *mean,
                              const float *multiplier, const float *offset, const int8_t *input,
                              int8_t *output)
{
    int64_t i = 0;
    for (int32_t o = 0; o < p->outer; ++o) {
        for (int32_t c = 0; c < p->channels; ++c) {
            for (int32_t k = 0; k < p->inner; ++k, ++i) {
                float v = (float)((int32_t)input[i] - p->input_zero_point) * p->input_scale;
                v = (v - mean[c]) * multiplier[c];
                v = v + offset[c];
                output[i] = onnx_quantize_value(v / p->output_scale, p->output_zero_point);
            }
        }
    }
    return 0;
}
