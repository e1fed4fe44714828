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

/* Sums of sixteen (or, without `upper`, eight) channels from c over window t's taps, no bias:
 * VLDRB.S16 widens eight inputs (the offset added in int16, |x + offset| <= 255) and eight
 * weights, VMULLB and VMULLT multiply the even and the odd lanes into int32 sums. Lane i of e0
 * is channel c + 2i, of o0 channel c + 2i + 1; e1 and o1 the same from c + 8. */
typedef struct {
    int32x4_t e0, o0, e1, o1;
} onnx_dw16_t;

HK_INLINE onnx_dw16_t onnx_dw_sums16(const hk_onnx_dw_window_t *t, int32_t c, bool upper)
{
    const int16_t offset = (int16_t)t->offset;
    onnx_dw16_t s = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
    const int8_t *xr = t->x + c, *wr = t->w + c;
    for (int32_t r = 0; r < t->rows; ++r, xr += t->x_row, wr += t->w_row) {
        const int8_t *x = xr, *w = wr;
        for (int32_t k = 0; k < t->cols; ++k, x += t->x_col, w += t->w_col) {
            int16x8_t xv = vaddq_n_s16(vldrbq_s16(x), offset), wv = vldrbq_s16(w);
            s.e0 = vaddq_s32(s.e0, vmullbq_int_s16(xv, wv));
            s.o0 = vaddq_s32(s.o0, vmulltq_int_s16(xv, wv));
            if (upper) {
                xv = vaddq_n_s16(vldrbq_s16(x + 8), offset);
                wv = vldrbq_s16(w + 8);
                s.e1 = vaddq_s32(s.e1, vmullbq_int_s16(xv, wv));
                s.o1 = vaddq_s32(s.o1, vmulltq_int_s16(xv, wv));
            }
        }
    }
    return s;
}

/* Four channels from c under the predicate, bias included. */
HK_INLINE int32x4_t onnx_dw_sums4(const hk_onnx_dw_window_t *t, int32_t c, mve_pred16_t pr)
{
    int32x4_t sum = t->bias != NULL ? vldrwq_z_s32(t->bias + c, pr) : vdupq_n_s32(0);
    const int8_t *xr = t->x + c, *wr = t->w + c;
    for (int32_t r = 0; r < t->rows; ++r, xr += t->x_row, wr += t->w_row) {
        const int8_t *x = xr, *w = wr;
        for (int32_t k = 0; k < t->cols; ++k, x += t->x_col, w += t->w_col) {
            const int32x4_t xv = vaddq_n_s32(vldrbq_z_s32(x, pr), t->offset);
            sum = vaddq_s32(sum, vmulq_s32(xv, vldrbq_z_s32(w, pr)));
        }
    }
    return sum;
}

/* Eight channels' sums (even and odd lanes) from c plus their bias, read de-interleaved. */
HK_INLINE void onnx_dw_bias8(const hk_onnx_dw_window_t *t, int32_t c, int32x4_t *even, int32x4_t *odd)
{
    if (t->bias != NULL) {
        const int32x4x2_t b = vld2q_s32(t->bias + c);
        *even = vaddq_s32(*even, b.val[0]);
        *odd = vaddq_s32(*odd, b.val[1]);
    }
}

void hk_onnx_dw_sums_fast(const hk_onnx_dw_window_t *t, int32_t c0, int32_t n, int32_t *acc)
{
    /* Input and filter are both channel-innermost; VST2 stores even and odd lanes back in
     * channel order. */
    int32_t j = 0;
    for (; j + 16 <= n; j += 16) {
        onnx_dw16_t s = onnx_dw_sums16(t, c0 + j, true);
        onnx_dw_bias8(t, c0 + j, &s.e0, &s.o0);
        onnx_dw_bias8(t, c0 + j + 8, &s.e1, &s.o1);
        const int32x4x2_t lo = {{s.e0, s.o0}}, hi = {{s.e1, s.o1}};
        vst2q_s32(acc + j, lo);
        vst2q_s32(acc + j + 8, hi);
    }
    if (j + 8 <= n) {
        onnx_dw16_t s = onnx_dw_sums16(t, c0 + j, false);
        onnx_dw_bias8(t, c0 + j, &s.e0, &s.o0);
        const int32x4x2_t lo = {{s.e0, s.o0}};
        vst2q_s32(acc + j, lo);
        j += 8;
    }
    /* The last channels four a vector, under a predicate. */
    for (; j < n; j += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(n - j));
        vstrwq_p_s32(acc + j, onnx_dw_sums4(t, c0 + j, pr), pr);
    }
}

#if HK_ONNX_MVE_F
/* Eight channels' outputs from even and odd lanes: each requantized by its channel's
 * multiplier (read de-interleaved), narrowed back into channel order (VMOVNB, VMOVNT). */
HK_INLINE void onnx_dw_store8(int32x4_t even, int32x4_t odd, const float *multiplier, int32_t zero_point,
                              int32_t lo, int32_t hi, int8_t *out)
{
    const float32x4x2_t m = vld2q_f32(multiplier);
    int16x8_t q = vmovnbq_s32(vdupq_n_s16(0), hk_onnx_requant_q_mve(even, m.val[0], zero_point, lo, hi));
    q = vmovntq_s32(q, hk_onnx_requant_q_mve(odd, m.val[1], zero_point, lo, hi));
    vstrbq_s16(out, q);
}

