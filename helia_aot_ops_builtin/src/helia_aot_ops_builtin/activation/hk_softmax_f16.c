/*
 * helia-aot kernel library: float16 SOFTMAX (see hk_softmax_f16.h).
 */
#include "hk_softmax_f16.h"

/* Follows LiteRT reference_ops::Softmax (float): exp(beta * (x - max)) / sum over the row. The
 * exponentials are written to the output first (rounded), then recomputed for the quotient so
 * the row sum keeps float precision without scratch. */
int32_t hk_softmax_f16(const hk_softmax_f16_params_t *params, const uint16_t *input, uint16_t *output)
{
    if (params == NULL || input == NULL || output == NULL || params->depth <= 0) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_softmax_f16_params_t p = *params;
    const hk_f16_t *in = (const hk_f16_t *)(const void *)input;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    for (int32_t row = 0; row < p.outer_size; ++row) {
        const hk_f16_t *x = in + row * p.depth;
        hk_f16_t *y = out + row * p.depth;
        float max = (float)x[0];
        for (int32_t i = 1; i < p.depth; ++i) {
            max = (float)x[i] > max ? (float)x[i] : max;
        }
        float sum = 0.0f;
        for (int32_t i = 0; i < p.depth; ++i) {
            sum += expf(((float)x[i] - max) * p.beta);
        }
        /* Reading x[i] before writing y[i] keeps an in-place softmax correct. */
        for (int32_t i = 0; i < p.depth; ++i) {
            y[i] = hk_f16_round(expf(((float)x[i] - max) * p.beta) / sum);
        }
    }
    return HK_STATUS_OK;
}
