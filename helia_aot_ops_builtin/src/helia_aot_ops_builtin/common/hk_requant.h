/*
 * helia-aot kernel library: fast requantization, bit-exact with hk_mbqm.
 *
 * LiteRT's MultiplyByQuantizedMultiplier is a left shift, gemmlowp's saturating rounding
 * doubling high multiply, then a rounding right shift with ties away from zero. The helpers
 * here compute the same integers with fewer instructions:
 *   - the doubling high multiply's sign-dependent nudge comes to floor((a*b + 2^30) / 2^31)
 *     for either sign, which is one multiply-long, an add and a shift, and is exactly what
 *     Helium's VQRDMULH computes;
 *   - VRSHL rounds ties up, so a negative dividend is lowered by one first (only when the
 *     shift is nonzero), which turns "ties up" into "ties away from zero".
 * Shifts must lie in [-31, 31], which is what QuantizeMultiplier produces.
 */
#ifndef HK_REQUANT_H
#define HK_REQUANT_H

#include "hk_common.h"
#include "hk_isa.h"
#include "hk_simd.h"

/* gemmlowp RoundingDivideByPOT for exponent in [0, 31], without a branch. */
HK_INLINE int32_t hk_requant_rdbpot(int32_t x, int32_t exponent)
{
    const int32_t mask = (int32_t)((1u << exponent) - 1u);
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + ((x & mask) > threshold ? 1 : 0);
}

/* Same value as hk_mbqm(x, multiplier, shift) for shift in [-31, 31]. */
HK_INLINE int32_t hk_requant(int32_t x, int32_t multiplier, int32_t shift)
{
    const int32_t left = shift > 0 ? shift : 0;
    const int32_t a = (int32_t)((uint32_t)x << left);
    if (a == INT32_MIN && multiplier == INT32_MIN) {
        return hk_requant_rdbpot(INT32_MAX, left - shift);
    }
    const int64_t product = (int64_t)a * (int64_t)multiplier + ((int64_t)1 << 30);
    return hk_requant_rdbpot((int32_t)(product >> 31), left - shift);
}

/* hk_requant for shift <= 0 and multiplier != INT32_MIN: no left shift, and the product can
 * not saturate (see hk_requant_mode). */
HK_INLINE int32_t hk_requant_right(int32_t x, int32_t multiplier, int32_t shift)
{
    const int64_t product = (int64_t)x * (int64_t)multiplier + ((int64_t)1 << 30);
    return hk_requant_rdbpot((int32_t)(product >> 31), -shift);
}

/* hk_requant, then the output zero point and the activation clamp. */
HK_INLINE int32_t hk_requant_clamp(int32_t x, int32_t multiplier, int32_t shift, int32_t offset,
                                   int32_t lo, int32_t hi)
{
    return hk_clamp_i32(hk_requant(x, multiplier, shift) + offset, lo, hi);
}

#if HK_HAVE_MVE

/* hk_requant on four lanes, each with its own multiplier and shift. */
HK_INLINE int32x4_t hk_requant_mve(int32x4_t x, int32x4_t multiplier, int32x4_t shift)
{
    const int32x4_t zero = vdupq_n_s32(0);
    const int32x4_t right = vminq_s32(shift, zero); /* <= 0: VRSHL shifts right by -right */
    int32x4_t v = vqrdmulhq_s32(vshlq_s32(x, vmaxq_s32(shift, zero)), multiplier);
    /* All ones where v < 0 and right != 0: the sign of (v & right). */
    v = vqaddq_s32(v, vshrq_n_s32(vandq_s32(v, right), 31));
    return vrshlq_s32(v, right);
}

/* hk_requant_mve for shifts that are all <= 0 (the usual case: multipliers below one), which
 * needs no left shift and no split of the shift into its two directions. */
HK_INLINE int32x4_t hk_requant_right_mve(int32x4_t x, int32x4_t multiplier, int32x4_t shift)
{
    int32x4_t v = vqrdmulhq_s32(x, multiplier);
    v = vqaddq_s32(v, vshrq_n_s32(vandq_s32(v, shift), 31));
    return vrshlq_s32(v, shift);
}

/* hk_requant_clamp on four lanes. */
HK_INLINE int32x4_t hk_requant_clamp_mve(int32x4_t x, int32x4_t multiplier, int32x4_t shift,
                                         int32_t offset, int32_t lo, int32_t hi)
{
    const int32x4_t v = vaddq_n_s32(hk_requant_mve(x, multiplier, shift), offset);
    return vminq_s32(vmaxq_s32(v, vdupq_n_s32(lo)), vdupq_n_s32(hi));
}

/* Four channels of two output pixels at once (the convolutions' two-pixel loops): bias b added
 * to both, requantized with each channel's multiplier m and shift s (`general`: hk_requant_mve,
 * else every shift is <= 0 and hk_requant_right_mve does), the output offset added and clamped
 * to [vlo, vhi]. */
