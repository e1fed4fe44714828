/*
 * helia-aot kernel library: elementwise binary operators (see hk_binary.h).
 *
 * Each operator is an element function plus one shared walk over the (possibly broadcast)
 * output, so the per-element arithmetic is written once and inlined into both the flat and the
 * broadcast loop. The rescaling uses hk_requant, which equals LiteRT's
 * MultiplyByQuantizedMultiplier with a 64-bit multiply instead of its nudge-and-divide.
 *
 * With Helium (MVE), int8 ADD, SUB and MUL run four lanes at a time over every stretch of
 * output whose inputs advance by one element or stay put (the whole tensor when nothing
 * broadcasts): VQRDMULH is gemmlowp's doubling high multiply and VRSHL after a -1 on negative
 * lanes its rounding shift, so the lanes equal the scalar code.
 */
#include "hk_binary.h"

#include "hk_isa.h"
#include "hk_requant.h"

static int32_t validate(const hk_binary_params_t *params, const void *input1, const void *input2,
                        const void *output)
{
    if (params == NULL || params->geometry.size < 0) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_broadcast_t *g = &params->geometry;
    if (g->size == 0) {
        return HK_STATUS_OK;
    }
    if (input1 == NULL || input2 == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    if (g->broadcast) {
        int64_t count = 1;
        for (int32_t k = 0; k < HK_BINARY_MAX_RANK; ++k) {
            if (g->shape[k] < 1 || g->strides1[k] < 0 || g->strides2[k] < 0) {
                return HK_STATUS_BAD_PARAM;
            }
            count *= g->shape[k];
        }
        if (count != g->size) {
            return HK_STATUS_BAD_PARAM;
        }
    }
    return HK_STATUS_OK;
}

/* The body of every kernel: validates, then applies ELEM(&params, a, b) to each output element
 * in order, flat when nothing broadcasts. Expects `params`, `input1`, `input2` and `output` in
 * scope and returns from the enclosing function. */
#define BINARY_WALK(T, ELEM)                                                                   \
    do {                                                                                       \
        const int32_t status_ = validate(params, input1, input2, output);                      \
        if (status_ != HK_STATUS_OK || params->geometry.size == 0) {                           \
            return status_;                                                                    \
        }                                                                                      \
        /* A local copy: the output stores cannot alias it, so its fields stay in registers. */ \
        const hk_binary_params_t local_ = *params;                                             \
        const hk_broadcast_t *g_ = &local_.geometry;                                           \
        if (!g_->broadcast) {                                                                  \
            for (int32_t i_ = 0; i_ < g_->size; ++i_) {                                        \
                output[i_] = ELEM(&local_, input1[i_], input2[i_]);                            \
            }                                                                                  \
            return HK_STATUS_OK;                                                               \
        }                                                                                      \
        T *out_ = output;                                                                      \
        const int32_t n4_ = g_->shape[4];                                                      \
        const int32_t a4_ = g_->strides1[4];                                                   \
        const int32_t b4_ = g_->strides2[4];                                                   \
        for (int32_t i0_ = 0; i0_ < g_->shape[0]; ++i0_) {                                     \
            const T *a0_ = input1 + i0_ * g_->strides1[0];                                     \
            const T *b0_ = input2 + i0_ * g_->strides2[0];                                     \
            for (int32_t i1_ = 0; i1_ < g_->shape[1]; ++i1_) {                                 \
                const T *a1_ = a0_ + i1_ * g_->strides1[1];                                    \
                const T *b1_ = b0_ + i1_ * g_->strides2[1];                                    \
                for (int32_t i2_ = 0; i2_ < g_->shape[2]; ++i2_) {                             \
                    const T *a2_ = a1_ + i2_ * g_->strides1[2];                                \
                    const T *b2_ = b1_ + i2_ * g_->strides2[2];                                \
                    for (int32_t i3_ = 0; i3_ < g_->shape[3]; ++i3_) {                         \
                        const T *a3_ = a2_ + i3_ * g_->strides1[3];                            \
                        const T *b3_ = b2_ + i3_ * g_->strides2[3];                            \
                        for (int32_t i4_ = 0; i4_ < n4_; ++i4_) {                              \
                            out_[i4_] = ELEM(&local_, a3_[i4_ * a4_], b3_[i4_ * b4_]);         \
                        }                                                                      \
                        out_ += n4_;                                                           \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        return HK_STATUS_OK;                                                                   \
    } while (0)

/* BINARY_WALK for kernels with a run function: RUN(&quant, a, sa, b, sb, out, n) computes n
 * consecutive outputs whose inputs step by sa and sb elements, once for the whole tensor when
 * nothing broadcasts, else once per innermost row. */
#define BINARY_WALK_RUNS(T, RUN)                                                               \
    do {                                                                                       \
        const int32_t status_ = validate(params, input1, input2, output);                      \
        if (status_ != HK_STATUS_OK || params->geometry.size == 0) {                           \
            return status_;                                                                    \
        }                                                                                      \
        const hk_binary_params_t local_ = *params;                                             \
        const hk_broadcast_t *g_ = &local_.geometry;                                           \
        if (!g_->broadcast) {                                                                  \
            RUN(&local_.quant, input1, 1, input2, 1, output, g_->size);                        \
            return HK_STATUS_OK;                                                               \
        }                                                                                      \
        T *out_ = output;                                                                      \
        for (int32_t i0_ = 0; i0_ < g_->shape[0]; ++i0_) {                                     \
            const T *a0_ = input1 + i0_ * g_->strides1[0];                                     \
            const T *b0_ = input2 + i0_ * g_->strides2[0];                                     \
            for (int32_t i1_ = 0; i1_ < g_->shape[1]; ++i1_) {                                 \
                const T *a1_ = a0_ + i1_ * g_->strides1[1];                                    \
                const T *b1_ = b0_ + i1_ * g_->strides2[1];                                    \
                for (int32_t i2_ = 0; i2_ < g_->shape[2]; ++i2_) {                             \
                    const T *a2_ = a1_ + i2_ * g_->strides1[2];                                \
                    const T *b2_ = b1_ + i2_ * g_->strides2[2];                                \
                    for (int32_t i3_ = 0; i3_ < g_->shape[3]; ++i3_) {                         \
                        RUN(&local_.quant, a2_ + i3_ * g_->strides1[3], g_->strides1[4],       \
                            b2_ + i3_ * g_->strides2[3], g_->strides2[4], out_, g_->shape[4]); \
                        out_ += g_->shape[4];                                                  \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        return HK_STATUS_OK;                                                                   \
    } while (0)

/* -- quantized element functions ---------------------------------------------------------- */

/* One input of ADD/SUB/SQUARED_DIFFERENCE moved to the shared fixed-point scale. Their shifts
 * only ever shift right (LiteRT's MultiplyByQuantizedMultiplierSmallerThanOneExp). */
HK_INLINE int32_t rescale_input(const hk_binary_quant_t *q, int32_t value, int32_t offset,
                                    int32_t multiplier, int32_t shift)
{
    return hk_requant((value + offset) * (1 << q->left_shift), multiplier, hk_min_i32(shift, 0));
}

HK_INLINE int32_t add_sub_general(const hk_binary_quant_t *q, int32_t a, int32_t b,
                                      bool subtract)
{
    const int32_t sa = rescale_input(q, a, q->input1_offset, q->input1_multiplier,
                                     q->input1_shift);
    const int32_t sb = rescale_input(q, b, q->input2_offset, q->input2_multiplier,
                                     q->input2_shift);
    const int32_t raw = subtract ? sa - sb : sa + sb;
    const int32_t out =
        hk_requant(raw, q->output_multiplier, hk_min_i32(q->output_shift, 0)) + q->output_offset;
    return hk_clamp_i32(out, q->activation_min, q->activation_max);
}

/* LiteRT's int16 power-of-two path: one input is rounded down to the other's (and the output's)
 * scale by a right shift, then the int16 sum or difference saturates. */
HK_INLINE int32_t add_sub_pot(const hk_binary_quant_t *q, int32_t a, int32_t b,
                                  bool subtract)
{
    const int32_t sa = q->input1_shift == 0 ? a : hk_rdbpot(a, -q->input1_shift);
    const int32_t sb = q->input1_shift == 0 ? hk_rdbpot(b, -q->input2_shift) : b;
    const int32_t raw = hk_clamp_i32(subtract ? sa - sb : sa + sb, -32768, 32767);
    return hk_clamp_i32(raw, q->activation_min, q->activation_max);
}

HK_INLINE int32_t mul_q(const hk_binary_quant_t *q, int32_t a, int32_t b)
{
    const int32_t product = (a + q->input1_offset) * (b + q->input2_offset);
    const int32_t out = hk_requant(product, q->output_multiplier, q->output_shift) +
                        q->output_offset;
    return hk_clamp_i32(out, q->activation_min, q->activation_max);
}

HK_INLINE int32_t squared_difference_q(const hk_binary_quant_t *q, int32_t a, int32_t b)
{
    const int32_t sa = rescale_input(q, a, q->input1_offset, q->input1_multiplier,
                                     q->input1_shift);
    const int32_t sb = rescale_input(q, b, q->input2_offset, q->input2_multiplier,
                                     q->input2_shift);
    const int32_t diff = sa - sb;
    const int32_t out =
        hk_requant(diff * diff, q->output_multiplier, hk_min_i32(q->output_shift, 0)) +
        q->output_offset;
    return hk_clamp_i32(out, q->activation_min, q->activation_max);
}

#define ADD_S8(p, a, b) ((int8_t)add_sub_general(&(p)->quant, (a), (b), false))
#define SUB_S8(p, a, b) ((int8_t)add_sub_general(&(p)->quant, (a), (b), true))
#define MUL_S8(p, a, b) ((int8_t)mul_q(&(p)->quant, (a), (b)))
#define SQDIFF_S8(p, a, b) ((int8_t)squared_difference_q(&(p)->quant, (a), (b)))
#define ADD_S16(p, a, b) ((int16_t)add_sub_general(&(p)->quant, (a), (b), false))
#define SUB_S16(p, a, b) ((int16_t)add_sub_general(&(p)->quant, (a), (b), true))
#define ADD_S16_POT(p, a, b) ((int16_t)add_sub_pot(&(p)->quant, (a), (b), false))
#define SUB_S16_POT(p, a, b) ((int16_t)add_sub_pot(&(p)->quant, (a), (b), true))
#define MUL_S16(p, a, b) ((int16_t)mul_q(&(p)->quant, (a), (b)))
/* LiteRT MaximumOp/MinimumOp: ties and unordered (NaN) comparisons return the second operand. */
#define MAXIMUM(p, a, b) ((void)(p), (a) > (b) ? (a) : (b))
#define MINIMUM(p, a, b) ((void)(p), (a) < (b) ? (a) : (b))

/* -- float element functions -------------------------------------------------------------- */

#define ADD_F32(p, a, b) hk_clamp_f32((a) + (b), (p)->float_min, (p)->float_max)
#define SUB_F32(p, a, b) hk_clamp_f32((a) - (b), (p)->float_min, (p)->float_max)
#define MUL_F32(p, a, b) hk_clamp_f32((a) * (b), (p)->float_min, (p)->float_max)

static inline float squared_difference_f32(float a, float b)
{
    const float diff = a - b;
    return diff * diff;
}

#define SQDIFF_F32(p, a, b) ((void)(p), squared_difference_f32((a), (b)))

/* -- int8 ADD / SUB / MUL runs ------------------------------------------------------------- */

/* The element loop every run falls back to (strides other than 0 and 1, or parameters outside
 * the range the fast arithmetic covers). */
#define BINARY_RUN_ELEMENTS(ELEM_CALL)                                                         \
    for (int32_t i_ = 0; i_ < n; ++i_) {                                                       \
        out[i_] = (int8_t)ELEM_CALL(q, a[i_ * sa], b[i_ * sb]);                                \
    }

#define BINARY_ADD_ELEM(q, x, y) add_sub_general((q), (x), (y), subtract)

#if HK_HAVE_MVE

/* gemmlowp RoundingDivideByPOT of four lanes by 2^exponent (0 to 31): VRSHL by -exponent
 * rounds ties up, so negative lanes are lowered by one first (fix is 1, or 0 when exponent is
 * 0). Only scalar operands, which keeps the Q registers for the data. */
HK_INLINE int32x4_t binary_rdbpot_mve(int32x4_t v, int32_t neg_exponent, int32_t fix)
{
    return vrshlq_n_s32(vmlaq_n_s32(v, vshrq_n_s32(v, 31), fix), neg_exponent);
}

/* What the int8 ADD/SUB/MUL loops keep in core registers. */
typedef struct {
    int32_t scale;        /* 1 << left_shift */
    int32_t m1, m2, mo;   /* multipliers */
    int32_t e1, e2, eo;   /* -exponent of each rounding shift */
    int32_t f1, f2, fo;   /* 1 where that exponent is nonzero */
    int32_t left;         /* MUL: hk_requant's left shift */
    int32_t offset1, offset2, offset;
} binary_mve_t;

HK_INLINE void binary_mve_shift(int32_t shift, int32_t *neg_exponent, int32_t *fix)
{
    *neg_exponent = hk_min_i32(shift, 0);
    *fix = shift < 0 ? 1 : 0;
}

static binary_mve_t binary_mve_consts(const hk_binary_quant_t *q)
{
    binary_mve_t c;
    c.scale = 1 << q->left_shift;
    c.m1 = q->input1_multiplier;
    c.m2 = q->input2_multiplier;
    c.mo = q->output_multiplier;
    binary_mve_shift(q->input1_shift, &c.e1, &c.f1);
    binary_mve_shift(q->input2_shift, &c.e2, &c.f2);
    binary_mve_shift(q->output_shift, &c.eo, &c.fo);
    c.left = hk_max_i32(q->output_shift, 0);
    c.offset1 = q->input1_offset;
    c.offset2 = q->input2_offset;
    c.offset = q->output_offset;
    return c;
}

/* rescale_input on four lanes: VMLA forms (x + offset) << left_shift from the shifted offset,
 * VQRDMULH is the doubling high multiply. */
HK_INLINE int32x4_t binary_rescale_mve(int32x4_t x, int32x4_t shifted_offset, int32_t scale,
                                       int32_t multiplier, int32_t neg_exponent, int32_t fix)
{
    return binary_rdbpot_mve(vqrdmulhq_n_s32(vmlaq_n_s32(shifted_offset, x, scale), multiplier),
                             neg_exponent, fix);
}

/* ADD/SUB of four rescaled lanes, requantized and clamped. */
HK_INLINE int32x4_t add_sub_out_mve(const binary_mve_t *c, int32x4_t va, int32x4_t vb,
                                    int32x4_t lo, int32x4_t hi, const bool subtract)
{
    const int32x4_t raw = subtract ? vsubq_s32(va, vb) : vaddq_s32(va, vb);
    const int32x4_t r = binary_rdbpot_mve(vqrdmulhq_n_s32(raw, c->mo), c->eo, c->fo);
    return vminq_s32(vmaxq_s32(vaddq_n_s32(r, c->offset), lo), hi);
}

#define BINARY_RESCALE1(x) binary_rescale_mve((x), off1, c->scale, c->m1, c->e1, c->f1)
#define BINARY_RESCALE2(x) binary_rescale_mve((x), off2, c->scale, c->m2, c->e2, c->f2)

/* SA and SB are 0 or 1, constants in the specialised call of add_sub_run_s8. An input that
 * does not advance is rescaled once for the whole run. Whole vectors load and store
 * unpredicated; the last one to three outputs use predicated accesses that touch nothing past
 * the tensors. */
HK_INLINE void add_sub_loop_mve(const binary_mve_t *c, int32x4_t lo, int32x4_t hi,
                                const int8_t *a, const int32_t sa, const int8_t *b,
                                const int32_t sb, int8_t *out, int32_t n, const bool subtract)
{
    const int32x4_t off1 = vdupq_n_s32(c->offset1 * c->scale);
    const int32x4_t off2 = vdupq_n_s32(c->offset2 * c->scale);
    const int32x4_t fixed1 = BINARY_RESCALE1(vdupq_n_s32(a[0]));
    const int32x4_t fixed2 = BINARY_RESCALE2(vdupq_n_s32(b[0]));
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const int32x4_t va = sa ? BINARY_RESCALE1(vldrbq_s32(a + i)) : fixed1;
        const int32x4_t vb = sb ? BINARY_RESCALE2(vldrbq_s32(b + i)) : fixed2;
        vstrbq_s32(out + i, add_sub_out_mve(c, va, vb, lo, hi, subtract));
    }
    if (i < n) {
        const mve_pred16_t lanes = vctp32q((uint32_t)(n - i));
        const int32x4_t va = sa ? BINARY_RESCALE1(vldrbq_z_s32(a + i, lanes)) : fixed1;
        const int32x4_t vb = sb ? BINARY_RESCALE2(vldrbq_z_s32(b + i, lanes)) : fixed2;
        vstrbq_p_s32(out + i, add_sub_out_mve(c, va, vb, lo, hi, subtract), lanes);
    }
}

#undef BINARY_RESCALE1
#undef BINARY_RESCALE2

HK_INLINE void add_sub_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa,
                              const int8_t *b, int32_t sb, int8_t *out, int32_t n,
                              const bool subtract)
{
    if (sa > 1 || sb > 1) {
        BINARY_RUN_ELEMENTS(BINARY_ADD_ELEM)
        return;
    }
    const binary_mve_t c = binary_mve_consts(q);
    const int32x4_t lo = vdupq_n_s32(q->activation_min), hi = vdupq_n_s32(q->activation_max);
    if (sa == 1 && sb == 1) {
        add_sub_loop_mve(&c, lo, hi, a, 1, b, 1, out, n, subtract);
    } else {
        add_sub_loop_mve(&c, lo, hi, a, sa, b, sb, out, n, subtract);
    }
}

/* MUL: the product of the offset inputs, then hk_requant's left shift, VQRDMULH and rounding
 * shift on four lanes. */
HK_INLINE int32x4_t mul_out_mve(const binary_mve_t *c, int32x4_t va, int32x4_t vb, int32x4_t lo,
                                int32x4_t hi)
{
    const int32x4_t product = vshlq_r_s32(vmulq_s32(va, vb), c->left);
    const int32x4_t r = binary_rdbpot_mve(vqrdmulhq_n_s32(product, c->mo), c->eo, c->fo);
    return vminq_s32(vmaxq_s32(vaddq_n_s32(r, c->offset), lo), hi);
}

HK_INLINE void mul_loop_mve(const binary_mve_t *c, int32x4_t lo, int32x4_t hi, const int8_t *a,
                            const int32_t sa, const int8_t *b, const int32_t sb, int8_t *out,
                            int32_t n)
{
    const int32x4_t fixed1 = vdupq_n_s32(a[0] + c->offset1);
    const int32x4_t fixed2 = vdupq_n_s32(b[0] + c->offset2);
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const int32x4_t va = sa ? vaddq_n_s32(vldrbq_s32(a + i), c->offset1) : fixed1;
        const int32x4_t vb = sb ? vaddq_n_s32(vldrbq_s32(b + i), c->offset2) : fixed2;
        vstrbq_s32(out + i, mul_out_mve(c, va, vb, lo, hi));
    }
    if (i < n) {
        const mve_pred16_t lanes = vctp32q((uint32_t)(n - i));
        const int32x4_t va = sa ? vaddq_n_s32(vldrbq_z_s32(a + i, lanes), c->offset1) : fixed1;
        const int32x4_t vb = sb ? vaddq_n_s32(vldrbq_z_s32(b + i, lanes), c->offset2) : fixed2;
        vstrbq_p_s32(out + i, mul_out_mve(c, va, vb, lo, hi), lanes);
    }
}

static void mul_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa, const int8_t *b,
                       int32_t sb, int8_t *out, int32_t n)
{
    if (sa > 1 || sb > 1) {
        BINARY_RUN_ELEMENTS(mul_q)
        return;
    }
    const binary_mve_t c = binary_mve_consts(q);
    const int32x4_t lo = vdupq_n_s32(q->activation_min), hi = vdupq_n_s32(q->activation_max);
    if (sa == 1 && sb == 1) {
        mul_loop_mve(&c, lo, hi, a, 1, b, 1, out, n);
    } else {
        mul_loop_mve(&c, lo, hi, a, sa, b, sb, out, n);
    }
}

#else

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

/* int8 ADD/SUB with left_shift <= 20 (LiteRT's is 20): |x + offset| <= 384, so each rescaled
 * input is below 384 * 2^20 and their sum below 2^30. */
HK_INLINE void add_sub_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa,
                              const int8_t *b, int32_t sb, int8_t *out, int32_t n,
                              const bool subtract)
{
    if (q->left_shift < 0 || q->left_shift > 20 || !binary_small_offsets(q)) {
        BINARY_RUN_ELEMENTS(BINARY_ADD_ELEM)
        return;
    }
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
}

/* int8 MUL with a left shift of at most 12: the product is below 384^2 < 2^18, shifted below
 * 2^30. */
static void mul_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa, const int8_t *b,
                       int32_t sb, int8_t *out, int32_t n)
{
    if (q->output_shift > 12 || !binary_small_offsets(q)) {
        BINARY_RUN_ELEMENTS(mul_q)
        return;
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
}

#endif

#undef BINARY_ADD_ELEM

#define ADD_RUN_S8(q, a, sa, b, sb, out, n)                                                   \
    add_sub_run_s8((q), (a), (sa), (b), (sb), (out), (n), false)
#define SUB_RUN_S8(q, a, sa, b, sb, out, n)                                                   \
    add_sub_run_s8((q), (a), (sa), (b), (sb), (out), (n), true)

/* -- int8 --------------------------------------------------------------------------------- */

/* Follows LiteRT reference_integer_ops::Add / BroadcastAdd6DSlow (int8). */
int32_t hk_add_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output)
{
    BINARY_WALK_RUNS(int8_t, ADD_RUN_S8);
}

/* Follows LiteRT reference_ops::Sub / BroadcastQuantSubSlow (int8). */
int32_t hk_sub_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output)
{
    BINARY_WALK_RUNS(int8_t, SUB_RUN_S8);
}

/* Follows LiteRT reference_integer_ops::Mul / BroadcastMul6DSlow (int8). */
int32_t hk_mul_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output)
{
    BINARY_WALK_RUNS(int8_t, mul_run_s8);
}

/* Follows LiteRT squared_difference.cc SquaredDifference(int8_t, int8_t, params). */
int32_t hk_squared_difference_s8(const hk_binary_params_t *params, const int8_t *input1,
                                 const int8_t *input2, int8_t *output)
{
    BINARY_WALK(int8_t, SQDIFF_S8);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MaximumOp (int8). */
int32_t hk_maximum_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                      int8_t *output)
{
    BINARY_WALK(int8_t, MAXIMUM);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MinimumOp (int8). */
int32_t hk_minimum_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                      int8_t *output)
{
    BINARY_WALK(int8_t, MINIMUM);
}

/* -- int16 -------------------------------------------------------------------------------- */

/* Follows LiteRT reference_ops::Add(int16, pot_scale) and BroadcastAdd6DSlow<int16_t>. */
int32_t hk_add_s16(const hk_binary_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output)
{
    if (params != NULL && params->quant.pot_scale) {
        BINARY_WALK(int16_t, ADD_S16_POT);
    }
    BINARY_WALK(int16_t, ADD_S16);
}

/* Follows LiteRT reference_ops::Sub / BroadcastQuantSubSlow (int16) and Sub16 (power of two). */
int32_t hk_sub_s16(const hk_binary_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output)
{
    if (params != NULL && params->quant.pot_scale) {
        BINARY_WALK(int16_t, SUB_S16_POT);
    }
    BINARY_WALK(int16_t, SUB_S16);
}

/* Follows LiteRT reference_integer_ops::Mul / BroadcastMul6DSlow (int16, zero points 0). */
int32_t hk_mul_s16(const hk_binary_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output)
{
    BINARY_WALK(int16_t, MUL_S16);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MaximumOp (int16). */
int32_t hk_maximum_s16(const hk_binary_params_t *params, const int16_t *input1,
                       const int16_t *input2, int16_t *output)
{
    BINARY_WALK(int16_t, MAXIMUM);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MinimumOp (int16). */
int32_t hk_minimum_s16(const hk_binary_params_t *params, const int16_t *input1,
                       const int16_t *input2, int16_t *output)
{
    BINARY_WALK(int16_t, MINIMUM);
}

/* -- float32 ------------------------------------------------------------------------------ */

/* Follows LiteRT reference_ops::Add / BroadcastAdd6DSlow (float, fused activation). */
int32_t hk_add_f32(const hk_binary_params_t *params, const float *input1, const float *input2,
                   float *output)
{
    BINARY_WALK(float, ADD_F32);
}

/* Follows LiteRT reference_ops::SubWithActivation / BroadcastSubSlow (float). */
int32_t hk_sub_f32(const hk_binary_params_t *params, const float *input1, const float *input2,
                   float *output)
{
    BINARY_WALK(float, SUB_F32);
}

/* Follows LiteRT reference_ops::Mul / BroadcastMul6DSlow (float, fused activation). */
int32_t hk_mul_f32(const hk_binary_params_t *params, const float *input1, const float *input2,
                   float *output)
{
    BINARY_WALK(float, MUL_F32);
}

/* Follows LiteRT squared_difference.cc SquaredDifference<float>: (a - b) * (a - b). */
int32_t hk_squared_difference_f32(const hk_binary_params_t *params, const float *input1,
                                  const float *input2, float *output)
{
    BINARY_WALK(float, SQDIFF_F32);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MaximumOp (float). */
int32_t hk_maximum_f32(const hk_binary_params_t *params, const float *input1,
                       const float *input2, float *output)
{
    BINARY_WALK(float, MAXIMUM);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MinimumOp (float). */
int32_t hk_minimum_f32(const hk_binary_params_t *params, const float *input1,
                       const float *input2, float *output)
{
    BINARY_WALK(float, MINIMUM);
}
