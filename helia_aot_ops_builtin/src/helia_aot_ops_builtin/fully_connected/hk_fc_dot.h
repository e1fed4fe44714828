/*
 * helia-aot kernel library: the dot products of FULLY_CONNECTED, once per instruction set.
 *
 * Chosen at compile time by hk_isa.h:
 *   HK_HAVE_MVE  Helium (Cortex-M55): VMLADAVA multiplies and sums 16 int8 pairs;
 *   HK_HAVE_DSP  DSP extension (Cortex-M4): SXTB16 widens the even and the odd bytes of
 *                a word into two int16 pairs, SMLAD multiplies and sums both;
 *   otherwise    plain C, the reference the other two must equal.
 * Sums wrap modulo 2^32 as the hardware's do, so every path returns the same values.
 *
 * The packed int8 weight layout (HK_FC_PACK_ROWS units by HK_FC_PACK_DEPTH steps): for each
 * group of four units, for each 16-step chunk of the depth, the 16 weights of unit 0, then of
 * units 1, 2 and 3, zero-padded past the depth. One pointer then walks all four rows, and the
 * vector loads of the last chunk need no predication. Units beyond the last full group follow
 * row-major and unpadded.
 */
#ifndef HK_FC_DOT_H
#define HK_FC_DOT_H

#include "hk_common.h"
#include "hk_isa.h"

#define HK_FC_PACK_ROWS 4
#define HK_FC_PACK_DEPTH 16


/* Bytes of one packed group: four rows of the depth rounded up to whole chunks. */
HK_INLINE size_t hk_fc_packed_group_size(int32_t depth)
{
    const int32_t padded = (depth + HK_FC_PACK_DEPTH - 1) & ~(HK_FC_PACK_DEPTH - 1);
    return (size_t)HK_FC_PACK_ROWS * (size_t)padded;
}

#if defined(__GNUC__) && !defined(__clang__)
/* GCC 12 spends two extra instructions per chunk on the pointer arithmetic of the intrinsic
 * loop below, so it gets the ten-instruction loop it should have generated. */
#define HK_FC_ASM 1
#endif

#if HK_HAVE_MVE