HK_INLINE void hk_requant_pair_mve(int32x4_t *ya, int32x4_t *yb, int32x4_t b, int32x4_t m,
                                   int32x4_t s, bool general, int32_t offset, int32x4_t vlo,
                                   int32x4_t vhi)
{
    int32x4_t a = vaddq_s32(*ya, b), c = vaddq_s32(*yb, b);
    if (general) {
        a = hk_requant_mve(a, m, s);
        c = hk_requant_mve(c, m, s);
    } else {
        a = hk_requant_right_mve(a, m, s);
        c = hk_requant_right_mve(c, m, s);
    }
    *ya = vminq_s32(vmaxq_s32(vaddq_n_s32(a, offset), vlo), vhi);
    *yb = vminq_s32(vmaxq_s32(vaddq_n_s32(c, offset), vlo), vhi);
}

#endif /* HK_HAVE_MVE */

/* How a kernel call's channels may be requantized, from the cheapest form that is exact for
 * all of them (hk_requant_mode, checked once per call). Real multipliers lie in [2^30, 2^31)
 * with shifts in about [-20, -1] unless a scale ratio is at least one half. */
#define HK_REQUANT_GENERAL 0 /* hk_requant: some shift is a left shift, or a multiplier is
                                INT32_MIN (the only one whose doubling product saturates) */
#define HK_REQUANT_RIGHT 1   /* hk_requant_right: every shift <= 0 */
#define HK_REQUANT_NARROW 2  /* every shift in [-23, -1], int8 output: hk_requant_s8_narrow */
#if HK_HAVE_DSP
#define HK_REQUANT_Q30 3     /* DSP only: every multiplier in [2^30, 2^31) (what QuantizeMultiplier
                                gives a nonzero scale) and every shift in [-31, -1]:
                                hk_requant_row_q30_dsp */
#endif

HK_INLINE int32_t hk_requant_mode(const int32_t *mult, const int32_t *shift, int32_t n)
{
#if HK_HAVE_MVE
    /* The largest and smallest shift and the smallest multiplier, four channels per step
     * (each kernel call pays this once, so it must stay cheap for wide layers). */
    int32x4_t most = vdupq_n_s32(INT32_MIN), least = vdupq_n_s32(INT32_MAX), low = least;
    int32_t i = 0;
    /* Whole vectors unpredicated (half the instructions of a predicated step: row-by-row calls
     * at goal size pay this once per row), the last channels under a predicate. */
    for (; i + 4 <= n; i += 4) {
        const int32x4_t s = vldrwq_s32(shift + i);
        most = vmaxq_s32(most, s);
        least = vminq_s32(least, s);
        low = vminq_s32(low, vldrwq_s32(mult + i));
    }
    if (i < n) {
        const mve_pred16_t p = vctp32q((uint32_t)(n - i));
        const int32x4_t s = vldrwq_z_s32(shift + i, p);
        most = vmaxq_m_s32(most, most, s, p);
        least = vminq_m_s32(least, least, s, p);
        low = vminq_m_s32(low, low, vldrwq_z_s32(mult + i, p), p);
    }
    const int32_t top = vmaxvq_s32(INT32_MIN, most), bottom = vminvq_s32(INT32_MAX, least);
    if (n > 0 && (top > 0 || vminvq_s32(INT32_MAX, low) == INT32_MIN)) {
        return HK_REQUANT_GENERAL;
    }
    return n <= 0 || (top <= -1 && bottom >= -23) ? HK_REQUANT_NARROW : HK_REQUANT_RIGHT;
#elif HK_HAVE_DSP
    /* The Q30 mode (SMMLAR requantization, see below) first, in four bitwise steps a channel
     * (calls that run once per output pixel pay this each time): every shift negative (its
     * sign bit in `neg`) and at least -31 (shift + 31 not negative), every multiplier's top
     * two bits 01, that is in [2^30, 2^31). Shifts lie in [-31, 31] (QuantizeMultiplier), so
     * shift + 31 cannot wrap. */
    uint32_t neg = ~0u, low = 0u, ones = ~0u, any = 0u;
    for (int32_t i = 0; i < n; ++i) {
        const uint32_t s = (uint32_t)shift[i], m = (uint32_t)mult[i];
        neg &= s;
        low |= s + 31u;
        ones &= m;
        any |= m;
    }
    if ((neg >> 31) != 0u && (low >> 31) == 0u && ((ones >> 30) & 1u) != 0u && (any >> 31) == 0u) {
        return HK_REQUANT_Q30;
    }
    /* Otherwise one pass for the other modes (its q30 is false then). */
    int32_t general = 0, narrow = 1;
    int32_t q30 = 1;
    for (int32_t i = 0; i < n; ++i) {
        general |= (shift[i] > 0) | (mult[i] == INT32_MIN);
        narrow &= (shift[i] <= -1) & (shift[i] >= -23);
        q30 &= (mult[i] >= (INT32_C(1) << 30)) & (shift[i] <= -1) & (shift[i] >= -31);
    }
    if (q30) {
        return HK_REQUANT_Q30;
    }
    return general ? HK_REQUANT_GENERAL : (narrow ? HK_REQUANT_NARROW : HK_REQUANT_RIGHT);
#else
    /* Sign bits, four channels per step (each kernel call pays this once, so it must stay cheap
     * for wide layers): 0 - shift is negative for a left shift, and a multiplier that is
     * negative (INT32_MIN, or no real multiplier at all) takes the general form too, which is
     * exact for every value; shift + 23 or ~shift is negative unless shift is in [-23, -1]. */
    uint32_t general = 0u, off = 0u;
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const uint32_t s0 = (uint32_t)shift[i], s1 = (uint32_t)shift[i + 1];
        const uint32_t s2 = (uint32_t)shift[i + 2], s3 = (uint32_t)shift[i + 3];
        general |= (0u - s0) | (0u - s1) | (0u - s2) | (0u - s3);
        general |= (uint32_t)mult[i] | (uint32_t)mult[i + 1] | (uint32_t)mult[i + 2] |
                   (uint32_t)mult[i + 3];
        off |= (s0 + 23u) | ~s0 | (s1 + 23u) | ~s1 | (s2 + 23u) | ~s2 | (s3 + 23u) | ~s3;
    }
    for (; i < n; ++i) {
        const uint32_t s0 = (uint32_t)shift[i];
        general |= (0u - s0) | (uint32_t)mult[i];
        off |= (s0 + 23u) | ~s0;
    }
    if ((general >> 31) != 0u) {
        return HK_REQUANT_GENERAL;
    }
    return (off >> 31) != 0u ? HK_REQUANT_RIGHT : HK_REQUANT_NARROW;
