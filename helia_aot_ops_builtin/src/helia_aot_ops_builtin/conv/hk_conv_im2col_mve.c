/*
 * helia-aot kernel library: the Helium path of int8 CONV_2D over few input channels (see
 * hk_conv_im2col.h). Follows LiteRT reference_integer_ops::ConvPerChannel: the input offset is
 * folded into offset_bias and taps outside the image are gathered as the input zero point, so
 * each one adds filter * (zero_point + input_offset) = 0, exactly what the skipped tap adds there.
 */
#include "hk_conv_im2col.h"

#include "hk_isa.h"
#include "hk_requant.h"
#include "hk_simd.h"
#include "hk_window.h"

#if HK_HAVE_MVE

void hk_conv_s8_im2col_mve(const hk_conv_im2col_params_t *q, const int8_t *input,
                           int8_t *output);

/*
 * The receptive field of the output pixel whose window starts at (iy0, ix0) of `image`, in the
 * filter's (fy, fx, c) order, into col[0..taps): one predicated load and store per filter row
 * when the row lies inside the image and fits a vector (the usual first-layer window), else 16
 * lanes at a time with the lanes outside the image never read and given `fill`. Bytes of col
 * past taps are left as they are (the packed filters are zero there).
 */
HK_NOINLINE void im2col_gather(const hk_conv_params_t *p, const int8_t *image, int32_t iy0,
                               int32_t ix0, int8_t fill, int8_t *col)
{
    const int32_t cin = p->input_channels;
    const int32_t row = p->filter_width * cin;
    const int8x16_t fills = vdupq_n_s8(fill);
    const size_t line = (size_t)p->input_width * (size_t)cin;
    int32_t fx0, fx1;
    hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width, &fx0, &fx1);
    if (p->dilation_width != 1) {
        /* Taps of a dilated row are not contiguous in the image: one run of cin bytes each. */
        for (int32_t fy = 0; fy < p->filter_height; ++fy, col += row) {
            const int32_t iy = iy0 + fy * p->dilation_height;
            const bool inside = iy >= 0 && iy < p->input_height;
            for (int32_t fx = 0; fx < p->filter_width; ++fx) {
                const int32_t ix = ix0 + fx * p->dilation_width;
                if (inside && fx >= fx0 && fx < fx1) {
                    hk_copy_s8(col + fx * cin, image + (size_t)iy * line + (size_t)ix * (size_t)cin,
                               cin);
                } else {
                    hk_fill_s8(col + fx * cin, fill, cin);
                }
            }
        }
        return;
    }
    const int32_t first = fx0 * cin, end = fx1 * cin;
    if (first == 0 && end == row && row <= 16) {
        const mve_pred16_t keep = vctp8q((uint32_t)row);
        const int8_t *src = image + (size_t)ix0 * (size_t)cin;
        for (int32_t fy = 0; fy < p->filter_height; ++fy, col += row) {
            const int32_t iy = iy0 + fy * p->dilation_height;
            int8x16_t v = fills;
            if (iy >= 0 && iy < p->input_height) {
                v = vldrbq_z_s8(src + (size_t)iy * line, keep);
            }
            vstrbq_p_s8(col, v, keep);
        }
        return;
    }
    for (int32_t fy = 0; fy < p->filter_height; ++fy, col += row) {
        const int32_t iy = iy0 + fy * p->dilation_height;
        const bool inside = iy >= 0 && iy < p->input_height && first < end;
        /* Where the row's tap 0 would be; only lanes of taps inside the image are read. */
        const uintptr_t run =
            (uintptr_t)image + (uintptr_t)(((intptr_t)iy * p->input_width + ix0) * cin);
        for (int32_t j = 0; j < row; j += 16) {
            const mve_pred16_t upto = vctp8q((uint32_t)hk_max_i32(end - j, 0));
            const mve_pred16_t before = vctp8q((uint32_t)hk_max_i32(first - j, 0));
            const mve_pred16_t in = inside ? (mve_pred16_t)(upto & ~before) : 0;
            const int8x16_t v = vldrbq_z_s8((const int8_t *)(run + (uintptr_t)j), in);
            vstrbq_p_s8(col + j, vpselq_s8(v, fills, in), vctp8q((uint32_t)(row - j)));
        }
    }
}

