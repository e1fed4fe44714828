/*
 * helia-aot kernel library: the Helium paths of the ONNX-requantization kernels (see
 * hk_onnx_requant_paths.h). Compiles to nothing on cores without Helium.
 */
#include "hk_onnx_requant_paths.h"
#include "hk_simd.h"

#if defined(__GNUC__) && !defined(__clang__)
/* ADD, SUB and MUL round every float32 step on its own, as onnxruntime does: no FMA. */
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#if HK_HAVE_MVE

int32_t hk_onnx_dot_s8_fast(const int8_t *x, const int8_t *w, int32_t n, int32_t x_offset)
{
    int32_t sum = 0;
    for (int32_t i = 0; i < n; i += 8) {
        const mve_pred16_t p = vctp16q((uint32_t)(n - i));
        const int16x8_t xv = vaddq_n_s16(vldrbq_z_s16(x + i, p), (int16_t)x_offset);
        const int16x8_t wv = vldrbq_z_s16(w + i, p);
        sum = vmladavaq_p_s16(sum, xv, wv, p);
    }
    return sum;
}

void hk_onnx_dw_sums_fast(const hk_onnx_dw_window_t *t, int32_t c0, int32_t n, int32_t *acc)
{
    /* Input and filter are both channel-innermost. Sixteen channels a step: VLDRB.S16 widens
     * eight inputs (offset added in int16, |x + offset| <= 255) and eight weights, VMULLB and
     * VMULLT multiply the even and the odd lanes into int32 sums, VST2 stores them back in
     * channel order. */
    const int16_t offset = (int16_t)t->offset;
    int32_t j = 0;
    for (; j + 16 <= n; j += 16) {
        const int32_t c = c0 + j;
        int32x4_t e0 = vdupq_n_s32(0), o0 = e0, e1 = e0, o1 = e0;
        const int8_t *xr = t->x + c, *wr = t->w + c;
        for (int32_t r = 0; r < t->rows; ++r, xr += t->x_row, wr += t->w_row) {
            const int8_t *x = xr, *w = wr;
            for (int32_t k = 0; k < t->cols; ++k, x += t->x_col, w += t->w_col) {
                int16x8_t xv = vaddq_n_s16(vldrbq_s16(x), offset), wv = vldrbq_s16(w);
                e0 = vaddq_s32(e0, vmullbq_int_s16(xv, wv));
                o0 = vaddq_s32(o0, vmulltq_int_s16(xv, wv));
                xv = vaddq_n_s16(vldrbq_s16(x + 8), offset);
                wv = vldrbq_s16(w + 8);
                e1 = vaddq_s32(e1, vmullbq_int_s16(xv, wv));
                o1 = vaddq_s32(o1, vmulltq_int_s16(xv, wv));
            }
        }
        const int32x4x2_t lo = {{e0, o0}}, hi = {{e1, o1}};
        vst2q_s32(acc + j, lo);
        vst2q_s32(acc + j + 8, hi);
        if (t->bias != NULL) {
            for (int32_t i = 0; i < 16; i += 4) {
                vst1q_s32(acc + j + i, vaddq_s32(vld1q_s32(acc + j + i), vld1q_s32(t->bias + c + i)));
            }
        }
    }
    /* Eight channels: the first half of the step above. */
    for (; j + 8 <= n; j += 8) {
        const int32_t c = c0 + j;
        int32x4_t e0 = vdupq_n_s32(0), o0 = e0;
        const int8_t *xr = t->x + c, *wr = t->w + c;
        for (int32_t r = 0; r < t->rows; ++r, xr += t->x_row, wr += t->w_row) {
            const int8_t *x = xr, *w = wr;
            for (int32_t k = 0; k < t->cols; ++k, x += t->x_col, w += t->w_col) {
                const int16x8_t xv = vaddq_n_s16(vldrbq_s16(x), offset), wv = vldrbq_s16(w);
                e0 = vaddq_s32(e0, vmullbq_int_s16(xv, wv));
                o0 = vaddq_s32(o0, vmulltq_int_s16(xv, wv));
            }
        }
        const int32x4x2_t lo = {{e0, o0}};
        vst2q_s32(acc + j, lo);
        if (t->bias != NULL) {
            vst1q_s32(acc + j, vaddq_s32(vld1q_s32(acc + j), vld1q_s32(t->bias + c)));
            vst1q_s32(acc + j + 4, vaddq_s32(vld1q_s32(acc + j + 4), vld1q_s32(t->bias + c + 4)));
        }
    }
    /* The last channels four a vector, under a predicate. */
    for (; j < n; j += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(n - j));
        const int32_t c = c0 + j;
        int32x4_t sum = t->bias != NULL ? vldrwq_z_s32(t->bias + c, pr) : vdupq_n_s32(0);
        const int8_t *xr = t->x + c, *wr = t->w + c;
        for (int32_t r = 0; r < t->rows; ++r, xr += t->x_row, wr += t->w_row) {
            const int8_t *x = xr, *w = wr;
            for (int32_t k = 0; k < t->cols; ++k, x += t->x_col, w += t->w_col) {
                const int32x4_t xv = vaddq_n_s32(vldrbq_z_s32(x, pr), t->offset);
                sum = vaddq_s32(sum, vmulq_s32(xv, vldrbq_z_s32(w, pr)));
            }
        }
        vstrwq_p_s32(acc + j, sum, pr);
    }
}

