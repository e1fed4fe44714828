/*
 * helia-aot kernel library: ONNX's bilinear Resize as onnxruntime computes it.
 *
 * onnxruntime's CPU Resize (mode linear, 4-D input, the outer two scales 1) finds, per output
 * row and column, the two source rows (columns) and their distances dy1 / dy2 (dx1 / dx2) in
 * float32; the converter computes those tables with the same float32 steps for the node's
 * coordinate transformation mode (half_pixel, pytorch_half_pixel, asymmetric, align_corners).
 * Each output is then, in float32 and in this order,
 *     (dx2*dy2) * x11 + (dx1*dy2) * x21 + (dx2*dy1) * x12 + (dx1*dy1) * x22
 * (each weight a product of two table entries, each step rounded: no FMA). LiteRT's bilinear
 * kernel computes the coordinates and weights otherwise, which moves some results by an ulp;
 * after quantization those land a step apart where the value is near a half step.
 * The int8 kernel is onnxruntime's DequantizeLinear -> Resize -> QuantizeLinear: each source
 * value dequantized in float32 ((q - zp) * scale), the float result divided by the output scale
 * and rounded half to even; no float32 tensor is needed around it.
 * Tensors are NHWC. The tables: for each output row y, rows[2y], rows[2y+1] (source rows) and
 * dy[2y], dy[2y+1] (dy1, dy2); then the same for the columns, after the rows.
 */
#ifndef HK_ONNX_RESIZE_H
#define HK_ONNX_RESIZE_H

#include "hk_onnx_requant.h"

typedef struct {
    int32_t batches;
    int32_t input_height;
    int32_t input_width;
    int32_t output_height;
    int32_t output_width;
    int32_t channels;
    float input_scale; /* int8 only */
    int32_t input_zero_point;
    float output_scale;
    int32_t output_zero_point;
    const int32_t *index;  /* 2 * output_height source rows, then 2 * output_width source columns */
    const float *distance; /* dy1, dy2 per output row, then dx1, dx2 per output column */
} hk_onnx_resize_params_t;

int32_t hk_onnx_resize_bilinear_f32(const hk_onnx_resize_params_t *p, const float *input,
                                    float *output);
int32_t hk_onnx_resize_bilinear_s8(const hk_onnx_resize_params_t *p, const int8_t *input,
                                   int8_t *output);

#endif /* HK_ONNX_RESIZE_H */
