/*
 * helia-aot kernel library: int16 ADD and MUL runs on the DSP extension (see hk_binary_wide.h).
 *
 * Follow LiteRT reference_ops::Add (int16, general scales: each input shifted left by 15,
 * moved to a shared scale by MultiplyByQuantizedMultiplierSmallerThanOneExp, summed and
 * requantized) and reference_integer_ops::Mul (int16: the product requantized by
 * MultiplyByQuantizedMultiplier), two outputs per step from one word of each input.
 *
 * Every multiplier the runs accept lies in [2^30, 2^31) (what QuantizeMultiplier gives a
 * nonzero scale), so each doubling high multiply is one SMMULR or SMMLAR that is exact for
 * every input (hk_doubling_high_q30); zero input offsets (LiteRT's int16 ADD and MUL require
 * zero points of 0) keep the packed halves usable as they are loaded. A run returns false,
 * having written nothing, for other parameters; the element loop of hk_binary.c then runs.
 */
#include "hk_binary_wide.h"

#if HK_HAVE_DSP

#include "hk_requant.h"
#include "hk_simd.h"

/*
 * gemmlowp's RoundingDivideByPOT by e in [1, 31] (ties away from zero), plus `offset`: with
 * r = e - 1 and bias = 1 + 2 * offset, ((y - [y < 0]) >> r) + bias, halved. For y >= 0 that is
 * floor((y + 2^(e-1)) / 2^e), for y < 0 floor((y - 1 + 2^(e-1)) / 2^e); the even 2 * offset
 * passes through the halving as offset. y - [y < 0] cannot wrap and nothing overflows for the
 * |y| <= 2^30 and |offset| <= 2^15 of the runs below.
 */
HK_INLINE int32_t wide_round(int32_t y, int32_t r, int32_t bias)
{
    return (((y + (y >> 31)) >> r) + bias) >> 1;
}

/* floor((x * m + 2^31) / 2^32), SMMULR. */
HK_INLINE int32_t wide_smmulr(int32_t x, int32_t m)
{
#if defined(__GNUC__)
    int32_t r;
    __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(x), "r"(m));
    return r;
#else
    return (int32_t)(((int64_t)x * m + ((int64_t)1 << 31)) >> 32);
#endif
}

/* Whether a multiplier takes the one-instruction doubling high multiply. */
HK_INLINE bool wide_q30(int32_t multiplier) { return multiplier >= (INT32_C(1) << 30); }

/* The two int16 of a word (lane 0 in the low half), each times 2^16. */
HK_INLINE int32_t wide_lo16(uint32_t w) { return (int32_t)(w << 16); }
HK_INLINE int32_t wide_hi16(uint32_t w) { return (int32_t)(w & 0xFFFF0000u); }

/* The products of halves (gcc emits SMULBB, SMULTT and SMULTB for these; its arm_acle.h has
 * no intrinsics for them). */
HK_INLINE int32_t wide_mul_bb(int32_t x, int32_t y) { return (int16_t)x * (int16_t)y; }
HK_INLINE int32_t wide_mul_tt(int32_t x, int32_t y) { return (x >> 16) * (y >> 16); }
HK_INLINE int32_t wide_mul_tb(int32_t x, int32_t y) { return (x >> 16) * (int16_t)y; }

/* Two int16 outputs in one word. */
HK_INLINE uint32_t wide_pack(int32_t lo, int32_t hi)
{
    return ((uint32_t)lo & 0xFFFFu) | ((uint32_t)hi << 16);
}

/* The activation clamp: SSAT alone when it is exactly int16's range (then the two agree). */
HK_INLINE int32_t wide_clamp(int32_t x, bool full, int32_t lo, int32_t hi)
{
    return full ? (int32_t)__builtin_arm_ssat(x, 16) : hk_clamp_i32(x, lo, hi);
}

/*
 * ADD. One input rescaled: x = a * 2^15 (left_shift 15); SMMULR of 2x = a * 2^16 (the loaded
 * half as it stands in the word) by m is floor((x * m + 2^30) / 2^31), exactly the reference's
 * doubling high multiply, then the rounding shift (e >= 1). -2^30 <= x <= 2^30 - 2^15, so the
 * SMMULR lies in (-2^30, 2^30 - 2^15]. The one multiplier that comes with shift 0 and a real
 * multiplier of at most 1/2 is 2^30 (the real 1/2 LiteRT gives the input of the larger scale),
 * for which the rescaled input is floor((x + 1) / 2) = a * 2^14: a shift, no multiply ("half").
 * With every real input multiplier at most 1/2 each rescaled input lies in [-2^29, 2^29 - 2^14],
 * their sum and its doubling high multiply in [-2^30, 2^30 - 2^15], within wide_round's bounds.
 */
typedef struct {
    int32_t m1;
    int32_t m2;
    int32_t mo;
    int32_t r1;   /* e - 1 of each shift (unused for a half input) */
    int32_t r2;
    int32_t ro;
    int32_t bias; /* 1 + 2 * output offset */
    int32_t lo;
    int32_t hi;
} wide_add_t;