/*
 * Four packed filters (*w: vector k of rows 0..3 at bytes 64 k .. 64 k + 63) against the
 * columns xa and xb, `vectors` (>= 1) vectors each: *qa gets pixel A's four sums, *qb pixel B's,
 * and *w moves to the next group. Each filter vector loaded serves both pixels.
 */
#if defined(__OPTIMIZE__)
/* In assembly: VMLADAV accumulates only into even registers, so the eight sums take r0, r2, ...,
 * r12 and lr and the odd ones hold the three pointers and the count, which GCC 12 does not
 * manage without spilling inside the loop. The first vector starts the sums (VMLADAV), the
 * others add to them (VMLADAVA); VMOV then puts them in lanes (its first register lower). */
#define IM2COL_DOT4X2(OP)                                                                      \
    "vldrb.8 q0, [%[pa]], #16\n\t"                                                             \
    "vldrb.8 q1, [%[pb]], #16\n\t"                                                             \
    "vldrb.8 q2, [%[pw]], #16\n\t" OP " %[a0], q0, q2\n\t" OP " %[b0], q1, q2\n\t"             \
    "vldrb.8 q3, [%[pw]], #16\n\t" OP " %[a1], q0, q3\n\t" OP " %[b1], q1, q3\n\t"             \
    "vldrb.8 q2, [%[pw]], #16\n\t" OP " %[a2], q0, q2\n\t" OP " %[b2], q1, q2\n\t"             \
    "vldrb.8 q3, [%[pw]], #16\n\t" OP " %[a3], q0, q3\n\t" OP " %[b3], q1, q3\n\t"
HK_INLINE void im2col_dot4x2(const int8_t *xa, const int8_t *xb, const int8_t **w,
                             int32_t vectors, int32x4_t *qa, int32x4_t *qb)
{
    HK_MVE_EVEN_SUMS;
    register const int8_t *pa __asm__("r1") = xa;
    register const int8_t *pb __asm__("r3") = xb;
    register const int8_t *pw __asm__("r5") = *w;
    register int32_t n __asm__("r7") = vectors;
    int32x4_t ya, yb;
    __asm__ volatile(IM2COL_DOT4X2("vmladav.s8") "subs %[n], %[n], #1\n\t"
                                                 "beq 2f\n"
                                                 "1:\n\t" IM2COL_DOT4X2("vmladava.s8")
                                                 "subs %[n], %[n], #1\n\t"
                                                 "bne 1b\n"
                                                 "2:\n\t"
                                                 "vmov %q[ya][2], %q[ya][0], %[a0], %[a2]\n\t"
                                                 "vmov %q[ya][3], %q[ya][1], %[a1], %[a3]\n\t"
                                                 "vmov %q[yb][2], %q[yb][0], %[b0], %[b2]\n\t"
                                                 "vmov %q[yb][3], %q[yb][1], %[b1], %[b3]\n"
                     : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),
                       [b0] "=&r"(b0), [b1] "=&r"(b1), [b2] "=&r"(b2), [b3] "=&r"(b3),
                       [pa] "+r"(pa), [pb] "+r"(pb), [pw] "+r"(pw), [n] "+r"(n),
                       [ya] "=&w"(ya), [yb] "=&w"(yb)
                     :
                     : "q0", "q1", "q2", "q3", "cc", "memory");
    *w = pw;
    *qa = ya;
    *qb = yb;
}
#else
/* Unoptimized builds (-O0) cannot give the assembly its twelve fixed registers: the same
 * arithmetic with intrinsics. */
static void im2col_dot4x2(const int8_t *xa, const int8_t *xb, const int8_t **w, int32_t vectors,
                          int32x4_t *qa, int32x4_t *qb)
{
    int32_t a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
    const int8_t *pw = *w;
    for (int32_t k = 0; k < vectors; ++k, xa += 16, xb += 16) {
        const int8x16_t va = vldrbq_s8(xa), vb = vldrbq_s8(xb);
        for (int32_t j = 0; j < 4; ++j, pw += 16) {
            const int8x16_t wv = vldrbq_s8(pw);
            a[j] = vmladavaq_s8(a[j], va, wv);
            b[j] = vmladavaq_s8(b[j], vb, wv);
        }
    }
    *w = pw;
    *qa = vld1q_s32(a);
    *qb = vld1q_s32(b);
}
#endif

