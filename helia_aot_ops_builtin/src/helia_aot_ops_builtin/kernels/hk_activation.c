/*
 * helia-aot kernel library: elementwise activations (see hk_activation.h).
 */
#include "hk_activation.h"

#include <math.h>

/* sigmoid(i / 24) in unsigned Q0.16 for i = 0..255 (the last entry saturates), the table the
 * LiteRT int16 LOGISTIC and TANH kernels interpolate; tanh(x) is read as 2 * sigmoid(2x) - 1. */
static const uint16_t sigmoid_q16_table[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149,
    40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369,
    47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169,
    53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370,
    60565, 60753, 60935, 61110, 61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302,
    62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186, 63279, 63368, 63454, 63536,
    63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786,
    64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079,
    65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474,
    65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498,
    65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522,
    65523, 65523, 65524, 65524, 65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528,
    65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531,
    65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65534, 65535
};

/* Follows LiteRT reference_ops::ReluX (int8): requantize, then clamp to the activation range. */
int32_t hk_relu_s8(const hk_relu_params_t *params, const int8_t *input, int8_t *output,
                   size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const int32_t v = params->output_zero_point +
                          hk_mbqm((int32_t)input[i] - params->input_zero_point,
                                  params->output_multiplier, params->output_shift);
        output[i] = (int8_t)hk_clamp_i32(v, params->activation_min, params->activation_max);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::ReluX (int16). */
int32_t hk_relu_s16(const hk_relu_params_t *params, const int16_t *input, int16_t *output,
                    size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const int32_t v = params->output_zero_point +
                          hk_mbqm((int32_t)input[i] - params->input_zero_point,
                                  params->output_multiplier, params->output_shift);
        output[i] = (int16_t)hk_clamp_i32(v, params->activation_min, params->activation_max);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Relu / Relu6 / Relu1 (float): NaN passes through unchanged. */
int32_t hk_relu_f32(const hk_relu_f32_params_t *params, const float *input, float *output,
                    size_t size)
{
    const float lo = params->activation_min;
    const float hi = params->activation_max;
    for (size_t i = 0; i < size; ++i) {
        const float v = input[i];
        output[i] = v > hi ? hi : (v < lo ? lo : v);
    }
    return HK_STATUS_OK;
}

/* The alpha branch negates after scaling by |multiplier| so rounding is symmetric in alpha. */
static int32_t leaky_relu_value(const hk_leaky_relu_params_t *params, int32_t q)
{
    const int32_t x = q - params->input_zero_point;
    if (x >= 0) {
        return params->output_zero_point +
               hk_mbqm(x, params->identity_multiplier, params->identity_shift);
    }
    if (params->alpha_multiplier < 0) {
        return params->output_zero_point -
               hk_mbqm(x, -params->alpha_multiplier, params->alpha_shift);
    }
    return params->output_zero_point + hk_mbqm(x, params->alpha_multiplier, params->alpha_shift);
}

/* Follows LiteRT reference_ops::QuantizeLeakyRelu (int8). */
int32_t hk_leaky_relu_s8(const hk_leaky_relu_params_t *params, const int8_t *input,
                         int8_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = hk_sat_s8(leaky_relu_value(params, input[i]));
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::QuantizeLeakyRelu (int16). */
int32_t hk_leaky_relu_s16(const hk_leaky_relu_params_t *params, const int16_t *input,
                          int16_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = hk_sat_s16(leaky_relu_value(params, input[i]));
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::LeakyRelu (float): alpha may exceed one or be negative. */
int32_t hk_leaky_relu_f32(const hk_leaky_relu_f32_params_t *params, const float *input,
                          float *output, size_t size)
{
    const float alpha = params->alpha;
    for (size_t i = 0; i < size; ++i) {
        const float v = input[i];
        output[i] = v > 0.0f ? v : v * alpha;
    }
    return HK_STATUS_OK;
}

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

static bool prelu_shape_ok(const hk_prelu_shape_t *shape, size_t *total)
{
    if (shape->rank < 1 || shape->rank > HK_PRELU_MAX_DIMS) {
        return false;
    }
    size_t n = 1;
    for (int32_t d = 0; d < shape->rank; ++d) {
        if (shape->dims[d] < 0 || shape->alpha_strides[d] < 0) {
            return false;
        }
        n *= (size_t)shape->dims[d];
    }
    *total = n;
    return true;
}

/* Advances the outer (all but innermost) index by one row; returns the new alpha row offset. */
static size_t prelu_next_row(const hk_prelu_shape_t *shape, int32_t *index, size_t alpha_offset)
{
    for (int32_t d = shape->rank - 2; d >= 0; --d) {
        const size_t stride = (size_t)shape->alpha_strides[d];
        ++index[d];
        alpha_offset += stride;
        if (index[d] < shape->dims[d]) {
            break;
        }
        alpha_offset -= stride * (size_t)shape->dims[d];
        index[d] = 0;
    }
    return alpha_offset;
}

/* Follows LiteRT reference_ops::BroadcastPrelu4DSlow / Prelu (int8 input and alpha). */
int32_t hk_prelu_s8(const hk_prelu_params_t *params, const int8_t *input, const int8_t *alpha,
                    int8_t *output)
{
    const hk_prelu_shape_t *shape = &params->shape;
    size_t total = 0;
    if (!prelu_shape_ok(shape, &total)) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t inner = (size_t)shape->dims[shape->rank - 1];
    const size_t inner_stride = (size_t)shape->alpha_strides[shape->rank - 1];
    int32_t index[HK_PRELU_MAX_DIMS] = {0};
    size_t alpha_row = 0;
    for (size_t row = 0; row < total; row += inner) {
        for (size_t j = 0; j < inner; ++j) {
            const int32_t x = (int32_t)input[row + j] - params->input_zero_point;
            int32_t v;
            if (x >= 0) {
                v = hk_mbqm(x, params->identity_multiplier, params->identity_shift);
            } else {
                const int32_t a = (int32_t)alpha[alpha_row + j * inner_stride] -
                                  params->alpha_zero_point;
                v = hk_mbqm(x * a, params->alpha_multiplier, params->alpha_shift);
            }
            output[row + j] = hk_sat_s8(v + params->output_zero_point);
        }
        alpha_row = prelu_next_row(shape, index, alpha_row);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::BroadcastBinaryFunction4DSlow with ApplyPrelu (float). */
int32_t hk_prelu_f32(const hk_prelu_shape_t *shape, const float *input, const float *alpha,
                     float *output)
{
    size_t total = 0;
    if (!prelu_shape_ok(shape, &total)) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t inner = (size_t)shape->dims[shape->rank - 1];
    const size_t inner_stride = (size_t)shape->alpha_strides[shape->rank - 1];
    int32_t index[HK_PRELU_MAX_DIMS] = {0};
    size_t alpha_row = 0;
    for (size_t row = 0; row < total; row += inner) {
        for (size_t j = 0; j < inner; ++j) {
            const float x = input[row + j];
            output[row + j] = x >= 0.0f ? x : x * alpha[alpha_row + j * inner_stride];
        }
        alpha_row = prelu_next_row(shape, index, alpha_row);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_integer_ops::LookupTable (int8), the path kReference LOGISTIC and
 * TANH take for int8; the table is indexed by the input byte reinterpreted as unsigned. */
int32_t hk_lut_s8(const int8_t *table, const int8_t *input, int8_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = table[(uint8_t)input[i]];
    }
    return HK_STATUS_OK;
}

/* Rescales an int16 input onto the table's x/(3*4096) grid (two's-complement wrap, as on the
 * reference's targets, for out-of-range scales). */
static int32_t sigmoid_input(int16_t x, int32_t multiplier, int32_t shift, int32_t round)
{
    const int64_t product = (int64_t)x * (int64_t)multiplier + (int64_t)round;
    return (int32_t)(uint32_t)(uint64_t)product >> shift;
}

static void sigmoid_rescale(const hk_sigmoid_s16_params_t *params, int32_t *multiplier,
                            int32_t *shift, int32_t *round)
{
    *multiplier = params->input_multiplier;
    *shift = params->input_left_shift;
    if (*multiplier == 0) { /* power-of-two input scale */
        *multiplier = (int32_t)(3u << *shift);
        *shift = 0;
    }
    *round = *shift > 0 ? (1 << (*shift - 1)) : 0;
}

/* Follows LiteRT reference_integer_ops::Logistic (int16, interpolated sigmoid table). */
int32_t hk_logistic_s16(const hk_sigmoid_s16_params_t *params, const int16_t *input,
                        int16_t *output, size_t size)
{
    int32_t multiplier, shift, round;
    if (params->input_left_shift < 0 || params->input_left_shift > 31) {
        return HK_STATUS_BAD_PARAM;
    }
    sigmoid_rescale(params, &multiplier, &shift, &round);
    for (size_t i = 0; i < size; ++i) {
        const int32_t v = sigmoid_input(input[i], multiplier, shift, round);
        const uint32_t magnitude = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
        const uint32_t index = magnitude >> 9;
        uint32_t result;
        if (index >= 255u) {
            result = 0x7FFFu << 10;
        } else {
            const uint32_t lo = sigmoid_q16_table[index];
            const uint32_t hi = sigmoid_q16_table[index + 1u];
            result = (lo << 9) + (magnitude & 0x1FFu) * (hi - lo);
        }
        result = v >= 0 ? result + (1u << 9) : (1u << 25) - result + (1u << 9) - 1u;
        output[i] = (int16_t)(result >> 10);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_integer_ops::Tanh (int16, via the sigmoid table). */
int32_t hk_tanh_s16(const hk_sigmoid_s16_params_t *params, const int16_t *input,
                    int16_t *output, size_t size)
{
    int32_t multiplier, shift, round;
    if (params->input_left_shift < 0 || params->input_left_shift > 31) {
        return HK_STATUS_BAD_PARAM;
    }
    sigmoid_rescale(params, &multiplier, &shift, &round);
    for (size_t i = 0; i < size; ++i) {
        const int32_t v = sigmoid_input(input[i], multiplier, shift, round);
        const uint32_t magnitude = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
        const uint32_t index = magnitude >> 8;
        int32_t result;
        if (index >= 255u) {
            result = (int32_t)(0xFFFFu << 8);
        } else {
            const uint32_t lo = sigmoid_q16_table[index];
            const uint32_t hi = sigmoid_q16_table[index + 1u];
            result = (int32_t)((lo << 8) + (magnitude & 0xFFu) * (hi - lo));
        }
        result = v >= 0 ? result - (1 << 23) + (1 << 7) : -result + (1 << 23) + (1 << 7) - 1;
        output[i] = (int16_t)(result >> 8);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Logistic<float>: saturate above 16.619, exp(x) below -9. */
int32_t hk_logistic_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const float v = input[i];
        float r;
        if (v > 16.619047164916992188f) {
            r = 1.0f;
        } else if (v < -9.0f) {
            r = expf(v);
        } else {
            r = 1.0f / (1.0f + expf(-v));
        }
        output[i] = r;
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Tanh<float>. */
int32_t hk_tanh_f32(const float *input, float *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = tanhf(input[i]);
    }
    return HK_STATUS_OK;
}
