/*
 * helia-aot kernel library: int8 CONV_2D from the model's own bias on Helium (see
 * hk_conv_unfolded.h).
 */
#include "hk_conv_unfolded.h"

#include "hk_conv_dots4.h"
#include "hk_requant.h"
#include "hk_window.h"

#if HK_HAVE_MVE

/* hk_conv_dots4_mve without sums (one pixel whose window lies in the image, inlined) and with
 * them (one pixel cut by the edge: out of line, so its eight accumulators do not crowd the
 * pixel loop). */
HK_INLINE int32x4_t unfolded_whole4(const int8_t *x, size_t x_step, int32_t runs, int32_t len,
                                    const int8_t *const *w, size_t w_step)
{
    return hk_conv_dots4_mve(x, x_step, runs, len, w[0], w[1], w[2], w[3], (int32_t)w_step,
                             NULL);
}

HK_NOINLINE int32x4_t unfolded_clipped4(const int8_t *x, size_t x_step, int32_t runs,
                                        int32_t len, const int8_t *const *w, size_t skip,
                                        size_t w_step, int32x4_t *sums)
{
    return hk_conv_dots4_mve(x, x_step, runs, len, w[0] + skip, w[1] + skip, w[2] + skip,
                             w[3] + skip, (int32_t)w_step, sums);
}

/* The sums of four filters' taps over `runs` runs of `len` bytes, w_step apart in each filter
 * (no input read): the part of Sum((x - zero_point) * w) = Sum(x * w) - zero_point * Sum(w)
 * that does not depend on the pixel, taken once per group of filters and window shape. */
HK_NOINLINE int32x4_t unfolded_sums4(const int8_t *const *w, size_t skip, int32_t runs,
                                     int32_t len, size_t w_step)
{
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    const int8_t *w0 = w[0] + skip, *w1 = w[1] + skip, *w2 = w[2] + skip, *w3 = w[3] + skip;
    if (runs == 1 && (len & 15) == 0) {
        /* One run of whole vectors (a whole window, a pointwise filter): no predicate, half
         * the instructions; every call of the kernel pays this once per group of filters. */
        for (int32_t k = 0; k < len; k += 16) {
            s0 = vaddvaq_s8(s0, vldrbq_s8(w0 + k));
            s1 = vaddvaq_s8(s1, vldrbq_s8(w1 + k));
            s2 = vaddvaq_s8(s2, vldrbq_s8(w2 + k));
            s3 = vaddvaq_s8(s3, vldrbq_s8(w3 + k));
        }
        runs = 0;
    }
    /* Several runs (a window cut by an edge): each run's whole vectors unpredicated through
     * pointers that walk (no address arithmetic per load), its last partial vector under a
     * predicate. */
    const int32_t whole = len & ~15, rest = len & 15;
    const size_t next = w_step - (size_t)whole;
    for (int32_t r = 0; r < runs; ++r, w0 += next, w1 += next, w2 += next, w3 += next) {
        for (int32_t k = whole; k > 0; k -= 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16) {
            s0 = vaddvaq_s8(s0, vldrbq_s8(w0));
            s1 = vaddvaq_s8(s1, vldrbq_s8(w1));
            s2 = vaddvaq_s8(s2, vldrbq_s8(w2));
            s3 = vaddvaq_s8(s3, vldrbq_s8(w3));
        }
        if (rest != 0) {
            const mve_pred16_t keep = vctp8q((uint32_t)rest);
            s0 = vaddvaq_s8(s0, vldrbq_z_s8(w0, keep));
            s1 = vaddvaq_s8(s1, vldrbq_z_s8(w1, keep));
            s2 = vaddvaq_s8(s2, vldrbq_z_s8(w2, keep));
            s3 = vaddvaq_s8(s3, vldrbq_z_s8(w3, keep));
        }
    }
    const int32x4_t lo = vsetq_lane_s32(s1, vdupq_n_s32(s0), 1);
    return vsetq_lane_s32(s3, vsetq_lane_s32(s2, lo, 2), 3);
}

/*
 * Two pixels against four filters over `vectors` (1..4) whole vectors: *ya += pixel A's four
 * dot products, *yb += pixel B's; x0, x1 (the pixels' bytes, read in place) and w0..w3 (the
 * filters' bytes) step past what was read. Written in assembly because VMLADAV accumulates
 * only into even registers: the eight sums take r0, r2, ..., r12 and lr, which leaves the six
 * odd registers for the six pointers (the count is the unrolled length, so none is needed); a
 * step is six loads and eight multiply-accumulates (balanced's two-pixel loop, hk_conv_mve.c,
 * with each pixel read where it lies instead of from an interleaved copy), and the sums join
 * the two vectors in six instructions (VMOV puts its first register in the lower lane).
 */
#if defined(__OPTIMIZE__)
#define UNF_STEP(OP)                                                                           \
    "vldrb.8 q0, [%[x0]], #16\n\t"                                                             \
    "vldrb.8 q1, [%[x1]], #16\n\t"                                                             \
    "vldrb.8 q2, [%[w0]], #16\n\t"                                                             \
    OP " r0, q0, q2\n\t" OP " r8, q1, q2\n\t"                                                  \
    "vldrb.8 q3, [%[w1]], #16\n\t"                                                             \
    OP " r2, q0, q3\n\t" OP " r10, q1, q3\n\t"                                                 \
    "vldrb.8 q2, [%[w2]], #16\n\t"                                                             \
    OP " r4, q0, q2\n\t" OP " r12, q1, q2\n\t"                                                 \
    "vldrb.8 q3, [%[w3]], #16\n\t"                                                             \
    OP " r6, q0, q3\n\t" OP " lr, q1, q3\n\t"
#define UNF_FIRST UNF_STEP("vmladav.s8")
#define UNF_NEXT UNF_STEP("vmladava.s8")
#define UNF_JOIN                                                                               \
    "vmov q2[2], q2[0], r0, r4\n\t"                                                            \
    "vmov q2[3], q2[1], r2, r6\n\t"                                                            \
    "vadd.i32 %q[ya], %q[ya], q2\n\t"                                                          \
    "vmov q3[2], q3[0], r8, r12\n\t"                                                           \
    "vmov q3[3], q3[1], r10, lr\n\t"                                                           \
    "vadd.i32 %q[yb], %q[yb], q3\n"
#define UNF_OPERANDS                                                                           \
    : [x0] "+r"(*x0), [x1] "+r"(*x1), [w0] "+r"(w[0]), [w1] "+r"(w[1]), [w2] "+r"(w[2]),      \
      [w3] "+r"(w[3]), [ya] "+w"(*ya), [yb] "+w"(*yb)                                          \
    :                                                                                          \
    : "r0", "r2", "r4", "r6", "r8", "r10", "r12", "lr", "q0", "q1", "q2", "q3", "memory"

HK_INLINE void unfolded_chunk(int32_t vectors, const int8_t **x0, const int8_t **x1,
                              const int8_t **w, int32x4_t *ya, int32x4_t *yb)
{
    switch (vectors) {
    case 1:
        __asm__ volatile(UNF_FIRST UNF_JOIN UNF_OPERANDS);
        break;
    case 2:
        __asm__ volatile(UNF_FIRST UNF_NEXT UNF_JOIN UNF_OPERANDS);
        break;
    case 3:
        __asm__ volatile(UNF_FIRST UNF_NEXT UNF_NEXT UNF_JOIN UNF_OPERANDS);
        break;
    default:
        __asm__ volatile(UNF_FIRST UNF_NEXT UNF_NEXT UNF_NEXT UNF_JOIN UNF_OPERANDS);
        break;
    }
}
#else
/* Unoptimized builds (-O0) cannot give the assembly its fourteen registers: the same
 * arithmetic with intrinsics. */
static void unfolded_chunk(int32_t vectors, const int8_t **x0, const int8_t **x1,
                           const int8_t **w, int32x4_t *ya, int32x4_t *yb)
{
    int32_t a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
    for (int32_t k = 0; k < vectors; ++k) {
        const int8x16_t xa = vldrbq_s8(*x0 + 16 * k), xb = vldrbq_s8(*x1 + 16 * k);
        for (int32_t j = 0; j < 4; ++j) {
            const int8x16_t wv = vldrbq_s8(w[j] + 16 * k);
            a[j] = vmladavaq_s8(a[j], xa, wv);
            b[j] = vmladavaq_s8(b[j], xb, wv);
        }
    }
    *ya = vaddq_s32(*ya, vld1q_s32(a));
    *yb = vaddq_s32(*yb, vld1q_s32(b));
    *x0 += 16 * vectors;
    *x1 += 16 * vectors;
    for (int32_t j = 0; j < 4; ++j) {
        w[j] += 16 * vectors;
    }
}
#endif

/*
 * The dot products of two pixels (xa, xb: the first in-image byte of each window, read in
 * place) with four filters over `runs` runs of `len` bytes, x_step apart in the image and
 * w_step apart in the filters (w: the filters' first taps read). Whole vectors go through
 * unfolded_chunk, up to four at a time; a run's last partial vector is read under a predicate,
 * so nothing past a run is touched.
 */
