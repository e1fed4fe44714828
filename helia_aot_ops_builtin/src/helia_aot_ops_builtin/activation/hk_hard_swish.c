/*
 * helia-aot kernel library: HARD_SWISH (see hk_hard_swish.h).
 */
#include "hk_hard_swish.h"

/* gemmlowp SaturatingRoundingDoublingHighMul on int16. */
static int16_t sat_rdhm16(int16_t a, int16_t b)
{
    if (a == b && a == INT16_MIN) {
        return INT16_MAX;
    }
    const int32_t ab = (int32_t)a * (int32_t)b;
    const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    return (int16_t)((ab + nudge) / (1 << 15));
}

/* The truncating doubling high multiply (SQDMULH) LiteRT hard-swish uses to cancel bias. */
static int16_t sat_dhm16(int16_t a, int16_t b)
{
    if (a == b && a == INT16_MIN) {
        return INT16_MAX;
    }
    return (int16_t)(((int32_t)a * (int32_t)b) / (1 << 15));
}

/* gemmlowp RoundingDivideByPOT instantiated on int16, including its 16-bit mask for large
 * exponents (the reference never guards them, so neither do we). */
static int16_t rdbpot16(int16_t x, int32_t exponent)
{
    const int16_t mask = (int16_t)(((int64_t)1 << (exponent > 62 ? 62 : exponent)) - 1);
    const int16_t remainder = (int16_t)(x & mask);
    const int16_t threshold = (int16_t)((mask >> 1) + (x < 0 ? 1 : 0));
    const int32_t shift = exponent > 31 ? 31 : exponent;
    return (int16_t)(((int32_t)x >> shift) + (remainder > threshold ? 1 : 0));
}

static int16_t saturating_left_shift16(int16_t value, int32_t amount)
{
    const int64_t r = (int64_t)value * ((int64_t)1 << (amount > 40 ? 40 : amount));
    return (int16_t)(r > INT16_MAX ? INT16_MAX : (r < INT16_MIN ? INT16_MIN : r));
}

/* Follows LiteRT reference_ops::HardSwish (int8, HardSwishParams fixed-point path). */
int32_t hk_hard_swish_s8(const hk_hard_swish_params_t *params, const int8_t *input,
                         int8_t *output, size_t size)
{
    const int32_t reluish_exponent = params->reluish_exponent;
    for (size_t i = 0; i < size; ++i) {
        const int16_t centered = (int16_t)((int32_t)input[i] - params->input_zero_point);
        const int16_t hires = (int16_t)(centered * (1 << 7));
        const int16_t preshift_output_scale = sat_rdhm16(hires, params->output_multiplier);
        int16_t reluish = hires;
        if (reluish_exponent > 0) {
            reluish = saturating_left_shift16(reluish, reluish_exponent - 1);
        }
        reluish = sat_rdhm16(reluish, params->reluish_multiplier);
        if (reluish_exponent > 0) {
            reluish = saturating_left_shift16(reluish, 1);
        }
        if (reluish_exponent < 0) {
            reluish = rdbpot16(reluish, -reluish_exponent);
        }
        reluish = (int16_t)(((int32_t)reluish + (1 << 15)) >> 1);
        const int16_t preshift_output = sat_dhm16(reluish, preshift_output_scale);
        const int32_t v = (int32_t)rdbpot16(preshift_output, -params->output_exponent) +
                          params->output_zero_point;
        output[i] = hk_sat_s8(v);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::HardSwish (float): x * min(6, max(0, x + 3)) / 6. */
int32_t hk_hard_swish_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const float v = input[i];
        const float shifted = v + 3.0f;
        /* std::max/std::min argument order: NaN + 3 clamps to 0, as in the reference. */
        const float lower = 0.0f < shifted ? shifted : 0.0f;
        const float relu6 = lower < 6.0f ? lower : 6.0f;
        output[i] = v * relu6 / 6.0f;
    }
    return HK_STATUS_OK;
}
