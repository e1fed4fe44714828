/*
 * helia-aot kernel library: the DSP path's int8 CONV_2D filter-pair loop for a tap count it
 * knows at compile time (internal to the conv family: hk_conv_dsp.c alone includes it, and the
 * functions are static, so a header-only family).
 *
 * hk_conv_dsp.c widens two pixels' receptive fields into words and runs every filter pair over
 * them, requantizing the pair's four sums in registers. For 8, 16, 32 and 64 taps
 * (pointwise layers of MobileNet and DS-CNN) the whole tap loop unrolls, and 128 and 256 run
 * 32 taps a pass. The second filter's word is read at an immediate offset `taps` bytes after
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

/* What hk_conv_taps_pairs_s8 runs: the pixel pair's widened words (hk_conv_dsp.c's
 * conv_widen2_s8), the filters (each `taps` bytes, an even count), their offset_bias, the
 * table of each filter's doubled multiplier and inverted shift (two words a filter), and the
 * two pixels' outputs: out0[0..channels) and out0[delta..delta + channels) (delta 0 for a last
 * odd pixel, stored once). */
typedef struct {
    const uint8_t *words;
    const int8_t *filter;
    const int32_t *bias;
    const int32_t *table;
    int8_t *out0;
    int32_t channels, delta, offset;
} hk_conv_taps_run_t;

/* True when `taps` has an unrolled loop (8, 16, 32, 64, 128 or 256). */
static inline bool hk_conv_taps_known(int32_t taps)
{
    return taps == 8 || taps == 16 || taps == 32 || taps == 64 || taps == 128 || taps == 256;
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
#define TAPS_64(T) TAPS_32(T) TAPS_32(T)
/* 32 taps a pass for T = 128 or 256, to the pixel words' end. */
#define TAPS_LOOP(T)                                                                         \
    "1:\n\t" TAPS_32(T)                                                                      \
    "ldr lr, %[words_end]\n\t"                                                               \
    "cmp r4, lr\n\t"                                                                         \
    "bne 1b\n\t"

/* A pair's sums start from its two biases (the pointer on the stack); r4 back to the words. */
#define TAPS_HEAD                                                                            \
    "0:\n\t"                                                                                 \
    "ldr r7, %[bias]\n\t"                                                                    \
    "ldr r4, %[words]\n\t"                                                                   \
    "ldrd r0, r2, [r7], #8\n\t"                                                              \
    "str r7, %[bias]\n\t"                                                                    \
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
    "ldr r12, %[out0]\n\t"                                                                   \
    "ldr lr, %[delta]\n\t"                                                                   \
    "strh r1, [r12, lr]\n\t"                                                                 \
    "strh r0, [r12], #2\n\t"                                                                 \
    "str r12, %[out0]\n\t"                                                                   \
    "ldr lr, %[out0_end]\n\t"                                                                \
    "add r5, r5, #" #T "\n\t"                                                          \
    "cmp r12, lr\n\t"                                                                        \
    "bne 0b\n\t"

/* The block's state on the stack, read through sp: every register but sp is the block's. */
typedef struct {
    const uint8_t *words, *words_end;
    const int8_t *filter;
    const int32_t *bias, *table;
    int8_t *out0, *out0_end;
    int32_t delta;
    int32_t round; /* 1 + 2 * output zero point: the rounding and the zero point in one QADD */
} taps_state_t;

#define TAPS_OPERANDS                                                                        \
    : [bias] "+m"(s->bias), [out0] "+m"(s->out0)                                             \
    : [words] "m"(s->words), [words_end] "m"(s->words_end), [filter] "m"(s->filter),         \
      [table] "m"(s->table), [out0_end] "m"(s->out0_end), [delta] "m"(s->delta),             \
      [round] "m"(s->round)                                                                \
    : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr",  \
      "cc", "memory"
#define TAPS_START                                                                           \
    "ldr r5, %[filter]\n\t"                                                                  \
    "ldr r6, %[table]\n\t"

/* One function per tap count, each its own asm block (taps_pairs_<T>), reading a copy of the
 * state on its stack through sp. Built without a frame pointer whatever the build's flags: the
 * block takes r7. */
#define TAPS_FUNCTION(T, BODY)                                                               \
    static void taps_pairs_##T(const taps_state_t *state)                                    \
        __attribute__((noinline, optimize("omit-frame-pointer")));                           \
    static void taps_pairs_##T(const taps_state_t *state)                                    \
    {                                                                                        \
        taps_state_t copy = *state;                                                          \
        taps_state_t *s = &copy;                                                             \
        __asm__ volatile(TAPS_START TAPS_HEAD BODY TAPS_OPERANDS);                           \
    }
#define TAPS_UNROLLED_FUNCTION(T) TAPS_FUNCTION(T, TAPS_##T(T) TAPS_TAIL(T))
#define TAPS_LOOP_FUNCTION(T) TAPS_FUNCTION(T, TAPS_LOOP(T) TAPS_TAIL(T))

TAPS_UNROLLED_FUNCTION(8)
TAPS_UNROLLED_FUNCTION(16)
TAPS_UNROLLED_FUNCTION(32)
TAPS_UNROLLED_FUNCTION(64)
TAPS_LOOP_FUNCTION(128)
TAPS_LOOP_FUNCTION(256)

/* Every filter pair of `run` over its pixel pair, without a clamp (HK_REQUANT_Q30 only);
 * `taps` satisfies hk_conv_taps_known. */
static __attribute__((noinline)) void hk_conv_taps_pairs_s8(const hk_conv_taps_run_t *run,
                                                            int32_t taps)
{
    /* A copy on the stack, so the block reads it through sp and every other register is its. */
    taps_state_t state;
    state.words = run->words;
    state.words_end = run->words + 4 * taps;
    state.filter = run->filter;
    state.bias = run->bias;
    state.table = run->table;
    state.out0 = run->out0;
    state.out0_end = run->out0 + run->channels;
    state.delta = run->delta;
    state.round = 1 + 2 * run->offset;
    switch (taps) {
    case 8:
        taps_pairs_8(&state);
        break;
    case 16:
        taps_pairs_16(&state);
        break;
    case 32:
        taps_pairs_32(&state);
        break;
    case 64:
        taps_pairs_64(&state);
        break;
    case 128:
        taps_pairs_128(&state);
        break;
    default:
        taps_pairs_256(&state);
        break;
    }
}

#else
#define HK_CONV_TAPS_ASM 0
#endif

#endif /* HK_CONV_TAPS_H */
