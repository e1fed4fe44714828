/*
 * helia-aot kernel library: the broadcast walk shared by the elementwise math, comparison,
 * logical and select kernels.
 *
 * The converter folds the NumPy broadcast of up to three inputs onto the output into at most
 * HK_WALK_MAX_RANK loops (extent-1 dimensions dropped, neighbours that repeat alike merged) and
 * gives each input's element stride per loop, 0 where that input repeats. Without broadcasting
 * the whole tensor is one loop of stride 1. The walk visits the output in order, so a kernel that
 * reads an element's inputs before writing its output may share storage with a same-shape input.
 */
#ifndef HK_WALK_H
#define HK_WALK_H

#include "hk_common.h"

#define HK_WALK_MAX_RANK 5
#define HK_WALK_MAX_INPUTS 3

typedef struct {
    int32_t size;                                         /* output elements */
    int32_t shape[HK_WALK_MAX_RANK];                      /* loop extents, outermost first */
    int32_t strides[HK_WALK_MAX_INPUTS][HK_WALK_MAX_RANK]; /* per input, per loop */
} hk_walk_t;

/* The walk's position: the loop counters and each input's element offset. */
typedef struct {
    int32_t index[HK_WALK_MAX_RANK];
    int32_t offset[HK_WALK_MAX_INPUTS];
} hk_walk_pos_t;

HK_INLINE void hk_walk_start(hk_walk_pos_t *pos)
{
    memset(pos, 0, sizeof(*pos));
}

/* Advance to the next output element (an odometer over the loops, innermost fastest). */
HK_INLINE void hk_walk_next(const hk_walk_t *walk, hk_walk_pos_t *pos)
{
    for (int32_t d = HK_WALK_MAX_RANK - 1; d >= 0; --d) {
        pos->index[d] += 1;
        for (int32_t k = 0; k < HK_WALK_MAX_INPUTS; ++k) {
            pos->offset[k] += walk->strides[k][d];
        }
        if (pos->index[d] < walk->shape[d]) {
            return;
        }
        for (int32_t k = 0; k < HK_WALK_MAX_INPUTS; ++k) {
            pos->offset[k] -= walk->strides[k][d] * walk->shape[d];
        }
        pos->index[d] = 0;
    }
}

#endif /* HK_WALK_H */
