/*
 * helia-aot kernel library: RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (see hk_resize.h).
 */
#include "hk_resize.h"

#include <math.h>

static bool resize_valid(const hk_resize_params_t *params, const void *input,
                         const void *output)
{
    return params != NULL && params->batches >= 0 && params->depth >= 0 &&
           params->input_height >= 1 && params->input_width >= 1 &&
           params->output_height >= 1 && params->output_width >= 1 && input != NULL &&
           output != NULL;
}

/* Follows LiteRT reference_ops::GetNearestNeighbor, float arithmetic included. */
static int32_t resize_nearest_source(int32_t value, int32_t input_size, int32_t output_size,
                                     bool align_corners, bool half_pixel_centers)
{
    const float scale = (align_corners && output_size > 1)
                            ? (float)(input_size - 1) / (float)(output_size - 1)
                            : (float)input_size / (float)output_size;
    const float offset = half_pixel_centers ? 0.5f : 0.0f;
    const float scaled = ((float)value + offset) * scale;
    const int32_t index = align_corners ? (int32_t)roundf(scaled) : (int32_t)floorf(scaled);
    return hk_clamp_i32(index, 0, input_size - 1);
}

/* Follows LiteRT reference_ops::ResizeNearestNeighbor (any element size). */
int32_t hk_resize_nearest(const hk_resize_params_t *params, const void *input, void *output)
{
    if (!resize_valid(params, input, output) || params->elem_size < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t pixel_bytes = (size_t)params->depth * (size_t)params->elem_size;
    const size_t row_bytes = (size_t)params->input_width * pixel_bytes;
    const size_t image_bytes = (size_t)params->input_height * row_bytes;
    const uint8_t *in = (const uint8_t *)input;
    uint8_t *out = (uint8_t *)output;
    for (int32_t b = 0; b < params->batches; ++b) {
        const uint8_t *image = in + (size_t)b * image_bytes;
        for (int32_t y = 0; y < params->output_height; ++y) {
            const int32_t in_y =
                resize_nearest_source(y, params->input_height, params->output_height,
                                      params->align_corners, params->half_pixel_centers);
            const uint8_t *row = image + (size_t)in_y * row_bytes;
            for (int32_t x = 0; x < params->output_width; ++x) {
                const int32_t in_x =
                    resize_nearest_source(x, params->input_width, params->output_width,
                                          params->align_corners, params->half_pixel_centers);
                memcpy(out, row + (size_t)in_x * pixel_bytes, pixel_bytes);
                out += pixel_bytes;
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::ComputeInterpolationValues (float). */
static void resize_bilinear_float_source(int32_t value, float scale, bool half_pixel_centers,
                                         int32_t input_size, float *scaled, int32_t *lower,
                                         int32_t *upper)
{
    if (half_pixel_centers) {
        *scaled = ((float)value + 0.5f) * scale - 0.5f;
    } else {
        *scaled = (float)value * scale;
    }
    *lower = hk_clamp_i32((int32_t)floorf(*scaled), 0, input_size - 1);
    *upper = hk_clamp_i32((int32_t)ceilf(*scaled), 0, input_size - 1);
}

static float resize_bilinear_float_scale(int32_t input_size, int32_t output_size,
                                         bool align_corners)
{
    if (align_corners && output_size > 1) {
        return (float)(input_size - 1) / (float)(output_size - 1);
    }
    return (float)input_size / (float)output_size;
}

/* Follows LiteRT reference_ops::ResizeBilinear (float32). */
int32_t hk_resize_bilinear_f32(const hk_resize_params_t *params, const float *input,
                               float *output)
{
    if (!resize_valid(params, input, output)) {
        return HK_STATUS_BAD_PARAM;
    }
    const float height_scale = resize_bilinear_float_scale(
        params->input_height, params->output_height, params->align_corners);
    const float width_scale = resize_bilinear_float_scale(
        params->input_width, params->output_width, params->align_corners);
    const size_t depth = (size_t)params->depth;
    const size_t row = (size_t)params->input_width * depth;
    const size_t image = (size_t)params->input_height * row;
    for (int32_t b = 0; b < params->batches; ++b) {
        const float *in = input + (size_t)b * image;
        for (int32_t y = 0; y < params->output_height; ++y) {
            float input_y;
            int32_t y0;
            int32_t y1;
            resize_bilinear_float_source(y, height_scale, params->half_pixel_centers,
                                         params->input_height, &input_y, &y0, &y1);
            const float dy = input_y - (float)y0;
            const float wy = 1.0f - dy;
            for (int32_t x = 0; x < params->output_width; ++x) {
                float input_x;
                int32_t x0;
                int32_t x1;
                resize_bilinear_float_source(x, width_scale, params->half_pixel_centers,
                                             params->input_width, &input_x, &x0, &x1);
                const float dx = input_x - (float)x0;
                const float wx = 1.0f - dx;
                const float *p00 = in + (size_t)y0 * row + (size_t)x0 * depth;
                const float *p10 = in + (size_t)y1 * row + (size_t)x0 * depth;
                const float *p01 = in + (size_t)y0 * row + (size_t)x1 * depth;
                const float *p11 = in + (size_t)y1 * row + (size_t)x1 * depth;
                for (size_t c = 0; c < depth; ++c) {
                    /* Same products, in the same order, as the reference expression. */
                    *output++ = p00[c] * wy * wx + p10[c] * dy * wx + p01[c] * wy * dx +
                                p11[c] * dy * dx;
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::ComputeInterpolationValuesInteger (10 fractional bits). */
static void resize_bilinear_int_source(int32_t value, int32_t scale_10, bool half_pixel_centers,
                                       int32_t input_size, int32_t *scaled, int32_t *lower,
                                       int32_t *upper)
{
    if (half_pixel_centers) {
        *scaled = value * scale_10 + scale_10 / 2 - (1 << 9);
    } else {
        *scaled = value * scale_10;
    }
    /* C division truncates toward zero, as the reference's does. */
    *lower = hk_clamp_i32(*scaled / (1 << 10), 0, input_size - 1);
    *upper = hk_clamp_i32((*scaled + (1 << 10) - 1) / (1 << 10), 0, input_size - 1);
}

static int32_t resize_bilinear_int_scale(int32_t input_size, int32_t output_size,
                                         bool align_corners)
{
    if (align_corners && output_size > 1) {
        return ((1 << 10) * (input_size - 1) + (output_size - 1) / 2) / (output_size - 1);
    }
    return ((1 << 10) * input_size + output_size / 2) / output_size;
}

/* Weighted sum of the four neighbours in 20 fractional bits, rounded half away from zero. */
static int32_t resize_bilinear_int_blend(int32_t v00, int32_t v10, int32_t v01, int32_t v11,
                                         int32_t fy, int32_t fx)
{
    const int64_t one = 1 << 10;
    const int64_t sum = (int64_t)v00 * (one - fy) * (one - fx) + (int64_t)v10 * fy * (one - fx) +
                        (int64_t)v01 * (one - fy) * fx + (int64_t)v11 * fy * fx;
    const int64_t round = sum > 0 ? ((int64_t)1 << 19) : -((int64_t)1 << 19);
    const int64_t result = (sum + round) / ((int64_t)1 << 20);
    return (int32_t)(result > INT32_MAX ? INT32_MAX : (result < INT32_MIN ? INT32_MIN : result));
}

/*
 * The integer bilinear kernels, which differ only in the element type (`wide`: int16, else
 * int8). `wide` is a constant at every call and the body is always inlined, so each kernel
 * keeps its own loop.
 */
HK_INLINE int32_t resize_bilinear_int(const hk_resize_params_t *params, const void *input,
                                      void *output, bool wide)
{
    if (!resize_valid(params, input, output)) {
        return HK_STATUS_BAD_PARAM;
    }
    const int8_t *input8 = (const int8_t *)input;
    const int16_t *input16 = (const int16_t *)input;
    int8_t *out8 = (int8_t *)output;
    int16_t *out16 = (int16_t *)output;
    const int32_t height_scale = resize_bilinear_int_scale(
        params->input_height, params->output_height, params->align_corners);
    const int32_t width_scale =
        resize_bilinear_int_scale(params->input_width, params->output_width, params->align_corners);
    const size_t depth = (size_t)params->depth;
    const size_t row = (size_t)params->input_width * depth;
    const size_t image = (size_t)params->input_height * row;
    for (int32_t b = 0; b < params->batches; ++b) {
        const size_t in = (size_t)b * image;
        for (int32_t y = 0; y < params->output_height; ++y) {
            int32_t input_y;
            int32_t y0;
            int32_t y1;
            resize_bilinear_int_source(y, height_scale, params->half_pixel_centers,
                                       params->input_height, &input_y, &y0, &y1);
            const int32_t fy = input_y - (1 << 10) * y0;
            for (int32_t x = 0; x < params->output_width; ++x) {
                int32_t input_x;
                int32_t x0;
                int32_t x1;
                resize_bilinear_int_source(x, width_scale, params->half_pixel_centers,
                                           params->input_width, &input_x, &x0, &x1);
                const int32_t fx = input_x - (1 << 10) * x0;
                const size_t p00 = in + (size_t)y0 * row + (size_t)x0 * depth;
                const size_t p10 = in + (size_t)y1 * row + (size_t)x0 * depth;
                const size_t p01 = in + (size_t)y0 * row + (size_t)x1 * depth;
                const size_t p11 = in + (size_t)y1 * row + (size_t)x1 * depth;
                for (size_t c = 0; c < depth; ++c) {
                    if (wide) {
                        *out16++ = hk_sat_s16(resize_bilinear_int_blend(
                            input16[p00 + c], input16[p10 + c], input16[p01 + c],
                            input16[p11 + c], fy, fx));
                    } else {
                        *out8++ = hk_sat_s8(resize_bilinear_int_blend(
                            input8[p00 + c], input8[p10 + c], input8[p01 + c], input8[p11 + c],
                            fy, fx));
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::ResizeBilinearInteger (int8, the kReference path). */
int32_t hk_resize_bilinear_s8(const hk_resize_params_t *params, const int8_t *input,
                              int8_t *output)
{
    return resize_bilinear_int(params, input, output, false);
}

/* Follows LiteRT reference_ops::ResizeBilinearInteger (int16). */
int32_t hk_resize_bilinear_s16(const hk_resize_params_t *params, const int16_t *input,
                               int16_t *output)
{
    return resize_bilinear_int(params, input, output, true);
}
