/*
 * helia-aot kernel library: what the ONNX-requantization fast paths share (internal to the
 * onnx_requant family).
 *
 * hk_onnx_requant.c is the portable reference. Its inner products go to hk_onnx_dot_s8_fast,
 * which hk_onnx_requant_mve.c (Helium: eight taps a VMLADAV) or hk_onnx_requant_dsp.c (two
 * SMLADs per four taps) defines for the instruction set hk_isa.h chose, and so do the depthwise
 * sums (four channels in registers over a window's taps). The packed convolution's inner
 * products are hk_fc_dot.h's, which chooses its own path. With the floating-point Helium
 * extension, whose VCVTN rounds ties to even as onnxruntime does, hk_onnx_requant_mve.c also
 * requantizes four channels a vector and sums pooling windows and means four channels a vector.
 * Every path computes the same int32 sums and the same float32 products, so all give the
 * reference's bytes.
 */
#ifndef HK_ONNX_REQUANT_PATHS_H
#define HK_ONNX_REQUANT_PATHS_H

#include "hk_isa.h"
#include "hk_onnx_requant.h"
#include "hk_window.h"

/* Helium's float conversion with round-to-nearest-even needs the floating-point MVE. */
#if HK_HAVE_MVE && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#define HK_ONNX_MVE_F 1
#else
#define HK_ONNX_MVE_F 0
#endif

/* The image of batch b and the in-image taps of the window whose tap (0, 0) lies at input
 * (iy0, ix0): filter rows [*fy0, *fy1), columns [*fx0, *fx1) (hk_window_taps). */
HK_INLINE void hk_onnx_window(const hk_onnx_conv_params_t *p, int32_t iy0, int32_t ix0, int32_t *fy0,
                              int32_t *fy1, int32_t *fx0, int32_t *fx1)
{
    /* Undilated (the usual case), the walker's divisions by the dilation fold away. */
    if (p->dilation_height == 1 && p->dilation_width == 1) {
        hk_window_taps(iy0, 1, p->filter_height, p->input_height, fy0, fy1);
        hk_window_taps(ix0, 1, p->filter_width, p->input_width, fx0, fx1);
        return;
    }
    hk_window_taps(iy0, p->dilation_height, p->filter_height, p->input_height, fy0, fy1);
    hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width, fx0, fx1);
}

/* One depthwise output pixel's in-image taps: `rows` by `cols` of them, the first at x (input,
 * channel 0) and w (filter, channel 0), the steps between them in bytes. */
typedef struct {
    const int8_t *x;
    const int8_t *w;
    int32_t rows, cols;
    size_t x_row, x_col;
    size_t w_row, w_col;
    int32_t offset;           /* the input offset */
    int32_t depth_multiplier;
    const int32_t *bias;      /* per output channel, or NULL */
} hk_onnx_dw_window_t;

#if HK_HAVE_MVE || HK_HAVE_DSP
/* hk_onnx_dot_s8 on the core's vector or SIMD32 instructions, the whole of n. */
int32_t hk_onnx_dot_s8_fast(const int8_t *x, const int8_t *w, int32_t n, int32_t x_offset);

/* Depth multiplier 1: acc[0..n) = bias plus the sums of channels c0.. over window t's taps, the
 * accumulators of four channels in registers over all the taps (Helium: one vector; DSP: SXTAB16
 * widens input words with the offset, SMLABB / SMLATT multiply). */
void hk_onnx_dw_sums_fast(const hk_onnx_dw_window_t *t, int32_t c0, int32_t n, int32_t *acc);
#endif

#if HK_ONNX_MVE_F
/* hk_onnx_depthwise_s8 with depth multiplier 1, the whole image: each output pixel's channels
 * summed as hk_onnx_dw_sums_fast sums them and requantized in registers (no row of
 * accumulators in memory), the pixel loop here so that nothing is set up again per pixel. */
void hk_onnx_depthwise_m1_mve(const hk_onnx_conv_params_t *p, const int8_t *input, const int8_t *filter,
                              int8_t *output);
#endif

