/*
 * helia-aot kernel library: QUANTIZE float32 -> float16 (see hk_quantize_f16.h).
 */
#include "hk_quantize_f16.h"

/* Follows LiteRT's float32 -> float16 conversion (fp16_ieee_from_fp32_value: round to nearest
 * even, overflow to infinity). Walks forwards reading before writing, so the output may alias
 * the input's storage. */
int32_t hk_quantize_f32_f16(int32_t size, const float *input, uint16_t *output)
{
    if (size < 0 || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    for (int32_t i = 0; i < size; ++i) {
        out[i] = hk_f16_round(input[i]);
    }
    return HK_STATUS_OK;
}
