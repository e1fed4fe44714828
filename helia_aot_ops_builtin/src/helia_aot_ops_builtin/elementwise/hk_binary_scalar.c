/*
 * helia-aot kernel library: the int8 ADD, SUB and MUL runs of cores without Helium (see
 * hk_binary_paths.h): an exact scalar requantization that keeps every intermediate below 2^30,
 * where gemmlowp's saturating steps cannot saturate, so it can leave them out.
 */
#include "hk_binary_paths.h"

#include "hk_isa.h"

#include <stddef.h>

#if !HK_HAVE_MVE

/* gemmlowp's doubling high multiply for |a| < 2^30, where it never saturates: floor((a * b +
 * 2^30) / 2^31), which is SMMULR of 2a and b. */
HK_INLINE int32_t binary_srdhm(int32_t a, int32_t b)
{
#if HK_HAVE_DSP && defined(__GNUC__)
    int32_t r;
    __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a * 2), "r"(b));
    return r;
#else
    return (int32_t)(((int64_t)a * b + ((int64_t)1 << 30)) >> 31);
#endif
}

/* A right shift of `exponent` bits (0 to 31) rounding half away from zero, for |x| < 2^30:
 * round = 2^(exponent - 1) and fix = -1, or both 0 for exponent 0; negative x is lowered by
 * one first so that ties round down. */
typedef struct {
    int32_t exponent;
    int32_t round;
    int32_t fix;
} binary_shift_t;

HK_INLINE binary_shift_t binary_shift(int32_t shift)
{
    const int32_t exponent = -hk_min_i32(shift, 0);
    const binary_shift_t s = {exponent, exponent > 0 ? 1 << (exponent - 1) : 0,
                              exponent > 0 ? -1 : 0};
    return s;
}

HK_INLINE int32_t binary_rdbpot(int32_t x, binary_shift_t s)
{
    return (x + s.round + ((x & s.fix) >> 31)) >> s.exponent;
}

/* Whether the input offsets are those of int8 zero points (with room to spare): then every
 * intermediate of the runs below stays under 2^30 in magnitude. */
HK_INLINE bool binary_small_offsets(const hk_binary_quant_t *q)
{
    return q->input1_offset >= -256 && q->input1_offset <= 256 && q->input2_offset >= -256 &&
           q->input2_offset <= 256;
}

#if HK_HAVE_DSP && defined(__GNUC__)
/* SMMLAR: acc + floor((a * b + 2^31) / 2^32), exactly (acc is added as acc * 2^32). */
HK_INLINE int32_t binary_smmlar(int32_t a, int32_t b, int32_t acc)
{
    int32_t r;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
    return r;
}

/*
 * add_sub_run_s8's arithmetic in fewer steps on the DSP extension, for an output right shift of
 * at least one bit and non-negative multipliers (what LiteRT's Prepare gives), the bytes the
 * same:
 * - an input's (v + offset) * 2^ls, doubled for SMMULR, is one MLA: v * 2^(ls+1) + offset * 2^(ls+1);
 * - the doubling high multiply and the shift's rounding constant are one SMMLAR (the constant
 *   accumulated, exactly as an addition after it);
 * - the rounding's "negative first lowered by one" reads the sign of the multiply's operand,
 *   not its result: with a non-negative multiplier they agree except where the result is 0,
 *   which rounds to 0 either way (2^(e-1) - 1 and 2^(e-1) both shift to 0);
 * - the output offset rides in the output shift's rounding constant as offset * 2^eo (adding a
 *   multiple of 2^eo before an arithmetic shift adds offset after it; the guard keeps it below
 *   2^30 in magnitude, so the sum cannot overflow).
 */
