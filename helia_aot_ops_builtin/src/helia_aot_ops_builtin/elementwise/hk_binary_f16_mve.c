/*
 * helia-aot kernel library: float16 ADD, SUB, MUL, MAXIMUM and MINIMUM runs on Helium with MVE-F
 * (see hk_binary_f16.h).
 *
 * The arithmetic runs clamp with VMAXNM / VMINNM against the bounds as float16 (hk_f16_bound);
 * MAXIMUM / MINIMUM select with the reference's comparison (a > b ? a : b), so a NaN in input 1
 * picks input 2. hk_binary_f16.c takes DIV and SQUARED_DIFFERENCE, which have no lanes here.
 */
#include "hk_binary_f16.h"

#if HK_HAVE_MVE_F16

/* One run: eight lanes at a time, the tail predicated; OP(x, y) is the lane's result. */
#define HK_BINARY_F16_RUN_MVE(NAME, OP)                                                        \
    void NAME(const hk_binary_f16_params_t *p, const hk_f16_t *a, const hk_f16_t *b, hk_f16_t *out, \
              int32_t n)                                                                       \
    {                                                                                          \
        const float16x8_t lo = vdupq_n_f16(hk_f16_bound(p->float_min));                        \
        const float16x8_t hi = vdupq_n_f16(hk_f16_bound(p->float_max));                        \
        (void)lo;                                                                              \
        (void)hi;                                                                              \
        while (n > 0) {                                                                        \
            const mve_pred16_t pred = vctp16q((uint32_t)n);                                    \
            const float16x8_t x = vldrhq_z_f16((const float16_t *)a, pred);                    \
            const float16x8_t y = vldrhq_z_f16((const float16_t *)b, pred);                    \
            vstrhq_p_f16((float16_t *)out, OP, pred);                                          \
            a += 8;                                                                            \
            b += 8;                                                                            \
            out += 8;                                                                          \
            n -= 8;                                                                            \
        }                                                                                      \
    }

HK_BINARY_F16_RUN_MVE(hk_add_f16_run_mve, vminnmq_f16(vmaxnmq_f16(vaddq_f16(x, y), lo), hi))
HK_BINARY_F16_RUN_MVE(hk_sub_f16_run_mve, vminnmq_f16(vmaxnmq_f16(vsubq_f16(x, y), lo), hi))
HK_BINARY_F16_RUN_MVE(hk_mul_f16_run_mve, vminnmq_f16(vmaxnmq_f16(vmulq_f16(x, y), lo), hi))
HK_BINARY_F16_RUN_MVE(hk_maximum_f16_run_mve, vpselq_f16(x, y, vcmpgtq_f16(x, y)))
HK_BINARY_F16_RUN_MVE(hk_minimum_f16_run_mve, vpselq_f16(x, y, vcmpltq_f16(x, y)))

#endif /* HK_HAVE_MVE_F16 */
