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

/*
 * The 64-bit and 32-bit dot products differ only in the sums' type and their multiply-
 * accumulate, so HK_DOT_S16(bits, acc_t) defines both from one body, over the per-width steps
 * hk_dot_mac_s16_<bits> (and on the DSP hk_dot_tail_s16_<bits>). A macro rather than an inline
 * function with a constant width argument: in one int64_t body the 32-bit sums keep register
 * pairs alive across the loop, which cost a move per sum per step on Helium.
 */

#if HK_HAVE_MVE

/* acc + the eight products of x and w: VMLALDAV, or VMLADAV wrapping in 32 bits. */
HK_INLINE int64_t hk_dot_mac_s16_64(int64_t acc, int16x8_t x, int16x8_t w)
{
    return vmlaldavaq_s16(acc, x, w);
}

HK_INLINE int32_t hk_dot_mac_s16_32(int32_t acc, int16x8_t x, int16x8_t w)
{
    return vmladavaq_s16(acc, x, w);
}

/* hk_dot4_s16_<bits>: sums of x[0..n) times rows w, w + stride, w + 2 stride, w + 3 stride,
 * added to acc[0..4). hk_dot1_s16_<bits>: acc + the sum of x[0..n) times w[0..n). */
#define HK_DOT_S16(bits, acc_t)                                                                \
    HK_INLINE void hk_dot4_s16_##bits(const int16_t *x, const int8_t *w, size_t stride,        \
                                      int32_t n, acc_t *acc)                                   \
    {                                                                                          \
        acc_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];                              \
        const int8_t *w1 = w + stride, *w2 = w + 2 * stride, *w3 = w + 3 * stride;             \
        int32_t i = 0;                                                                         \
        for (; i + 8 <= n; i += 8) {                                                           \
            const int16x8_t xv = vldrhq_s16(x + i);                                            \
            a0 = hk_dot_mac_s16_##bits(a0, xv, vldrbq_s16(w + i));                             \
            a1 = hk_dot_mac_s16_##bits(a1, xv, vldrbq_s16(w1 + i));                            \
            a2 = hk_dot_mac_s16_##bits(a2, xv, vldrbq_s16(w2 + i));                            \
            a3 = hk_dot_mac_s16_##bits(a3, xv, vldrbq_s16(w3 + i));                            \
        }                                                                                      \
        if (i < n) {                                                                           \
            const mve_pred16_t p = vctp16q((uint32_t)(n - i));                                 \
            const int16x8_t xv = vldrhq_z_s16(x + i, p);                                       \
            a0 = hk_dot_mac_s16_##bits(a0, xv, vldrbq_z_s16(w + i, p));                        \
            a1 = hk_dot_mac_s16_##bits(a1, xv, vldrbq_z_s16(w1 + i, p));                       \
            a2 = hk_dot_mac_s16_##bits(a2, xv, vldrbq_z_s16(w2 + i, p));                       \
            a3 = hk_dot_mac_s16_##bits(a3, xv, vldrbq_z_s16(w3 + i, p));                       \
        }                                                                                      \
        acc[0] = a0;                                                                           \
        acc[1] = a1;                                                                           \
        acc[2] = a2;                                                                           \
        acc[3] = a3;                                                                           \
    }                                                                                          \
                                                                                               \
    HK_INLINE acc_t hk_dot1_s16_##bits(const int16_t *x, const int8_t *w, int32_t n, acc_t acc) \
    {                                                                                          \
        int32_t i = 0;                                                                         \
        for (; i + 8 <= n; i += 8) {                                                           \
            acc = hk_dot_mac_s16_##bits(acc, vldrhq_s16(x + i), vldrbq_s16(w + i));            \
        }                                                                                      \
        if (i < n) {                                                                           \
            const mve_pred16_t p = vctp16q((uint32_t)(n - i));                                 \
            acc = hk_dot_mac_s16_##bits(acc, vldrhq_z_s16(x + i, p), vldrbq_z_s16(w + i, p));  \
        }                                                                                      \
        return acc;                                                                            \
    }

#elif HK_HAVE_DSP

/* Inputs x[0..4) as the int16 pairs (x0, x2) and (x1, x3), matching SXTB16's weight pairs. */
HK_INLINE void hk_dot_s16_pairs(const int16_t *x, int32_t *even, int32_t *odd)
{
    const uint32_t x01 = hk_load_u32(x), x23 = hk_load_u32(x + 2);
    *even = (int32_t)((x01 & 0xFFFFu) | (x23 << 16));
    *odd = (int32_t)((x01 >> 16) | (x23 & 0xFFFF0000u));
}

/* acc + the two products of the int16 pairs w and x: SMLALD, or SMLAD wrapping in 32 bits. */
HK_INLINE int64_t hk_dot_mac_s16_64(int64_t acc, int32_t w, int32_t x)
{
    return (int64_t)__smlald(w, x, (uint64_t)acc);
}