/* acc[j] += the dot product of x with unit j of the packed group at w. */
HK_INLINE void hk_fc_dot4_packed_s8(const int8_t *x, const int8_t *w, int32_t depth,
                                    uint32_t *acc)
{
    int32_t a0 = (int32_t)acc[0], a1 = (int32_t)acc[1], a2 = (int32_t)acc[2], a3 = (int32_t)acc[3];
    const int32_t chunks = depth >> 4;
#if defined(HK_FC_ASM)
    if (chunks > 0) {
        int8x16_t xv, wa, wb;
        /* VMLADAVA accumulates into even registers only (constraint Te). */
        __asm__("dls lr, %[n]\n"
                "1:\n\t"
                "vldrb.8 %q[xv], [%[x]], #16\n\t"
                "vldrb.8 %q[wa], [%[w]], #64\n\t"
                "vldrb.8 %q[wb], [%[w], #-48]\n\t"
                "vmladava.s8 %[a0], %q[xv], %q[wa]\n\t"
                "vldrb.8 %q[wa], [%[w], #-32]\n\t"
                "vmladava.s8 %[a1], %q[xv], %q[wb]\n\t"
                "vldrb.8 %q[wb], [%[w], #-16]\n\t"
                "vmladava.s8 %[a2], %q[xv], %q[wa]\n\t"
                "vmladava.s8 %[a3], %q[xv], %q[wb]\n\t"
                "le lr, 1b"
                : [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [x] "+r"(x),
                  [w] "+r"(w), [xv] "=&w"(xv), [wa] "=&w"(wa), [wb] "=&w"(wb)
                : [n] "r"(chunks)
                : "lr", "memory");
    }
#else
    for (int32_t i = 0; i < chunks; ++i) {
        const int8x16_t xv = vld1q_s8(x);
        a0 = vmladavaq_s8(a0, xv, vld1q_s8(w));
        a1 = vmladavaq_s8(a1, xv, vld1q_s8(w + 16));
        a2 = vmladavaq_s8(a2, xv, vld1q_s8(w + 32));
        a3 = vmladavaq_s8(a3, xv, vld1q_s8(w + 48));
        x += 16;
        w += 64;
    }
#endif
    if (depth & 15) {
        /* Only x needs predication (the weights are padded): its lanes past depth read as 0. */
        const int8x16_t xv = vldrbq_z_s8(x, vctp8q((uint32_t)(depth & 15)));
        a0 = vmladavaq_s8(a0, xv, vld1q_s8(w));
        a1 = vmladavaq_s8(a1, xv, vld1q_s8(w + 16));
        a2 = vmladavaq_s8(a2, xv, vld1q_s8(w + 32));
        a3 = vmladavaq_s8(a3, xv, vld1q_s8(w + 48));
    }
    acc[0] = (uint32_t)a0;
    acc[1] = (uint32_t)a1;
    acc[2] = (uint32_t)a2;
    acc[3] = (uint32_t)a3;
}

/*
 * Eight units at once: two consecutive packed groups of four (w0, and w1 = w0 + the group
 * size), each read by its own post-incremented pointer, against one load of x per 16-step
 * chunk. Against hk_fc_dot4_packed_s8 this halves the loads of x: 17 instructions per chunk
 * of eight units instead of 2 x 9 (plus the loop's), close to the floor of one weight load
 * and one VMLADAVA per 16 multiplies. VMLADAVA accumulates into even registers only, and the
 * eight accumulators take all of them (lr included), so the loop counts with SUBS/BNE, four
 * chunks per pass.
 */
#if defined(HK_FC_ASM) && defined(__OPTIMIZE__)
/* The eight-unit assembly needs twelve core registers; GCC finds them only when optimizing
 * (at -O0 it keeps the frame pointer and more), so -O0 builds take the intrinsic loop. */
#define HK_FC_ASM8 1
#endif

#if defined(HK_FC_ASM8)
#define HK_FC_MVE8_CHUNK                                                                       \
    "vldrb.8 %q[xv], [%[x]], #16\n\t"                                                         \
    "vldrb.8 %q[wa], [%[w0]], #16\n\t"                                                        \
    "vldrb.8 %q[wb], [%[w0]], #16\n\t"                                                        \
    "vmladava.s8 %[a0], %q[xv], %q[wa]\n\t"                                                   \
    "vldrb.8 %q[wa], [%[w0]], #16\n\t"                                                        \
    "vmladava.s8 %[a1], %q[xv], %q[wb]\n\t"                                                   \
    "vldrb.8 %q[wb], [%[w0]], #16\n\t"                                                        \
    "vmladava.s8 %[a2], %q[xv], %q[wa]\n\t"                                                   \
    "vldrb.8 %q[wa], [%[w1]], #16\n\t"                                                        \
    "vmladava.s8 %[a3], %q[xv], %q[wb]\n\t"                                                   \
    "vldrb.8 %q[wb], [%[w1]], #16\n\t"                                                        \
    "vmladava.s8 %[a4], %q[xv], %q[wa]\n\t"                                                   \
    "vldrb.8 %q[wa], [%[w1]], #16\n\t"                                                        \
    "vmladava.s8 %[a5], %q[xv], %q[wb]\n\t"                                                   \
    "vldrb.8 %q[wb], [%[w1]], #16\n\t"                                                        \
    "vmladava.s8 %[a6], %q[xv], %q[wa]\n\t"                                                   \
    "vmladava.s8 %[a7], %q[xv], %q[wb]\n\t"
#define HK_FC_MVE8_OPERANDS                                                                    \
    [a0] "+Te"(a0), [a1] "+Te"(a1), [a2] "+Te"(a2), [a3] "+Te"(a3), [a4] "+Te"(a4),           \
        [a5] "+Te"(a5), [a6] "+Te"(a6), [a7] "+Te"(a7), [x] "+r"(x), [w0] "+r"(w0),           \
        [w1] "+r"(w1), [xv] "=&w"(xv), [wa] "=&w"(wa), [wb] "=&w"(wb)
#endif

/* acc[j] += the dot product of x with unit j of the two packed groups at w (units 0-3) and
 * w + hk_fc_packed_group_size(depth) (units 4-7). */
HK_INLINE void hk_fc_dot8_packed_s8(const int8_t *x, const int8_t *w, int32_t depth,
                                    uint32_t *acc)
{
    const int8_t *w0 = w;
    const int8_t *w1 = w + hk_fc_packed_group_size(depth);
    int32_t a0 = (int32_t)acc[0], a1 = (int32_t)acc[1], a2 = (int32_t)acc[2], a3 = (int32_t)acc[3];
    int32_t a4 = (int32_t)acc[4], a5 = (int32_t)acc[5], a6 = (int32_t)acc[6], a7 = (int32_t)acc[7];
    int32_t chunks = depth >> 4;
#if defined(HK_FC_ASM8)
    int8x16_t xv, wa, wb;
    int32_t quads = chunks >> 2;
    if (quads > 0) {
        __asm__("1:\n\t"
                HK_FC_MVE8_CHUNK
                HK_FC_MVE8_CHUNK
                HK_FC_MVE8_CHUNK
                HK_FC_MVE8_CHUNK
                "subs %[n], %[n], #1\n\t"
                "bne 1b"
                : HK_FC_MVE8_OPERANDS, [n] "+r"(quads)
                :
                : "cc", "memory");
    }
    for (chunks &= 3; chunks > 0; --chunks) {
        __asm__(HK_FC_MVE8_CHUNK : HK_FC_MVE8_OPERANDS : : "memory");
    }
#else
    for (; chunks > 0; --chunks) {
        const int8x16_t xv = vld1q_s8(x);
        a0 = vmladavaq_s8(a0, xv, vld1q_s8(w0));
        a1 = vmladavaq_s8(a1, xv, vld1q_s8(w0 + 16));
        a2 = vmladavaq_s8(a2, xv, vld1q_s8(w0 + 32));
        a3 = vmladavaq_s8(a3, xv, vld1q_s8(w0 + 48));
        a4 = vmladavaq_s8(a4, xv, vld1q_s8(w1));
        a5 = vmladavaq_s8(a5, xv, vld1q_s8(w1 + 16));
        a6 = vmladavaq_s8(a6, xv, vld1q_s8(w1 + 32));
        a7 = vmladavaq_s8(a7, xv, vld1q_s8(w1 + 48));
        x += 16;
        w0 += 64;
        w1 += 64;
    }
#endif
    if (depth & 15) {
        /* Only x needs predication (the weights are padded): its lanes past depth read as 0. */
        const int8x16_t xt = vldrbq_z_s8(x, vctp8q((uint32_t)(depth & 15)));
        a0 = vmladavaq_s8(a0, xt, vld1q_s8(w0));
        a1 = vmladavaq_s8(a1, xt, vld1q_s8(w0 + 16));
        a2 = vmladavaq_s8(a2, xt, vld1q_s8(w0 + 32));
        a3 = vmladavaq_s8(a3, xt, vld1q_s8(w0 + 48));
        a4 = vmladavaq_s8(a4, xt, vld1q_s8(w1));
        a5 = vmladavaq_s8(a5, xt, vld1q_s8(w1 + 16));
        a6 = vmladavaq_s8(a6, xt, vld1q_s8(w1 + 32));
        a7 = vmladavaq_s8(a7, xt, vld1q_s8(w1 + 48));
    }
    acc[0] = (uint32_t)a0;
    acc[1] = (uint32_t)a1;
    acc[2] = (uint32_t)a2;
    acc[3] = (uint32_t)a3;
    acc[4] = (uint32_t)a4;
    acc[5] = (uint32_t)a5;
    acc[6] = (uint32_t)a6;
    acc[7] = (uint32_t)a7;
}

#if defined(HK_FC_ASM8)
#undef HK_FC_MVE8_CHUNK
#undef HK_FC_MVE8_OPERANDS
#endif

/* acc + the dot product of x and one row-major row w. */
HK_INLINE uint32_t hk_fc_dot1_s8(const int8_t *x, const int8_t *w, int32_t depth, uint32_t acc)
{
    int32_t sum = (int32_t)acc;
    for (int32_t left = depth; left > 0; left -= 16) {
        const mve_pred16_t lanes = vctp8q((uint32_t)left);
        sum = vmladavaq_s8(sum, vldrbq_z_s8(x, lanes), vldrbq_z_s8(w, lanes));
        x += 16;
        w += 16;
    }
    return (uint32_t)sum;
}

/* int16 x int8: VLDRB.S16 widens eight weights; VMLALDAVA sums eight products into 64 bits,
 * VMLADAVA into 32 bits modulo 2^32. */
HK_INLINE int64_t hk_fc_dot_s16_64(const int16_t *x, const int8_t *w, int32_t depth)
{
    int64_t acc = 0;
    for (int32_t left = depth; left > 0; left -= 8) {
        const mve_pred16_t lanes = vctp16q((uint32_t)left);
        acc = vmlaldavaq_s16(acc, vldrhq_z_s16(x, lanes), vldrbq_z_s16(w, lanes));
        x += 8;
        w += 8;
    }
    return acc;
}

HK_INLINE uint32_t hk_fc_dot_s16_32(const int16_t *x, const int8_t *w, int32_t depth)
{
    int32_t acc = 0;
    for (int32_t left = depth; left > 0; left -= 8) {
        const mve_pred16_t lanes = vctp16q((uint32_t)left);
        acc = vmladavaq_s16(acc, vldrhq_z_s16(x, lanes), vldrbq_z_s16(w, lanes));
        x += 8;
        w += 8;
    }
    return (uint32_t)acc;
}

#elif HK_HAVE_DSP

HK_INLINE uint32_t hk_fc_load32(const int8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v); /* one LDR: these cores allow unaligned word loads */
    return v;
}

