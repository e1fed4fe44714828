/*
 * helia-aot kernel library: LSTM layers (see hk_lstm.h).
 *
 * The float kernel follows LiteRT's float LSTM step (lstm_eval.cc LstmStepFloat): each gate is
 * bias + W_x x (+ W_aux aux) + W_h h (+ peephole w .* c), optionally mean/stddev normalised,
 * scaled by the layer-norm coefficients and offset by the bias; sigmoid for the input, forget and
 * output gates, the layer's activation for the cell gate; then c = f .* c + i .* g (clipped),
 * the output gate (its peephole reads the new cell state), h = o .* act(c), projected and clipped.
 *
 * The integer kernel follows LiteRT's 8x8_16 integer LSTM (LstmStepInteger8x8_16 and the
 * portable tensor utilities it calls) operation by operation, so it is bit-exact: int8 matrix
 * products requantized into saturating int16 gate accumulators, gemmlowp's int16 fixed-point
 * logistic (Q3.12 in) and tanh, the integer layer normalisation, the Q0.15 x cell-scale cell
 * update, and the hidden-state requantization to int8 with an optional int8 projection.
 */
#include "hk_lstm.h"
#include "hk_fixedpoint.h"

#include <math.h>

/* ------------------------------------------------------------------------------------------ */
/* float32                                                                                    */

float hk_lstm_activate_f32(float x, int32_t activation)
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
    case 6:
        return 1.0f / (1.0f + expf(-x));
    default:
        return x;
    }
}

/* LiteRT MeanStddevNormalization of one gate row, then times the layer-norm coefficients plus
 * the gate bias (the bias is added after normalising). */
void hk_lstm_layer_norm_f32(float *gate, const float *coefficients, const float *bias, int32_t n_cell)
{
    float sum = 0.0f;
    for (int32_t i = 0; i < n_cell; ++i) {
        sum += gate[i];
    }
    const float mean = sum / (float)n_cell;
    float sum_diff_sq = 0.0f;
    for (int32_t i = 0; i < n_cell; ++i) {
        const float diff = gate[i] - mean;
        sum_diff_sq += diff * diff;
    }
    const float stddev_inv = 1.0f / sqrtf(sum_diff_sq / (float)n_cell + 1e-8f);
    for (int32_t i = 0; i < n_cell; ++i) {
        gate[i] = (gate[i] - mean) * stddev_inv * coefficients[i] + bias[i];
    }
}

static float lstm_dot_f32(const float *row, const float *vec, int32_t n)
{
    float acc = 0.0f;
    for (int32_t i = 0; i < n; ++i) {
        acc += row[i] * vec[i];
    }
    return acc;
}

/* One gate for one batch row, into gate[n_cell] (LiteRT CalculateLstmGateFloat). */
static void lstm_gate_f32(const hk_lstm_f32_params_t *p, const hk_lstm_f32_weights_t *w, int32_t g,
                          const float *x, const float *aux, const float *h, const float *c,
                          int32_t activation, float *gate)
{
    const int32_t n_cell = p->shape.n_cell;
    const int32_t n_input = p->shape.n_input;
    const int32_t n_output = p->shape.n_output;
    const float *ln = w->layer_norm[g];
    for (int32_t i = 0; i < n_cell; ++i) {
        float acc = ln != NULL ? 0.0f : w->bias[g][i];
        acc = lstm_dot_f32(w->input_to_gate[g] + (size_t)i * (size_t)n_input, x, n_input) + acc;
        if (aux != NULL && w->aux_to_gate[g] != NULL) {
            acc = lstm_dot_f32(w->aux_to_gate[g] + (size_t)i * (size_t)p->n_aux_input, aux,
                               p->n_aux_input) +
                  acc;
        }
        acc = lstm_dot_f32(w->recurrent_to_gate[g] + (size_t)i * (size_t)n_output, h, n_output) + acc;
        if (c != NULL && w->cell_to_gate[g] != NULL) {
            acc += w->cell_to_gate[g][i] * c[i];
        }
        gate[i] = acc;
    }
    if (ln != NULL) {
        hk_lstm_layer_norm_f32(gate, ln, w->bias[g], n_cell);
    }
    for (int32_t i = 0; i < n_cell; ++i) {
        gate[i] = hk_lstm_activate_f32(gate[i], activation);
    }
}

