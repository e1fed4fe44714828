/*
 * helia-aot kernel library: LOG_SOFTMAX (see hk_log_softmax.h).
 */
#include <math.h>

#include "hk_fixedpoint.h"
#include "hk_log_softmax.h"

/* Follows LiteRT reference_ops::LogSoftmax (float): x - max - log(sum(exp(x - max))). */
int32_t hk_log_softmax_f32(const hk_log_softmax_f32_params_t *params, const float *input,
                           float *output)
{
    if (params->outer_size < 0 || params->depth < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t depth = (size_t)params->depth;
    for (size_t row = 0; row < (size_t)params->outer_size; ++row) {
        const float *in = input + row * depth;
        float *out = output + row * depth;
        float max = in[0];
        for (size_t c = 1; c < depth; ++c) {
            max = in[c] > max ? in[c] : max;
        }
        float sum = 0.0f;
        for (size_t c = 0; c < depth; ++c) {
            sum += expf(in[c] - max);
        }
        const float log_sum = logf(sum);
        for (size_t c = 0; c < depth; ++c) {
            out[c] = in[c] - max - log_sum;
        }
    }
    return HK_STATUS_OK;
}

/* gemmlowp SaturatingAdd / SaturatingSub on raw int32 values. */
static int32_t sat_i32(int64_t x)
{
    return x > INT32_MAX ? INT32_MAX : (x < INT32_MIN ? INT32_MIN : (int32_t)x);
}

static int32_t sat_add(int32_t a, int32_t b) { return sat_i32((int64_t)a + (int64_t)b); }

static int32_t sat_sub(int32_t a, int32_t b) { return sat_i32((int64_t)a - (int64_t)b); }

/* Follows LiteRT log_x_for_x_greater_than_or_equal_to_1_impl: log(x) for x >= 1 given in
 * Q(input_bits), result in Q(output_bits), through a Pade approximant around 2^(1/4). */
static int32_t log_x_ge_1(int32_t x, int32_t input_bits, int32_t output_bits)
{
    const int32_t accum_bits = output_bits + 1;
    const int32_t log_2 = 1488522236;
    const int32_t sqrt_sqrt_half = 1805811301;
    const int32_t sqrt_half = 1518500250;
    const int32_t one_quarter = 536870912;
    const int32_t alpha_n = 117049297;
    const int32_t alpha_d = 127690142;
    const int32_t alpha_i = 1057819769;
    const int32_t alpha_f = 638450708;
    const int32_t shifted_quarter = hk_fp_rescale(one_quarter, 0, accum_bits);

    const int32_t z_a = x;
    const int32_t z_a_headroom_plus_1 = hk_clz_u32((uint32_t)z_a);
    const int32_t r_a_tmp = hk_fp_mul_pot(z_a, z_a_headroom_plus_1 - 1);
    const int32_t r_a_raw = hk_fp_mul_pot(hk_sat_rdhm(r_a_tmp, sqrt_half), 1);
    const int32_t z_a_pow_2_adj =
        sat_add(hk_fp_mul_pot(input_bits - z_a_headroom_plus_1, 31 - accum_bits), shifted_quarter);

    const int32_t z_b = hk_sat_rdhm(z_a, sqrt_half);
    const int32_t z_b_headroom = hk_clz_u32((uint32_t)z_b) - 1;
    const int32_t r_b_raw = hk_fp_mul_pot(z_a, z_b_headroom);
    const int32_t z_b_pow_2_adj =
        sat_sub(hk_fp_mul_pot(input_bits - z_b_headroom, 31 - accum_bits), shifted_quarter);

    const int32_t r = r_a_raw < r_b_raw ? r_a_raw : r_b_raw;
    const int32_t z_pow_2_adj = z_a_pow_2_adj > z_b_pow_2_adj ? z_a_pow_2_adj : z_b_pow_2_adj;

    const int32_t p = hk_fp_rounding_half_sum(r, sqrt_sqrt_half);
    int32_t q = hk_fp_sub(r, sqrt_sqrt_half);
    q = hk_fp_add(q, q);
    const int32_t common_sq = hk_sat_rdhm(q, q);
    const int32_t num = hk_fp_add(hk_sat_rdhm(q, r), hk_sat_rdhm(hk_sat_rdhm(q, common_sq), alpha_n));
    const int32_t denom_minus_one =
        hk_fp_add(hk_sat_rdhm(p, hk_fp_add(hk_fp_add(alpha_i, q), hk_sat_rdhm(alpha_d, common_sq))),
                  hk_sat_rdhm(alpha_f, q));
    const int32_t recip_denom = hk_fp_one_over_one_plus_x(denom_minus_one);
    const int32_t num_scaled = hk_fp_rescale(num, 0, accum_bits);
    const int32_t sum = hk_fp_add(hk_sat_rdhm(z_pow_2_adj, log_2), hk_sat_rdhm(num_scaled, recip_denom));
    return hk_fp_rescale(sum, accum_bits, output_bits);
}

/* Follows LiteRT reference_integer_ops::LogSoftmax (int8): differences from the row maximum in
 * Q5.26, exponentials summed in Q12.19, their log in Q5.26, output at scale 1/16, zero point 127. */
int32_t hk_log_softmax_s8(const hk_log_softmax_s8_params_t *params, const int8_t *input,
                          int8_t *output)
{
    if (params->outer_size < 0 || params->depth < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t input_bits = 5;
    const int32_t accum_bits = 12;
    const int32_t output_bits = 4;
    const int32_t output_zero_point = 127;
    const size_t depth = (size_t)params->depth;
    for (size_t row = 0; row < (size_t)params->outer_size; ++row) {
        const int8_t *in = input + row * depth;
        int8_t *out = output + row * depth;
        int32_t max = -128;
        for (size_t c = 0; c < depth; ++c) {
            max = in[c] > max ? in[c] : max;
        }
        int32_t sum_of_exps = 0;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t diff = (int32_t)in[c] - max;
            if (diff >= params->diff_min) {
                const int32_t diff_q5 = hk_mbqm(diff, params->input_multiplier, params->input_left_shift);
                sum_of_exps = hk_fp_add(
                    sum_of_exps,
                    hk_fp_rescale(hk_fp_exp_on_negative_values(diff_q5, input_bits), 0, accum_bits));
            }
        }
        const int32_t log_sum_q5 = log_x_ge_1(sum_of_exps, accum_bits, input_bits);
        const int32_t shifted_log_sum = hk_fp_add(log_sum_q5, INT32_MIN);
        const int32_t reversed =
            hk_mbqm(shifted_log_sum, params->reverse_multiplier, params->reverse_shift);
        const int32_t adjusted_diff_min = params->diff_min - 1 > reversed ? params->diff_min - 1 : reversed;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t diff = (int32_t)in[c] - max;
            if (diff > adjusted_diff_min) {
                const int32_t diff_q5 = hk_mbqm(diff, params->input_multiplier, params->input_left_shift);
                const int32_t value =
                    hk_rdbpot(hk_fp_sub(diff_q5, log_sum_q5), 31 - input_bits - output_bits) +
                    output_zero_point;
                out[c] = hk_sat_s8(value);
            } else {
                out[c] = -128;
            }
        }
    }
    return HK_STATUS_OK;
}
