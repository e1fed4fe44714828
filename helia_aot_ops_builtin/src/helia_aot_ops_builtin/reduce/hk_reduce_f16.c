/*
 * helia-aot kernel library: float16 MEAN and SUM (see hk_reduce_f16.h).
 */
#include "hk_reduce_f16.h"

#include <float.h>

/* The float sum of the reduced elements starting at `base`. */
HK_INLINE float reduce_f16_sum(const hk_reduce_f16_params_t *p, const hk_f16_t *base)
{
    float acc = 0.0f;
    for (int32_t r0 = 0; r0 < p->reduced_extents[0]; ++r0) {
        for (int32_t r1 = 0; r1 < p->reduced_extents[1]; ++r1) {
            for (int32_t r2 = 0; r2 < p->reduced_extents[2]; ++r2) {
                for (int32_t r3 = 0; r3 < p->reduced_extents[3]; ++r3) {
                    acc += (float)base[r0 * p->reduced_strides[0] + r1 * p->reduced_strides[1] +
                                       r2 * p->reduced_strides[2] + r3 * p->reduced_strides[3]];
                }
            }
        }
    }
    return acc;
}

HK_INLINE int32_t reduce_f16(const hk_reduce_f16_params_t *params, const uint16_t *input, uint16_t *output,
                             bool mean)
{
    if (params == NULL || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_reduce_f16_params_t p = *params;
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    for (int32_t k0 = 0; k0 < p.kept_extents[0]; ++k0) {
        for (int32_t k1 = 0; k1 < p.kept_extents[1]; ++k1) {
            for (int32_t k2 = 0; k2 < p.kept_extents[2]; ++k2) {
                for (int32_t k3 = 0; k3 < p.kept_extents[3]; ++k3) {
                    const hk_f16_t *base = in + k0 * p.kept_strides[0] + k1 * p.kept_strides[1] +
                                           k2 * p.kept_strides[2] + k3 * p.kept_strides[3];
                    float acc = reduce_f16_sum(&p, base);
                    if (mean && p.count > 0) {
                        acc /= (float)p.count;
                    }
                    *out++ = hk_f16_round(acc);
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::ReduceGeneric with addition (SUM, float). */
int32_t hk_reduce_sum_f16(const hk_reduce_f16_params_t *params, const uint16_t *input, uint16_t *output)
{
    return reduce_f16(params, input, output, false);
}

/* Follows LiteRT reference_ops::Mean (float): the sum divided by the reduced element count. */
int32_t hk_reduce_mean_f16(const hk_reduce_f16_params_t *params, const uint16_t *input, uint16_t *output)
{
    return reduce_f16(params, input, output, true);
}

/* The float16 REDUCE_MAX / REDUCE_MIN walk: the float comparison of LiteRT's ReduceGeneric from
 * its starting value (-FLT_MAX for max, FLT_MAX for min), so a NaN is never kept; the result is
 * an input value (or the starting value, which rounds to an infinity) and rounds exactly. */
HK_INLINE int32_t reduce_f16_extreme(const hk_reduce_f16_params_t *params, const uint16_t *input,
                                     uint16_t *output, bool is_max)
{
    if (params == NULL || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_reduce_f16_params_t p = *params;
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    for (int32_t k0 = 0; k0 < p.kept_extents[0]; ++k0) {
        for (int32_t k1 = 0; k1 < p.kept_extents[1]; ++k1) {
            for (int32_t k2 = 0; k2 < p.kept_extents[2]; ++k2) {
                for (int32_t k3 = 0; k3 < p.kept_extents[3]; ++k3) {
                    const hk_f16_t *base = in + k0 * p.kept_strides[0] + k1 * p.kept_strides[1] +
                                           k2 * p.kept_strides[2] + k3 * p.kept_strides[3];
                    float acc = is_max ? -FLT_MAX : FLT_MAX;
                    for (int32_t r0 = 0; r0 < p.reduced_extents[0]; ++r0) {
                        for (int32_t r1 = 0; r1 < p.reduced_extents[1]; ++r1) {
                            for (int32_t r2 = 0; r2 < p.reduced_extents[2]; ++r2) {
                                for (int32_t r3 = 0; r3 < p.reduced_extents[3]; ++r3) {
                                    const float x =
                                        (float)base[r0 * p.reduced_strides[0] + r1 * p.reduced_strides[1] +
                                                    r2 * p.reduced_strides[2] + r3 * p.reduced_strides[3]];
                                    acc = is_max ? (x > acc ? x : acc) : (x < acc ? x : acc);
                                }
                            }
                        }
                    }
                    *out++ = hk_f16_round(acc);
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::ReduceGeneric with max (REDUCE_MAX, float). */
int32_t hk_reduce_max_f16(const hk_reduce_f16_params_t *params, const uint16_t *input, uint16_t *output)
{
    return reduce_f16_extreme(params, input, output, true);
}

/* Follows LiteRT reference_ops::ReduceGeneric with min (REDUCE_MIN, float). */
int32_t hk_reduce_min_f16(const hk_reduce_f16_params_t *params, const uint16_t *input, uint16_t *output)
{
    return reduce_f16_extreme(params, input, output, false);
}
