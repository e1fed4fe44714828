/*
 * helia-aot kernel library: gemmlowp-style fixed-point transcendental helpers.
 *
 * A value in format Qm is a raw int32 with m integer bits and 31 - m fractional bits.
 * The LiteRT reference softmax evaluates exp() and 1/(1+x) with these exact integer
 * approximations (a Taylor polynomial plus a barrel of exp(-2^k) constants, and three
 * Newton-Raphson steps), so they are reproduced operation by operation: any change of
 * rounding or evaluation order breaks bit-exactness.
 */
#ifndef HK_FIXEDPOINT_H
#define HK_FIXEDPOINT_H

#include "hk_common.h"

/* Count of leading zero bits; 32 for zero (LiteRT CountLeadingZeros<uint32_t>). */
HK_INLINE int32_t hk_clz_u32(uint32_t x)
{
    if (x == 0u) {
        return 32;
    }
#if defined(__GNUC__) || defined(__clang__)
    return (int32_t)__builtin_clz(x);
#else
    int32_t n = 0;
    while ((x & 0x80000000u) == 0u) {
        x <<= 1;
        ++n;
    }
    return n;
#endif
}

/* Wrapping int32 add/sub: the fixed-point +/- of gemmlowp do not saturate. */
HK_INLINE int32_t hk_fp_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
HK_INLINE int32_t hk_fp_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

/* Follows gemmlowp RoundingHalfSum(int32): (a + b) / 2 rounded half away from zero. */
HK_INLINE int32_t hk_fp_rounding_half_sum(int32_t a, int32_t b)
{
    const int64_t sum = (int64_t)a + (int64_t)b;
    const int64_t sign = sum >= 0 ? 1 : -1;
    return (int32_t)((sum + sign) / 2);
}

/* Follows gemmlowp SaturatingRoundingMultiplyByPOT: saturating left shift, or rounding right shift. */
HK_INLINE int32_t hk_fp_mul_pot(int32_t x, int32_t exponent)
{
    if (exponent > 0) {
        const int32_t threshold = (int32_t)(((int64_t)1 << (31 - exponent)) - 1);
        if (x > threshold) {
            return INT32_MAX;
        }
        if (x < -threshold) {
            return INT32_MIN;
        }
        return (int32_t)((uint32_t)x << exponent);
    }
    return hk_rdbpot(x, -exponent);
}

/* Follows gemmlowp Rescale: re-express a Q(src_bits) value as Q(dst_bits). */
HK_INLINE int32_t hk_fp_rescale(int32_t x, int32_t src_bits, int32_t dst_bits)
{
    return hk_fp_mul_pot(x, src_bits - dst_bits);
}

/* Follows gemmlowp exp_on_interval_between_negative_one_quarter_and_0_excl (Q0 -> Q0). */
HK_INLINE int32_t hk_fp_exp_on_interval(int32_t a)
{
    const int32_t exp_minus_one_eighth = 1895147668; /* round(exp(-1/8) * 2^31) */
    const int32_t one_third = 715827883;             /* round(2^31 / 3) */
    const int32_t x = hk_fp_add(a, (int32_t)1 << 28); /* Taylor expansion around -1/8 */
    const int32_t x2 = hk_sat_rdhm(x, x);
    const int32_t x3 = hk_sat_rdhm(x2, x);
    const int32_t x4 = hk_sat_rdhm(x2, x2);
    const int32_t x4_over_4 = hk_fp_mul_pot(x4, -2);
    const int32_t poly = hk_fp_mul_pot(
        hk_fp_add(hk_sat_rdhm(hk_fp_add(x4_over_4, x3), one_third), x2), -1);
    return hk_fp_add(exp_minus_one_eighth, hk_sat_rdhm(exp_minus_one_eighth, hk_fp_add(x, poly)));
}

/* Follows gemmlowp exp_on_negative_values: exp(a) for a <= 0 given in Q(integer_bits), result Q0. */
HK_INLINE int32_t hk_fp_exp_on_negative_values(int32_t a, int32_t integer_bits)
{
    /* exp(-2^k) in Q0 for k = -2..4; applied for each set bit of the integer part. */
    static const int32_t barrel[7] = {1672461947, 1302514674, 790015084, 290630308,
                                      39332535, 720401, 242};
    const int32_t fractional_bits = 31 - integer_bits;
    const int32_t one_quarter = (int32_t)1 << (fractional_bits - 2);
    const int32_t mask = one_quarter - 1;
    const int32_t a_mod_quarter_minus_quarter = hk_fp_sub(a & mask, one_quarter);
    int32_t result = hk_fp_exp_on_interval(hk_fp_rescale(a_mod_quarter_minus_quarter, integer_bits, 0));
    const int32_t remainder = hk_fp_sub(a_mod_quarter_minus_quarter, a);
    for (int32_t k = -2; k <= 4; ++k) {
        if (integer_bits > k) {
            const int32_t bit = fractional_bits + k;
            if ((remainder & (int32_t)((uint32_t)1 << bit)) != 0) {
                result = hk_sat_rdhm(result, barrel[k + 2]);
            }
        }
    }
    if (integer_bits > 5) {
        const int32_t clamp = -(int32_t)((uint32_t)1 << (36 - integer_bits)); /* -32.0 */
        if (a < clamp) {
            result = 0;
        }
    }
    if (a == 0) {
        result = INT32_MAX;
    }
    return result;
}

/* Follows gemmlowp one_over_one_plus_x_for_x_in_0_1: 1/(1+a) for a in [0, 1) as Q0, result Q0. */
HK_INLINE int32_t hk_fp_one_over_one_plus_x(int32_t a)
{
    const int32_t c48_over_17 = 1515870810;      /* 48/17 in Q2 */
    const int32_t c_neg32_over_17 = -1010580540; /* -32/17 in Q2 */
    const int32_t q2_one = (int32_t)1 << 29;
    const int32_t half_denominator = hk_fp_rounding_half_sum(a, INT32_MAX);
    int32_t x = hk_fp_add(c48_over_17, hk_sat_rdhm(half_denominator, c_neg32_over_17));
    for (int32_t i = 0; i < 3; ++i) {
        const int32_t half_denominator_times_x = hk_sat_rdhm(half_denominator, x);
        const int32_t one_minus = hk_fp_sub(q2_one, half_denominator_times_x);
        x = hk_fp_add(x, hk_fp_rescale(hk_sat_rdhm(x, one_minus), 4, 2));
    }
    /* Halving is exact (Q2 -> Q1 reinterpretation), then Q1 -> Q0 saturates. */
    return hk_fp_rescale(x, 1, 0);
}

/* Follows LiteRT GetReciprocal: 1/x for x in Q(integer_digits), as a Q0 scale and a bit count. */
HK_INLINE int32_t hk_fp_reciprocal(int32_t x, int32_t integer_digits, int32_t *num_bits_over_unit)
{
    const int32_t headroom_plus_one = hk_clz_u32((uint32_t)x);
    *num_bits_over_unit = integer_digits - headroom_plus_one;
    const int32_t shifted_minus_one =
        (int32_t)(((uint32_t)x << headroom_plus_one) - ((uint32_t)1 << 31));
    return hk_fp_one_over_one_plus_x(shifted_minus_one);
}

#endif /* HK_FIXEDPOINT_H */
