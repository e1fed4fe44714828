/*
 * helia-aot kernel library: MEAN, SUM, PROD, MAX and MIN over constant axes (see hk_reduce.h).
 */
#include "hk_reduce.h"

#include <float.h>

static int32_t validate(const hk_reduce_params_t *params, const void *input, const void *output)
{
    if (params == NULL || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    int64_t count = 1;
    for (int32_t k = 0; k < HK_REDUCE_MAX_DIMS; ++k) {
        if (params->kept_extents[k] < 1 || params->reduced_extents[k] < 1 ||
            params->kept_strides[k] < 0 || params->reduced_strides[k] < 0) {
            return HK_STATUS_BAD_PARAM;
        }
        count *= params->reduced_extents[k];
    }
    return count == params->count ? HK_STATUS_OK : HK_STATUS_BAD_PARAM;
}

/* Which kernel reduce_walk is: element type and what it does with the sum. */
typedef enum {
    REDUCE_SUM_F32,
    REDUCE_MEAN_F32,
    REDUCE_S8,  /* int8 sum or mean: the quantized epilogue */
    REDUCE_S16, /* int16 sum or mean */
    REDUCE_PROD_F32,
    REDUCE_MAX_F32,
    REDUCE_MIN_F32,
    REDUCE_MAX_S8, /* quantized max/min: compared as stored, output keeps the input's quantization */
    REDUCE_MIN_S8,
    REDUCE_MAX_S16,
    REDUCE_MIN_S16,
    REDUCE_PROD_S8, /* quantized product: rescaled after every multiplication */
    REDUCE_PROD_S16,
} reduce_kind_t;

/* LiteRT QuantizedMeanOrSum's epilogue: the zero-point correction is formed in 64 bits and
 * truncated to the int32 accumulator type before rescaling. */
static inline int32_t finish_quantized(const hk_reduce_params_t *p, int32_t sum, int32_t lo,
                                       int32_t hi)
{
    const int64_t corrected = (int64_t)sum - (int64_t)p->input_zero_point * p->count;
    const int32_t shifted = (int32_t)(uint32_t)(uint64_t)corrected;
    const int32_t scaled = hk_mbqm(shifted, p->multiplier, p->shift);
    return hk_clamp_i32((int32_t)((uint32_t)scaled + (uint32_t)p->output_zero_point), lo, hi);
}

/*
 * The body of every kernel: for each output in order, the sum of its inputs in row-major order
 * (float, or int32 that wraps as LiteRT's quantized sums do), then the output: the float sum,
 * the float sum over the count, or the quantized epilogue. `kind` is a constant at every call
 * and the body is always inlined, so each kernel keeps its own loop.
 */
HK_INLINE int32_t reduce_walk(const hk_reduce_params_t *params, const void *input, void *output,
                              reduce_kind_t kind)
{
    const int32_t status = validate(params, input, output);
    if (status != HK_STATUS_OK) {
        return status;
    }
    const bool is_float = kind == REDUCE_SUM_F32 || kind == REDUCE_MEAN_F32 ||
                          kind == REDUCE_PROD_F32 || kind == REDUCE_MAX_F32 ||
                          kind == REDUCE_MIN_F32;
    const bool is_prod_q = kind == REDUCE_PROD_S8 || kind == REDUCE_PROD_S16;
    const bool is_s8 = kind == REDUCE_S8 || kind == REDUCE_MAX_S8 || kind == REDUCE_MIN_S8 ||
                       kind == REDUCE_PROD_S8;
    const bool is_max = kind == REDUCE_MAX_F32 || kind == REDUCE_MAX_S8 || kind == REDUCE_MAX_S16;
    const bool is_min = kind == REDUCE_MIN_F32 || kind == REDUCE_MIN_S8 || kind == REDUCE_MIN_S16;
    /* Starting values as LiteRT's ReduceGeneric sets them: 0 for sums, 1 for products, the
     * type's lowest value for max and its largest for min. */
    float init_f32 = 0.0f;
    int32_t init_i32 = 0;
    if (kind == REDUCE_PROD_F32) {
        init_f32 = 1.0f;
    } else if (is_max) {
        init_f32 = -FLT_MAX;
        init_i32 = is_s8 ? -128 : -32768;
    } else if (is_min) {
        init_f32 = FLT_MAX;
        init_i32 = is_s8 ? 127 : 32767;
    }
    const float *in_f32 = (const float *)input;
    const int8_t *in_s8 = (const int8_t *)input;
    const int16_t *in_s16 = (const int16_t *)input;
    const int32_t *ke = params->kept_extents;
    const int32_t *ks = params->kept_strides;
    const int32_t *re = params->reduced_extents;
    const int32_t *rs = params->reduced_strides;
    int32_t o = 0;
    for (int32_t k0 = 0; k0 < ke[0]; ++k0) {
        for (int32_t k1 = 0; k1 < ke[1]; ++k1) {
            for (int32_t k2 = 0; k2 < ke[2]; ++k2) {
                for (int32_t k3 = 0; k3 < ke[3]; ++k3) {
                    const size_t base = (size_t)(k0 * ks[0]) + (size_t)(k1 * ks[1]) +
                                        (size_t)(k2 * ks[2]) + (size_t)(k3 * ks[3]);
                    float acc_f32 = init_f32;
                    int32_t acc_i32 = init_i32;
                    bool first = true;
                    for (int32_t r0 = 0; r0 < re[0]; ++r0) {
                        const size_t p0 = base + (size_t)(r0 * rs[0]);
                        for (int32_t r1 = 0; r1 < re[1]; ++r1) {
                            const size_t p1 = p0 + (size_t)(r1 * rs[1]);
                            for (int32_t r2 = 0; r2 < re[2]; ++r2) {
                                const size_t p2 = p1 + (size_t)(r2 * rs[2]);
                                for (int32_t r3 = 0; r3 < re[3]; ++r3) {
                                    const size_t at = p2 + (size_t)(r3 * rs[3]);
                                    if (is_float) {
                                        const float x = in_f32[at];
                                        if (is_max) {
                                            acc_f32 = x > acc_f32 ? x : acc_f32;
                                        } else if (is_min) {
                                            acc_f32 = x < acc_f32 ? x : acc_f32;
                                        } else if (kind == REDUCE_PROD_F32) {
                                            acc_f32 = x * acc_f32;
                                        } else {
                                            acc_f32 = acc_f32 + x;
                                        }
                                    } else if (is_prod_q) {
                                        /* LiteRT QuantizedReduceProd: the first value minus the
                                         * zero point, then each product rescaled at once. */
                                        const int32_t x = (is_s8 ? in_s8[at] : in_s16[at]) -
                                                          params->input_zero_point;
                                        acc_i32 = first ? x
                                                        : hk_mbqm_64((int64_t)acc_i32 * x,
                                                                     params->multiplier,
                                                                     params->shift);
                                        first = false;
                                    } else if (is_max || is_min) {
                                        const int32_t x = is_s8 ? in_s8[at] : in_s16[at];
                                        if (is_max) {
                                            acc_i32 = x > acc_i32 ? x : acc_i32;
                                        } else {
                                            acc_i32 = x < acc_i32 ? x : acc_i32;
                                        }
                                    } else {
                                        /* LiteRT accumulates quantized sums in int32 and lets
                                         * them wrap. */
                                        const int32_t x =
                                            kind == REDUCE_S8 ? in_s8[at] : in_s16[at];
                                        acc_i32 = (int32_t)((uint32_t)acc_i32 + (uint32_t)x);
                                    }
                                }
                            }
                        }
                    }
                    switch (kind) {
                    case REDUCE_SUM_F32:
                    case REDUCE_PROD_F32:
                    case REDUCE_MAX_F32:
                    case REDUCE_MIN_F32:
                        ((float *)output)[o++] = acc_f32;
                        break;
                    case REDUCE_MAX_S8:
                    case REDUCE_MIN_S8:
                        ((int8_t *)output)[o++] = (int8_t)acc_i32;
                        break;
                    case REDUCE_MAX_S16:
                    case REDUCE_MIN_S16:
                        ((int16_t *)output)[o++] = (int16_t)acc_i32;
                        break;
                    case REDUCE_PROD_S8:
                    case REDUCE_PROD_S16: {
                        const int32_t lo = kind == REDUCE_PROD_S8 ? -128 : -32768;
                        const int32_t hi = kind == REDUCE_PROD_S8 ? 127 : 32767;
                        const int32_t scaled =
                            hk_mbqm_64((int64_t)acc_i32, params->multiplier, params->shift);
                        const int32_t out = (int32_t)((uint32_t)scaled +
                                                      (uint32_t)params->output_zero_point);
                        const int32_t clamped = hk_clamp_i32(out, lo, hi);
                        if (kind == REDUCE_PROD_S8) {
                            ((int8_t *)output)[o++] = (int8_t)clamped;
                        } else {
                            ((int16_t *)output)[o++] = (int16_t)clamped;
                        }
                        break;
                    }
                    case REDUCE_MEAN_F32:
                        ((float *)output)[o++] = acc_f32 / (float)params->count;
                        break;
                    case REDUCE_S8:
                        ((int8_t *)output)[o++] = (int8_t)finish_quantized(params, acc_i32, -128, 127);
                        break;
                    default:
                        ((int16_t *)output)[o++] =
                            (int16_t)finish_quantized(params, acc_i32, -32768, 32767);
                        break;
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::ReduceGeneric with the kSum reducer (float). */
int32_t hk_reduce_sum_f32(const hk_reduce_params_t *params, const float *input, float *output)
{
    return reduce_walk(params, input, output, REDUCE_SUM_F32);
}

/* Follows LiteRT reference_ops::Mean<float, float>: a float sum divided by the element count. */
int32_t hk_reduce_mean_f32(const hk_reduce_params_t *params, const float *input, float *output)
{
    return reduce_walk(params, input, output, REDUCE_MEAN_F32);
}

/* Follows LiteRT reference_ops::QuantizedMeanOrSum<int8_t, int32_t>. */
int32_t hk_reduce_sum_mean_s8(const hk_reduce_params_t *params, const int8_t *input,
                              int8_t *output)
{
    return reduce_walk(params, input, output, REDUCE_S8);
}

/* Follows LiteRT reference_ops::QuantizedMeanOrSum<int16_t, int32_t> (zero points 0). */
int32_t hk_reduce_sum_mean_s16(const hk_reduce_params_t *params, const int16_t *input,
                               int16_t *output)
{
    return reduce_walk(params, input, output, REDUCE_S16);
}

/* Follows LiteRT reference_ops::ReduceGeneric with the kProd reducer (float): acc = x * acc from 1. */
int32_t hk_reduce_prod_f32(const hk_reduce_params_t *params, const float *input, float *output)
{
    return reduce_walk(params, input, output, REDUCE_PROD_F32);
}

/* Follows LiteRT reference_ops::ReduceGeneric with the kMax reducer (float), from -FLT_MAX. */
int32_t hk_reduce_max_f32(const hk_reduce_params_t *params, const float *input, float *output)
{
    return reduce_walk(params, input, output, REDUCE_MAX_F32);
}

/* Follows LiteRT reference_ops::ReduceGeneric with the kMin reducer (float), from FLT_MAX. */
int32_t hk_reduce_min_f32(const hk_reduce_params_t *params, const float *input, float *output)
{
    return reduce_walk(params, input, output, REDUCE_MIN_F32);
}

/* Follows LiteRT reference_ops::ReduceGeneric<int8_t> with kMax: stored values compared, the
 * output quantized as the input (LiteRT requires equal scales and zero points). */
int32_t hk_reduce_max_s8(const hk_reduce_params_t *params, const int8_t *input, int8_t *output)
{
    return reduce_walk(params, input, output, REDUCE_MAX_S8);
}

/* Follows LiteRT reference_ops::ReduceGeneric<int8_t> with kMin (see hk_reduce_max_s8). */
int32_t hk_reduce_min_s8(const hk_reduce_params_t *params, const int8_t *input, int8_t *output)
{
    return reduce_walk(params, input, output, REDUCE_MIN_S8);
}

/* Follows LiteRT reference_ops::ReduceGeneric<int16_t> with kMax (see hk_reduce_max_s8). */
int32_t hk_reduce_max_s16(const hk_reduce_params_t *params, const int16_t *input, int16_t *output)
{
    return reduce_walk(params, input, output, REDUCE_MAX_S16);
}

/* Follows LiteRT reference_ops::ReduceGeneric<int16_t> with kMin (see hk_reduce_max_s8). */
int32_t hk_reduce_min_s16(const hk_reduce_params_t *params, const int16_t *input, int16_t *output)
{
    return reduce_walk(params, input, output, REDUCE_MIN_S16);
}

/* Follows LiteRT reference_ops::QuantizedReduceProd<int8_t>: acc = x0 - zp, then
 * acc = MBQM64(acc * (x - zp)) per further value and out = MBQM64(acc) + out_zp, clamped; the
 * multiplier is QuantizeMultiplier(input_scale / output_scale^(1/count)). */
int32_t hk_reduce_prod_s8(const hk_reduce_params_t *params, const int8_t *input, int8_t *output)
{
    if (params != NULL && (params->shift < -31 || params->shift > 7)) {
        return HK_STATUS_BAD_PARAM;
    }
    return reduce_walk(params, input, output, REDUCE_PROD_S8);
}

/* Follows LiteRT reference_ops::QuantizedReduceProd<int16_t> (see hk_reduce_prod_s8). */
int32_t hk_reduce_prod_s16(const hk_reduce_params_t *params, const int16_t *input,
                           int16_t *output)
{
    if (params != NULL && (params->shift < -31 || params->shift > 7)) {
        return HK_STATUS_BAD_PARAM;
    }
    return reduce_walk(params, input, output, REDUCE_PROD_S16);
}

/* The int32/int64 reductions (SUM, PROD, MAX, MIN): LiteRT's ReduceGeneric over integers, which
 * starts from 0, 1, the type's lowest or its largest value and lets sums and products wrap.
 * Values are held as int64 and wrap-around is taken on uint64 then narrowed to the element's
 * width; `op` and `wide` are constants at each (inlined) call. */
typedef enum { INT_SUM, INT_PROD, INT_MAX, INT_MIN } int_reducer_t;

static inline int64_t narrow(uint64_t bits, bool wide)
{
    if (wide) {
        return bits <= (uint64_t)INT64_MAX ? (int64_t)bits : -(int64_t)(~bits) - 1;
    }
    const uint32_t low = (uint32_t)bits;
    return low <= (uint32_t)INT32_MAX ? (int64_t)low : (int64_t)(-(int64_t)(~low) - 1);
}

HK_INLINE int32_t int_walk(const hk_reduce_params_t *params, const void *input, void *output,
                           int_reducer_t op, bool wide)
{
    const int32_t status = validate(params, input, output);
    if (status != HK_STATUS_OK) {
        return status;
    }
    const int64_t lowest = wide ? INT64_MIN : INT32_MIN;
    const int64_t highest = wide ? INT64_MAX : INT32_MAX;
    const int64_t init = op == INT_SUM ? 0 : op == INT_PROD ? 1 : op == INT_MAX ? lowest : highest;
    const int32_t *ke = params->kept_extents;
    const int32_t *ks = params->kept_strides;
    const int32_t *re = params->reduced_extents;
    const int32_t *rs = params->reduced_strides;
    int32_t o = 0;
    for (int32_t k0 = 0; k0 < ke[0]; ++k0) {
        for (int32_t k1 = 0; k1 < ke[1]; ++k1) {
            for (int32_t k2 = 0; k2 < ke[2]; ++k2) {
                for (int32_t k3 = 0; k3 < ke[3]; ++k3) {
                    const size_t base = (size_t)(k0 * ks[0]) + (size_t)(k1 * ks[1]) +
                                        (size_t)(k2 * ks[2]) + (size_t)(k3 * ks[3]);
                    int64_t acc = init;
                    for (int32_t r0 = 0; r0 < re[0]; ++r0) {
                        for (int32_t r1 = 0; r1 < re[1]; ++r1) {
                            for (int32_t r2 = 0; r2 < re[2]; ++r2) {
                                for (int32_t r3 = 0; r3 < re[3]; ++r3) {
                                    const size_t at = base + (size_t)(r0 * rs[0]) +
                                                      (size_t)(r1 * rs[1]) +
                                                      (size_t)(r2 * rs[2]) + (size_t)(r3 * rs[3]);
                                    const int64_t x = wide ? ((const int64_t *)input)[at]
                                                           : ((const int32_t *)input)[at];
                                    if (op == INT_SUM) {
                                        acc = narrow((uint64_t)acc + (uint64_t)x, wide);
                                    } else if (op == INT_PROD) {
                                        acc = narrow((uint64_t)acc * (uint64_t)x, wide);
                                    } else if (op == INT_MAX) {
                                        acc = x > acc ? x : acc;
                                    } else {
                                        acc = x < acc ? x : acc;
                                    }
                                }
                            }
                        }
                    }
                    if (wide) {
                        ((int64_t *)output)[o++] = acc;
                    } else {
                        ((int32_t *)output)[o++] = (int32_t)acc;
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::ReduceGeneric<int32_t> with kSum (wrapping). */
int32_t hk_reduce_sum_s32(const hk_reduce_params_t *params, const int32_t *input, int32_t *output)
{
    return int_walk(params, input, output, INT_SUM, false);
}

/* Follows LiteRT reference_ops::ReduceGeneric<int32_t> with kProd (wrapping). */
int32_t hk_reduce_prod_s32(const hk_reduce_params_t *params, const int32_t *input, int32_t *output)
{
    return int_walk(params, input, output, INT_PROD, false);
}

/* Follows LiteRT reference_ops::ReduceGeneric<int32_t> with kMax, from INT32_MIN. */
int32_t hk_reduce_max_s32(const hk_reduce_params_t *params, const int32_t *input, int32_t *output)
{
    return int_walk(params, input, output, INT_MAX, false);
}

/* Follows LiteRT reference_ops::ReduceGeneric<int32_t> with kMin, from INT32_MAX. */
int32_t hk_reduce_min_s32(const hk_reduce_params_t *params, const int32_t *input, int32_t *output)
{
    return int_walk(params, input, output, INT_MIN, false);
}

/* Follows LiteRT reference_ops::ReduceGeneric<int64_t> with kSum (wrapping). */
int32_t hk_reduce_sum_s64(const hk_reduce_params_t *params, const int64_t *input, int64_t *output)
{
    return int_walk(params, input, output, INT_SUM, true);
}

/* Follows LiteRT reference_ops::ReduceGeneric<int64_t> with kProd (wrapping). */
int32_t hk_reduce_prod_s64(const hk_reduce_params_t *params, const int64_t *input, int64_t *output)
{
    return int_walk(params, input, output, INT_PROD, true);
}

/* Follows LiteRT reference_ops::ReduceGeneric<int64_t> with kMax, from INT64_MIN. */
int32_t hk_reduce_max_s64(const hk_reduce_params_t *params, const int64_t *input, int64_t *output)
{
    return int_walk(params, input, output, INT_MAX, true);
}

/* Follows LiteRT reference_ops::ReduceGeneric<int64_t> with kMin, from INT64_MAX. */
int32_t hk_reduce_min_s64(const hk_reduce_params_t *params, const int64_t *input, int64_t *output)
{
    return int_walk(params, input, output, INT_MIN, true);
}
