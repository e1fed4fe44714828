/*
 * helia-aot kernel library: the float16 RELU clamp on Helium with MVE-F (see hk_activation_f16.h).
 *
 * VMAXNM / VMINNM against the bounds as float16 (hk_f16_bound), as the reference clamps.
 */
#include "hk_activation_f16.h"

#if HK_HAVE_MVE_F16

void hk_relu_f16_mve(const hk_relu_f16_params_t *params, const hk_f16_t *in, hk_f16_t *out, size_t size)
{
    const float16x8_t lo = vdupq_n_f16(hk_f16_bound(params->lo));
    const float16x8_t hi = vdupq_n_f16(hk_f16_bound(params->hi));
    int32_t n = (int32_t)size;
    while (n > 0) {
        const mve_pred16_t pred = vctp16q((uint32_t)n);
        const float16x8_t x = vldrhq_z_f16((const float16_t *)in, pred);
        vstrhq_p_f16((float16_t *)out, vminnmq_f16(vmaxnmq_f16(x, lo), hi), pred);
        in += 8;
        out += 8;
        n -= 8;
    }
}

#endif /* HK_HAVE_MVE_F16 */