HK_NOINLINE void unfolded_pair_dots(const int8_t *xa, const int8_t *xb, size_t x_step,
                                    int32_t runs, int32_t len, const int8_t *const *w,
                                    size_t w_step, int32x4_t *ya, int32x4_t *yb)
{
    int32x4_t a = vdupq_n_s32(0), b = vdupq_n_s32(0);
    const int32_t whole = len >> 4, rest = len & 15;
    for (int32_t r = 0; r < runs; ++r, xa += x_step, xb += x_step) {
        const size_t at = (size_t)r * w_step;
        const int8_t *wr[4] = {w[0] + at, w[1] + at, w[2] + at, w[3] + at};
        const int8_t *x0 = xa, *x1 = xb;
        for (int32_t k = whole; k > 0; k -= 4) {
            unfolded_chunk(hk_min_i32(k, 4), &x0, &x1, wr, &a, &b);
        }
        if (rest != 0) {
            const mve_pred16_t keep = vctp8q((uint32_t)rest);
            const int8x16_t p = vldrbq_z_s8(x0, keep), q = vldrbq_z_s8(x1, keep);
            int8x16_t wv = vldrbq_z_s8(wr[0], keep);
            int32x4_t da = vdupq_n_s32(vmladavq_s8(p, wv));
            int32x4_t db = vdupq_n_s32(vmladavq_s8(q, wv));
            wv = vldrbq_z_s8(wr[1], keep);
            da = vsetq_lane_s32(vmladavq_s8(p, wv), da, 1);
            db = vsetq_lane_s32(vmladavq_s8(q, wv), db, 1);
            wv = vldrbq_z_s8(wr[2], keep);
            da = vsetq_lane_s32(vmladavq_s8(p, wv), da, 2);
            db = vsetq_lane_s32(vmladavq_s8(q, wv), db, 2);
            wv = vldrbq_z_s8(wr[3], keep);
            da = vsetq_lane_s32(vmladavq_s8(p, wv), da, 3);
            db = vsetq_lane_s32(vmladavq_s8(q, wv), db, 3);
            a = vaddq_s32(a, da);
            b = vaddq_s32(b, db);
        }
    }
    *ya = a;
    *yb = b;
}

#if defined(__OPTIMIZE__)
#define UNF_PAIR_ASM 1
/* One step of unfolded_rows_asm and unfolded_pw_asm: UNF_STEP's with its pointers in r1, r3 (pixels) and r5, r7,
 * r9, r11 (filters). */
#define UNF_PAIR_STEP                                                                          \
    "vldrb.8 q0, [r1], #16\n\t"                                                                \
    "vldrb.8 q1, [r3], #16\n\t"                                                                \
    "vldrb.8 q2, [r5], #16\n\t"                                                                \
    "vmladava.s8 r0, q0, q2\n\t"                                                               \
    "vmladava.s8 r8, q1, q2\n\t"                                                               \
    "vldrb.8 q3, [r7], #16\n\t"                                                                \
    "vmladava.s8 r2, q0, q3\n\t"                                                               \
    "vmladava.s8 r10, q1, q3\n\t"                                                              \
    "vldrb.8 q2, [r9], #16\n\t"                                                                \
    "vmladava.s8 r4, q0, q2\n\t"                                                               \
    "vmladava.s8 r12, q1, q2\n\t"                                                              \
    "vldrb.8 q3, [r11], #16\n\t"                                                               \
    "vmladava.s8 r6, q0, q3\n\t"                                                               \
    "vmladava.s8 lr, q1, q3\n\t"
#endif

#if defined(UNF_PAIR_ASM)
/*
 * The pointwise loop in one block of assembly: for each group of four filters (their bias
 * plus offset term, multipliers and shifts read as vectors from three arrays), for each row of
 * pixels, for each pair of pixels (A and B, x_col apart, read in place): the dot products with
 * the four filters (UNF_PAIR_STEP, 14 instructions per 16 channels of the pair), then the
 * requantization (hk_requant_mve's steps, the shift split into its left and right parts once
 * per group), the output offset, the clamp and the two stores, without leaving the block: no
 * pair, row or group pays for a call or a reload of its vectors (q4 the bias and offset term,
 * q5 the multipliers, q6 the right shifts, q7 the lower clamp). A pixel's first vector starts
 * the sums (VMLADAV); the other `len / 16 - 1` go through three unrolled accumulating steps,
 * entered part-way the first time (LDR PC) and repeated whole as often as needed, so channel
 * counts of any multiple of 16 take the same loop (balanced's conv_quads_asm, hk_conv_mve.c,
 * spends the same 14 instructions per 128 multiply-accumulates on its interleaved copy). A row
 * with an odd pixel ends with that pixel paired with itself (both stores to the same bytes).
 * When every shift of the group is a right shift, its pairs' epilogue skips the left shift and the
 * per-lane fixup mask (the fixup then applies to every lane). The stores go under the state's
 * predicate (a last group of fewer than four filters). Its frame is 72 bytes of kernel stack
 * (the state's address, the entry points, the counters, the group's four filter pointers,
 * reloaded per pair with two LDRD instead of rewound).
 */
typedef struct {
    const int8_t *x;      /* the first pixel */
    const int8_t *w[4];   /* the first group's filters (moved on by w_group per group) */
    int8_t *out;          /* the first group's first output pixel */
    const int32_t *add;   /* per group, bias + input_offset * the filters' sums */
    const int32_t *mult;  /* per filter, read a group (four) at a time */
    const int32_t *shift; /* per filter, likewise */
    int32_t groups;       /* groups of four filters */
    int32_t pairs;        /* pairs of pixels per row (>= 1) */
    int32_t rows;         /* rows of pixels */
    int32_t x_col;        /* bytes from pixel A to pixel B */
    int32_t x_adv;        /* from pixel A's last byte read to the next pair's pixel A */
    int32_t x_row;        /* from the end of a row's pairs to the next row's first pixel */
    int32_t o_col;        /* output bytes from pixel A to pixel B */
    int32_t len;          /* bytes read per pixel and filter (16 per vector) */
    int32_t offset;       /* the output offset */
    int32_t entry;        /* where in the three steps the first pass begins */
    int32_t passes;       /* the passes of three steps after the first */
    uint32_t real;        /* the predicate of the filters stored */
    int32_t w_group;      /* bytes from one group's filters to the next's */
    int32_t odd;          /* one more pixel after a row's pairs (rows == 1) */
    int32_t spare;        /* unused */
    int32x4_t lo, hi;     /* the clamp */
    int32x4_t left;       /* the group's left shifts (set by the loop) */
    int32_t input_offset; /* 0, or the offset whose product with the filters' sums the
                             loop adds to `add` (taken per group, once) */
    int32_t add_step;     /* bytes from one group's `add` to the next's (0: one vector) */
} unfolded_pw_t;

/* unfolded_pw_t's member `member` as the asm operand %[name], an immediate byte offset. */
#define UNF_PW_FIELD(name, member) [name] "i"(offsetof(unfolded_pw_t, member))

