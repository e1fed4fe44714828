/*
 * helia-aot kernel library: int16 and float32 ADD, SUB and MUL runs on Helium (see
 * hk_binary_wide.h).
 *
 * Follow LiteRT reference_ops::Add / Sub / Mul (float, fused activation) and the int16 Add
 * (general scales: inputs moved to a shared scale, summed, requantized) and Mul (the product
 * requantized), lane by lane.
 */
#include "hk_binary_wide.h"

#if HK_HAVE_MVE

#include "hk_requant.h"

/* Four elements of a run from index i: consecutive, or one value repeated (step 0). */
HK_INLINE int32x4_t wide_load_s16(const int16_t *x, int32_t step, int32_t i, mve_pred16_t p)
{
    return step == 0 ? vdupq_n_s32(x[0]) : vldrhq_z_s32(x + i, p);
}

HK_INLINE int32x4_t wide_rescale(int32x4_t v, int32_t offset, int32_t left, int32_t multiplier,
                                 int32_t shift)
{
    const int32x4_t shifted = vshlq_s32(vaddq_n_s32(v, offset), vdupq_n_s32(left));
    return hk_requant_mve(shifted, vdupq_n_s32(multiplier), vdupq_n_s32(hk_min_i32(shift, 0)));
}

bool hk_binary_run_s16(int32_t op, const hk_binary_quant_t *q, const int16_t *a, int32_t sa,
                       const int16_t *b, int32_t sb, int16_t *out, int32_t n)
{
    if ((sa != 0 && sa != 1) || (sb != 0 && sb != 1) || op == HK_BINARY_SUB ||
        (op == HK_BINARY_ADD && q->pot_scale)) {
        return false;
    }
    const int32x4_t lo = vdupq_n_s32(q->activation_min), hi = vdupq_n_s32(q->activation_max);
    const int32x4_t out_mult = vdupq_n_s32(q->output_multiplier);
    const int32x4_t out_shift =
        vdupq_n_s32(op == HK_BINARY_MUL ? q->output_shift : hk_min_i32(q->output_shift, 0));
    for (int32_t i = 0; i < n; i += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(n - i));
        const int32x4_t x = wide_load_s16(a, sa, i, p), y = wide_load_s16(b, sb, i, p);
        int32x4_t raw;
        if (op == HK_BINARY_MUL) {
            raw = vmulq_s32(vaddq_n_s32(x, q->input1_offset), vaddq_n_s32(y, q->input2_offset));
        } else {
            raw = vaddq_s32(wide_rescale(x, q->input1_offset, q->left_shift,
                                         q->input1_multiplier, q->input1_shift),
                            wide_rescale(y, q->input2_offset, q->left_shift,
                                         q->input2_multiplier, q->input2_shift));
        }
        int32x4_t v = vaddq_n_s32(hk_requant_mve(raw, out_mult, out_shift), q->output_offset);
        v = vminq_s32(vmaxq_s32(v, lo), hi);
        vstrhq_p_s32(out + i, v, p);
    }
    return true;
}

#if HK_BINARY_F32_FAST

/* Four elements of a float run from index i. */
HK_INLINE float32x4_t wide_load_f32(const float *x, int32_t step, int32_t i, mve_pred16_t p)
{
    return step == 0 ? vdupq_n_f32(x[0]) : vldrwq_z_f32(x + i, p);
}

bool hk_binary_run_f32(int32_t op, const hk_binary_params_t *params, const float *a, int32_t sa,
                       const float *b, int32_t sb, float *out, int32_t n)
{
    if ((sa != 0 && sa != 1) || (sb != 0 && sb != 1)) {
        return false;
    }
    const float32x4_t lo = vdupq_n_f32(params->float_min), hi = vdupq_n_f32(params->float_max);
    for (int32_t i = 0; i < n; i += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(n - i));
        const float32x4_t x = wide_load_f32(a, sa, i, p), y = wide_load_f32(b, sb, i, p);
        float32x4_t v = op == HK_BINARY_ADD   ? vaddq_f32(x, y)
                        : op == HK_BINARY_SUB ? vsubq_f32(x, y)
                                              : vmulq_f32(x, y);
        /* hk_clamp_f32: x < lo ? lo : (x > hi ? hi : x), NaN passing through. */
        v = vpselq_f32(lo, v, vcmpltq_f32(v, lo));
        v = vpselq_f32(hi, v, vcmpgtq_f32(v, hi));
        vstrwq_p_f32(out + i, v, p);
    }
    return true;
}

#endif /* HK_BINARY_F32_FAST */

#endif /* HK_HAVE_MVE */