/*
 * im2col_dot4x2 for `vectors` 2 or 3 (a constant where inlined: the first layers of ResNet-8
 * and KWS), straight-line and software-pipelined for the M55's pipes (docs/cycles.md): a
 * load (load/store pipe) beside a VMLADAV (multiply pipe) overlaps it by a beat, two loads or
 * two VMLADAVs do not, so each vector's last two dot products (filter 3: q7) run between the
 * next vector's first loads, and its pixel vectors (q0, q1) are loaded once those are done.
 * Filter vectors: q2, q3, q6, q7 (rows 0 to 3).
 */
#if defined(__OPTIMIZE__)
#define IM2COL_W(Q) "vldrb.8 " Q ", [%[pw]], #16\n\t"
#define IM2COL_X "vldrb.8 q0, [%[pa]], #16\n\t" "vldrb.8 q1, [%[pb]], #16\n\t"
/* The first vector: rows 0 to 2 done, row 3 left to the next step (or the end). */
#define IM2COL_FIRST                                                                           \
    IM2COL_X IM2COL_W("q2")                                                                    \
    IM2COL_W("q3") "vmladav.s8 %[a0], q0, q2\n\t"                                              \
    IM2COL_W("q6") "vmladav.s8 %[b0], q1, q2\n\t"                                              \
    IM2COL_W("q7") "vmladav.s8 %[a1], q0, q3\n\t"                                              \
    "vmladav.s8 %[b1], q1, q3\n\t"                                                             \
    "vmladav.s8 %[a2], q0, q6\n\t"                                                             \
    "vmladav.s8 %[b2], q1, q6\n\t"
/* A later vector: the previous one's row 3 (DOP: VMLADAV after the first vector) between
 * this one's first filter loads, then rows 0 to 2. */
#define IM2COL_NEXT(DOP)                                                                       \
    IM2COL_W("q2") DOP " %[a3], q0, q7\n\t"                                                    \
    IM2COL_W("q3") DOP " %[b3], q1, q7\n\t"                                                    \
    IM2COL_X "vmladava.s8 %[a0], q0, q2\n\t"                                                   \
    IM2COL_W("q6") "vmladava.s8 %[b0], q1, q2\n\t"                                             \
    IM2COL_W("q7") "vmladava.s8 %[a1], q0, q3\n\t"                                             \
    "vmladava.s8 %[b1], q1, q3\n\t"                                                            \
    "vmladava.s8 %[a2], q0, q6\n\t"                                                            \
    "vmladava.s8 %[b2], q1, q6\n\t"
#define IM2COL_LAST                                                                            \
    "vmladava.s8 %[a3], q0, q7\n\t"                                                            \
    "vmladava.s8 %[b3], q1, q7\n\t"                                                            \
    "vmov %q[ya][2], %q[ya][0], %[a0], %[a2]\n\t"                                              \
    "vmov %q[ya][3], %q[ya][1], %[a1], %[a3]\n\t"                                              \
    "vmov %q[yb][2], %q[yb][0], %[b0], %[b2]\n\t"                                              \
    "vmov %q[yb][3], %q[yb][1], %[b1], %[b3]\n"
#define IM2COL_PIPE_OPERANDS                                                                   \
    : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [b0] "=&r"(b0),         \
      [b1] "=&r"(b1), [b2] "=&r"(b2), [b3] "=&r"(b3), [pa] "+r"(pa), [pb] "+r"(pb),           \
      [pw] "+r"(pw), [ya] "=&w"(ya), [yb] "=&w"(yb)                                            \
    :                                                                                          \
    : "q0", "q1", "q2", "q3", "q6", "q7", "memory"
HK_INLINE void im2col_dot4x2_pipe(const int8_t *xa, const int8_t *xb, const int8_t **w,
                                  int32_t vectors, int32x4_t *qa, int32x4_t *qb)
{
    HK_MVE_EVEN_SUMS;
    register const int8_t *pa __asm__("r1") = xa;
    register const int8_t *pb __asm__("r3") = xb;
    register const int8_t *pw __asm__("r5") = *w;
    int32x4_t ya, yb;
    if (vectors == 2) {
        __asm__ volatile(IM2COL_FIRST IM2COL_NEXT("vmladav.s8") IM2COL_LAST IM2COL_PIPE_OPERANDS);
    } else {
        __asm__ volatile(IM2COL_FIRST IM2COL_NEXT("vmladav.s8") IM2COL_NEXT("vmladava.s8")
                             IM2COL_LAST IM2COL_PIPE_OPERANDS);
    }
    *w = pw;
    *qa = ya;
    *qb = yb;
}
#undef IM2COL_W
#undef IM2COL_X
#undef IM2COL_FIRST
#undef IM2COL_NEXT
#undef IM2COL_LAST
#undef IM2COL_PIPE_OPERANDS
#else
/* -O0: the loop's intrinsics (the same sums). */
static void im2col_dot4x2_pipe(const int8_t *xa, const int8_t *xb, const int8_t **w,
                               int32_t vectors, int32x4_t *qa, int32x4_t *qb)
{
    im2col_dot4x2(xa, xb, w, vectors, qa, qb);
}
#endif

