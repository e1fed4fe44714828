/*
 * helia-aot kernel library: quantized DIV (see hk_div_quant.h).
 *
 * Follows LiteRT reference_ops::DivElementwise / BroadcastDivSlowQuantized.
 */
#include "hk_div_quant.h"

#include "hk_fixedpoint.h"

/* Follows LiteRT CountLeadingSignBits (int32): redundant sign bits, 31 for 0 and -1. */
HK_INLINE int32_t div_sign_bits(int32_t x)
{
    const uint32_t bits = x < 0 ? ~(uint32_t)x : (uint32_t)x;
    return hk_clz_u32(bits) - 1;
}

/* gemmlowp RoundingDivideByPOT as the reference runs it on x86-64 for any exponent >= 0: past 31
 * its mask is all ones and the shift count wraps modulo 32 (the reference asserts exponent <= 31
 * only in debug builds; its int16 division reaches 30 + 16 for small dividends). */
HK_INLINE int32_t div_rdbpot_wide(int32_t x, int32_t exponent)
{
    if (exponent <= 31) {
        return hk_rdbpot(x, exponent);
    }
    const int32_t shifted = x >> (exponent & 31);
    return shifted + (x >= 0 ? 1 : 0);
}

static int32_t div_quant_one(const hk_div_quant_params_t *p, int32_t x, int32_t y)
{
    int32_t a = p->input1_offset + x;
    int32_t b = p->input2_offset + y;
    if (b < 0) {
        a = -a;
        b = -b;
    }
    int32_t recip_shift;
    const int32_t inverse = hk_fp_reciprocal(b, 31, &recip_shift);
    const int32_t headroom = div_sign_bits(a);
    const int32_t unscaled = hk_sat_rdhm((int32_t)((uint32_t)a << headroom), inverse);
    const int32_t total_shift = p->output_shift - recip_shift - headroom;
    const int32_t scaled = div_rdbpot_wide(hk_sat_rdhm(unscaled, p->output_multiplier), -total_shift);
    return hk_clamp_i32(p->output_offset + scaled, p->act_min, p->act_max);
}

#define HK_DIV_QUANT_BODY(T)                                                                   \
    if (params == NULL || input1 == NULL || input2 == NULL || output == NULL ||               \
        params->act_min > params->act_max) {                                                   \
        return HK_STATUS_BAD_PARAM;                                                            \
    }                                                                                          \
    hk_walk_pos_t pos;                                                                         \
    hk_walk_start(&pos);                                                                       \
    for (int32_t i = 0; i < params->walk.size; ++i) {                                          \
        if (params->input2_offset + (int32_t)input2[pos.offset[1]] == 0) {                     \
            return HK_STATUS_BAD_PARAM;                                                        \
        }                                                                                      \
        hk_walk_next(&params->walk, &pos);                                                     \
    }                                                                                          \
    hk_walk_start(&pos);                                                                       \
    for (int32_t i = 0; i < params->walk.size; ++i) {                                          \
        output[i] = (T)div_quant_one(params, input1[pos.offset[0]], input2[pos.offset[1]]);    \
        hk_walk_next(&params->walk, &pos);                                                     \
    }                                                                                          \
    return HK_STATUS_OK;

int32_t hk_div_s8(const hk_div_quant_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output)
{
    HK_DIV_QUANT_BODY(int8_t)
}

int32_t hk_div_s16(const hk_div_quant_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output)
{
    HK_DIV_QUANT_BODY(int16_t)
}
