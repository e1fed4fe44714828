/*
 * helia-aot kernel library: RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR on NHWC tensors.
 *
 * Source coordinates are computed here with LiteRT's own float (nearest, float bilinear) or
 * 10-bit fixed-point (integer bilinear) arithmetic, so which source pixel feeds each output
 * pixel, and the interpolation weights, are the reference's to the bit. Every source index is
 * also clamped into the input, so no geometry can make a kernel read outside it.
 */
#ifndef HK_RESIZE_H
#define HK_RESIZE_H

#include "hk_common.h"

typedef struct {
    int32_t batches;
    int32_t input_height;
    int32_t input_width;
    int32_t depth;               /* channels, shared by input and output */
    int32_t output_height;
    int32_t output_width;
    int32_t elem_size;           /* bytes per element (nearest neighbour only) */
    bool align_corners;
    bool half_pixel_centers;
} hk_resize_params_t;

/* Any element type: copies whole depth vectors of elem_size-byte elements. */
int32_t hk_resize_nearest(const hk_resize_params_t *params, const void *input, void *output);

int32_t hk_resize_bilinear_f32(const hk_resize_params_t *params, const float *input,
                               float *output);
int32_t hk_resize_bilinear_s8(const hk_resize_params_t *params, const int8_t *input,
                              int8_t *output);
int32_t hk_resize_bilinear_s16(const hk_resize_params_t *params, const int16_t *input,
                               int16_t *output);

#endif /* HK_RESIZE_H */
