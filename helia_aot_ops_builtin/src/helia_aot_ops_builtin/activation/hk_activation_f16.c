/*
 * helia-aot kernel library: float16 activations (see hk_activation_f16.h).
 */
#include "hk_activation_f16.h"

/* Follows LiteRT reference_ops::Relu / Relu6 / ReluX (float): min(max(x, lo), hi). */
int32_t hk_relu_f16(const hk_relu_f16_params_t *params, const uint16_t *input, uint16_t *output,
                    size_t size)
{
    if (params == NULL || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
#if HK_HAVE_MVE_F16
    hk_relu_f16_mve(params, in, out, size);
#else
    const float lo = params->lo;
    const float hi = params->hi;
    for (size_t i = 0; i < size; ++i) {
        const float x = (float)in[i];
        out[i] = hk_f16_round(x < lo ? lo : (x > hi ? hi : x));
    }
#endif
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Logistic (float): 1 / (1 + exp(-x)), evaluated in float. */
int32_t hk_logistic_f16(const uint16_t *input, uint16_t *output, size_t size)
{
    if (input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    for (size_t i = 0; i < size; ++i) {
        out[i] = hk_f16_round(1.0f / (1.0f + expf(-(float)in[i])));
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Tanh (float): tanh(x), evaluated in float. */
int32_t hk_tanh_f16(const uint16_t *input, uint16_t *output, size_t size)
{
    if (input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    for (size_t i = 0; i < size; ++i) {
        out[i] = hk_f16_round(tanhf((float)in[i]));
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::HardSwish (float): x * min(max(x + 3, 0), 6) / 6, in float. */
int32_t hk_hard_swish_f16(const uint16_t *input, uint16_t *output, size_t size)
{
    if (input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    for (size_t i = 0; i < size; ++i) {
        const float x = (float)in[i];
        const float r = hk_clamp_f32(x + 3.0f, 0.0f, 6.0f);
        out[i] = hk_f16_round(x * r / 6.0f);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Gelu (exact form): 0.5 x erfc(-x / sqrt(2)), evaluated in float
 * (the C library's erfcf; the reference's Eigen approximation differs by a few float ulps, far
 * below the float16 rounding). */
int32_t hk_gelu_f16(const uint16_t *input, uint16_t *output, size_t size)
{
    if (input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    for (size_t i = 0; i < size; ++i) {
        const float x = (float)in[i];
        out[i] = hk_f16_round(0.5f * x * erfcf(x * -0.70710678118654752440f));
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Gelu (approximate form):
 * 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), evaluated in float. */
int32_t hk_gelu_tanh_f16(const uint16_t *input, uint16_t *output, size_t size)
{
    if (input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    for (size_t i = 0; i < size; ++i) {
        const float x = (float)in[i];
        const float inner = 0.79788456080286535588f * (x + 0.044715f * (x * x * x));
        out[i] = hk_f16_round(0.5f * x * (1.0f + tanhf(inner)));
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::BroadcastPrelu4DSlow (float): x >= 0 ? x : x * alpha, the product
 * in float (exact for two float16 values) rounded once. */
int32_t hk_prelu_f16(const hk_prelu_f16_shape_t *shape, const uint16_t *input, const uint16_t *alpha,
                     uint16_t *output)
{
    if (shape == NULL || input == NULL || alpha == NULL || output == NULL || shape->rank < 1 ||
        shape->rank > HK_PRELU_F16_MAX_DIMS) {
        return HK_STATUS_BAD_PARAM;
    }
    size_t total = 1;
    for (int32_t d = 0; d < shape->rank; ++d) {
        if (shape->dims[d] < 0 || shape->alpha_strides[d] < 0) {
            return HK_STATUS_BAD_PARAM;
        }
        total *= (size_t)shape->dims[d];
    }
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    const hk_f16_t *al = (const hk_f16_t *)(const void *)alpha;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    int32_t index[HK_PRELU_F16_MAX_DIMS] = {0};
    size_t a = 0; /* alpha offset of the current element */
    for (size_t i = 0; i < total; ++i) {
        const hk_f16_t x = in[i];
        out[i] = (float)x >= 0.0f ? x : hk_f16_round((float)x * (float)al[a]);
        /* Advance the odometer (innermost first), moving the alpha offset with it. */
        for (int32_t d = shape->rank - 1; d >= 0; --d) {
            const size_t stride = (size_t)shape->alpha_strides[d];
            ++index[d];
            a += stride;
            if (index[d] < shape->dims[d]) {
                break;
            }
            a -= stride * (size_t)shape->dims[d];
            index[d] = 0;
        }
    }
    return HK_STATUS_OK;
}
