/*
 * helia-aot kernel library: four filters' int8 dot products over a window read in place, on
 * Helium, shared by the convolution families that read windows without a patch (hk_conv_mve.c's
 * scratch-free loop and hk_conv_unfolded_mve.c).
 *
 * The LiteRT reference convolution sums input times filter over every in-image tap; a window
 * whose rows are contiguous runs of bytes gives those taps run by run, so each run is read as
 * whole 16-byte vectors with the last one under a predicate and nothing outside the window is
 * touched.
 */
#ifndef HK_CONV_DOTS4_H
#define HK_CONV_DOTS4_H

#include "hk_common.h"
#include "hk_isa.h"

#if HK_HAVE_MVE

/* The dot products of four filters (w0..w3) with a window of `runs` runs of `len` bytes,
 * x_step apart in the image and w_step apart in each filter. With `sums` (not NULL), the sums
 * of the filter taps read are returned through it too (a window cut by the image edge adds the
 * input offset over its own taps only); callers pass NULL or an address as a constant, so each
 * inlined copy keeps only its own loop. */
HK_INLINE int32x4_t hk_conv_dots4_mve(const int8_t *x, size_t x_step, int32_t runs, int32_t len,
                                      const int8_t *w0, const int8_t *w1, const int8_t *w2,
                                      const int8_t *w3, int32_t w_step, int32x4_t *sums)
{
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int32_t r = 0; r < runs;
         ++r, x += x_step, w0 += w_step, w1 += w_step, w2 += w_step, w3 += w_step) {
        for (int32_t k = 0; k < len; k += 16) {
            const mve_pred16_t keep = vctp8q((uint32_t)(len - k));
            const int8x16_t xv = vldrbq_z_s8(x + k, keep);
            const int8x16_t v0 = vldrbq_z_s8(w0 + k, keep), v1 = vldrbq_z_s8(w1 + k, keep);
            const int8x16_t v2 = vldrbq_z_s8(w2 + k, keep), v3 = vldrbq_z_s8(w3 + k, keep);
            a0 = vmladavaq_s8(a0, xv, v0);
            a1 = vmladavaq_s8(a1, xv, v1);
            a2 = vmladavaq_s8(a2, xv, v2);
            a3 = vmladavaq_s8(a3, xv, v3);
            if (sums != NULL) {
                s0 = vaddvaq_s8(s0, v0);
                s1 = vaddvaq_s8(s1, v1);
                s2 = vaddvaq_s8(s2, v2);
                s3 = vaddvaq_s8(s3, v3);
            }
        }
    }
    if (sums != NULL) {
        const int32x4_t lo = vsetq_lane_s32(s1, vdupq_n_s32(s0), 1);
        *sums = vsetq_lane_s32(s3, vsetq_lane_s32(s2, lo, 2), 3);
    }
    const int32x4_t dots = vsetq_lane_s32(a1, vdupq_n_s32(a0), 1);
    return vsetq_lane_s32(a3, vsetq_lane_s32(a2, dots, 2), 3);
}

#endif /* HK_HAVE_MVE */

#endif /* HK_CONV_DOTS4_H */
