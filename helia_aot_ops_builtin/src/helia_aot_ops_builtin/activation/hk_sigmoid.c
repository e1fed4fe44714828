/*
 * helia-aot kernel library: LOGISTIC and TANH (see hk_sigmoid.h).
 */
#include "hk_sigmoid.h"

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