/* Whether an input's rescale is one of the two forms above. */
HK_INLINE bool wide_add_input_ok(int32_t multiplier, int32_t shift)
{
    return wide_q30(multiplier) && shift >= -31 &&
           (shift <= -1 || (shift == 0 && multiplier == (INT32_C(1) << 30)));
}

/* An input value times 2^16, rescaled. */
HK_INLINE int32_t wide_add_input(int32_t x2, int32_t m, int32_t r, bool half)
{
    return half ? x2 >> 2 : wide_round(wide_smmulr(x2, m), r, 1);
}

HK_INLINE int32_t wide_add_one(const wide_add_t *k, int32_t y1, int32_t y2, bool full)
{
    const int32_t v = wide_round(hk_doubling_high_q30(y1 + y2, k->mo), k->ro, k->bias);
    return wide_clamp(v, full, k->lo, k->hi);
}

/* n outputs from a (stride 1) and b (stride 1, or 0: one value for the whole run). */
HK_INLINE void wide_add_run(const wide_add_t *k, const int16_t *a, const int16_t *b,
                            bool b_flat, bool half_a, bool half_b, bool full, int16_t *out,
                            int32_t n)
{
    const int32_t b_fixed = b_flat ? 0 : wide_add_input(b[0] * 65536, k->m2, k->r2, half_b);
    int32_t i = 0;
    for (; i + 2 <= n; i += 2) {
        const uint32_t wa = hk_load_u32(a + i);
        const int32_t a0 = wide_add_input(wide_lo16(wa), k->m1, k->r1, half_a);
        const int32_t a1 = wide_add_input(wide_hi16(wa), k->m1, k->r1, half_a);
        int32_t b0 = b_fixed, b1 = b_fixed;
        if (b_flat) {
            const uint32_t wb = hk_load_u32(b + i);
            b0 = wide_add_input(wide_lo16(wb), k->m2, k->r2, half_b);
            b1 = wide_add_input(wide_hi16(wb), k->m2, k->r2, half_b);
        }
        hk_store_u32(out + i, wide_pack(wide_add_one(k, a0, b0, full),
                                        wide_add_one(k, a1, b1, full)));
    }
    if (i < n) {
        const int32_t a0 = wide_add_input(a[i] * 65536, k->m1, k->r1, half_a);
        const int32_t b0 = b_flat ? wide_add_input(b[i] * 65536, k->m2, k->r2, half_b) : b_fixed;
        out[i] = (int16_t)wide_add_one(k, a0, b0, full);
    }
}

/* One loop per (b's stride, which inputs are half, clamp), none chosen per element. */
HK_INLINE void wide_add_clamped(const wide_add_t *k, const int16_t *a, const int16_t *b,
                                bool b_flat, bool half_a, bool half_b, int16_t *out, int32_t n)
{
    if (k->lo == -32768 && k->hi == 32767) {
        wide_add_run(k, a, b, b_flat, half_a, half_b, true, out, n);
    } else {
        wide_add_run(k, a, b, b_flat, half_a, half_b, false, out, n);
    }
}

/* The rescaled inputs are added, so the inputs (and their scales) may swap roles: a single
 * value of input 1 becomes input 2, and in a flat run a half input becomes input 1. */
static bool wide_add(const hk_binary_quant_t *q, const int16_t *a, int32_t sa, const int16_t *b,
                     int32_t sb, int16_t *out, int32_t n)
{
    if (q->left_shift != 15 || q->input1_offset != 0 || q->input2_offset != 0 ||
        !wide_add_input_ok(q->input1_multiplier, q->input1_shift) ||
        !wide_add_input_ok(q->input2_multiplier, q->input2_shift) ||
        !wide_q30(q->output_multiplier) || q->output_shift > -1 || q->output_shift < -31 ||
        q->output_offset < -32768 || q->output_offset > 32767 || (sa == 0 && sb == 0)) {
        return false;
    }
    wide_add_t k = {q->input1_multiplier, q->input2_multiplier, q->output_multiplier,
                    -q->input1_shift - 1, -q->input2_shift - 1, -q->output_shift - 1,
                    1 + 2 * q->output_offset, q->activation_min, q->activation_max};
    bool half_a = q->input1_shift == 0, half_b = q->input2_shift == 0;
    if (sa == 0 || (sb == 1 && half_b && !half_a)) {
        const int32_t m = k.m1, r = k.r1;
        const bool half = half_a;
        k.m1 = k.m2;
        k.r1 = k.r2;
        half_a = half_b;
        k.m2 = m;
        k.r2 = r;
        half_b = half;
        const int16_t *t = a;
        a = b;
        b = t;
        sb = sa;
    }
    if (sb == 0) {
        if (half_a) {
            wide_add_clamped(&k, a, b, false, true, half_b, out, n);
        } else {
            wide_add_clamped(&k, a, b, false, false, half_b, out, n);
        }
    } else if (half_b) {
        wide_add_clamped(&k, a, b, true, true, true, out, n);
    } else if (half_a) {
        wide_add_clamped(&k, a, b, true, true, false, out, n);
    } else {
        wide_add_clamped(&k, a, b, true, false, false, out, n);
    }
    return true;
}

