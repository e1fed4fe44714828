/*
 * helia-aot kernel library: the Helium blocks of hk_fully_connected_s8_s4 (see
 * hk_fully_connected_s4.h).
 */
#include "hk_fully_connected_s4.h"

#include "hk_isa.h"

#if HK_HAVE_MVE

/* Thirty-two weights per step: sixteen bytes split into the even (low nibble) and odd (high
 * nibble) weights, multiplied with the even and odd inputs of a two-way load. */
uint32_t hk_fc_dot_s4_blocks(const int8_t *x, const uint8_t *w, int32_t depth, uint32_t acc,
                             int32_t *done)
{
    int32_t sum = (int32_t)acc;
    int32_t d = 0;
    for (; d + 32 <= depth; d += 32) {
        const int8x16_t bytes = vreinterpretq_s8_u8(vld1q_u8(w + (d >> 1)));
        const int8x16x2_t xs = vld2q_s8(x + d);
        sum = vmladavaq_s8(sum, vshrq_n_s8(vshlq_n_s8(bytes, 4), 4), xs.val[0]);
        sum = vmladavaq_s8(sum, vshrq_n_s8(bytes, 4), xs.val[1]);
    }
    *done = d;
    return (uint32_t)sum;
}

#endif /* HK_HAVE_MVE */