/* Bytes 0 and 2 of v sign-extended into two int16 halves. */
HK_INLINE int16x2_t hk_fc_even(uint32_t v)
{
    return __sxtb16((int32_t)v);
}

/* Bytes 1 and 3: SXTB16 with its built-in rotation, which GCC does not form from a shift. */
HK_INLINE int16x2_t hk_fc_odd(uint32_t v)
{
#if defined(__GNUC__)
    int16x2_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
    return r;
#else
    return __sxtb16((int32_t)(v >> 8));
#endif
}

/* Four depth steps (one word of x at x + 4 * WORD) against the four rows of a packed chunk. */
#define HK_FC_DSP_WORD(WORD)                                                                   \
    do {                                                                                       \
        const uint32_t xv_ = hk_fc_load32(x + 4 * (WORD));                                     \
        const int16x2_t xe_ = hk_fc_even(xv_);                                                 \
        const int16x2_t xo_ = hk_fc_odd(xv_);                                                  \
        uint32_t v_ = hk_fc_load32(w + 4 * (WORD));                                            \
        a0 = __smlad(hk_fc_even(v_), xe_, a0);                                                 \
        a0 = __smlad(hk_fc_odd(v_), xo_, a0);                                                  \
        v_ = hk_fc_load32(w + 16 + 4 * (WORD));                                                \
        a1 = __smlad(hk_fc_even(v_), xe_, a1);                                                 \
        a1 = __smlad(hk_fc_odd(v_), xo_, a1);                                                  \
        v_ = hk_fc_load32(w + 32 + 4 * (WORD));                                                \
        a2 = __smlad(hk_fc_even(v_), xe_, a2);                                                 \
        a2 = __smlad(hk_fc_odd(v_), xo_, a2);                                                  \
        v_ = hk_fc_load32(w + 48 + 4 * (WORD));                                                \
        a3 = __smlad(hk_fc_even(v_), xe_, a3);                                                 \
        a3 = __smlad(hk_fc_odd(v_), xo_, a3);                                                  \
    } while (0)

