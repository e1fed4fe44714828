/*
 * helia-aot kernel library: AVERAGE_POOL_2D and MAX_POOL_2D (see hk_pool.h).
 *
 * The quantized kernels walk the output pixels and hand each pixel's in-image window to a
 * per-pixel routine (hk_pool_walk.h). Here they are the plain-C reference, for cores with
 * neither fast path; on the others hk_pool_mve.c (Helium: int8 and int16) or hk_pool_dsp.c (the
 * DSP extension: int8) defines the same four kernels, each with its whole walk and pixel
 * routines in one translation unit, and identical outputs. The float kernels are portable C on
 * every core.
 */
#include "hk_pool.h"

#include "hk_pool_walk.h"

#if !HK_HAVE_MVE && !HK_HAVE_DSP
static void pool_avg_pixel_s8(const int8_t *first, const pool_taps_t *t, int8_t *out)
{
    pool_avg_generic_s8(first, t, 0, out);
}

static void pool_max_pixel_s8(const int8_t *first, const pool_taps_t *t, int8_t *out)
{
    pool_max_generic_s8(first, t, 0, out);
}

/* Follows LiteRT reference_integer_ops::AveragePool (int8). */
POOL_QUANT_KERNEL(hk_avg_pool_s8, int8_t, -128, 127, pool_avg_pixel_s8, 1)

/* Follows LiteRT reference_integer_ops::MaxPool (int8). */
POOL_QUANT_KERNEL(hk_max_pool_s8, int8_t, -128, 127, pool_max_pixel_s8, 0)

static void pool_avg_pixel_s16(const int16_t *first, const pool_taps_t *t, int16_t *out)
{
    pool_avg_generic_s16(first, t, 0, out);
}

static void pool_max_pixel_s16(const int16_t *first, const pool_taps_t *t, int16_t *out)
{
    pool_max_generic_s16(first, t, 0, out);
}

/* Follows LiteRT reference_integer_ops::AveragePool (int16). */
POOL_QUANT_KERNEL(hk_avg_pool_s16, int16_t, -32768, 32767, pool_avg_pixel_s16, 1)

/* Follows LiteRT reference_integer_ops::MaxPool (int16). */
POOL_QUANT_KERNEL(hk_max_pool_s16, int16_t, -32768, 32767, pool_max_pixel_s16, 0)
#endif

/* Follows LiteRT reference_ops::AveragePool (float): row-major window sum over the tap count. */
int32_t hk_avg_pool_f32(const hk_pool_params_t *params, const float *input, float *output)
{
    if (!pool_params_ok(params) || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_pool_params_t *p = params;
    const size_t c = (size_t)p->channels;
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *image =
            input + (size_t)b * (size_t)p->input_height * (size_t)p->input_width * c;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                const pool_window_t w = pool_window(p, oy, ox);
                const int32_t count = (w.y1 - w.y0) * (w.x1 - w.x0);
                if (count <= 0) {
                    return HK_STATUS_POOL_EMPTY_WINDOW;
                }
                for (size_t ch = 0; ch < c; ++ch) {
                    float total = 0.0f;
                    for (int32_t iy = w.y0; iy < w.y1; ++iy) {
                        for (int32_t ix = w.x0; ix < w.x1; ++ix) {
                            total += image[((size_t)iy * (size_t)p->input_width + (size_t)ix) *
                                               c + ch];
                        }
                    }
                    *out++ = hk_clamp_f32(total / (float)count, p->act_min_f32,
                                          p->act_max_f32);
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::MaxPool (float): starts from the lowest finite float. */
int32_t hk_max_pool_f32(const hk_pool_params_t *params, const float *input, float *output)
{
    if (!pool_params_ok(params) || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_pool_params_t *p = params;
    const size_t c = (size_t)p->channels;
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *image =
            input + (size_t)b * (size_t)p->input_height * (size_t)p->input_width * c;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                const pool_window_t w = pool_window(p, oy, ox);
                for (size_t ch = 0; ch < c; ++ch) {
                    float best = -3.40282347e+38f; /* std::numeric_limits<float>::lowest() */
                    for (int32_t iy = w.y0; iy < w.y1; ++iy) {
                        for (int32_t ix = w.x0; ix < w.x1; ++ix) {
                            const float v =
                                image[((size_t)iy * (size_t)p->input_width + (size_t)ix) * c +
                                      ch];
                            /* std::max(best, v) keeps best unless best < v. */
                            best = best < v ? v : best;
                        }
                    }
                    *out++ = hk_clamp_f32(best, p->act_min_f32, p->act_max_f32);
                }
            }
        }
    }
    return HK_STATUS_OK;
}
