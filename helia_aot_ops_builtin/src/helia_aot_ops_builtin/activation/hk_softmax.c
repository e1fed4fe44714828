/*
 * helia-aot kernel library: SOFTMAX (see hk_softmax.h).
 */
#include "hk_softmax.h"

#include <float.h>
#include <math.h>

#include "hk_fixedpoint.h"

/* Q5.26 holds beta-scaled differences down to -32; sums of up to 4096 ones fit Q12.19. */
#define SCALED_DIFF_INTEGER_BITS 5
#define ACCUM_INTEGER_BITS 12

/* Follows LiteRT reference_ops::Softmax (float): exp((x - max) * beta), normalised by the sum. */
int32_t hk_softmax_f32(const hk_softmax_f32_params_t *params, const float *input, float *output)
{
    const size_t depth = (size_t)params->depth;
    const float beta = params->beta;
    if (params->outer_size < 0 || params->depth < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    for (int32_t row = 0; row < params->outer_size; ++row) {
        const float *in = input + (size_t)row * depth;
        float *out = output + (size_t)row * depth;
        float max = -FLT_MAX;
        for (size_t c = 0; c < depth; ++c) {
            max = max < in[c] ? in[c] : max;
        }
        float sum = 0.0f;
        for (size_t c = 0; c < depth; ++c) {
            const float e = expf((in[c] - max) * beta);
            out[c] = e;
            sum += e;
        }
        for (size_t c = 0; c < depth; ++c) {
            out[c] = out[c] / sum;
        }
    }
    return HK_STATUS_OK;
}

/* exp(beta * input_scale * diff) in Q0, for a row difference diff in [diff_min, 0]. */
static int32_t scaled_exp(const hk_softmax_s8_params_t *params, int32_t diff)
{
    const int32_t scaled = hk_mbqm_greater_than_one(diff, params->input_multiplier,
                                                    params->input_left_shift);
    return hk_fp_exp_on_negative_values(scaled, SCALED_DIFF_INTEGER_BITS);
}

/* The shared int8-input path; output_bits is 8 or 16 and the results are written through
 * whichever of out8 / out16 is not NULL. */
static int32_t softmax_s8_rows(const hk_softmax_s8_params_t *params, const int8_t *input,
                               int8_t *out8, int16_t *out16, int32_t output_bits)
{
    const size_t depth = (size_t)params->depth;
    const int32_t out_min = output_bits == 8 ? INT8_MIN : INT16_MIN;
    const int32_t out_max = output_bits == 8 ? INT8_MAX : INT16_MAX;
    if (params->outer_size < 0 || params->depth < 1 || params->input_left_shift < 0 ||
        params->input_left_shift > 31) {
        return HK_STATUS_BAD_PARAM;
    }
    for (int32_t row = 0; row < params->outer_size; ++row) {
        const int8_t *in = input + (size_t)row * depth;
        int32_t max = INT8_MIN;
        for (size_t c = 0; c < depth; ++c) {
            max = hk_max_i32(max, in[c]);
        }
        int32_t sum_of_exps = 0;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t diff = (int32_t)in[c] - max;
            if (diff >= params->diff_min) {
                sum_of_exps = hk_fp_add(sum_of_exps,
                                        hk_fp_rescale(scaled_exp(params, diff), 0,
                                                      ACCUM_INTEGER_BITS));
            }
        }
        /* The row maximum contributes exp(0) = 1, so the sum is positive. */
        int32_t num_bits_over_unit = 0;
        const int32_t shifted_scale =
            hk_fp_reciprocal(sum_of_exps, ACCUM_INTEGER_BITS, &num_bits_over_unit);
        const int32_t exponent = num_bits_over_unit + 31 - output_bits;
        if (exponent < 0 || exponent > 31) {
            return HK_STATUS_BAD_PARAM;
        }
        for (size_t c = 0; c < depth; ++c) {
            const int32_t diff = (int32_t)in[c] - max;
            int32_t v = out_min;
            if (diff >= params->diff_min) {
                const int32_t unsat =
                    hk_rdbpot(hk_sat_rdhm(shifted_scale, scaled_exp(params, diff)), exponent);
                v = hk_clamp_i32(unsat + out_min, out_min, out_max);
            }
            if (out8 != NULL) {
                out8[(size_t)row * depth + c] = (int8_t)v;
            } else {
                out16[(size_t)row * depth + c] = (int16_t)v;
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Softmax<int8_t, int8_t> (kReference, gemmlowp fixed point). */
int32_t hk_softmax_s8(const hk_softmax_s8_params_t *params, const int8_t *input, int8_t *output)
{
    return softmax_s8_rows(params, input, output, NULL, 8);
}

/* Follows LiteRT reference_ops::Softmax<int8_t, int16_t> (kReference, gemmlowp fixed point). */
int32_t hk_softmax_s8_s16(const hk_softmax_s8_params_t *params, const int8_t *input,
                          int16_t *output)
{
    return softmax_s8_rows(params, input, NULL, output, 16);
}

/* Follows LiteRT LUTLookup(int16): 512 segments indexed by the top 9 bits, linear in the rest. */
static int16_t lut_lookup16(int16_t value, const int16_t *lut)
{
    const uint32_t index = (uint32_t)(256 + ((int32_t)value >> 7));
    const int32_t offset = (int32_t)value & 0x7F;
    const int32_t base = lut[index];
    const int32_t slope = (int32_t)lut[index + 1u] - base;
    const int32_t delta = (slope * offset + 64) >> 7;
    return (int16_t)(base + delta);
}

/* Follows LiteRT reference_ops::SoftmaxInt16 (exp and 1/(1+x) tables, Q0.15 output). */
int32_t hk_softmax_s16(const hk_softmax_s16_params_t *params, const int16_t *exp_lut,
                       const int16_t *one_over_one_plus_x_lut, const int16_t *input,
                       int16_t *output)
{
    const size_t depth = (size_t)params->depth;
    if (params->outer_size < 0 || params->depth < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    for (int32_t row = 0; row < params->outer_size; ++row) {
        const int16_t *in = input + (size_t)row * depth;
        int16_t *out = output + (size_t)row * depth;
        int32_t max = INT16_MIN;
        for (size_t c = 0; c < depth; ++c) {
            max = hk_max_i32(max, in[c]);
        }
        /* The exps are cached in the output row; in[c] is read before out[c] is written. */
        int32_t sum_of_exps = 0;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t scaled = hk_mbqm((int32_t)in[c] - max, params->input_multiplier,
                                           params->input_shift);
            const int16_t e = lut_lookup16(hk_sat_s16(scaled + 32767), exp_lut);
            out[c] = e;
            sum_of_exps = hk_fp_add(sum_of_exps, e);
        }
        const int32_t headroom_plus_one = hk_clz_u32((uint32_t)sum_of_exps);
        if (headroom_plus_one < 1 || headroom_plus_one > 31) {
            return HK_STATUS_BAD_PARAM;
        }
        const int32_t shifted_sum =
            (int32_t)((((int64_t)sum_of_exps << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
        /* 1/(1+x) needs x = sum - 1, recentred from [0, 65535] onto the int16 range. */
        const int16_t reciprocal = lut_lookup16(
            hk_sat_s16(shifted_sum - ((1 << 15) + (1 << 16))), one_over_one_plus_x_lut);
        const int32_t right_shift = 31 - headroom_plus_one;
        const int64_t round = right_shift > 0 ? ((int64_t)1 << (right_shift - 1)) : 0;
        for (size_t c = 0; c < depth; ++c) {
            const int32_t r =
                (int32_t)(((int64_t)out[c] * (int64_t)reciprocal + round) >> right_shift);
            out[c] = (int16_t)hk_clamp_i32(r, 0, 32767);
        }
    }
    return HK_STATUS_OK;
}