/*
 * im2col_dot4x2 for one vector per pixel held in registers (half columns: pixel A's taps in
 * lanes 0..7 of xa, pixel B's in lanes 8..15 of xb, the other lanes zero), against filter
 * rows packed twice (lanes 0..7 and 8..15), so each pixel meets its own copy.
 */
#if defined(__OPTIMIZE__)
HK_INLINE void im2col_dot4x2_q(int8x16_t xa, int8x16_t xb, const int8_t **w, int32x4_t *qa,
                               int32x4_t *qb)
{
    HK_MVE_EVEN_SUMS;
    register const int8_t *pw __asm__("r5") = *w;
    int32x4_t ya, yb;
    __asm__ volatile("vldrb.8 q2, [%[pw]], #16\n\t"
                     "vmladav.s8 %[a0], %q[xa], q2\n\t"
                     "vmladav.s8 %[b0], %q[xb], q2\n\t"
                     "vldrb.8 q3, [%[pw]], #16\n\t"
                     "vmladav.s8 %[a1], %q[xa], q3\n\t"
                     "vmladav.s8 %[b1], %q[xb], q3\n\t"
                     "vldrb.8 q2, [%[pw]], #16\n\t"
                     "vmladav.s8 %[a2], %q[xa], q2\n\t"
                     "vmladav.s8 %[b2], %q[xb], q2\n\t"
                     "vldrb.8 q3, [%[pw]], #16\n\t"
                     "vmladav.s8 %[a3], %q[xa], q3\n\t"
                     "vmladav.s8 %[b3], %q[xb], q3\n\t"
                     "vmov %q[ya][2], %q[ya][0], %[a0], %[a2]\n\t"
                     "vmov %q[ya][3], %q[ya][1], %[a1], %[a3]\n\t"
                     "vmov %q[yb][2], %q[yb][0], %[b0], %[b2]\n\t"
                     "vmov %q[yb][3], %q[yb][1], %[b1], %[b3]\n"
                     : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),
                       [b0] "=&r"(b0), [b1] "=&r"(b1), [b2] "=&r"(b2), [b3] "=&r"(b3),
                       [pw] "+r"(pw), [ya] "=&w"(ya), [yb] "=&w"(yb)
                     : [xa] "w"(xa), [xb] "w"(xb)
                     : "q2", "q3", "memory");
    *w = pw;
    *qa = ya;
    *qb = yb;
}
#else
static void im2col_dot4x2_q(int8x16_t xa, int8x16_t xb, const int8_t **w, int32x4_t *qa,
                            int32x4_t *qb)
{
    int32_t a[4], b[4];
    for (int32_t j = 0; j < 4; ++j, *w += 16) {
        const int8x16_t wv = vldrbq_s8(*w);
        a[j] = vmladavq_s8(xa, wv);
        b[j] = vmladavq_s8(xb, wv);
    }
    *qa = vld1q_s32(a);
    *qb = vld1q_s32(b);
}
#endif

/* What the filter loop needs, copied out of the params once: the int8 output may alias
 * anything, so GCC would otherwise reload every field per group. */
typedef struct {
    const int8_t *packed;
    const int32_t *quant;
    int32_t channels, vectors, offset, lo, hi;
    bool general;
    bool relu; /* lo >= offset: the right-shift requantization may leave out its fixup */
} im2col_filters_t;

/* Four channels of both pixels: sums plus offset_bias, requantized with each channel's own
 * multiplier and shift (quant: the group's bias, multipliers and shifts, 4 each), the output
 * offset added and clamped. */