HK_NOINLINE void unfolded_pw_asm(unfolded_pw_t *state)
{
    register unfolded_pw_t *st __asm__("r0") = state;
    __asm__ volatile(
        /* Frame (72 bytes): [sp] the state; +4 the first pass's entry into the steps; +8 where
         * a pass ends (3: another pass, 5: the sums join); +12 r0 while the pass loop compares;
         * +16 where filter 0 ends for one pixel; +20 the row's output end; +24 rows left; +28
         * groups left; +32 pixel A's output; +36 bytes from A's output to B's; +40 the odd
         * pixel still to come; +44 the group's byte offset in mult and shift; +48..+60 the
         * group's four filters; +64 the epilogue (10: general, 11: right shifts only). Entry
         * points carry the Thumb bit (ORR #1) for LDR PC. */
        "sub sp, sp, #72\n\t"
        "str r0, [sp]\n\t"
        "adr r2, 2f\n\t"
        "ldr r4, [r0, %[entry]]\n\t"
        "add r2, r2, r4\n\t"
        "orr r2, r2, #1\n\t"
        "str r2, [sp, #4]\n\t"
        "ldr r4, [r0, %[passes]]\n\t"
        "adr r2, 5f\n\t"
        "adr r6, 3f\n\t"
        "cmp r4, #0\n\t"
        "it ne\n\t"
        "movne r2, r6\n\t"
        "orr r2, r2, #1\n\t"
        "str r2, [sp, #8]\n\t"
        /* Fixed for the call: the store predicate (the group's real filters), the lower clamp
         * in q7, the group count, the group offset 0. */
        "ldr r2, [r0, %[real]]\n\t"
        "vmsr p0, r2\n\t"
        "vldrw.u32 q7, [r0, %[lo]]\n\t"
        "ldr r2, [r0, %[groups]]\n\t"
        "str r2, [sp, #28]\n\t"
        "movs r2, #0\n\t"
        "str r2, [sp, #44]\n"
        /* Per group: q4 = its bias plus offset term (add moves on by add_step), q5 = its
         * multipliers, q6 = its shifts. */
        "8:\n\t"
        "ldr r4, [r0, %[add]]\n\t"
        "vldrw.u32 q4, [r4]\n\t"
        "ldr r2, [r0, %[add_step]]\n\t"
        "add r4, r4, r2\n\t"
        "str r4, [r0, %[add]]\n\t"
        "ldr r2, [sp, #44]\n\t"
        "ldr r4, [r0, %[mult]]\n\t"
        "add r4, r4, r2\n\t"
        "vldrw.u32 q5, [r4]\n\t"
        "ldr r4, [r0, %[shift]]\n\t"
        "add r4, r4, r2\n\t"
        "vldrw.u32 q6, [r4]\n\t"
        /* The epilogue: 11 when every shift is a right shift (no left shift, the fixup on every
         * lane), else 10; left = max(shift, 0) into the state, q6 = min(shift, 0). */
        "mov r2, #0x80000000\n\t"
        "vmaxv.s32 r2, q6\n\t"
        "adr r4, 10f\n\t"
        "adr r6, 11f\n\t"
        "cmp r2, #0\n\t"
        "it lt\n\t"
        "movlt r4, r6\n\t"
        "orr r4, r4, #1\n\t"
        "str r4, [sp, #64]\n\t"
        "ldr r2, [sp, #44]\n\t"
        "vmov.i32 q0, #0\n\t"
        "vmax.s32 q1, q6, q0\n\t"
        "vstrw.32 q1, [r0, %[left]]\n\t"
        "vmin.s32 q6, q6, q0\n\t"
        /* The group's first output (4 bytes per group on from out), the group offset on by 16,
         * the odd pixel and the output step for its rows. */
        "ldr r4, [r0, %[out]]\n\t"
        "add r4, r4, r2, lsr #2\n\t"
        "str r4, [sp, #32]\n\t"
        "add r2, r2, #16\n\t"
        "str r2, [sp, #44]\n\t"
        "ldr r2, [r0, %[odd]]\n\t"
        "str r2, [sp, #40]\n\t"
        "ldr r2, [r0, %[o_col]]\n\t"
        "str r2, [sp, #36]\n\t"
        /* The group's filters into r5, r7, r9, r11 and the frame; the state's on to the next
         * group's. */
        "ldr r2, [r0, %[w_group]]\n\t"
        "ldrd r5, r7, [r0, %[w01]]\n\t"
        "ldrd r9, r11, [r0, %[w23]]\n\t"
        "strd r5, r7, [sp, #48]\n\t"
        "strd r9, r11, [sp, #56]\n\t"
        "add r4, r5, r2\n\t"
        "add r6, r7, r2\n\t"
        "strd r4, r6, [r0, %[w01]]\n\t"
        "add r4, r9, r2\n\t"
        "add r6, r11, r2\n\t"
        "strd r4, r6, [r0, %[w23]]\n\t"
        /* Where filter 0 ends for one pixel: the pass loop's test. */
        "ldr r2, [r0, %[len]]\n\t"
        "add r4, r5, r2\n\t"
        "str r4, [sp, #16]\n\t"
        /* With an input offset: each filter's sum (VADDVA over its bytes) times the offset,
         * added to q4 once per group; the filter pointers reloaded from the frame. */
        "ldr r1, [r0, %[input_offset]]\n\t"
        "cbz r1, 7f\n\t"
        "mov r1, r2\n\t"
        "movs r2, #0\n\t"
        "movs r4, #0\n\t"
        "movs r6, #0\n\t"
        "movs r8, #0\n"
        "13:\n\t"
        "vldrb.8 q0, [r5], #16\n\t"
        "vaddva.s8 r2, q0\n\t"
        "vldrb.8 q0, [r7], #16\n\t"
        "vaddva.s8 r4, q0\n\t"
        "vldrb.8 q0, [r9], #16\n\t"
        "vaddva.s8 r6, q0\n\t"
        "vldrb.8 q0, [r11], #16\n\t"
        "vaddva.s8 r8, q0\n\t"
        "subs r1, r1, #16\n\t"
        "bne 13b\n\t"
        "vmov q0[2], q0[0], r2, r6\n\t"
        "vmov q0[3], q0[1], r4, r8\n\t"
        "ldr r2, [r0, %[input_offset]]\n\t"
        "vmla.s32 q4, q0, r2\n\t"
        "ldrd r5, r7, [sp, #48]\n\t"
        "ldrd r9, r11, [sp, #56]\n"
        /* Pixels A (r1) and B (r3, x_col on) of the first pair; the rows. */
        "7:\n\t"
        "ldr r1, [r0, %[x]]\n\t"
        "ldr r2, [r0, %[x_col]]\n\t"
        "add r3, r1, r2\n\t"
        "ldr r2, [r0, %[rows]]\n\t"
        "str r2, [sp, #24]\n"
        /* Per row: where its pairs' outputs end. */
        "9:\n\t"
        "ldr r2, [r0, %[pairs]]\n\t"
        "ldrd r4, r6, [sp, #32]\n\t"
        "mul r2, r2, r6\n\t"
        "add r2, r4, r2, lsl #1\n\t"
        "str r2, [sp, #20]\n"
        /* Per pair: the first vector starts the eight sums (VMLADAV; A's in r0, r2, r4, r6, B's
         * in r8, r10, r12, lr), then into the three unrolled steps part-way. */
        "1:\n\t"
        "vldrb.8 q0, [r1], #16\n\t"
        "vldrb.8 q1, [r3], #16\n\t"
        "vldrb.8 q2, [r5], #16\n\t"
        "vmladav.s8 r0, q0, q2\n\t"
        "vmladav.s8 r8, q1, q2\n\t"
        "vldrb.8 q3, [r7], #16\n\t"
        "vmladav.s8 r2, q0, q3\n\t"
        "vmladav.s8 r10, q1, q3\n\t"
        "vldrb.8 q2, [r9], #16\n\t"
        "vmladav.s8 r4, q0, q2\n\t"
        "vmladav.s8 r12, q1, q2\n\t"
        "vldrb.8 q3, [r11], #16\n\t"
        "vmladav.s8 r6, q0, q3\n\t"
        "vmladav.s8 lr, q1, q3\n\t"
        "ldr pc, [sp, #4]\n\t"
        /* The accumulating steps (UNF_PAIR_STEP, 56 bytes each, which `entry` counts in), then
         * the pass's end. */
        ".p2align 2\n"
        "2:\n\t"
        UNF_PAIR_STEP UNF_PAIR_STEP UNF_PAIR_STEP
        "ldr pc, [sp, #8]\n"
        /* Another pass while filter 0 has not reached the pixel's end (r0 spilled for the
         * compare). */
        "3:\n\t"
        "str r0, [sp, #12]\n\t"
        "ldr r0, [sp, #16]\n\t"
        "cmp r5, r0\n\t"
        "ldr r0, [sp, #12]\n\t"
        "bne 2b\n"
        /* The sums into lanes (q2: A, q3: B), the filters rewound from the frame, A and B on to
         * the next pair, the bias and offset term added; then the group's epilogue. */
        "5:\n\t"
        "vmov q2[2], q2[0], r0, r4\n\t"
        "vmov q2[3], q2[1], r2, r6\n\t"
        "vmov q3[2], q3[0], r8, r12\n\t"
        "vmov q3[3], q3[1], r10, lr\n\t"
        "ldr r0, [sp]\n\t"
        "ldrd r5, r7, [sp, #48]\n\t"
        "ldrd r9, r11, [sp, #56]\n\t"
        "ldr r2, [r0, %[x_adv]]\n\t"
        "add r1, r1, r2\n\t"
        "add r3, r3, r2\n\t"
        "vadd.i32 q2, q2, q4\n\t"
        "vadd.i32 q3, q3, q4\n\t"
        "ldr pc, [sp, #64]\n"
        /* The general requantization: the left shift, the doubling high multiply, the fixup
         * where the shift is a right one. */
        "10:\n\t"
        "vldrw.u32 q0, [r0, %[left]]\n\t"
        "vshl.s32 q2, q2, q0\n\t"
        "vshl.s32 q3, q3, q0\n\t"
        "vqrdmulh.s32 q2, q2, q5\n\t"
        "vqrdmulh.s32 q3, q3, q5\n\t"
        "vand q0, q2, q6\n\t"
        "vand q1, q3, q6\n\t"
        "vshr.s32 q0, q0, #31\n\t"
        "vshr.s32 q1, q1, #31\n\t"
        "b 12f\n"
        /* Every shift a right one: no left shift, the fixup on every negative lane. */
        "11:\n\t"
        "vqrdmulh.s32 q2, q2, q5\n\t"
        "vqrdmulh.s32 q3, q3, q5\n\t"
        "vshr.s32 q0, q2, #31\n\t"
        "vshr.s32 q1, q3, #31\n"
        /* Both: the rounding right shift, the output offset, the clamp (q7, hi). */
        "12:\n\t"
        "vqadd.s32 q2, q2, q0\n\t"
        "vqadd.s32 q3, q3, q1\n\t"
        "vrshl.s32 q2, q2, q6\n\t"
        "vrshl.s32 q3, q3, q6\n\t"
        "ldr r2, [r0, %[offset]]\n\t"
        "vadd.i32 q2, q2, r2\n\t"
        "vadd.i32 q3, q3, r2\n\t"
        "vldrw.u32 q0, [r0, %[hi]]\n\t"
        "vmax.s32 q2, q2, q7\n\t"
        "vmax.s32 q3, q3, q7\n\t"
        "vmin.s32 q2, q2, q0\n\t"
        "vmin.s32 q3, q3, q0\n\t"
        /* The two stores under the group's predicate; the next pair while the row's outputs
         * last. */
        "ldrd r4, r2, [sp, #32]\n\t"
        "add r6, r4, r2\n\t"
        "add r8, r6, r2\n\t"
        "str r8, [sp, #32]\n\t"
        "vpstt\n\t"
        "vstrbt.32 q2, [r4]\n\t"
        "vstrbt.32 q3, [r6]\n\t"
        "ldr r2, [sp, #20]\n\t"
        "cmp r8, r2\n\t"
        "bne 1b\n\t"
        /* The odd pixel: paired with itself (B = A, both stores to its output). */
        "ldr r2, [sp, #40]\n\t"
        "cbz r2, 6f\n\t"
        "movs r2, #0\n\t"
        "str r2, [sp, #40]\n\t"
        "str r2, [sp, #36]\n\t"
        "mov r3, r1\n\t"
        "str r8, [sp, #20]\n\t"
        "b 1b\n"
        /* The next row (x_row on from the row's end), then the next group. */
        "6:\n\t"
        "ldr r2, [r0, %[x_row]]\n\t"
        "add r1, r1, r2\n\t"
        "add r3, r3, r2\n\t"
        "ldr r2, [sp, #24]\n\t"
        "subs r2, r2, #1\n\t"
        "str r2, [sp, #24]\n\t"
        "bne 9b\n\t"
        "ldr r2, [sp, #28]\n\t"
        "subs r2, r2, #1\n\t"
        "str r2, [sp, #28]\n\t"
        "bne 8b\n\t"
        "add sp, sp, #72\n"
        : "+r"(st)
        : UNF_PW_FIELD(x, x), UNF_PW_FIELD(w01, w[0]), UNF_PW_FIELD(w23, w[2]),
          UNF_PW_FIELD(out, out), UNF_PW_FIELD(add, add), UNF_PW_FIELD(mult, mult),
          UNF_PW_FIELD(shift, shift), UNF_PW_FIELD(groups, groups), UNF_PW_FIELD(pairs, pairs),
          UNF_PW_FIELD(rows, rows), UNF_PW_FIELD(x_col, x_col), UNF_PW_FIELD(x_adv, x_adv),
          UNF_PW_FIELD(x_row, x_row), UNF_PW_FIELD(o_col, o_col), UNF_PW_FIELD(len, len),
          UNF_PW_FIELD(offset, offset), UNF_PW_FIELD(entry, entry), UNF_PW_FIELD(passes, passes),
          UNF_PW_FIELD(real, real), UNF_PW_FIELD(w_group, w_group), UNF_PW_FIELD(odd, odd),
          UNF_PW_FIELD(lo, lo), UNF_PW_FIELD(hi, hi), UNF_PW_FIELD(left, left),
          UNF_PW_FIELD(input_offset, input_offset), UNF_PW_FIELD(add_step, add_step)
        : "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr",
          "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "cc", "memory");
}

/* The loop shape of unfolded_pw_asm for pixels of `len` bytes (a multiple of 16, >= 16): the
 * first pass's entry into the three steps and the passes after it. */
HK_INLINE void unfolded_pw_shape(unfolded_pw_t *st, int32_t len)
{
    const int32_t steps = (len >> 4) - 1;
    const int32_t passes = (steps + 2) / 3;
    st->len = len;
    st->entry = (passes == 0 ? 3 : 3 - (steps - 3 * (passes - 1))) * 56;
    st->passes = passes > 0 ? passes - 1 : 0;
}

#endif

/* What one group of four filters needs over every pixel, read once per group. */
typedef struct {
    const int8_t *w[4];
    int32x4_t bias;  /* the model's bias (0 without one) */
    int32x4_t whole; /* bias + input_offset * each filter's sum: a window inside the image */
    int32x4_t mult, shift, lo, hi;
    int32_t offset;
    mve_pred16_t real; /* the group's real filters (the others repeat the first) */
    bool general;
    int32x4_t right, left; /* general ? min(shift, 0), max(shift, 0) : shift, 0 */
} unfolded_group_t;

/* Requantizes, clamps and stores one pixel's four filters (acc: dot products plus `add`). */
HK_INLINE void unfolded_store(const unfolded_group_t *g, int32x4_t acc, int8_t *out)
{
    acc = g->general ? hk_requant_mve(acc, g->mult, g->shift)
                     : hk_requant_right_mve(acc, g->mult, g->shift);
    acc = vminq_s32(vmaxq_s32(vaddq_n_s32(acc, g->offset), g->lo), g->hi);
    vstrbq_p_s32(out, acc, g->real);
}

/* Two pixels' four filters (ya, yb: dot products; add: bias plus the offset term). */
HK_INLINE void unfolded_store2(const unfolded_group_t *g, int32x4_t ya, int32x4_t yb,
                               int32x4_t add, int8_t *out_a, int8_t *out_b)
{
    hk_requant_pair_mve(&ya, &yb, add, g->mult, g->shift, g->general, g->offset, g->lo, g->hi);
    vstrbq_p_s32(out_a, ya, g->real);
    vstrbq_p_s32(out_b, yb, g->real);
}

/* The window shapes a group keeps apart: pixels pair only with a pixel of the same shape (the
 * same taps in the image, so the same runs and the same offset term). Slot 0 is the whole
 * window; the others hold shapes cut by an edge, reused while they recur (a row of pixels cut
 * at the top, the left or right column of each row). */
#define UNF_SLOTS 4

typedef struct {
    int32_t fy0, fy1, fx0, fx1; /* the taps in the image: rows [fy0, fy1), columns [fx0, fx1) */
    int32_t runs, len;          /* the window's runs of len bytes */
    size_t skip;                /* where its first tap is in a filter */
    bool used, summed;
    int32x4_t add;    /* bias + input_offset * the filters' sums over these taps */
    const int8_t *x;  /* a pixel waiting for a partner: its first in-image byte, or NULL */
    int8_t *out;
} unfolded_slot_t;

/* What every window of one call shares. */
typedef struct {
    size_t row, x_step;
    int32_t cin, input_offset;
} unfolded_geometry_t;

/* The slot's bias plus offset term, the filters' sums over its taps taken on first use. */
HK_INLINE int32x4_t unfolded_slot_add(const unfolded_group_t *g, const unfolded_geometry_t *k,
                                      unfolded_slot_t *s)
{
    if (!s->summed) {
        const int32x4_t sums = unfolded_sums4(g->w, s->skip, s->runs, s->len, k->row);
        s->add = vmlaq_n_s32(g->bias, sums, k->input_offset);
        s->summed = true;
    }
    return s->add;
}

#if defined(UNF_PAIR_ASM)
/*
 * Pairs of windows of one shape (runs of whole vectors) in one block of assembly, with the
 * requantization and the stores inside (unfolded_pw_asm's form for windows of several rows): a
 * row's span of k x k windows, or two edge pixels cut the same way. Per pair the eight sums
 * start at zero (from a zeroed q0, two registers per VMOV), each window row is entered part-way
 * into twelve unrolled steps (UNF_PAIR_STEP, UNF_ROW_STEPS; a row of more than twelve vectors
 * loops over the block: twelve, not eight, so a 3 x 3 window of 64 channels takes one pass per
 * row), and between rows the two pixel pointers step to the next input row (the filter
 * pointers too when an edge cuts the window's width) while r10 and lr, two of the sums, wait in
 * the lanes of q3 (free between rows) where the requantization takes them after the last row,
 * so the steps can be read from the frame. Where balanced's conv_quads_asm reads
 * an interleaved copy, both windows are read where they lie. The group's requantization
 * constants are read where the group keeps them (unfolded_group_t). Its frame: the state's
 * address, the output end, the row entry, where the first filter pointer ends after the
 * window's last row (so a row's end needs no count), the passes left, the block's exit (the pass
 * loop or the row end), the row step, the passes per row, the row end (with or without the
 * filters' step) and the group's address: 40 bytes of kernel stack.
 */
typedef struct {
    const int8_t *x;    /* pixel A of the first pair (its window's first byte) */
    int32_t x_col;      /* bytes from pixel A to pixel B */
    const int8_t *w[4]; /* the group's filters at the shape's first tap */
    int8_t *out;        /* the pair's output A (moves on) */
    int32_t out_col;    /* bytes from pixel A's output to pixel B's */
    int32_t out_pair;   /* from one pair's output A to the next's */
    int32_t pairs;      /* pairs of windows */
    int32_t runs;       /* window rows in the image */
    int32_t passes;     /* passes over the twelve steps per window row */
    int32_t entry;      /* where in the steps a row's first pass begins */
    int32_t x_run;      /* from a row's end to the next row's start in the image */
    int32_t x_pair;     /* from pixel A's window end to the next pair's pixel A */
    int32_t w_run;      /* from a row's end to the next row's start in the filters */
    int32_t w_back;     /* the bytes a filter pointer moves per window */
    const unfolded_group_t *g; /* mult, right, left, lo, hi, offset, real */
    int32_t spare[2];   /* unused */
    int32x4_t add;      /* bias + input_offset * the filters' sums over the shape */
} unfolded_rows_t;

/* unfolded_rows_t's member `member` as the asm operand %[name], an immediate byte offset. */
#define UNF_ROWS_FIELD(name, member) [name] "i"(offsetof(unfolded_rows_t, member))

/* The unrolled steps of unfolded_rows_asm (each UNF_PAIR_STEP 56 bytes of code). */
#define UNF_ROW_STEPS 12

HK_NOINLINE void unfolded_rows_asm(unfolded_rows_t *state)
{
    register unfolded_rows_t *st __asm__("r0") = state;
    __asm__ volatile(
        /* Frame (40 bytes): [sp] the state; +4 the last pair's output end; +8 a row's entry
         * into the steps; +12 where filter 0 ends after the window's last row; +16 passes left
         * in the row; +20 where the steps end (6: the pass loop, or the row end); +24 the
         * image's row step; +28 the passes per row; +32 the row end (8: the filters step too,
         * 5: they do not); +36 the group. Entry points carry the Thumb bit for LDR PC. */
        "sub sp, sp, #40\n\t"
        "str r0, [sp]\n\t"
        "adr r2, 2f\n\t"
        "ldr r4, [r0, %[entry]]\n\t"
        "add r2, r2, r4\n\t"
        "orr r2, r2, #1\n\t"
        "str r2, [sp, #8]\n\t"
        "ldr r2, [r0, %[pairs]]\n\t"
        "ldr r4, [r0, %[out_pair]]\n\t"
        "mul r2, r2, r4\n\t"
        "ldr r4, [r0, %[out]]\n\t"
        "add r2, r4, r2\n\t"
        "str r2, [sp, #4]\n\t"
        "adr r2, 5f\n\t"
        "adr r6, 8f\n\t"
        "ldr r4, [r0, %[w_run]]\n\t"
        "cmp r4, #0\n\t"
        "it ne\n\t"
        "movne r2, r6\n\t"
        "orr r2, r2, #1\n\t"
        "str r2, [sp, #32]\n\t"
        "adr r6, 6f\n\t"
        "ldr r4, [r0, %[passes]]\n\t"
        "str r4, [sp, #28]\n\t"
        "str r4, [sp, #16]\n\t"
        "cmp r4, #1\n\t"
        "it ne\n\t"
        "movne r2, r6\n\t"
        "orr r2, r2, #1\n\t"
        "str r2, [sp, #20]\n\t"
        "ldr r2, [r0, %[x_run]]\n\t"
        "str r2, [sp, #24]\n\t"
        /* The bias plus offset term (q4) and the group's multipliers (q5), right shifts (q6),
         * lower clamp (q7) and store predicate. */
        "vldrw.u32 q4, [r0, %[add]]\n\t"
        "ldr r2, [r0, %[g]]\n\t"
        "str r2, [sp, #36]\n\t"
        "vldrw.u32 q5, [r2, %[mult]]\n\t"
        "vldrw.u32 q6, [r2, %[right]]\n\t"
        "vldrw.u32 q7, [r2, %[lo]]\n\t"
        "ldrh r4, [r2, %[real]]\n\t"
        "vmsr p0, r4\n\t"
        /* Pixels A (r1) and B (r3), the filters (r5, r7, r9, r11) and where filter 0 ends for
         * one window. */
        "ldr r1, [r0, %[x]]\n\t"
        "ldr r2, [r0, %[x_col]]\n\t"
        "add r3, r1, r2\n\t"
        "ldr r5, [r0, %[w0]]\n\t"
        "ldr r7, [r0, %[w1]]\n\t"
        "ldr r9, [r0, %[w2]]\n\t"
        "ldr r11, [r0, %[w3]]\n\t"
        "ldr r2, [r0, %[w_back]]\n\t"
        "add r2, r2, r5\n\t"
        "str r2, [sp, #12]\n"
        /* Per pair: the eight sums zeroed (two per VMOV from q0), then into the steps part-way. */
        "1:\n\t"
        "vmov.i32 q0, #0\n\t"
        "vmov r0, r2, q0[2], q0[0]\n\t"
        "vmov r4, r6, q0[2], q0[0]\n\t"
        "vmov r8, r10, q0[2], q0[0]\n\t"
        "vmov r12, lr, q0[2], q0[0]\n\t"
        "ldr pc, [sp, #8]\n\t"
        /* Twelve accumulating steps (UNF_PAIR_STEP, 56 bytes each), then the pass's end. */
        ".p2align 2\n"
        "2:\n\t"
        UNF_PAIR_STEP UNF_PAIR_STEP UNF_PAIR_STEP UNF_PAIR_STEP
        UNF_PAIR_STEP UNF_PAIR_STEP UNF_PAIR_STEP UNF_PAIR_STEP
        UNF_PAIR_STEP UNF_PAIR_STEP UNF_PAIR_STEP UNF_PAIR_STEP
        "ldr pc, [sp, #20]\n\t"
        ".p2align 2\n"
        /* Another pass of the row while passes remain (r12 and lr parked in q0 for the count). */
        "6:\n\t"
        "vmov q0[2], q0[0], r12, lr\n\t"
        "ldr r12, [sp, #16]\n\t"
        "subs r12, r12, #1\n\t"
        "it eq\n\t"
        "ldreq r12, [sp, #28]\n\t"
        "str r12, [sp, #16]\n\t"
        "vmov r12, lr, q0[2], q0[0]\n\t"
        "bne 2b\n\t"
        "ldr pc, [sp, #32]\n\t"
        ".p2align 2\n"
        /* A row's end when an edge cuts the window's width: r10 and lr parked in q3, the
         * filters on by w_run. */
        "8:\n\t"
        "vmov q3[3], q3[1], r10, lr\n\t"
        "ldr lr, [sp]\n\t"
        "ldr lr, [lr, %[w_run]]\n\t"
        "add r5, r5, lr\n\t"
        "add r7, r7, lr\n\t"
        "add r9, r9, lr\n\t"
        "add r11, r11, lr\n\t"
        "b 9f\n\t"
        ".p2align 2\n"
        /* A row's end: r10 and lr parked in q3; the next row (x_run on) unless filter 0 reached
         * the window's end. */
        "5:\n\t"
        "vmov q3[3], q3[1], r10, lr\n"
        "9:\n\t"
        "ldr lr, [sp, #12]\n\t"
        "cmp r5, lr\n\t"
        "beq 7f\n\t"
        "ldr lr, [sp, #24]\n\t"
        "add r1, r1, lr\n\t"
        "add r3, r3, lr\n\t"
        "vmov r10, lr, q3[3], q3[1]\n\t"
        "ldr pc, [sp, #8]\n"
        /* The window's end: the sums into lanes (q2: A, q3: B), the filters rewound, A and B on
         * by x_pair, the bias and offset term added, then the group's requantization (left
         * shift, doubling high multiply, fixup, rounding right shift), the output offset and
         * the clamp. */
        "7:\n\t"
        "vmov q2[2], q2[0], r0, r4\n\t"
        "vmov q2[3], q2[1], r2, r6\n\t"
        "vmov q3[2], q3[0], r8, r12\n\t"
        "ldr r0, [sp]\n\t"
        "ldr r5, [r0, %[w0]]\n\t"
        "ldr r7, [r0, %[w1]]\n\t"
        "ldr r9, [r0, %[w2]]\n\t"
        "ldr r11, [r0, %[w3]]\n\t"
        "ldr r2, [r0, %[x_pair]]\n\t"
        "add r1, r1, r2\n\t"
        "add r3, r3, r2\n\t"
        "ldr r2, [sp, #36]\n\t"
        "vadd.i32 q2, q2, q4\n\t"
        "vadd.i32 q3, q3, q4\n\t"
        "vldrw.u32 q0, [r2, %[left]]\n\t"
        "vshl.s32 q2, q2, q0\n\t"
        "vshl.s32 q3, q3, q0\n\t"
        "vqrdmulh.s32 q2, q2, q5\n\t"
        "vqrdmulh.s32 q3, q3, q5\n\t"
        "vand q0, q2, q6\n\t"
        "vand q1, q3, q6\n\t"
        "vshr.s32 q0, q0, #31\n\t"
        "vshr.s32 q1, q1, #31\n\t"
        "vqadd.s32 q2, q2, q0\n\t"
        "vqadd.s32 q3, q3, q1\n\t"
        "vrshl.s32 q2, q2, q6\n\t"
        "vrshl.s32 q3, q3, q6\n\t"
        "ldr r4, [r2, %[offset]]\n\t"
        "vadd.i32 q2, q2, r4\n\t"
        "vadd.i32 q3, q3, r4\n\t"
        "vldrw.u32 q0, [r2, %[hi]]\n\t"
        "vmax.s32 q2, q2, q7\n\t"
        "vmax.s32 q3, q3, q7\n\t"
        "vmin.s32 q2, q2, q0\n\t"
        "vmin.s32 q3, q3, q0\n\t"
        /* The two stores under the predicate; the outputs on by out_pair; the next pair until
         * the last one's. */
        "ldr r4, [r0, %[out]]\n\t"
        "ldr r2, [r0, %[out_col]]\n\t"
        "add r6, r4, r2\n\t"
        "ldr r2, [r0, %[out_pair]]\n\t"
        "add r8, r4, r2\n\t"
        "str r8, [r0, %[out]]\n\t"
        "vpstt\n\t"
        "vstrbt.32 q2, [r4]\n\t"
        "vstrbt.32 q3, [r6]\n\t"
        "ldr r2, [sp, #4]\n\t"
        "cmp r8, r2\n\t"
        "bne 1b\n\t"
        "add sp, sp, #40\n"
        : "+r"(st)
        : UNF_ROWS_FIELD(x, x), UNF_ROWS_FIELD(x_col, x_col), UNF_ROWS_FIELD(w0, w[0]),
          UNF_ROWS_FIELD(w1, w[1]), UNF_ROWS_FIELD(w2, w[2]), UNF_ROWS_FIELD(w3, w[3]),
          UNF_ROWS_FIELD(out, out), UNF_ROWS_FIELD(out_col, out_col),
          UNF_ROWS_FIELD(out_pair, out_pair), UNF_ROWS_FIELD(pairs, pairs),
          UNF_ROWS_FIELD(passes, passes), UNF_ROWS_FIELD(entry, entry),
          UNF_ROWS_FIELD(x_run, x_run), UNF_ROWS_FIELD(x_pair, x_pair),
          UNF_ROWS_FIELD(w_run, w_run), UNF_ROWS_FIELD(w_back, w_back), UNF_ROWS_FIELD(g, g),
          UNF_ROWS_FIELD(add, add),
          [mult] "i"(offsetof(unfolded_group_t, mult)),
          [right] "i"(offsetof(unfolded_group_t, right)),
          [left] "i"(offsetof(unfolded_group_t, left)), [lo] "i"(offsetof(unfolded_group_t, lo)),
          [hi] "i"(offsetof(unfolded_group_t, hi)),
          [offset] "i"(offsetof(unfolded_group_t, offset)),
          [real] "i"(offsetof(unfolded_group_t, real))
        : "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr",
          "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "cc", "memory");
}

/* `pairs` pairs of slot s's windows (runs of `len` bytes, whole vectors) against the group's
 * filters: pixel A of the first at x, pixel B x_col after it, the next pair x_next after;
 * their outputs at out and out + out_col, the next pair's out_pair after; add: bias plus the
 * offset term over the shape. All in unfolded_rows_asm. */
HK_NOINLINE void unfolded_rows_span(const unfolded_group_t *g, const unfolded_geometry_t *k,
                                    const unfolded_slot_t *s, int32x4_t add, const int8_t *x,
                                    int32_t x_col, int32_t x_next, int32_t pairs, int8_t *out,
                                    int32_t out_col, int32_t out_pair)
{
    const int32_t runs = s->runs, len = s->len, vectors = len >> 4;
    const int32_t row = (int32_t)k->row, x_step = (int32_t)k->x_step;
    unfolded_rows_t st;
    st.x = x;
    st.x_col = x_col;
    for (int32_t j = 0; j < 4; ++j) {
        st.w[j] = g->w[j] + s->skip;
    }
    st.out = out;
    st.out_col = out_col;
    st.out_pair = out_pair;
    st.pairs = pairs;
    st.runs = runs;
    st.passes = (vectors + UNF_ROW_STEPS - 1) / UNF_ROW_STEPS;
    st.entry = (UNF_ROW_STEPS - 1 - (vectors + UNF_ROW_STEPS - 1) % UNF_ROW_STEPS) * 56;
    st.x_run = x_step - len;
    st.x_pair = x_next - (runs - 1) * x_step - len;
    st.w_run = row - len;
    st.w_back = runs * row;
    st.g = g;
    st.add = add;
    unfolded_rows_asm(&st);
}
#endif

/* One pixel of slot s's shape whose first in-image byte is x: with the slot's waiting pixel
 * as a pair, or else left waiting in the slot for the next of its shape. */
HK_NOINLINE void unfolded_pixel(const unfolded_group_t *g, const unfolded_geometry_t *k,
                                unfolded_slot_t *s, const int8_t *x, int8_t *out)
{
    if (s->x == NULL) {
        s->x = x;
        s->out = out;
        return;
    }
#if defined(UNF_PAIR_ASM)
    if ((s->len & 15) == 0 && s->len > 0 && s->runs > 0) {
        unfolded_rows_span(g, k, s, unfolded_slot_add(g, k, s), s->x, (int32_t)(x - s->x), 0, 1,
                           s->out, (int32_t)(out - s->out), 1);
        s->x = NULL;
        return;
    }
#endif
    const size_t skip = s->skip;
    const int8_t *w[4] = {g->w[0] + skip, g->w[1] + skip, g->w[2] + skip, g->w[3] + skip};
    int32x4_t ya, yb;
    unfolded_pair_dots(s->x, x, k->x_step, s->runs, s->len, w, k->row, &ya, &yb);
    unfolded_store2(g, ya, yb, unfolded_slot_add(g, k, s), s->out, out);
    s->x = NULL;
}

/* `pairs` pairs of consecutive pixels of one output row whose windows have slot s's shape
 * (and whose sums it holds): x the first one's first in-image byte, x_col between pixels. */
HK_NOINLINE void unfolded_span(const unfolded_group_t *g, const unfolded_geometry_t *k,
                               const unfolded_slot_t *s, const int8_t *x, size_t x_col,
                               int32_t pairs, int8_t *out, size_t channels)
{
    const size_t skip = s->skip;
    const int8_t *w[4] = {g->w[0] + skip, g->w[1] + skip, g->w[2] + skip, g->w[3] + skip};
    const int32_t runs = s->runs, len = s->len;
    const size_t x_step = k->x_step, row = k->row;
#if defined(UNF_PAIR_ASM)
    if ((len & 15) == 0 && len > 0 && runs > 0) {
        unfolded_rows_span(g, k, s, s->add, x, (int32_t)x_col, 2 * (int32_t)x_col, pairs, out,
                           (int32_t)channels,
                           2 * (int32_t)channels);
        return;
    }
#endif
    for (int32_t i = 0; i < pairs; ++i, x += 2 * x_col, out += 2 * channels) {
        int32x4_t ya, yb;
        unfolded_pair_dots(x, x + x_col, x_step, runs, len, w, row, &ya, &yb);
        unfolded_store2(g, ya, yb, s->add, out, out + channels);
    }
}

#if defined(UNF_PAIR_ASM)
/*
 * One pixel alone against four filters over runs of whole vectors, with the filters' sums
 * over the same taps, in one block of assembly: a step loads the pixel's vector and each
 * filter's, and takes four VMLADAVA and four VADDVA (both accumulate only into even registers:
 * the dots in r0-r6, the sums in r8-lr; the five pointers and the count take odd ones). GCC's
 * loop for the same (hk_conv_dots4_mve with sums) spills about as much as it computes. Its
 * frame: the state's address, the runs left, the steps: 24 bytes of kernel stack.
 */
typedef struct {
    const int8_t *x;    /* the window's first in-image byte */
    const int8_t *w[4]; /* the filters at the shape's first tap */
    int32_t runs;       /* window rows in the image */
    int32_t vectors;    /* per run (>= 1) */
    int32_t x_adv;      /* from a run's end to the next in the image */
    int32_t w_adv;      /* from a run's end to the next in the filters */
    int32_t spare[3];   /* unused */
    int32x4_t dots;     /* out: the pixel's four dot products */
    int32x4_t sums;     /* out: the four filters' sums over the same taps */
} unfolded_lone_t;

/* unfolded_lone_t's member `member` as the asm operand %[name], an immediate byte offset. */
#define UNF_LONE_FIELD(name, member) [name] "i"(offsetof(unfolded_lone_t, member))

HK_NOINLINE void unfolded_lone_asm(unfolded_lone_t *state)
{
    register unfolded_lone_t *st __asm__("r0") = state;
    __asm__ volatile(
        /* Frame (24 bytes): [sp] the state; +4 runs left; +8 vectors per run. */
        "sub sp, sp, #24\n\t"
        "str r0, [sp]\n\t"
        "ldr r2, [r0, %[runs]]\n\t"
        "str r2, [sp, #4]\n\t"
        "ldr r2, [r0, %[vectors]]\n\t"
        "str r2, [sp, #8]\n\t"
        /* The pixel (r1) and the filters (r3, r5, r7, r9); the eight sums zeroed, two per VMOV. */
        "ldr r1, [r0, %[x]]\n\t"
        "ldr r3, [r0, %[w0]]\n\t"
        "ldr r5, [r0, %[w1]]\n\t"
        "ldr r7, [r0, %[w2]]\n\t"
        "ldr r9, [r0, %[w3]]\n\t"
        "vmov.i32 q0, #0\n\t"
        "vmov r0, r2, q0[2], q0[0]\n\t"
        "vmov r4, r6, q0[2], q0[0]\n\t"
        "vmov r8, r10, q0[2], q0[0]\n\t"
        "vmov r12, lr, q0[2], q0[0]\n"
        /* Per run: per vector, the pixel's bytes against each filter's (VMLADAVA into r0-r6)
         * and each filter's sum (VADDVA into r8-lr). */
        "1:\n\t"
        "ldr r11, [sp, #8]\n"
        "2:\n\t"
        "vldrb.8 q0, [r1], #16\n\t"
        "vldrb.8 q1, [r3], #16\n\t"
        "vmladava.s8 r0, q0, q1\n\t"
        "vaddva.s8 r8, q1\n\t"
        "vldrb.8 q1, [r5], #16\n\t"
        "vmladava.s8 r2, q0, q1\n\t"
        "vaddva.s8 r10, q1\n\t"
        "vldrb.8 q1, [r7], #16\n\t"
        "vmladava.s8 r4, q0, q1\n\t"
        "vaddva.s8 r12, q1\n\t"
        "vldrb.8 q1, [r9], #16\n\t"
        "vmladava.s8 r6, q0, q1\n\t"
        "vaddva.s8 lr, q1\n\t"
        "subs r11, r11, #1\n\t"
        "bne 2b\n\t"
        /* The next run: the pixel on by x_adv, the filters by w_adv. */
        "ldr r11, [sp, #4]\n\t"
        "subs r11, r11, #1\n\t"
        "beq 3f\n\t"
        "str r11, [sp, #4]\n\t"
        "ldr r11, [sp]\n\t"
        "ldr r11, [r11, %[x_adv]]\n\t"
        "add r1, r1, r11\n\t"
        "ldr r11, [sp]\n\t"
        "ldr r11, [r11, %[w_adv]]\n\t"
        "add r3, r3, r11\n\t"
        "add r5, r5, r11\n\t"
        "add r7, r7, r11\n\t"
        "add r9, r9, r11\n\t"
        "b 1b\n"
        /* The dots and the sums into lanes and back into the state. */
        "3:\n\t"
        "ldr r11, [sp]\n\t"
        "vmov q0[2], q0[0], r0, r4\n\t"
        "vmov q0[3], q0[1], r2, r6\n\t"
        "vstrw.32 q0, [r11, %[dots]]\n\t"
        "vmov q1[2], q1[0], r8, r12\n\t"
        "vmov q1[3], q1[1], r10, lr\n\t"
        "vstrw.32 q1, [r11, %[sums]]\n\t"
        "add sp, sp, #24\n"
        : "+r"(st)
        : UNF_LONE_FIELD(x, x), UNF_LONE_FIELD(w0, w[0]), UNF_LONE_FIELD(w1, w[1]),
          UNF_LONE_FIELD(w2, w[2]), UNF_LONE_FIELD(w3, w[3]), UNF_LONE_FIELD(runs, runs),
          UNF_LONE_FIELD(vectors, vectors), UNF_LONE_FIELD(x_adv, x_adv),
          UNF_LONE_FIELD(w_adv, w_adv), UNF_LONE_FIELD(dots, dots), UNF_LONE_FIELD(sums, sums)
        : "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr",
          "q0", "q1", "cc", "memory");
}
#endif

/* The slot's waiting pixel, if any, alone: its dot products (and, for a shape not yet
 * summed, the filters' sums). */
HK_NOINLINE void unfolded_flush(const unfolded_group_t *g, const unfolded_geometry_t *k,
                                unfolded_slot_t *s)
{
    if (s->x == NULL) {
        return;
    }
#if defined(UNF_PAIR_ASM)
    if ((s->len & 15) == 0 && s->len > 0 && s->runs > 0) {
        /* Its dots and the shape's sums in one pass of unfolded_lone_asm; the sums kept for
         * the shape's next pixels. */
        unfolded_lone_t st;
        st.x = s->x;
        for (int32_t j = 0; j < 4; ++j) {
            st.w[j] = g->w[j] + s->skip;
        }
        st.runs = s->runs;
        st.vectors = s->len >> 4;
        st.x_adv = (int32_t)k->x_step - s->len;
        st.w_adv = (int32_t)k->row - s->len;
        unfolded_lone_asm(&st);
        if (!s->summed) {
            s->add = vmlaq_n_s32(g->bias, st.sums, k->input_offset);
            s->summed = true;
        }
        unfolded_store(g, vaddq_s32(st.dots, s->add), s->out);
        s->x = NULL;
        return;
    }
#endif
    int32x4_t acc;
    if (s->summed) {
        const size_t skip = s->skip;
        const int8_t *w[4] = {g->w[0] + skip, g->w[1] + skip, g->w[2] + skip, g->w[3] + skip};
        acc = vaddq_s32(unfolded_whole4(s->x, k->x_step, s->runs, s->len, w, k->row), s->add);
    } else {
        int32x4_t sums;
        acc = unfolded_clipped4(s->x, k->x_step, s->runs, s->len, g->w, s->skip, k->row, &sums);
        acc = vaddq_s32(vmlaq_n_s32(acc, sums, k->input_offset), g->bias);
    }
    unfolded_store(g, acc, s->out);
    s->x = NULL;
}

/* The slot of the shape [fy0, fy1) x [fx0, fx1): one that holds it, or the next in turn
 * (slots 1..), whose waiting pixel then goes alone. */
HK_NOINLINE unfolded_slot_t *unfolded_slot(const unfolded_group_t *g,
                                           const unfolded_geometry_t *k, unfolded_slot_t *slots,
                                           int32_t *evict, int32_t fy0, int32_t fy1,
                                           int32_t fx0, int32_t fx1)
{
    for (int32_t i = 0; i < UNF_SLOTS; ++i) {
        unfolded_slot_t *s = &slots[i];
        if (s->used && s->fy0 == fy0 && s->fy1 == fy1 && s->fx0 == fx0 && s->fx1 == fx1) {
            return s;
        }
    }
    unfolded_slot_t *s = &slots[*evict];
    *evict = *evict + 1 < UNF_SLOTS ? *evict + 1 : 1;
    unfolded_flush(g, k, s);
    s->fy0 = fy0;
    s->fy1 = fy1;
    s->fx0 = fx0;
    s->fx1 = fx1;
    s->runs = fx1 > fx0 ? fy1 - fy0 : 0;
    s->len = (fx1 - fx0) * k->cin;
    s->skip = (size_t)fy0 * k->row + (size_t)fx0 * (size_t)k->cin;
    s->used = true;
    s->summed = false;
    return s;
}

/* Output pixels [from, to) of one row, each alone through its shape's slot (the columns
 * whose windows the left or right edge cuts). */
HK_NOINLINE void unfolded_edge(const hk_conv_params_t *p, const unfolded_group_t *g,
                               const unfolded_geometry_t *k, unfolded_slot_t *slots,
                               int32_t *evict, int32_t fy0, int32_t fy1, const int8_t *line,
                               int32_t from, int32_t to, int8_t *out)
{
    const size_t channels = (size_t)p->output_channels;
    for (int32_t ox = from; ox < to; ++ox) {
        const int32_t ix0 = ox * p->stride_width - p->pad_left;
        int32_t fx0, fx1;
        hk_window_taps(ix0, 1, p->filter_width, p->input_width, &fx0, &fx1);
        unfolded_slot_t *s = unfolded_slot(g, k, slots, evict, fy0, fy1, fx0, fx1);
        unfolded_pixel(g, k, s, line + (ix0 + fx0) * k->cin, out + (size_t)ox * channels);
    }
}


/*
 * Every output pixel against four filters. Each window is cut to its taps in the image (the
 * reference skips the others) and pixels pair with a pixel of the same cut: along each output
 * row, the columns whose windows the left and right edges leave whole are one span of pairs
 * (their first taps x_col apart), the columns cut at an edge go one by one, and a pixel left
 * without a partner waits in its shape's slot for the next (the next row's span, the next
 * row's edge column). A pair's dot products read both windows in place; the offset term is
 * the input offset times the filters' sums over the shape's taps, taken once per shape.
 * Requantized, clamped and stored four bytes per pixel.
 */
HK_NOINLINE void unfolded_group(const hk_conv_params_t *p, const int8_t *input,
                                const unfolded_group_t *g, int8_t *out)
{
    const int32_t cin = p->input_channels;
    const size_t channels = (size_t)p->output_channels;
    const int32_t ow = p->output_width, sw = p->stride_width;
    unfolded_geometry_t k;
    k.cin = cin;
    k.input_offset = p->input_offset;
    k.row = (size_t)p->filter_width * (size_t)cin;
    k.x_step = (size_t)p->dilation_height * (size_t)p->input_width * (size_t)cin;
    const size_t x_col = (size_t)sw * (size_t)cin;
    /* The columns whose windows lie inside the image left to right: [lo, hi). */
    const int32_t lo = hk_min_i32(ow, (p->pad_left + sw - 1) / sw);
    const int32_t room = p->input_width - p->filter_width + p->pad_left;
    const int32_t hi = hk_max_i32(lo, room < 0 ? 0 : hk_min_i32(ow, room / sw + 1));
    unfolded_slot_t slots[UNF_SLOTS];
    for (int32_t i = 0; i < UNF_SLOTS; ++i) {
        slots[i].used = false;
        slots[i].x = NULL;
    }
    slots[0].fy0 = 0;
    slots[0].fy1 = p->filter_height;
    slots[0].fx0 = 0;
    slots[0].fx1 = p->filter_width;
    slots[0].runs = p->filter_height;
    slots[0].len = (int32_t)k.row;
    slots[0].skip = 0;
    slots[0].used = true;
    slots[0].summed = true;
    slots[0].add = g->whole;
    int32_t evict = 1;
#if defined(UNF_PAIR_ASM)
    /* Two output rows per span call where both read whole window rows (unfolded_rows_asm
     * pairs each pixel with the one below): k x k windows of whole vectors per row. */
    const bool stacked = (p->filter_height > 1 || p->filter_width > 1) && (k.row & 15) == 0 &&
                         hi > lo;
#endif
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + (size_t)b * (size_t)p->input_height *
                                          (size_t)p->input_width * (size_t)cin;
        for (int32_t oy = 0; oy < p->output_height; ++oy, out += (size_t)ow * channels) {
            const int32_t iy0 = oy * p->stride_height - p->pad_top;
            int32_t fy0, fy1;
            hk_window_taps(iy0, p->dilation_height, p->filter_height, p->input_height, &fy0,
                           &fy1);
            const int8_t *line =
                image + (iy0 + fy0 * p->dilation_height) * p->input_width * cin;
#if defined(UNF_PAIR_ASM)
            if (stacked && fy0 == 0 && fy1 == p->filter_height && oy + 1 < p->output_height &&
                slots[0].x == NULL && iy0 + p->stride_height + (p->filter_height - 1) *
                                                                   p->dilation_height <
                                          p->input_height) {
                /* This row and the next read whole window rows: each pixel pairs with the one
                 * below it, so the two rows' spans are one call with no pixel left over. */
                const size_t down = (size_t)p->stride_height * (size_t)p->input_width *
                                    (size_t)cin;
                int8_t *below = out + (size_t)ow * channels;
                unfolded_edge(p, g, &k, slots, &evict, 0, p->filter_height, line, 0, lo, out);
                unfolded_edge(p, g, &k, slots, &evict, 0, p->filter_height, line + down, 0, lo,
                              below);
                unfolded_rows_span(g, &k, &slots[0], g->whole,
                                   line + (lo * sw - p->pad_left) * cin, (int32_t)down,
                                   (int32_t)x_col, hi - lo, out + (size_t)lo * channels,
                                   ow * (int32_t)channels, (int32_t)channels);
                unfolded_edge(p, g, &k, slots, &evict, 0, p->filter_height, line, hi, ow, out);
                unfolded_edge(p, g, &k, slots, &evict, 0, p->filter_height, line + down, hi, ow,
                              below);
                ++oy;
                out = below;
                continue;
            }
#endif
            unfolded_edge(p, g, &k, slots, &evict, fy0, fy1, line, 0, lo, out);
            if (hi > lo) {
                unfolded_slot_t *s = fy0 == 0 && fy1 == p->filter_height
                                         ? &slots[0]
                                         : unfolded_slot(g, &k, slots, &evict, fy0, fy1, 0,
                                                         p->filter_width);
                const int8_t *x = line + (lo * sw - p->pad_left) * cin;
                int8_t *o = out + (size_t)lo * channels;
                int32_t n = hi - lo;
                if (s->x != NULL) {
                    unfolded_pixel(g, &k, s, x, o);
                    x += x_col;
                    o += channels;
                    --n;
                }
                if (n > 1) {
                    (void)unfolded_slot_add(g, &k, s);
                    unfolded_span(g, &k, s, x, x_col, n >> 1, o, channels);
                }
                if ((n & 1) != 0) {
                    s->x = x + (size_t)(n - 1) * x_col;
                    s->out = o + (size_t)(n - 1) * channels;
                }
            }
            unfolded_edge(p, g, &k, slots, &evict, fy0, fy1, line, hi, ow, out);
        }
    }
    for (int32_t i = 0; i < UNF_SLOTS; ++i) {
        unfolded_flush(g, &k, &slots[i]);
    }
}

#if defined(UNF_PAIR_ASM)
/* `pixels` pixels in `rows` rows (x_row between rows; an odd count only when rows == 1) from
 * x, against the state's groups of filters from w (OHWI: filter j at w + j * len), stored from
 * out: one run of unfolded_pw_asm (a lone pixel paired with itself). */
HK_INLINE void unfolded_pw_segment(unfolded_pw_t *st, const int8_t *w, const int8_t *x,
                                   int8_t *out, int32_t rows, int32_t pixels, int32_t x_row)
{
    for (int32_t j = 0; j < 4; ++j) {
        st->w[j] = w + j * st->len;
    }
    st->x = x;
    st->out = out;
    st->rows = rows;
    st->x_row = x_row;
    const int32_t x_col = st->x_col, o_col = st->o_col;
    if (pixels == 1) {
        st->x_col = 0;
        st->o_col = 0;
    }
    st->pairs = pixels == 1 ? 1 : pixels >> 1;
    st->odd = pixels == 1 ? 0 : pixels & 1;
    unfolded_pw_asm(st);
    st->x_col = x_col;
    st->o_col = o_col;
}

/*
 * A pointwise call (1x1 filter, no padding, channels a multiple of 16) for its whole groups of
 * four filters: every pair of pixels of each group in one run of unfolded_pw_asm, when the
 * call's pixels follow each other at one stride (its rows contiguous in the input) or its
 * rows are of an even width in one image. The loop starts each group from the model's bias (or
 * 0) and, when the input offset is not 0, adds the offset times the filters' sums, taken in
 * the loop once per group. Returns the filters done (0 when the call is not such a case; a
 * last group of 1..3 filters is left to the general loop).
 */
HK_NOINLINE int32_t unfolded_pointwise(const hk_conv_params_t *p, const int8_t *input,
                                       const int8_t *filter, const int32_t *bias,
                                       int8_t *output)
{
    const int32_t cin = p->input_channels, channels = p->output_channels;
    const int32_t ow = p->output_width, oh = p->output_height, sw = p->stride_width;
    const int32_t full = channels & ~3;
    if (p->filter_height != 1 || p->filter_width != 1 || p->pad_top != 0 || p->pad_left != 0 ||
        (cin & 15) != 0 || full == 0 || ow < 1 || oh < 1 || p->batches < 1 ||
        (ow - 1) * sw >= p->input_width || (oh - 1) * p->stride_height >= p->input_height) {
        return 0;
    }
    /* Pixels x_col apart through the whole call (rows contiguous in the input), or rows of
     * an even width whose pixels pair within the row. */
    const bool chained = (p->batches == 1 && oh == 1) ||
                         (p->stride_height == 1 && p->input_height == oh &&
                          p->input_width == ow * sw);
    if (!chained && (p->batches != 1 || (ow & 1) != 0)) {
        return 0;
    }
    const int32_t x_col = sw * cin;
    unfolded_pw_t st;
    st.x_col = x_col;
    st.x_adv = 2 * x_col - cin;
    st.o_col = channels;
    unfolded_pw_shape(&st, cin);
    st.offset = p->output_offset;
    st.real = 0xFFFFu;
    st.w_group = 4 * cin;
    st.lo = vdupq_n_s32(hk_max_i32(p->act_min, -128));
    st.hi = vdupq_n_s32(hk_min_i32(p->act_max, 127));
    const int32_t rows = chained ? 1 : oh;
    const int32_t pixels = chained ? p->batches * oh * ow : ow;
    const int32_t zero[4] = {0, 0, 0, 0};
    st.add = bias != NULL ? bias : zero;
    st.add_step = bias != NULL ? 16 : 0;
    st.input_offset = p->input_offset;
    st.mult = p->output_multiplier;
    st.shift = p->output_shift;
    st.groups = full >> 2;
    unfolded_pw_segment(&st, filter, input, output, rows, pixels,
                        p->stride_height * p->input_width * cin - ow * x_col);
    return full;
}
#endif

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8): sum of filter * (input +
 * input_offset) over the taps inside the image, plus the bias, computed as the dot product
 * with the raw input plus the offset times the filter taps' sum (the same int32 integers). The
 * filters' sums are taken at run time, once per group of four filters and window shape; no
 * buffer and no constant beyond the model's (the OHWI weights are read as they are). */
