/*
 * helia-aot kernel library: CONV_2D int8, the general loop alone (the `kernel: generic` knob).
 *
 * A family of its own so that hk_conv.c, whose inlining decisions set the speed of the fast
 * paths, compiles exactly as it does without this entry; a module whose convolutions all run
 * generic calls nothing of hk_conv.c, so the linker drops the fast paths.
 */
#ifndef HK_CONV_GENERIC_H
#define HK_CONV_GENERIC_H

#include "hk_conv.h"

/* int8, one general loop: ignores offset_bias and scratch; same outputs as hk_conv_s8. */
int32_t hk_conv_s8_generic(const hk_conv_params_t *params, const int8_t *input,
                           const int8_t *filter, const int32_t *bias, int8_t *output);

#endif /* HK_CONV_GENERIC_H */