#endif
}

#if HK_HAVE_DSP
/*
 * gemmlowp's doubling high multiply of x by a multiplier m in [2^30, 2^31), in one SMMLAR:
 * with m2 = 2m - 2^32 (the word 2m), x * 2^32 + x * m2 + 2^31 = 2xm + 2^31, whose high word is
 * floor((x * m + 2^30) / 2^31), the value hk_requant_right rounds from. The 64-bit sum cannot
 * overflow and the result fits int32 (|x * m| < 2^62).
 */
HK_INLINE int32_t hk_doubling_high_q30(int32_t x, int32_t m)
{
    const int32_t m2 = (int32_t)((uint32_t)m << 1);
#if defined(__GNUC__)
    int32_t y;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(y) : "r"(x), "r"(m2), "r"(x));
    return y;
#else
    return (int32_t)(((int64_t)x * (int64_t)m + ((int64_t)1 << 30)) >> 31);
#endif
}

/* SSAT to int8. ACLE's __ssat macro stores the builtin's unsigned result in an int32_t, which
 * -Wsign-conversion reports in every caller; the builtin with an explicit cast says the same. */
HK_INLINE int32_t hk_ssat8_dsp(int32_t x)
{
    return (int32_t)__builtin_arm_ssat(x, 8);
}

/*
 * hk_requant_row_s8 for HK_REQUANT_Q30, in about half the instructions of the narrow form.
 * Rounding y to nearest by 2^e with ties away from zero (e = -shift in [1, 31]) is
 * ((y - [y < 0]) >> (e - 1)) + 1, halved (floor): for y >= 0 that is floor((y + 2^(e-1)) / 2^e),
 * for y < 0 floor((y - 1 + 2^(e-1)) / 2^e), as gemmlowp's RoundingDivideByPOT. y - [y < 0]
 * cannot wrap (y > INT32_MIN, see hk_doubling_high_q30); the + 1 saturates (QADD) only for
 * y = INT32_MAX with e = 1, whose exact and saturated results both clamp to hi. SSAT to int8
 * then the activation clamp equals the clamp alone, as lo and hi lie within int8.
 */
HK_INLINE void hk_requant_row_q30_dsp(const int32_t *acc, const int32_t *mult,
                                      const int32_t *shift, int32_t n, int32_t offset, int32_t lo,
                                      int32_t hi, int8_t *out)
{
    if (lo == -128 && hi == 127) {
        for (int32_t i = 0; i < n; ++i) {
            const int32_t y = hk_doubling_high_q30(acc[i], mult[i]);
            const int32_t q = __qadd((y + (y >> 31)) >> ~shift[i], 1);
            out[i] = (int8_t)hk_ssat8_dsp(offset + (q >> 1));
        }
        return;
    }
    for (int32_t i = 0; i < n; ++i) {
        const int32_t y = hk_doubling_high_q30(acc[i], mult[i]);
        const int32_t q = __qadd((y + (y >> 31)) >> ~shift[i], 1);
        out[i] = (int8_t)hk_clamp_i32(hk_ssat8_dsp(offset + (q >> 1)), lo, hi);
    }
}
#endif /* HK_HAVE_DSP */

