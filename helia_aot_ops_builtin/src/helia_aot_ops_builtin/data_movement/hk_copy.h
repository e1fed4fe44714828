/*
 * helia-aot kernel library: dtype-agnostic data movement.
 *
 * Most layout operators (RESHAPE, SLICE, STRIDED_SLICE, TRANSPOSE, CONCATENATION, SPLIT, PACK,
 * UNPACK and PAD's interior) only move whole elements, so they share one N-d strided copy whose
 * geometry (counts and byte strides per dimension) the converter computes once per operator.
 * Working in bytes keeps a single kernel for every element type.
 */
#ifndef HK_COPY_H
#define HK_COPY_H

#include "hk_common.h"

#define HK_COPY_MAX_RANK 6

/* One strided copy: element (i0..iN) goes from src + src_offset + sum(i_k * src_strides[k]) to
 * dst + dst_offset + sum(i_k * dst_strides[k]); offsets and strides are in bytes, strides may be
 * negative (reversed slices) and dimensions are listed outermost first. */
typedef struct {
    int32_t rank;                               /* 1..HK_COPY_MAX_RANK */
    int32_t elem_size;                          /* bytes per element, >= 1 */
    int32_t src_offset;                         /* bytes from src to element (0,..,0) */
    int32_t dst_offset;                         /* bytes from dst to element (0,..,0) */
    int32_t counts[HK_COPY_MAX_RANK];           /* elements per dimension, >= 0 */
    int32_t src_strides[HK_COPY_MAX_RANK];      /* bytes between neighbours in src */
    int32_t dst_strides[HK_COPY_MAX_RANK];      /* bytes between neighbours in dst */
} hk_strided_copy_params_t;

/* Copies n bytes; a no-op when both pointers are equal (an aliased reshape), overlap-safe. */
int32_t hk_copy_bytes(void *dst, const void *src, int32_t n);

/* Copies the strided region described by params; src and dst must not overlap. */
int32_t hk_strided_copy(const hk_strided_copy_params_t *params, const void *src, void *dst);

/* Writes count copies of the elem_size-byte pattern to dst (pad values, zero points). */
int32_t hk_fill_pattern(void *dst, int32_t count, const void *pattern, int32_t elem_size);

#endif /* HK_COPY_H */
