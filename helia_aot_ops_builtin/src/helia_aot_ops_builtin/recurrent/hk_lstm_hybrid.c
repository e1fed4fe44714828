/*
 * helia-aot kernel library: hybrid UNIDIRECTIONAL_SEQUENCE_LSTM (see hk_lstm_hybrid.h).
 */
#include "hk_lstm_hybrid.h"

#include "hk_hybrid_quant.h"

/* The quantized form of a block of rows: int8 values, and per row its scale and offset. */
typedef struct {
    int8_t *q;
    float *scale;
    int32_t *offset;
} lstm_quantized_t;

/* Quantizes `rows` rows of n values; false (nothing written) when they are all zero, as LiteRT
 * tests the whole block before quantizing. */
static bool lstm_hybrid_quantize(const float *x, int32_t rows, int32_t n, bool asymmetric,
                                 lstm_quantized_t *out)
{
    if (hk_hybrid_all_zero(x, (size_t)rows * (size_t)n)) {
        return false;
    }
    for (int32_t r = 0; r < rows; ++r) {
        out->scale[r] = hk_hybrid_quantize_row(x + (size_t)r * (size_t)n, (size_t)n,
                                               out->q + (size_t)r * (size_t)n, asymmetric,
                                               &out->offset[r]);
    }
    return true;
}

/* y[r][o] += float(W[o] . q[r] - row_sums[o] * offset[r]) * (scale[r] * weight_scale), the int32
 * sum wrapping as the reference's (LiteRT's hybrid MatrixBatchVectorMultiplyAccumulate). */
static void lstm_hybrid_product(const int8_t *w, const lstm_quantized_t *x, const int32_t *row_sums,
                                float weight_scale, int32_t rows, int32_t n_in, int32_t n_out,
                                float *y)
{
    for (int32_t r = 0; r < rows; ++r) {
        const int8_t *q = x->q + (size_t)r * (size_t)n_in;
        const float scale = x->scale[r] * weight_scale;
        float *out = y + (size_t)r * (size_t)n_out;
        for (int32_t o = 0; o < n_out; ++o) {
            const int8_t *row = w + (size_t)o * (size_t)n_in;
            uint32_t dot = 0;
            for (int32_t i = 0; i < n_in; ++i) {
                dot += (uint32_t)((int32_t)row[i] * (int32_t)q[i]);
            }
            if (row_sums != NULL) {
                dot -= (uint32_t)row_sums[o] * (uint32_t)x->offset[r];
            }
            out[o] += (float)(int32_t)dot * scale;
        }
    }
}

/* The working buffers carved from the caller's scratch. */
typedef struct {
    float *gate[HK_LSTM_GATES];
    float *recovered; /* the peephole weights times their scale */
    lstm_quantized_t input;
    lstm_quantized_t state;
    lstm_quantized_t hidden;
} lstm_hybrid_buffers_t;

