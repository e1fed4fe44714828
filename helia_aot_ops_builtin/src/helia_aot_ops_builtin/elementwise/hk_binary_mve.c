/*
 * helia-aot kernel library: the Helium (MVE) int8 ADD, SUB and MUL runs (see hk_binary_paths.h).
 *
 * Four lanes at a time over every run whose inputs advance by one element or stay put (the whole
 * tensor when nothing broadcasts): VQRDMULH is gemmlowp's doubling high multiply and VRSHL after
 * a -1 on negative lanes its rounding shift, so the lanes equal the reference's scalar code.
 */
#include "hk_binary_paths.h"

#include "hk_isa.h"

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

/* rescale_input on four lanes: VMLAS forms (x + offset) << left_shift as x * scale plus the
 * shifted offset (no copy of an offset vector per use), VQRDMULH is the doubling high
 * multiply. */
HK_INLINE int32x4_t binary_rescale_mve(int32x4_t x, int32_t shifted_offset, int32x4_t scale,
                                       int32_t multiplier, int32_t neg_exponent, int32_t fix)
{
    return binary_rdbpot_mve(vqrdmulhq_n_s32(vmlasq_n_s32(x, scale, shifted_offset), multiplier),
                             neg_exponent, fix);
}

/* Which rounding steps add_sub_loop_mve takes (a constant where inlined): each input's
 * rounding shift (left out where its exponent is 0, where it is the identity) and the output
 * shift's fixup (left out where the output exponent is 0, or where the activation's lower
 * bound is at or above the output offset: the fixup lowers only results at or below zero,
 * which the clamp then takes to the lower bound either way). */
#define ADD_SUB_ROUND1 1
#define ADD_SUB_ROUND2 2
#define ADD_SUB_FIXUP 4
#define ADD_SUB_EVERY (ADD_SUB_ROUND1 | ADD_SUB_ROUND2 | ADD_SUB_FIXUP)

/* binary_rescale_mve, its rounding shift only when `round`. */
HK_INLINE int32x4_t add_sub_rescale_mve(int32x4_t x, int32_t shifted_offset, int32x4_t scale,
                                        int32_t multiplier, int32_t neg_exponent, int32_t fix,
                                        bool round)
{
    if (round) {
        return binary_rescale_mve(x, shifted_offset, scale, multiplier, neg_exponent, fix);
    }
    return vqrdmulhq_n_s32(vmlasq_n_s32(x, scale, shifted_offset), multiplier);
}

/* ADD/SUB of four rescaled lanes, requantized and clamped; the output fixup when `fixup`. */
HK_INLINE int32x4_t add_sub_out_mve(const binary_mve_t *c, int32x4_t va, int32x4_t vb,
                                    int32x4_t lo, int32x4_t hi, const bool subtract,
                                    const bool fixup)
{
    const int32x4_t raw = subtract ? vsubq_s32(va, vb) : vaddq_s32(va, vb);
    const int32x4_t r = fixup ? binary_rdbpot_mve(vqrdmulhq_n_s32(raw, c->mo), c->eo, c->fo)
                              : vrshlq_n_s32(vqrdmulhq_n_s32(raw, c->mo), c->eo);
    return vminq_s32(vmaxq_s32(vaddq_n_s32(r, c->offset), lo), hi);
}

#define BINARY_RESCALE1(x)                                                                     \
    add_sub_rescale_mve((x), off1, scale, c->m1, c->e1, c->f1, (form & ADD_SUB_ROUND1) != 0)
#define BINARY_RESCALE2(x)                                                                     \
    add_sub_rescale_mve((x), off2, scale, c->m2, c->e2, c->f2, (form & ADD_SUB_ROUND2) != 0)
#define BINARY_OUT(va, vb) add_sub_out_mve(c, (va), (vb), lo, hi, subtract, (form & ADD_SUB_FIXUP) != 0)

/* SA and SB are 0 or 1, constants in the specialised call of add_sub_run_s8, and so is `form`
 * (ADD_SUB_EVERY, or the steps add_sub_form says the call needs). An input that does not
 * advance is rescaled once for the whole run. Whole vectors load and store unpredicated; the
 * last one to three outputs use predicated accesses that touch nothing past the tensors. */
HK_INLINE void add_sub_loop_mve(const binary_mve_t *c, int32x4_t lo, int32x4_t hi,
                                const int8_t *a, const int32_t sa, const int8_t *b,
                                const int32_t sb, int8_t *out, int32_t n, const bool subtract,
                                const int32_t form)
{
    const int32_t off1 = c->offset1 * c->scale, off2 = c->offset2 * c->scale;
    const int32x4_t scale = vdupq_n_s32(c->scale);
    const int32x4_t fixed1 = BINARY_RESCALE1(vdupq_n_s32(a[0]));
    const int32x4_t fixed2 = BINARY_RESCALE2(vdupq_n_s32(b[0]));
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const int32x4_t va = sa ? BINARY_RESCALE1(vldrbq_s32(a + i)) : fixed1;
        const int32x4_t vb = sb ? BINARY_RESCALE2(vldrbq_s32(b + i)) : fixed2;
        vstrbq_s32(out + i, BINARY_OUT(va, vb));
    }
    if (i < n) {
        const mve_pred16_t lanes = vctp32q((uint32_t)(n - i));
        const int32x4_t va = sa ? BINARY_RESCALE1(vldrbq_z_s32(a + i, lanes)) : fixed1;
        const int32x4_t vb = sb ? BINARY_RESCALE2(vldrbq_z_s32(b + i, lanes)) : fixed2;
        vstrbq_p_s32(out + i, BINARY_OUT(va, vb), lanes);
    }
}

