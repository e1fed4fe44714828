/*
 * helia-aot kernel library: the Helium fast path of int8 DEPTHWISE_CONV_2D with depth
 * multiplier 1 (see hk_depthwise_paths.h and hk_depthwise.h): sixteen channels at a time in
 * int32 lanes, whole 3x3 windows along a row and 3x3 windows cut by the image edge in blocks of
 * assembly, and the offset_bias fold four channels at a time.
 */
#include "hk_depthwise_paths.h"

#if HK_HAVE_MVE

/* Sixteen channels' accumulators, as int32 lanes of even (e) and odd (o) channels. */
typedef struct {
    int32x4_t e0, o0, e1, o1;
} dw_acc16_mve_t;

/* Adds input * filter over the taps for channels c..c+15; with `offset` the input offset is
 * added to each input first. */
HK_INLINE dw_acc16_mve_t dw_taps16_mve(const dw_call_t *k, const dw_taps_t *t, int32_t c,
                                      dw_acc16_mve_t a, bool offset)
{
    const int32_t channels = k->p->input_channels;
    const int16_t input_offset = (int16_t)k->p->input_offset;
    const int8_t *xr = t->x + c, *wr = t->w + c;
    for (int32_t r = t->rows; r > 0; --r, xr += k->x_row, wr += k->w_row) {
        const int8_t *x = xr, *w = wr;
        for (int32_t n = t->cols; n > 0; --n) {
            /* The upper half first: GCC then addresses both halves from x and w as they are
             * instead of copying them for post-incremented loads. */
            int16x8_t xv = vldrbq_s16(x + 8), wv = vldrbq_s16(w + 8);
            if (offset) {
                xv = vaddq_n_s16(xv, input_offset);
            }
            a.e1 = vaddq_s32(a.e1, vmullbq_int_s16(xv, wv));
            a.o1 = vaddq_s32(a.o1, vmulltq_int_s16(xv, wv));
            /* Loading both halves first needs nine Q registers of the eight; keep the
             * scheduler from hoisting the second pair of loads. */
            HK_COMPILER_BARRIER();
            xv = vldrbq_s16(x);
            wv = vldrbq_s16(w);
            if (offset) {
                xv = vaddq_n_s16(xv, input_offset);
            }
            a.e0 = vaddq_s32(a.e0, vmullbq_int_s16(xv, wv));
            a.o0 = vaddq_s32(a.o0, vmulltq_int_s16(xv, wv));
            x += k->x_col;
            w += channels;
        }
    }
    return a;
}

/* Whether the activation's lower bound is at or above the output zero point (a ReLU): the
 * requantization may then leave out its rounding fixup (dw_store8_ms_mve). */
HK_INLINE bool dw_relu(const dw_call_t *k)
{
    return k->lo >= k->p->output_offset;
}

/* Channels c..c+7, accumulated as even (0, 2, 4, 6) and odd lanes, requantized (every shift a
 * right shift: see dw_pixel_s8) and stored in channel order. Saturating to int16 before the
 * output offset and the clamp gives the same bytes as clamping the int32 results (both bounds
 * lie well inside int16) at half the work. */
HK_INLINE void dw_store8_ms_mve(const dw_call_t *k, int32_t c, int32x4_t even, int32x4_t odd,
                                int32x4x2_t m, int32x4x2_t s, int16x8_t lo, int16x8_t hi,
                                bool relu, int8_t *out)
{
    if (relu) {
        /* hk_requant_right_mve without its fixup (negative values lowered by one before the
         * rounding shift): that changes only results at or below zero, which the clamp takes
         * to lo (at or above the output zero point) either way. */
        even = vrshlq_s32(vqrdmulhq_s32(even, m.val[0]), s.val[0]);
        odd = vrshlq_s32(vqrdmulhq_s32(odd, m.val[1]), s.val[1]);
    } else {
        even = hk_requant_right_mve(even, m.val[0], s.val[0]);
        odd = hk_requant_right_mve(odd, m.val[1], s.val[1]);
    }
    /* Narrowing into `lo` overwrites every lane: it only saves materializing a vector. */
    int16x8_t y = vqmovntq_s32(vqmovnbq_s32(lo, even), odd);
    y = vqaddq_n_s16(y, (int16_t)k->p->output_offset);
    vstrbq_s16(out + c, vminq_s16(vmaxq_s16(y, lo), hi));
}

/* dw_store8_ms_mve with channel c's multipliers and shifts loaded here. */
HK_INLINE void dw_store8_mve(const dw_call_t *k, int32_t c, int32x4_t even, int32x4_t odd,
                             int16x8_t lo, int16x8_t hi, bool relu, int8_t *out)
{
    dw_store8_ms_mve(k, c, even, odd, vld2q_s32(k->p->output_multiplier + c),
                     vld2q_s32(k->p->output_shift + c), lo, hi, relu, out);
}

/* Channels c..c+3 (fewer where `keep` says) in int32 lanes, for the channels after the last
 * whole sixteen. */
