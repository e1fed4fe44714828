/*
 * helia-aot kernel library: the DSP path's int8 CONV_2D filter-pair loop for a tap count it
 * knows at compile time (internal to the conv family: hk_conv_dsp.c alone includes it, and the
 * functions are static, so a header-only family).
 *
 * hk_conv_dsp.c widens two pixels' receptive fields into words and runs every filter pair over
 * them, requantizing the pair's four sums in registers. For 8, 16, 32 and 64 taps
 * (pointwise layers of MobileNet and DS-CNN) and 40 (DS-CNN's first 10x4 convolution) the
 * whole tap loop unrolls, and 128 and 256 run
 * 64 taps a pass. The second filter's word is read at an immediate offset `taps` bytes after
 * the first's, so the register that held its pointer holds the requantization table's instead,
 * off the stack, and a pair's end needs no pointer arithmetic on the stack: the same
 * instructions a step, fewer cycles and instructions a pair.
 */
#ifndef HK_CONV_TAPS_H
#define HK_CONV_TAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "hk_isa.h"

#if HK_HAVE_DSP && defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(__clang__)
#define HK_CONV_TAPS_ASM 1

/* True when `taps` has a loop of its own (8, 16, 32, 40, 64, 128 or 256). */
static inline bool hk_conv_taps_known(int32_t taps)
{
    return taps == 8 || taps == 16 || taps == 32 || taps == 40 || taps == 64 || taps == 128 ||
           taps == 256;
}

/*
 * Four taps of two filters and two pixels (sums r0, r1: filter 0 at pixels 0 and 1; r2, r3:
 * filter 1): the pixels' four widened words from r4 (one LDM), then filter 1's word T bytes
 * after filter 0's and filter 0's (post-indexed, so it pipelines behind the first load, whose
 * address it does not wait on); each filter word is widened into its even and odd bytes
 * (SXTB16) and meets both pixels in four SMLADs. r4 and r5 step by the taps they read.
 */
#define TAPS_STEP(T)                                                                         \
    "ldmia r4!, {r8, r9, r10, r11}\n\t"                                                       \
    "ldr lr, [r5, #" #T "]\n\t"                                                               \
    "ldr r12, [r5], #4\n\t"                                                                   \
    "sxtb16 r7, r12\n\t"                                                                      \
    "sxtb16 r12, r12, ror #8\n\t"                                                             \
    "smlad r0, r7, r8, r0\n\t"                                                                \
    "smlad r0, r12, r9, r0\n\t"                                                               \
    "smlad r1, r7, r10, r1\n\t"                                                               \
    "smlad r1, r12, r11, r1\n\t"                                                              \
    "sxtb16 r7, lr\n\t"                                                                       \
    "sxtb16 lr, lr, ror #8\n\t"                                                               \
    "smlad r2, r7, r8, r2\n\t"                                                                \
    "smlad r2, lr, r9, r2\n\t"                                                                \
    "smlad r3, r7, r10, r3\n\t"                                                               \
    "smlad r3, lr, r11, r3\n\t"
#define TAPS_8(T) TAPS_STEP(T) TAPS_STEP(T)
#define TAPS_16(T) TAPS_8(T) TAPS_8(T)
#define TAPS_32(T) TAPS_16(T) TAPS_16(T)
#define TAPS_40(T) TAPS_32(T) TAPS_8(T)
#define TAPS_64(T) TAPS_32(T) TAPS_32(T)
/* 64 taps a pass for T = 128 or 256, to the pixel words' end. */
#define TAPS_LOOP(T)                                                                         \
    "1:\n\t" TAPS_64(T)                                                                      \
    "ldr lr, %[words_end]\n\t"                                                               \
    "cmp r4, lr\n\t"                                                                         \
    "bne 1b\n\t"

/* A pair's sums start from its two biases, at bias_from_table + r6 / 2 (the table pointer
 * r6 steps 16 bytes a pair, the biases 8), so no bias pointer is stored back; r4 back to the
 * words. */
#define TAPS_HEAD                                                                            \
    "0:\n\t"                                                                                 \
    "ldr r7, %[bias_from_table]\n\t"                                                         \
    "ldr r4, %[words]\n\t"                                                                   \
    "add r7, r7, r6, lsr #1\n\t"                                                             \
    "ldrd r0, r2, [r7]\n\t"                                                                  \
    "mov r1, r0\n\t"                                                                         \
    "mov r3, r2\n\t"
/*
 * The pair's four sums requantized in registers (hk_requant_row_q30_dsp's arithmetic: the
 * table's doubled multiplier in SMMLAR, the inverted shift, then the rounding and the output
 * zero point z in one QADD of 1 + 2z before the final halving, which SSAT's shift does:
 * (q + 1 + 2z) >> 1 = ((q + 1) >> 1) + z exactly, and where the QADD saturates both forms
 * saturate to the same int8 limit), saturated to int8, packed per pixel (BFI) and stored as
 * two halfwords; the
 * table pointer r6 steps over the pair's four words; r5, which the taps left at filter 1, steps
 * to the next pair's first filter.
 */
