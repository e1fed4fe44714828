/* Saturating int8 gain-and-clip of the helia-aot-example-ops pack.
 *
 * Every identifier carries the kernel-library prefix, which the converter replaces with the module's
 * prefix when it copies this file into a module; "exops" keeps the names apart from other packs'. */
#ifndef HK_EXOPS_GAIN_CLIP_H
#define HK_EXOPS_GAIN_CLIP_H

#include <stddef.h>
#include <stdint.h>

/* Kernel status codes; the operator adds them to <prefix>_status_custom_first. */
#define HK_EXOPS_GAIN_CLIP_OK 0
#define HK_EXOPS_GAIN_CLIP_NULL_TENSOR 1
#define HK_EXOPS_GAIN_CLIP_BAD_PARAMS 2

typedef struct {
    int32_t input_offset;  /* minus the input zero point */
    int32_t output_offset; /* the output zero point */
    int32_t gain;          /* signed integer multiplier, -32768..32767 */
    int32_t shift;         /* right shift after the multiply, 0..24, rounding half away from zero */
    int32_t clip_min;      /* lowest output value, -128..clip_max */
    int32_t clip_max;      /* highest output value, clip_min..127 */
} hk_exops_gain_clip_params_t;

/* y = clamp(round((x + input_offset) * gain / 2^shift) + output_offset, clip_min, clip_max).
 * Reads each element before writing it, so input and output may be the same buffer. */
int32_t hk_exops_gain_clip_s8(const hk_exops_gain_clip_params_t *params, const int8_t *input,
                              int8_t *output, int32_t size);

#endif /* HK_EXOPS_GAIN_CLIP_H */
