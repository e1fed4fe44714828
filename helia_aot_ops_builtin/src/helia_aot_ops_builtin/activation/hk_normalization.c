/*
 * helia-aot kernel library: L2 and local response normalization (see hk_normalization.h).
 */
#include <math.h>

#include "hk_fixedpoint.h"
#include "hk_normalization.h"

/* Follows LiteRT reference_ops::L2Normalization (float): x / max(sqrt(sum x^2), 1e-6). */
int32_t hk_l2_norm_f32(const hk_l2_norm_params_t *params, const float *input, float *output)
{
    if (params->outer_size < 0 || params->depth < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t depth = (size_t)params->depth;
    for (size_t row = 0; row < (size_t)params->outer_size; ++row) {
        const float *in = input + row * depth;
        float *out = output + row * depth;
        float squared = 0.0f;
        for (size_t c = 0; c < depth; ++c) {
            squared += in[c] * in[c];
        }
        float norm = sqrtf(squared);
        norm = norm > 1e-6f ? norm : 1e-6f;
        for (size_t c = 0; c < depth; ++c) {
            out[c] = in[c] / norm;
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT GetInvSqrtQuantizedMultiplierExp with reverse_shift -1: 1/sqrt(x) as a Q31
 * multiplier and a left shift, by five Newton-Raphson steps in Q3.28. */
static void inv_sqrt(int32_t x, int32_t *multiplier, int32_t *shift)
{
    if (x <= 1) {
        *multiplier = INT32_MAX;
        *shift = 0;
        return;
    }
    int32_t right_shift = 11;
    while (x >= (1 << 29)) {
        x /= 4;
        ++right_shift;
    }
    const int32_t pairs = (hk_clz_u32((uint32_t)x) - 1) / 2 - 1;
    right_shift -= pairs;
    x = (int32_t)((uint32_t)x << (2 * pairs));
    const int32_t half_input = hk_fp_mul_pot(x >> 1, -1);
    const int32_t half_three = (1 << 28) + (1 << 27);
    int32_t y = 1 << 28; /* 1.0 in Q3 */
    for (int i = 0; i < 5; ++i) {
        /* Q3 * Q3 * Q3 = Q9, rescaled to Q3 */
        const int32_t y3 = hk_fp_rescale(hk_sat_rdhm(hk_sat_rdhm(y, y), y), 9, 3);
        /* Q3 * Q3 = Q6, rescaled to Q3 */
        y = hk_fp_rescale(hk_fp_sub(hk_sat_rdhm(half_three, y), hk_sat_rdhm(half_input, y3)), 6, 3);
    }
    y = hk_sat_rdhm(y, 1518500250); /* times sqrt(2) / 2, Q3 */
    if (right_shift < 0) {
        y = (int32_t)((uint32_t)y << -right_shift);
        right_shift = 0;
    }
    *multiplier = y;
    *shift = -right_shift;
}

/* Follows LiteRT reference_integer_ops::L2Normalization (int8): output at scale 1/128, zero point
 * 0, each row scaled by its integer inverse square root. */
int32_t hk_l2_norm_s8(const hk_l2_norm_params_t *params, const int8_t *input, int8_t *output)
{
    if (params->outer_size < 0 || params->depth < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t depth = (size_t)params->depth;
    for (size_t row = 0; row < (size_t)params->outer_size; ++row) {
        const int8_t *in = input + row * depth;
        int8_t *out = output + row * depth;
        int32_t acc = 0;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t v = (int32_t)in[c] - params->input_zero_point;
            acc = hk_fp_add(acc, v * v);
        }
        int32_t multiplier = 0;
        int32_t shift = 0;
        inv_sqrt(acc, &multiplier, &shift);
        for (size_t c = 0; c < depth; ++c) {
            const int32_t v = (int32_t)in[c] - params->input_zero_point;
            out[c] = hk_sat_s8(hk_mbqm(v, multiplier, shift + 7));
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::LocalResponseNormalization (float): the squares summed in float
 * over [c - radius, c + radius) (the window ends before c + radius, as the reference's loop does),
 * then bias + alpha * sum and its power -beta in double (the reference's parameters are doubles),
 * the multiplier rounded to float before it scales x. */
int32_t hk_lrn_f32(const hk_lrn_f32_params_t *params, const float *input, float *output)
{
    if (params->outer_size < 0 || params->depth < 1 || params->radius < 0) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t depth = params->depth;
    const double bias = (double)params->bias;
    const double alpha = (double)params->alpha;
    const double minus_beta = -(double)params->beta;
    for (size_t row = 0; row < (size_t)params->outer_size; ++row) {
        const float *in = input + row * (size_t)depth;
        float *out = output + row * (size_t)depth;
        for (int32_t c = 0; c < depth; ++c) {
            const int32_t begin = c - params->radius > 0 ? c - params->radius : 0;
            const int32_t end = c + params->radius < depth ? c + params->radius : depth;
            float accum = 0.0f;
            for (int32_t k = begin; k < end; ++k) {
                accum += in[k] * in[k];
            }
            const float multiplier = (float)pow(bias + alpha * (double)accum, minus_beta);
            out[c] = in[c] * multiplier;
        }
    }
    return HK_STATUS_OK;
}