HK_INLINE int32x4_t dw_taps4_mve(const dw_call_t *k, const dw_taps_t *t, int32_t c,
                                 int32x4_t acc, mve_pred16_t keep, int32_t input_offset)
{
    const int32_t channels = k->p->input_channels;
    const int8_t *xr = t->x + c, *wr = t->w + c;
    for (int32_t r = t->rows; r > 0; --r, xr += k->x_row, wr += k->w_row) {
        const int8_t *x = xr, *w = wr;
        for (int32_t n = t->cols; n > 0; --n) {
            const int32x4_t xv = vaddq_n_s32(vldrbq_z_s32(x, keep), input_offset);
            acc = vaddq_s32(acc, vmulq_s32(xv, vldrbq_z_s32(w, keep)));
            x += k->x_col;
            w += channels;
        }
    }
    return acc;
}

/*
 * Every channel of one output pixel. Sixteen channels at a time are widened to int16 and
 * multiplied into int32 with VMULLB / VMULLT, which leave channels 0, 2, 4, 6 in one vector
 * and 1, 3, 5, 7 in another; VLD2 loads biases and multipliers in that order and VMOVNB /
 * VMOVNT put the results back in channel order. The last channels go four at a time, and so
 * do all of them when the general requantization is needed (rare: a multiplier above one),
 * which keeps the sixteen-channel loop within the eight Q registers.
 */
HK_NOINLINE void dw_pixel_s8(const dw_call_t *k, const dw_taps_t *t, int8_t *out)
{
    const hk_depthwise_params_t *p = k->p;
    const int32_t channels = p->input_channels;
    const int32_t *start = t->whole ? p->offset_bias : k->bias;
    int32_t c = 0;
    if (channels >= 16 && k->mode != HK_REQUANT_GENERAL) {
        const int16x8_t lo16 = vdupq_n_s16((int16_t)k->lo), hi16 = vdupq_n_s16((int16_t)k->hi);
        for (; c + 16 <= channels; c += 16) {
            dw_acc16_mve_t a;
            if (start != NULL) {
                const int32x4x2_t b0 = vld2q_s32(start + c);
                const int32x4x2_t b1 = vld2q_s32(start + c + 8);
                a.e0 = b0.val[0];
                a.o0 = b0.val[1];
                a.e1 = b1.val[0];
                a.o1 = b1.val[1];
            } else {
                a.e0 = a.o0 = a.e1 = a.o1 = vdupq_n_s32(0);
            }
            if (t->whole) {
                a = dw_taps16_mve(k, t, c, a, false);
            } else {
                a = dw_taps16_mve(k, t, c, a, true);
            }
            dw_store8_mve(k, c, a.e0, a.o0, lo16, hi16, false, out);
            dw_store8_mve(k, c + 8, a.e1, a.o1, lo16, hi16, false, out);
        }
    }
    for (; c < channels; c += 4) {
        const mve_pred16_t keep = vctp32q((uint32_t)(channels - c));
        int32x4_t acc = start != NULL ? vldrwq_z_s32(start + c, keep) : vdupq_n_s32(0);
        acc = dw_taps4_mve(k, t, c, acc, keep, t->whole ? 0 : p->input_offset);
        const int32x4_t y = hk_requant_clamp_mve(acc, vldrwq_z_s32(p->output_multiplier + c, keep),
                                                 vldrwq_z_s32(p->output_shift + c, keep),
                                                 p->output_offset, k->lo, k->hi);
        vstrbq_p_s32(out + c, y, keep);
    }
}

/*
 * Whole 3x3 windows (dilation 1) along one output row: `count` pixels from the window whose
 * top-left input is x, eight channels at a time with the nine taps unrolled, each group
 * starting from offset_bias so the raw inputs multiply the filter directly (two widening loads,
 * VMULLB / VMULLT and two adds per tap). Needs channels a multiple of 8 and the right-shift
 * requantization (checked by dw_row3x3_ok), and offset_bias (without it the row goes to
 * dw_row3x3_unfolded_s8).
 */
/* One tap of eight channels in dw_taps3x3_mve: q6 = x, q7 = w widened to int16, their products
 * added to the even and odd channels' int32 lanes. */
#define DW_TAP8                                                                              \
    "vldrb.s16 q6, [%[x]]\n\t"                                                                 \
    "vldrb.s16 q7, [%[w]]\n\t"                                                                 \
    "vmullb.s16 q5, q6, q7\n\t"                                                                \
    "vadd.i32 %q[e], %q[e], q5\n\t"                                                            \
    "vmullt.s16 q5, q6, q7\n\t"                                                                \
    "vadd.i32 %q[o], %q[o], q5\n\t"
/* The next tap in the row (input and filter one pixel on), or the first of the next row. */
#define DW_NEXT_COL "add %[x], %[x], %[c]\n\tadd %[w], %[w], %[c]\n\t"
#define DW_NEXT_ROW "add %[x], %[x], %[r]\n\tadd %[w], %[w], %[c]\n\t"

