/*
 * helia-aot kernel library: shared fixed-point arithmetic.
 *
 * Every helper follows the integer arithmetic of the LiteRT reference kernels
 * (gemmlowp-style saturating rounding doubling high multiply and rounding
 * right shift, "double rounding" requantization), so results are bit-exact.
 * The emitter renames every hk_/HK_ identifier to <prefix>_hk_ when it copies
 * this library into a module, so two modules can link into one image.
 */
#ifndef HK_COMMON_H
#define HK_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HK_STATUS_OK 0
#define HK_STATUS_BAD_PARAM 5

#if defined(__GNUC__) || defined(__clang__)
#define HK_INLINE static inline __attribute__((always_inline))
#else
#define HK_INLINE static inline
#endif

HK_INLINE int32_t hk_min_i32(int32_t a, int32_t b) { return a < b ? a : b; }
HK_INLINE int32_t hk_max_i32(int32_t a, int32_t b) { return a > b ? a : b; }
HK_INLINE int32_t hk_clamp_i32(int32_t x, int32_t lo, int32_t hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}
HK_INLINE float hk_clamp_f32(float x, float lo, float hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/* Follows gemmlowp SaturatingRoundingDoublingHighMul: round(a*b / 2^31), saturating INT32_MIN^2. */
HK_INLINE int32_t hk_sat_rdhm(int32_t a, int32_t b)
{
    if (a == b && a == INT32_MIN) {
        return INT32_MAX;
    }
    const int64_t ab = (int64_t)a * (int64_t)b;
    const int64_t nudge = ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* Follows gemmlowp RoundingDivideByPOT: x / 2^exponent rounded half away from zero. */
HK_INLINE int32_t hk_rdbpot(int32_t x, int32_t exponent)
{
    if (exponent <= 0) {
        return x;
    }
    const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* Follows LiteRT MultiplyByQuantizedMultiplier(int32): x * m * 2^shift, double rounding. */
HK_INLINE int32_t hk_mbqm(int32_t x, int32_t multiplier, int32_t shift)
{
    const int32_t left = shift > 0 ? shift : 0;
    const int32_t right = shift > 0 ? 0 : -shift;
    return hk_rdbpot(hk_sat_rdhm((int32_t)((uint32_t)x << left), multiplier), right);
}

/* Follows LiteRT MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0). */
HK_INLINE int32_t hk_mbqm_smaller_than_one(int32_t x, int32_t multiplier, int32_t shift)
{
    return hk_rdbpot(hk_sat_rdhm(x, multiplier), -shift);
}

/* Follows LiteRT MultiplyByQuantizedMultiplierGreaterThanOne (shift >= 0). */
HK_INLINE int32_t hk_mbqm_greater_than_one(int32_t x, int32_t multiplier, int32_t shift)
{
    return hk_sat_rdhm((int32_t)((uint32_t)x << shift), multiplier);
}

/* Follows LiteRT MultiplyByQuantizedMultiplier(int64): the 16x8 path's reduced 16-bit multiplier,
 * one rounding shift, then the reference's static_cast<int32_t>, which keeps the low 32 bits of
 * a result past int32 (an effective scale of a few hundred, shift 8 to 14, gets there: graph
 * fuzzer cases 3:947 and 3:1760). Shifts above 14 leave the rounding term's shift count
 * negative, undefined in the reference too; the converter refuses them. */
HK_INLINE int32_t hk_mbqm_64(int64_t x, int32_t multiplier, int32_t shift)
{
    const int32_t reduced = multiplier < 0x7FFF0000 ? ((multiplier + (1 << 15)) >> 16) : 0x7FFF;
    const int32_t total_shift = 15 - shift;
    const int64_t round = (int64_t)1 << (total_shift - 1);
    const uint32_t bits = (uint32_t)(uint64_t)((x * (int64_t)reduced + round) >> total_shift);
    return bits <= (uint32_t)INT32_MAX ? (int32_t)bits : -(int32_t)(~bits) - 1;
}

HK_INLINE int8_t hk_sat_s8(int32_t x) { return (int8_t)hk_clamp_i32(x, -128, 127); }
HK_INLINE int16_t hk_sat_s16(int32_t x) { return (int16_t)hk_clamp_i32(x, -32768, 32767); }

#endif /* HK_COMMON_H */
