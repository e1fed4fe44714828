/*
 * helia-aot kernel library: the Helium blocks of hk_conv_s8_s4 (see hk_conv_s4.h).
 */
#include "hk_conv_s4.h"

#include "hk_isa.h"

#if HK_HAVE_MVE

/* Thirty-two weights per step: sixteen bytes split into the even (low nibble) and odd (high
 * nibble) weights, multiplied with the even and odd inputs of a two-way load; the last step
 * gathers the even and odd inputs under predicates, so nothing past the run is read but the
 * last weight byte. The input offset is added once at the end, times the sum of the weights
 * read (the reference adds it to every input: the same integers). */
int32_t hk_conv_dot_s4_blocks(const int8_t *x, const uint8_t *w, int32_t len, int32_t in_offset,
                              int32_t acc, int32_t *done)
{
    int32_t dot = 0, sum = 0;
    int32_t c = 0;
    for (; c + 32 <= len; c += 32) {
        const int8x16_t bytes = vreinterpretq_s8_u8(vld1q_u8(w + (c >> 1)));
        const int8x16x2_t xs = vld2q_s8(x + c);
        const int8x16_t even = vshrq_n_s8(vshlq_n_s8(bytes, 4), 4);
        const int8x16_t odd = vshrq_n_s8(bytes, 4);
        dot = vmladavaq_s8(dot, even, xs.val[0]);
        dot = vmladavaq_s8(dot, odd, xs.val[1]);
        sum = vaddvaq_s8(sum, even);
        sum = vaddvaq_s8(sum, odd);
    }
    if (c < len) {
        const uint32_t rest = (uint32_t)(len - c);
        const mve_pred16_t evens = vctp8q((rest + 1u) >> 1);
        const mve_pred16_t odds = vctp8q(rest >> 1);
        const uint8x16_t steps = vmulq_n_u8(vidupq_n_u8(0, 1), 2);
        const int8x16_t bytes = vreinterpretq_s8_u8(vldrbq_z_u8(w + (c >> 1), evens));
        const int8x16_t xe = vldrbq_gather_offset_z_s8(x + c, steps, evens);
        const int8x16_t xo = vldrbq_gather_offset_z_s8(x + c + 1, steps, odds);
        const int8x16_t even = vshrq_n_s8(vshlq_n_s8(bytes, 4), 4);
        const int8x16_t odd = vshrq_n_s8(bytes, 4);
        dot = vmladavaq_s8(dot, even, xe);
        dot = vmladavaq_s8(dot, odd, xo);
        sum = vaddvaq_p_s8(sum, even, evens);
        sum = vaddvaq_p_s8(sum, odd, odds);
        c = len;
    }
    *done = c;
    return (int32_t)((uint32_t)acc + (uint32_t)dot + (uint32_t)sum * (uint32_t)in_offset);
}

#endif /* HK_HAVE_MVE */