void hk_conv_s8_unfolded_mve(const hk_conv_params_t *p, const int8_t *input,
                             const int8_t *filter, const int32_t *bias, int8_t *output)
{
    const int32_t channels = p->output_channels;
    const size_t taps = (size_t)p->filter_height * (size_t)p->filter_width *
                        (size_t)p->input_channels;
    int32_t from = 0;
#if defined(UNF_PAIR_ASM)
    /* A pointwise call: its whole groups of filters in unfolded_pointwise's loop. */
    from = unfolded_pointwise(p, input, filter, bias, output);
    if (from == channels) {
        return;
    }
#endif
    unfolded_group_t g;
    g.general =
        hk_requant_mode(p->output_multiplier, p->output_shift, channels) == HK_REQUANT_GENERAL;
    g.lo = vdupq_n_s32(hk_max_i32(p->act_min, -128));
    g.hi = vdupq_n_s32(hk_min_i32(p->act_max, 127));
    g.offset = p->output_offset;
    for (int32_t oc = from; oc < channels; oc += 4) {
        const int32_t n = hk_min_i32(channels - oc, 4);
        /* Missing filters repeat the first and are not stored. */
        g.w[0] = filter + (size_t)oc * taps;
        for (int32_t j = 1; j < 4; ++j) {
            g.w[j] = j < n ? g.w[0] + (size_t)j * taps : g.w[0];
        }
        g.real = vctp32q((uint32_t)n);
        g.bias = bias != NULL ? vldrwq_z_s32(bias + oc, g.real) : vdupq_n_s32(0);
        /* An input offset of 0 (goal size folded it into the bias: every window lies in the
         * image) needs no sums. */
        g.whole = p->input_offset == 0
                      ? g.bias
                      : vmlaq_n_s32(g.bias, unfolded_sums4(g.w, 0, 1, (int32_t)taps, 0),
                                    p->input_offset);
        g.mult = vldrwq_z_s32(p->output_multiplier + oc, g.real);
        g.shift = vldrwq_z_s32(p->output_shift + oc, g.real);
        g.right = g.general ? vminq_s32(g.shift, vdupq_n_s32(0)) : g.shift;
        g.left = g.general ? vmaxq_s32(g.shift, vdupq_n_s32(0)) : vdupq_n_s32(0);
        unfolded_group(p, input, &g, output + oc);
    }
}

#endif /* HK_HAVE_MVE */
