/*
 * helia-aot kernel library: integer kernels with onnxruntime's requantization.
 *
 * LiteRT requantizes an int32 accumulator with a fixed-point multiplier and rounds ties away
 * from zero; onnxruntime's CPU integer kernels (QLinearConv, QLinearMatMul, QGemm,
 * QLinearGlobalAveragePool) multiply the accumulator, converted to float32, by a float32
 * multiplier (input scale * weight scale / output scale, in that order, each step in float32)
 * and round half to even. A model from the ONNX front end records requantization "onnx" and
 * its convolutions, matrix products, poolings and means run these kernels instead, so the
 * generated code agrees with onnxruntime bit for bit wherever onnxruntime runs an integer
 * kernel. ADD, SUB and MUL follow ONNX's QDQ definition in float32 (dequantize, add, subtract or multiply,
 * divide by the output scale, round half to even), as onnxruntime's reference loop does.
 *
 * Rounding is done by a conversion instruction or on the float's bits (hk_onnx_rne), never by
 * adding a magic constant: a compiler may fuse a multiply and a following add into one FMA,
 * which rounds once instead of twice and would change results; a lone multiply cannot be fused
 * with anything.
 */
#ifndef HK_ONNX_REQUANT_H
#define HK_ONNX_REQUANT_H

#include <string.h>

#include "hk_common.h"

/* An Arm core with a single-precision FPU rounds with one VCVTR, which rounds in FPSCR's mode
 * (round to nearest even: the reset mode, which every float operation here assumes) and
 * saturates to the int32 range. */
#if defined(__GNUC__) && defined(__ARM_FP) && (__ARM_FP & 4)
#define HK_ONNX_VCVTR 1
#else
#define HK_ONNX_VCVTR 0
#endif

/* Round a float in [-2^30, 2^30] to the nearest integer, ties to even: VCVTR, or from the
 * float's bits. */
HK_INLINE int32_t hk_onnx_rne(float v)
{
#if HK_ONNX_VCVTR
    int32_t q;
    __asm__("vcvtr.s32.f32 %1, %1\n\tvmov %0, %1" : "=r"(q), "+t"(v));
    return q;
#else
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    const int32_t e = (int32_t)((u >> 23) & 0xFFu) - 127;
    if (e < -1) {
        return 0;
    }
    const uint32_t mant = (u & 0x7FFFFFu) | 0x800000u;
    int32_t q;
    if (e >= 23) {
        q = (int32_t)(mant << (e - 23));
    } else {
        const int32_t shift = 23 - e; /* 1..24 */
        const uint32_t half = 1u << (shift - 1);
        const uint32_t rem = mant & ((half << 1) - 1u);
        uint32_t t = mant >> shift;
        t += (rem > half || (rem == half && (t & 1u))) ? 1u : 0u;
        q = (int32_t)t;
    }
    return (u >> 31) ? -q : q;
#endif
}

/* clamp(rne(v) + zero_point, lo, hi). The bounds are integers, so clamping before or after
 * rounding gives the same integer: VCVTR's saturated result is clamped in int32; the bit
 * rounding gets v clamped in float first, so its bits stay in range. */
HK_INLINE int32_t hk_onnx_quantize(float v, int32_t zero_point, int32_t lo, int32_t hi)
{
#if HK_ONNX_VCVTR
    return hk_clamp_i32(hk_onnx_rne(v), lo - zero_point, hi - zero_point) + zero_point;
#else
    const float flo = (float)(lo - zero_point), fhi = (float)(hi - zero_point);
    v = v < flo ? flo : (v > fhi ? fhi : v);
    return hk_clamp_i32(hk_onnx_rne(v) + zero_point, lo, hi);
#endif
}

/* onnxruntime's requantization of one accumulator: float(acc) * multiplier, round half even. */
HK_INLINE int8_t hk_onnx_requant_s8(int32_t acc, float multiplier, int32_t zero_point, int32_t lo,
                                    int32_t hi)
{
    return (int8_t)hk_onnx_quantize((float)acc * multiplier, zero_point, lo, hi);
}

/* sum over i < n of (x[i] + x_offset) * w[i]: the inner product every convolution, depthwise
 * row and matrix product here reduces to (x_offset is minus the input zero point). */
int32_t hk_onnx_dot_s8(const int8_t *x, const int8_t *w, int32_t n, int32_t x_offset);

typedef struct {
    int32_t batches;
    int32_t input_height;
    int32_t input_width;
    int32_t input_channels;
    int32_t output_height;
    int32_t output_width;
    int32_t output_channels;
    int32_t filter_height;
    int32_t filter_width;
    int32_t stride_height;
    int32_t stride_width;
    int32_t dilation_height;
    int32_t dilation_width;
    int32_t pad_top;
    int32_t pad_left;
    int32_t depth_multiplier; /* depthwise only */
    int32_t input_offset;     /* minus the input zero point */
    int32_t output_offset;    /* the output zero point */
    int32_t act_min;
    int32_t act_max;
    const float *multiplier; /* one per output channel */
    const int32_t *bias;     /* one per output channel, or NULL */
} hk_onnx_conv_params_t;

