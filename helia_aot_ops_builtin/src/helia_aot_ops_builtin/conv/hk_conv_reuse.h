/*
 * helia-aot kernel library: int8 CONV_2D whose fast-path scratch lives in the operator's own
 * dead bytes (the memory-aware kernel choice at goal balanced).
 *
 * At the step where the tensors alone fill the scratch arena, a separate scratch buffer would
 * raise the arena. Two stretches of memory are still free there: the output rows the
 * convolution has not written yet, and, when the input dies at this operator (the converter
 * checks that), the input rows no remaining window reads. hk_conv_s8_reuse runs hk_conv_s8's
 * fast path over bands of output rows, each band with its scratch in one of those stretches,
 * so it runs the same paths (and gives the same integers) as hk_conv_s8 with a buffer of its
 * own. A band for which neither stretch is large enough runs without scratch (as hk_conv_s8
 * does then); the converter only picks this kernel where that does not happen.
 *
 * A separate family so that hk_conv.c compiles exactly as it does without this entry.
 */
#ifndef HK_CONV_REUSE_H
#define HK_CONV_REUSE_H

#include "hk_conv.h"

/* int8, as hk_conv_s8 (params->scratch is ignored). The input's bytes are overwritten: call it
 * only when nothing reads the input after this operator. */
int32_t hk_conv_s8_reuse(const hk_conv_params_t *params, int8_t *input, const int8_t *filter,
                         const int32_t *bias, int8_t *output);

#endif /* HK_CONV_REUSE_H */