/* The dequantized operands' sum, product or difference in float32 (op 0, 1, 2), each operand
 * scale * (q - zero point), as ONNX's QDQ Add, Mul and Sub compute them. */
HK_INLINE float hk_onnx_binary_value(const hk_onnx_binary_params_t *p, int32_t a, int32_t b, int32_t op)
{
    const float va = p->a_scale * (float)(a - p->a_zero_point);
    const float vb = p->b_scale * (float)(b - p->b_zero_point);
    return op == 0 ? va + vb : (op == 1 ? va * vb : va - vb);
}

/*
 * QuantizeLinear of v by `scale` (round_half_even(fl(v / scale)) + zero point, clamped), from a
 * multiply by reciprocal = fl(1 / scale) where that gives the same integer, the division
 * otherwise. y = fl(v * reciprocal) and e = fl(v / scale) each carry at most two roundings of
 * v / scale, so |y - e| < |y| * 2^-22; when no half-integer lies within |y| * 2^-20 of y
 * (clamped first: every value past a bound gives that bound), e rounds to the integer y rounds
 * to. yc - q is exact (Sterbenz), so the test itself does not round. A tie, or a value within a
 * few ulps of one, takes the division: the bytes are the division's on every input.
 */
HK_INLINE int32_t hk_onnx_quantize_by(float v, float scale, float reciprocal, int32_t zero_point,
                                      int32_t lo, int32_t hi)
{
    const float y = v * reciprocal;
    const float flo = (float)(lo - zero_point), fhi = (float)(hi - zero_point);
    const float yc = y < flo ? flo : (y > fhi ? fhi : y);
    const int32_t q = hk_onnx_rne(yc);
    const float d = yc - (float)q;
    const float margin = (y < 0.0f ? -y : y) * 0x1p-20f;
    if (0.5f - (d < 0.0f ? -d : d) > margin) {
        return q + zero_point;
    }
    return hk_onnx_quantize(v / scale, zero_point, lo, hi);
}

/* QuantizeLinear to int8 of a value already divided by the scale: NaN to -128 (as onnxruntime's
 * vector loop gives it), anything else clamped and rounded half to even. */
HK_INLINE int8_t hk_onnx_quantize_linear(float v, int32_t zero_point)
{
    if (!(v >= (float)(-128 - zero_point))) { /* also NaN */
        return -128;
    }
    return (int8_t)hk_onnx_quantize(v, zero_point, -128, 127);
}

/* One run of a batch normalization between quantized nodes (hk_onnx_batch_norm_s8): n int8
 * elements whose channel parameters step by `step` entries (1: one channel each, 0: all one
 * channel's), each ((x - x_zero_point) * x_scale - mean) * multiplier + offset in float32, then
 * QuantizeLinear by y_scale, multiplying by reciprocal = fl(1 / y_scale) where that gives the
 * division's integer (hk_onnx_quantize_by). */
typedef struct {
    const float *mean;
    const float *multiplier;
    const float *offset;
    int32_t step;
    int32_t x_zero_point;
    float x_scale;
    float y_scale;
    float reciprocal;
    int32_t y_zero_point;
} hk_onnx_bn_run_t;

/* Element i of a run before quantization, each float32 step rounded on its own (no FMA: the
 * files that call it compile with fp-contract off). */
HK_INLINE float hk_onnx_bn_value(const hk_onnx_bn_run_t *r, int32_t x, int32_t c)
{
    const float v = (float)(x - r->x_zero_point) * r->x_scale;
    const float centred = (v - r->mean[c]) * r->multiplier[c];
    return centred + r->offset[c];
}

#if HK_HAVE_MVE
/* n channels of a dense layer's batch normalization as integer lines
 * (hk_onnx_batch_norm_affine_s8), four a vector: VMLA, an arithmetic VSHL right, clamp. */
void hk_onnx_affine_run_mve(const int32_t *scale, const int32_t *bias, int32_t shift, const int8_t *x,
                            int32_t n, int8_t *out);
#endif

