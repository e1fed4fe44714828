/* ${prefix}_common.h: what every file of the module includes. */
#ifndef ${PREFIX}_COMMON_H
#define ${PREFIX}_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "${prefix}_platform.h"
#include "${prefix}_context.h"

/* Status codes: 0 is success, small positive codes are the module's own, kernel failures are
 * 64-127, and ${prefix}_status_custom_first..last belong to custom operators. */
enum {
    ${prefix}_status_ok = 0,
    ${prefix}_status_null_context = 1,
    ${prefix}_status_not_initialized = 2,
    ${prefix}_status_arena_unbound = 3,
    ${prefix}_status_arena_too_small = 4,
    ${prefix}_status_arena_misaligned = 5,
    ${prefix}_status_bad_arena_id = 6,
    ${prefix}_status_custom_first = 1000,
    ${prefix}_status_custom_last = 1999
};

/* Byte copy kept for operator packs written against CMSIS-NN's helper of this name. */
#ifndef ${PREFIX}_NO_ARM_MEMCPY_S8
static inline void arm_memcpy_s8(int8_t *dst, const int8_t *src, int32_t block_size)
{
    memcpy(dst, src, (size_t)block_size);
}
#endif
% if itcm_operators:

/* Run code placed in ITCM by operators[] rules (code_placement: ITCM). Every operator source
 * includes this header before defining its run function, so the placement macro on these
 * declarations applies to the definitions. */
% for op in itcm_operators:
int32_t ${op.stem}_run(${prefix}_model_context_t *ctx) ${PREFIX}_PUT_CODE_IN_ITCM;
% endfor
% endif

#endif /* ${PREFIX}_COMMON_H */