/* The nine taps of a 3x3 window for eight channels from x (input) and w (filter), added to
 * even and odd: six instructions and two pointer steps per tap in one block, which GCC's
 * scheduler would otherwise spread over spills (it hoists all eighteen loads). */
HK_INLINE void dw_taps3x3_mve(const int8_t *x, const int8_t *w, int32_t channels,
                              int32_t next_row, int32x4_t *even, int32x4_t *odd)
{
    int32x4_t e = *even, o = *odd;
    __asm__ volatile(DW_TAP8 DW_NEXT_COL DW_TAP8 DW_NEXT_COL DW_TAP8 DW_NEXT_ROW
                     DW_TAP8 DW_NEXT_COL DW_TAP8 DW_NEXT_COL DW_TAP8 DW_NEXT_ROW
                     DW_TAP8 DW_NEXT_COL DW_TAP8 DW_NEXT_COL DW_TAP8
                     : [e] "+w"(e), [o] "+w"(o), [x] "+l"(x), [w] "+l"(w)
                     : [c] "r"(channels), [r] "r"(next_row)
                     : "q5", "q6", "q7", "memory");
    *even = e;
    *odd = o;
}

/*
 * The same blocks with the tap-to-tap step in the loads: where the channel count fits a load's
 * post-increment (7 bits), each load steps its pointer by `channels` as it reads, so a tap needs
 * no pointer adds and a row of taps one (x and y only: the filter's taps follow each other).
 * One function per channel count, the count an immediate of the assembly; dw_taps3x3_post
 * picks it (channels the conversion knows; the forms below cover the counts of the MLPerf and
 * common mobile models, 16, 32 and 64, every other count keeps the blocks above).
 */
/* The blocks are software-pipelined for the M55's pipes (docs/cycles.md): each tap loads the
 * next tap's input and filter while its own products are added, so loads, multiplies and adds
 * alternate and no add waits on the multiply before it (VMULL's latency is 2). FIRST loads the
 * first tap; a tap's NEXT loads the next one (NEXT_ROW after a row's third tap, stepping the
 * input pointers to the next row first), LAST ends the window with nothing loaded past it. One
 * pixel: q6 = x, q7 = w, the products in q5 (even) and q4 (odd). */
#define DW_POST1_FIRST(C)                                                                     \
    "vldrb.s16 q6, [%[x]], #" #C "\n\t"                                                         \
    "vldrb.s16 q7, [%[w]], #" #C "\n\t"
#define DW_POST1_TAP                                                                          \
    "vmullb.s16 q5, q6, q7\n\t"                                                                \
    "vmullt.s16 q4, q6, q7\n\t"                                                                \
    "vadd.i32 %q[e], %q[e], q5\n\t"
#define DW_POST1_NEXT(C)                                                                      \
    "vldrb.s16 q6, [%[x]], #" #C "\n\t"                                                         \
    "vadd.i32 %q[o], %q[o], q4\n\t"                                                            \
    "vldrb.s16 q7, [%[w]], #" #C "\n\t"
#define DW_POST1_NEXT_ROW(C) "add %[x], %[x], %[r]\n\t" DW_POST1_NEXT(C)
#define DW_POST1_LAST "vadd.i32 %q[o], %q[o], q4\n\t"
/* Two pixels: q4 = x, q5 = y, q6 = w (one filter load for both); the even products in q7, the
 * odd ones in the input register they consume. */
#define DW_POST2_FIRST(C)                                                                     \
    "vldrb.s16 q6, [%[w]], #" #C "\n\t"                                                         \
    "vldrb.s16 q4, [%[x]], #" #C "\n\t"
#define DW_POST2_TAP(C)                                                                       \
    "vmullb.s16 q7, q4, q6\n\t"                                                                \
    "vldrb.s16 q5, [%[y]], #" #C "\n\t"                                                         \
    "vadd.i32 %q[e0], %q[e0], q7\n\t"                                                          \
    "vmullt.s16 q4, q4, q6\n\t"                                                                \
    "vmullb.s16 q7, q5, q6\n\t"                                                                \
    "vadd.i32 %q[o0], %q[o0], q4\n\t"                                                          \
    "vmullt.s16 q5, q5, q6\n\t"                                                                \
    "vadd.i32 %q[e1], %q[e1], q7\n\t"
#define DW_POST2_NEXT(C)                                                                      \
    "vldrb.s16 q6, [%[w]], #" #C "\n\t"                                                         \
    "vadd.i32 %q[o1], %q[o1], q5\n\t"                                                          \
    "vldrb.s16 q4, [%[x]], #" #C "\n\t"
#define DW_POST2_NEXT_ROW(C)                                                                  \
    "vldrb.s16 q6, [%[w]], #" #C "\n\t"                                                         \
    "vadd.i32 %q[o1], %q[o1], q5\n\t"                                                          \
    "add %[x], %[x], %[r]\n\t"                                                                 \
    "add %[y], %[y], %[r]\n\t"                                                                 \
    "vldrb.s16 q4, [%[x]], #" #C "\n\t"
