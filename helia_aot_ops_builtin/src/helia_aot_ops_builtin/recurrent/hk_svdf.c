/*
 * helia-aot kernel library: SVDF (see hk_svdf.h).
 */
#include "hk_svdf.h"

static bool svdf_params_ok(const hk_svdf_params_t *p)
{
    return p != NULL && p->batches > 0 && p->input_size > 0 && p->rank > 0 && p->filters > 0 &&
           p->filters % p->rank == 0 && p->memory > 0;
}

/* int32 addition that wraps as the reference's int32 accumulators do in practice (and is defined C). */
HK_INLINE int32_t svdf_wrap_add(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

/*
 * One integer SVDF for a state type: follows LiteRT reference_ops::EvalIntegerSVDF (state shifted
 * by one element first, the feature product requantized with effective scale 1 and clamped to the
 * state type, the time products summed per unit from the bias, requantized with effective scale 2,
 * offset by the output zero point and clamped to int8).
 */
#define HK_SVDF_INTEGER_BODY(STATE_T, STATE_MIN, STATE_MAX)                                        \
    const hk_svdf_params_t *p = params;                                                            \
    const int32_t units = p->filters / p->rank;                                                    \
    const size_t memory = (size_t)p->memory;                                                       \
    const size_t per_batch = (size_t)p->filters * memory;                                          \
    memmove(state, state + 1, (per_batch * (size_t)p->batches - 1u) * sizeof(STATE_T));            \
    for (int32_t b = 0; b < p->batches; ++b) {                                                     \
        const int8_t *x = input + (size_t)b * (size_t)p->input_size;                               \
        STATE_T *s = state + (size_t)b * per_batch;                                                \
        for (int32_t f = 0; f < p->filters; ++f) {                                                 \
            const int8_t *w = weights_feature + (size_t)f * (size_t)p->input_size;                 \
            int32_t acc = 0;                                                                       \
            for (int32_t i = 0; i < p->input_size; ++i) {                                          \
                acc = svdf_wrap_add(acc, (int32_t)w[i] * ((int32_t)x[i] + p->input_offset));       \
            }                                                                                      \
            acc = hk_mbqm(acc, p->feature_multiplier, p->feature_shift);                           \
            s[(size_t)f * memory + memory - 1u] = (STATE_T)hk_clamp_i32(acc, STATE_MIN, STATE_MAX); \
        }                                                                                          \
        for (int32_t u = 0; u < units; ++u) {                                                      \
            int32_t acc = bias != NULL ? bias[u] : 0;                                              \
            for (int32_t k = 0; k < p->rank; ++k) {                                                \
                const size_t f = (size_t)u * (size_t)p->rank + (size_t)k;                          \
                const STATE_T *wt = weights_time + f * memory;                                     \
                const STATE_T *sf = s + f * memory;                                                \
                int32_t dot = 0;                                                                   \
                for (size_t j = 0; j < memory; ++j) {                                              \
                    dot = svdf_wrap_add(dot, (int32_t)wt[j] * (int32_t)sf[j]);                     \
                }                                                                                  \
                acc = svdf_wrap_add(acc, dot);                                                     \
            }                                                                                      \
            const int32_t value = hk_mbqm(acc, p->time_multiplier, p->time_shift) + p->output_offset; \
            output[(size_t)b * (size_t)units + (size_t)u] = (int8_t)hk_clamp_i32(value, -128, 127); \
        }                                                                                          \
    }                                                                                              \
    return HK_STATUS_OK

/* Follows LiteRT reference_ops::EvalIntegerSVDF (int16 state and time weights). */
int32_t hk_svdf_s8_s16(const hk_svdf_params_t *params, const int8_t *input,
                       const int8_t *weights_feature, const int16_t *weights_time,
                       const int32_t *bias, int16_t *state, int8_t *output)
{
    if (!svdf_params_ok(params) || input == NULL || weights_feature == NULL ||
        weights_time == NULL || state == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    HK_SVDF_INTEGER_BODY(int16_t, INT16_MIN, INT16_MAX);
}

/* Follows TFLM's EvalIntegerSvdfReference<int8_t>: LiteRT's integer SVDF with int8 state. */
int32_t hk_svdf_s8_s8(const hk_svdf_params_t *params, const int8_t *input,
                      const int8_t *weights_feature, const int8_t *weights_time,
                      const int32_t *bias, int8_t *state, int8_t *output)
{
    if (!svdf_params_ok(params) || input == NULL || weights_feature == NULL ||
        weights_time == NULL || state == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    HK_SVDF_INTEGER_BODY(int8_t, INT8_MIN, INT8_MAX);
}

/* Follows LiteRT reference_ops::EvalFloatSVDF (sums in the reference's order, then the activation). */
int32_t hk_svdf_f32(const hk_svdf_params_t *params, const float *input,
                    const float *weights_feature, const float *weights_time, const float *bias,
                    float *state, float *output)
{
    if (!svdf_params_ok(params) || !hk_act_f32_known(params->activation) || input == NULL ||
        weights_feature == NULL || weights_time == NULL || state == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_svdf_params_t *p = params;
    const int32_t units = p->filters / p->rank;
    const size_t memory = (size_t)p->memory;
    const size_t per_batch = (size_t)p->filters * memory;
    memmove(state, state + 1, (per_batch * (size_t)p->batches - 1u) * sizeof(float));
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *x = input + (size_t)b * (size_t)p->input_size;
        float *s = state + (size_t)b * per_batch;
        for (int32_t f = 0; f < p->filters; ++f) {
            const float *w = weights_feature + (size_t)f * (size_t)p->input_size;
            float dot = 0.0f;
            for (int32_t i = 0; i < p->input_size; ++i) {
                dot += w[i] * x[i];
            }
            s[(size_t)f * memory + memory - 1u] = dot;
        }
        for (int32_t u = 0; u < units; ++u) {
            float acc = bias != NULL ? bias[u] : 0.0f;
            for (int32_t k = 0; k < p->rank; ++k) {
                const size_t f = (size_t)u * (size_t)p->rank + (size_t)k;
                const float *wt = weights_time + f * memory;
                const float *sf = s + f * memory;
                float dot = 0.0f;
                for (size_t j = 0; j < memory; ++j) {
                    dot += wt[j] * sf[j];
                }
                acc += dot;
            }
            output[(size_t)b * (size_t)units + (size_t)u] = hk_act_f32(acc, p->activation);
        }
    }
    return HK_STATUS_OK;
}
