/*
 * helia-aot kernel library: the DSP-extension block of hk_depthwise_s8_s4 (see
 * hk_depthwise_s4.h).
 */
#include "hk_depthwise_s4.h"

#include <string.h>

#if HK_HAVE_DSP

/* Four channels per tap: their input word's even and odd bytes sign-extended into halves with
 * the input offset added (SXTAB16), their two weight bytes as the halves of channels 0, 2 and
 * 1, 3 (hk_s4_halves_dsp); one half-by-half multiply-accumulate per channel (SMLABB, SMLATT). */
void hk_depthwise_s4_block(const uint8_t *filter, const hk_depthwise_window_t *win, size_t oc,
                           int32_t *acc)
{
    const int32_t offsets = (int32_t)(((uint32_t)win->in_offset & 0xFFFFu) * 0x00010001u);
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int32_t fy = win->fy0; fy < win->fy1; ++fy) {
        const int32_t iy = win->iy0 + fy * win->dilation_height;
        for (int32_t fx = win->fx0; fx < win->fx1; ++fx) {
            const int32_t ix = win->ix0 + fx * win->dilation_width;
            const int8_t *x = win->image + ((size_t)iy * win->in_w + (size_t)ix) * win->in_c + oc;
            const uint8_t *w = filter + ((((size_t)fy * win->filter_w + (size_t)fx) * win->out_c + oc) >> 1);
            uint32_t xv;
            memcpy(&xv, x, sizeof xv);
            const int16x2_t x02 = (int16x2_t)__sxtab16(offsets, (int32_t)xv);
            const int16x2_t x13 = (int16x2_t)__sxtab16(offsets, (int32_t)(xv >> 8));
            int16x2_t w02, w13;
            hk_s4_halves_dsp(w, &w02, &w13);
            s0 = __smlabb(w02, x02, s0);
            s2 = __smlatt(w02, x02, s2);
            s1 = __smlabb(w13, x13, s1);
            s3 = __smlatt(w13, x13, s3);
        }
    }
    acc[0] = s0;
    acc[1] = s1;
    acc[2] = s2;
    acc[3] = s3;
}

#endif /* HK_HAVE_DSP */