#define DW_POST2_LAST "vadd.i32 %q[o1], %q[o1], q5\n\t"
/* The nine taps of a window: three rows of three. */
#define DW_POST_ROWS(FIRST, TAP, NEXT, NEXT_ROW, LAST)                                        \
    FIRST TAP NEXT TAP NEXT TAP NEXT_ROW TAP NEXT TAP NEXT TAP NEXT_ROW TAP NEXT TAP NEXT TAP LAST

/* dw_taps3x3_mve and dw_taps3x3_pair_mve for C channels; next_row steps x (and y) from the
 * end of a window row (three taps read) to the start of the next. */
#define DW_POST_FUNCTIONS(C)                                                                  \
    HK_INLINE void dw_taps3x3_post##C##_mve(const int8_t *x, const int8_t *w, int32_t next_row, \
                                         int32x4_t *even, int32x4_t *odd)                     \
    {                                                                                         \
        int32x4_t e = *even, o = *odd;                                                        \
        __asm__ volatile(DW_POST_ROWS(DW_POST1_FIRST(C), DW_POST1_TAP, DW_POST1_NEXT(C),      \
                                      DW_POST1_NEXT_ROW(C), DW_POST1_LAST)                    \
                         : [e] "+w"(e), [o] "+w"(o), [x] "+l"(x), [w] "+l"(w)                 \
                         : [r] "r"(next_row)                                                  \
                         : "q4", "q5", "q6", "q7", "memory");                                 \
        *even = e;                                                                            \
        *odd = o;                                                                             \
    }                                                                                         \
    HK_INLINE void dw_taps3x3_pair_post##C##_mve(const int8_t *x, const int8_t *y,            \
                                              const int8_t *w, int32_t next_row,              \
                                              int32x4_t *even0, int32x4_t *odd0,              \
                                              int32x4_t *even1, int32x4_t *odd1)              \
    {                                                                                         \
        int32x4_t e0 = *even0, o0 = *odd0, e1 = *even1, o1 = *odd1;                           \
        __asm__ volatile(DW_POST_ROWS(DW_POST2_FIRST(C), DW_POST2_TAP(C), DW_POST2_NEXT(C),   \
                                      DW_POST2_NEXT_ROW(C), DW_POST2_LAST)                    \
                         : [e0] "+w"(e0), [o0] "+w"(o0), [e1] "+w"(e1), [o1] "+w"(o1),        \
                           [x] "+l"(x), [y] "+l"(y), [w] "+l"(w)                              \
                         : [r] "r"(next_row)                                                  \
                         : "q4", "q5", "q6", "q7", "memory");                                 \
        *even0 = e0;                                                                          \
        *odd0 = o0;                                                                           \
        *even1 = e1;                                                                          \
        *odd1 = o1;                                                                           \
    }

DW_POST_FUNCTIONS(16)
DW_POST_FUNCTIONS(32)
DW_POST_FUNCTIONS(64)

#undef DW_POST_FUNCTIONS
#undef DW_POST_ROWS
#undef DW_POST1_FIRST
#undef DW_POST1_TAP
#undef DW_POST1_NEXT
#undef DW_POST1_NEXT_ROW
#undef DW_POST1_LAST
#undef DW_POST2_FIRST
#undef DW_POST2_TAP
#undef DW_POST2_NEXT
#undef DW_POST2_NEXT_ROW
#undef DW_POST2_LAST

/* DW_TAP8 for two output pixels at once (inputs x and y, one filter load for both): q4 / q5 =
 * the two pixels' inputs, q6 = w. Ordered for the M55's pipes (docs/cycles.md): no add reads a
 * product the instruction before it made (VMULL's latency is 2), the second pixel's load comes
 * between two multiplies, and the odd products land in the input register they consume (q4, q5:
 * dead once multiplied), so each add waits on nothing; 11 instructions as before, and 218 modeled
 * cycles per window pair instead of 245. */
#define DW_TAP8X2                                                                              \
    "vldrb.s16 q6, [%[w]]\n\t"                                                                 \
    "vldrb.s16 q4, [%[x]]\n\t"                                                                 \
    "vmullb.s16 q7, q4, q6\n\t"                                                                \
    "vldrb.s16 q5, [%[y]]\n\t"                                                                 \
    "vadd.i32 %q[e0], %q[e0], q7\n\t"                                                          \
    "vmullt.s16 q4, q4, q6\n\t"                                                                \
    "vmullb.s16 q7, q5, q6\n\t"                                                                \
    "vadd.i32 %q[o0], %q[o0], q4\n\t"                                                          \
    "vmullt.s16 q5, q5, q6\n\t"                                                                \
    "vadd.i32 %q[e1], %q[e1], q7\n\t"                                                          \
    "vadd.i32 %q[o1], %q[o1], q5\n\t"
#define DW_NEXT_COL2 "add %[x], %[x], %[c]\n\tadd %[y], %[y], %[c]\n\tadd %[w], %[w], %[c]\n\t"
#define DW_NEXT_ROW2 "add %[x], %[x], %[r]\n\tadd %[y], %[y], %[r]\n\tadd %[w], %[w], %[c]\n\t"

