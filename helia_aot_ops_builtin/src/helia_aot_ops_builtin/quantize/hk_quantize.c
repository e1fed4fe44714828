/*
 * helia-aot kernel library: QUANTIZE and DEQUANTIZE (see hk_quantize.h).
 */
#include "hk_quantize.h"

#include <math.h>

/* LiteRT AffineQuantize's float -> int32 step. The reference casts round(x / scale) to int32
 * directly; on the x86 hosts that define the reference results a NaN or out-of-range value
 * becomes INT32_MIN, and the zero point is then added with two's-complement wrap-around. Both
 * are reproduced here without undefined behaviour. */
static inline int32_t affine_quantize(float x, float scale, int32_t zero_point, int32_t lo,
                                      int32_t hi)
{
    const float rounded = roundf(x / scale);
    const int32_t q = (rounded >= -2147483648.0f && rounded < 2147483648.0f) ? (int32_t)rounded
                                                                             : INT32_MIN;
    const int32_t shifted = (int32_t)((uint32_t)q + (uint32_t)zero_point);
    return hk_clamp_i32(shifted, lo, hi);
}

static inline int32_t requantize_one(const hk_requantize_params_t *p, int32_t x, int32_t lo,
                                     int32_t hi)
{
    const int32_t out = hk_mbqm(x - p->input_zero_point, p->multiplier, p->shift) +
                        p->output_zero_point;
    return hk_clamp_i32(out, lo, hi);
}

#define CHECK_ARGS(params, input, output)                                                      \
    do {                                                                                       \
        if ((params) == NULL || (params)->size < 0 ||                                          \
            ((params)->size > 0 && ((input) == NULL || (output) == NULL))) {                   \
            return HK_STATUS_BAD_PARAM;                                                        \
        }                                                                                      \
    } while (0)

/* Follows LiteRT reference_ops::AffineQuantize<float, int8_t>. */
int32_t hk_quantize_f32_s8(const hk_quantize_params_t *params, const float *input, int8_t *output)
{
    CHECK_ARGS(params, input, output);
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (int8_t)affine_quantize(input[i], params->scale, params->zero_point, -128, 127);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::AffineQuantize<float, int16_t>. */
int32_t hk_quantize_f32_s16(const hk_quantize_params_t *params, const float *input,
                            int16_t *output)
{
    CHECK_ARGS(params, input, output);
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (int16_t)affine_quantize(input[i], params->scale, params->zero_point, -32768,
                                             32767);
    }
    return HK_STATUS_OK;
}

