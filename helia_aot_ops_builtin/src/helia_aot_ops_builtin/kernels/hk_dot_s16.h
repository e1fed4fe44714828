/*
 * helia-aot kernel library: int16 x int8 dot products on Helium, shared by the int16x8
 * CONV_2D and FULLY_CONNECTED paths (hk_conv_s16_mve.c, hk_fully_connected_s16_mve.c).
 *
 * One or four int8 weight rows against one int16 input run: the loads widen the weights to
 * int16 lanes, VMLALDAV adds eight products to a 64-bit accumulator (VMLADAV to a 32-bit one,
 * for the int32-bias kernels, whose reference sums in int32). Four rows share each input load.
 * Whole vectors run unpredicated; only the last partial one is predicated (inactive lanes load
 * zero, so they add nothing). Integer sums are exact, so the order is free.
 */
#ifndef HK_DOT_S16_H
#define HK_DOT_S16_H

#include "hk_common.h"
#include "hk_isa.h"

#if HK_HAVE_MVE

/* Sums of x[0..n) times rows w, w + stride, w + 2 stride, w + 3 stride, added to acc[0..4). */
HK_INLINE void hk_dot4_s16_64(const int16_t *x, const int8_t *w, size_t stride, int32_t n,
                              int64_t *acc)
{
    int64_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    const int8_t *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const int16x8_t xv = vldrhq_s16(x + i);
        a0 = vmlaldavaq_s16(a0, xv, vldrbq_s16(w + i));
        a1 = vmlaldavaq_s16(a1, xv, vldrbq_s16(w1 + i));
        a2 = vmlaldavaq_s16(a2, xv, vldrbq_s16(w2 + i));
        a3 = vmlaldavaq_s16(a3, xv, vldrbq_s16(w3 + i));
    }
    if (i < n) {
        const mve_pred16_t p = vctp16q((uint32_t)(n - i));
        const int16x8_t xv = vldrhq_z_s16(x + i, p);
        a0 = vmlaldavaq_s16(a0, xv, vldrbq_z_s16(w + i, p));
        a1 = vmlaldavaq_s16(a1, xv, vldrbq_z_s16(w1 + i, p));
        a2 = vmlaldavaq_s16(a2, xv, vldrbq_z_s16(w2 + i, p));
        a3 = vmlaldavaq_s16(a3, xv, vldrbq_z_s16(w3 + i, p));
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* acc + the sum of x[0..n) times w[0..n). */
HK_INLINE int64_t hk_dot1_s16_64(const int16_t *x, const int8_t *w, int32_t n, int64_t acc)
{
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        acc = vmlaldavaq_s16(acc, vldrhq_s16(x + i), vldrbq_s16(w + i));
    }
    if (i < n) {
        const mve_pred16_t p = vctp16q((uint32_t)(n - i));
        acc = vmlaldavaq_s16(acc, vldrhq_z_s16(x + i, p), vldrbq_z_s16(w + i, p));
    }
    return acc;
}

/* hk_dot4_s16_64 with 32-bit sums (wrapping, as the int32 accumulators of the reference). */
HK_INLINE void hk_dot4_s16_32(const int16_t *x, const int8_t *w, size_t stride, int32_t n,
                              int32_t *acc)
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    const int8_t *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const int16x8_t xv = vldrhq_s16(x + i);
        a0 = vmladavaq_s16(a0, xv, vldrbq_s16(w + i));
        a1 = vmladavaq_s16(a1, xv, vldrbq_s16(w1 + i));
        a2 = vmladavaq_s16(a2, xv, vldrbq_s16(w2 + i));
        a3 = vmladavaq_s16(a3, xv, vldrbq_s16(w3 + i));
    }
    if (i < n) {
        const mve_pred16_t p = vctp16q((uint32_t)(n - i));
        const int16x8_t xv = vldrhq_z_s16(x + i, p);
        a0 = vmladavaq_s16(a0, xv, vldrbq_z_s16(w + i, p));
        a1 = vmladavaq_s16(a1, xv, vldrbq_z_s16(w1 + i, p));
        a2 = vmladavaq_s16(a2, xv, vldrbq_z_s16(w2 + i, p));
        a3 = vmladavaq_s16(a3, xv, vldrbq_z_s16(w3 + i, p));
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* hk_dot1_s16_64 with a 32-bit sum. */
HK_INLINE int32_t hk_dot1_s16_32(const int16_t *x, const int8_t *w, int32_t n, int32_t acc)
{
    int32_t i = 0;
    for (; i + 8 <= n; i += 8) {
        acc = vmladavaq_s16(acc, vldrhq_s16(x + i), vldrbq_s16(w + i));
    }
    if (i < n) {
        const mve_pred16_t p = vctp16q((uint32_t)(n - i));
        acc = vmladavaq_s16(acc, vldrhq_z_s16(x + i, p), vldrbq_z_s16(w + i, p));
    }
    return acc;
}

#endif /* HK_HAVE_MVE */

#endif /* HK_DOT_S16_H */