/* dw_taps3x3_mve for the pixels whose windows start at x and y: the filter loads once per tap
 * for both, 14 instructions per tap for two pixels instead of 16. q4 and q5 are written by the
 * multiplies too (DW_TAP8X2), which the clobbers already say. */
HK_INLINE void dw_taps3x3_pair_mve(const int8_t *x, const int8_t *y, const int8_t *w,
                                   int32_t channels, int32_t next_row, int32x4_t *even0,
                                   int32x4_t *odd0, int32x4_t *even1, int32x4_t *odd1)
{
    int32x4_t e0 = *even0, o0 = *odd0, e1 = *even1, o1 = *odd1;
    __asm__ volatile(DW_TAP8X2 DW_NEXT_COL2 DW_TAP8X2 DW_NEXT_COL2 DW_TAP8X2 DW_NEXT_ROW2
                     DW_TAP8X2 DW_NEXT_COL2 DW_TAP8X2 DW_NEXT_COL2 DW_TAP8X2 DW_NEXT_ROW2
                     DW_TAP8X2 DW_NEXT_COL2 DW_TAP8X2 DW_NEXT_COL2 DW_TAP8X2
                     : [e0] "+w"(e0), [o0] "+w"(o0), [e1] "+w"(e1), [o1] "+w"(o1), [x] "+l"(x),
                       [y] "+l"(y), [w] "+l"(w)
                     : [c] "r"(channels), [r] "r"(next_row)
                     : "q4", "q5", "q6", "q7", "memory");
    *even0 = e0;
    *odd0 = o0;
    *even1 = e1;
    *odd1 = o1;
}
#undef DW_TAP8X2
#undef DW_NEXT_COL2
#undef DW_NEXT_ROW2

/* The nine taps of one window for `channels` channels, through the post-increment block of
 * `post` channels (16, 32 or 64, the same as channels) or, with `post` 0, the general block. A
 * constant `post` (the row functions below are specialised per count) leaves one block. */
HK_INLINE void dw_window3x3(int32_t post, const int8_t *x, const int8_t *w, int32_t channels,
                            int32_t next_row, int32x4_t *even, int32x4_t *odd)
{
    /* The post-increment blocks step a row from its third tap, the others from its second. */
    const int32_t step = next_row - channels;
    if (post == 16) {
        dw_taps3x3_post16_mve(x, w, step, even, odd);
    } else if (post == 32) {
        dw_taps3x3_post32_mve(x, w, step, even, odd);
    } else if (post == 64) {
        dw_taps3x3_post64_mve(x, w, step, even, odd);
    } else {
        dw_taps3x3_mve(x, w, channels, next_row, even, odd);
    }
}

/* dw_window3x3 for the two windows starting at x and y. */
HK_INLINE void dw_window3x3_pair(int32_t post, const int8_t *x, const int8_t *y, const int8_t *w,
                                 int32_t channels, int32_t next_row, int32x4_t *even0,
                                 int32x4_t *odd0, int32x4_t *even1, int32x4_t *odd1)
{
    const int32_t step = next_row - channels;
    if (post == 16) {
        dw_taps3x3_pair_post16_mve(x, y, w, step, even0, odd0, even1, odd1);
    } else if (post == 32) {
        dw_taps3x3_pair_post32_mve(x, y, w, step, even0, odd0, even1, odd1);
    } else if (post == 64) {
        dw_taps3x3_pair_post64_mve(x, y, w, step, even0, odd0, even1, odd1);
    } else {
        dw_taps3x3_pair_mve(x, y, w, channels, next_row, even0, odd0, even1, odd1);
    }
}

/* The channel count a post-increment block serves (16, 32, 64), or 0: the general blocks. */
HK_INLINE int32_t dw_post_count(int32_t channels)
{
    return channels == 16 || channels == 32 || channels == 64 ? channels : 0;
}

/* dw_row3x3_s8 with its windows' block chosen by `post` (dw_window3x3), and the ReLU
 * requantization when `relu` (dw_store8_ms_mve). */