HK_INLINE void im2col_requant4(const int32_t *quant, bool general, bool relu, int32_t offset,
                                int32x4_t vlo, int32x4_t vhi, int32x4_t *ya, int32x4_t *yb)
{
    const int32x4_t b = vldrwq_s32(quant), m = vldrwq_s32(quant + 4), s = vldrwq_s32(quant + 8);
    if (relu && !general) {
        /* hk_requant_right_mve without its fixup (negative values lowered by one before the
         * rounding shift): that changes only results at or below zero, which the clamp takes
         * to lo (at or above the output offset) either way. */
        const int32x4_t a = vrshlq_s32(vqrdmulhq_s32(vaddq_s32(*ya, b), m), s);
        const int32x4_t c = vrshlq_s32(vqrdmulhq_s32(vaddq_s32(*yb, b), m), s);
        *ya = vminq_s32(vmaxq_s32(vaddq_n_s32(a, offset), vlo), vhi);
        *yb = vminq_s32(vmaxq_s32(vaddq_n_s32(c, offset), vlo), vhi);
        return;
    }
    hk_requant_pair_mve(ya, yb, b, m, s, general, offset, vlo, vhi);
}

/* Every group of four packed filters against the columns xa and xb (or, `regs`, the half
 * columns va and vb in registers), each group's eight sums requantized from registers and
 * stored as four bytes per pixel (`general`, `relu` (im2col_requant4), `regs` and `pipe` (2 or
 * 3: im2col_dot4x2_pipe, else 0): constants at every call, so each loop
 * is compiled with one requantization and one source). The last group stores only real
 * channels. Pixel B is stored first, so out_b == out_a (an odd last pixel) leaves pixel A's
 * bytes. */
HK_INLINE void im2col_groups(const im2col_filters_t *k, bool general, bool relu, bool regs,
                             int32_t pipe,
                             const int8_t *xa, const int8_t *xb, int8x16_t va, int8x16_t vb,
                             int8_t *out_a, int8_t *out_b)
{
    const int32x4_t vlo = vdupq_n_s32(k->lo), vhi = vdupq_n_s32(k->hi);
    const int32_t offset = k->offset, vectors = pipe != 0 ? pipe : k->vectors;
    const int32_t whole = k->channels & ~3, rest = k->channels & 3;
    const int8_t *w = k->packed;
    const int32_t *quant = k->quant;
    int32x4_t ya, yb;
    for (int32_t oc = 0; oc < whole; oc += 4, quant += 12) {
        if (regs) {
            im2col_dot4x2_q(va, vb, &w, &ya, &yb);
        } else if (pipe != 0) {
            im2col_dot4x2_pipe(xa, xb, &w, pipe, &ya, &yb);
        } else {
            im2col_dot4x2(xa, xb, &w, vectors, &ya, &yb);
        }
        im2col_requant4(quant, general, relu, offset, vlo, vhi, &ya, &yb);
        vstrbq_s32(out_b + oc, yb);
        vstrbq_s32(out_a + oc, ya);
    }
    if (rest != 0) {
        const mve_pred16_t real = vctp32q((uint32_t)rest);
        if (regs) {
            im2col_dot4x2_q(va, vb, &w, &ya, &yb);
        } else if (pipe != 0) {
            im2col_dot4x2_pipe(xa, xb, &w, pipe, &ya, &yb);
        } else {
            im2col_dot4x2(xa, xb, &w, vectors, &ya, &yb);
        }
        im2col_requant4(quant, general, relu, offset, vlo, vhi, &ya, &yb);
        vstrbq_p_s32(out_b + whole, yb, real);
        vstrbq_p_s32(out_a + whole, ya, real);
    }
}

/* im2col_groups for two gathered columns, with the requantization the call needs; columns of
 * two or three vectors (in the right-shift requantization) through the pipelined dot products
 * (im2col_dot4x2_pipe). */
HK_NOINLINE void im2col_pair(const im2col_filters_t *k, const int8_t *xa, const int8_t *xb,
                             int8_t *out_a, int8_t *out_b)
{
    const int8x16_t none = vdupq_n_s8(0);
    if (k->general) {
        im2col_groups(k, true, false, false, 0, xa, xb, none, none, out_a, out_b);
    } else if (k->vectors == 2 && k->relu) {
        im2col_groups(k, false, true, false, 2, xa, xb, none, none, out_a, out_b);
    } else if (k->vectors == 2) {
        im2col_groups(k, false, false, false, 2, xa, xb, none, none, out_a, out_b);
    } else if (k->vectors == 3 && k->relu) {
        im2col_groups(k, false, true, false, 3, xa, xb, none, none, out_a, out_b);
    } else if (k->vectors == 3) {
        im2col_groups(k, false, false, false, 3, xa, xb, none, none, out_a, out_b);
    } else {
        im2col_groups(k, false, false, false, 0, xa, xb, none, none, out_a, out_b);
    }
}

