/*
 * helia-aot kernel library: CUMSUM (running sums along one axis).
 *
 * The input is viewed as [outer, axis_size, inner]; each of the outer * inner lines along the
 * axis is summed in order (from its end when reversed), optionally excluding the element itself.
 */
#ifndef HK_CUMSUM_H
#define HK_CUMSUM_H

#include "hk_common.h"

#define HK_CUMSUM_F32 0
#define HK_CUMSUM_I32 1
#define HK_CUMSUM_I64 2

typedef struct {
    int32_t outer;      /* product of the dimensions before the axis */
    int32_t axis_size;  /* size of the summed axis */
    int32_t inner;      /* product of the dimensions after the axis */
    int32_t kind;       /* HK_CUMSUM_* element type */
    bool exclusive;     /* output k sums the elements before k (the first is 0) */
    bool reverse;       /* sum from the end of the axis */
} hk_cumsum_params_t;

int32_t hk_cumsum(const hk_cumsum_params_t *params, const void *input, void *output);

#endif /* HK_CUMSUM_H */