HK_INLINE void dw_row3x3_body(const dw_call_t *k, const int8_t *x, const int8_t *filter,
                              int32_t count, int8_t *out, const int32_t post, const bool relu)
{
    const hk_depthwise_params_t *p = k->p;
    const int32_t channels = p->input_channels;
    const size_t row = k->x_row;
    const size_t step = (size_t)p->stride_width * (size_t)channels;
    const int32_t next_row = (int32_t)row - 2 * channels;
    const int16x8_t lo16 = vdupq_n_s16((int16_t)k->lo), hi16 = vdupq_n_s16((int16_t)k->hi);
    /* Pixels in pairs first: each filter load serves both (dw_taps3x3_pair_mve). */
    for (; count >= 2; count -= 2, x += 2 * step, out += 2 * (size_t)channels) {
        for (int32_t c = 0; c < channels; c += 8) {
            const int32x4x2_t b = vld2q_s32(p->offset_bias + c);
            int32x4_t even0 = b.val[0], odd0 = b.val[1], even1 = b.val[0], odd1 = b.val[1];
            dw_window3x3_pair(post, x + c, x + step + c, filter + c, channels, next_row,
                              &even0, &odd0, &even1, &odd1);
            /* One load of the channels' multipliers and shifts for both pixels. */
            const int32x4x2_t m = vld2q_s32(p->output_multiplier + c);
            const int32x4x2_t sh = vld2q_s32(p->output_shift + c);
            dw_store8_ms_mve(k, c, even0, odd0, m, sh, lo16, hi16, relu, out);
            dw_store8_ms_mve(k, c, even1, odd1, m, sh, lo16, hi16, relu, out + channels);
        }
    }
    for (; count > 0; --count, x += step, out += channels) {
        for (int32_t c = 0; c < channels; c += 8) {
            const int32x4x2_t b = vld2q_s32(p->offset_bias + c);
            int32x4_t even = b.val[0], odd = b.val[1];
            dw_window3x3(post, x + c, filter + c, channels, next_row, &even, &odd);
            dw_store8_mve(k, c, even, odd, lo16, hi16, relu, out);
        }
    }
}

/* Whole windows along a row, one copy of the row loop per post-increment block (each in the
 * ReLU requantization too) so the choice is made once per row, not per eight channels (a
 * taken branch each, which cost more than the block saves). */
HK_NOINLINE void dw_row3x3_s8(const dw_call_t *k, const int8_t *x, const int8_t *filter,
                              int32_t count, int8_t *out)
{
    const bool relu = dw_relu(k);
    switch (dw_post_count(k->p->input_channels)) {
    case 16:
        if (relu) {
            dw_row3x3_body(k, x, filter, count, out, 16, true);
        } else {
            dw_row3x3_body(k, x, filter, count, out, 16, false);
        }
        break;
    case 32:
        if (relu) {
            dw_row3x3_body(k, x, filter, count, out, 32, true);
        } else {
            dw_row3x3_body(k, x, filter, count, out, 32, false);
        }
        break;
    case 64:
        if (relu) {
            dw_row3x3_body(k, x, filter, count, out, 64, true);
        } else {
            dw_row3x3_body(k, x, filter, count, out, 64, false);
        }
        break;
    default:
        dw_row3x3_body(k, x, filter, count, out, 0, false);
        break;
    }
}

/* The taps of a window cut by the image edge, as DW_TAP8 with the input offset added to x
 * first, software-pipelined like the post-increment blocks: FIRST loads the first tap, a tap's
 * NEXT (after STEP, the pointers' step to the next tap: DW_EDGE_COL in a row, DW_EDGE_ROW to
 * the next row) loads the next one between its own adds, LAST ends the window. q6 = x + offset,
 * q7 = w, the products in q5 (even) and q4 (odd). */
#define DW_EDGE_FIRST                                                                          \
    "vldrb.s16 q6, [%[x]]\n\t"                                                                 \
    "vldrb.s16 q7, [%[w]]\n\t"                                                                 \
    "vadd.i16 q6, q6, %[off]\n\t"
#define DW_EDGE_TAP                                                                            \
    "vmullb.s16 q5, q6, q7\n\t"                                                                \
    "vmullt.s16 q4, q6, q7\n\t"                                                                \
    "vadd.i32 %q[e], %q[e], q5\n\t"
#define DW_EDGE_NEXT(STEP)                                                                     \
    STEP                                                                                       \
    "vldrb.s16 q6, [%[x]]\n\t"                                                                 \
    "vadd.i32 %q[o], %q[o], q4\n\t"                                                            \
    "vldrb.s16 q7, [%[w]]\n\t"                                                                 \
    "vadd.i16 q6, q6, %[off]\n\t"
#define DW_EDGE_LAST "vadd.i32 %q[o], %q[o], q4\n\t"
#define DW_EDGE_COL "add %[x], %[x], %[c]\n\tadd %[w], %[w], %[c]\n\t"
#define DW_EDGE_ROW "add %[x], %[x], %[xr]\n\tadd %[w], %[w], %[wr]\n\t"
#define DW_EDGE_COLS2 DW_EDGE_TAP DW_EDGE_NEXT(DW_EDGE_COL) DW_EDGE_TAP
#define DW_EDGE_COLS3                                                                          \
    DW_EDGE_TAP DW_EDGE_NEXT(DW_EDGE_COL) DW_EDGE_TAP DW_EDGE_NEXT(DW_EDGE_COL) DW_EDGE_TAP
#define DW_EDGE_ROWS2(COLS) DW_EDGE_FIRST COLS DW_EDGE_NEXT(DW_EDGE_ROW) COLS DW_EDGE_LAST
#define DW_EDGE_ROWS3(COLS)                                                                    \
    DW_EDGE_FIRST COLS DW_EDGE_NEXT(DW_EDGE_ROW) COLS DW_EDGE_NEXT(DW_EDGE_ROW) COLS DW_EDGE_LAST