HK_INLINE uint32_t hk_dot_mac_s16_32(uint32_t acc, int32_t w, int32_t x)
{
    return (uint32_t)__smlad(w, x, (int32_t)acc);
}

/* acc + x * w, the loops' last inputs one at a time. */
HK_INLINE int64_t hk_dot_tail_s16_64(int64_t acc, int16_t x, int8_t w)
{
    return acc + (int32_t)x * w;
}

HK_INLINE uint32_t hk_dot_tail_s16_32(uint32_t acc, int16_t x, int8_t w)
{
    return acc + (uint32_t)((int32_t)x * w);
}

/* hk_dot2_s16_<bits>: two rows' sums over x[0..n), added to acc[0] and acc[1].
 * hk_dot4_s16_<bits>: four rows, `stride` bytes apart, in two passes of two rows (four 64-bit
 * sums overflow the core registers). hk_dot1_s16_<bits>: acc + one row's sum. The loops keep
 * the sums as sum_t (uint32_t for the wrapping 32-bit ones). */
#define HK_DOT_S16(bits, acc_t, sum_t)                                                         \
    HK_INLINE void hk_dot2_s16_##bits(const int16_t *x, const int8_t *w0, const int8_t *w1,    \
                                      int32_t n, acc_t *acc)                                   \
    {                                                                                          \
        sum_t a0 = (sum_t)acc[0], a1 = (sum_t)acc[1];                                          \
        int32_t i = 0;                                                                         \
        for (; i + 4 <= n; i += 4) {                                                           \
            int32_t xe, xo;                                                                    \
            hk_dot_s16_pairs(x + i, &xe, &xo);                                                 \
            uint32_t v = hk_load_u32(w0 + i);                                                  \
            a0 = hk_dot_mac_s16_##bits(a0, hk_sxtb16_even(v), xe);                             \
            a0 = hk_dot_mac_s16_##bits(a0, hk_sxtb16_odd(v), xo);                              \
            v = hk_load_u32(w1 + i);                                                           \
            a1 = hk_dot_mac_s16_##bits(a1, hk_sxtb16_even(v), xe);                             \
            a1 = hk_dot_mac_s16_##bits(a1, hk_sxtb16_odd(v), xo);                              \
        }                                                                                      \
        for (; i < n; ++i) {                                                                   \
            a0 = hk_dot_tail_s16_##bits(a0, x[i], w0[i]);                                      \
            a1 = hk_dot_tail_s16_##bits(a1, x[i], w1[i]);                                      \
        }                                                                                      \
        acc[0] = (acc_t)a0;                                                                    \
        acc[1] = (acc_t)a1;                                                                    \
    }                                                                                          \
                                                                                               \
    HK_INLINE void hk_dot4_s16_##bits(const int16_t *x, const int8_t *w, size_t stride,        \
                                      int32_t n, acc_t *acc)                                   \
    {                                                                                          \
        hk_dot2_s16_##bits(x, w, w + stride, n, acc);                                          \
        hk_dot2_s16_##bits(x, w + 2 * stride, w + 3 * stride, n, acc + 2);                     \
    }                                                                                          \
                                                                                               \
    HK_INLINE acc_t hk_dot1_s16_##bits(const int16_t *x, const int8_t *w, int32_t n, acc_t acc) \
    {                                                                                          \
        sum_t a = (sum_t)acc;                                                                  \
        int32_t i = 0;                                                                         \
        for (; i + 4 <= n; i += 4) {                                                           \
            int32_t xe, xo;                                                                    \
            hk_dot_s16_pairs(x + i, &xe, &xo);                                                 \
            const uint32_t v = hk_load_u32(w + i);                                             \
            a = hk_dot_mac_s16_##bits(a, hk_sxtb16_even(v), xe);                               \
            a = hk_dot_mac_s16_##bits(a, hk_sxtb16_odd(v), xo);                                \
        }                                                                                      \
        for (; i < n; ++i) {                                                                   \
            a = hk_dot_tail_s16_##bits(a, x[i], w[i]);                                         \
        }                                                                                      \
        return (acc_t)a;                                                                       \
    }

#endif /* HK_HAVE_MVE / HK_HAVE_DSP */

#if HK_HAVE_MVE
HK_DOT_S16(64, int64_t) /* the int64-bias kernels */
HK_DOT_S16(32, int32_t) /* the int32-bias kernels, wrapping as the reference's int32 sums */
#elif HK_HAVE_DSP
HK_DOT_S16(64, int64_t, int64_t)
HK_DOT_S16(32, int32_t, uint32_t)
#endif

#endif /* HK_DOT_S16_H */
