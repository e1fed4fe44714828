/*
 * helia-aot kernel library: LiteRT's double-precision requantization, fast on every core.
 *
 * LiteRT's reference FULLY_CONNECTED computes static_cast<int32_t>(std::round(double(acc) *
 * scale)) per output. hk_fc_requant gives exactly that value (INT32_MIN for a value that rounds
 * beyond int32, see hk_round_to_i32) in the cheapest form the target allows, chosen at compile
 * time:
 *   - Armv8-M with a double-precision FPU (Cortex-M55): VCVTA, which rounds half away from
 *     zero in one instruction but saturates, so a result of INT32_MAX is checked again;
 *   - other Arm cores, where double arithmetic is a software library (Cortex-M4F): an integer
 *     computation that is provably equal except within a tiny slack of a rounding tie, where
 *     it falls back to the software double code (HK_FC_REQUANT_INTEGER selects it anywhere,
 *     which is how the host tests reach it);
 *   - elsewhere: the double arithmetic itself.
 */
#ifndef HK_FC_REQUANT_H
#define HK_FC_REQUANT_H

#include "hk_common.h"

#if defined(HK_FC_REQUANT_INTEGER)
#define HK_FC_REQUANT_PATH_INTEGER 1
#elif defined(__arm__) && defined(__GNUC__) && defined(__ARM_FP) && (__ARM_FP & 8) && \
    defined(__ARM_ARCH) && __ARM_ARCH >= 8
#define HK_FC_REQUANT_PATH_VCVTA 1
#elif defined(__arm__)
#define HK_FC_REQUANT_PATH_INTEGER 1
#endif

/* static_cast<int32_t>(std::round(x)) for a finite double, without libm: halves round away
 * from zero. x - trunc(x) is exact in binary floating point, so the comparison is too. A value
 * that rounds beyond int32 gives INT32_MIN, in either direction: C++ leaves that conversion
 * undefined, and the LiteRT reference (x86-64, cvttsd2si) returns the "integer indefinite"
 * INT32_MIN, so an int16 FULLY_CONNECTED whose requantization overflows outputs its minimum
 * there (graph fuzzer case 1:292). */
static inline int32_t hk_round_to_i32(double x)
{
    if (!(x > -2147483648.0 && x < 2147483647.0)) {
        return (x >= 2147483647.0 && x < 2147483647.5) ? INT32_MAX : INT32_MIN;
    }
    int32_t whole = (int32_t)x;
    const double fraction = x - (double)whole;
    if (fraction >= 0.5) {
        ++whole;
    } else if (fraction <= -0.5) {
        --whole;
    }
    return whole;
}

#if defined(HK_FC_REQUANT_PATH_INTEGER)
/*
 * For scales in [2^-32, 2^-2) the 53-bit significand rounded to 31 bits gives mult with
 * |mult * 2^-n - scale| <= 2^(-n-1), n = 32 + k, k in [1, 30]. |acc| * mult then misses
 * |acc| * scale * 2^n by at most |acc| / 2, and the double product's own rounding adds at most
 * 2^-53 relative, under 2^10 in these units. So rounding z = |acc| * mult + 2^(n-1) down to a
 * multiple of 2^n gives round(|p|) unless z lies within that slack of a multiple of 2^n, i.e.
 * p is near a tie; those rare cases, and other scales, take the double code. |acc| * mult is
 * below 2^62, so only its high word is shifted and the result needs no saturation.
 */
/* The part of the integer requantization that depends on the scale alone, so that a kernel
 * with one scale for every output decodes it once: k in [1, 30] and the 31-bit multiplier, or
 * k = 0 for a scale outside [2^-32, 2^-2) (then the double code runs). */
typedef struct {
    uint32_t k;
    uint32_t mult;
    double scale;
} hk_fc_scale_t;

