/*
 * helia-aot kernel library: CAST (see hk_cast.h).
 */
#include "hk_cast.h"

/* float to an integer as LiteRT's reference converts it: truncation towards zero, saturated to
 * the output type's range, NaN giving the largest value. Written without C's undefined
 * out-of-range conversion. */
static inline int64_t float_to_int(float x, int64_t lo, int64_t hi)
{
    int64_t v;
    if (x != x || x >= 9223372036854775808.0f) {
        v = INT64_MAX;
    } else if (x < -9223372036854775808.0f) {
        v = INT64_MIN;
    } else {
        v = (int64_t)x;
    }
    return v < lo ? lo : (v > hi ? hi : v);
}

/* The low bits of a two's-complement value read back as a signed number of that width (mask and
 * sign bit give the width), without relying on implementation-defined signed conversions. */
static inline int64_t low_bits(uint64_t bits, uint32_t mask, uint32_t sign)
{
    const uint32_t v = (uint32_t)(bits & mask);
    return (int64_t)(v ^ sign) - (int64_t)sign;
}

static inline bool type_ok(int32_t t) { return t >= HK_CAST_BOOL && t <= HK_CAST_F32; }

/* Follows LiteRT's reference CAST kernel (kernels/cast.cc copyCast: static_cast<ToT>(FromT)). */
int32_t hk_cast(const hk_cast_params_t *params, const void *input, void *output)
{
    if (params == NULL || params->size < 0 || !type_ok(params->from) || !type_ok(params->to) ||
        (params->size > 0 && (input == NULL || output == NULL))) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t from = params->from;
    const int32_t to = params->to;
    for (int32_t i = 0; i < params->size; ++i) {
        int64_t iv = 0;
        float fv = 0.0f;
        switch (from) {
        case HK_CAST_BOOL:
            iv = ((const uint8_t *)input)[i] != 0u ? 1 : 0;
            break;
        case HK_CAST_S8:
            iv = ((const int8_t *)input)[i];
            break;
        case HK_CAST_U8:
            iv = ((const uint8_t *)input)[i];
            break;
        case HK_CAST_S16:
            iv = ((const int16_t *)input)[i];
            break;
        case HK_CAST_S32:
            iv = ((const int32_t *)input)[i];
            break;
        case HK_CAST_S64:
            iv = ((const int64_t *)input)[i];
            break;
        default:
            fv = ((const float *)input)[i];
            break;
        }
        const bool from_float = from == HK_CAST_F32;
        /* static_cast<bool>: any non-zero value (NaN included) is true. */
        const bool nonzero = from_float ? (fv != 0.0f) : (iv != 0);
        if (to == HK_CAST_F32) {
            ((float *)output)[i] = from_float ? fv : (float)iv;
            continue;
        }
        if (to == HK_CAST_BOOL) {
            ((uint8_t *)output)[i] = nonzero ? 1u : 0u;
            continue;
        }
        int64_t value = iv;
        if (from_float) {
            static const int64_t lows[] = {0, INT8_MIN, 0, INT16_MIN, INT32_MIN, INT64_MIN};
            static const int64_t highs[] = {1, INT8_MAX, UINT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX};
            value = float_to_int(fv, lows[to], highs[to]);
        }
        /* Integer narrowing keeps the low bits (two's complement), as static_cast does. */
        const uint64_t bits = (uint64_t)value;
        switch (to) {
        case HK_CAST_S8:
            ((int8_t *)output)[i] = (int8_t)low_bits(bits, 0xFFu, 0x80u);
            break;
        case HK_CAST_U8:
            ((uint8_t *)output)[i] = (uint8_t)(bits & 0xFFu);
            break;
        case HK_CAST_S16:
            ((int16_t *)output)[i] = (int16_t)low_bits(bits, 0xFFFFu, 0x8000u);
            break;
        case HK_CAST_S32:
            ((int32_t *)output)[i] = (int32_t)low_bits(bits, 0xFFFFFFFFu, 0x80000000u);
            break;
        default:
            ((int64_t *)output)[i] = value;
            break;
        }
    }
    return HK_STATUS_OK;
}