#if defined(HK_FC_ASM)
/* The four rows of a chunk, whose row 0 word starts at w + OFF (a negative offset: w already
 * points past the chunk), against the even and odd halves xe, xo of one word of x. LOAD0 loads
 * row 0's word: HK_FC_DSP_ASM_AT, or HK_FC_DSP_ASM_STEP for the chunk's first word. The rows'
 * words are loaded two at a time (v, u), so the second load pipelines behind the first (one
 * cycle on the M4 instead of two). */
#define HK_FC_DSP_ASM_ROWS(LOAD0, OFF)                                                   \
    LOAD0(OFF)                                                                           \
    "ldr %[u], [%[w], #" #OFF "+16]\n\t"                                                 \
    "sxtb16 %[t], %[v]\n\t"                                                              \
    "smlad %[a0], %[t], %[xe], %[a0]\n\t"                                                \
    "sxtb16 %[v], %[v], ror #8\n\t"                                                      \
    "smlad %[a0], %[v], %[xo], %[a0]\n\t"                                                \
    "sxtb16 %[t], %[u]\n\t"                                                              \
    "smlad %[a1], %[t], %[xe], %[a1]\n\t"                                                \
    "sxtb16 %[u], %[u], ror #8\n\t"                                                      \
    "smlad %[a1], %[u], %[xo], %[a1]\n\t"                                                \
    "ldr %[v], [%[w], #" #OFF "+32]\n\t"                                                 \
    "ldr %[u], [%[w], #" #OFF "+48]\n\t"                                                 \
    "sxtb16 %[t], %[v]\n\t"                                                              \
    "smlad %[a2], %[t], %[xe], %[a2]\n\t"                                                \
    "sxtb16 %[v], %[v], ror #8\n\t"                                                      \
    "smlad %[a2], %[v], %[xo], %[a2]\n\t"                                                \
    "sxtb16 %[t], %[u]\n\t"                                                              \
    "smlad %[a3], %[t], %[xe], %[a3]\n\t"                                                \
    "sxtb16 %[u], %[u], ror #8\n\t"                                                      \
    "smlad %[a3], %[u], %[xo], %[a3]\n\t"