/* One gate over `rows` rows (LiteRT CalculateLstmGateHybrid). */
static void lstm_hybrid_gate(const hk_lstm_hybrid_params_t *p, const hk_lstm_hybrid_weights_t *w,
                             int32_t g, const lstm_hybrid_buffers_t *b, bool have_input,
                             bool have_state, const float *c, int32_t rows, int32_t activation)
{
    const int32_t n_cell = p->shape.n_cell;
    const bool asymmetric = p->asymmetric != 0;
    float *gate = b->gate[g];
    for (int32_t r = 0; r < rows; ++r) {
        float *row = gate + (size_t)r * (size_t)n_cell;
        for (int32_t i = 0; i < n_cell; ++i) {
            row[i] = w->layer_norm[g] != NULL ? 0.0f : w->bias[g][i];
        }
    }
    if (have_input) {
        lstm_hybrid_product(w->input_to_gate[g], &b->input, asymmetric ? w->input_row_sums[g] : NULL,
                            p->input_scale[g], rows, p->shape.n_input, n_cell, gate);
    }
    if (have_state) {
        lstm_hybrid_product(w->recurrent_to_gate[g], &b->state,
                            asymmetric ? w->recurrent_row_sums[g] : NULL, p->recurrent_scale[g], rows,
                            p->shape.n_output, n_cell, gate);
    }
    if (c != NULL && w->cell_to_gate[g] != NULL) {
        for (int32_t i = 0; i < n_cell; ++i) {
            b->recovered[i] = p->cell_scale[g] * (float)w->cell_to_gate[g][i];
        }
        for (int32_t r = 0; r < rows; ++r) {
            for (int32_t i = 0; i < n_cell; ++i) {
                const size_t k = (size_t)r * (size_t)n_cell + (size_t)i;
                gate[k] += b->recovered[i] * c[k];
            }
        }
    }
    for (int32_t r = 0; r < rows; ++r) {
        float *row = gate + (size_t)r * (size_t)n_cell;
        if (w->layer_norm[g] != NULL) {
            hk_lstm_layer_norm_f32(row, w->layer_norm[g], w->bias[g], n_cell);
        }
        for (int32_t i = 0; i < n_cell; ++i) {
            row[i] = hk_lstm_activate_f32(row[i], activation);
        }
    }
}

/* One time step over `rows` rows (LiteRT LstmStepHybrid). */
static void lstm_hybrid_step(const hk_lstm_hybrid_params_t *p, const hk_lstm_hybrid_weights_t *w,
                             const lstm_hybrid_buffers_t *b, const float *x, float *h, float *c,
                             float *out, int32_t rows)
{
    const int32_t n_cell = p->shape.n_cell;
    const int32_t n_output = p->shape.n_output;
    const bool asymmetric = p->asymmetric != 0;
    const size_t span = (size_t)rows * (size_t)n_cell;
    const bool cifg = w->input_to_gate[HK_LSTM_GATE_INPUT] == NULL;
    lstm_quantized_t input = b->input;
    lstm_quantized_t state = b->state;
    const bool have_input = lstm_hybrid_quantize(x, rows, p->shape.n_input, asymmetric, &input);
    const bool have_state = lstm_hybrid_quantize(h, rows, n_output, asymmetric, &state);
    if (!cifg) {
        lstm_hybrid_gate(p, w, HK_LSTM_GATE_INPUT, b, have_input, have_state, c, rows, 6);
    }
    lstm_hybrid_gate(p, w, HK_LSTM_GATE_FORGET, b, have_input, have_state, c, rows, 6);
    lstm_hybrid_gate(p, w, HK_LSTM_GATE_CELL, b, have_input, have_state, NULL, rows, p->activation);
    /* UpdateLstmCellFloat: c = f c, then c += g i (g (1 - f) with CIFG), clipped */
    float *forget = b->gate[HK_LSTM_GATE_FORGET];
    float *cell_gate = b->gate[HK_LSTM_GATE_CELL];
    for (size_t i = 0; i < span; ++i) {
        c[i] = forget[i] * c[i];
    }
    for (size_t i = 0; i < span; ++i) {
        const float in = cifg ? 1.0f - forget[i] : b->gate[HK_LSTM_GATE_INPUT][i];
        const float added = cell_gate[i] * in;
        c[i] = c[i] + added;
    }
    if (p->cell_clip > 0.0f) {
        for (size_t i = 0; i < span; ++i) {
            c[i] = hk_clamp_f32(c[i], -p->cell_clip, p->cell_clip);
        }
    }
    lstm_hybrid_gate(p, w, HK_LSTM_GATE_OUTPUT, b, have_input, have_state, c, rows, 6);
    /* CalculateLstmOutputHybrid: the hidden state o * act(c) in the cell gate's rows */
    float *hidden = cell_gate;
    const float *output_gate = b->gate[HK_LSTM_GATE_OUTPUT];
    for (size_t i = 0; i < span; ++i) {
        hidden[i] = output_gate[i] * hk_lstm_activate_f32(c[i], p->activation);
    }
    if (w->projection_weights != NULL) {
        for (int32_t r = 0; r < rows; ++r) {
            for (int32_t j = 0; j < n_output; ++j) {
                h[(size_t)r * (size_t)n_output + (size_t)j] =
                    w->projection_bias != NULL ? w->projection_bias[j] : 0.0f;
            }
        }
        lstm_quantized_t projected = b->hidden;
        if (lstm_hybrid_quantize(hidden, rows, n_cell, asymmetric, &projected)) {
            lstm_hybrid_product(w->projection_weights, &projected,
                                asymmetric ? w->projection_row_sums : NULL, p->projection_scale, rows,
                                n_cell, n_output, h);
        }
        if (p->proj_clip > 0.0f) {
            for (int32_t i = 0; i < rows * n_output; ++i) {
                h[i] = hk_clamp_f32(h[i], -p->proj_clip, p->proj_clip);
            }
        }
    } else {
        memcpy(h, hidden, (size_t)rows * (size_t)n_output * sizeof(float));
    }
    for (int32_t r = 0; r < rows; ++r) {
        memcpy(out + (size_t)r * (size_t)p->shape.output_stride, h + (size_t)r * (size_t)n_output,
               (size_t)n_output * sizeof(float));
    }
}

