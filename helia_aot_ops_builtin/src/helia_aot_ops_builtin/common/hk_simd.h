/*
 * helia-aot kernel library: small helpers the fast kernels share (unaligned words, byte runs,
 * DSP byte widening), each written for the instruction set hk_isa.h chose.
 */
#ifndef HK_SIMD_H
#define HK_SIMD_H

#include "hk_common.h"
#include "hk_isa.h"

/* Four bytes from any address as one word (memcpy compiles to a single unaligned load). */
HK_INLINE uint32_t hk_load_u32(const void *src)
{
    uint32_t value;
    memcpy(&value, src, sizeof value);
    return value;
}

HK_INLINE void hk_store_u32(void *dst, uint32_t value) { memcpy(dst, &value, sizeof value); }

#if HK_HAVE_MVE

/* Orders memory accesses at compile time only (no instruction): loads after it are not
 * scheduled before it, which keeps a loop's live vectors within the eight Q registers. */
#if defined(__GNUC__)
#define HK_COMPILER_BARRIER() __asm__ volatile("" ::: "memory")
#else
#define HK_COMPILER_BARRIER() ((void)0)
#endif

/* dst[0..n) = src[0..n): whole vectors, then one tail-predicated move. */
HK_INLINE void hk_copy_s8(int8_t *dst, const int8_t *src, int32_t n)
{
    for (; n >= 16; n -= 16, dst += 16, src += 16) {
        vstrbq_s8(dst, vldrbq_s8(src));
    }
    if (n > 0) {
        const mve_pred16_t p = vctp8q((uint32_t)n);
        vstrbq_p_s8(dst, vldrbq_z_s8(src, p), p);
    }
}

/* dst[0..n) = value. */
HK_INLINE void hk_fill_s8(int8_t *dst, int8_t value, int32_t n)
{
    const int8x16_t v = vdupq_n_s8(value);
    while (n > 0) {
        vstrbq_p_s8(dst, v, vctp8q((uint32_t)n));
        dst += 16;
        n -= 16;
    }
}

/* Eight int32 sums for the assembly blocks of the int8 convolutions: VMLADAV(A) writes only
 * even core registers, so a0..a3 live in r0-r6 and b0..b3 in r8, r10, r12 and lr. */
#define HK_MVE_EVEN_SUMS                                                                       \
    register int32_t a0 __asm__("r0");                                                         \
    register int32_t a1 __asm__("r2");                                                         \
    register int32_t a2 __asm__("r4");                                                         \
    register int32_t a3 __asm__("r6");                                                         \
    register int32_t b0 __asm__("r8");                                                         \
    register int32_t b1 __asm__("r10");                                                        \
    register int32_t b2 __asm__("r12");                                                        \
    register int32_t b3 __asm__("lr")

#else

/* dst[0..n) = src[0..n); a plain loop, as the runs are short (a filter row of one pixel). On
 * the DSP extension's cores (which load and store words at any address) whole words first:
 * a 3x3 window over three channels copies rows of nine bytes, two words and a byte. */
HK_INLINE void hk_copy_s8(int8_t *dst, const int8_t *src, int32_t n)
{
    int32_t i = 0;
#if HK_HAVE_DSP
    for (; i + 4 <= n; i += 4) {
        hk_store_u32(dst + i, hk_load_u32(src + i));
    }
#endif
    for (; i < n; ++i) {
        dst[i] = src[i];
    }
}

/* dst[0..n) = value. */
HK_INLINE void hk_fill_s8(int8_t *dst, int8_t value, int32_t n)
{
    for (int32_t i = 0; i < n; ++i) {
        dst[i] = value;
    }
}

#endif /* HK_HAVE_MVE */

#if HK_HAVE_DSP

/* Bytes 0 and 2 of `bytes` as two int16 lanes, and bytes 1 and 3. */
HK_INLINE int32_t hk_sxtb16_even(uint32_t bytes) { return __sxtb16((int32_t)bytes); }

/* `offset` (two int16 lanes) plus bytes 0 and 2, and plus bytes 1 and 3. */
HK_INLINE int32_t hk_sxtab16_even(int32_t offset, uint32_t bytes)
{
    return __sxtab16(offset, (int32_t)bytes);
}

#if defined(__GNUC__)
/* GCC 12 does not fold a rotate into SXTB16's operand, so the odd bytes use the encoding
 * that rotates for free. */
HK_INLINE int32_t hk_sxtb16_odd(uint32_t bytes)
{
    int32_t lanes;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(lanes) : "r"(bytes));
    return lanes;
}

HK_INLINE int32_t hk_sxtab16_odd(int32_t offset, uint32_t bytes)
{
    int32_t lanes;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(lanes) : "r"(offset), "r"(bytes));
    return lanes;
}
#else
HK_INLINE int32_t hk_sxtb16_odd(uint32_t bytes)
{
    return __sxtb16((int32_t)((bytes >> 8) | (bytes << 24)));
}

HK_INLINE int32_t hk_sxtab16_odd(int32_t offset, uint32_t bytes)
{
    return __sxtab16(offset, (int32_t)((bytes >> 8) | (bytes << 24)));
}
#endif

/* Two int16 lanes each holding `value` (which must fit int16), for SXTAB16 offsets. */
HK_INLINE int32_t hk_dup_s16x2(int32_t value)
{
    return (int32_t)(((uint32_t)value & 0xFFFFu) | ((uint32_t)value << 16));
}

/* Four int8 as int16 lanes in SMLAD order: out[0] = (b0, b2), out[1] = (b1, b3). A filter word
 * split the same way then needs no repacking: SMLAD pairs (w0, w2) with (b0, b2). */
HK_INLINE void hk_widen_s8x4(uint32_t bytes, uint32_t *out)
{
    out[0] = (uint32_t)hk_sxtb16_even(bytes);
    out[1] = (uint32_t)hk_sxtb16_odd(bytes);
}

#endif /* HK_HAVE_DSP */

/* Keeps a hot loop's registers to itself: inlined into pixel loops, GCC spills its pointers. */
#if defined(__GNUC__)
#define HK_NOINLINE static __attribute__((noinline))
#else
#define HK_NOINLINE static
#endif

#endif /* HK_SIMD_H */
