/*
 * helia-aot kernel library: float16 MEAN, SUM, REDUCE_MAX and REDUCE_MIN over constant axes.
 *
 * The geometry is hk_reduce's (kept and reduced extents with input element strides, outermost
 * first); each output sums its reduced elements in float, divides by the count for MEAN, and is
 * rounded once to float16; REDUCE_MAX / REDUCE_MIN keep the float comparison's extreme (exact).
 */
#ifndef HK_REDUCE_F16_H
#define HK_REDUCE_F16_H

#include "hk_f16.h"

#define HK_REDUCE_F16_MAX_DIMS 4

typedef struct {
    int32_t kept_extents[HK_REDUCE_F16_MAX_DIMS];
    int32_t kept_strides[HK_REDUCE_F16_MAX_DIMS];
    int32_t reduced_extents[HK_REDUCE_F16_MAX_DIMS];
    int32_t reduced_strides[HK_REDUCE_F16_MAX_DIMS];
    int32_t count;
} hk_reduce_f16_params_t;

int32_t hk_reduce_sum_f16(const hk_reduce_f16_params_t *params, const uint16_t *input, uint16_t *output);
int32_t hk_reduce_mean_f16(const hk_reduce_f16_params_t *params, const uint16_t *input, uint16_t *output);
int32_t hk_reduce_max_f16(const hk_reduce_f16_params_t *params, const uint16_t *input, uint16_t *output);
int32_t hk_reduce_min_f16(const hk_reduce_f16_params_t *params, const uint16_t *input, uint16_t *output);

#endif /* HK_REDUCE_F16_H */
