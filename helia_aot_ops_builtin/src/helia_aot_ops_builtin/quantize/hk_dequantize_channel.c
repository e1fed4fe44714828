/*
 * helia-aot kernel library: DEQUANTIZE per channel (see hk_dequantize_channel.h).
 */
#include "hk_dequantize_channel.h"

/* Follows LiteRT reference_ops::PerChannelDequantize<int8_t>. */
int32_t hk_dequantize_channel_s8_f32(const hk_quantize_channel_params_t *params,
                                     const float *scales, const int32_t *zero_points,
                                     const int8_t *input, float *output)
{
    if (params == NULL || params->outer < 0 || params->channels < 1 || params->inner < 0 ||
        scales == NULL || zero_points == NULL || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    size_t i = 0;
    for (int32_t o = 0; o < params->outer; ++o) {
        for (int32_t c = 0; c < params->channels; ++c) {
            const float scale = scales[c];
            const int32_t zero_point = zero_points[c];
            for (int32_t n = 0; n < params->inner; ++n, ++i) {
                output[i] = scale * (float)((int32_t)input[i] - zero_point);
            }
        }
    }
    return HK_STATUS_OK;
}