#endif /* HK_HAVE_MVE */

#if HK_ONNX_MVE_F

void hk_onnx_avg_pool_pixel_mve(const hk_onnx_pool_params_t *p, const int8_t *input, int32_t b,
                                int32_t ylo, int32_t yhi, int32_t xlo, int32_t xhi, int32_t count,
                                float m, int8_t *out)
{
    const int32_t ch = p->channels;
    /* Channels are innermost: four a vector, requantized by one VCVTN. */
    for (int32_t c = 0; c < ch; c += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(ch - c));
        int32x4_t sum = vdupq_n_s32(-p->input_zero_point * count);
        const int8_t *row = input + (((size_t)b * (size_t)p->input_height + (size_t)ylo) * (size_t)p->input_width +
                                     (size_t)xlo) * (size_t)ch + (size_t)c;
        for (int32_t y = ylo; y < yhi; ++y, row += (size_t)p->input_width * (size_t)ch) {
            const int8_t *in = row;
            for (int32_t x = xlo; x < xhi; ++x, in += ch) {
                sum = vaddq_s32(sum, vldrbq_z_s32(in, pr));
            }
        }
        const int32x4_t q = hk_onnx_requant_q_mve(sum, vdupq_n_f32(m), p->output_zero_point, p->act_min, p->act_max);
        vstrbq_p_s32(out + c, q, pr);
    }
}

void hk_onnx_mean_row_mve(const hk_onnx_mean_params_t *p, const int8_t *x, float m, int8_t *out)
{
    /* Four neighbouring positions of the inner dimensions a vector. */
    for (int32_t i = 0; i < p->inner; i += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(p->inner - i));
        int32x4_t sum = vdupq_n_s32(-p->input_zero_point * p->reduce);
        for (int32_t r = 0; r < p->reduce; ++r) {
            sum = vaddq_s32(sum, vldrbq_z_s32(x + (int64_t)r * p->inner + i, pr));
        }
        vstrbq_p_s32(out + i, hk_onnx_requant_q_mve(sum, vdupq_n_f32(m), p->output_zero_point, -128, 127), pr);
    }
}

/* Four operands of a (or b) dequantized: scale * (q - zero point). */
static float32x4_t onnx_dequantize_q(const int8_t *x, mve_pred16_t pr, int32_t zero_point, float scale)
{
    return vmulq_n_f32(vcvtq_f32_s32(vsubq_n_s32(vldrbq_z_s32(x, pr), zero_point)), scale);
}

void hk_onnx_binary_run_mve(const hk_onnx_binary_params_t *p, const int8_t *a, const int8_t *b,
                            int32_t b_step, int32_t n, float reciprocal, int32_t op, int8_t *out)
{
    const float flo = (float)(p->act_min - p->output_zero_point);
    const float fhi = (float)(p->act_max - p->output_zero_point);
    const float32x4_t b_one = vdupq_n_f32(p->b_scale * (float)((int32_t)b[0] - p->b_zero_point));
    for (int32_t i = 0; i < n; i += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(n - i));
        const float32x4_t va = onnx_dequantize_q(a + i, pr, p->a_zero_point, p->a_scale);
        const float32x4_t vb = b_step != 0 ? onnx_dequantize_q(b + i, pr, p->b_zero_point, p->b_scale) : b_one;
        const float32x4_t v = op == 0 ? vaddq_f32(va, vb) : (op == 1 ? vmulq_f32(va, vb) : vsubq_f32(va, vb));
        const float32x4_t y = vmulq_n_f32(v, reciprocal);
        const float32x4_t yc = vminnmq_f32(vmaxnmq_f32(y, vdupq_n_f32(flo)), vdupq_n_f32(fhi));
        const int32x4_t q = vcvtnq_s32_f32(yc);
        const float32x4_t d = vabsq_f32(vsubq_f32(yc, vcvtq_f32_s32(q)));
        const mve_pred16_t safe = vcmpgtq_f32(vsubq_f32(vdupq_n_f32(0.5f), d),
                                              vmulq_n_f32(vabsq_f32(y), 0x1p-20f));
        vstrbq_p_s32(out + i, vaddq_n_s32(q, p->output_zero_point), pr);
        if ((safe & pr) != pr) {
            /* A lane near a tie: hk_onnx_quantize_by's division. */
            for (int32_t k = 0; k < 4 && i + k < n; ++k) {
                if (((safe >> (4 * k)) & 1u) == 0u) {
                    const float vk = hk_onnx_binary_value(p, a[i + k], b[(size_t)(i + k) * (size_t)b_step], op);
                    out[i + k] = (int8_t)hk_onnx_quantize(vk / p->output_scale, p->output_zero_point,
                                                          p->act_min, p->act_max);
                }
            }
        }
    }
}

#endif /* HK_ONNX_MVE_F */