#define DW_EDGE_OPERANDS                                                                       \
    : [e] "+w"(e), [o] "+w"(o), [x] "+l"(x), [w] "+l"(w)                                       \
    : [c] "r"(channels), [xr] "r"(x_row), [wr] "r"(w_row), [off] "r"(offset)                    \
    : "q4", "q5", "q6", "q7", "memory"

/* The taps of a 3x3 window cut by the image edge to rows x cols (2 or 3 each) for eight
 * channels, as the reference takes them: (input + offset) * filter over the taps inside the
 * image. x_row and w_row step from a row's last tap to the next row's first. */
HK_INLINE void dw_edge_taps_mve(int32_t rows, int32_t cols, const int8_t *x, const int8_t *w,
                                int32_t channels, int32_t x_row, int32_t w_row, int32_t offset,
                                int32x4_t *even, int32x4_t *odd)
{
    int32x4_t e = *even, o = *odd;
    if (rows == 2 && cols == 2) {
        __asm__ volatile(DW_EDGE_ROWS2(DW_EDGE_COLS2) DW_EDGE_OPERANDS);
    } else if (rows == 2) {
        __asm__ volatile(DW_EDGE_ROWS2(DW_EDGE_COLS3) DW_EDGE_OPERANDS);
    } else if (cols == 2) {
        __asm__ volatile(DW_EDGE_ROWS3(DW_EDGE_COLS2) DW_EDGE_OPERANDS);
    } else {
        __asm__ volatile(DW_EDGE_ROWS3(DW_EDGE_COLS3) DW_EDGE_OPERANDS);
    }
    *even = e;
    *odd = o;
}

/* dw_edge3x3_s8 in the requantization `relu` says (a constant where inlined). */
HK_INLINE void dw_edge3x3_body(const dw_call_t *k, const dw_taps_t *t, int8_t *out,
                               const bool relu)
{
    const hk_depthwise_params_t *p = k->p;
    const int32_t channels = p->input_channels;
    const int32_t x_row = (int32_t)k->x_row - (t->cols - 1) * channels;
    const int32_t w_row = (4 - t->cols) * channels;
    const int16x8_t lo16 = vdupq_n_s16((int16_t)k->lo), hi16 = vdupq_n_s16((int16_t)k->hi);
    for (int32_t c = 0; c < channels; c += 8) {
        int32x4_t even = vdupq_n_s32(0), odd = even;
        if (k->bias != NULL) {
            const int32x4x2_t b = vld2q_s32(k->bias + c);
            even = b.val[0];
            odd = b.val[1];
        }
        dw_edge_taps_mve(t->rows, t->cols, t->x + c, t->w + c, channels, x_row, w_row,
                         p->input_offset, &even, &odd);
        dw_store8_mve(k, c, even, odd, lo16, hi16, relu, out);
    }
}

/* Every channel of one 3x3 window cut by the image edge to 2 or 3 rows and columns, eight
 * channels at a time from the plain bias (dw_edge_taps_mve). */
HK_NOINLINE void dw_edge3x3_s8(const dw_call_t *k, const dw_taps_t *t, int8_t *out)
{
    if (dw_relu(k)) {
        dw_edge3x3_body(k, t, out, true);
    } else {
        dw_edge3x3_body(k, t, out, false);
    }
}

/* The start of eight channels' whole 3x3 windows without offset_bias (goal size keeps the
 * model's constants): the bias plus input_offset times the sum of the channels' nine taps, as
 * even and odd lanes. Sum((x + off) * w) + b is Sum(x * w) + (b + off * Sum(w)) in wrapping
 * int32, so the windows then multiply raw inputs as dw_row3x3_s8 does. The nine int8 taps sum
 * within int16 (|sum| <= 1152) and the offset is an int8 zero point's negation. */
HK_INLINE int32x4x2_t dw_fold3x3_mve(const dw_call_t *k, const int8_t *w, int32_t c)
{
    const size_t channels = (size_t)k->p->input_channels;
    /* Unrolled: the taps' loads and adds in one straight run (a loop costs as much again). */
    int16x8_t sum = vaddq_s16(vldrbq_s16(w), vldrbq_s16(w + channels));
    sum = vaddq_s16(sum, vaddq_s16(vldrbq_s16(w + 2 * channels), vldrbq_s16(w + 3 * channels)));
    sum = vaddq_s16(sum, vaddq_s16(vldrbq_s16(w + 4 * channels), vldrbq_s16(w + 5 * channels)));
    sum = vaddq_s16(sum, vaddq_s16(vldrbq_s16(w + 6 * channels), vldrbq_s16(w + 7 * channels)));
    sum = vaddq_s16(sum, vldrbq_s16(w + 8 * channels));
    const int16x8_t offset = vdupq_n_s16((int16_t)k->p->input_offset);
    int32x4x2_t start;
    start.val[0] = vmullbq_int_s16(sum, offset);
    start.val[1] = vmulltq_int_s16(sum, offset);
    if (k->bias != NULL) {
        const int32x4x2_t b = vld2q_s32(k->bias + c);
        start.val[0] = vaddq_s32(start.val[0], b.val[0]);
        start.val[1] = vaddq_s32(start.val[1], b.val[1]);
    }
    return start;
}