#if defined(__OPTIMIZE__)
/* HK_FC_DSP_ASM_ROWS with the four rows' words loaded back to back into v, u, p and q: three
 * of the four loads pipeline (five cycles on the M4 against six for two pairs). Fourteen
 * registers, so only optimizing builds take it, and only in the widened loop, whose one caller
 * (hk_fully_connected_dsp.c's groups) is built without a frame pointer whatever the flags. */
#define HK_FC_DSP_ASM_ROWS4(LOAD0, OFF)                                                  \
    LOAD0(OFF)                                                                           \
    "ldr %[u], [%[w], #" #OFF "+16]\n\t"                                                 \
    "ldr %[p], [%[w], #" #OFF "+32]\n\t"                                                 \
    "ldr %[q], [%[w], #" #OFF "+48]\n\t"                                                 \
    "sxtb16 %[t], %[v]\n\t"                                                              \
    "smlad %[a0], %[t], %[xe], %[a0]\n\t"                                                \
    "sxtb16 %[v], %[v], ror #8\n\t"                                                      \
    "smlad %[a0], %[v], %[xo], %[a0]\n\t"                                                \
    "sxtb16 %[t], %[u]\n\t"                                                              \
    "smlad %[a1], %[t], %[xe], %[a1]\n\t"                                                \
    "sxtb16 %[u], %[u], ror #8\n\t"                                                      \
    "smlad %[a1], %[u], %[xo], %[a1]\n\t"                                                \
    "sxtb16 %[t], %[p]\n\t"                                                              \
    "smlad %[a2], %[t], %[xe], %[a2]\n\t"                                                \
    "sxtb16 %[p], %[p], ror #8\n\t"                                                      \
    "smlad %[a2], %[p], %[xo], %[a2]\n\t"                                                \
    "sxtb16 %[t], %[q]\n\t"                                                              \
    "smlad %[a3], %[t], %[xe], %[a3]\n\t"                                                \
    "sxtb16 %[q], %[q], ror #8\n\t"                                                      \
    "smlad %[a3], %[q], %[xo], %[a3]\n\t"
#define HK_FC_DSP_ASM_MORE_TEMPS , [p] "=&r"(p), [q] "=&r"(q)
#define HK_FC_DSP_ASM_DECLARE_MORE uint32_t p, q;
#else
#define HK_FC_DSP_ASM_ROWS4 HK_FC_DSP_ASM_ROWS
#define HK_FC_DSP_ASM_MORE_TEMPS
#define HK_FC_DSP_ASM_DECLARE_MORE
#endif

/* Row 0's word of a chunk at w + OFF. */
#define HK_FC_DSP_ASM_AT(OFF) "ldr %[v], [%[w], #" #OFF "]\n\t"

/* Row 0's first word, at w itself, stepping w past the chunk (OFF is then -64): the
 * post-increment saves the chunk its separate ADD. */
#define HK_FC_DSP_ASM_STEP(OFF) "ldr %[v], [%[w]], #64\n\t"

/* One word of x (post-incremented) against the four rows: a load and two SXTB16s. */
#define HK_FC_DSP_ASM_WORD(LOAD0, OFF)                                                       \
    "ldr %[xe], [%[x]], #4\n\t"                                                              \
    "sxtb16 %[xo], %[xe], ror #8\n\t"                                                        \
    "sxtb16 %[xe], %[xe]\n\t"                                                                \
    HK_FC_DSP_ASM_ROWS(LOAD0, OFF)

/* The loop over whole 16-step chunks (64 weight bytes each), WORD reading x's word: the first
 * word's row 0 load moves w past the chunk, the other loads reach back from there. */
