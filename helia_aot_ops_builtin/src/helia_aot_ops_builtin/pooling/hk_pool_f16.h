/*
 * helia-aot kernel library: float16 AVERAGE_POOL_2D and MAX_POOL_2D.
 *
 * NHWC, explicit padding; windows count only their in-image taps, as LiteRT's reference does.
 * The average sums in float (portable) or in eight float16 lanes (Helium, vaddq_f16) and divides
 * by the tap count; the maximum is exact on every path. Both clamp to the fused activation and
 * store float16.
 */
#ifndef HK_POOL_F16_H
#define HK_POOL_F16_H

#include "hk_f16.h"
#include "hk_shapes.h"

/* Returned by the average kernel when a window has no in-image tap (LiteRT fails too). */
#define HK_STATUS_POOL_F16_EMPTY_WINDOW 7

typedef struct {
    HK_POOL_SHAPE_FIELDS
    float act_min_f32;
    float act_max_f32;
} hk_pool_f16_params_t;

int32_t hk_avg_pool_f16(const hk_pool_f16_params_t *params, const uint16_t *input, uint16_t *output);
int32_t hk_max_pool_f16(const hk_pool_f16_params_t *params, const uint16_t *input, uint16_t *output);

#if HK_HAVE_MVE_F16
/* Internal to the family (hk_pool_f16_mve.c): one output pixel on Helium, eight channels per
 * vector with the tail predicated, over the `rows` x `cols` in-image taps from `first` (pixels
 * `channels` apart, rows `input_width` pixels apart); the average's tap count is rows * cols. */
void hk_avg_pool_f16_pixel_mve(const hk_pool_f16_params_t *p, const hk_f16_t *first, int32_t rows,
                               int32_t cols, hk_f16_t *out);
void hk_max_pool_f16_pixel_mve(const hk_pool_f16_params_t *p, const hk_f16_t *first, int32_t rows,
                               int32_t cols, hk_f16_t *out);
#endif

#endif /* HK_POOL_F16_H */
