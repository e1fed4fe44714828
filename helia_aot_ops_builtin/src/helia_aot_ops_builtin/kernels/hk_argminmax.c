/*
 * helia-aot kernel library: ARG_MAX / ARG_MIN (see hk_argminmax.h).
 */
#include "hk_argminmax.h"

#include <math.h>

static bool argminmax_valid_params(const hk_argminmax_params_t *params, const void *input,
                                   const void *output)
{
    return params != NULL && params->outer_size >= 0 && params->inner_size >= 0 &&
           params->axis_size >= 1 && input != NULL && output != NULL;
}

static void argminmax_store_index(void *output, size_t position, int32_t index,
                                  bool output_int64)
{
    if (output_int64) {
        ((int64_t *)output)[position] = index;
    } else {
        ((int32_t *)output)[position] = index;
    }
}

/* Integers: a strictly better value replaces the running best, so ties keep the first index. */
#define HK_ARGMINMAX_BETTER_INT(value, best, is_max)                                           \
    ((is_max) ? (value) > (best) : (value) < (best))

/* Floats: a NaN never becomes the best and any number replaces a NaN best, so an all-NaN run
 * yields index 0 (LiteRT's NaN-aware comparator, TensorFlow's semantics). */
#define HK_ARGMINMAX_BETTER_FLOAT(value, best, is_max)                                         \
    (!isnan(value) && (isnan(best) || HK_ARGMINMAX_BETTER_INT(value, best, is_max)))

/* One body per element type, differing only in the comparison. */
#define HK_ARGMINMAX_DEFINE(suffix, type, better)                                              \
    int32_t hk_argminmax_##suffix(const hk_argminmax_params_t *params, const type *input,      \
                                  void *output)                                                \
    {                                                                                          \
        if (!argminmax_valid_params(params, input, output)) {                                  \
            return HK_STATUS_BAD_PARAM;                                                        \
        }                                                                                      \
        const size_t inner = (size_t)params->inner_size;                                       \
        const size_t axis = (size_t)params->axis_size;                                         \
        for (size_t outer = 0; outer < (size_t)params->outer_size; ++outer) {                  \
            const type *block = input + outer * axis * inner;                                  \
            for (size_t j = 0; j < inner; ++j) {                                               \
                type best = block[j];                                                          \
                int32_t best_index = 0;                                                        \
                for (size_t i = 1; i < axis; ++i) {                                            \
                    const type value = block[i * inner + j];                                   \
                    if (better(value, best, params->is_arg_max)) {                             \
                        best = value;                                                          \
                        best_index = (int32_t)i;                                               \
                    }                                                                          \
                }                                                                              \
                argminmax_store_index(output, outer * inner + j, best_index,                   \
                                      params->output_int64);                                   \
            }                                                                                  \
        }                                                                                      \
        return HK_STATUS_OK;                                                                   \
    }

/* Follows LiteRT reference_ops::ArgMinMax (int8). */
HK_ARGMINMAX_DEFINE(s8, int8_t, HK_ARGMINMAX_BETTER_INT)
/* Follows LiteRT reference_ops::ArgMinMax (uint8). */
HK_ARGMINMAX_DEFINE(u8, uint8_t, HK_ARGMINMAX_BETTER_INT)
/* Follows LiteRT reference_ops::ArgMinMax (int16). */
HK_ARGMINMAX_DEFINE(s16, int16_t, HK_ARGMINMAX_BETTER_INT)
/* Follows LiteRT reference_ops::ArgMinMax (int32). */
HK_ARGMINMAX_DEFINE(s32, int32_t, HK_ARGMINMAX_BETTER_INT)
/* Follows LiteRT reference_ops::ArgMinMax (float32, NaN-aware comparator). */
HK_ARGMINMAX_DEFINE(f32, float, HK_ARGMINMAX_BETTER_FLOAT)
