/*
 * helia-aot kernel library: float16 LSTM (see hk_lstm_f16.h).
 */
#include "hk_lstm_f16.h"

/* LiteRT's ApplyActivationToVector codes (RELU 1, RELU_N1_TO_1 2, RELU6 3, TANH 4), and 6 for
 * the logistic gates. */
static float lstm_f16_activate(float x, int32_t activation)
{
    switch (activation) {
    case 1:
        return x < 0.0f ? 0.0f : x;
    case 2:
        return hk_clamp_f32(x, -1.0f, 1.0f);
    case 3:
        return hk_clamp_f32(x, 0.0f, 6.0f);
    case 4:
        return tanhf(x);
    default:
        return 1.0f / (1.0f + expf(-x));
    }
}

/* One gate of one batch row into gate[n_cell]: bias + W x + R h, then the activation
 * (LiteRT CalculateLstmGateFloat without peephole or layer norm). */
static void lstm_f16_gate(const hk_lstm_f16_params_t *p, const hk_lstm_f16_weights_t *w, int32_t g,
                          const hk_f16_t *x, const float *h, int32_t activation, float *gate)
{
    const hk_f16_t *wx = (const hk_f16_t *)(const void *)w->input_to_gate[g];
    const hk_f16_t *wh = (const hk_f16_t *)(const void *)w->recurrent_to_gate[g];
    const hk_f16_t *b = (const hk_f16_t *)(const void *)w->bias[g];
    for (int32_t i = 0; i < p->n_cell; ++i) {
        float dx = 0.0f;
        const hk_f16_t *rx = wx + (size_t)i * (size_t)p->n_input;
        for (int32_t k = 0; k < p->n_input; ++k) {
            dx += (float)rx[k] * (float)x[k];
        }
        float dh = 0.0f;
        const hk_f16_t *rh = wh + (size_t)i * (size_t)p->n_cell;
        for (int32_t k = 0; k < p->n_cell; ++k) {
            dh += (float)rh[k] * h[k];
        }
        gate[i] = lstm_f16_activate(dh + (dx + (float)b[i]), activation);
    }
}

/* Follows LiteRT's float UNIDIRECTIONAL_SEQUENCE_LSTM (LstmStepFloat per batch row and step):
 * c = f * c + i * g (clipped), h = o * act(c). */
int32_t hk_lstm_f16(const hk_lstm_f16_params_t *params, const hk_lstm_f16_weights_t *weights,
                    const uint16_t *input, uint16_t *output_state, uint16_t *cell_state, uint16_t *output,
                    float *scratch)
{
    if (params == NULL || weights == NULL || input == NULL || output_state == NULL || cell_state == NULL ||
        output == NULL || scratch == NULL || params->max_time < 1 || params->n_batch < 1 ||
        params->n_input < 1 || params->n_cell < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    for (int32_t g = 1; g < HK_LSTM_F16_GATES; ++g) {
        if (weights->input_to_gate[g] == NULL || weights->recurrent_to_gate[g] == NULL || weights->bias[g] == NULL) {
            return HK_STATUS_BAD_PARAM;
        }
    }
    const hk_lstm_f16_params_t p = *params;
    const size_t n_cell = (size_t)p.n_cell;
    const bool cifg = weights->input_to_gate[0] == NULL;
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    hk_f16_t *hs = (hk_f16_t *)(void *)output_state;
    hk_f16_t *cs = (hk_f16_t *)(void *)cell_state;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    float *input_gate = scratch;
    float *forget_gate = input_gate + n_cell;
    float *cell_gate = forget_gate + n_cell;
    float *output_gate = cell_gate + n_cell;
    float *h = output_gate + n_cell;
    float *c = h + n_cell;
    for (int32_t b = 0; b < p.n_batch; ++b) {
        for (size_t i = 0; i < n_cell; ++i) {
            h[i] = (float)hs[(size_t)b * n_cell + i];
            c[i] = (float)cs[(size_t)b * n_cell + i];
        }
        for (int32_t t = 0; t < p.max_time; ++t) {
            const size_t row = p.time_major ? (size_t)t * (size_t)p.n_batch + (size_t)b
                                            : (size_t)b * (size_t)p.max_time + (size_t)t;
            const hk_f16_t *x = in + row * (size_t)p.n_input;
            if (!cifg) {
                lstm_f16_gate(&p, weights, 0, x, h, 6, input_gate);
            }
            lstm_f16_gate(&p, weights, 1, x, h, 6, forget_gate);
            lstm_f16_gate(&p, weights, 2, x, h, p.activation, cell_gate);
            lstm_f16_gate(&p, weights, 3, x, h, 6, output_gate);
            for (size_t i = 0; i < n_cell; ++i) {
                const float gate_in = cifg ? 1.0f - forget_gate[i] : input_gate[i];
                float cell = forget_gate[i] * c[i] + cell_gate[i] * gate_in;
                if (p.cell_clip > 0.0f) {
                    cell = hk_clamp_f32(cell, -p.cell_clip, p.cell_clip);
                }
                c[i] = cell;
                h[i] = output_gate[i] * lstm_f16_activate(cell, p.activation);
                out[row * n_cell + i] = hk_f16_round(h[i]);
            }
        }
        for (size_t i = 0; i < n_cell; ++i) {
            hs[(size_t)b * n_cell + i] = hk_f16_round(h[i]);
            cs[(size_t)b * n_cell + i] = hk_f16_round(c[i]);
        }
    }
    return HK_STATUS_OK;
}
