/*
 * helia-aot kernel library: float16 unary math (see hk_unary_f16.h).
 */
#include "hk_unary_f16.h"

typedef enum { F16_ABS, F16_NEG, F16_SQRT, F16_RSQRT } f16_unary_kind_t;

HK_INLINE int32_t f16_unary(f16_unary_kind_t kind, const uint16_t *input, uint16_t *output, size_t size)
{
    if (input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
#if HK_HAVE_MVE_F16
    if (kind == F16_ABS) {
        hk_abs_f16_mve(in, out, size);
        return HK_STATUS_OK;
    }
    if (kind == F16_NEG) {
        hk_neg_f16_mve(in, out, size);
        return HK_STATUS_OK;
    }
#endif
    for (size_t i = 0; i < size; ++i) {
        const float x = (float)in[i];
        switch (kind) {
        case F16_ABS:
            out[i] = hk_f16_round(fabsf(x));
            break;
        case F16_NEG:
            out[i] = hk_f16_round(-x);
            break;
        case F16_SQRT:
            out[i] = hk_f16_round(sqrtf(x));
            break;
        default:
            out[i] = hk_f16_round(1.0f / sqrtf(x));
            break;
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference elementwise Abs (float): |x|. */
int32_t hk_abs_f16(const uint16_t *input, uint16_t *output, size_t size)
{
    return f16_unary(F16_ABS, input, output, size);
}

/* Follows LiteRT reference Neg (float): -x. */
int32_t hk_neg_f16(const uint16_t *input, uint16_t *output, size_t size)
{
    return f16_unary(F16_NEG, input, output, size);
}

/* Follows LiteRT reference elementwise Sqrt (float): sqrt(x), evaluated in float. */
int32_t hk_sqrt_f16(const uint16_t *input, uint16_t *output, size_t size)
{
    return f16_unary(F16_SQRT, input, output, size);
}

/* Follows LiteRT reference elementwise Rsqrt (float): 1 / sqrt(x), evaluated in float. */
int32_t hk_rsqrt_f16(const uint16_t *input, uint16_t *output, size_t size)
{
    return f16_unary(F16_RSQRT, input, output, size);
}
