#include "hk_exops_gain_clip.h"

/* Follows the pack's numpy reference helia_aot_example_ops.reference.gain_clip (int8). */
int32_t hk_exops_gain_clip_s8(const hk_exops_gain_clip_params_t *params, const int8_t *input,
                              int8_t *output, int32_t size)
{
    if (params == NULL || input == NULL || output == NULL) {
        return HK_EXOPS_GAIN_CLIP_NULL_TENSOR;
    }
    if (params->shift < 0 || params->shift > 24 || params->clip_min > params->clip_max ||
        params->clip_min < INT8_MIN || params->clip_max > INT8_MAX || params->gain < INT16_MIN ||
        params->gain > INT16_MAX) {
        return HK_EXOPS_GAIN_CLIP_BAD_PARAMS;
    }
    /* |x + offset| <= 255 and |gain| <= 32768, so the product stays below 2^23 and the rounding
     * term below 2^24: int32_t never overflows. */
    const int32_t half = params->shift > 0 ? (int32_t)1 << (params->shift - 1) : 0;
    for (int32_t i = 0; i < size; ++i) {
        const int32_t product = ((int32_t)input[i] + params->input_offset) * params->gain;
        /* Shift the magnitude, not the signed value: right-shifting a negative int is
         * implementation-defined in C99, and rounding must be symmetric about zero. */
        const int32_t magnitude = product < 0 ? -product : product;
        const int32_t rounded = (magnitude + half) >> params->shift;
        int32_t value = (product < 0 ? -rounded : rounded) + params->output_offset;
        if (value < params->clip_min) {
            value = params->clip_min;
        } else if (value > params->clip_max) {
            value = params->clip_max;
        }
        output[i] = (int8_t)value;
    }
    return HK_EXOPS_GAIN_CLIP_OK;
}
