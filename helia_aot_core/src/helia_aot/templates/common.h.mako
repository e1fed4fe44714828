/* ${prefix}_common.h: what every file of the module includes. */
#ifndef ${PREFIX}_COMMON_H
#define ${PREFIX}_COMMON_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "${prefix}_platform.h"
#include "${prefix}_tensors.h"
#include "${prefix}_context.h"

/* Byte copy kept for operator packs written against CMSIS-NN's helper of this name. Every module
 * defines the same one, so a file that includes two modules' headers takes the first. */
#if !defined(${PREFIX}_NO_ARM_MEMCPY_S8) && !defined(HELIA_AOT_ARM_MEMCPY_S8)
#define HELIA_AOT_ARM_MEMCPY_S8
static inline void arm_memcpy_s8(int8_t *dst, const int8_t *src, int32_t block_size)
{
    memcpy(dst, src, (size_t)block_size);
}
#endif
% if itcm_operators:

/* Run code placed in ITCM by operators[] rules (code_placement: ITCM). Every operator source
 * includes this header before defining its run function, so the placement macro on these
 * declarations applies to the definitions. */
#ifdef __cplusplus
extern "C" {
#endif
% for op in itcm_operators:
int32_t ${op.stem}_run(${prefix}_model_context_t *ctx) ${PREFIX}_PUT_CODE_IN_ITCM;
% endfor
#ifdef __cplusplus
}
#endif
% endif

#endif /* ${PREFIX}_COMMON_H */
