/*
 * helia-aot kernel library: operators driven by index tensors computed at run time.
 *
 * GATHER_ND, SCATTER_ND, DYNAMIC_UPDATE_SLICE, REVERSE_SEQUENCE and ONE_HOT read positions from
 * the model's data, so every position is checked before anything is written: a position outside
 * the tensor makes the kernel return HK_STATUS_INDEX_RANGE with the output untouched, instead of
 * reading or writing outside a buffer. Where the conversion knows the indices the converter
 * emits strided copies instead (hk_copy.h); these kernels are the run-time path. Apart from
 * SCATTER_ND's sums they only move bytes, so one kernel serves every element size.
 */
#ifndef HK_INDEX_H
#define HK_INDEX_H

#include "hk_common.h"
#include "hk_copy.h"

/* Returned when a run-time index lies outside the tensor it addresses; nothing was written. */
#define HK_STATUS_INDEX_RANGE 20

#define HK_INDEX_MAX_RANK 6

/* Element kinds SCATTER_ND adds in (the other kernels only need element sizes). */
#define HK_INDEX_KIND_F32 0
#define HK_INDEX_KIND_I8 1
#define HK_INDEX_KIND_U8 2
#define HK_INDEX_KIND_I32 3
#define HK_INDEX_KIND_I64 4

/* GATHER_ND / SCATTER_ND geometry: `count` index vectors of `depth` coordinates each address
 * slices of `slice_size` elements in a tensor whose leading `depth` dimensions are `dims`. */
typedef struct {
    int32_t count;                       /* index vectors (product of indices.shape[:-1]) */
    int32_t depth;                       /* coordinates per vector (indices.shape[-1]) */
    int32_t slice_size;                  /* elements per slice (product of the trailing dims) */
    int32_t elem_size;                   /* bytes per element */
    int32_t index_size;                  /* bytes per index: 2, 4 or 8 */
    int32_t kind;                        /* HK_INDEX_KIND_* (SCATTER_ND only) */
    int32_t dims[HK_INDEX_MAX_RANK];     /* the addressed leading dimensions */
} hk_index_nd_params_t;

/* DYNAMIC_UPDATE_SLICE: operand and update of `rank` dimensions, start indices at run time. */
typedef struct {
    int32_t rank;
    int32_t elem_size;
    int32_t index_size;                  /* 4 (int32) or 8 (int64) */
    int32_t operand_dims[HK_INDEX_MAX_RANK];
    int32_t update_dims[HK_INDEX_MAX_RANK];
} hk_update_slice_params_t;

/* REVERSE_SEQUENCE: the first seq_lengths[b] entries along seq_dim of batch b are reversed. */
typedef struct {
    int32_t rank;
    int32_t elem_size;
    int32_t index_size;                  /* 4 (int32) or 8 (int64) */
    int32_t seq_dim;
    int32_t batch_dim;
    int32_t dims[HK_INDEX_MAX_RANK];
} hk_reverse_sequence_params_t;

/* ONE_HOT: indices viewed as [prefix, suffix], output as [prefix, depth, suffix]. */
typedef struct {
    int32_t prefix;
    int32_t depth;
    int32_t suffix;
    int32_t elem_size;
    int32_t index_size;                  /* 4 (int32) or 8 (int64) */
} hk_one_hot_params_t;

int32_t hk_gather_nd(const hk_index_nd_params_t *params, const void *input, const void *indices,
                     void *output);

int32_t hk_scatter_nd(const hk_index_nd_params_t *params, const void *indices,
                      const void *updates, void *output);

int32_t hk_dynamic_update_slice(const hk_update_slice_params_t *params, const void *operand,
                                const void *update, const void *start_indices, void *output);

int32_t hk_reverse_sequence(const hk_reverse_sequence_params_t *params, const void *input,
                            const void *seq_lengths, void *output);

int32_t hk_one_hot(const hk_one_hot_params_t *params, const void *indices, const void *on_value,
                   const void *off_value, void *output);

#endif /* HK_INDEX_H */