#define TAPS_TAIL(T)                                                                   \
    "ldmia r6!, {r8, r9, r10, r11}\n\t"                                                      \
    "smmlar r0, r0, r8, r0\n\t"                                                              \
    "smmlar r1, r1, r8, r1\n\t"                                                              \
    "smmlar r2, r2, r10, r2\n\t"                                                             \
    "smmlar r3, r3, r10, r3\n\t"                                                             \
    "add r0, r0, r0, asr #31\n\t"                                                            \
    "add r1, r1, r1, asr #31\n\t"                                                            \
    "add r2, r2, r2, asr #31\n\t"                                                            \
    "add r3, r3, r3, asr #31\n\t"                                                            \
    "asr r0, r0, r9\n\t"                                                                     \
    "asr r1, r1, r9\n\t"                                                                     \
    "asr r2, r2, r11\n\t"                                                                    \
    "asr r3, r3, r11\n\t"                                                                    \
    "ldr r9, %[round]\n\t"                                                                   \
    "ldr r12, %[out0]\n\t"                                                                   \
    "ldr lr, %[delta]\n\t"                                                                   \
    "qadd r0, r0, r9\n\t"                                                                    \
    "qadd r1, r1, r9\n\t"                                                                    \
    "qadd r2, r2, r9\n\t"                                                                    \
    "qadd r3, r3, r9\n\t"                                                                    \
    "ssat r0, #8, r0, asr #1\n\t"                                                            \
    "ssat r1, #8, r1, asr #1\n\t"                                                            \
    "ssat r2, #8, r2, asr #1\n\t"                                                            \
    "ssat r3, #8, r3, asr #1\n\t"                                                            \
    "bfi r0, r2, #8, #8\n\t"                                                                 \
    "bfi r1, r3, #8, #8\n\t"                                                                 \
    "strh r1, [r12, lr]\n\t"                                                                 \
    "strh r0, [r12], #2\n\t"                                                                 \
    "str r12, %[out0]\n\t"                                                                   \
    "ldr lr, %[out0_end]\n\t"                                                                \
    "add r5, r5, #" #T "\n\t"                                                             \
    "cmp r12, lr\n\t"                                                                        \
    "bne 0b\n\t"

/* The pair loop's state: a local of the function that runs the block, which reads it through
 * sp (every other register is the block's). The caller sets out0, out0_end and delta per pixel
 * pair, the rest once a call. */
typedef struct {
    const uint8_t *words, *words_end; /* the pixel pair's widened words (4 * taps bytes) */
    const int8_t *filter;             /* the first filter; each `taps` bytes, an even count */
    const int32_t *table;             /* each filter's doubled multiplier and inverted shift */
    uint32_t bias_from_table;         /* offset_bias's address less half the table's (even) */
    int8_t *out0, *out0_end;          /* the first pixel's outputs */
    int32_t delta;                    /* out1 - out0 (0 for a last odd pixel, stored once) */
    int32_t round; /* 1 + 2 * output zero point: the rounding and the zero point in one QADD */
} hk_conv_taps_state_t;

#define TAPS_OPERANDS(s)                                                                     \
    : [out0] "+m"((s)->out0)                                                                 \
    : [bias_from_table] "m"((s)->bias_from_table), [words] "m"((s)->words),                  \
      [words_end] "m"((s)->words_end), [filter] "m"((s)->filter),                            \
      [table] "m"((s)->table), [out0_end] "m"((s)->out0_end),                                 \
      [delta] "m"((s)->delta), [round] "m"((s)->round)                                       \
    : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr",  \
      "cc", "memory"
#define TAPS_START                                                                           \
    "ldr r5, %[filter]\n\t"                                                                  \
    "ldr r6, %[table]\n\t"

#define TAPS_BODY_8 TAPS_8(8) TAPS_TAIL(8)
#define TAPS_BODY_16 TAPS_16(16) TAPS_TAIL(16)
#define TAPS_BODY_32 TAPS_32(32) TAPS_TAIL(32)
#define TAPS_BODY_40 TAPS_40(40) TAPS_TAIL(40)
#define TAPS_BODY_64 TAPS_64(64) TAPS_TAIL(64)
#define TAPS_BODY_128 TAPS_LOOP(128) TAPS_TAIL(128)
#define TAPS_BODY_256 TAPS_LOOP(256) TAPS_TAIL(256)

/*
 * Every filter pair over one pixel pair for T taps (8, 16, 32, 40, 64, 128 or 256), the state
 * read through `s`, a pointer to a local hk_conv_taps_state_t of a function built without a frame
 * pointer (the block takes r7 and every register but sp). The block keeps out0 on the stack
 * as it goes; the caller resets it for the next pixel pair.
 */
#define HK_CONV_TAPS_PAIRS(T, s)                                                             \
    __asm__ volatile(TAPS_START TAPS_HEAD TAPS_BODY_##T TAPS_OPERANDS(s))

#else
#define HK_CONV_TAPS_ASM 0
#endif

#endif /* HK_CONV_TAPS_H */