/* The per-channel walk: outer blocks of `channels` runs of `inner` elements. */
static int32_t quantize_channels(const hk_quantize_channel_params_t *p, const float *scales,
                                 const int32_t *zero_points, const float *input, void *output,
                                 bool to_s8)
{
    if (p == NULL || p->outer < 0 || p->channels < 1 || p->inner < 0 || scales == NULL ||
        zero_points == NULL || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t lo = to_s8 ? -128 : -32768;
    const int32_t hi = to_s8 ? 127 : 32767;
    size_t at = 0;
    for (int32_t o = 0; o < p->outer; ++o) {
        for (int32_t c = 0; c < p->channels; ++c) {
            for (int32_t i = 0; i < p->inner; ++i, ++at) {
                const int32_t q = affine_quantize(input[at], scales[c], zero_points[c], lo, hi);
                if (to_s8) {
                    ((int8_t *)output)[at] = (int8_t)q;
                } else {
                    ((int16_t *)output)[at] = (int16_t)q;
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::PerChannelQuantize<float, int8_t>: AffineQuantize with the
 * scale and zero point of the element's channel. */
int32_t hk_quantize_channel_f32_s8(const hk_quantize_channel_params_t *params,
                                   const float *scales, const int32_t *zero_points,
                                   const float *input, int8_t *output)
{
    return quantize_channels(params, scales, zero_points, input, output, true);
}

/* Follows LiteRT reference_ops::PerChannelQuantize<float, int16_t>. */
int32_t hk_quantize_channel_f32_s16(const hk_quantize_channel_params_t *params,
                                    const float *scales, const int32_t *zero_points,
                                    const float *input, int16_t *output)
{
    return quantize_channels(params, scales, zero_points, input, output, false);
}

/* Follows LiteRT reference_ops::Requantize<int8_t, int8_t>. */
int32_t hk_requantize_s8_s8(const hk_requantize_params_t *params, const int8_t *input,
                            int8_t *output)
{
    CHECK_ARGS(params, input, output);
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (int8_t)requantize_one(params, input[i], -128, 127);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Requantize<int8_t, int16_t>. */
int32_t hk_requantize_s8_s16(const hk_requantize_params_t *params, const int8_t *input,
                             int16_t *output)
{
    CHECK_ARGS(params, input, output);
    /* The output is wider than the input, so a shared buffer must be walked backwards. */
    for (int32_t i = params->size - 1; i >= 0; --i) {
        output[i] = (int16_t)requantize_one(params, input[i], -32768, 32767);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Requantize<int16_t, int8_t>. */
int32_t hk_requantize_s16_s8(const hk_requantize_params_t *params, const int16_t *input,
                             int8_t *output)
{
    CHECK_ARGS(params, input, output);
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (int8_t)requantize_one(params, input[i], -128, 127);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Requantize<int16_t, int16_t> (zero points 0). */
int32_t hk_requantize_s16_s16(const hk_requantize_params_t *params, const int16_t *input,
                              int16_t *output)
{
    CHECK_ARGS(params, input, output);
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (int16_t)requantize_one(params, input[i], -32768, 32767);
    }
    return HK_STATUS_OK;
}

/* The reference multiplies in double and rounds to float once; the float product of the float
 * scale and the (exactly representable) integer is that same correctly rounded value. */
static inline float dequantize_one(const hk_dequantize_params_t *p, int32_t q)
{
    return p->scale * (float)(q - p->zero_point);
}

/* Follows LiteRT reference_integer_ops::Dequantize<int8_t>. */
int32_t hk_dequantize_s8_f32(const hk_dequantize_params_t *params, const int8_t *input,
                             float *output)
{
    CHECK_ARGS(params, input, output);
    for (int32_t i = params->size - 1; i >= 0; --i) {
        output[i] = dequantize_one(params, input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_integer_ops::Dequantize<int16_t>. */
int32_t hk_dequantize_s16_f32(const hk_dequantize_params_t *params, const int16_t *input,
                              float *output)
{
    CHECK_ARGS(params, input, output);
    for (int32_t i = params->size - 1; i >= 0; --i) {
        output[i] = dequantize_one(params, input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::AffineQuantize<float, uint8_t>. */
int32_t hk_quantize_f32_u8(const hk_quantize_params_t *params, const float *input, uint8_t *output)
{
    CHECK_ARGS(params, input, output);
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (uint8_t)affine_quantize(input[i], params->scale, params->zero_point, 0, 255);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Requantize<int8_t, uint8_t> (QUANTIZE int8 -> uint8). */
int32_t hk_requantize_s8_u8(const hk_requantize_params_t *params, const int8_t *input,
                            uint8_t *output)
{
    CHECK_ARGS(params, input, output);
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (uint8_t)requantize_one(params, input[i], 0, 255);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Requantize<uint8_t, int8_t> (QUANTIZE uint8 -> int8). */
int32_t hk_requantize_u8_s8(const hk_requantize_params_t *params, const uint8_t *input,
                            int8_t *output)
{
    CHECK_ARGS(params, input, output);
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (int8_t)requantize_one(params, input[i], -128, 127);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Requantize<uint8_t, uint8_t>. */
int32_t hk_requantize_u8_u8(const hk_requantize_params_t *params, const uint8_t *input,
                            uint8_t *output)
{
    CHECK_ARGS(params, input, output);
    for (int32_t i = 0; i < params->size; ++i) {
        output[i] = (uint8_t)requantize_one(params, input[i], 0, 255);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Dequantize<uint8_t>. */
int32_t hk_dequantize_u8_f32(const hk_dequantize_params_t *params, const uint8_t *input,
                             float *output)
{
    CHECK_ARGS(params, input, output);
    for (int32_t i = params->size - 1; i >= 0; --i) {
        output[i] = dequantize_one(params, input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows Eigen's half -> float conversion used by LiteRT reference_ops::Dequantize(half). */
float hk_half_to_float(uint16_t bits)
{
    const uint32_t sign = (uint32_t)(bits & 0x8000u) << 16;
    const uint32_t exponent = (uint32_t)(bits >> 10) & 0x1Fu;
    uint32_t mantissa = (uint32_t)bits & 0x3FFu;
    uint32_t out;
    if (exponent == 0x1Fu) {
        out = sign | 0x7F800000u | (mantissa << 13);
    } else if (exponent != 0u) {
        out = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0u) {
        out = sign;
    } else {
        /* A subnormal half is normal in float: shift the leading one up to the implicit bit. */
        uint32_t biased = 113u;
        while ((mantissa & 0x400u) == 0u) {
            mantissa <<= 1;
            --biased;
        }
        out = sign | (biased << 23) | ((mantissa & 0x3FFu) << 13);
    }
    float value;
    memcpy(&value, &out, sizeof value);
    return value;
}

/* Follows LiteRT reference_ops::Dequantize(const Eigen::half *). */
int32_t hk_dequantize_f16_f32(int32_t size, const uint16_t *input, float *output)
{
    if (size < 0 || (size > 0 && (input == NULL || output == NULL))) {
        return HK_STATUS_BAD_PARAM;
    }
    for (int32_t i = size - 1; i >= 0; --i) {
        output[i] = hk_half_to_float(input[i]);
    }
    return HK_STATUS_OK;
}