/* Every channel of one output pixel (window t): sums, bias, requantization, store. */
HK_INLINE void onnx_dw_pixel(const hk_onnx_dw_window_t *t, int32_t n, const float *multiplier, int32_t zero_point,
                             int32_t lo, int32_t hi, int8_t *out)
{
    int32_t j = 0;
    for (; j + 16 <= n; j += 16) {
        onnx_dw16_t s = onnx_dw_sums16(t, j, true);
        onnx_dw_bias8(t, j, &s.e0, &s.o0);
        onnx_dw_store8(s.e0, s.o0, multiplier + j, zero_point, lo, hi, out + j);
        onnx_dw_bias8(t, j + 8, &s.e1, &s.o1);
        onnx_dw_store8(s.e1, s.o1, multiplier + j + 8, zero_point, lo, hi, out + j + 8);
    }
    if (j + 8 <= n) {
        onnx_dw16_t s = onnx_dw_sums16(t, j, false);
        onnx_dw_bias8(t, j, &s.e0, &s.o0);
        onnx_dw_store8(s.e0, s.o0, multiplier + j, zero_point, lo, hi, out + j);
        j += 8;
    }
    for (; j < n; j += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(n - j));
        const int32x4_t q =
            hk_onnx_requant_q_mve(onnx_dw_sums4(t, j, pr), vldrwq_z_f32(multiplier + j, pr), zero_point, lo, hi);
        vstrbq_p_s32(out + j, q, pr);
    }
}

void hk_onnx_depthwise_m1_mve(const hk_onnx_conv_params_t *p, const int8_t *input, const int8_t *filter,
                              int8_t *output)
{
    /* The caller's local copy of the parameters: the output stores cannot alias it. */
    const int32_t ic = p->input_channels, oc = p->output_channels;
    const size_t image = (size_t)p->input_height * (size_t)p->input_width * (size_t)ic;
    const float *const multiplier = p->multiplier;
    const int32_t zero_point = p->output_offset, lo = p->act_min, hi = p->act_max;
    hk_onnx_dw_window_t t = {NULL,
                             NULL,
                             0,
                             0,
                             (size_t)p->dilation_height * (size_t)p->input_width * (size_t)ic,
                             (size_t)p->dilation_width * (size_t)ic,
                             (size_t)p->filter_width * (size_t)oc,
                             (size_t)oc,
                             p->input_offset,
                             1,
                             p->bias};
    int8_t *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *in = input + (size_t)b * image;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t iy0 = oy * p->stride_height - p->pad_top;
            for (int32_t ox = 0; ox < p->output_width; ++ox, out += oc) {
                const int32_t ix0 = ox * p->stride_width - p->pad_left;
                int32_t fy0, fy1, fx0, fx1;
                hk_onnx_window(p, iy0, ix0, &fy0, &fy1, &fx0, &fx1);
                t.rows = fy1 - fy0;
                t.cols = fx1 - fx0;
                t.x = in + (size_t)(iy0 + fy0 * p->dilation_height) * (size_t)p->input_width * (size_t)ic +
                      (size_t)(ix0 + fx0 * p->dilation_width) * (size_t)ic;
                t.w = filter + ((size_t)fy0 * (size_t)p->filter_width + (size_t)fx0) * (size_t)oc;
                if (t.rows <= 0 || t.cols <= 0) {
                    t.rows = t.cols = 0;
                    t.x = in;
                    t.w = filter;
                }
                onnx_dw_pixel(&t, oc, multiplier, zero_point, lo, hi, out);
            }
        }
    }
}
#endif

#endif /* HK_HAVE_MVE */

#if HK_HAVE_MVE