#if defined(__OPTIMIZE__) && !defined(__clang__)
#define ADD_HALF_ASM 1
/* add_sub_run_dsp's ADD of two flat int8 runs with left_shift 20 in one assembly loop, for
 * the form LiteRT gives every int8 ADD whose scales differ: input `h` at the larger scale has
 * the multiplier 2^30 and no shift, so its rescaled value is exactly (v + offset) * 2^19 (the
 * SMMLAR of (v + offset) * 2^21 by 2^30 drops no bit), one ADD with a shifted operand; input
 * `g` takes its SMMLAR with the sign fix folded into the accumulated rounding constant
 * (r - [t < 0], added exactly as SMMLAR adds its accumulator) and a shift of at least one bit,
 * and the output's alike. The clamp is SSAT to int8 (the activation's maximum is 127) and the
 * activation's minimum. Fourteen registers hold the pointers and constants, the two shifts
 * stay on the stack. */
typedef struct { /* the block loads the first eleven members into r0..r10 with one LDM */
    const int8_t *h, *g; /* the half input, the other one */
    int8_t *out;
    const int8_t *h_end;
    int32_t h_offset; /* the half input's offset * 2^19 */
    int32_t g_offset; /* the other's offset * 2^21 */
    int32_t g_mult, g_round, out_mult, out_round, lo, g_shift, out_shift;
    int32_t odd; /* the count is odd */
} add_half_run_t;

/* One output: x from the half input (r4: its offset), y from the other (r5 offset, r6
 * multiplier, r7 rounding constant, its shift at [sp]), then the output's SMMLAR (r8, r9),
 * shift ([sp, #4]), SSAT to int8 and CLAMP: ADD_HALF_MIN (r10: the activation's minimum) or
 * nothing (a minimum of -128, as a RELU whose output zero point is -128 has). */
#define ADD_HALF_MIN "cmp lr, r10\n\tit lt\n\tmovlt lr, r10\n\t"
#define ADD_HALF_ONE(CLAMP)                                                                    \
    "ldrsb r11, [r0], #1\n\t"                                                                  \
    "ldrsb r12, [r1], #1\n\t"                                                                  \
    "add r11, r4, r11, lsl #19\n\t"                                                            \
    "add r12, r5, r12, lsl #21\n\t"                                                            \
    "add lr, r7, r12, asr #31\n\t"                                                             \
    "smmlar lr, r12, r6, lr\n\t"                                                               \
    "ldr r12, [sp]\n\t"                                                                        \
    "asr lr, lr, r12\n\t"                                                                      \
    "add r11, r11, lr\n\t"                                                                     \
    "add lr, r9, r11, asr #31\n\t"                                                             \
    "lsl r11, r11, #1\n\t"                                                                     \
    "smmlar lr, r11, r8, lr\n\t"                                                               \
    "ldr r12, [sp, #4]\n\t"                                                                    \
    "asr lr, lr, r12\n\t"                                                                      \
    "ssat lr, #8, lr\n\t" CLAMP                                                                \
    "strb lr, [r2], #1\n\t"
/* Kept out of line (its registers are the block's) and built without a frame pointer whatever
 * the build's flags: the block takes r7. */
#define ADD_HALF_NOINLINE static __attribute__((noinline, optimize("omit-frame-pointer")))
ADD_HALF_NOINLINE void add_half_run_asm(const add_half_run_t *run)
{
    const bool clamp = run->lo > -128;
    register const add_half_run_t *r0 __asm__("r0") = run;
    /* Two outputs a pass; an odd count runs one first. */
#define ADD_HALF_BLOCK(CLAMP)                                                                  \
    __asm__ volatile("ldr r11, [r0, %[g_shift]]\n\t"                                             \
                     "ldr r12, [r0, %[out_shift]]\n\t"                                           \
                     "push {r11, r12}\n\t"                                                       \
                     "ldr r11, [r0, %[odd]]\n\t"                                                 \
                     "ldm r0, {r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10}\n\t"                 \
                     "cmp r11, #0\n\t"                                                           \
                     "beq 1f\n\t" ADD_HALF_ONE(CLAMP) "cmp r0, r3\n\t"                         \
                     "beq 2f\n\t"                                                                \
                     "1:\n\t" ADD_HALF_ONE(CLAMP) ADD_HALF_ONE(CLAMP) "cmp r0, r3\n\t"         \
                     "bne 1b\n\t"                                                                \
                     "2:\n\t"                                                                    \
                     "add sp, sp, #8"                                                            \
                     : "+r"(r0)                                                                  \
                     : [g_shift] "i"(offsetof(add_half_run_t, g_shift)),                         \
                       [out_shift] "i"(offsetof(add_half_run_t, out_shift)),                     \
                       [odd] "i"(offsetof(add_half_run_t, odd))                                  \
                     : "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11",      \
                       "r12", "lr", "cc", "memory")
    if (clamp) {
        ADD_HALF_BLOCK(ADD_HALF_MIN);
    } else {
        ADD_HALF_BLOCK("");
    }
#undef ADD_HALF_BLOCK
}
#endif

