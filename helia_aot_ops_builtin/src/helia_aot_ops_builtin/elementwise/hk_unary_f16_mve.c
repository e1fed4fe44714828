/*
 * helia-aot kernel library: float16 ABS and NEG on Helium with MVE-F (see hk_unary_f16.h).
 *
 * Exact like the reference: VABS / VNEG change only the sign bit.
 */
#include "hk_unary_f16.h"

#if HK_HAVE_MVE_F16

/* Eight lanes at a time, the tail predicated (nothing read or written past `size`). */
#define HK_UNARY_F16_MVE(NAME, VOP)                                                            \
    void NAME(const hk_f16_t *in, hk_f16_t *out, size_t size)                                  \
    {                                                                                          \
        int32_t n = (int32_t)size;                                                             \
        while (n > 0) {                                                                        \
            const mve_pred16_t pred = vctp16q((uint32_t)n);                                    \
            const float16x8_t x = vldrhq_z_f16((const float16_t *)in, pred);                   \
            vstrhq_p_f16((float16_t *)out, VOP(x), pred);                                      \
            in += 8;                                                                           \
            out += 8;                                                                          \
            n -= 8;                                                                            \
        }                                                                                      \
    }

HK_UNARY_F16_MVE(hk_abs_f16_mve, vabsq_f16)
HK_UNARY_F16_MVE(hk_neg_f16_mve, vnegq_f16)

#endif /* HK_HAVE_MVE_F16 */
