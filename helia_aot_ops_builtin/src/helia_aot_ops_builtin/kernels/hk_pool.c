/*
 * helia-aot kernel library: AVERAGE_POOL_2D and MAX_POOL_2D (see hk_pool.h).
 */
#include "hk_pool.h"

#include "hk_window.h"

static bool pool_params_ok(const hk_pool_params_t *p)
{
    return p != NULL && p->batches >= 0 && p->input_height >= 1 && p->input_width >= 1 &&
           p->channels >= 0 && p->output_height >= 0 && p->output_width >= 0 &&
           p->filter_height >= 1 && p->filter_width >= 1 && p->stride_height >= 1 &&
           p->stride_width >= 1;
}

/* The in-image window of output pixel (oy, ox). */
typedef struct {
    int32_t y0, y1, x0, x1;
} pool_window_t;

static pool_window_t pool_window(const hk_pool_params_t *p, int32_t oy, int32_t ox)
{
    pool_window_t w;
    hk_window_taps(oy * p->stride_height - p->pad_top, 1, p->filter_height, p->input_height,
                   &w.y0, &w.y1);
    hk_window_taps(ox * p->stride_width - p->pad_left, 1, p->filter_width, p->input_width,
                   &w.x0, &w.x1);
    w.y0 += oy * p->stride_height - p->pad_top;
    w.y1 += oy * p->stride_height - p->pad_top;
    w.x0 += ox * p->stride_width - p->pad_left;
    w.x1 += ox * p->stride_width - p->pad_left;
    return w;
}

/*
 * Integer average: the window sum divided by the tap count, rounding half away from zero as
 * (sum +- count / 2) / count with C's truncating division. Integer max: the largest value,
 * starting from the type's minimum. Both then clamp to the activation range.
 */
#define POOL_QUANT_KERNELS(AVG_NAME, MAX_NAME, T, LO, HI)                                      \
    int32_t AVG_NAME(const hk_pool_params_t *params, const T *input, T *output)                \
    {                                                                                          \
        if (!pool_params_ok(params) || params->act_min > params->act_max || input == NULL ||   \
            output == NULL) {                                                                  \
            return HK_STATUS_BAD_PARAM;                                                        \
        }                                                                                      \
        const hk_pool_params_t *p = params;                                                    \
        const size_t c = (size_t)p->channels;                                                  \
        const int32_t act_min = hk_max_i32(p->act_min, LO);                                    \
        const int32_t act_max = hk_min_i32(p->act_max, HI);                                    \
        T *out = output;                                                                       \
        for (int32_t b = 0; b < p->batches; ++b) {                                             \
            const T *image = input + (size_t)b * (size_t)p->input_height *                     \
                                         (size_t)p->input_width * c;                           \
            for (int32_t oy = 0; oy < p->output_height; ++oy) {                                \
                for (int32_t ox = 0; ox < p->output_width; ++ox) {                             \
                    const pool_window_t w = pool_window(p, oy, ox);                            \
                    const int32_t count = (w.y1 - w.y0) * (w.x1 - w.x0);                       \
                    if (count <= 0) {                                                          \
                        return HK_STATUS_POOL_EMPTY_WINDOW;                                    \
                    }                                                                          \
                    for (size_t ch = 0; ch < c; ++ch) {                                        \
                        int32_t sum = 0;                                                       \
                        for (int32_t iy = w.y0; iy < w.y1; ++iy) {                             \
                            for (int32_t ix = w.x0; ix < w.x1; ++ix) {                         \
                                sum += image[((size_t)iy * (size_t)p->input_width +            \
                                              (size_t)ix) * c + ch];                           \
                            }                                                                  \
                        }                                                                      \
                        const int32_t avg = sum > 0 ? (sum + count / 2) / count                \
                                                    : (sum - count / 2) / count;               \
                        *out++ = (T)hk_clamp_i32(avg, act_min, act_max);                       \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        return HK_STATUS_OK;                                                                   \
    }                                                                                          \
                                                                                               \
    int32_t MAX_NAME(const hk_pool_params_t *params, const T *input, T *output)                \
    {                                                                                          \
        if (!pool_params_ok(params) || params->act_min > params->act_max || input == NULL ||   \
            output == NULL) {                                                                  \
            return HK_STATUS_BAD_PARAM;                                                        \
        }                                                                                      \
        const hk_pool_params_t *p = params;                                                    \
        const size_t c = (size_t)p->channels;                                                  \
        const int32_t act_min = hk_max_i32(p->act_min, LO);                                    \
        const int32_t act_max = hk_min_i32(p->act_max, HI);                                    \
        T *out = output;                                                                       \
        for (int32_t b = 0; b < p->batches; ++b) {                                             \
            const T *image = input + (size_t)b * (size_t)p->input_height *                     \
                                         (size_t)p->input_width * c;                           \
            for (int32_t oy = 0; oy < p->output_height; ++oy) {                                \
                for (int32_t ox = 0; ox < p->output_width; ++ox) {                             \
                    const pool_window_t w = pool_window(p, oy, ox);                            \
                    for (size_t ch = 0; ch < c; ++ch) {                                        \
                        int32_t best = LO;                                                     \
                        for (int32_t iy = w.y0; iy < w.y1; ++iy) {                             \
                            for (int32_t ix = w.x0; ix < w.x1; ++ix) {                         \
                                best = hk_max_i32(best, image[((size_t)iy *                    \
                                                                   (size_t)p->input_width +    \
                                                               (size_t)ix) * c + ch]);         \
                            }                                                                  \
                        }                                                                      \
                        *out++ = (T)hk_clamp_i32(best, act_min, act_max);                      \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        return HK_STATUS_OK;                                                                   \
    }

/* Follows LiteRT reference_integer_ops::AveragePool and MaxPool (int8). */
POOL_QUANT_KERNELS(hk_avg_pool_s8, hk_max_pool_s8, int8_t, -128, 127)

/* Follows LiteRT reference_integer_ops::AveragePool and MaxPool (int16). */
POOL_QUANT_KERNELS(hk_avg_pool_s16, hk_max_pool_s16, int16_t, -32768, 32767)

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