/* im2col_groups for two half columns in registers. */
HK_NOINLINE void im2col_pair_q(const im2col_filters_t *k, int8x16_t va, int8x16_t vb,
                               int8_t *out_a, int8_t *out_b)
{
    if (k->general) {
        im2col_groups(k, true, false, true, 0, NULL, NULL, va, vb, out_a, out_b);
    } else {
        im2col_groups(k, false, false, true, 0, NULL, NULL, va, vb, out_a, out_b);
    }
}

/*
 * The output pixels in order with where their windows start; `src` is the window's first byte
 * when `inside` (the whole window lies in the image), and is stepped along the row rather than
 * recomputed.
 */
typedef struct {
    const int8_t *row_src, *src;
    int32_t ox, oy, iy0, ix0;
    bool rows_in;
} im2col_walk_t;

/* What the gather of one pixel needs from the params, computed once. */
typedef struct {
    const int8_t *input;
    size_t image, line, row_step, x_step, y_step;
    int32_t cin, rows, row, y_last, x_last, out_w, out_h, sw, sh, top, left;
    int8_t fill;
    mve_pred16_t keep; /* the lanes of one filter row */
    bool dense;        /* rows contiguous and at most one vector */
} im2col_geometry_t;

/* Points the walk at the first pixel of output row oy of image b. */
HK_INLINE void im2col_row(const im2col_geometry_t *g, im2col_walk_t *at, int32_t b, int32_t oy)
{
    at->ox = 0;
    at->oy = oy;
    at->iy0 = oy * g->sh - g->top;
    at->ix0 = -g->left;
    at->rows_in = at->iy0 >= 0 && at->iy0 <= g->y_last;
    at->row_src = g->input + (size_t)b * g->image;
    /* Only dereferenced (through src) for windows inside the image. */
    at->src = (const int8_t *)((uintptr_t)at->row_src +
                               (uintptr_t)((intptr_t)at->iy0 * (intptr_t)g->line +
                                           (intptr_t)at->ix0 * (intptr_t)g->cin));
}

/* Steps the walk to the next output pixel. */
HK_INLINE void im2col_step(const im2col_geometry_t *g, im2col_walk_t *at, int32_t *b)
{
    at->src = (const int8_t *)((uintptr_t)at->src + g->x_step);
    at->ix0 += g->sw;
    if (++at->ox == g->out_w) {
        if (at->oy + 1 == g->out_h) {
            ++*b;
            im2col_row(g, at, *b, 0);
        } else {
            im2col_row(g, at, *b, at->oy + 1);
        }
    }
}

/* Gathers the pixel at `at` into col (a window inside the image with dense rows: one
 * predicated load and store per filter row, here; any other: im2col_gather), then steps to the
 * next output pixel. */
HK_INLINE void im2col_next(const hk_conv_params_t *p, const im2col_geometry_t *g,
                           im2col_walk_t *at, int32_t *b, int8_t *col)
{
    if (g->dense && at->rows_in && at->ix0 >= 0 && at->ix0 <= g->x_last) {
        const int8_t *src = at->src;
        for (int32_t fy = 0; fy < g->rows; ++fy, src += g->row_step, col += g->row) {
            vstrbq_p_s8(col, vldrbq_z_s8(src, g->keep), g->keep);
        }
    } else {
        im2col_gather(p, at->row_src, at->iy0, at->ix0, g->fill, col);
    }
    im2col_step(g, at, b);
}


/*
 * Two output pixels at a time: both receptive fields gathered into the scratch's two columns
 * (zeroed once, so the bytes past taps are defined), then every group of four packed filters
 * against them, requantized from registers. An odd last pixel is computed beside a stale
 * column B, whose bytes pixel A's then overwrite.
 */