/* Follows LiteRT's EvalHybrid for UNIDIRECTIONAL_SEQUENCE_LSTM. */
int32_t hk_lstm_hybrid(const hk_lstm_hybrid_params_t *params, const hk_lstm_hybrid_weights_t *weights,
                       const float *input, float *output_state, float *cell_state, float *output,
                       void *scratch)
{
    if (params == NULL || weights == NULL || input == NULL || output_state == NULL ||
        cell_state == NULL || output == NULL || scratch == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_lstm_shape_t *s = &params->shape;
    if (s->max_time < 1 ||
        s->n_batch < 1 || s->n_input < 1 || s->n_cell < 1 || s->n_output < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t rows = s->time_major ? s->n_batch : 1;
    const size_t span = (size_t)rows * (size_t)s->n_cell;
    lstm_hybrid_buffers_t b;
    float *f = (float *)scratch;
    for (int32_t g = 0; g < HK_LSTM_GATES; ++g) {
        b.gate[g] = f + (size_t)g * span;
    }
    b.recovered = f + 4 * span;
    float *scales = b.recovered + s->n_cell;
    int32_t *offsets = (int32_t *)(scales + 3 * rows);
    int8_t *q = (int8_t *)(offsets + 3 * rows);
    b.input = (lstm_quantized_t){q, scales, offsets};
    b.state = (lstm_quantized_t){q + (size_t)rows * (size_t)s->n_input, scales + rows, offsets + rows};
    b.hidden = (lstm_quantized_t){b.state.q + (size_t)rows * (size_t)s->n_output, scales + 2 * rows,
                                  offsets + 2 * rows};
    if (s->time_major) {
        for (int32_t t = 0; t < s->max_time; ++t) {
            const int32_t step = s->reverse ? s->max_time - 1 - t : t;
            const size_t row = (size_t)step * (size_t)s->n_batch;
            lstm_hybrid_step(params, weights, &b, input + row * (size_t)s->n_input, output_state,
                             cell_state, output + row * (size_t)s->output_stride, rows);
        }
        return HK_STATUS_OK;
    }
    for (int32_t batch = 0; batch < s->n_batch; ++batch) {
        for (int32_t t = 0; t < s->max_time; ++t) {
            const int32_t step = s->reverse ? s->max_time - 1 - t : t;
            const size_t row = (size_t)batch * (size_t)s->max_time + (size_t)step;
            lstm_hybrid_step(params, weights, &b, input + row * (size_t)s->n_input,
                             output_state + (size_t)batch * (size_t)s->n_output,
                             cell_state + (size_t)batch * (size_t)s->n_cell,
                             output + row * (size_t)s->output_stride, 1);
        }
    }
    return HK_STATUS_OK;
}
