/*
 * helia-aot kernel library: the Helium paths of the ONNX-requantization kernels (see
 * hk_onnx_requant_paths.h). Compiles to nothing on cores without Helium.
 */
#include "hk_onnx_requant_paths.h"
#include "hk_simd.h"

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
    /* Input and filter are both channel-innermost: four channels a vector. */
    for (int32_t j = 0; j < n; j += 4) {
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

/* Four accumulators at once: VCVTN rounds to nearest with ties to even. */
static int32x4_t onnx_requant_q(int32x4_t acc, float32x4_t multiplier, int32_t zero_point, int32_t lo,
                                int32_t hi)
{
    float32x4_t v = vmulq_f32(vcvtq_f32_s32(acc), multiplier);
    v = vmaxnmq_f32(v, vdupq_n_f32((float)(lo - zero_point)));
    v = vminnmq_f32(v, vdupq_n_f32((float)(hi - zero_point)));
    return vaddq_n_s32(vcvtnq_s32_f32(v), zero_point);
}

void hk_onnx_requant_row_mve(const int32_t *acc, const float *multiplier, int32_t n,
                             int32_t zero_point, int32_t lo, int32_t hi, int8_t *out)
{
    for (int32_t i = 0; i < n; i += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(n - i));
        const int32x4_t q = onnx_requant_q(vldrwq_z_s32(acc + i, p), vldrwq_z_f32(multiplier + i, p),
                                           zero_point, lo, hi);
        vstrbq_p_s32(out + i, q, p);
    }
}

void hk_onnx_avg_pool_pixel_mve(const hk_onnx_pool_params_t *p, const int8_t *input, int32_t b,
                                int32_t ylo, int32_t yhi, int32_t xlo, int32_t xhi, int32_t count,
                                float m, int8_t *out)
{
    const int32_t ch = p->channels;
    /* Channels are innermost: four a vector, requantized by one VCVTN. */
    for (int32_t c = 0; c < ch; c += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(ch - c));
        int32x4_t sum = vdupq_n_s32(-p->input_zero_point * count);
        for (int32_t y = ylo; y < yhi; ++y) {
            for (int32_t x = xlo; x < xhi; ++x) {
                const int8_t *in = input + (((int64_t)b * p->input_height + y) * p->input_width + x) * ch + c;
                sum = vaddq_s32(sum, vldrbq_z_s32(in, pr));
            }
        }
        const int32x4_t q = onnx_requant_q(sum, vdupq_n_f32(m), p->output_zero_point, p->act_min, p->act_max);
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
        vstrbq_p_s32(out + i, onnx_requant_q(sum, vdupq_n_f32(m), p->output_zero_point, -128, 127), pr);
    }
}

#endif /* HK_ONNX_MVE_F */