/* One time step of one batch row (LiteRT LstmStepFloat with n_batch 1). */
static void lstm_step_f32(const hk_lstm_f32_params_t *p, const hk_lstm_f32_weights_t *w,
                          const float *x, const float *aux, float *h, float *c, float *out,
                          float *scratch)
{
    const int32_t n_cell = p->shape.n_cell;
    const int32_t n_output = p->shape.n_output;
    float *input_gate = scratch;
    float *forget_gate = input_gate + n_cell;
    float *cell_gate = forget_gate + n_cell;
    float *output_gate = cell_gate + n_cell;
    float *hidden = output_gate + n_cell;
    float *projected = hidden + n_cell;
    const bool cifg = w->input_to_gate[HK_LSTM_GATE_INPUT] == NULL;

    if (!cifg) {
        lstm_gate_f32(p, w, HK_LSTM_GATE_INPUT, x, aux, h, c, 6, input_gate);
    }
    lstm_gate_f32(p, w, HK_LSTM_GATE_FORGET, x, aux, h, c, 6, forget_gate);
    lstm_gate_f32(p, w, HK_LSTM_GATE_CELL, x, aux, h, NULL, p->activation, cell_gate);
    for (int32_t i = 0; i < n_cell; ++i) {
        float cell = forget_gate[i] * c[i];
        const float in = cifg ? 1.0f - forget_gate[i] : input_gate[i];
        cell += cell_gate[i] * in;
        if (p->cell_clip > 0.0f) {
            cell = hk_clamp_f32(cell, -p->cell_clip, p->cell_clip);
        }
        c[i] = cell;
    }
    lstm_gate_f32(p, w, HK_LSTM_GATE_OUTPUT, x, aux, h, c, 6, output_gate);
    for (int32_t i = 0; i < n_cell; ++i) {
        hidden[i] = output_gate[i] * hk_lstm_activate_f32(c[i], p->activation);
    }
    if (w->projection_weights != NULL) {
        for (int32_t j = 0; j < n_output; ++j) {
            const float bias = w->projection_bias != NULL ? w->projection_bias[j] : 0.0f;
            float v = lstm_dot_f32(w->projection_weights + (size_t)j * (size_t)n_cell, hidden, n_cell) +
                      bias;
            if (p->proj_clip > 0.0f) {
                v = hk_clamp_f32(v, -p->proj_clip, p->proj_clip);
            }
            projected[j] = v;
        }
        memcpy(h, projected, (size_t)n_output * sizeof(float));
    } else {
        memcpy(h, hidden, (size_t)n_output * sizeof(float));
    }
    memcpy(out, h, (size_t)n_output * sizeof(float));
}

