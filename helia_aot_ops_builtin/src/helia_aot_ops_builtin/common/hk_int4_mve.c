/*
 * helia-aot kernel library: the Helium part of hk_unpack_s4 (see hk_int4.h).
 */
#include "hk_int4.h"

#include "hk_isa.h"

#if HK_HAVE_MVE

/* Sixteen bytes give sixteen low and sixteen high nibbles: the low ones sign-extended by a left
 * then an arithmetic right shift, the high ones by the right shift alone; the two-way
 * interleaving store writes them in element order. */
int32_t hk_unpack_s4_blocks(const uint8_t *packed, int8_t *out, int32_t count)
{
    int32_t i = 0;
    for (; i + 32 <= count; i += 32) {
        const int8x16_t bytes = vreinterpretq_s8_u8(vld1q_u8(packed + (i >> 1)));
        int8x16x2_t pair;
        pair.val[0] = vshrq_n_s8(vshlq_n_s8(bytes, 4), 4);
        pair.val[1] = vshrq_n_s8(bytes, 4);
        vst2q_s8(out + i, pair);
    }
    return i;
}

#endif /* HK_HAVE_MVE */