/*
 * dw_row3x3_s8 without offset_bias (goal size): the same blocks over eight channels, taken
 * channel group by group so each group's start (dw_fold3x3_mve) is computed once per call and
 * serves every pixel of the row, instead of adding the input offset to each input. No buffer:
 * the start stays in registers (or the kernel stack, 32 bytes, not in the arena).
 */
HK_INLINE void dw_row3x3_unfolded_body(const dw_call_t *k, const int8_t *x,
                                       const int8_t *filter, int32_t count, int8_t *out,
                                       const int32_t post)
{
    const hk_depthwise_params_t *p = k->p;
    const int32_t channels = p->input_channels;
    const size_t step = (size_t)p->stride_width * (size_t)channels;
    const int32_t next_row = (int32_t)k->x_row - 2 * channels;
    const int16x8_t lo16 = vdupq_n_s16((int16_t)k->lo), hi16 = vdupq_n_s16((int16_t)k->hi);
    for (int32_t c = 0; c < channels; c += 8) {
        const int32x4x2_t b = dw_fold3x3_mve(k, filter + c, c);
        const int8_t *xc = x + c;
        int8_t *o = out;
        int32_t n = count;
        for (; n >= 2; n -= 2, xc += 2 * step, o += 2 * (size_t)channels) {
            int32x4_t even0 = b.val[0], odd0 = b.val[1], even1 = b.val[0], odd1 = b.val[1];
            dw_window3x3_pair(post, xc, xc + step, filter + c, channels, next_row, &even0, &odd0,
                                &even1, &odd1);
            const int32x4x2_t m = vld2q_s32(p->output_multiplier + c);
            const int32x4x2_t sh = vld2q_s32(p->output_shift + c);
            dw_store8_ms_mve(k, c, even0, odd0, m, sh, lo16, hi16, false, o);
            dw_store8_ms_mve(k, c, even1, odd1, m, sh, lo16, hi16, false, o + channels);
        }
        if (n > 0) {
            int32x4_t even = b.val[0], odd = b.val[1];
            dw_window3x3(post, xc, filter + c, channels, next_row, &even, &odd);
            dw_store8_mve(k, c, even, odd, lo16, hi16, false, o);
        }
    }
}

/* dw_row3x3_unfolded_body with the general blocks: goal size keeps one copy of the row loop
 * (dw_row3x3_s8's copy per channel count trades code for cycles, which size does not want). */
HK_NOINLINE void dw_row3x3_unfolded_s8(const dw_call_t *k, const int8_t *x, const int8_t *filter,
                                       int32_t count, int8_t *out)
{
    dw_row3x3_unfolded_body(k, x, filter, count, out, 0);
}

void hk_depthwise_s8_fast(const hk_depthwise_params_t *params, const int8_t *input,
                          const int8_t *filter, const int32_t *bias, int8_t *output)
{
    dw_s8_walk(params, input, filter, bias, output, dw_pixel_s8, dw_row3x3_s8,
               dw_row3x3_unfolded_s8, dw_edge3x3_s8);
}

int32_t hk_depthwise_offset_bias_mve(const int8_t *filter, const int32_t *bias, int32_t channels,
                                     int32_t taps, int32_t offset, int32_t *offset_bias)
{
    int32_t c = 0;
    if (taps <= 256) {
        /* Eight channels per step in int16 lanes: 256 taps of int8 sum within int16 exactly,
         * so each lane holds the int32 sum; the lanes widen to int32 through the stack. */
        for (; c + 8 <= channels; c += 8) {
            int16x8_t sum = vdupq_n_s16(0);
            const int8_t *w = filter + c;
            for (int32_t t = 0; t < taps; ++t, w += channels) {
                sum = vaddq_s16(sum, vldrbq_s16(w));
            }
            int16_t sums[8];
            vst1q_s16(sums, sum);
            int32x4_t lo = vdupq_n_s32(0), hi = vdupq_n_s32(0);
            if (bias != NULL) {
                lo = vldrwq_s32(bias + c);
                hi = vldrwq_s32(bias + c + 4);
            }
            vstrwq_s32(offset_bias + c, vmlaq_n_s32(lo, vldrhq_s32(sums), offset));
            vstrwq_s32(offset_bias + c + 4, vmlaq_n_s32(hi, vldrhq_s32(sums + 4), offset));
        }
    }
    for (; c + 4 <= channels; c += 4) {
        int32x4_t sum = vdupq_n_s32(0);
        const int8_t *w = filter + c;
        for (int32_t t = 0; t < taps; ++t, w += channels) {
            sum = vaddq_s32(sum, vldrbq_s32(w));
        }
        const int32x4_t start = bias != NULL ? vldrwq_s32(bias + c) : vdupq_n_s32(0);
        vstrwq_s32(offset_bias + c, vmlaq_n_s32(start, sum, offset));
    }
    return c;
}

#endif /* HK_HAVE_MVE */
