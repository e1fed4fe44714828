/*
 * helia-aot kernel library: packed int4 weights.
 *
 * LiteRT stores an INT4 tensor two values per byte: element 2i in the low nibble of byte i,
 * element 2i+1 in the high nibble, each a 4-bit two's-complement number (-8..7); an odd count
 * leaves the last high nibble unused. The module keeps such weights packed (half the constant
 * bytes of int8). An operator either unpacks them once per run into an int8 scratch buffer and
 * runs its int8 kernel on it (hk_unpack_s4), or runs a kernel that reads the nibbles where it
 * multiplies (hk_fully_connected_s4). LiteRT's reference kernels unpack to int8 and compute as
 * int8, so both give the int8 kernels' results bit for bit.
 */
#ifndef HK_INT4_H
#define HK_INT4_H

#include "hk_common.h"
#include "hk_isa.h"

/* Element `index` of packed int4 data, sign-extended. */
HK_INLINE int32_t hk_s4_at(const uint8_t *packed, int32_t index)
{
    const uint32_t byte = packed[(uint32_t)index >> 1];
    const uint32_t nibble = (index & 1) ? (byte >> 4) : (byte & 0x0Fu);
    return (int32_t)(nibble ^ 0x08u) - 8;
}

#if HK_HAVE_DSP
/* Four int4 values from the bytes w[0] and w[1] as two pairs of 16-bit halves, for SMLAD and its
 * kin: *even gets values 0 and 2 (the low nibbles), *odd values 1 and 3 (the high nibbles), each
 * sign-extended per half by subtracting 16 where bit 3 is set. */
HK_INLINE void hk_s4_halves_dsp(const uint8_t *w, int16x2_t *even, int16x2_t *odd)
{
    const uint32_t pair = (uint32_t)w[0] | ((uint32_t)w[1] << 16);
    const uint32_t lo = pair & 0x000F000Fu;
    const uint32_t hi = (pair >> 4) & 0x000F000Fu;
    *even = (int16x2_t)__ssub16((int16x2_t)lo, (int16x2_t)((lo & 0x00080008u) << 1));
    *odd = (int16x2_t)__ssub16((int16x2_t)hi, (int16x2_t)((hi & 0x00080008u) << 1));
}
#endif

/*
 * Channel words: goal size's per-channel parameters of the int4 per-use convolutions
 * (hk_conv_s8_s4, hk_depthwise_s8_s4), one int32 per output channel in place of an int32 bias
 * and an int32 shift: bias * 256 + (shift & 255), the requantization shift (in [-31, 31]) in the
 * low byte and the bias (in [-2^23, 2^23)) in the upper 24 bits. The multiplier keeps its own
 * int32. Four bytes a channel instead of eight; the converter packs them where every bias fits.
 */
HK_INLINE int32_t hk_channel_word_shift(int32_t word)
{
    return (int32_t)(((uint32_t)word & 0xFFu) ^ 0x80u) - 0x80;
}

HK_INLINE int32_t hk_channel_word_bias(int32_t word)
{
    return word >> 8; /* arithmetic: the low byte is the shift's, 0..255 */
}

/* Unpacks `count` int4 values into int8 `out` (Helium: 32 values per iteration, interleaved by
 * a two-way store; elsewhere one byte at a time). */
int32_t hk_unpack_s4(const uint8_t *packed, int8_t *out, int32_t count);

/* Helium's part of hk_unpack_s4 (hk_int4_mve.c): the first whole 32-value blocks of `count`;
 * returns how many values it wrote. */
int32_t hk_unpack_s4_blocks(const uint8_t *packed, int8_t *out, int32_t count);

#endif /* HK_INT4_H */
