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
    const float16x8_t lo = vdupq_n_f16(hk_f16_bound(params->lo));
    const float16x8_t hi = vdupq_n_f16(hk_f16_bound(params->hi));
    int32_t n = (int32_t)size;
    while (n > 0) {
        const mve_pred16_t pred = vctp16q((uint32_t)n);
        const float16x8_t x = vldrhq_z_f16((const float16_t *)in, pred);
        vstrhq_p_f16((float16_t *)out, vminnmq_f16(vmaxnmq_f16(x, lo), hi), pred);
        in += 8;
        out += 8;
        n -= 8;
    }
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
