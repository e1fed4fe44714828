/*
 * helia-aot kernel library: DEPTHWISE_CONV_2D int8, the general loop alone (`kernel: generic`).
 *
 * A family of its own so that hk_depthwise.c, whose inlining decisions set the speed of the fast
 * paths, compiles exactly as it does without this entry; a module whose depthwise convolutions
 * all run generic calls nothing of hk_depthwise.c, so the linker drops the fast paths.
 */
#ifndef HK_DEPTHWISE_GENERIC_H
#define HK_DEPTHWISE_GENERIC_H

#include "hk_depthwise.h"

/* int8, one general loop: ignores offset_bias; same outputs as hk_depthwise_s8. */
int32_t hk_depthwise_s8_generic(const hk_depthwise_params_t *params, const int8_t *input,
                                const int8_t *filter, const int32_t *bias, int8_t *output);

#endif /* HK_DEPTHWISE_GENERIC_H */