HK_INLINE bool add_sub_run_dsp(const hk_binary_quant_t *q, const int8_t *a, int32_t sa,
                               const int8_t *b, int32_t sb, int8_t *out, int32_t n,
                               const bool subtract)
{
    const int32_t e1 = -hk_min_i32(q->input1_shift, 0), e2 = -hk_min_i32(q->input2_shift, 0);
    const int32_t eo = -q->output_shift;
    const int32_t m1 = q->input1_multiplier, m2 = q->input2_multiplier;
    const int32_t mo = q->output_multiplier, offset = q->output_offset;
    if (e1 > 31 || e2 > 31 || eo < 1 || eo > 22 || m1 < 0 || m2 < 0 ||
        mo < 0 || offset < -256 || offset > 256) {
        return false;
    }
    const int32_t k = 1 << (q->left_shift + 1);
    const int32_t o1 = q->input1_offset * k, o2 = q->input2_offset * k;
    /* An input shift of 0 has no rounding: no constant, no sign fix (f = 0). */
    const int32_t r1 = e1 > 0 ? 1 << (e1 - 1) : 0, r2 = e2 > 0 ? 1 << (e2 - 1) : 0;
    const int32_t f1 = e1 > 0 ? -1 : 0, f2 = e2 > 0 ? -1 : 0;
    const int32_t ro = (1 << (eo - 1)) + offset * (1 << eo);
    const int32_t lo = q->activation_min, hi = q->activation_max;
#if defined(ADD_HALF_ASM)
    if (!subtract && sa == 1 && sb == 1 && n > 0 && q->left_shift == 20 && hi == 127 &&
        lo >= -128) {
        /* One input at the larger scale (multiplier 2^30, shift 0, which LiteRT gives it) is
         * the "half" one; the other needs a rounding shift of at least one bit. */
        const bool a_half = m1 == (INT32_C(1) << 30) && e1 == 0 && e2 >= 1;
        const bool b_half = m2 == (INT32_C(1) << 30) && e2 == 0 && e1 >= 1;
        if (a_half || b_half) {
            add_half_run_t run = {a_half ? a : b, a_half ? b : a, out, (a_half ? a : b) + n,
                                  (a_half ? o1 : o2) / 4, a_half ? o2 : o1, a_half ? m2 : m1,
                                  a_half ? r2 : r1, mo, ro, lo, a_half ? e2 : e1, eo, n & 1};
            add_half_run_asm(&run);
            return true;
        }
    }
#endif
    for (int32_t i = 0; i < n; ++i) {
        const int32_t t1 = a[i * sa] * k + o1, t2 = b[i * sb] * k + o2;
        const int32_t x = (binary_smmlar(t1, m1, r1) + ((t1 >> 31) & f1)) >> e1;
        const int32_t y = (binary_smmlar(t2, m2, r2) + ((t2 >> 31) & f2)) >> e2;
        const int32_t sum = subtract ? x - y : x + y;
        const int32_t r = (binary_smmlar(sum * 2, mo, ro) + (sum >> 31)) >> eo;
        out[i] = (int8_t)hk_clamp_i32(r, lo, hi);
    }
    return true;
}
#endif

