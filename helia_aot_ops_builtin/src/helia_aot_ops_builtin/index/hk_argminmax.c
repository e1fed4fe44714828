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

/* The element type of an ARG_MAX / ARG_MIN kernel. */
typedef enum {
    ARG_S8,
    ARG_U8,
    ARG_S16,
    ARG_S32,
    ARG_F32,
    ARG_F16,
} argminmax_type_t;

/* Element i of `input` as `type` says; integers are exact in int32, floats stay floats. */
HK_INLINE int32_t argminmax_int(const void *input, size_t i, argminmax_type_t type)
{
    switch (type) {
    case ARG_S8:
        return ((const int8_t *)input)[i];
    case ARG_U8:
        return ((const uint8_t *)input)[i];
    case ARG_S16:
        return ((const int16_t *)input)[i];
    default:
        return ((const int32_t *)input)[i];
    }
}

/* Integers: a strictly better value replaces the running best, so ties keep the first index. */
HK_INLINE bool argminmax_better_int(int32_t value, int32_t best, bool is_max)
{
    return is_max ? value > best : value < best;
}

/* Floats: a NaN never becomes the best and any number replaces a NaN best, so an all-NaN run
 * yields index 0 (LiteRT's NaN-aware comparator, TensorFlow's semantics). */
HK_INLINE bool argminmax_better_float(float value, float best, bool is_max)
{
    return !isnan(value) && (isnan(best) || (is_max ? value > best : value < best));
}

/* A float16 bit pattern as an integer that orders like its value (-0 and +0 equal), so float16
 * compares need no _Float16; NaNs are told apart by hk_f16_bits_nan. */
HK_INLINE int32_t argminmax_f16_key(uint16_t bits)
{
    const int32_t magnitude = (int32_t)(bits & 0x7fffu);
    return (bits & 0x8000u) != 0u ? -magnitude : magnitude;
}

HK_INLINE bool argminmax_f16_nan(uint16_t bits)
{
    return (bits & 0x7fffu) > 0x7c00u;
}

/*
 * The kernels, which differ only in the element type and its comparison. `type` is a constant
 * at every call and the body is always inlined, so each kernel keeps its own loop.
 */
HK_INLINE int32_t argminmax(const hk_argminmax_params_t *params, const void *input, void *output,
                            argminmax_type_t type)
{
    if (!argminmax_valid_params(params, input, output)) {
        return HK_STATUS_BAD_PARAM;
    }
    const float *input_f32 = (const float *)input;
    const size_t inner = (size_t)params->inner_size;
    const size_t axis = (size_t)params->axis_size;
    for (size_t outer = 0; outer < (size_t)params->outer_size; ++outer) {
        const size_t block = outer * axis * inner;
        for (size_t j = 0; j < inner; ++j) {
            int32_t best_index = 0;
            if (type == ARG_F32) {
                float best = input_f32[block + j];
                for (size_t i = 1; i < axis; ++i) {
                    const float value = input_f32[block + i * inner + j];
                    if (argminmax_better_float(value, best, params->is_arg_max)) {
                        best = value;
                        best_index = (int32_t)i;
                    }
                }
            } else if (type == ARG_F16) {
                /* The float comparator above on float16 values: a NaN never wins, and any number
                 * replaces a NaN best. */
                const uint16_t *bits = (const uint16_t *)input;
                bool best_nan = argminmax_f16_nan(bits[block + j]);
                int32_t best = argminmax_f16_key(bits[block + j]);
                for (size_t i = 1; i < axis; ++i) {
                    const uint16_t value = bits[block + i * inner + j];
                    if (argminmax_f16_nan(value)) {
                        continue;
                    }
                    const int32_t key = argminmax_f16_key(value);
                    if (best_nan || argminmax_better_int(key, best, params->is_arg_max)) {
                        best = key;
                        best_nan = false;
                        best_index = (int32_t)i;
                    }
                }
            } else {
                int32_t best = argminmax_int(input, block + j, type);
                for (size_t i = 1; i < axis; ++i) {
                    const int32_t value = argminmax_int(input, block + i * inner + j, type);
                    if (argminmax_better_int(value, best, params->is_arg_max)) {
                        best = value;
                        best_index = (int32_t)i;
                    }
                }
            }
            argminmax_store_index(output, outer * inner + j, best_index, params->output_int64);
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::ArgMinMax (int8). */
int32_t hk_argminmax_s8(const hk_argminmax_params_t *params, const int8_t *input, void *output)
{
    return argminmax(params, input, output, ARG_S8);
}

/* Follows LiteRT reference_ops::ArgMinMax (uint8). */
int32_t hk_argminmax_u8(const hk_argminmax_params_t *params, const uint8_t *input, void *output)
{
    return argminmax(params, input, output, ARG_U8);
}

/* Follows LiteRT reference_ops::ArgMinMax (int16). */
int32_t hk_argminmax_s16(const hk_argminmax_params_t *params, const int16_t *input, void *output)
{
    return argminmax(params, input, output, ARG_S16);
}

/* Follows LiteRT reference_ops::ArgMinMax (int32). */
int32_t hk_argminmax_s32(const hk_argminmax_params_t *params, const int32_t *input, void *output)
{
    return argminmax(params, input, output, ARG_S32);
}

/* Follows LiteRT reference_ops::ArgMinMax (float32, NaN-aware comparator). */
int32_t hk_argminmax_f32(const hk_argminmax_params_t *params, const float *input, void *output)
{
    return argminmax(params, input, output, ARG_F32);
}

/* Follows LiteRT reference_ops::ArgMinMax with the float NaN-aware comparator, on float16 bit
 * patterns (compared through an order-preserving integer key). */
int32_t hk_argminmax_f16(const hk_argminmax_params_t *params, const uint16_t *input, void *output)
{
    return argminmax(params, input, output, ARG_F16);
}
