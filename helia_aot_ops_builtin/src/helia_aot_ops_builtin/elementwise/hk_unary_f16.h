/*
 * helia-aot kernel library: float16 ABS, NEG, SQRT and RSQRT.
 *
 * One flat loop each over float16 elements (the output may share the input's storage). ABS and
 * NEG are exact (Helium with MVE-F: vabsq_f16 / vnegq_f16); SQRT and RSQRT evaluate the float
 * reference formula in float and round the result once to float16.
 */
#ifndef HK_UNARY_F16_H
#define HK_UNARY_F16_H

#include "hk_f16.h"

int32_t hk_abs_f16(const uint16_t *input, uint16_t *output, size_t size);
int32_t hk_neg_f16(const uint16_t *input, uint16_t *output, size_t size);
int32_t hk_sqrt_f16(const uint16_t *input, uint16_t *output, size_t size);
int32_t hk_rsqrt_f16(const uint16_t *input, uint16_t *output, size_t size);

#if HK_HAVE_MVE_F16
/* Internal to the family (hk_unary_f16_mve.c): ABS and NEG of `size` elements on Helium, eight
 * lanes at a time with tail predication. */
void hk_abs_f16_mve(const hk_f16_t *in, hk_f16_t *out, size_t size);
void hk_neg_f16_mve(const hk_f16_t *in, hk_f16_t *out, size_t size);
#endif

#endif /* HK_UNARY_F16_H */
