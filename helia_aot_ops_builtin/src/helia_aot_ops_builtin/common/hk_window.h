/*
 * helia-aot kernel library: sliding-window bounds shared by convolution and pooling.
 *
 * The LiteRT reference kernels test every filter tap against the image edges and skip the
 * ones outside. Computing the range of in-image taps once per output row or column gives the
 * same taps, in the same order, without a branch in the innermost loops.
 */
#ifndef HK_WINDOW_H
#define HK_WINDOW_H

#include "hk_common.h"

/* The taps t in [*start, *end) of a `taps`-wide window (spaced `dilation` apart, first tap at
 * `origin`) whose coordinate origin + t * dilation lies inside [0, size). */
HK_INLINE void hk_window_taps(int32_t origin, int32_t dilation, int32_t taps, int32_t size,
                              int32_t *start, int32_t *end)
{
    int32_t first = 0;
    if (origin < 0) {
        first = (-origin + dilation - 1) / dilation;
    }
    const int32_t room = size - origin;
    int32_t last = room <= 0 ? 0 : (room + dilation - 1) / dilation;
    if (last > taps) {
        last = taps;
    }
    *start = first;
    *end = last > first ? last : first;
}

#endif /* HK_WINDOW_H */