#define HK_FC_DSP_ASM_CHUNK(WORD)                                                            \
    WORD(HK_FC_DSP_ASM_STEP, -64)                                                            \
    WORD(HK_FC_DSP_ASM_AT, -60)                                                              \
    WORD(HK_FC_DSP_ASM_AT, -56)                                                              \
    WORD(HK_FC_DSP_ASM_AT, -52)
/* Two chunks a pass (n at least one): an odd count runs one chunk first, the flags of the
 * halving LSRS surviving it (no instruction of a chunk sets them) to skip the loop when that
 * was the only one. */
#define HK_FC_DSP_ASM_CHUNKS(WORD)                                                           \
    "lsrs %[n], %[n], #1\n\t"                                                                \
    "bcc 1f\n\t"                                                                             \
    HK_FC_DSP_ASM_CHUNK(WORD)                                                                \
    "beq 2f\n\t"                                                                             \
    "1:\n\t"                                                                                 \
    HK_FC_DSP_ASM_CHUNK(WORD)                                                                \
    HK_FC_DSP_ASM_CHUNK(WORD)                                                                \
    "subs %[n], %[n], #1\n\t"                                                                \
    "bne 1b\n\t"                                                                             \
    "2:"
#endif

HK_INLINE void hk_fc_dot4_packed_s8(const int8_t *x, const int8_t *w, int32_t depth,
                                    uint32_t *acc)
{
    int32_t a0 = (int32_t)acc[0], a1 = (int32_t)acc[1], a2 = (int32_t)acc[2], a3 = (int32_t)acc[3];
    int32_t chunks = depth >> 4;
#if defined(HK_FC_ASM)
    /* GCC's allocation of the C loop below spills; this one fits the registers. */
    if (chunks > 0) {
        uint32_t xe, xo, v, t, u;
        __asm__(HK_FC_DSP_ASM_CHUNKS(HK_FC_DSP_ASM_WORD)
                : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x),
                  [w] "+r"(w), [n] "+r"(chunks), [xe] "=&r"(xe), [xo] "=&r"(xo), [v] "=&r"(v),
                  [t] "=&r"(t), [u] "=&r"(u)
                :
                : "cc", "memory");
    }
#else
    for (; chunks > 0; --chunks) {
        HK_FC_DSP_WORD(0);
        HK_FC_DSP_WORD(1);
        HK_FC_DSP_WORD(2);
        HK_FC_DSP_WORD(3);
        x += 16;
        w += 64;
    }
#endif
    const int32_t words = (depth & 15) >> 2;
    for (int32_t word = 0; word < words; ++word) {
        HK_FC_DSP_WORD(0);
        x += 4;
        w += 4;
    }
    /* The last one to three steps: x has no whole word left to load. */
    uint32_t s0 = (uint32_t)a0, s1 = (uint32_t)a1, s2 = (uint32_t)a2, s3 = (uint32_t)a3;
    for (int32_t d = 0; d < (depth & 3); ++d) {
        const int32_t v = x[d];
        s0 += (uint32_t)(v * w[d]);
        s1 += (uint32_t)(v * w[16 + d]);
        s2 += (uint32_t)(v * w[32 + d]);
        s3 += (uint32_t)(v * w[48 + d]);
    }
    acc[0] = s0;
    acc[1] = s1;
    acc[2] = s2;
    acc[3] = s3;
}

#if defined(HK_FC_ASM)
/* HK_FC_DSP_ASM_WORD with the word of x already widened (two words at xw, post-incremented):
 * one LDRD instead of a load and two SXTB16s. */
#define HK_FC_DSP_ASM_WIDE_WORD(LOAD0, OFF)                                                  \
    "ldrd %[xe], %[xo], [%[xw]], #8\n\t"                                                     \
    HK_FC_DSP_ASM_ROWS4(LOAD0, OFF)

/* The depth's whole words of x widened for SMLAD, two words each (even bytes, odd bytes),
 * into xw: once per input row, for every group of units to read (hk_fc_dot4_widened_s8). */
HK_INLINE void hk_fc_widen_s8(const int8_t *x, int32_t depth, int32_t *xw)
{
    for (int32_t d = 0; d + 4 <= depth; d += 4, xw += 2) {
        const uint32_t v = hk_fc_load32(x + d);
        xw[0] = hk_fc_even(v);
        xw[1] = hk_fc_odd(v);
    }
}

/* hk_fc_dot4_packed_s8 with the whole 16-step chunks read from xw (hk_fc_widen_s8 of x, word
 * aligned): 21 instructions per word of four units, against 23. */
