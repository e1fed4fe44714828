/*
 * helia-aot kernel library: unary elementwise math and LOGICAL_NOT (see hk_unary.h).
 */
#include "hk_unary.h"

#include <math.h>

/* Follows LiteRT reference_integer_ops::LookupTable (int8): the table holds the op per byte. */
int32_t hk_unary_lut_s8(const hk_unary_lut_s8_params_t *params, const int8_t *input,
                        int8_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = params->table[(uint8_t)input[i]];
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT LUTLookup (int16): anchor 256 + (x >> 7), plus the slope to the next anchor
 * times the low 7 bits, rounded; slope and result wrap to int16 as the reference's int16
 * arithmetic does. */
int32_t hk_unary_lut_s16(const hk_unary_lut_s16_params_t *params, const int16_t *input,
                         int16_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const int32_t value = input[i];
        const int32_t index = 256 + (value >> 7);
        const int32_t offset = value & 0x7f;
        const int32_t base = params->table[index];
        const int16_t slope = (int16_t)(params->table[index + 1] - base);
        const int32_t delta = ((int32_t)slope * offset + 64) >> 7;
        output[i] = (int16_t)(base + delta);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT AbsEvalQuantized<int16_t> (rescale only when the scales differ, saturate) and
 * AbsInt16EvalImpl for tensors without quantization (|x| wrapped to int16). */
int32_t hk_abs_s16(const hk_abs_s16_params_t *params, const int16_t *input, int16_t *output,
                   size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        if (!params->quantized) {
            const int32_t v = input[i];
            output[i] = (int16_t)(v < 0 ? -v : v);
            continue;
        }
        int32_t value = (int32_t)input[i] - params->input_offset;
        value = value < 0 ? -value : value;
        const int32_t scaled =
            params->needs_rescale ? hk_mbqm(value, params->multiplier, params->shift) : value;
        output[i] = (int16_t)hk_clamp_i32(scaled + params->output_offset, INT16_MIN, INT16_MAX);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT SqrtEvalQuantized<int16_t>: a negative real input is the reference's error
 * (HK_STATUS_BAD_PARAM here); else sqrtf of the float32 dequantized value over the output scale,
 * truncated toward zero, plus the output zero point, saturated. */
int32_t hk_sqrt_s16(const hk_sqrt_s16_params_t *params, const int16_t *input, int16_t *output,
                    size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const float dequantized =
            params->input_scale * (float)((int32_t)input[i] - params->input_zero_point);
        if (dequantized < 0.0f) {
            return HK_STATUS_BAD_PARAM;
        }
        float scaled = sqrtf(dequantized) / params->output_scale;
        scaled = scaled < 65536.0f ? scaled : 65536.0f; /* saturates either way; keeps the cast defined */
        const int32_t q = (int32_t)scaled + params->output_zero_point;
        output[i] = (int16_t)hk_clamp_i32(q, INT16_MIN, INT16_MAX);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT elementwise ABS (float32): std::abs. */
int32_t hk_abs_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = fabsf(input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Negate (float32): -x. */
int32_t hk_neg_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = -input[i];
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT elementwise SQRT (float32): std::sqrt. */
int32_t hk_sqrt_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = sqrtf(input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT elementwise RSQRT (float32): 1.f / std::sqrt(x). */
int32_t hk_rsqrt_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = 1.0f / sqrtf(input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT elementwise SQUARE (float32): x * x. */
int32_t hk_square_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const float v = input[i];
        output[i] = v * v;
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Exp (float32): std::exp. */
int32_t hk_exp_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = expf(input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT elementwise LOG (float32): std::log. */
int32_t hk_log_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = logf(input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Floor (float32): std::floor. */
int32_t hk_floor_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = floorf(input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Ceil (float32): std::ceil. */
int32_t hk_ceil_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = ceilf(input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Round (RoundToNearest): floor, then up when the fraction is
 * above one half or exactly one half with an odd floor (ties to even). The parity test uses
 * fmodf instead of the reference's int cast, which agrees wherever that cast is defined. */
int32_t hk_round_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const float v = input[i];
        const float floor_val = floorf(v);
        const float diff = v - floor_val;
        const bool even = fmodf(floor_val, 2.0f) == 0.0f;
        output[i] = (diff < 0.5f || (diff == 0.5f && even)) ? floor_val : floor_val + 1.0f;
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT sign (float32): (0 < x) - (x < 0), so NaN and zeros give 0. */
int32_t hk_sign_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const float v = input[i];
        output[i] = (float)((0.0f < v) - (v < 0.0f));
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT elementwise SIN (float32): std::sin. */
int32_t hk_sin_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = sinf(input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT elementwise COS (float32): std::cos. */
int32_t hk_cos_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = cosf(input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT elementwise ABS (int32): std::abs, computed in unsigned arithmetic so that
 * INT32_MIN maps to itself (two's complement wrap) instead of overflowing. */
int32_t hk_abs_s32(const int32_t *input, int32_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const int32_t v = input[i];
        const uint32_t magnitude = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
        output[i] = (int32_t)magnitude;
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Negate (int32): -x, wrapping INT32_MIN onto itself. */
int32_t hk_neg_s32(const int32_t *input, int32_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = (int32_t)(0u - (uint32_t)input[i]);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT sign (int32): (0 < x) - (x < 0). */
int32_t hk_sign_s32(const int32_t *input, int32_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const int32_t v = input[i];
        output[i] = (int32_t)(0 < v) - (int32_t)(v < 0);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT elementwise LOGICAL_NOT: !x. */
int32_t hk_logical_not_b(const bool *input, bool *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = !input[i];
    }
    return HK_STATUS_OK;
}