/*
 * hk_requant_clamp to int8 for shift in [-23, -1] and multiplier != INT32_MIN. The rounding
 * division becomes (y + 2^(e-1) - [y < 0]) >> e, whose add saturates instead of overflowing
 * (one QADD on the DSP): only a y within 2^(e-1) of INT32_MAX saturates, and then both the
 * exact quotient and the saturated one are at least 2^(31-e) - 1 >= 255, which the clamp to
 * [lo, hi] within int8 (after an offset of at most 128) maps to hi either way.
 */
HK_INLINE int32_t hk_requant_s8_narrow(int32_t x, int32_t multiplier, int32_t shift,
                                       int32_t offset, int32_t lo, int32_t hi)
{
    const int64_t product = (int64_t)x * (int64_t)multiplier + ((int64_t)1 << 30);
    const int32_t y = (int32_t)(product >> 31);
    const int32_t e = -shift;
    const int32_t half = (int32_t)(1u << (e - 1)) - (int32_t)((uint32_t)y >> 31);
#if HK_HAVE_DSP
    const int32_t sum = __qadd(y, half);
#else
    const int32_t sum = y > INT32_MAX - half ? INT32_MAX : y + half;
#endif
    return hk_clamp_i32((sum >> e) + offset, lo, hi);
}

/* One row of per-channel requantization, as a separate pass so the accumulating loop before it
 * keeps its registers: out[i] = clamp(requant(acc[i], mult[i], shift[i]) + offset, lo, hi),
 * lo and hi within int8. `mode` is hk_requant_mode(mult, shift, n), computed once per call. */
HK_INLINE void hk_requant_row_s8(const int32_t *acc, const int32_t *mult, const int32_t *shift,
                                 int32_t n, int32_t offset, int32_t lo, int32_t hi, int32_t mode,
                                 int8_t *out)
{
#if HK_HAVE_MVE
    const int32x4_t vlo = vdupq_n_s32(lo), vhi = vdupq_n_s32(hi);
    int32_t i = 0;
    if (mode == HK_REQUANT_GENERAL) {
        for (; i < n; i += 4) {
            const mve_pred16_t p = vctp32q((uint32_t)(n - i));
            int32x4_t v = hk_requant_mve(vldrwq_z_s32(acc + i, p), vldrwq_z_s32(mult + i, p),
                                         vldrwq_z_s32(shift + i, p));
            v = vminq_s32(vmaxq_s32(vaddq_n_s32(v, offset), vlo), vhi);
            vstrbq_p_s32(out + i, v, p);
        }
        return;
    }
    for (; i + 4 <= n; i += 4) {
        int32x4_t v = hk_requant_right_mve(vldrwq_s32(acc + i), vldrwq_s32(mult + i),
                                           vldrwq_s32(shift + i));
        vstrbq_s32(out + i, vminq_s32(vmaxq_s32(vaddq_n_s32(v, offset), vlo), vhi));
    }
    if (i < n) {
        const mve_pred16_t p = vctp32q((uint32_t)(n - i));
        int32x4_t v = hk_requant_right_mve(vldrwq_z_s32(acc + i, p), vldrwq_z_s32(mult + i, p),
                                           vldrwq_z_s32(shift + i, p));
        vstrbq_p_s32(out + i, vminq_s32(vmaxq_s32(vaddq_n_s32(v, offset), vlo), vhi), p);
    }
#else
    /* One loop per mode, so the choice is not made per element. */
#if HK_HAVE_DSP
    if (mode == HK_REQUANT_Q30) {
        hk_requant_row_q30_dsp(acc, mult, shift, n, offset, lo, hi, out);
        return;
    }
#endif
    if (mode == HK_REQUANT_NARROW) {
        for (int32_t i = 0; i < n; ++i) {
            out[i] = (int8_t)hk_requant_s8_narrow(acc[i], mult[i], shift[i], offset, lo, hi);
        }
    } else if (mode == HK_REQUANT_RIGHT) {
        for (int32_t i = 0; i < n; ++i) {
            const int32_t v = hk_requant_right(acc[i], mult[i], shift[i]) + offset;
            out[i] = (int8_t)hk_clamp_i32(v, lo, hi);
        }
    } else {
        for (int32_t i = 0; i < n; ++i) {
            out[i] = (int8_t)hk_requant_clamp(acc[i], mult[i], shift[i], offset, lo, hi);
        }
    }
#endif
}

#endif /* HK_REQUANT_H */