#if HK_ONNX_MVE_F
/* QuantizeLinear of n floats, four a vector (hk_onnx_quantize_by's test on every lane, the
 * division for a lane that fails it, NaN included). Only for 2^-100 <= scale <= 2^100: Helium
 * flushes subnormal floats to zero, and with such a scale a subnormal input quantizes to the
 * zero point either way. */
void hk_onnx_quantize_run_mve(const float *x, int32_t n, float scale, float reciprocal, int32_t zero_point,
                              int8_t *out);

/* A batch normalization run four elements a vector. Only where no step of any element meets a
 * subnormal float (the converter checks every int8 input of every channel): Helium flushes
 * them to zero, the scalar FPU does not. */
void hk_onnx_batch_norm_run_mve(const hk_onnx_bn_run_t *r, const int8_t *x, int32_t n, int8_t *out);
#endif

#if HK_ONNX_MVE_F
/* One run of n outputs of ADD, MUL or SUB (op 0, 1, 2) with a contiguous and b contiguous
 * (b_step 1) or one value (b_step 0), four a vector: hk_onnx_quantize_by's test on every lane,
 * the division for a lane that fails it. */
void hk_onnx_binary_run_mve(const hk_onnx_binary_params_t *p, const int8_t *a, const int8_t *b,
                            int32_t b_step, int32_t n, float reciprocal, int32_t op, int8_t *out);
#endif

#if HK_ONNX_MVE_F
/* Four accumulators requantized at once: VCVTN rounds to nearest with ties to even. */
HK_INLINE int32x4_t hk_onnx_requant_q_mve(int32x4_t acc, float32x4_t multiplier, int32_t zero_point,
                                          int32_t lo, int32_t hi)
{
    float32x4_t v = vmulq_f32(vcvtq_f32_s32(acc), multiplier);
    v = vmaxnmq_f32(v, vdupq_n_f32((float)(lo - zero_point)));
    v = vminnmq_f32(v, vdupq_n_f32((float)(hi - zero_point)));
    return vaddq_n_s32(vcvtnq_s32_f32(v), zero_point);
}

/* onnx requantization of acc[0..n) by multiplier[0..n) into out, four a VCVTN. */
HK_INLINE void hk_onnx_requant_row_mve(const int32_t *acc, const float *multiplier, int32_t n,
                                       int32_t zero_point, int32_t lo, int32_t hi, int8_t *out)
{
    for (int32_t i = 0; i < n; i += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(n - i));
        const int32x4_t q = hk_onnx_requant_q_mve(vldrwq_z_s32(acc + i, p), vldrwq_z_f32(multiplier + i, p),
                                                  zero_point, lo, hi);
        vstrbq_p_s32(out + i, q, p);
    }
}

/* onnx requantization of four (quads 1) or eight (quads 2) accumulators, no predicate and no
 * loop: a pixel's group of units after the packed inner products. */
HK_INLINE void hk_onnx_requant_quads_mve(const int32_t *acc, const float *multiplier, int32_t quads,
                                         int32_t zero_point, int32_t lo, int32_t hi, int8_t *out)
{
    for (int32_t q = 0; q < quads; ++q) {
        vstrbq_s32(out + 4 * q, hk_onnx_requant_q_mve(vldrwq_s32(acc + 4 * q), vldrwq_f32(multiplier + 4 * q),
                                                      zero_point, lo, hi));
    }
}

/* One average-pool output pixel over rows [ylo, yhi) and columns [xlo, xhi) of batch b, every
 * channel, requantized by m. */
void hk_onnx_avg_pool_pixel_mve(const hk_onnx_pool_params_t *p, const int8_t *input, int32_t b,
                                int32_t ylo, int32_t yhi, int32_t xlo, int32_t xhi, int32_t count,
                                float m, int8_t *out);

/* One outer index of a mean: the inner positions of x (reduce rows of inner bytes) into out. */
void hk_onnx_mean_row_mve(const hk_onnx_mean_params_t *p, const int8_t *x, float m, int8_t *out);
#endif

#endif /* HK_ONNX_REQUANT_PATHS_H */
