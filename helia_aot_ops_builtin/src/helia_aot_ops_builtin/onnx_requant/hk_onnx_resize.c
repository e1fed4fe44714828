/*
 * helia-aot kernel library: ONNX's bilinear Resize as onnxruntime computes it (see
 * hk_onnx_resize.h). One portable loop for every core: the four products per output are what
 * fixes the result, and a resize sits once or twice in a model.
 */
#include "hk_onnx_resize.h"

#if defined(__GNUC__) && !defined(__clang__)
/* Each product and sum rounded on its own, as onnxruntime's loop: never an FMA. */
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* The weighted sum of one output's four source values, onnxruntime's order. */
static float onnx_bilinear(float x11, float x21, float x12, float x22, float dx1, float dx2,
                           float dy1, float dy2)
{
    const float w11 = dx2 * dy2;
    const float w21 = dx1 * dy2;
    const float w12 = dx2 * dy1;
    const float w22 = dx1 * dy1;
    float sum = w11 * x11;
    sum = sum + w21 * x21;
    sum = sum + w12 * x12;
    return sum + w22 * x22;
}

int32_t hk_onnx_resize_bilinear_f32(const hk_onnx_resize_params_t *p, const float *input,
                                    float *output)
{
    const int32_t c_n = p->channels;
    const int32_t *cols = p->index + 2 * p->output_height;
    const float *dcols = p->distance + 2 * p->output_height;
    for (int32_t n = 0; n < p->batches; ++n) {
        const float *image = input + (int64_t)n * p->input_height * p->input_width * c_n;
        for (int32_t y = 0; y < p->output_height; ++y) {
            const float *row1 = image + (int64_t)p->index[2 * y] * p->input_width * c_n;
            const float *row2 = image + (int64_t)p->index[2 * y + 1] * p->input_width * c_n;
            const float dy1 = p->distance[2 * y], dy2 = p->distance[2 * y + 1];
            for (int32_t x = 0; x < p->output_width; ++x) {
                const int32_t x1 = cols[2 * x] * c_n, x2 = cols[2 * x + 1] * c_n;
                const float dx1 = dcols[2 * x], dx2 = dcols[2 * x + 1];
                for (int32_t c = 0; c < c_n; ++c) {
                    *output++ = onnx_bilinear(row1[x1 + c], row1[x2 + c], row2[x1 + c], row2[x2 + c],
                                              dx1, dx2, dy1, dy2);
                }
            }
        }
    }
    return 0;
}

int32_t hk_onnx_resize_bilinear_s8(const hk_onnx_resize_params_t *p, const int8_t *input,
                                   int8_t *output)
{
    const int32_t c_n = p->channels;
    const int32_t *cols = p->index + 2 * p->output_height;
    const float *dcols = p->distance + 2 * p->output_height;
    const float scale = p->input_scale;
    const int32_t zp = p->input_zero_point;
    for (int32_t n = 0; n < p->batches; ++n) {
        const int8_t *image = input + (int64_t)n * p->input_height * p->input_width * c_n;
        for (int32_t y = 0; y < p->output_height; ++y) {
            const int8_t *row1 = image + (int64_t)p->index[2 * y] * p->input_width * c_n;
            const int8_t *row2 = image + (int64_t)p->index[2 * y + 1] * p->input_width * c_n;
            const float dy1 = p->distance[2 * y], dy2 = p->distance[2 * y + 1];
            for (int32_t x = 0; x < p->output_width; ++x) {
                const int32_t x1 = cols[2 * x] * c_n, x2 = cols[2 * x + 1] * c_n;
                const float dx1 = dcols[2 * x], dx2 = dcols[2 * x + 1];
                for (int32_t c = 0; c < c_n; ++c) {
                    const float v = onnx_bilinear((float)((int32_t)row1[x1 + c] - zp) * scale,
                                                  (float)((int32_t)row1[x2 + c] - zp) * scale,
                                                  (float)((int32_t)row2[x1 + c] - zp) * scale,
                                                  (float)((int32_t)row2[x2 + c] - zp) * scale,
                                                  dx1, dx2, dy1, dy2);
                    const float q = v / p->output_scale;
                    *output++ = (int8_t)hk_onnx_quantize(q, p->output_zero_point, -128, 127);
                }
            }
        }
    }
    return 0;
}
