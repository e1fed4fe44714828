/*
 * helia-aot kernel library: the DSP-extension blocks of hk_conv_s8_s4 (see hk_conv_s4.h).
 */
#include "hk_conv_s4.h"

#include <string.h>

#include "hk_isa.h"

#if HK_HAVE_DSP

/* Four weights per step: two bytes spread into the halves of a word, their low nibbles (weights
 * c and c+2) and high nibbles (c+1 and c+3) sign-extended per half by subtracting 16 where bit 3
 * is set, then SMLAD against the input word's even and odd bytes, sign-extended with the input
 * offset added by SXTAB16 (an int8 input plus its offset fits a half). */
int32_t hk_conv_dot_s4_blocks(const int8_t *x, const uint8_t *w, int32_t len, int32_t in_offset,
                              int32_t acc, int32_t *done)
{
    const int32_t offsets = (int32_t)(((uint32_t)in_offset & 0xFFFFu) * 0x00010001u);
    int32_t sum = acc;
    int32_t c = 0;
    for (; c + 4 <= len; c += 4) {
        uint32_t xv;
        memcpy(&xv, x + c, sizeof xv);
        const uint32_t pair = (uint32_t)w[c >> 1] | ((uint32_t)w[(c >> 1) + 1] << 16);
        const uint32_t lo = pair & 0x000F000Fu;
        const uint32_t hi = (pair >> 4) & 0x000F000Fu;
        const int16x2_t wlo = (int16x2_t)__ssub16((int16x2_t)lo, (int16x2_t)((lo & 0x00080008u) << 1));
        const int16x2_t whi = (int16x2_t)__ssub16((int16x2_t)hi, (int16x2_t)((hi & 0x00080008u) << 1));
        sum = __smlad(wlo, __sxtab16(offsets, (int32_t)xv), sum);
        sum = __smlad(whi, __sxtab16(offsets, (int32_t)(xv >> 8)), sum);
    }
    *done = c;
    return sum;
}

#endif /* HK_HAVE_DSP */