/*
 * MUL. The products come from SMULBB / SMULTT (or SMULBB / SMULTB against a single value), at
 * most 2^30 in magnitude. A shift >= 0 is a left shift that wraps as the reference's does,
 * then SMMLAR and no rounding shift (taken with an output offset of 0 only, so the unbounded
 * result is not offset); a shift in [-31, -1] rounds the SMMLAR result (at most 2^30) with
 * wide_round, the output offset folded in.
 */
typedef struct {
    int32_t m;
    int32_t left;      /* shift >= 0: the left shift */
    int32_t right;     /* shift < 0: e - 1 */
    int32_t bias;      /* shift < 0: 1 + 2 * offset */
    int32_t lo;
    int32_t hi;
} wide_mul_t;

HK_INLINE int32_t wide_mul_one(const wide_mul_t *k, int32_t product, bool right, bool full)
{
    int32_t v;
    if (right) {
        const int32_t y = hk_doubling_high_q30(product, k->m);
        v = wide_round(y, k->right, k->bias);
    } else {
        v = hk_doubling_high_q30((int32_t)((uint32_t)product << k->left), k->m);
    }
    return wide_clamp(v, full, k->lo, k->hi);
}

HK_INLINE void wide_mul_run(const wide_mul_t *k, const int16_t *a, const int16_t *b,
                            bool b_flat, bool right, bool full, int16_t *out, int32_t n)
{
    const int32_t b_fixed = b_flat ? 0 : b[0];
    int32_t i = 0;
    for (; i + 2 <= n; i += 2) {
        const int32_t wa = (int32_t)hk_load_u32(a + i);
        int32_t p0, p1;
        if (b_flat) {
            const int32_t wb = (int32_t)hk_load_u32(b + i);
            p0 = wide_mul_bb(wa, wb);
            p1 = wide_mul_tt(wa, wb);
        } else {
            p0 = wide_mul_bb(wa, b_fixed);
            p1 = wide_mul_tb(wa, b_fixed);
        }
        hk_store_u32(out + i, wide_pack(wide_mul_one(k, p0, right, full),
                                        wide_mul_one(k, p1, right, full)));
    }
    if (i < n) {
        const int32_t product = a[i] * (b_flat ? b[i] : b_fixed);
        out[i] = (int16_t)wide_mul_one(k, product, right, full);
    }
}

/* One loop per (stride of b, shift direction, clamp) so none is chosen per element. */
HK_INLINE void wide_mul_dispatch(const wide_mul_t *k, const int16_t *a, const int16_t *b,
                                 bool b_flat, bool full, int16_t *out, int32_t n)
{
    if (k->left < 0) {
        wide_mul_run(k, a, b, b_flat, true, full, out, n);
    } else {
        wide_mul_run(k, a, b, b_flat, false, full, out, n);
    }
}

/* The product is symmetric, so a run from a single value of input 1 swaps the inputs. */
static bool wide_mul(const hk_binary_quant_t *q, const int16_t *a, int32_t sa, const int16_t *b,
                     int32_t sb, int16_t *out, int32_t n)
{
    const int32_t shift = q->output_shift;
    if (q->input1_offset != 0 || q->input2_offset != 0 || !wide_q30(q->output_multiplier) ||
        shift < -31 || shift > 31 || q->output_offset < -32768 || q->output_offset > 32767 ||
        (shift >= 0 && q->output_offset != 0) || (sa == 0 && sb == 0)) {
        return false;
    }
    const wide_mul_t k = {q->output_multiplier,
                          shift >= 0 ? shift : -1,
                          shift < 0 ? -shift - 1 : 0,
                          1 + 2 * q->output_offset,
                          q->activation_min,
                          q->activation_max};
    if (sa == 0) {
        const int16_t *t = a;
        a = b;
        b = t;
        sb = 0;
    }
    const bool full = k.lo == -32768 && k.hi == 32767;
    if (sb == 1) {
        if (full) {
            wide_mul_dispatch(&k, a, b, true, true, out, n);
        } else {
            wide_mul_dispatch(&k, a, b, true, false, out, n);
        }
    } else if (full) {
        wide_mul_dispatch(&k, a, b, false, true, out, n);
    } else {
        wide_mul_dispatch(&k, a, b, false, false, out, n);
    }
    return true;
}

bool hk_binary_run_s16(int32_t op, const hk_binary_quant_t *q, const int16_t *a, int32_t sa,
                       const int16_t *b, int32_t sb, int16_t *out, int32_t n)
{
    if ((sa != 0 && sa != 1) || (sb != 0 && sb != 1)) {
        return false;
    }
    if (op == HK_BINARY_MUL) {
        return wide_mul(q, a, sa, b, sb, out, n);
    }
    if (op == HK_BINARY_ADD && !q->pot_scale) {
        return wide_add(q, a, sa, b, sb, out, n);
    }
    return false;
}

#endif /* HK_HAVE_DSP */
