/*
 * helia-aot kernel library: int16 x int8 dot products on Helium and on the DSP extension,
 * shared by the int16x8 CONV_2D and FULLY_CONNECTED paths (hk_conv_s16.c,
 * hk_fully_connected_s16.c).
 *
 * One or four int8 weight rows against one int16 input run, into 64-bit sums (or 32-bit ones,
 * wrapping, for the int32-bias kernels, whose reference sums in int32). Integer sums are exact,
 * so the order is free.
 *   Helium: the loads widen the weights to int16 lanes and VMLALDAV (VMLADAV) adds eight
 *   products; four rows share each input load. Whole vectors run unpredicated; only the last
 *   partial one is predicated (inactive lanes load zero, so they add nothing).
 *   DSP: a word of four weights splits into the int16 pairs (w0, w2) and (w1, w3) (SXTB16),
 *   two words of input are packed into the matching pairs (x0, x2) and (x1, x3) (PKHBT /
 *   PKHTB, once per four inputs for two rows), and SMLALD (SMLAD) adds two products at a time.
 */
#ifndef HK_DOT_S16_H
#define HK_DOT_S16_H

#include "hk_common.h"
#include "hk_isa.h"
#include "hk_simd.h"

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

#elif HK_HAVE_DSP

/* Inputs x[0..4) as the int16 pairs (x0, x2) and (x1, x3), matching SXTB16's weight pairs. */
HK_INLINE void hk_dot_s16_pairs(const int16_t *x, int32_t *even, int32_t *odd)
{
    const uint32_t x01 = hk_load_u32(x), x23 = hk_load_u32(x + 2);
    *even = (int32_t)((x01 & 0xFFFFu) | (x23 << 16));
    *odd = (int32_t)((x01 >> 16) | (x23 & 0xFFFF0000u));
}

/* Two rows' 64-bit sums over x[0..n), added to acc[0] and acc[1]. */
HK_INLINE void hk_dot2_s16_64(const int16_t *x, const int8_t *w0, const int8_t *w1, int32_t n,
                              int64_t *acc)
{
    int64_t a0 = acc[0], a1 = acc[1];
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        int32_t xe, xo;
        hk_dot_s16_pairs(x + i, &xe, &xo);
        uint32_t v = hk_load_u32(w0 + i);
        a0 = (int64_t)__smlald(hk_sxtb16_even(v), xe, (uint64_t)a0);
        a0 = (int64_t)__smlald(hk_sxtb16_odd(v), xo, (uint64_t)a0);
        v = hk_load_u32(w1 + i);
        a1 = (int64_t)__smlald(hk_sxtb16_even(v), xe, (uint64_t)a1);
        a1 = (int64_t)__smlald(hk_sxtb16_odd(v), xo, (uint64_t)a1);
    }
    for (; i < n; ++i) {
        a0 += (int32_t)x[i] * w0[i];
        a1 += (int32_t)x[i] * w1[i];
    }
    acc[0] = a0;
    acc[1] = a1;
}

/* hk_dot2_s16_64 with 32-bit sums. */
HK_INLINE void hk_dot2_s16_32(const int16_t *x, const int8_t *w0, const int8_t *w1, int32_t n,
                              int32_t *acc)
{
    uint32_t a0 = (uint32_t)acc[0], a1 = (uint32_t)acc[1];
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        int32_t xe, xo;
        hk_dot_s16_pairs(x + i, &xe, &xo);
        uint32_t v = hk_load_u32(w0 + i);
        a0 = (uint32_t)__smlad(hk_sxtb16_even(v), xe, (int32_t)a0);
        a0 = (uint32_t)__smlad(hk_sxtb16_odd(v), xo, (int32_t)a0);
        v = hk_load_u32(w1 + i);
        a1 = (uint32_t)__smlad(hk_sxtb16_even(v), xe, (int32_t)a1);
        a1 = (uint32_t)__smlad(hk_sxtb16_odd(v), xo, (int32_t)a1);
    }
    for (; i < n; ++i) {
        a0 += (uint32_t)((int32_t)x[i] * w0[i]);
        a1 += (uint32_t)((int32_t)x[i] * w1[i]);
    }
    acc[0] = (int32_t)a0;
    acc[1] = (int32_t)a1;
}

/* Four rows, `stride` bytes apart: two passes of two rows (four 64-bit sums overflow the
 * core registers). */
HK_INLINE void hk_dot4_s16_64(const int16_t *x, const int8_t *w, size_t stride, int32_t n,
                              int64_t *acc)
{
    hk_dot2_s16_64(x, w, w + stride, n, acc);
    hk_dot2_s16_64(x, w + 2 * stride, w + 3 * stride, n, acc + 2);
}

HK_INLINE void hk_dot4_s16_32(const int16_t *x, const int8_t *w, size_t stride, int32_t n,
                              int32_t *acc)
{
    hk_dot2_s16_32(x, w, w + stride, n, acc);
    hk_dot2_s16_32(x, w + 2 * stride, w + 3 * stride, n, acc + 2);
}

HK_INLINE int64_t hk_dot1_s16_64(const int16_t *x, const int8_t *w, int32_t n, int64_t acc)
{
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        int32_t xe, xo;
        hk_dot_s16_pairs(x + i, &xe, &xo);
        const uint32_t v = hk_load_u32(w + i);
        acc = (int64_t)__smlald(hk_sxtb16_even(v), xe, (uint64_t)acc);
        acc = (int64_t)__smlald(hk_sxtb16_odd(v), xo, (uint64_t)acc);
    }
    for (; i < n; ++i) {
        acc += (int32_t)x[i] * w[i];
    }
    return acc;
}

HK_INLINE int32_t hk_dot1_s16_32(const int16_t *x, const int8_t *w, int32_t n, int32_t acc)
{
    uint32_t a = (uint32_t)acc;
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        int32_t xe, xo;
        hk_dot_s16_pairs(x + i, &xe, &xo);
        const uint32_t v = hk_load_u32(w + i);
        a = (uint32_t)__smlad(hk_sxtb16_even(v), xe, (int32_t)a);
        a = (uint32_t)__smlad(hk_sxtb16_odd(v), xo, (int32_t)a);
    }
    for (; i < n; ++i) {
        a += (uint32_t)((int32_t)x[i] * w[i]);
    }
    return (int32_t)a;
}

#endif /* HK_HAVE_MVE / HK_HAVE_DSP */

#endif /* HK_DOT_S16_H */