/* The rounding steps an ADD/SUB call needs (ADD_SUB_ROUND1 and the rest). */
HK_INLINE int32_t add_sub_form(const binary_mve_t *c, const hk_binary_quant_t *q)
{
    const bool clamped = q->activation_min >= q->output_offset;
    return (c->f1 != 0 ? ADD_SUB_ROUND1 : 0) | (c->f2 != 0 ? ADD_SUB_ROUND2 : 0) |
           (c->fo != 0 && !clamped ? ADD_SUB_FIXUP : 0);
}

#undef BINARY_RESCALE1
#undef BINARY_RESCALE2
#undef BINARY_OUT

/* The flat ADD run (both inputs advance) in the form its call needs: one loop per form, so no
 * step is decided per vector. */
static __attribute__((noinline)) void add_flat_mve(const binary_mve_t *constants, int32x4_t lo,
                                                   int32x4_t hi, const int8_t *a, const int8_t *b,
                                                   int8_t *out, int32_t n, int32_t form)
{
    /* A copy: the int8 output may alias anything, so fields read through the pointer would be
     * reloaded every vector. */
    const binary_mve_t k = *constants;
    const binary_mve_t *c = &k;
    switch (form) {
    case 0:
        add_sub_loop_mve(c, lo, hi, a, 1, b, 1, out, n, false, 0);
        break;
    case ADD_SUB_ROUND1:
        add_sub_loop_mve(c, lo, hi, a, 1, b, 1, out, n, false, ADD_SUB_ROUND1);
        break;
    case ADD_SUB_ROUND2:
        add_sub_loop_mve(c, lo, hi, a, 1, b, 1, out, n, false, ADD_SUB_ROUND2);
        break;
    case ADD_SUB_ROUND1 | ADD_SUB_ROUND2:
        add_sub_loop_mve(c, lo, hi, a, 1, b, 1, out, n, false, ADD_SUB_ROUND1 | ADD_SUB_ROUND2);
        break;
    default:
        add_sub_loop_mve(c, lo, hi, a, 1, b, 1, out, n, false, ADD_SUB_EVERY);
        break;
    }
}

HK_INLINE bool add_sub_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa,
                              const int8_t *b, int32_t sb, int8_t *out, int32_t n,
                              const bool subtract)
{
    if (sa > 1 || sb > 1) {
        return false;
    }
    const binary_mve_t c = binary_mve_consts(q);
    const int32x4_t lo = vdupq_n_s32(q->activation_min), hi = vdupq_n_s32(q->activation_max);
    if (sa == 1 && sb == 1 && !subtract) {
        add_flat_mve(&c, lo, hi, a, b, out, n, add_sub_form(&c, q));
    } else if (sa == 1 && sb == 1) {
        add_sub_loop_mve(&c, lo, hi, a, 1, b, 1, out, n, subtract, ADD_SUB_EVERY);
    } else {
        add_sub_loop_mve(&c, lo, hi, a, sa, b, sb, out, n, subtract, ADD_SUB_EVERY);
    }
    return true;
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

HK_INLINE bool mul_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa,
                          const int8_t *b, int32_t sb, int8_t *out, int32_t n)
{
    if (sa > 1 || sb > 1) {
        return false;
    }
    const binary_mve_t c = binary_mve_consts(q);
    const int32x4_t lo = vdupq_n_s32(q->activation_min), hi = vdupq_n_s32(q->activation_max);
    if (sa == 1 && sb == 1) {
        mul_loop_mve(&c, lo, hi, a, 1, b, 1, out, n);
    } else {
        mul_loop_mve(&c, lo, hi, a, sa, b, sb, out, n);
    }
    return true;
}

bool hk_add_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa, const int8_t *b,
                   int32_t sb, int8_t *out, int32_t n)
{
    return add_sub_run_s8(q, a, sa, b, sb, out, n, false);
}

bool hk_sub_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa, const int8_t *b,
                   int32_t sb, int8_t *out, int32_t n)
{
    return add_sub_run_s8(q, a, sa, b, sb, out, n, true);
}

bool hk_mul_run_s8(const hk_binary_quant_t *q, const int8_t *a, int32_t sa, const int8_t *b,
                   int32_t sb, int8_t *out, int32_t n)
{
    return mul_run_s8(q, a, sa, b, sb, out, n);
}

#endif /* HK_HAVE_MVE */
