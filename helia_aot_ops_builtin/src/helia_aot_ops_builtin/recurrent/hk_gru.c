/*
 * helia-aot kernel library: GRU (see hk_gru.h).
 */
#include "hk_gru.h"

/* rows x cols matrix times vector plus bias, as LiteRT's float FullyConnected: dot, then + bias. */
static void gru_affine(const float *matrix, const float *vector, const float *bias, size_t rows,
                       size_t cols, float *out)
{
    for (size_t r = 0; r < rows; ++r) {
        const float *m = matrix + r * cols;
        float dot = 0.0f;
        for (size_t c = 0; c < cols; ++c) {
            dot += m[c] * vector[c];
        }
        out[r] = bias != NULL ? dot + bias[r] : dot;
    }
}

/* Follows the Keras GRUCell (reset_after=True) as LiteRT runs its exported graph: two fully
 * connected products, LOGISTIC on the summed update and reset gates, TANH on the candidate, and
 * h = z * h + (1 - z) * n evaluated as those ADD/MUL/SUB nodes do. */
int32_t hk_gru_f32(const hk_gru_params_t *params, const float *input, const float *kernel,
                   const float *recurrent_kernel, const float *input_bias,
                   const float *recurrent_bias, const float *initial, float *state,
                   float *output, float *scratch)
{
    if (params == NULL || params->steps < 1 || params->input_size < 1 || params->units < 1 ||
        input == NULL || kernel == NULL || recurrent_kernel == NULL || output == NULL ||
        scratch == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t units = (size_t)params->units;
    const size_t in = (size_t)params->input_size;
    float *gx = scratch;
    float *gh = scratch + 3u * units;
    float *h = scratch + 6u * units;
    for (size_t u = 0; u < units; ++u) {
        h[u] = initial != NULL ? initial[u] : 0.0f;
    }
    for (size_t t = 0; t < (size_t)params->steps; ++t) {
        gru_affine(kernel, input + t * in, input_bias, 3u * units, in, gx);
        gru_affine(recurrent_kernel, h, recurrent_bias, 3u * units, units, gh);
        for (size_t u = 0; u < units; ++u) {
            const float z = hk_act_f32(gx[u] + gh[u], HK_ACT_F32_SIGMOID);
            const float r = hk_act_f32(gx[units + u] + gh[units + u], HK_ACT_F32_SIGMOID);
            const float n = tanhf(gx[2u * units + u] + r * gh[2u * units + u]);
            h[u] = z * h[u] + (1.0f - z) * n;
        }
        if (params->sequence_output) {
            memcpy(output + t * units, h, units * sizeof(float));
        }
    }
    if (!params->sequence_output) {
        memcpy(output, h, units * sizeof(float));
    }
    if (state != NULL) {
        memcpy(state, h, units * sizeof(float));
    }
    return HK_STATUS_OK;
}
