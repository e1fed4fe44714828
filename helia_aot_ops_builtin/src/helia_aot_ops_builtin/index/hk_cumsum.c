/*
 * helia-aot kernel library: CUMSUM (see hk_cumsum.h).
 */
#include "hk_cumsum.h"

/* Follows LiteRT's CumSum (an in-order scan per line, reversed lines summed from the end):
 * float32 sums one element at a time in that order, so the results are the reference's bit for
 * bit; integer sums wrap (two's complement) instead of overflowing. */
int32_t hk_cumsum(const hk_cumsum_params_t *params, const void *input, void *output)
{
    if (params == NULL || params->outer < 0 || params->axis_size < 0 || params->inner < 0 ||
        params->kind < HK_CUMSUM_F32 || params->kind > HK_CUMSUM_I64) {
        return HK_STATUS_BAD_PARAM;
    }
    if (params->outer == 0 || params->axis_size == 0 || params->inner == 0) {
        return HK_STATUS_OK;
    }
    if (input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t n = params->axis_size;
    const ptrdiff_t inner = params->inner;
    for (int32_t o = 0; o < params->outer; ++o) {
        for (ptrdiff_t i = 0; i < inner; ++i) {
            const ptrdiff_t base = (ptrdiff_t)o * n * inner + i;
            ptrdiff_t pos = params->reverse ? base + (ptrdiff_t)(n - 1) * inner : base;
            const ptrdiff_t step = params->reverse ? -inner : inner;
            if (params->kind == HK_CUMSUM_F32) {
                const float *in = (const float *)input;
                float *out = (float *)output;
                float sum = 0.0f;
                for (int32_t k = 0; k < n; ++k, pos += step) {
                    const float value = in[pos];
                    if (params->exclusive) {
                        out[pos] = sum;
                        sum += value;
                    } else {
                        sum += value;
                        out[pos] = sum;
                    }
                }
            } else if (params->kind == HK_CUMSUM_I32) {
                const int32_t *in = (const int32_t *)input;
                int32_t *out = (int32_t *)output;
                uint32_t sum = 0u;
                for (int32_t k = 0; k < n; ++k, pos += step) {
                    const uint32_t value = (uint32_t)in[pos];
                    if (params->exclusive) {
                        out[pos] = (int32_t)sum;
                        sum += value;
                    } else {
                        sum += value;
                        out[pos] = (int32_t)sum;
                    }
                }
            } else {
                const int64_t *in = (const int64_t *)input;
                int64_t *out = (int64_t *)output;
                uint64_t sum = 0u;
                for (int32_t k = 0; k < n; ++k, pos += step) {
                    const uint64_t value = (uint64_t)in[pos];
                    if (params->exclusive) {
                        out[pos] = (int64_t)sum;
                        sum += value;
                    } else {
                        sum += value;
                        out[pos] = (int64_t)sum;
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}