HK_INLINE void hk_fc_dot4_widened_s8(const int8_t *x, const int32_t *xw, const int8_t *w,
                                     int32_t depth, uint32_t *acc)
{
    int32_t chunks = depth >> 4;
    if (chunks > 0) {
        int32_t a0 = (int32_t)acc[0], a1 = (int32_t)acc[1], a2 = (int32_t)acc[2],
                a3 = (int32_t)acc[3];
        uint32_t xe, xo, v, t, u;
        HK_FC_DSP_ASM_DECLARE_MORE
        __asm__(HK_FC_DSP_ASM_CHUNKS(HK_FC_DSP_ASM_WIDE_WORD)
                : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [xw] "+r"(xw),
                  [w] "+r"(w), [n] "+r"(chunks), [xe] "=&r"(xe), [xo] "=&r"(xo), [v] "=&r"(v),
                  [t] "=&r"(t), [u] "=&r"(u) HK_FC_DSP_ASM_MORE_TEMPS
                :
                : "cc", "memory");
        acc[0] = (uint32_t)a0;
        acc[1] = (uint32_t)a1;
        acc[2] = (uint32_t)a2;
        acc[3] = (uint32_t)a3;
    }
    if ((depth & 15) != 0) {
        const int32_t done = depth & ~15;
        hk_fc_dot4_packed_s8(x + done, w, depth - done, acc);
    }
}
#endif

#undef HK_FC_DSP_WORD
#undef HK_FC_DSP_ASM_ROWS
#undef HK_FC_DSP_ASM_AT
#undef HK_FC_DSP_ASM_STEP
#undef HK_FC_DSP_ASM_WORD
#undef HK_FC_DSP_ASM_WIDE_WORD
#undef HK_FC_DSP_ASM_CHUNKS
#undef HK_FC_DSP_ASM_CHUNK
#undef HK_FC_DSP_ASM_ROWS4
#undef HK_FC_DSP_ASM_MORE_TEMPS
#undef HK_FC_DSP_ASM_DECLARE_MORE

HK_INLINE uint32_t hk_fc_dot1_s8(const int8_t *x, const int8_t *w, int32_t depth, uint32_t acc)
{
    int32_t sum = (int32_t)acc;
    int32_t d = 0;
    for (; d + 4 <= depth; d += 4) {
        const uint32_t xv = hk_fc_load32(x + d);
        const uint32_t wv = hk_fc_load32(w + d);
        sum = __smlad(hk_fc_even(wv), hk_fc_even(xv), sum);
        sum = __smlad(hk_fc_odd(wv), hk_fc_odd(xv), sum);
    }
    uint32_t total = (uint32_t)sum;
    for (; d < depth; ++d) {
        total += (uint32_t)(w[d] * x[d]);
    }
    return total;
}

#else

HK_INLINE void hk_fc_dot4_packed_s8(const int8_t *x, const int8_t *w, int32_t depth,
                                    uint32_t *acc)
{
    uint32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    for (int32_t start = 0; start < depth; start += 16) {
        const int32_t n = depth - start < 16 ? depth - start : 16;
        for (int32_t i = 0; i < n; ++i) {
            const int32_t v = x[start + i];
            a0 += (uint32_t)(v * w[i]);
            a1 += (uint32_t)(v * w[16 + i]);
            a2 += (uint32_t)(v * w[32 + i]);
            a3 += (uint32_t)(v * w[48 + i]);
        }
        w += 64;
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

HK_INLINE uint32_t hk_fc_dot1_s8(const int8_t *x, const int8_t *w, int32_t depth, uint32_t acc)
{
    for (int32_t d = 0; d < depth; ++d) {
        acc += (uint32_t)(x[d] * w[d]);
    }
    return acc;
}

#endif

#if !HK_HAVE_MVE
HK_INLINE int64_t hk_fc_dot_s16_64(const int16_t *x, const int8_t *w, int32_t depth)
{
    int64_t acc = 0;
    for (int32_t d = 0; d < depth; ++d) {
        acc += (int32_t)x[d] * w[d];
    }
    return acc;
}

HK_INLINE uint32_t hk_fc_dot_s16_32(const int16_t *x, const int8_t *w, int32_t depth)
{
    uint32_t acc = 0;
    for (int32_t d = 0; d < depth; ++d) {
        acc += (uint32_t)((int32_t)x[d] * w[d]);
    }
    return acc;
}
#endif

#endif /* HK_FC_DOT_H */
