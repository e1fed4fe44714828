/*
 * helia-aot kernel library: float16 pooling (see hk_pool_f16.h).
 */
#include "hk_pool_f16.h"

/* The in-image window of one output pixel. */
typedef struct {
    int32_t y_start, y_end, x_start, x_end;
} pool_window_t;

HK_INLINE pool_window_t pool_window(const hk_pool_f16_params_t *p, int32_t oy, int32_t ox)
{
    const int32_t y0 = oy * p->stride_height - p->pad_top;
    const int32_t x0 = ox * p->stride_width - p->pad_left;
    pool_window_t w;
    w.y_start = hk_max_i32(0, y0);
    w.y_end = hk_min_i32(p->input_height, y0 + p->filter_height);
    w.x_start = hk_max_i32(0, x0);
    w.x_end = hk_min_i32(p->input_width, x0 + p->filter_width);
    return w;
}

HK_INLINE int32_t pool_f16(const hk_pool_f16_params_t *params, const uint16_t *input, uint16_t *output, bool average)
{
    if (params == NULL || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_pool_f16_params_t p = *params;
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    for (int32_t n = 0; n < p.batches; ++n) {
        for (int32_t oy = 0; oy < p.output_height; ++oy) {
            for (int32_t ox = 0; ox < p.output_width; ++ox) {
                const pool_window_t w = pool_window(&p, oy, ox);
                const int32_t count = (w.y_end - w.y_start) * (w.x_end - w.x_start);
                if (count <= 0) {
                    if (average) {
                        return HK_STATUS_POOL_F16_EMPTY_WINDOW;
                    }
                }
#if HK_HAVE_MVE_F16
                const hk_f16_t *first = in + ((n * p.input_height + w.y_start) * p.input_width + w.x_start) * p.channels;
                const int32_t rows = w.y_end - w.y_start;
                const int32_t cols = w.x_end - w.x_start;
                if (average) {
                    hk_avg_pool_f16_pixel_mve(&p, first, rows, cols, out);
                } else {
                    hk_max_pool_f16_pixel_mve(&p, first, rows, cols, out);
                }
                out += p.channels;
#else
                for (int32_t c = 0; c < p.channels; ++c) {
                    float acc = average ? 0.0f : -HUGE_VALF;
                    for (int32_t y = w.y_start; y < w.y_end; ++y) {
                        for (int32_t x = w.x_start; x < w.x_end; ++x) {
                            const float v = (float)in[((n * p.input_height + y) * p.input_width + x) * p.channels + c];
                            if (average) {
                                acc += v;
                            } else if (v > acc) {
                                acc = v;
                            }
                        }
                    }
                    if (average) {
                        acc /= (float)count;
                    }
                    *out++ = hk_f16_clamp(acc, p.act_min_f32, p.act_max_f32);
                }
#endif
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::AveragePool (float): the mean of the in-image taps, clamped. */
int32_t hk_avg_pool_f16(const hk_pool_f16_params_t *params, const uint16_t *input, uint16_t *output)
{
    return pool_f16(params, input, output, true);
}

/* Follows LiteRT reference_ops::MaxPool (float): the largest in-image tap, clamped. */
int32_t hk_max_pool_f16(const hk_pool_f16_params_t *params, const uint16_t *input, uint16_t *output)
{
    return pool_f16(params, input, output, false);
}
