/*
 * helia-aot kernel library: QuantizeLinear and QLinearSoftmax as onnxruntime computes them (see
 * hk_onnx_qlinear.h). The scalar loops divide by the output scale (on a scalar FPU a division
 * costs less than hk_onnx_quantize_by's multiply and test); with Helium's float extension a
 * float input's QuantizeLinear and a batch normalization run four a vector, multiplying by the
 * reciprocal wherever that provably gives the division's integer (hk_onnx_requant_mve.c). The
 * softmax runs once per model on a handful of logits.
 */
#include "hk_onnx_qlinear.h"
#include "hk_onnx_requant_paths.h"

#if defined(__GNUC__) && !defined(__clang__)
/* (q - zp) * scale / output_scale: two roundings, as onnxruntime, never an FMA. */
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

int32_t hk_onnx_quantize_f32_s8(const hk_onnx_quantize_params_t *p, const float *input,
                                int8_t *output)
{
    const float scale = p->output_scale;
    int32_t i = 0;
#if HK_ONNX_MVE_F
    if (scale >= 0x1p-100f && scale <= 0x1p100f) {
        hk_onnx_quantize_run_mve(input, p->size, scale, 1.0f / scale, p->output_zero_point, output);
        i = p->size;
    }
#endif
    for (; i < p->size; ++i) {
        output[i] = hk_onnx_quantize_linear(input[i] / scale, p->output_zero_point);
    }
    return 0;
}

int32_t hk_onnx_requantize_s8(const hk_onnx_quantize_params_t *p, const int8_t *input,
                              int8_t *output)
{
    for (int32_t i = 0; i < p->size; ++i) {
        const float real = (float)((int32_t)input[i] - p->input_zero_point) * p->input_scale;
        output[i] = hk_onnx_quantize_linear(real / p->output_scale, p->output_zero_point);
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

/* One run of n elements (hk_onnx_bn_run_t), four a vector where the converter found it exact. */
static void onnx_batch_norm_run(const hk_onnx_bn_run_t *r, int32_t vector, const int8_t *x, int32_t n,
                                int8_t *out)
{
    int32_t i = 0;
#if HK_ONNX_MVE_F
    if (vector != 0) {
        hk_onnx_batch_norm_run_mve(r, x, n, out);
        i = n;
    }
#else
    (void)vector;
#endif
    for (; i < n; ++i) {
        out[i] = hk_onnx_quantize_linear(hk_onnx_bn_value(r, x[i], i * r->step) / r->y_scale, r->y_zero_point);
    }
}

int32_t hk_onnx_batch_norm_s8(const hk_onnx_batch_norm_params_t *p, const float *mean,
                              const float *multiplier, const float *offset, const int8_t *input,
                              int8_t *output)
{
    hk_onnx_bn_run_t r = {mean, multiplier, offset, 1, p->input_zero_point, p->input_scale,
                          p->output_scale, 1.0f / p->output_scale, p->output_zero_point};
    int64_t i = 0;
    for (int32_t o = 0; o < p->outer; ++o) {
        if (p->inner == 1) { /* a dense layer's outputs: one run across the channels */
            r.mean = mean, r.multiplier = multiplier, r.offset = offset, r.step = 1;
            onnx_batch_norm_run(&r, p->vector, input + i, p->channels, output + i);
            i += p->channels;
            continue;
        }
        for (int32_t c = 0; c < p->channels; ++c, i += p->inner) {
            r.mean = mean + c, r.multiplier = multiplier + c, r.offset = offset + c, r.step = 0;
            onnx_batch_norm_run(&r, p->vector, input + i, p->inner, output + i);
        }
    }
    return 0;
}

int32_t hk_onnx_batch_norm_affine_s8(const hk_onnx_batch_norm_affine_params_t *p, const int32_t *scale,
                                     const int32_t *bias, const int8_t *input, int8_t *output)
{
    const int32_t shift = p->shift;
    int64_t i = 0;
    for (int32_t o = 0; o < p->outer; ++o) {
        int32_t c = 0;
#if HK_HAVE_MVE
        if (p->inner == 1) { /* a dense layer's outputs: four channels a vector */
            hk_onnx_affine_run_mve(scale, bias, shift, input + i, p->channels, output + i);
            i += p->channels;
            continue;
        }
#endif
        for (; c < p->channels; ++c) {
            const int32_t a = scale[c], b = bias[c];
            for (int32_t k = 0; k < p->inner; ++k, ++i) {
                /* >> of a negative int32 shifts arithmetically (floor) on every compiler here. */
                output[i] = (int8_t)hk_clamp_i32((a * (int32_t)input[i] + b) >> shift, -128, 127);
            }
        }
    }
    return 0;
}
