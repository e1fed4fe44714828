/*
 * helia-aot kernel library: FULLY_CONNECTED (see hk_fully_connected.h).
 */
#include "hk_fully_connected.h"

static bool fc_params_ok(const hk_fully_connected_params_t *p)
{
    return p != NULL && p->batches >= 0 && p->input_features >= 0 && p->output_features >= 0;
}

static bool fc_quant_params_ok(const hk_fully_connected_params_t *p)
{
    return fc_params_ok(p) && p->output_scale != NULL && p->act_min <= p->act_max;
}

/* static_cast<int32_t>(std::round(x)) for a finite double, without libm: halves round away
 * from zero. x - trunc(x) is exact in binary floating point, so the comparison is too. Values
 * beyond int32 saturate (the reference's conversion is undefined there). */
static int32_t fc_round_to_i32(double x)
{
    if (x >= 2147483647.0) {
        return INT32_MAX;
    }
    if (x <= -2147483648.0) {
        return INT32_MIN;
    }
    int32_t whole = (int32_t)x;
    const double fraction = x - (double)whole;
    if (fraction >= 0.5) {
        ++whole;
    } else if (fraction <= -0.5) {
        --whole;
    }
    return whole;
}

/* One body for the integer kernels, which differ only in element and accumulator types. */
#define FC_QUANT_KERNEL(NAME, IN_T, BIAS_T, ACC_T, LO, HI)                                     \
    int32_t NAME(const hk_fully_connected_params_t *params, const IN_T *input,                 \
                 const int8_t *filter, const BIAS_T *bias, IN_T *output)                       \
    {                                                                                          \
        if (!fc_quant_params_ok(params) || input == NULL || filter == NULL ||                  \
            output == NULL) {                                                                  \
            return HK_STATUS_BAD_PARAM;                                                        \
        }                                                                                      \
        const hk_fully_connected_params_t *p = params;                                         \
        const size_t depth = (size_t)p->input_features;                                        \
        const int32_t act_min = hk_max_i32(p->act_min, LO);                                    \
        const int32_t act_max = hk_min_i32(p->act_max, HI);                                    \
        for (int32_t b = 0; b < p->batches; ++b) {                                             \
            const IN_T *x = input + (size_t)b * depth;                                         \
            IN_T *out = output + (size_t)b * (size_t)p->output_features;                       \
            for (int32_t o = 0; o < p->output_features; ++o) {                                 \
                const int8_t *w = filter + (size_t)o * depth;                                  \
                ACC_T acc = 0;                                                                 \
                for (size_t d = 0; d < depth; ++d) {                                           \
                    acc += (ACC_T)(((int32_t)w[d] + p->filter_offset) *                        \
                                   ((int32_t)x[d] + p->input_offset));                         \
                }                                                                              \
                if (bias != NULL) {                                                            \
                    acc += bias[o];                                                            \
                }                                                                              \
                const double scale = p->output_scale[p->per_channel ? o : 0];                  \
                int32_t value = fc_round_to_i32((double)acc * scale);                          \
                value = (int32_t)((uint32_t)value + (uint32_t)p->output_offset);               \
                out[o] = (IN_T)hk_clamp_i32(value, act_min, act_max);                          \
            }                                                                                  \
        }                                                                                      \
        return HK_STATUS_OK;                                                                   \
    }

/* Follows LiteRT reference_integer_ops::FullyConnected / FullyConnectedPerChannel with float
 * scales (int8, double-precision requantization). */
FC_QUANT_KERNEL(hk_fully_connected_s8, int8_t, int32_t, int32_t, -128, 127)

/* Follows LiteRT reference_integer_ops::FullyConnected / FullyConnectedPerChannel with float
 * scales (int16 x int8, int64 bias). */
FC_QUANT_KERNEL(hk_fully_connected_s16, int16_t, int64_t, int64_t, -32768, 32767)

/* Follows LiteRT reference_integer_ops::FullyConnected / FullyConnectedPerChannel with float
 * scales (int16 x int8, int32 bias). */
FC_QUANT_KERNEL(hk_fully_connected_s16_b32, int16_t, int32_t, int32_t, -32768, 32767)

/* Follows LiteRT reference_ops::FullyConnected (float): sums in input order, then the bias. */
int32_t hk_fully_connected_f32(const hk_fully_connected_params_t *params, const float *input,
                               const float *filter, const float *bias, float *output)
{
    if (!fc_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_fully_connected_params_t *p = params;
    const size_t depth = (size_t)p->input_features;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *x = input + (size_t)b * depth;
        float *out = output + (size_t)b * (size_t)p->output_features;
        for (int32_t o = 0; o < p->output_features; ++o) {
            const float *w = filter + (size_t)o * depth;
            float total = 0.0f;
            for (size_t d = 0; d < depth; ++d) {
                total += x[d] * w[d];
            }
            const float bias_value = bias != NULL ? bias[o] : 0.0f;
            out[o] = hk_clamp_f32(total + bias_value, p->act_min_f32, p->act_max_f32);
        }
    }
    return HK_STATUS_OK;
}