void hk_conv_s8_im2col_mve(const hk_conv_im2col_params_t *q, const int8_t *input,
                           int8_t *output)
{
    const hk_conv_params_t *p = &q->conv;
    const int32_t column = q->column;
    int8_t *col_a = (int8_t *)p->scratch;
    int8_t *col_b = col_a + column;
    for (int32_t j = 0; col_a != NULL && j < 2 * column; j += 16) {
        vstrbq_s8(col_a + j, vdupq_n_s8(0));
    }
    im2col_filters_t k;
    k.packed = q->packed;
    k.quant = q->quant;
    k.channels = p->output_channels;
    k.vectors = column >> 4;
    k.offset = p->output_offset;
    k.lo = hk_max_i32(p->act_min, -128);
    k.hi = hk_min_i32(p->act_max, 127);
    k.general = q->general != 0;
    k.relu = k.lo >= k.offset;
    const int32_t cin = p->input_channels;
    im2col_geometry_t g;
    g.input = input;
    g.line = (size_t)p->input_width * (size_t)cin;
    g.image = (size_t)p->input_height * g.line;
    g.row_step = (size_t)p->dilation_height * g.line;
    g.x_step = (size_t)p->stride_width * (size_t)cin;
    g.cin = cin;
    g.rows = p->filter_height;
    g.row = p->filter_width * cin;
    g.y_last = p->input_height - 1 - (p->filter_height - 1) * p->dilation_height;
    g.x_last = p->input_width - p->filter_width;
    g.out_w = p->output_width;
    g.out_h = p->output_height;
    g.sw = p->stride_width;
    g.sh = p->stride_height;
    g.top = p->pad_top;
    g.left = p->pad_left;
    g.fill = (int8_t)(-p->input_offset);
    g.keep = vctp8q((uint32_t)g.row);
    g.dense = p->dilation_width == 1 && g.row <= 16;
    const int32_t channels = p->output_channels;
    const int32_t pixels = p->batches * p->output_height * p->output_width;
    im2col_walk_t at;
    int32_t b = 0;
    im2col_row(&g, &at, 0, 0);
    int8_t *out = output;
    if (q->half && p->filter_height == 1 && p->filter_width == 1 && p->pad_top == 0 &&
        p->pad_left == 0 && (p->output_height - 1) * p->stride_height < p->input_height &&
        (p->output_width - 1) * p->stride_width < p->input_width) {
        /* Unpadded 1x1 over at most 8 channels: each pixel is read in place, A into lanes
         * 0..7 and B into lanes 8..15 of its own vector (only the real lanes are touched). */
        const mve_pred16_t lo = vctp8q((uint32_t)cin);
        const mve_pred16_t hi = (mve_pred16_t)(vctp8q((uint32_t)(8 + cin)) & ~vctp8q(8u));
        for (int32_t i = 0; i < pixels; i += 2, out += 2 * channels) {
            const bool both = i + 1 < pixels;
            const int8x16_t va = vldrbq_z_s8(at.src, lo);
            im2col_step(&g, &at, &b);
            int8x16_t vb = vdupq_n_s8(0);
            if (both) {
                vb = vldrbq_z_s8((const int8_t *)((uintptr_t)at.src - 8u), hi);
                im2col_step(&g, &at, &b);
            }
            im2col_pair_q(&k, va, vb, out, both ? out + channels : out);
        }
        return;
    }
    /* Half columns: pixel B's taps in lanes 8..15 of its column. */
    int8_t *put_b = q->half ? col_b + 8 : col_b;
    /* The last window start from which the next pixel's window, on the same output row, is
     * inside the image too. */
    const int32_t x_pair = g.x_last - g.sw;
    for (int32_t i = 0; i < pixels; i += 2, out += 2 * channels) {
        const bool both = i + 1 < pixels;
        if (g.dense && both && at.rows_in && at.ix0 >= 0 && at.ix0 <= x_pair &&
            at.ox + 1 < g.out_w) {
            /* Both windows inside the image, side by side: each filter row of both in one
             * pass, pixel B's x_step bytes on. */
            const int8_t *src = at.src;
            int8_t *ca = col_a, *cb = put_b;
            for (int32_t fy = 0; fy < g.rows; ++fy, src += g.row_step, ca += g.row, cb += g.row) {
                vstrbq_p_s8(ca, vldrbq_z_s8(src, g.keep), g.keep);
                vstrbq_p_s8(cb, vldrbq_z_s8(src + g.x_step, g.keep), g.keep);
            }
            im2col_step(&g, &at, &b);
            im2col_step(&g, &at, &b);
        } else {
            im2col_next(p, &g, &at, &b, col_a);
            if (both) {
                im2col_next(p, &g, &at, &b, put_b);
            }
        }
        im2col_pair(&k, col_a, col_b, out, both ? out + channels : out);
    }
}

#endif /* HK_HAVE_MVE */
