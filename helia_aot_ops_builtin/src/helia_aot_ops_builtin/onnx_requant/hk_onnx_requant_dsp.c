/*
 * helia-aot kernel library: the DSP-extension path of the ONNX-requantization kernels (see
 * hk_onnx_requant_paths.h). Compiles to nothing on cores without it.
 */
#include "hk_onnx_requant_paths.h"
#include "hk_simd.h"

#if HK_HAVE_DSP

int32_t hk_onnx_dot_s8_fast(const int8_t *x, const int8_t *w, int32_t n, int32_t x_offset)
{
    /* Two taps per SMLAD: SXTB16 spreads bytes 0 and 2 (and, after a rotate, 1 and 3) into
     * halfwords, SADD16 adds the offset to both. */
    const int32_t offset2 = (int32_t)(((uint32_t)(uint16_t)x_offset << 16) | (uint16_t)x_offset);
    int32_t acc = 0;
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t xw, ww;
        memcpy(&xw, x + i, 4);
        memcpy(&ww, w + i, 4);
        const int32_t x02 = __sadd16(hk_sxtb16_even(xw), offset2);
        const int32_t x13 = __sadd16(hk_sxtb16_odd(xw), offset2);
        acc = __smlad(x02, hk_sxtb16_even(ww), acc);
        acc = __smlad(x13, hk_sxtb16_odd(ww), acc);
    }
    for (; i < n; ++i) {
        acc += ((int32_t)x[i] + x_offset) * (int32_t)w[i];
    }
    return acc;
}

#endif /* HK_HAVE_DSP */
