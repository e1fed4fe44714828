/*
 * helia-aot kernel library: float16 GRU (see hk_gru_f16.h).
 */
#include "hk_gru_f16.h"

/* rows x cols float16 matrix times a float16 vector, plus bias, summed in float. */
static void gru_f16_affine_x(const hk_f16_t *matrix, const hk_f16_t *vector, const hk_f16_t *bias,
                             size_t rows, size_t cols, float *out)
{
    for (size_t r = 0; r < rows; ++r) {
        const hk_f16_t *m = matrix + r * cols;
        float dot = 0.0f;
        for (size_t c = 0; c < cols; ++c) {
            dot += (float)m[c] * (float)vector[c];
        }
        out[r] = bias != NULL ? dot + (float)bias[r] : dot;
    }
}

/* The same with the float state vector h. */
static void gru_f16_affine_h(const hk_f16_t *matrix, const float *vector, const hk_f16_t *bias,
                             size_t rows, size_t cols, float *out)
{
    for (size_t r = 0; r < rows; ++r) {
        const hk_f16_t *m = matrix + r * cols;
        float dot = 0.0f;
        for (size_t c = 0; c < cols; ++c) {
            dot += (float)m[c] * vector[c];
        }
        out[r] = bias != NULL ? dot + (float)bias[r] : dot;
    }
}

/* Follows the Keras GRUCell (reset_after=True) as LiteRT runs its exported float graph: two
 * fully connected products, LOGISTIC on the summed update and reset gates, TANH on the
 * candidate, h = z * h + (1 - z) * n; evaluated in float, rounded to float16 on the way out. */
int32_t hk_gru_f16(const hk_gru_f16_params_t *params, const uint16_t *input, const uint16_t *kernel,
                   const uint16_t *recurrent_kernel, const uint16_t *input_bias,
                   const uint16_t *recurrent_bias, const uint16_t *initial, uint16_t *state,
                   uint16_t *output, float *scratch)
{
    if (params == NULL || params->steps < 1 || params->input_size < 1 || params->units < 1 ||
        input == NULL || kernel == NULL || recurrent_kernel == NULL || output == NULL ||
        scratch == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t units = (size_t)params->units;
    const size_t in = (size_t)params->input_size;
    const hk_f16_t *x = (const hk_f16_t *)(const void *)input;
    const hk_f16_t *k = (const hk_f16_t *)(const void *)kernel;
    const hk_f16_t *rk = (const hk_f16_t *)(const void *)recurrent_kernel;
    const hk_f16_t *bi = (const hk_f16_t *)(const void *)input_bias;
    const hk_f16_t *br = (const hk_f16_t *)(const void *)recurrent_bias;
    const hk_f16_t *h0 = (const hk_f16_t *)(const void *)initial;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    float *gx = scratch;
    float *gh = scratch + 3u * units;
    float *h = scratch + 6u * units;
    for (size_t u = 0; u < units; ++u) {
        h[u] = h0 != NULL ? (float)h0[u] : 0.0f;
    }
    for (size_t t = 0; t < (size_t)params->steps; ++t) {
        gru_f16_affine_x(k, x + t * in, bi, 3u * units, in, gx);
        gru_f16_affine_h(rk, h, br, 3u * units, units, gh);
        for (size_t u = 0; u < units; ++u) {
            const float z = hk_act_f32(gx[u] + gh[u], HK_ACT_F32_SIGMOID);
            const float r = hk_act_f32(gx[units + u] + gh[units + u], HK_ACT_F32_SIGMOID);
            const float n = tanhf(gx[2u * units + u] + r * gh[2u * units + u]);
            h[u] = z * h[u] + (1.0f - z) * n;
        }
        if (params->sequence_output) {
            for (size_t u = 0; u < units; ++u) {
                out[t * units + u] = hk_f16_round(h[u]);
            }
        }
    }
    for (size_t u = 0; u < units; ++u) {
        if (!params->sequence_output) {
            out[u] = hk_f16_round(h[u]);
        }
        if (state != NULL) {
            ((hk_f16_t *)(void *)state)[u] = hk_f16_round(h[u]);
        }
    }
    return HK_STATUS_OK;
}