/* int8 ADD/SUB with left_shift <= 20 (LiteRT's is 20): |x + offset| <= 384, so each rescaled
 * input is below 384 * 2^20 and their sum below 2^30. */
HK_INLINE bool add_sub_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa,
                              const int8_t *b, int32_t sb, int8_t *out, int32_t n,
                              const bool subtract)
{
    if (q->left_shift < 0 || q->left_shift > 20 || !binary_small_offsets(q)) {
        return false;
    }
#if HK_HAVE_DSP && defined(__GNUC__)
    if (add_sub_run_dsp(q, a, sa, b, sb, out, n, subtract)) {
        return true;
    }
#endif
    const int32_t ls = q->left_shift;
    const int32_t off1 = q->input1_offset * (1 << ls), off2 = q->input2_offset * (1 << ls);
    const int32_t m1 = q->input1_multiplier, m2 = q->input2_multiplier;
    const int32_t mo = q->output_multiplier, offset = q->output_offset;
    const int32_t lo = q->activation_min, hi = q->activation_max;
    const binary_shift_t s1 = binary_shift(q->input1_shift), s2 = binary_shift(q->input2_shift);
    const binary_shift_t so = binary_shift(q->output_shift);
    for (int32_t i = 0; i < n; ++i) {
        const int32_t x = binary_rdbpot(binary_srdhm(a[i * sa] * (1 << ls) + off1, m1), s1);
        const int32_t y = binary_rdbpot(binary_srdhm(b[i * sb] * (1 << ls) + off2, m2), s2);
        const int32_t r = binary_rdbpot(binary_srdhm(subtract ? x - y : x + y, mo), so) + offset;
        out[i] = (int8_t)hk_clamp_i32(r, lo, hi);
    }
    return true;
}

/* int8 MUL with a left shift of at most 12: the product is below 384^2 < 2^18, shifted below
 * 2^30. */
HK_INLINE bool mul_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa,
                          const int8_t *b, int32_t sb, int8_t *out, int32_t n)
{
    if (q->output_shift > 12 || !binary_small_offsets(q)) {
        return false;
    }
    const int32_t left = hk_max_i32(q->output_shift, 0);
    const int32_t off1 = q->input1_offset, off2 = q->input2_offset;
    const int32_t m = q->output_multiplier, offset = q->output_offset;
    const int32_t lo = q->activation_min, hi = q->activation_max;
    const binary_shift_t s = binary_shift(q->output_shift);
    for (int32_t i = 0; i < n; ++i) {
        const int32_t product = (a[i * sa] + off1) * (b[i * sb] + off2) * (1 << left);
        const int32_t r = binary_rdbpot(binary_srdhm(product, m), s) + offset;
        out[i] = (int8_t)hk_clamp_i32(r, lo, hi);
    }
    return true;
}

/* The flat walk (both strides 1, the whole tensor) gets a loop of its own with the strides
 * folded in; broadcast rows take the general one. */
bool hk_add_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa, const int8_t *b,
                   int32_t sb, int8_t *out, int32_t n)
{
    if (sa == 1 && sb == 1) {
        return add_sub_run_s8(q, a, 1, b, 1, out, n, false);
    }
    return add_sub_run_s8(q, a, sa, b, sb, out, n, false);
}

bool hk_sub_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa, const int8_t *b,
                   int32_t sb, int8_t *out, int32_t n)
{
    if (sa == 1 && sb == 1) {
        return add_sub_run_s8(q, a, 1, b, 1, out, n, true);
    }
    return add_sub_run_s8(q, a, sa, b, sb, out, n, true);
}

bool hk_mul_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa, const int8_t *b,
                   int32_t sb, int8_t *out, int32_t n)
{
    if (sa == 1 && sb == 1) {
        return mul_run_s8(q, a, 1, b, 1, out, n);
    }
    return mul_run_s8(q, a, sa, b, sb, out, n);
}

#endif /* !HK_HAVE_MVE */
