/*
 * helia-aot kernel library: GATHER.
 *
 * Gather only moves whole slices, so one byte-level kernel serves every element type. The
 * indices come from the model's data at run time, so each one is checked before anything is
 * read: an out-of-range index makes the kernel fail (as LiteRT's Gather does) instead of
 * reading outside the input.
 */
#ifndef HK_GATHER_H
#define HK_GATHER_H

#include "hk_common.h"

/* Returned when an index is negative or not below axis_size; the output is left unwritten. */
#define HK_STATUS_GATHER_INDEX 6

/* Input viewed as [batch_size, outer_size, axis_size, inner_size], indices as
 * [batch_size, coord_size], output as [batch_size, outer_size, coord_size, inner_size]. */
typedef struct {
    int32_t batch_size;  /* product of the batch_dims leading dimensions */
    int32_t outer_size;  /* product of the dimensions between batch_dims and axis */
    int32_t axis_size;   /* size of the gathered axis */
    int32_t inner_size;  /* product of the dimensions after axis */
    int32_t coord_size;  /* indices per batch */
    int32_t elem_size;   /* bytes per input element */
    int32_t index_size;  /* bytes per index: 2 (int16), 4 (int32) or 8 (int64) */
} hk_gather_params_t;

int32_t hk_gather(const hk_gather_params_t *params, const void *input, const void *indices,
                  void *output);

#endif /* HK_GATHER_H */
