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

void hk_onnx_dw_sums_fast(const hk_onnx_dw_window_t *window, int32_t c0, int32_t n, int32_t *acc)
{
    /* A local copy: the sums stored through acc could alias *window's int32 fields, which would
     * then be read again for every four channels. */
    const hk_onnx_dw_window_t copy = *window, *t = &copy;
    const int32_t offsets = hk_dup_s16x2(t->offset);
    int32_t j = 0;
    for (; j + 4 <= n; j += 4) {
        const int32_t c = c0 + j;
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        if (t->bias != NULL) {
            a0 = t->bias[c];
            a1 = t->bias[c + 1];
            a2 = t->bias[c + 2];
            a3 = t->bias[c + 3];
        }
        const int8_t *xr = t->x + c, *wr = t->w + c;
        for (int32_t r = 0; r < t->rows; ++r, xr += t->x_row, wr += t->w_row) {
            const int8_t *x = xr, *w = wr;
            for (int32_t k = 0; k < t->cols; ++k, x += t->x_col, w += t->w_col) {
                const uint32_t xb = hk_load_u32(x), wb = hk_load_u32(w);
                const int32_t x02 = hk_sxtab16_even(offsets, xb), x13 = hk_sxtab16_odd(offsets, xb);
                const int32_t w02 = hk_sxtb16_even(wb), w13 = hk_sxtb16_odd(wb);
                a0 = __smlabb(x02, w02, a0);
                a2 = __smlatt(x02, w02, a2);
                a1 = __smlabb(x13, w13, a1);
                a3 = __smlatt(x13, w13, a3);
            }
        }
        acc[j] = a0;
        acc[j + 1] = a1;
        acc[j + 2] = a2;
        acc[j + 3] = a3;
    }
    for (; j < n; ++j) {
        const int32_t c = c0 + j;
        int32_t sum = t->bias != NULL ? t->bias[c] : 0;
        const int8_t *xr = t->x + c, *wr = t->w + c;
        for (int32_t r = 0; r < t->rows; ++r, xr += t->x_row, wr += t->w_row) {
            for (int32_t k = 0; k < t->cols; ++k) {
                sum += ((int32_t)xr[(size_t)k * t->x_col] + t->offset) * (int32_t)wr[(size_t)k * t->w_col];
            }
        }
        acc[j] = sum;
    }
}

#endif /* HK_HAVE_DSP */