void hk_onnx_affine_run_mve(const int32_t *scale, const int32_t *bias, int32_t shift, const int8_t *x,
                            int32_t n, int8_t *out)
{
    for (int32_t i = 0; i < n; i += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(n - i));
        const int32x4_t line = vmulq_s32(vldrbq_z_s32(x + i, pr), vldrwq_z_s32(scale + i, pr));
        int32x4_t v = vshlq_r_s32(vaddq_s32(line, vldrwq_z_s32(bias + i, pr)), -shift);
        v = vminq_s32(vmaxq_s32(v, vdupq_n_s32(-128)), vdupq_n_s32(127));
        vstrbq_p_s32(out + i, v, pr);
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

/* What hk_onnx_quantize_by needs on four lanes, made once per run: the reciprocal of the output
 * scale and the bounds [lo, hi] less the zero point, in float. */
typedef struct {
    float reciprocal;
    int32_t zero_point;
    float32x4_t lo, hi;
} onnx_quantize_by_t;

static onnx_quantize_by_t onnx_quantize_by_make(float reciprocal, int32_t zero_point, int32_t lo, int32_t hi)
{
    const onnx_quantize_by_t q = {reciprocal, zero_point, vdupq_n_f32((float)(lo - zero_point)),
                                  vdupq_n_f32((float)(hi - zero_point))};
    return q;
}

/* hk_onnx_quantize_by's multiply and test on four lanes: stores rne(v * reciprocal) + zero point,
 * clamped, under pr, and returns the lanes whose integer is provably the division's (a lane near
 * a tie, or a NaN, fails the test; its caller divides). */
HK_INLINE mve_pred16_t onnx_quantize_by_q(const onnx_quantize_by_t *by, float32x4_t v, mve_pred16_t pr,
                                          int8_t *out)
{
    const float32x4_t y = vmulq_n_f32(v, by->reciprocal);
    const float32x4_t yc = vminnmq_f32(vmaxnmq_f32(y, by->lo), by->hi);
    const int32x4_t q = vcvtnq_s32_f32(yc);
    const float32x4_t d = vabsq_f32(vsubq_f32(yc, vcvtq_f32_s32(q)));
    vstrbq_p_s32(out, vaddq_n_s32(q, by->zero_point), pr);
    return vcmpgtq_f32(vsubq_f32(vdupq_n_f32(0.5f), d), vmulq_n_f32(vabsq_f32(y), 0x1p-20f));
}

void hk_onnx_binary_run_mve(const hk_onnx_binary_params_t *p, const int8_t *a, const int8_t *b,
                            int32_t b_step, int32_t n, float reciprocal, int32_t op, int8_t *out)
{
    const onnx_quantize_by_t by = onnx_quantize_by_make(reciprocal, p->output_zero_point, p->act_min, p->act_max);
    const float32x4_t b_one = vdupq_n_f32(p->b_scale * (float)((int32_t)b[0] - p->b_zero_point));
    for (int32_t i = 0; i < n; i += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(n - i));
        const float32x4_t va = onnx_dequantize_q(a + i, pr, p->a_zero_point, p->a_scale);
        const float32x4_t vb = b_step != 0 ? onnx_dequantize_q(b + i, pr, p->b_zero_point, p->b_scale) : b_one;
        const float32x4_t v = op == 0 ? vaddq_f32(va, vb) : (op == 1 ? vmulq_f32(va, vb) : vsubq_f32(va, vb));
        const mve_pred16_t safe = onnx_quantize_by_q(&by, v, pr, out + i);
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

void hk_onnx_quantize_run_mve(const float *x, int32_t n, float scale, float reciprocal, int32_t zero_point,
                              int8_t *out)
{
    const onnx_quantize_by_t by = onnx_quantize_by_make(reciprocal, zero_point, -128, 127);
    for (int32_t i = 0; i < n; i += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(n - i));
        const mve_pred16_t safe = onnx_quantize_by_q(&by, vldrwq_z_f32(x + i, pr), pr, out + i);
        if ((safe & pr) != pr) {
            /* A lane near a tie, past the range or NaN: QuantizeLinear's division. */
            for (int32_t k = 0; k < 4 && i + k < n; ++k) {
                if (((safe >> (4 * k)) & 1u) == 0u) {
                    out[i + k] = hk_onnx_quantize_linear(x[i + k] / scale, zero_point);
                }
            }
        }
    }
}

void hk_onnx_batch_norm_run_mve(const hk_onnx_bn_run_t *r, const int8_t *x, int32_t n, int8_t *out)
{
    /* Locals, not r's fields: every byte stored through out could alias them. */
    const onnx_quantize_by_t by = onnx_quantize_by_make(r->reciprocal, r->y_zero_point, -128, 127);
    const float *mean = r->mean, *multiplier = r->multiplier, *offset = r->offset;
    const int32_t step = r->step, x_zero_point = r->x_zero_point;
    const float x_scale = r->x_scale;
    const float32x4_t m0 = vdupq_n_f32(mean[0]), g0 = vdupq_n_f32(multiplier[0]), b0 = vdupq_n_f32(offset[0]);
    for (int32_t i = 0; i < n; i += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(n - i));
        const float32x4_t m = step != 0 ? vldrwq_z_f32(mean + i, pr) : m0;
        const float32x4_t g = step != 0 ? vldrwq_z_f32(multiplier + i, pr) : g0;
        const float32x4_t b = step != 0 ? vldrwq_z_f32(offset + i, pr) : b0;
        const float32x4_t v = onnx_dequantize_q(x + i, pr, x_zero_point, x_scale);
        const mve_pred16_t safe = onnx_quantize_by_q(&by, vaddq_f32(vmulq_f32(vsubq_f32(v, m), g), b), pr, out + i);
        if ((safe & pr) != pr) {
            /* A lane near a tie: QuantizeLinear's division. */
            for (int32_t k = 0; k < 4 && i + k < n; ++k) {
                if (((safe >> (4 * k)) & 1u) == 0u) {
                    out[i + k] = hk_onnx_quantize_linear(hk_onnx_bn_value(r, x[i + k], (i + k) * step) / r->y_scale,
                                                         r->y_zero_point);
                }
            }
        }
    }
}

#endif /* HK_ONNX_MVE_F */