/* Follows LiteRT's float UNIDIRECTIONAL_SEQUENCE_LSTM / BIDIRECTIONAL_SEQUENCE_LSTM evaluation. */
int32_t hk_lstm_f32(const hk_lstm_f32_params_t *params, const hk_lstm_f32_weights_t *weights,
                    const float *input, const float *aux_input, float *output_state,
                    float *cell_state, float *output, float *scratch)
{
    const hk_lstm_shape_t *s = &params->shape;
    if (s->max_time < 1 || s->n_batch < 1 || s->n_cell < 1 || s->n_output < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    for (int32_t b = 0; b < s->n_batch; ++b) {
        for (int32_t t = 0; t < s->max_time; ++t) {
            const int32_t step = s->reverse ? s->max_time - 1 - t : t;
            const size_t row =
                s->time_major ? (size_t)step * (size_t)s->n_batch + (size_t)b
                              : (size_t)b * (size_t)s->max_time + (size_t)step;
            const float *aux =
                aux_input != NULL ? aux_input + row * (size_t)params->n_aux_input : NULL;
            lstm_step_f32(params, weights, input + row * (size_t)s->n_input, aux,
                          output_state + (size_t)b * (size_t)s->n_output,
                          cell_state + (size_t)b * (size_t)s->n_cell,
                          output + row * (size_t)s->output_stride, scratch);
        }
    }
    return HK_STATUS_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* int16 fixed point (gemmlowp FixedPoint<int16_t, N>)                                        */

static int16_t fx16_wrap(int32_t x) { return (int16_t)(uint16_t)(uint32_t)x; }

static int16_t fx16_sat(int32_t x) { return (int16_t)hk_clamp_i32(x, INT16_MIN, INT16_MAX); }

/* gemmlowp SaturatingRoundingDoublingHighMul(int16). */
static int16_t fx16_mul(int16_t a, int16_t b)
{
    if (a == INT16_MIN && b == INT16_MIN) {
        return INT16_MAX;
    }
    const int32_t ab = (int32_t)a * (int32_t)b;
    const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    return (int16_t)((ab + nudge) / (1 << 15));
}

/* gemmlowp RoundingDivideByPOT on an int16 value. */
static int16_t fx16_rdbpot(int16_t x, int32_t exponent)
{
    return (int16_t)hk_rdbpot((int32_t)x, exponent);
}

/* gemmlowp SaturatingRoundingMultiplyByPOT(int16). */
static int16_t fx16_mul_pot(int16_t x, int32_t exponent)
{
    if (exponent > 0) {
        const int32_t threshold = (1 << (15 - exponent)) - 1;
        if (x > threshold) {
            return INT16_MAX;
        }
        if (x < -threshold) {
            return INT16_MIN;
        }
        return fx16_wrap((int32_t)((uint32_t)(int32_t)x << exponent));
    }
    return fx16_rdbpot(x, -exponent);
}

/* gemmlowp RoundingHalfSum(int16). */
static int16_t fx16_half_sum(int16_t a, int16_t b)
{
    const int32_t sum = (int32_t)a + (int32_t)b;
    return (int16_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/* gemmlowp exp_on_interval_between_negative_one_quarter_and_0_excl, int16 Q0 in and out. */
static int16_t fx16_exp_on_interval(int16_t a)
{
    const int16_t constant_term = 28918; /* exp(-1/8), the int32 constant rounded to 16 bits */
    const int16_t one_third = 10923;
    const int16_t x = fx16_wrap((int32_t)a + (1 << 12));
    const int16_t x2 = fx16_mul(x, x);
    const int16_t x3 = fx16_mul(x2, x);
    const int16_t x4 = fx16_mul(x2, x2);
    const int16_t x4_over_4 = fx16_mul_pot(x4, -2);
    const int16_t poly = fx16_mul_pot(
        fx16_wrap((int32_t)fx16_mul(fx16_wrap((int32_t)x4_over_4 + x3), one_third) + x2), -1);
    return fx16_sat((int32_t)constant_term + fx16_mul(constant_term, fx16_wrap((int32_t)x + poly)));
}

/* gemmlowp exp_on_negative_values for an int16 input with integer_bits integer bits; Q0 out. */
static int16_t fx16_exp_on_negative_values(int16_t a, int32_t integer_bits)
{
    static const int16_t barrel[7] = {25520, 19875, 12055, 4435, 600, 11, 0};
    const int32_t fractional_bits = 15 - integer_bits;
    const int16_t one_quarter = (int16_t)(1 << (fractional_bits - 2));
    const int16_t mask = (int16_t)(one_quarter - 1);
    const int16_t mod_minus_quarter = fx16_wrap((int32_t)(a & mask) - one_quarter);
    int16_t result = fx16_exp_on_interval(fx16_mul_pot(mod_minus_quarter, integer_bits));
    const int16_t remainder = fx16_wrap((int32_t)mod_minus_quarter - a);
    for (int32_t k = -2; k <= 4; ++k) {
        if (integer_bits > k && (remainder & (1 << (fractional_bits + k))) != 0) {
            result = fx16_mul(result, barrel[k + 2]);
        }
    }
    if (integer_bits > 5) {
        const int16_t clamp = (int16_t)hk_rdbpot(-(int32_t)(1u << (36 - integer_bits)), 16);
        if (a < clamp) {
            result = 0;
        }
    }
    if (a == 0) {
        result = INT16_MAX;
    }
    return result;
}

/* The Newton-Raphson reciprocal of gemmlowp one_over_one_plus_x_for_x_in_0_1 (Q2 result). */
static int16_t fx16_two_over_one_plus_x(int16_t a)
{
    const int16_t half_denominator = fx16_half_sum(a, INT16_MAX);
    int16_t x = fx16_wrap(23130 + (int32_t)fx16_mul(half_denominator, -15420));
    for (int32_t i = 0; i < 3; ++i) {
        const int16_t one_minus = fx16_wrap((1 << 13) - (int32_t)fx16_mul(half_denominator, x));
        x = fx16_wrap((int32_t)x + fx16_mul_pot(fx16_mul(x, one_minus), 2));
    }
    return x;
}

/* Follows gemmlowp logistic() on FixedPoint<int16_t, integer_bits> (LiteRT ApplySigmoid). */
int16_t hk_lstm_logistic_q15(int16_t x, int32_t integer_bits)
{
    if (x == 0) {
        return 16384;
    }
    const int16_t magnitude = x > 0 ? x : fx16_wrap(-(int32_t)x);
    const int16_t e = fx16_exp_on_negative_values(fx16_wrap(-(int32_t)magnitude), integer_bits);
    /* one_over_one_plus_x: Rescale<0>(ExactMulByPot<-1>(x)) = saturating shift of a Q1 value */
    const int16_t positive = fx16_mul_pot(fx16_two_over_one_plus_x(e), 1);
    return x > 0 ? positive : fx16_wrap(INT16_MAX - (int32_t)positive);
}

/* Follows gemmlowp tanh() on FixedPoint<int16_t, integer_bits> (LiteRT ApplyTanh). */
int16_t hk_lstm_tanh_q15(int16_t x, int32_t integer_bits)
{
    if (x == 0) {
        return 0;
    }
    const int16_t negative = x < 0 ? x : fx16_wrap(-(int32_t)x);
    /* exp(2 * negative): ExactMulByPot<1> reinterprets with one more integer bit */
    const int16_t e = fx16_exp_on_negative_values(negative, integer_bits + 1);
    const int16_t t = fx16_mul_pot(fx16_wrap((int32_t)fx16_two_over_one_plus_x(e) - (1 << 13)), 2);
    return x < 0 ? fx16_wrap(-(int32_t)t) : t;
}

/* ------------------------------------------------------------------------------------------ */
/* 8x8_16 integer LSTM                                                                        */

/* LiteRT MatrixBatchVectorMultiplyAccumulate (int8 x int8 + bias, requantized, accumulated into
 * a saturating int16 / int8 output). The int32 dot product wraps as the reference's does. */
static void lstm_matmul_acc_s16(const int8_t *x, const int32_t *bias, const int8_t *w,
                                int32_t multiplier, int32_t shift, int32_t rows, int32_t n_in,
                                int32_t n_out, int16_t *out)
{
    for (int32_t r = 0; r < rows; ++r) {
        for (int32_t o = 0; o < n_out; ++o) {
            uint32_t acc = (uint32_t)bias[o];
            const int8_t *wr = w + (size_t)o * (size_t)n_in;
            const int8_t *xr = x + (size_t)r * (size_t)n_in;
            for (int32_t i = 0; i < n_in; ++i) {
                acc += (uint32_t)((int32_t)xr[i] * (int32_t)wr[i]);
            }
            int32_t v = hk_mbqm((int32_t)acc, multiplier, shift);
            v += out[(size_t)r * (size_t)n_out + (size_t)o];
            out[(size_t)r * (size_t)n_out + (size_t)o] = hk_sat_s16(v);
        }
    }
}

static void lstm_matmul_s8(const int8_t *x, const int32_t *bias, const int8_t *w, int32_t multiplier,
                           int32_t shift, int32_t rows, int32_t n_in, int32_t n_out, int32_t zero_point,
                           int8_t *out)
{
    for (int32_t r = 0; r < rows; ++r) {
        for (int32_t o = 0; o < n_out; ++o) {
            uint32_t acc = (uint32_t)bias[o];
            const int8_t *wr = w + (size_t)o * (size_t)n_in;
            const int8_t *xr = x + (size_t)r * (size_t)n_in;
            for (int32_t i = 0; i < n_in; ++i) {
                acc += (uint32_t)((int32_t)xr[i] * (int32_t)wr[i]);
            }
            /* the output starts zeroed, so accumulating adds nothing */
            const int32_t v = hk_mbqm((int32_t)acc, multiplier, shift) + zero_point;
            out[(size_t)r * (size_t)n_out + (size_t)o] = hk_sat_s8(v);
        }
    }
}

/* LiteRT GetInvSqrtQuantizedMultiplierExp with reverse_shift -1. */
static void lstm_inv_sqrt(int32_t input, int32_t *multiplier, int32_t *shift)
{
    if (input <= 1) {
        *multiplier = INT32_MAX;
        *shift = 0;
        return;
    }
    int32_t out_shift = 11;
    while (input >= (1 << 29)) {
        input /= 4;
        ++out_shift;
    }
    const int32_t max_left_shift_bits = hk_clz_u32((uint32_t)input) - 1;
    const int32_t left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
    out_shift -= left_shift_bit_pairs;
    input = (int32_t)((uint32_t)input << (2 * left_shift_bit_pairs));
    /* Newton-Raphson on Q3 values: x <- 1.5 x - (input / 2) x^3, five times from x = 1 */
    const int32_t fixed_input = input >> 1;
    const int32_t half_input = hk_rdbpot(fixed_input, 1);
    const int32_t half_three = (1 << 28) + (1 << 27);
    int32_t x = 1 << 28;
    for (int32_t i = 0; i < 5; ++i) {
        const int32_t x3 = hk_fp_mul_pot(hk_sat_rdhm(hk_sat_rdhm(x, x), x), 6);
        x = hk_fp_mul_pot(hk_fp_sub(hk_sat_rdhm(half_three, x), hk_sat_rdhm(half_input, x3)), 3);
    }
    x = hk_sat_rdhm(x, 1518500250); /* sqrt(2) / 2 in Q0 */
    if (out_shift < 0) {
        x = (int32_t)((uint32_t)x << -out_shift);
        out_shift = 0;
    }
    *multiplier = x;
    *shift = -out_shift;
}

/* int64 x / 2^shift truncated toward zero, as C's division (without pulling in a 64-bit divide). */
static int64_t lstm_div_pot_i64(int64_t x, int32_t shift)
{
    return x >= 0 ? (int64_t)((uint64_t)x >> shift) : -(int64_t)((uint64_t)-x >> shift);
}

/* (sum * 1024) / n truncated toward zero for |sum| < 2^31, in 32-bit arithmetic: with
 * sum = q n + r (C division, r the sign of sum) it is 1024 q + (1024 r) / n. */
static int32_t lstm_mean_1024(int64_t sum, int32_t n)
{
    const int32_t s = (int32_t)sum;
    const int32_t q = s / n;
    const int32_t r = s % n;
    return (int32_t)((uint32_t)q * 1024u) + (r * 1024) / n;
}

/* LiteRT ApplyLayerNorm (integer), in place over rows x n. */
static void lstm_layer_norm_s16(int16_t *gate, const int16_t *weights, const int32_t *bias,
                                int32_t multiplier, int32_t shift, int32_t guard, int32_t rows,
                                int32_t n)
{
    for (int32_t r = 0; r < rows; ++r) {
        int16_t *v = gate + (size_t)r * (size_t)n;
        int64_t sum = 0;
        int64_t sum_sq = 0;
        for (int32_t j = 0; j < n; ++j) {
            sum += v[j];
            sum_sq += (int32_t)v[j] * (int32_t)v[j];
        }
        const int32_t mean = lstm_mean_1024(sum, n);
        const int32_t temp = (1 << 20) / n;
        const int64_t variance = sum_sq * temp - (int64_t)mean * (int64_t)mean;
        int32_t variance2 = (int32_t)lstm_div_pot_i64(variance, 20);
        if (variance2 < 1) {
            variance2 = guard;
        }
        int32_t inv_a;
        int32_t inv_b;
        lstm_inv_sqrt(variance2, &inv_a, &inv_b);
        for (int32_t j = 0; j < n; ++j) {
            const int32_t shifted = 1024 * (int32_t)v[j] - mean;
            const int32_t rescaled = hk_mbqm(shifted, inv_a, inv_b);
            /* int32 product and sum, wrapping as the reference's */
            const int64_t val3 =
                (int32_t)((uint32_t)rescaled * (uint32_t)(int32_t)weights[j] + (uint32_t)bias[j]);
            const int32_t val4 = (int32_t)lstm_div_pot_i64(val3 > 0 ? val3 + 512 : val3 - 512, 10);
            v[j] = hk_sat_s16(hk_mbqm(val4, multiplier, shift + 12));
        }
    }
}

/* One gate over `rows` batch rows (LiteRT CalculateLstmGateInteger8x8_16). */
static void lstm_gate_s8(const hk_lstm_s8_params_t *p, const hk_lstm_s8_weights_t *w, int32_t g,
                         const int8_t *x, const int8_t *h, const int16_t *c, int32_t rows,
                         int16_t *gate)
{
    const int32_t n_cell = p->shape.n_cell;
    const int32_t n_output = p->shape.n_output;
    memset(gate, 0, (size_t)rows * (size_t)n_cell * sizeof(int16_t));
    lstm_matmul_acc_s16(x, w->input_bias[g], w->input_to_gate[g], p->input_multiplier[g],
                        p->input_shift[g], rows, p->shape.n_input, n_cell, gate);
    lstm_matmul_acc_s16(h, w->recurrent_bias[g], w->recurrent_to_gate[g], p->recurrent_multiplier[g],
                        p->recurrent_shift[g], rows, n_output, n_cell, gate);
    if (c != NULL && w->cell_to_gate[g] != NULL) {
        /* The reference walks n_output elements per row here (equal to n_cell without a
         * projection), with that row stride in both the cell state and the gate. */
        const int16_t *cw = w->cell_to_gate[g];
        for (int32_t i = 0; i < rows * n_output; ++i) {
            const int32_t prod = hk_mbqm((int32_t)cw[i % n_output] * (int32_t)c[i],
                                         p->cell_multiplier[g], p->cell_shift[g]);
            gate[i] = hk_sat_s16(prod + gate[i]);
        }
    }
    if (w->layer_norm[g] != NULL) {
        lstm_layer_norm_s16(gate, w->layer_norm[g], w->layer_norm_bias[g], p->layer_norm_multiplier[g],
                            p->layer_norm_shift[g], p->variance_guard[g], rows, n_cell);
    }
    const int32_t count = rows * n_cell;
    for (int32_t i = 0; i < count; ++i) {
        gate[i] = g == HK_LSTM_GATE_CELL ? hk_lstm_tanh_q15(gate[i], 3) : hk_lstm_logistic_q15(gate[i], 3);
    }
}

/* One time step over `rows` batch rows (LiteRT LstmStepInteger8x8_16). */
static void lstm_step_s8(const hk_lstm_s8_params_t *p, const hk_lstm_s8_weights_t *w, const int8_t *x,
                         int8_t *h, int16_t *c, int8_t *out, int32_t rows, int16_t *gates,
                         int8_t *hidden)
{
    const int32_t n_cell = p->shape.n_cell;
    const int32_t n_output = p->shape.n_output;
    const size_t span = (size_t)rows * (size_t)n_cell;
    int16_t *input_gate = gates;
    int16_t *forget_gate = input_gate + span;
    int16_t *cell_gate = forget_gate + span;
    int16_t *output_gate = cell_gate + span;
    const bool cifg = w->input_to_gate[HK_LSTM_GATE_INPUT] == NULL;

    if (!cifg) {
        lstm_gate_s8(p, w, HK_LSTM_GATE_INPUT, x, h, c, rows, input_gate);
    }
    lstm_gate_s8(p, w, HK_LSTM_GATE_FORGET, x, h, c, rows, forget_gate);
    lstm_gate_s8(p, w, HK_LSTM_GATE_CELL, x, h, NULL, rows, cell_gate);
    /* UpdateLstmCellInteger: c = f*c >> 15, plus i*g >> (30 + cell scale), saturated, clipped */
    const int32_t gate_shift = 30 + p->cell_scale_log2;
    for (size_t i = 0; i < span; ++i) {
        const int16_t kept = (int16_t)hk_rdbpot((int32_t)forget_gate[i] * (int32_t)c[i], 15);
        const int16_t in = cifg ? (int16_t)(INT16_MAX - forget_gate[i]) : input_gate[i];
        const int16_t added = (int16_t)hk_rdbpot((int32_t)in * (int32_t)cell_gate[i], gate_shift);
        int32_t cell = hk_sat_s16((int32_t)kept + (int32_t)added);
        if (p->cell_clip > 0) {
            cell = hk_clamp_i32(cell, -p->cell_clip, p->cell_clip);
        }
        c[i] = (int16_t)cell;
    }
    lstm_gate_s8(p, w, HK_LSTM_GATE_OUTPUT, x, h, c, rows, output_gate);
    /* CalculateLstmOutputInteger8x8_16: tanh of the cell state (Q(15 + scale)) into the input
     * gate's row, no longer needed */
    int16_t *cell_tanh = input_gate;
    for (size_t i = 0; i < span; ++i) {
        cell_tanh[i] = hk_lstm_tanh_q15(c[i], 15 + p->cell_scale_log2);
    }
    if (w->projection_weights != NULL) {
        for (size_t i = 0; i < span; ++i) {
            const int32_t v = hk_mbqm((int32_t)output_gate[i] * (int32_t)cell_tanh[i],
                                      p->hidden_multiplier, p->hidden_shift) -
                              p->hidden_zero_point;
            hidden[i] = hk_sat_s8(v);
        }
        lstm_matmul_s8(hidden, w->projection_bias, w->projection_weights, p->projection_multiplier,
                       p->projection_shift, rows, n_cell, n_output, p->output_state_zero_point, h);
        if (p->proj_clip > 0) {
            for (int32_t i = 0; i < rows * n_output; ++i) {
                h[i] = (int8_t)hk_clamp_i32(h[i], -p->proj_clip, p->proj_clip);
            }
        }
    } else {
        for (size_t i = 0; i < span; ++i) {
            const int32_t v = hk_mbqm((int32_t)output_gate[i] * (int32_t)cell_tanh[i],
                                      p->hidden_multiplier, p->hidden_shift) +
                              p->hidden_zero_point;
            h[i] = hk_sat_s8(v);
        }
    }
    memcpy(out, h, (size_t)rows * (size_t)n_output);
}

/* Follows LiteRT's EvalInteger8x8_16 (UNIDIRECTIONAL_SEQUENCE_LSTM with int8 input): time-major
 * input steps all batch rows together, batch-major input one row at a time. */
int32_t hk_lstm_s8(const hk_lstm_s8_params_t *params, const hk_lstm_s8_weights_t *weights,
                   const int8_t *input, int8_t *output_state, int16_t *cell_state, int8_t *output,
                   void *scratch)
{
    const hk_lstm_shape_t *s = &params->shape;
    if (s->max_time < 1 || s->n_batch < 1 || s->n_cell < 1 || s->n_output < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t rows = s->time_major ? s->n_batch : 1;
    int16_t *gates = (int16_t *)scratch;
    int8_t *hidden = (int8_t *)(gates + (size_t)4 * (size_t)rows * (size_t)s->n_cell);
    if (s->time_major) {
        for (int32_t t = 0; t < s->max_time; ++t) {
            const int32_t step = s->reverse ? s->max_time - 1 - t : t;
            const size_t row = (size_t)step * (size_t)s->n_batch;
            lstm_step_s8(params, weights, input + row * (size_t)s->n_input, output_state, cell_state,
                         output + row * (size_t)s->n_output, rows, gates, hidden);
        }
        return HK_STATUS_OK;
    }
    for (int32_t b = 0; b < s->n_batch; ++b) {
        for (int32_t t = 0; t < s->max_time; ++t) {
            const int32_t step = s->reverse ? s->max_time - 1 - t : t;
            const size_t row = (size_t)b * (size_t)s->max_time + (size_t)step;
            lstm_step_s8(params, weights, input + row * (size_t)s->n_input,
                         output_state + (size_t)b * (size_t)s->n_output,
                         cell_state + (size_t)b * (size_t)s->n_cell,
                         output + row * (size_t)s->n_output, 1, gates, hidden);
        }
    }
    return HK_STATUS_OK;
}
