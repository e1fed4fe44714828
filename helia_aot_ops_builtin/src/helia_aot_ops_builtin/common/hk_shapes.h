/*
 * helia-aot kernel library: the shape fields that a family's parameter struct shares with its
 * float16 twin (hk_<family>.h and hk_<family>_f16.h), written once.
 *
 * Each macro lists the leading fields of both structs, so the two keep one layout for those
 * fields and one set of names, and the operators fill either struct the same way. The headers
 * include only this file from each other's families, so a float16 module copies no integer
 * kernel sources (and the reverse).
 */
#ifndef HK_SHAPES_H
#define HK_SHAPES_H

#include "hk_common.h"

/* POOL: NHWC input and output, the window, its strides and the leading padding. */
#define HK_POOL_SHAPE_FIELDS                                                                   \
    int32_t batches;                                                                           \
    int32_t input_height;                                                                      \
    int32_t input_width;                                                                       \
    int32_t channels;                                                                          \
    int32_t output_height;                                                                     \
    int32_t output_width;                                                                      \
    int32_t filter_height;                                                                     \
    int32_t filter_width;                                                                      \
    int32_t stride_height;                                                                     \
    int32_t stride_width;                                                                      \
    int32_t pad_top;                                                                           \
    int32_t pad_left;

/* TRANSPOSE_CONV: NHWC input and output, OHWI filter, strides and the leading padding. */
#define HK_TRANSPOSE_CONV_SHAPE_FIELDS                                                         \
    int32_t batches;                                                                           \
    int32_t input_height;                                                                      \
    int32_t input_width;                                                                       \
    int32_t input_channels;                                                                    \
    int32_t filter_height;                                                                     \
    int32_t filter_width;                                                                      \
    int32_t output_height;                                                                     \
    int32_t output_width;                                                                      \
    int32_t output_channels;                                                                   \
    int32_t stride_height;                                                                     \
    int32_t stride_width;                                                                      \
    int32_t pad_top;                                                                           \
    int32_t pad_left;

/* BATCH_MATMUL: batch dimensions (lhs and rhs: batch[d] or 1), the matrix sizes and the
 * adjoint flags (nonzero: that side's matrices are stored transposed). */
#define HK_BATCH_MATMUL_SHAPE_FIELDS                                                           \
    int32_t batch[3];                                                                          \
    int32_t lhs_batch[3];                                                                      \
    int32_t rhs_batch[3];                                                                      \
    int32_t rows;                                                                              \
    int32_t depth;                                                                             \
    int32_t cols;                                                                              \
    int32_t adj_x;                                                                             \
    int32_t adj_y;

/* GRU: steps, input features and units; sequence_output nonzero: output [steps, units], zero:
 * the last h [units]. */
#define HK_GRU_SHAPE_FIELDS                                                                    \
    int32_t steps;                                                                             \
    int32_t input_size;                                                                        \
    int32_t units;                                                                             \
    int32_t sequence_output;

/* SVDF: input rows and features, filters (units * rank), the rank summed into one unit and
 * the time steps each filter remembers. */
#define HK_SVDF_SHAPE_FIELDS                                                                   \
    int32_t batches;                                                                           \
    int32_t input_size;                                                                        \
    int32_t filters;                                                                           \
    int32_t rank;                                                                              \
    int32_t memory;

#endif /* HK_SHAPES_H */
