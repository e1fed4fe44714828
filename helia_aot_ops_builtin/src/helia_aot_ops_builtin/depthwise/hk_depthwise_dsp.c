/*
 * helia-aot kernel library: the DSP-extension fast paths of int8 DEPTHWISE_CONV_2D with depth
 * multiplier 1 (see hk_depthwise_paths.h and hk_depthwise.h): with offset_bias and at most
 * DW_MAX_TAPS taps the reference calls hk_depthwise_s8_taps_dsp (every window from offset_bias),
 * else hk_depthwise_s8_fast, four channels at a time through dw_s8_walk (SXTAB16, SMLABB /
 * SMLATT).
 */
#include "hk_depthwise_paths.h"

#if HK_HAVE_DSP

/* acc[0..4) = start[c..c+4) (0 without start) plus (input + offset) * filter over the taps for
 * the four channels from c, in int16 lanes: SXTAB16 adds the offset while it widens two input
 * bytes, and SMLABB / SMLATT multiply-accumulate each lane on its own. */
HK_INLINE void dw_taps4_dsp(const dw_call_t *k, const dw_taps_t *t, int32_t c, const int32_t *start,
                        int32_t offset, int32_t *acc)
{
    const int32_t channels = k->p->input_channels;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    if (start != NULL) {
        a0 = start[c];
        a1 = start[c + 1];
        a2 = start[c + 2];
        a3 = start[c + 3];
    }
    const int32_t offsets = hk_dup_s16x2(offset);
    const int8_t *xr = t->x + c, *wr = t->w + c;
    for (int32_t r = t->rows; r > 0; --r, xr += k->x_row, wr += k->w_row) {
        const int8_t *x = xr, *w = wr;
        for (int32_t n = t->cols; n > 0; --n) {
            const uint32_t xb = hk_load_u32(x), wb = hk_load_u32(w);
            const int32_t x02 = hk_sxtab16_even(offsets, xb);
            const int32_t x13 = hk_sxtab16_odd(offsets, xb);
            const int32_t w02 = hk_sxtb16_even(wb), w13 = hk_sxtb16_odd(wb);
            a0 = __smlabb(x02, w02, a0);
            a2 = __smlatt(x02, w02, a2);
            a1 = __smlabb(x13, w13, a1);
            a3 = __smlatt(x13, w13, a3);
            x += k->x_col;
            w += channels;
        }
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

HK_NOINLINE void dw_pixel_s8(const dw_call_t *k, const dw_taps_t *t, int8_t *out)
{
    dw_pixel_rows_s8(k, t, out, dw_taps4_dsp);
}


/*
 * acc[0..n) = start[0..n) plus input * filter over every tap, for n channels of one output
 * pixel: taps[t] points at tap t's input for the first channel (in the image, or at bytes
 * holding the input zero point when the tap lies outside it), w at the first channel's weight
 * of tap 0, the taps `channels` bytes apart. Four channels at a time the accumulators stay in
 * registers over all the taps; SXTB16 widens each input and weight word into its even and odd
 * bytes and SMLABB / SMLATT multiply-accumulate each lane on its own. Inlined with a constant
 * ntaps (a 3x3 filter) the tap loop unrolls.
 */
HK_INLINE void dw_taps_dsp_body(const int8_t *const *taps, const int32_t ntaps, const int8_t *w,
                                int32_t channels, const int32_t *start, int32_t n, int32_t *acc)
{
    int32_t c = 0;
    for (; c + 4 <= n; c += 4) {
        int32_t a0 = start[c], a1 = start[c + 1], a2 = start[c + 2], a3 = start[c + 3];
        const int8_t *wt = w + c;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 9
#endif
        for (int32_t t = 0; t < ntaps; ++t, wt += channels) {
            const uint32_t xb = hk_load_u32(taps[t] + c), wb = hk_load_u32(wt);
            const int32_t x02 = hk_sxtb16_even(xb), x13 = hk_sxtb16_odd(xb);
            const int32_t w02 = hk_sxtb16_even(wb), w13 = hk_sxtb16_odd(wb);
            a0 = __smlabb(x02, w02, a0);
            a2 = __smlatt(x02, w02, a2);
            a1 = __smlabb(x13, w13, a1);
            a3 = __smlatt(x13, w13, a3);
        }
        acc[c] = a0;
        acc[c + 1] = a1;
        acc[c + 2] = a2;
        acc[c + 3] = a3;
    }
    for (; c < n; ++c) {
        int32_t a = start[c];
        for (int32_t t = 0; t < ntaps; ++t) {
            a += taps[t][c] * w[(size_t)t * (size_t)channels + (size_t)c];
        }
        acc[c] = a;
    }
}

HK_NOINLINE void dw_taps9_dsp(const int8_t *const *taps, const int8_t *w, int32_t channels,
                              const int32_t *start, int32_t n, int32_t *acc)
{
    dw_taps_dsp_body(taps, 9, w, channels, start, n, acc);
}

HK_NOINLINE void dw_taps_dsp(const int8_t *const *taps, int32_t ntaps, const int8_t *w,
                             int32_t channels, const int32_t *start, int32_t n, int32_t *acc)
{
    dw_taps_dsp_body(taps, ntaps, w, channels, start, n, acc);
}

/*
 * The whole 3x3 windows of a call whose requantization is HK_REQUANT_Q30 and whose channels
 * come in fours (dw3x3_whole_ok), four channels at a time over every whole window: the four
 * channels' filter taps are widened to int16 lanes once per call (SXTB16, on the stack), so
 * each tap of a window costs one input load, its widening and four multiply-accumulates, the
 * accumulators stay in registers over the nine taps, and the window's four outputs are
 * requantized in registers (hk_requant_row_q30_dsp's arithmetic) and stored as one word.
 * Windows cut by the image edge are left to hk_depthwise_s8_taps_dsp's per-pixel loop.
 */
/* The fewest whole windows for which dw3x3_whole_dsp pays for its per-call widening. */
#define DW3X3_MIN_WINDOWS 16

HK_INLINE bool dw3x3_whole_ok(const hk_depthwise_params_t *p, int32_t mode)
{
    return p->filter_height == 3 && p->filter_width == 3 && p->input_channels % 4 == 0 &&
           mode == HK_REQUANT_Q30;
}

/* One of four requantized channels: hk_requant_row_q30_dsp's value for acc with the multiplier
 * m and the shift's complement ns (= ~shift); `clamp` applies
 * [lo, hi] after the saturation to int8 (a constant at every call: without it lo and hi are
 * the int8 limits, which the saturation already gives). */
HK_INLINE int8_t dw3x3_requant(int32_t acc, int32_t m, int32_t ns, int32_t offset, bool clamp,
                               int32_t lo, int32_t hi)
{
    const int32_t y = hk_doubling_high_q30(acc, m);
    const int32_t q = __qadd((y + (y >> 31)) >> ns, 1);
    const int32_t v = hk_ssat8_dsp(offset + (q >> 1));
    return (int8_t)(clamp ? hk_clamp_i32(v, lo, hi) : v);
}

/* The per-channel constants of four channels for dw3x3_whole_dsp. */
typedef struct {
    int32_t w[9][2]; /* each tap's filter bytes 0 and 2, then 1 and 3, as int16 lanes */
    int32_t start[4], m[4], ns[4];
    int32_t m2[4]; /* m doubled (hk_doubling_high_q30's word), for dw3x3_row_asm */
} dw3x3_group_t;

#if defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(__clang__)
#define DW3X3_ASM 1
/* One tap of dw3x3_whole_dsp's window: the input word at [x], the tap's widened filter words at
 * [g, #w], then four multiply-accumulates; the two filter loads pipeline behind the input's. */
#define DW3X3_TAP(w)                                                                         \
    "ldr %[xb], [%[x]]\n\t"                                                                  \
    "ldr %[we], [%[g], #" #w "]\n\t"                                                         \
    "ldr %[wo], [%[g], #" #w " + 4]\n\t"                                                     \
    "sxtb16 %[xo], %[xb], ror #8\n\t"                                                        \
    "sxtb16 %[xb], %[xb]\n\t"                                                                \
    "smlabb %[a0], %[xb], %[we], %[a0]\n\t"                                                  \
    "smlatt %[a2], %[xb], %[we], %[a2]\n\t"                                                  \
    "smlabb %[a1], %[xo], %[wo], %[a1]\n\t"                                                  \
    "smlatt %[a3], %[xo], %[wo], %[a3]\n\t"
#define DW3X3_ROW(w0, w1, w2)                                                                \
    DW3X3_TAP(w0) "add %[x], %[x], %[col]\n\t" DW3X3_TAP(w1) "add %[x], %[x], %[col]\n\t"     \
        DW3X3_TAP(w2) "add %[x], %[x], %[next]\n\t"

/*
 * A row of whole windows without a clamp in one assembly block: per window the four sums start
 * from g->start (one LDM), take the nine taps as dw3x3_window's block does, and are requantized
 * in registers (hk_requant_row_q30_dsp's arithmetic, the multipliers doubled in g->m2 and the
 * shifts inverted in g->ns, the rounding and the output zero point in one QADD), packed into
 * one word (BFI) and stored. Registers: sums r0..r3 (channels 0..3), input r4, group r5, one
 * column r6 (a register offset, shifted for two: the input pointer steps once a row), output
 * r7, row step r8, temporaries r9..r12 and lr; the rest of the loop state (dw3x3_run_t) on the
 * stack, read through sp.
 */
typedef struct {
    const int8_t *x;              /* the first window's origin */
    const dw3x3_group_t *g;
    int32_t col, next, back;      /* tap to tap, row to row, window end to next window */
    int8_t *out, *out_end;        /* the first window's output and one past the last's */
    int32_t round;                /* 1 + 2 * output zero point (hk_conv_taps.h's folded QADD) */
    int32_t out_step;             /* bytes from one output pixel to the next */
} dw3x3_run_t;

/* The group offsets the block reads: start at 72, ns at 104, m2 at 120. */
typedef char dw3x3_group_layout_t[(offsetof(dw3x3_group_t, start) == 72 &&
                                   offsetof(dw3x3_group_t, ns) == 104 &&
                                   offsetof(dw3x3_group_t, m2) == 120)
                                      ? 1
                                      : -1];

/* One tap: the input word at [r4] or [r4, ADDR] (ADDR a register holding the tap's column
 * offset), the tap's widened filter words from the group, four multiply-accumulates. */
#define DW3X3_TAP_R(w, ADDR)                                                                 \
    "ldr r9, [r4" ADDR "]\n\t"                                                               \
    "ldr r11, [r5, #" #w "]\n\t"                                                             \
    "ldr r12, [r5, #" #w " + 4]\n\t"                                                         \
    "sxtb16 r10, r9, ror #8\n\t"                                                             \
    "sxtb16 r9, r9\n\t"                                                                      \
    "smlabb r0, r9, r11, r0\n\t"                                                             \
    "smlatt r2, r9, r11, r2\n\t"                                                             \
    "smlabb r1, r10, r12, r1\n\t"                                                            \
    "smlatt r3, r10, r12, r3\n\t"
/* A window row: its three columns at r4, r4 + r6 (one column) and r4 + 2 * r6, then r4 to the
 * next row (r8), so a row costs one pointer step instead of three. */
#define DW3X3_ROW_R(w0, w1, w2)                                                              \
    DW3X3_TAP_R(w0, "") DW3X3_TAP_R(w1, ", r6") DW3X3_TAP_R(w2, ", r6, lsl #1")              \
        "add r4, r4, r8\n\t"

/* Built without a frame pointer whatever the build's flags: the block takes r7. */
HK_NOINLINE void dw3x3_row_asm(const dw3x3_run_t *run)
    __attribute__((optimize("omit-frame-pointer")));
HK_NOINLINE void dw3x3_row_asm(const dw3x3_run_t *run)
{
    /* A copy on the stack, so the block reads it through sp and every other register is its. */
    dw3x3_run_t copy = *run;
    dw3x3_run_t *r = &copy;
    __asm__ volatile(
        "ldr r4, %[x]\n\t"
        "ldr r5, %[g]\n\t"
        "ldr r6, %[col]\n\t"
        "ldr r8, %[next]\n\t"
        "ldr r7, %[out]\n\t"
        "0:\n\t"
        "add lr, r5, #72\n\t"
        "ldmia lr, {r0, r1, r2, r3}\n\t"
        DW3X3_ROW_R(0, 8, 16) DW3X3_ROW_R(24, 32, 40) DW3X3_ROW_R(48, 56, 64)
        "add lr, r5, #120\n\t"
        "ldmia lr, {r9, r10, r11, r12}\n\t"
        "smmlar r0, r0, r9, r0\n\t"
        "smmlar r1, r1, r10, r1\n\t"
        "smmlar r2, r2, r11, r2\n\t"
        "smmlar r3, r3, r12, r3\n\t"
        "add r0, r0, r0, asr #31\n\t"
        "add r1, r1, r1, asr #31\n\t"
        "add r2, r2, r2, asr #31\n\t"
        "add r3, r3, r3, asr #31\n\t"
        "add lr, r5, #104\n\t"
        "ldmia lr, {r9, r10, r11, r12}\n\t"
        "asr r0, r0, r9\n\t"
        "asr r1, r1, r10\n\t"
        "asr r2, r2, r11\n\t"
        "asr r3, r3, r12\n\t"
        "ldr r9, %[round]\n\t"
        "qadd r0, r0, r9\n\t"
        "qadd r1, r1, r9\n\t"
        "qadd r2, r2, r9\n\t"
        "qadd r3, r3, r9\n\t"
        "ssat r0, #8, r0, asr #1\n\t"
        "ssat r1, #8, r1, asr #1\n\t"
        "ssat r2, #8, r2, asr #1\n\t"
        "ssat r3, #8, r3, asr #1\n\t"
        "bfi r0, r1, #8, #8\n\t"
        "bfi r0, r2, #16, #8\n\t"
        "bfi r0, r3, #24, #8\n\t"
        "str r0, [r7]\n\t"
        "ldr r9, %[out_step]\n\t"
        "ldr r10, %[back]\n\t"
        "ldr r11, %[out_end]\n\t"
        "add r7, r7, r9\n\t"
        "add r4, r4, r10\n\t"
        "cmp r7, r11\n\t"
        "bne 0b"
        :
        : [out] "m"(r->out), [x] "m"(r->x), [g] "m"(r->g), [col] "m"(r->col), [next] "m"(r->next),
          [back] "m"(r->back), [out_end] "m"(r->out_end), [round] "m"(r->round),
          [out_step] "m"(r->out_step)
        : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr",
          "cc", "memory");
}

/*
 * The channels of one 3x3 window cut by the image edge (hk_depthwise_s8_taps_dsp's per-pixel
 * loop, its taps outside the image reading the input zero point) for a clamp-free Q30 call,
 * four channels a pass in one assembly block: the nine tap pointers come from the stack, each
 * tap's four input and filter bytes are widened in registers, and the sums are requantized in
 * registers and stored as one word, instead of an accumulator row requantized afterwards.
 * Registers: sums r0..r3, channel byte offset r4, filter r5 (tap 0 of the pass's channels),
 * filter row r6 (channels), temporaries r8..r12 and lr.
 */
typedef struct {
    const int8_t *tap[9];      /* each tap's input at the chunk's first channel */
    const int32_t *start;      /* offset_bias at the chunk's first channel */
    const int32_t *mult, *shift;
    int8_t *out;               /* the pixel's output at the chunk's first channel */
    const int8_t *filter;      /* tap 0's filter at the chunk's first channel */
    int32_t channels, n, round; /* round: 1 + 2 * output zero point */
} dw_edge_run_t;

#define DW_EDGE_TAP(t)                                                                       \
    "ldr lr, %[t" #t "]\n\t"                                                                 \
    "ldr r9, [r10]\n\t"                                                                      \
    "ldr r8, [lr, r4]\n\t"                                                                   \
    "add r10, r10, r6\n\t"                                                                   \
    "sxtb16 r11, r8\n\t"                                                                     \
    "sxtb16 r8, r8, ror #8\n\t"                                                              \
    "sxtb16 r12, r9\n\t"                                                                     \
    "sxtb16 r9, r9, ror #8\n\t"                                                              \
    "smlabb r0, r11, r12, r0\n\t"                                                            \
    "smlatt r2, r11, r12, r2\n\t"                                                            \
    "smlabb r1, r8, r9, r1\n\t"                                                              \
    "smlatt r3, r8, r9, r3\n\t"

HK_NOINLINE void dw_edge_asm(const dw_edge_run_t *run)
{
    /* A copy on the stack, so the block reads it through sp and every other register is its. */
    dw_edge_run_t copy = *run;
    dw_edge_run_t *r = &copy;
    __asm__ volatile(
        "mov r4, #0\n\t"
        "ldr r5, %[filter]\n\t"
        "ldr r6, %[channels]\n\t"
        "0:\n\t"
        "ldr lr, %[start]\n\t"
        "add lr, lr, r4, lsl #2\n\t"
        "ldmia lr, {r0, r1, r2, r3}\n\t"
        "mov r10, r5\n\t"
        DW_EDGE_TAP(0) DW_EDGE_TAP(1) DW_EDGE_TAP(2) DW_EDGE_TAP(3) DW_EDGE_TAP(4)
        DW_EDGE_TAP(5) DW_EDGE_TAP(6) DW_EDGE_TAP(7) DW_EDGE_TAP(8)
        "ldr lr, %[mult]\n\t"
        "add lr, lr, r4, lsl #2\n\t"
        "ldmia lr, {r9, r10, r11, r12}\n\t"
        "lsl r9, r9, #1\n\t"
        "lsl r10, r10, #1\n\t"
        "lsl r11, r11, #1\n\t"
        "lsl r12, r12, #1\n\t"
        "smmlar r0, r0, r9, r0\n\t"
        "smmlar r1, r1, r10, r1\n\t"
        "smmlar r2, r2, r11, r2\n\t"
        "smmlar r3, r3, r12, r3\n\t"
        "add r0, r0, r0, asr #31\n\t"
        "add r1, r1, r1, asr #31\n\t"
        "add r2, r2, r2, asr #31\n\t"
        "add r3, r3, r3, asr #31\n\t"
        "ldr lr, %[shift]\n\t"
        "add lr, lr, r4, lsl #2\n\t"
        "ldmia lr, {r9, r10, r11, r12}\n\t"
        "mvn r9, r9\n\t"
        "mvn r10, r10\n\t"
        "mvn r11, r11\n\t"
        "mvn r12, r12\n\t"
        "asr r0, r0, r9\n\t"
        "asr r1, r1, r10\n\t"
        "asr r2, r2, r11\n\t"
        "asr r3, r3, r12\n\t"
        "ldr r9, %[round]\n\t"
        "qadd r0, r0, r9\n\t"
        "qadd r1, r1, r9\n\t"
        "qadd r2, r2, r9\n\t"
        "qadd r3, r3, r9\n\t"
        "ssat r0, #8, r0, asr #1\n\t"
        "ssat r1, #8, r1, asr #1\n\t"
        "ssat r2, #8, r2, asr #1\n\t"
        "ssat r3, #8, r3, asr #1\n\t"
        "bfi r0, r1, #8, #8\n\t"
        "bfi r0, r2, #16, #8\n\t"
        "bfi r0, r3, #24, #8\n\t"
        "ldr lr, %[out]\n\t"
        "str r0, [lr, r4]\n\t"
        "add r4, r4, #4\n\t"
        "add r5, r5, #4\n\t"
        "ldr lr, %[n]\n\t"
        "cmp r4, lr\n\t"
        "bne 0b"
        :
        : [t0] "m"(r->tap[0]), [t1] "m"(r->tap[1]), [t2] "m"(r->tap[2]), [t3] "m"(r->tap[3]),
          [t4] "m"(r->tap[4]), [t5] "m"(r->tap[5]), [t6] "m"(r->tap[6]), [t7] "m"(r->tap[7]),
          [t8] "m"(r->tap[8]), [start] "m"(r->start), [mult] "m"(r->mult),
          [shift] "m"(r->shift), [out] "m"(r->out), [filter] "m"(r->filter),
          [channels] "m"(r->channels), [n] "m"(r->n), [round] "m"(r->round)
        : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r8", "r9", "r10", "r11", "r12", "lr", "cc",
          "memory");
}
#else
#define DW3X3_ASM 0
#endif

/* The four channels' sums over one whole window from x: start plus input * filter. */
HK_INLINE void dw3x3_window(const dw3x3_group_t *g, const int8_t *x, size_t x_col, size_t x_row,
                            int32_t *acc)
{
    int32_t a0 = g->start[0], a1 = g->start[1], a2 = g->start[2], a3 = g->start[3];
#if DW3X3_ASM
    /* Nine taps in 84 instructions, twelve registers: x steps along the window's rows. */
    const size_t next = x_row - 2 * x_col;
    int32_t xb, xo, we, wo;
    __asm__(DW3X3_ROW(0, 8, 16) DW3X3_ROW(24, 32, 40) DW3X3_ROW(48, 56, 64)
            : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x),
              [xb] "=&r"(xb), [xo] "=&r"(xo), [we] "=&r"(we), [wo] "=&r"(wo)
            : [g] "r"(g->w), [col] "r"(x_col), [next] "r"(next)
            : "memory");
#else
    for (int32_t fy = 0; fy < 3; ++fy, x += x_row) {
        for (int32_t fx = 0; fx < 3; ++fx) {
            const uint32_t xb = hk_load_u32(x + (size_t)fx * x_col);
            const int32_t x02 = hk_sxtb16_even(xb), x13 = hk_sxtb16_odd(xb);
            const int32_t w02 = g->w[fy * 3 + fx][0], w13 = g->w[fy * 3 + fx][1];
            a0 = __smlabb(x02, w02, a0);
            a2 = __smlatt(x02, w02, a2);
            a1 = __smlabb(x13, w13, a1);
            a3 = __smlatt(x13, w13, a3);
        }
    }
#endif
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* Every whole window of the output rows [oy_lo, oy_hi) and columns [ox_lo, ox_hi) for the four
 * channels of g (from image and out_image at their first channel). */
HK_INLINE void dw3x3_windows(const hk_depthwise_params_t *p, const dw3x3_group_t *g,
                             const int8_t *image, int8_t *out_image, int32_t oy_lo,
                             int32_t oy_hi, int32_t ox_lo, int32_t ox_hi, bool clamp)
{
    const int32_t channels = p->input_channels;
    const int32_t lo = hk_max_i32(p->act_min, -128), hi = hk_min_i32(p->act_max, 127);
    const int32_t offset = p->output_offset;
    const size_t x_col = (size_t)p->dilation_width * (size_t)channels;
    const size_t x_row = (size_t)p->dilation_height * (size_t)p->input_width * (size_t)channels;
    const size_t step = (size_t)p->stride_width * (size_t)channels;
    for (int32_t oy = oy_lo; oy < oy_hi; ++oy) {
        const int32_t iy0 = oy * p->stride_height - p->pad_top;
        const int32_t ix0 = ox_lo * p->stride_width - p->pad_left;
        const int8_t *x =
            image + ((size_t)iy0 * (size_t)p->input_width + (size_t)ix0) * (size_t)channels;
        int8_t *out =
            out_image + ((size_t)oy * (size_t)p->output_width + (size_t)ox_lo) * (size_t)channels;
#if DW3X3_ASM
        if (!clamp) {
            dw3x3_run_t run;
            run.x = x;
            run.g = g;
            run.col = (int32_t)x_col;
            run.next = (int32_t)x_row;
            run.back = (int32_t)step - 3 * (int32_t)x_row;
            run.out = out;
            run.out_end = out + (size_t)(ox_hi - ox_lo) * (size_t)channels;
            run.round = 1 + 2 * offset;
            run.out_step = channels;
            dw3x3_row_asm(&run);
            continue;
        }
#endif
        for (int32_t n = ox_hi - ox_lo; n > 0; --n, x += step, out += channels) {
            int32_t acc[4];
            dw3x3_window(g, x, x_col, x_row, acc);
            out[0] = dw3x3_requant(acc[0], g->m[0], g->ns[0], offset, clamp, lo, hi);
            out[1] = dw3x3_requant(acc[1], g->m[1], g->ns[1], offset, clamp, lo, hi);
            out[2] = dw3x3_requant(acc[2], g->m[2], g->ns[2], offset, clamp, lo, hi);
            out[3] = dw3x3_requant(acc[3], g->m[3], g->ns[3], offset, clamp, lo, hi);
        }
    }
}

/* The most channels for which dw3x3_edges beats the per-pixel edge loop, whose per-pixel set-up
 * (nine tap pointers with their bounds) is shared by every group of four channels: measured on
 * VWW's depthwise layers on the M4 (8 to 32 channels faster, 64 and 128 slower). */
#define DW3X3_EDGE_CHANNELS 32

/* True when dw3x3_whole_dsp also takes the windows cut by the image edge (dw3x3_edges):
 * without a clamp or a dilation, where dw3x3_row_asm runs, for few channels. */
HK_INLINE bool dw3x3_edges_ok(const hk_depthwise_params_t *p)
{
    return DW3X3_ASM && p->act_min <= -128 && p->act_max >= 127 && p->dilation_height == 1 &&
           p->dilation_width == 1 && p->input_channels <= DW3X3_EDGE_CHANNELS;
}

#if DW3X3_ASM
/* The largest patch dw3x3_edge_run gathers, in words (four channels each). */
#define DW3X3_PATCH_WORDS 192

/*
 * n windows cut by the image edge for the four channels of g (image and out_image at their
 * first channel), from output pixel (oy, ox) along its row, or down its column with `down`:
 * the words they read (the four channels' bytes of each input pixel, the input zero point's
 * outside the image) gathered into a patch on the stack, in which every window is whole, then
 * dw3x3_row_asm over the patch, as over the image for the whole windows. A tap outside reads
 * the zero point, whose product cancels that tap's share of offset_bias exactly (see
 * hk_depthwise_s8_taps_dsp), so the result is the reference's. n fits the patch
 * (dw3x3_edges).
 */
HK_NOINLINE void dw3x3_edge_run(const hk_depthwise_params_t *p, const dw3x3_group_t *g,
                                const int8_t *image, int8_t *out_image, int32_t oy,
                                int32_t ox, int32_t n, bool down, uint32_t zero_word)
{
    uint32_t patch[DW3X3_PATCH_WORDS];
    const size_t channels = (size_t)p->input_channels;
    const int32_t stride = down ? p->stride_height : p->stride_width;
    const int32_t span = (n - 1) * stride + 3; /* the patch's extent along the run */
    const int32_t rows = down ? span : 3, cols = down ? 3 : span;
    const int32_t iy0 = oy * p->stride_height - p->pad_top;
    const int32_t ix0 = ox * p->stride_width - p->pad_left;
    /* The patch columns [k_lo, k_hi) lie in the image; the rest, and rows outside, are zero. */
    const int32_t k_lo = hk_min_i32(hk_max_i32(-ix0, 0), cols);
    const int32_t k_hi = hk_max_i32(hk_min_i32(p->input_width - ix0, cols), k_lo);
    uint32_t *word = patch;
    for (int32_t r = 0; r < rows; ++r, word += cols) {
        const int32_t iy = iy0 + r;
        if (iy < 0 || iy >= p->input_height) {
            for (int32_t k = 0; k < cols; ++k) {
                word[k] = zero_word;
            }
            continue;
        }
        for (int32_t k = 0; k < k_lo; ++k) {
            word[k] = zero_word;
        }
        const int8_t *src =
            image + ((size_t)iy * (size_t)p->input_width + (size_t)(ix0 + k_lo)) * channels;
        for (int32_t k = k_lo; k < k_hi; ++k, src += channels) {
            word[k] = hk_load_u32(src);
        }
        for (int32_t k = k_hi; k < cols; ++k) {
            word[k] = zero_word;
        }
    }
    const size_t out_step = down ? (size_t)p->output_width * channels : channels;
    int8_t *out = out_image + ((size_t)oy * (size_t)p->output_width + (size_t)ox) * channels;
    dw3x3_run_t run;
    run.x = (const int8_t *)patch;
    run.g = g;
    run.col = 4;
    run.next = 4 * cols;
    run.back = 4 * (down ? stride * cols : stride) - 3 * run.next;
    run.out = out;
    run.out_end = out + (size_t)n * out_step;
    run.round = 1 + 2 * p->output_offset;
    run.out_step = (int32_t)out_step;
    dw3x3_row_asm(&run);
}

/* Every window outside the whole ones, rows [oy_lo, oy_hi) by columns [ox_lo, ox_hi) (not
 * empty), for the four channels of g: the rows above and below along each row, the columns
 * left and right of the whole windows down each column, each run cut to fit the patch. */
HK_NOINLINE void dw3x3_edges(const hk_depthwise_params_t *p, const dw3x3_group_t *g,
                             const int8_t *image, int8_t *out_image, int32_t oy_lo,
                             int32_t oy_hi, int32_t ox_lo, int32_t ox_hi)
{
    const uint32_t zero_word = (uint32_t)(uint8_t)(int8_t)(-p->input_offset) * 0x01010101u;
    const int32_t along = (DW3X3_PATCH_WORDS / 3 - 3) / p->stride_width + 1;
    const int32_t down = (DW3X3_PATCH_WORDS / 3 - 3) / p->stride_height + 1;
    for (int32_t oy = 0; oy < p->output_height; ++oy) {
        if (oy == oy_lo) {
            oy = oy_hi; /* the rows with whole windows: their edge columns below */
            if (oy == p->output_height) {
                break;
            }
        }
        for (int32_t ox = 0; ox < p->output_width; ox += along) {
            dw3x3_edge_run(p, g, image, out_image, oy, ox,
                           hk_min_i32(along, p->output_width - ox), false, zero_word);
        }
    }
    for (int32_t ox = 0; ox < p->output_width; ++ox) {
        if (ox == ox_lo) {
            ox = ox_hi;
            if (ox == p->output_width) {
                break;
            }
        }
        for (int32_t oy = oy_lo; oy < oy_hi; oy += down) {
            dw3x3_edge_run(p, g, image, out_image, oy, ox, hk_min_i32(down, oy_hi - oy), true,
                           zero_word);
        }
    }
}
#endif

HK_NOINLINE void dw3x3_whole_dsp(const hk_depthwise_params_t *p, const int8_t *input,
                                 const int8_t *filter, int8_t *output, int32_t oy_lo,
                                 int32_t oy_hi, int32_t ox_lo, int32_t ox_hi)
{
    const int32_t channels = p->input_channels;
    const bool clamp = p->act_min > -128 || p->act_max < 127;
    const size_t image_size =
        (size_t)p->input_height * (size_t)p->input_width * (size_t)channels;
    const size_t out_size =
        (size_t)p->output_height * (size_t)p->output_width * (size_t)channels;
#if DW3X3_ASM
    const bool edges = dw3x3_edges_ok(p);
#endif
    dw3x3_group_t g;
    for (int32_t c = 0; c < channels; c += 4) {
        for (int32_t t = 0; t < 9; ++t) {
            const uint32_t wb = hk_load_u32(filter + (size_t)t * (size_t)channels + (size_t)c);
            g.w[t][0] = hk_sxtb16_even(wb);
            g.w[t][1] = hk_sxtb16_odd(wb);
        }
        for (int32_t i = 0; i < 4; ++i) {
            g.start[i] = p->offset_bias[c + i];
            g.m[i] = p->output_multiplier[c + i];
            g.ns[i] = ~p->output_shift[c + i];
            g.m2[i] = (int32_t)((uint32_t)g.m[i] << 1);
        }
        for (int32_t b = 0; b < p->batches; ++b) {
            const int8_t *image = input + (size_t)b * image_size + (size_t)c;
            int8_t *out_image = output + (size_t)b * out_size + (size_t)c;
            if (clamp) {
                dw3x3_windows(p, &g, image, out_image, oy_lo, oy_hi, ox_lo, ox_hi, true);
            } else {
                dw3x3_windows(p, &g, image, out_image, oy_lo, oy_hi, ox_lo, ox_hi, false);
            }
#if DW3X3_ASM
            if (edges) {
                dw3x3_edges(p, &g, image, out_image, oy_lo, oy_hi, ox_lo, ox_hi);
            }
#endif
        }
    }
}

/*
 * Depth multiplier 1 with offset_bias on the DSP extension: every window, cut by the image edge
 * or not, starts from offset_bias and multiplies raw inputs. A tap outside the image reads the
 * input zero point, whose product with the weight, -input_offset * w, cancels that tap's share
 * of the folded offset exactly (int32 sums wrap the same either way), so the result is the
 * reference's sum over the taps inside. Channels go DW_ROW at a time (the zero-point bytes and
 * the accumulator row on the stack), each row requantized after its taps.
 */
void hk_depthwise_s8_taps_dsp(const hk_depthwise_params_t *p, const int8_t *input,
                               const int8_t *filter, int8_t *output)
{
    const int32_t channels = p->input_channels;
    const int32_t ntaps = p->filter_height * p->filter_width;
    const size_t image_size =
        (size_t)p->input_height * (size_t)p->input_width * (size_t)channels;
    const int32_t lo = hk_max_i32(p->act_min, -128), hi = hk_min_i32(p->act_max, 127);
    const int32_t mode = hk_requant_mode(p->output_multiplier, p->output_shift, channels);
    int8_t zero_point[DW_ROW];
    /* A word at a time (goal size calls this once per output pixel). */
    const uint32_t zero_word = (uint32_t)(uint8_t)(int8_t)(-p->input_offset) * 0x01010101u;
    for (int32_t i = 0; i < DW_ROW; i += 4) {
        hk_store_u32(zero_point + i, zero_word);
    }
    int32_t acc[DW_ROW];
    /* Each tap's place in the window: rows and columns from its origin, and bytes from the
     * origin's first channel (for windows inside the image, whose taps need no check). */
    int32_t tap_y[DW_MAX_TAPS], tap_x[DW_MAX_TAPS];
    size_t tap_bytes[DW_MAX_TAPS];
    for (int32_t fy = 0, t = 0; fy < p->filter_height; ++fy) {
        for (int32_t fx = 0; fx < p->filter_width; ++fx, ++t) {
            tap_y[t] = fy * p->dilation_height;
            tap_x[t] = fx * p->dilation_width;
            tap_bytes[t] =
                ((size_t)tap_y[t] * (size_t)p->input_width + (size_t)tap_x[t]) * (size_t)channels;
        }
    }
    const int32_t span_y = (p->filter_height - 1) * p->dilation_height;
    const int32_t span_x = (p->filter_width - 1) * p->dilation_width;
    /* The whole windows go to dw3x3_whole_dsp where it applies: output rows [oy_lo, oy_hi)
     * and columns [ox_lo, ox_hi) (the windows with iy0 in [0, height - 1 - span_y], and
     * likewise for x); the loop below then takes the windows cut by the image edge only. */
    int32_t oy_lo = 0, oy_hi = 0, ox_lo = 0, ox_hi = 0;
    if (p->batches * p->output_height * p->output_width >= DW3X3_MIN_WINDOWS &&
        dw3x3_whole_ok(p, mode)) {
        oy_lo = (p->pad_top + p->stride_height - 1) / p->stride_height;
        ox_lo = (p->pad_left + p->stride_width - 1) / p->stride_width;
        const int32_t last_y = p->input_height - 1 - span_y + p->pad_top;
        const int32_t last_x = p->input_width - 1 - span_x + p->pad_left;
        oy_hi = last_y < 0 ? 0 : hk_min_i32(p->output_height, last_y / p->stride_height + 1);
        ox_hi = last_x < 0 ? 0 : hk_min_i32(p->output_width, last_x / p->stride_width + 1);
        /* Widening the filter costs about two whole windows per four channels: a call with
         * few whole windows (goal size calls it once per output pixel) keeps the per-pixel loop. */
        if (oy_hi > oy_lo && ox_hi > ox_lo &&
            (oy_hi - oy_lo) * (ox_hi - ox_lo) * p->batches >= DW3X3_MIN_WINDOWS) {
            dw3x3_whole_dsp(p, input, filter, output, oy_lo, oy_hi, ox_lo, ox_hi);
            if (dw3x3_edges_ok(p)) {
                return; /* the windows cut by the edge too (dw3x3_edges) */
            }
        } else {
            oy_lo = oy_hi = ox_lo = ox_hi = 0;
        }
    }
    const int8_t *row[DW_MAX_TAPS]; /* each tap's input at the row's first channel */
#if DW3X3_ASM
    /* Channels in fours (so every chunk is), nine taps, Q30 and no clamp: dw_edge_asm. */
    const bool edge_asm = ntaps == 9 && channels % 4 == 0 && mode == HK_REQUANT_Q30 &&
                          lo == -128 && hi == 127;
#endif
    int8_t *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + (size_t)b * image_size;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t iy0 = oy * p->stride_height - p->pad_top;
            const bool rows_inside = iy0 >= 0 && iy0 + span_y < p->input_height;
            const bool done_row = oy >= oy_lo && oy < oy_hi;
            for (int32_t ox = 0; ox < p->output_width; ++ox, out += channels) {
                if (done_row && ox == ox_lo) {
                    out += (size_t)(ox_hi - ox_lo) * (size_t)channels;
                    ox = ox_hi;
                    if (ox == p->output_width) {
                        break;
                    }
                }
                const int32_t ix0 = ox * p->stride_width - p->pad_left;
                const bool whole = rows_inside && ix0 >= 0 && ix0 + span_x < p->input_width;
                for (int32_t c0 = 0; c0 < channels; c0 += DW_ROW) {
                    const int32_t n = hk_min_i32(DW_ROW, channels - c0);
                    if (whole) {
                        const int8_t *origin =
                            image +
                            ((size_t)iy0 * (size_t)p->input_width + (size_t)ix0) *
                                (size_t)channels +
                            (size_t)c0;
                        for (int32_t t = 0; t < ntaps; ++t) {
                            row[t] = origin + tap_bytes[t];
                        }
                    } else {
                        for (int32_t t = 0; t < ntaps; ++t) {
                            const int32_t iy = iy0 + tap_y[t], ix = ix0 + tap_x[t];
                            row[t] = iy >= 0 && iy < p->input_height && ix >= 0 &&
                                             ix < p->input_width
                                         ? image +
                                               ((size_t)iy * (size_t)p->input_width +
                                                (size_t)ix) * (size_t)channels +
                                               (size_t)c0
                                         : zero_point;
                        }
                    }
#if DW3X3_ASM
                    if (edge_asm) {
                        dw_edge_run_t run;
                        for (int32_t t = 0; t < 9; ++t) {
                            run.tap[t] = row[t];
                        }
                        run.start = p->offset_bias + c0;
                        run.mult = p->output_multiplier + c0;
                        run.shift = p->output_shift + c0;
                        run.out = out + c0;
                        run.filter = filter + c0;
                        run.channels = channels;
                        run.n = n;
                        run.round = 1 + 2 * p->output_offset;
                        dw_edge_asm(&run);
                        continue;
                    }
#endif
                    if (ntaps == 9) {
                        dw_taps9_dsp(row, filter + c0, channels, p->offset_bias + c0, n, acc);
                    } else {
                        dw_taps_dsp(row, ntaps, filter + c0, channels, p->offset_bias + c0, n,
                                    acc);
                    }
                    hk_requant_row_s8(acc, p->output_multiplier + c0, p->output_shift + c0, n,
                                      p->output_offset, lo, hi, mode, out + c0);
                }
            }
        }
    }
}

void hk_depthwise_s8_fast(const hk_depthwise_params_t *params, const int8_t *input,
                          const int8_t *filter, const int32_t *bias, int8_t *output)
{
    dw_s8_walk(params, input, filter, bias, output, dw_pixel_s8, NULL, NULL, NULL);
}

#endif /* HK_HAVE_DSP */
