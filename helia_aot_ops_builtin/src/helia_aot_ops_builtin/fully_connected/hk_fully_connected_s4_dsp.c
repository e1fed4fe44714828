/*
 * helia-aot kernel library: the DSP-extension blocks of hk_fully_connected_s8_s4 (see
 * hk_fully_connected_s4.h).
 */
#include "hk_fully_connected_s4.h"

#include <string.h>

#include "hk_isa.h"

#if HK_HAVE_DSP

/* Four weights per step: two bytes as the halves of weights d, d+2 and d+1, d+3
 * (hk_s4_halves_dsp), then SMLAD against the input word's sign-extended even and odd bytes. */
uint32_t hk_fc_dot_s4_blocks(const int8_t *x, const uint8_t *w, int32_t depth, uint32_t acc,
                             int32_t *done)
{
    int32_t sum = (int32_t)acc;
    int32_t d = 0;
    for (; d + 4 <= depth; d += 4) {
        uint32_t xv;
        memcpy(&xv, x + d, sizeof xv);
        int16x2_t wlo, whi;
        hk_s4_halves_dsp(w + (d >> 1), &wlo, &whi);
        sum = __smlad(wlo, __sxtb16((int32_t)xv), sum);
        sum = __smlad(whi, __sxtb16((int32_t)(xv >> 8)), sum);
    }
    *done = d;
    return (uint32_t)sum;
}

#endif /* HK_HAVE_DSP */
