/*
 * helia-aot kernel library: the DSP-extension blocks of hk_conv_s8_s4 (see hk_conv_s4.h).
 */
#include "hk_conv_s4.h"

#include <string.h>

#include "hk_isa.h"

#if HK_HAVE_DSP

/* Four weights per step: two bytes as the halves of weights c, c+2 and c+1, c+3
 * (hk_s4_halves_dsp), then SMLAD against the input word's even and odd bytes, sign-extended with
 * the input offset added by SXTAB16 (an int8 input plus its offset fits a half). */
int32_t hk_conv_dot_s4_blocks(const int8_t *x, const uint8_t *w, int32_t len, int32_t in_offset,
                              int32_t acc, int32_t *done)
{
    const int32_t offsets = (int32_t)(((uint32_t)in_offset & 0xFFFFu) * 0x00010001u);
    int32_t sum = acc;
    int32_t c = 0;
    for (; c + 4 <= len; c += 4) {
        uint32_t xv;
        memcpy(&xv, x + c, sizeof xv);
        int16x2_t wlo, whi;
        hk_s4_halves_dsp(w + (c >> 1), &wlo, &whi);
        sum = __smlad(wlo, __sxtab16(offsets, (int32_t)xv), sum);
        sum = __smlad(whi, __sxtab16(offsets, (int32_t)(xv >> 8)), sum);
    }
    *done = c;
    return sum;
}

#endif /* HK_HAVE_DSP */
