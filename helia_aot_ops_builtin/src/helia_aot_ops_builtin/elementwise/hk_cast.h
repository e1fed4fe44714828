/*
 * helia-aot kernel library: CAST, one element type to another.
 *
 * Element types are numbered by hk_cast_type_t. Integers (and bool, stored as one byte holding
 * 0 or 1) travel through int64, float32 through float, so each conversion is exactly one C++
 * static_cast of LiteRT's reference kernel: narrower integers keep the low bits, bool becomes
 * value != 0, float to integer truncates towards zero and saturates (NaN to the largest value),
 * as the reference does.
 */
#ifndef HK_CAST_H
#define HK_CAST_H

#include "hk_common.h"

typedef enum {
    HK_CAST_BOOL = 0,
    HK_CAST_S8 = 1,
    HK_CAST_U8 = 2,
    HK_CAST_S16 = 3,
    HK_CAST_S32 = 4,
    HK_CAST_S64 = 5,
    HK_CAST_F32 = 6,
} hk_cast_type_t;

typedef struct {
    int32_t size;      /* elements */
    int32_t from;      /* hk_cast_type_t of the input */
    int32_t to;        /* hk_cast_type_t of the output */
} hk_cast_params_t;

/* The output must not overlap the input. */
int32_t hk_cast(const hk_cast_params_t *params, const void *input, void *output);

#endif /* HK_CAST_H */