static inline hk_fc_scale_t hk_fc_scale_decode(double scale)
{
    uint64_t bits;
    memcpy(&bits, &scale, sizeof bits);
    const uint32_t top = (uint32_t)(bits >> 32);
    const uint32_t low = (uint32_t)bits;
    /* The sign bit lands above the exponent, so negative scales fail the range test too. */
    const uint32_t k = 1021u - (top >> 20);
    hk_fc_scale_t decoded = {0u, 0u, scale};
    if (k - 1u < 30u) {
        decoded.k = k;
        decoded.mult =
            ((((top & 0xFFFFFu) | 0x100000u) << 10) | (low >> 22)) + ((low >> 21) & 1u);
    }
    return decoded;
}

/* hk_fc_requant(acc, s->scale) from the decoded scale. */
static inline int32_t hk_fc_requant_decoded(int32_t acc, const hk_fc_scale_t *s)
{
    const uint32_t k = s->k;
    if (k != 0u) {
        const uint32_t magnitude = acc < 0 ? 0u - (uint32_t)acc : (uint32_t)acc;
        const uint64_t product = (uint64_t)magnitude * s->mult;
        const uint32_t high = (uint32_t)(product >> 32) + (1u << (k - 1u));
        const uint32_t below = (uint32_t)product;
        const uint32_t mask = (1u << k) - 1u;
        const uint32_t slack = (magnitude >> 1) + 1026u;
        /* slack <= (high & mask):below < 2^n - slack, where slack < 2^32. */
        if (((high & mask) != 0u || below >= slack) &&
            ((high & mask) != mask || ~below >= slack)) {
            const int32_t rounded = (int32_t)(high >> k);
            return acc < 0 ? -rounded : rounded;
        }
    }
    return hk_round_to_i32((double)acc * s->scale);
}

static inline int32_t hk_fc_requant(int32_t acc, double scale)
{
    const hk_fc_scale_t decoded = hk_fc_scale_decode(scale);
    return hk_fc_requant_decoded(acc, &decoded);
}
#elif defined(HK_FC_REQUANT_PATH_VCVTA)
/* VCVTA alone: round(x) saturated to int32, which differs from the reference only where x
 * rounds beyond INT32_MAX (the reference gives INT32_MIN there). */
static inline int32_t hk_fc_vcvta(double x)
{
    int32_t rounded;
    __asm__("vcvta.s32.f64 %0, %P1" : "=t"(rounded) : "w"(x));
    return rounded;
}

static inline int32_t hk_fc_requant(int32_t acc, double scale)
{
    const double x = (double)acc * scale;
    const int32_t rounded = hk_fc_vcvta(x);
    return rounded != INT32_MAX ? rounded : hk_round_to_i32(x);
}

#define HK_FC_REQUANT_BOUNDED_VCVTA 1
static inline int32_t hk_fc_requant_bounded(int32_t acc, double scale)
{
    return hk_fc_vcvta((double)acc * scale);
}
#else
static inline int32_t hk_fc_requant(int32_t acc, double scale)
{
    return hk_round_to_i32((double)acc * scale);
}
#endif

/* hk_fc_requant for a layer whose outputs the converter proved unaffected by where a value
 * beyond int32 goes (helia_aot_ops_builtin.fully_connected.fc_integer_requant.saturation_free:
 * every |acc * scale| below 2^31 - 1, or an output offset other than 0, which sends INT32_MAX
 * and INT32_MIN to the same clamped output once added modulo 2^32): the packed int8 paths, which
 * on the Cortex-M55 then take VCVTA alone. */
#if !defined(HK_FC_REQUANT_BOUNDED_VCVTA)
static inline int32_t hk_fc_requant_bounded(int32_t acc, double scale)
{
    return hk_fc_requant(acc, scale);
}
#endif

/* The 64-bit accumulators of the int16 kernels: through hk_fc_requant when they fit. */
static inline int32_t hk_fc_requant64(int64_t acc, double scale)
{
    if (acc >= INT32_MIN && acc <= INT32_MAX) {
        return hk_fc_requant((int32_t)acc, scale);
    }
    return hk_round_to_i32((double)acc * scale);
}

#endif /* HK_FC_REQUANT_H */
