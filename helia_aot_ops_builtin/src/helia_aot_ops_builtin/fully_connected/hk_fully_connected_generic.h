/*
 * helia-aot kernel library: FULLY_CONNECTED int8, row-major weights one unit at a time (the
 * `kernel: generic` knob).
 *
 * A family of its own so that hk_fully_connected.c, whose inlining decisions set the speed of
 * the packed paths, compiles exactly as it does without this entry; a module whose fully
 * connected layers all run generic calls nothing of hk_fully_connected.c, so the linker drops
 * the packed paths.
 */
#ifndef HK_FULLY_CONNECTED_GENERIC_H
#define HK_FULLY_CONNECTED_GENERIC_H

#include "hk_fully_connected.h"

/* int8 with a row-major filter (packed_filter must be 0; folded_bias is not read); same outputs
 * as hk_fully_connected_s8. */
int32_t hk_fully_connected_s8_generic(const hk_fully_connected_params_t *params,
                                      const int8_t *input, const int8_t *filter,
                                      const int32_t *bias, int8_t *output);

#endif /* HK_FULLY_CONNECTED_GENERIC_H */