typedef struct {
    int32_t batches;
    int32_t rows;     /* M */
    int32_t cols;     /* N: output channels */
    int32_t depth;    /* K */
    int32_t a_batch_stride, a_row_stride, a_depth_stride;
    int32_t b_batch_stride, b_depth_stride, b_col_stride;
    int32_t a_offset; /* minus the zero point of a */
    int32_t b_offset; /* minus the zero point of b */
    int32_t output_offset;
    int32_t act_min;
    int32_t act_max;
    int32_t per_channel; /* multiplier and bias hold `cols` entries, else one multiplier */
    const float *multiplier;
    const int32_t *bias; /* `cols` entries, or NULL */
} hk_onnx_matmul_params_t;

#define HK_ONNX_MAX_DIMS 5
typedef struct {
    int32_t dims; /* 1..HK_ONNX_MAX_DIMS */
    int32_t shape[HK_ONNX_MAX_DIMS];
    int32_t a_strides[HK_ONNX_MAX_DIMS]; /* 0 along a broadcast dimension */
    int32_t b_strides[HK_ONNX_MAX_DIMS];
    int32_t a_zero_point, b_zero_point, output_zero_point;
    float a_scale, b_scale, output_scale;
    int32_t act_min;
    int32_t act_max;
} hk_onnx_binary_params_t;

typedef struct {
    int32_t batches;
    int32_t input_height;
    int32_t input_width;
    int32_t channels;
    int32_t output_height;
    int32_t output_width;
    int32_t filter_height;
    int32_t filter_width;
    int32_t stride_height;
    int32_t stride_width;
    int32_t pad_top;
    int32_t pad_left;
    int32_t input_zero_point;
    int32_t output_zero_point;
    float input_scale;
    float output_scale;
    int32_t act_min;
    int32_t act_max;
} hk_onnx_pool_params_t;

typedef struct {
    int32_t outer;  /* product of the dimensions before the reduced ones */
    int32_t reduce; /* product of the reduced (adjacent) dimensions */
    int32_t inner;  /* product of the dimensions after them */
    int32_t input_zero_point;
    int32_t output_zero_point;
    float input_scale;
    float output_scale;
} hk_onnx_mean_params_t;

/* Bytes of scratch hk_onnx_conv_packed_s8 needs for one gathered window (0: a 1x1 filter
 * without padding reads its pixels in place). */
int32_t hk_onnx_conv_patch_size(const hk_onnx_conv_params_t *p);

/*
 * The fast convolution (what the converter emits; FULLY_CONNECTED is a 1x1 convolution over its
 * rows): the filter in hk_fc_dot.h's packed layout of its [output_channels, taps] rows (the
 * layout LiteRT's packed FULLY_CONNECTED reads, made at conversion) and offset_bias = bias +
 * input_offset * (sum of the channel's weights), so the inner products multiply raw int8 inputs
 * with the same dot products as that kernel (Helium VMLADAV, eight channels a pass of the
 * window; DSP SMLAD; plain C). Each output pixel's window is read in place (1x1, no padding) or
 * gathered into patch (hk_onnx_conv_patch_size bytes) with the input zero point where a tap lies
 * outside the image, which then adds exactly nothing; p->bias is not read. patch NULL where a
 * window is gathered (the planner dropped the buffer where it would raise the arena): the
 * windows are gathered into the output's last bytes, not yet written, and the few pixels that
 * write those gather sixteen bytes at a time on the stack (same sums). The accumulators are
 * the reference's integers, requantized the same way.
 */
int32_t hk_onnx_conv_packed_s8(const hk_onnx_conv_params_t *p, const int8_t *input,
                               const int8_t *packed, const int32_t *offset_bias, int8_t *patch,
                               int8_t *output);
int32_t hk_onnx_depthwise_s8(const hk_onnx_conv_params_t *p, const int8_t *input,
                             const int8_t *filter, int8_t *output);
int32_t hk_onnx_matmul_s8(const hk_onnx_matmul_params_t *p, const int8_t *a, const int8_t *b,
                          int8_t *output);
int32_t hk_onnx_add_s8(const hk_onnx_binary_params_t *p, const int8_t *a, const int8_t *b,
                       int8_t *output);
int32_t hk_onnx_sub_s8(const hk_onnx_binary_params_t *p, const int8_t *a, const int8_t *b,
                       int8_t *output);
int32_t hk_onnx_mul_s8(const hk_onnx_binary_params_t *p, const int8_t *a, const int8_t *b,
                       int8_t *output);
int32_t hk_onnx_avg_pool_s8(const hk_onnx_pool_params_t *p, const int8_t *input, int8_t *output);
int32_t hk_onnx_mean_s8(const hk_onnx_mean_params_t *p, const int8_t *input, int8_t *output);

#endif /* HK_ONNX_REQUANT_H */
