/*
 * helia-aot kernel library: the DSP-extension blocks of hk_fully_connected_s8_s4 (see
 * hk_fully_connected_s4.h).
 */
#include "hk_fully_connected_s4.h"

#include <string.h>

#include "hk_isa.h"

#if HK_HAVE_DSP

/* Four weights per step: two bytes spread into the halves of a word, their low nibbles (weights
 * d and d+2) and high nibbles (d+1 and d+3) sign-extended per half by subtracting 16 where bit 3
 * is set, then SMLAD against the input word's sign-extended even and odd bytes. */
uint32_t hk_fc_dot_s4_blocks(const int8_t *x, const uint8_t *w, int32_t depth, uint32_t acc,
                             int32_t *done)
{
    int32_t sum = (int32_t)acc;
    int32_t d = 0;
    for (; d + 4 <= depth; d += 4) {
        uint32_t xv;
        memcpy(&xv, x + d, sizeof xv);
        const uint32_t pair = (uint32_t)w[d >> 1] | ((uint32_t)w[(d >> 1) + 1] << 16);
        const uint32_t lo = pair & 0x000F000Fu;
        const uint32_t hi = (pair >> 4) & 0x000F000Fu;
        const int16x2_t wlo = (int16x2_t)__ssub16((int16x2_t)lo, (int16x2_t)((lo & 0x00080008u) << 1));
        const int16x2_t whi = (int16x2_t)__ssub16((int16x2_t)hi, (int16x2_t)((hi & 0x00080008u) << 1));
        sum = __smlad(wlo, __sxtb16((int32_t)xv), sum);
        sum = __smlad(whi, __sxtb16((int32_t)(xv >> 8)), sum);
    }
    *done = d;
    return (uint32_t)sum;
}

#endif /* HK_HAVE_DSP */
