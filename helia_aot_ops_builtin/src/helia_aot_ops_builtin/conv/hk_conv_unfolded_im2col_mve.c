/*
 * helia-aot kernel library: int8 CONV_2D over few input channels from the model's own bias, on
 * Helium (see hk_conv_unfolded_im2col.h).
 *
 * Follows LiteRT reference_integer_ops::ConvPerChannel (int8): the sum of filter * (input +
 * input_offset) over the taps inside the image, plus the bias. Each window is gathered into a
 * column whose taps outside the image hold the input zero point (-input_offset), so over every
 * tap sum((col + input_offset) * w) is the reference's sum (a tap outside adds zero), and it is
 * taken as sum(col * w) + input_offset * sum(w): the same int32 integers, with sum(w) computed
 * once per call per filter, not per pixel.
 *
 * Kernel stack, not in the arena: 256 bytes, two 64-byte columns (the taps right-aligned to a
 * whole number of vectors, the lanes before them zero) and 128 bytes of offset terms: for at
 * most 32 output channels each one's bias + input_offset * sum(filter) (int32), else the
 * filters' sums alone (int16: at most 64 taps of at most 128) of up to 64 channels, the bias
 * read per group. More channels run in passes of 64, each gathering the windows again. The
 * pointwise loop instead holds a 512-byte table (ui_pw_group_t: four groups of 128 bytes).
 */
#include "hk_conv_unfolded_im2col.h"

#include "hk_requant.h"
#include "hk_simd.h"
#include "hk_window.h"

#if HK_HAVE_MVE

#define UI_COLUMN 64 /* bytes of one column: windows of up to 64 taps */
#define UI_CHUNK 64  /* output channels whose offset terms the stack holds at once */

/*
 * The dot products of four filters with the two columns at col and col + UI_COLUMN, `vectors`
 * vectors each: *qa gets column A's four sums, *qb column B's. Each filter is read from its
 * lead bytes before its first tap on (the previous filter's bytes, which meet the columns' zero
 * lanes), as many bytes as the columns. ui_dot4x2_run reads the four filters f, f + taps,
 * f + 2 taps and f + 3 taps. ui_dot4x2_edge reads f0..f3 as given (a last group of fewer
 * filters repeats one) and its count carries, in bits 0..15, the predicate of the filters' first
 * vector and the vectors above: the filter array's first filter has no bytes before it, so its
 * lanes before the first tap are neither read nor counted (all lanes on for any other group).
 */
#if defined(__OPTIMIZE__)
/* In assembly, as hk_conv_im2col_mve.c's loop: VMLADAV accumulates only into even registers, so
 * the eight sums take r0, r2, ..., r12 and lr; the odd registers hold the column and the four
 * filter pointers (column B is read at a fixed 64 bytes past A) and the count. */
#define UI_BLOCK(OP, LD)                                                                       \
    "vldrb.8 q1, [%[pa], #64]\n\t"                                                            \
    "vldrb.8 q0, [%[pa]], #16\n\t" LD " q2, [%[w0]], #16\n\t" OP " %[a0], q0, q2\n\t" OP    \
    " %[b0], q1, q2\n\t" LD " q3, [%[w1]], #16\n\t" OP " %[a1], q0, q3\n\t" OP                \
    " %[b1], q1, q3\n\t" LD " q2, [%[w2]], #16\n\t" OP " %[a2], q0, q2\n\t" OP                \
    " %[b2], q1, q2\n\t" LD " q3, [%[w3]], #16\n\t" OP " %[a3], q0, q3\n\t" OP                \
    " %[b3], q1, q3\n\t"
#define UI_LOOP(PRE, LD)                                                                       \
    PRE UI_BLOCK("vmladav.s8", LD) "subs %[n], %[n], #1\n\t"                                   \
                                   "beq 2f\n"                                                  \
                                   "1:\n\t" UI_BLOCK("vmladava.s8", "vldrb.8")                 \
                                   "subs %[n], %[n], #1\n\t"                                   \
                                   "bne 1b\n"                                                  \
                                   "2:\n\t"                                                    \
                                   "vmov %q[ya][2], %q[ya][0], %[a0], %[a2]\n\t"               \
                                   "vmov %q[ya][3], %q[ya][1], %[a1], %[a3]\n\t"               \
                                   "vmov %q[yb][2], %q[yb][0], %[b0], %[b2]\n\t"               \
                                   "vmov %q[yb][3], %q[yb][1], %[b1], %[b3]\n"
#define UI_SUMS                                                                                \
    HK_MVE_EVEN_SUMS;                                                                          \
    register const int8_t *pa __asm__("r1") = col;                                             \
    int32x4_t ya, yb
#define UI_OUTPUTS                                                                             \
    [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [b0] "=&r"(b0),           \
        [b1] "=&r"(b1), [b2] "=&r"(b2), [b3] "=&r"(b3), [pa] "+r"(pa), [n] "+r"(n),            \
        [ya] "=&w"(ya), [yb] "=&w"(yb)
#define UI_FOUR                                                                                \
    "add %[w2], %[w0], %[w1], lsl #1\n\t"                                                      \
    "add %[w3], %[w2], %[w1]\n\t"                                                              \
    "add %[w1], %[w0], %[w1]\n\t"
#define UI_DOT4X2_RUN(NAME, PRE, LD, ...)                                                        \
    HK_INLINE void NAME(const int8_t *col, uintptr_t f, size_t taps, uint32_t count,           \
                        int32x4_t *qa, int32x4_t *qb)                                          \
    {                                                                                          \
        UI_SUMS;                                                                               \
        register uint32_t n __asm__("r3") = count;                                             \
        register uintptr_t w0 __asm__("r5") = f;                                               \
        register uintptr_t w1 __asm__("r7") = taps; /* then filter 1 */                        \
        register uintptr_t w2 __asm__("r9");                                                   \
        register uintptr_t w3 __asm__("r11");                                                  \
        __asm__ volatile(UI_LOOP(PRE UI_FOUR, LD)                                              \
                         : UI_OUTPUTS, [w0] "+r"(w0), [w1] "+r"(w1), [w2] "=&r"(w2),           \
                           [w3] "=&r"(w3)                                                      \
                         :                                                                     \
                         : "q0", "q1", "q2", "q3", "cc", "memory" __VA_ARGS__);                \
        *qa = ya;                                                                              \
        *qb = yb;                                                                              \
    }
/* P0 from the count's low half, then the count of vectors. */
#define UI_LEAD "vmsr p0, %[n]\n\tlsrs %[n], %[n], #16\n\t"
UI_DOT4X2_RUN(ui_dot4x2_run, "", "vldrb.8", )
UI_DOT4X2_RUN(ui_dot4x2_run_lead, UI_LEAD, "vpst\n\tvldrbt.8", , "p0")
HK_INLINE void ui_dot4x2_edge(const int8_t *col, uintptr_t f0, uintptr_t f1, uintptr_t f2,
                              uintptr_t f3, uint32_t count, int32x4_t *qa, int32x4_t *qb)
{
    UI_SUMS;
    register uint32_t n __asm__("r3") = count;
    register uintptr_t w0 __asm__("r5") = f0;
    register uintptr_t w1 __asm__("r7") = f1;
    register uintptr_t w2 __asm__("r9") = f2;
    register uintptr_t w3 __asm__("r11") = f3;
    __asm__ volatile(UI_LOOP(UI_LEAD, "vpst\n\tvldrbt.8")
                     : UI_OUTPUTS, [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3)
                     :
                     : "q0", "q1", "q2", "q3", "cc", "memory", "p0");
    *qa = ya;
    *qb = yb;
}
#else
/* Unoptimized builds (-O0) cannot give the assembly its fourteen fixed registers: the same
 * arithmetic with intrinsics. */
static void ui_dot4x2_c(const int8_t *col, const uintptr_t *f, uint32_t vectors,
                        mve_pred16_t lead, int32x4_t *qa, int32x4_t *qb)
{
    int32_t a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
    for (uint32_t k = 0; k < vectors; ++k) {
        const int8x16_t va = vldrbq_s8(col + 16 * k), vb = vldrbq_s8(col + UI_COLUMN + 16 * k);
        const mve_pred16_t use = k == 0 ? lead : (mve_pred16_t)0xFFFF;
        for (int32_t j = 0; j < 4; ++j) {
            const int8x16_t wv = vldrbq_z_s8((const int8_t *)(f[j] + 16 * k), use);
            a[j] = vmladavaq_s8(a[j], va, wv);
            b[j] = vmladavaq_s8(b[j], vb, wv);
        }
    }
    *qa = vld1q_s32(a);
    *qb = vld1q_s32(b);
}
static void ui_dot4x2_run(const int8_t *col, uintptr_t f, size_t taps, uint32_t vectors,
                          int32x4_t *qa, int32x4_t *qb)
{
    const uintptr_t w[4] = {f, f + taps, f + 2 * taps, f + 3 * taps};
    ui_dot4x2_c(col, w, vectors, (mve_pred16_t)0xFFFF, qa, qb);
}
static void ui_dot4x2_run_lead(const int8_t *col, uintptr_t f, size_t taps, uint32_t count,
                               int32x4_t *qa, int32x4_t *qb)
{
    const uintptr_t w[4] = {f, f + taps, f + 2 * taps, f + 3 * taps};
    ui_dot4x2_c(col, w, count >> 16, (mve_pred16_t)(count & 0xFFFFu), qa, qb);
}
static void ui_dot4x2_edge(const int8_t *col, uintptr_t f0, uintptr_t f1, uintptr_t f2,
                           uintptr_t f3, uint32_t count, int32x4_t *qa, int32x4_t *qb)
{
    const uintptr_t w[4] = {f0, f1, f2, f3};
    ui_dot4x2_c(col, w, count >> 16, (mve_pred16_t)(count & 0xFFFFu), qa, qb);
}
#endif

/* The filters of one pass, read once per pass: the int8 output may alias anything, so GCC
 * would otherwise reload every field per group. */
typedef struct {
    uintptr_t filter;     /* the pass's first filter, less the columns' lead bytes */
    const int32_t *mult;  /* the pass's multipliers, shifts and biases, in the model's arrays */
    const int32_t *shift;
    /* Each channel's offset term is terms[c] + scale * sums[c]: the bias (int32) and the
     * filter's sum (int16) times input_offset, or (at most 32 channels) the whole term with a
     * scale of 0 (sums then reads any stack bytes). */
    const int32_t *terms;
    const int16_t *sums;
    int32_t scale;
    size_t taps;
    uint32_t vectors;
    mve_pred16_t lead;    /* the first group's first vector of filters: the lanes to read */
    int32_t channels;     /* in this pass */
    int32_t offset, lo, hi;
} ui_filters_t;

/* One group's sums plus bias + input_offset * the filters' sums, requantized (`general`: a
 * constant at each call) and stored as n (<= 4: its real channels) bytes per pixel; pixel B
 * first, so out_b == out_a (an odd last pixel) leaves A's. */
HK_INLINE void ui_store(const ui_filters_t *k, bool general, int32_t oc,
                        int32_t n, int32x4_t ya, int32x4_t yb, int8_t *out_a, int8_t *out_b)
{
    const int32x4_t vlo = vdupq_n_s32(k->lo), vhi = vdupq_n_s32(k->hi);
    const int32x4_t sum = vldrhq_s32(k->sums + oc);
    if (n >= 4) {
        const int32x4_t b = vmlaq_n_s32(vldrwq_s32(k->terms + oc), sum, k->scale);
        const int32x4_t m = vldrwq_s32(k->mult + oc), s = vldrwq_s32(k->shift + oc);
        hk_requant_pair_mve(&ya, &yb, b, m, s, general, k->offset, vlo, vhi);
        vstrbq_s32(out_b + oc, yb);
        vstrbq_s32(out_a + oc, ya);
    } else {
        const mve_pred16_t real = vctp32q((uint32_t)n);
        const int32x4_t b = vmlaq_n_s32(vldrwq_z_s32(k->terms + oc, real), sum, k->scale);
        const int32x4_t m = vldrwq_z_s32(k->mult + oc, real);
        const int32x4_t s = vldrwq_z_s32(k->shift + oc, real);
        hk_requant_pair_mve(&ya, &yb, b, m, s, general, k->offset, vlo, vhi);
        vstrbq_p_s32(out_b + oc, yb, real);
        vstrbq_p_s32(out_a + oc, ya, real);
    }
}

/* A group read by ui_dot4x2_edge: the first (under the lead predicate) or a last one of fewer
 * than four filters (repeating its last real one, all lanes read). */
HK_INLINE void ui_edge_group(const ui_filters_t *k, bool general,
                             const int8_t *cols, int32_t oc, mve_pred16_t pred, int8_t *out_a,
                             int8_t *out_b)
{
    const int32_t n = hk_min_i32(k->channels - oc, 4);
    const uintptr_t f = k->filter + (uintptr_t)oc * k->taps;
    const uintptr_t f1 = f + (uintptr_t)(n > 1) * k->taps;
    const uintptr_t f2 = f1 + (uintptr_t)(n > 2) * k->taps;
    const uintptr_t f3 = f2 + (uintptr_t)(n > 3) * k->taps;
    int32x4_t ya, yb;
    ui_dot4x2_edge(cols, f, f1, f2, f3, (k->vectors << 16) | pred, &ya, &yb);
    ui_store(k, general, oc, n, ya, yb, out_a, out_b);
}

/* Every group of four filters of the pass against both columns. */
HK_INLINE void ui_groups(const ui_filters_t *k, bool general,
                         const int8_t *cols, int8_t *out_a, int8_t *out_b)
{
    const int32_t whole_groups = k->channels & ~3;
    const size_t taps = k->taps;
    int32_t oc = 0;
    if (k->channels < 4) {
        ui_edge_group(k, general, cols, 0, k->lead, out_a, out_b);
        return;
    }
    if (k->lead != 0xFFFF) {
        int32x4_t ya, yb;
        ui_dot4x2_run_lead(cols, k->filter, taps, (k->vectors << 16) | k->lead, &ya, &yb);
        ui_store(k, general, 0, 4, ya, yb, out_a, out_b);
        oc = 4;
    }
    for (; oc < whole_groups; oc += 4) {
        int32x4_t ya, yb;
        ui_dot4x2_run(cols, k->filter + (uintptr_t)oc * taps, taps, k->vectors, &ya, &yb);
        ui_store(k, general, oc, 4, ya, yb, out_a, out_b);
    }
    if (oc < k->channels) {
        ui_edge_group(k, general, cols, oc, (mve_pred16_t)0xFFFF, out_a, out_b);
    }
}

/* What gathering a window needs from the params, computed once per call. */
typedef struct {
    const int8_t *input;
    size_t image, line, row_step, x_step;
    int32_t cin, rows, cols, row, in_h, in_w, dil_h, y_last, x_last, sh, sw, top, left, oh, ow;
    int32_t pad; /* the columns' lead bytes: taps start at column + pad */
    int8_t fill;
    mve_pred16_t keep; /* the lanes of one filter row */
    bool dense;        /* one filter row fits a vector */
} ui_geometry_t;

/* The window at (iy0, ix0) of `image` into col, in the filter's (fy, fx, c) order, the lanes of
 * taps outside the image never read and given the input zero point: one vector per filter row
 * where a row fits one (the lanes inside the image are the same for every row), else 16 lanes
 * at a time. */
HK_NOINLINE void ui_gather(const ui_geometry_t *g, uintptr_t image, int32_t iy0, int32_t ix0,
                           int8_t *col)
{
    const int8x16_t fills = vdupq_n_s8(g->fill);
    int32_t fx0, fx1, fy0, fy1;
    hk_window_taps(ix0, 1, g->cols, g->in_w, &fx0, &fx1);
    hk_window_taps(iy0, g->dil_h, g->rows, g->in_h, &fy0, &fy1);
    if (fx0 >= fx1) {
        fy1 = fy0; /* no tap inside the image */
    }
    const int32_t first = fx0 * g->cin, end = fx1 * g->cin;
    /* Where row fy's tap 0 would be; only lanes of taps inside the image are read. */
    uintptr_t run = image + (uintptr_t)(((intptr_t)(iy0 + fy0 * g->dil_h) * g->in_w + ix0) * g->cin);
    int8_t *const stop = col + g->rows * g->row;
    if (g->dense) {
        const mve_pred16_t in = (mve_pred16_t)(vctp8q((uint32_t)end) & ~vctp8q((uint32_t)first));
        int8_t *const from = col + fy0 * g->row, *const upto = col + fy1 * g->row;
        for (; col < from; col += g->row) {
            vstrbq_p_s8(col, fills, g->keep);
        }
        for (; col < upto; col += g->row, run += g->row_step) {
            const int8x16_t v = vldrbq_z_s8((const int8_t *)run, in);
            vstrbq_p_s8(col, vpselq_s8(v, fills, in), g->keep);
        }
        for (; col < stop; col += g->row) {
            vstrbq_p_s8(col, fills, g->keep);
        }
        return;
    }
    for (int32_t fy = 0; col < stop; ++fy, col += g->row) {
        const bool inside = fy >= fy0 && fy < fy1;
        for (int32_t j = 0; j < g->row; j += 16) {
            const mve_pred16_t upto = vctp8q((uint32_t)hk_max_i32(end - j, 0));
            const mve_pred16_t before = vctp8q((uint32_t)hk_max_i32(first - j, 0));
            const mve_pred16_t in = inside ? (mve_pred16_t)(upto & ~before) : 0;
            const int8x16_t v = vldrbq_z_s8((const int8_t *)(run + (uintptr_t)j), in);
            vstrbq_p_s8(col + j, vpselq_s8(v, fills, in), vctp8q((uint32_t)(g->row - j)));
        }
        if (inside) {
            run += g->row_step;
        }
    }
}

/* Two windows inside the image side by side (pixel B x_step bytes after A): each of their
 * `rows` filter rows (row bytes, row_step apart) into the columns at col and col + UI_COLUMN. */
#if defined(__OPTIMIZE__)
/* In assembly: one predicate for the four loads and stores of a row, column B at an offset. */
HK_INLINE void ui_rows2(const int8_t *src, size_t x_step, size_t row_step, int8_t *col,
                        int32_t row, int32_t rows, mve_pred16_t keep)
{
    const int8_t *src_b = src + x_step;
    __asm__ volatile("vmsr p0, %[keep]\n"
                     "1:\n\t"
                     "vpstttt\n\t"
                     "vldrbt.8 q0, [%[a]]\n\t"
                     "vldrbt.8 q1, [%[b]]\n\t"
                     "vstrbt.8 q0, [%[c]]\n\t"
                     "vstrbt.8 q1, [%[c], #64]\n\t"
                     "add %[a], %[a], %[step]\n\t"
                     "add %[b], %[b], %[step]\n\t"
                     "add %[c], %[c], %[row]\n\t"
                     "subs %[n], %[n], #1\n\t"
                     "bne 1b\n"
                     : [a] "+r"(src), [b] "+r"(src_b), [c] "+r"(col), [n] "+r"(rows)
                     : [keep] "r"((uint32_t)keep), [step] "r"(row_step), [row] "r"(row)
                     : "q0", "q1", "cc", "memory", "p0");
}
#else
static void ui_rows2(const int8_t *src, size_t x_step, size_t row_step, int8_t *col,
                     int32_t row, int32_t rows, mve_pred16_t keep)
{
    for (int32_t fy = 0; fy < rows; ++fy, src += row_step, col += row) {
        vstrbq_p_s8(col, vldrbq_z_s8(src, keep), keep);
        vstrbq_p_s8(col + UI_COLUMN, vldrbq_z_s8(src + x_step, keep), keep);
    }
}
#endif

/* Where the walk over the output pixels is: pixel (b, oy, ox) of `image`, its window's origin
 * (iy0, ix0) and, for a window inside the image, its first byte `src`. */
typedef struct {
    uintptr_t image, src;
    int32_t b, oy, ox, iy0, ix0;
    bool rows_in; /* rows of one vector, and the output row's windows inside vertically */
} ui_walk_t;

/* Points the walk at the first pixel of output row w->oy. */
HK_INLINE void ui_row(const ui_geometry_t *g, ui_walk_t *w)
{
    w->ox = 0;
    w->ix0 = -g->left;
    w->iy0 = w->oy * g->sh - g->top;
    w->rows_in = g->dense && w->iy0 >= 0 && w->iy0 <= g->y_last;
    /* Only dereferenced for windows inside the image. */
    w->src = w->image + (uintptr_t)((intptr_t)w->iy0 * (intptr_t)g->line -
                                    (intptr_t)g->left * (intptr_t)g->cin);
}

/* Steps the walk n pixels on (2 only within an output row). */
HK_INLINE void ui_step(const ui_geometry_t *g, ui_walk_t *w, int32_t n)
{
    w->ox += n;
    w->ix0 += n * g->sw;
    w->src += (uintptr_t)n * g->x_step;
    if (w->ox == g->ow) {
        if (++w->oy == g->oh) {
            w->oy = 0;
            ++w->b;
            w->image += g->image;
        }
        ui_row(g, w);
    }
}

/* For the n filters at `filter`: sums[j] = the sum of filter j's taps or, without sums,
 * whole[j] = bias[j] + input_offset * that sum; zero up to the next multiple of four. */
HK_NOINLINE void ui_sums(const int8_t *filter, const int32_t *bias, int32_t input_offset,
                         size_t taps, int32_t n, int32_t *whole, int16_t *sums)
{
    for (int32_t j = 0; j < n; ++j, filter += taps) {
        int32_t sum = 0;
        for (size_t t = 0; t < taps; t += 16) {
            sum = vaddvaq_s8(sum, vldrbq_z_s8(filter + t, vctp8q((uint32_t)(taps - t))));
        }
        if (sums != NULL) {
            sums[j] = (int16_t)sum;
        } else {
            whole[j] = (bias != NULL ? bias[j] : 0) + input_offset * sum;
        }
    }
    for (int32_t j = n; (j & 3) != 0; ++j) {
        if (sums != NULL) {
            sums[j] = 0;
        } else {
            whole[j] = 0;
        }
    }
}

/*
 * Every output pixel of the call, two at a time, against the filters in passes of UI_CHUNK:
 * both windows gathered into the columns (side by side inside the image: one pass over their
 * filter rows), then ui_groups. An odd last pixel is computed beside a stale column B.
 */
HK_INLINE void ui_pixels(const hk_conv_params_t *p, const ui_geometry_t *g, const int8_t *filter,
                         const int32_t *bias, bool general, int8_t *output)
{
    int8_t cols[2 * UI_COLUMN] __attribute__((aligned(16)));
    union {
        int32_t whole[UI_CHUNK / 2];
        int16_t sums[UI_CHUNK];
    } terms __attribute__((aligned(16)));
    for (int32_t j = 0; j < 2 * UI_COLUMN; j += 16) {
        vstrbq_s8(cols + j, vdupq_n_s8(0));
    }
    const size_t channels = (size_t)p->output_channels;
    const int32_t pixels = p->batches * g->oh * g->ow;
    /* The last window start from which the next pixel's window is inside the image too. */
    const int32_t x_pair = g->x_last - g->sw;
    int8_t *col_a = cols + g->pad, *col_b = cols + UI_COLUMN + g->pad;
    ui_filters_t k;
    k.taps = (size_t)g->rows * (size_t)g->row;
    k.vectors = (uint32_t)((k.taps + 15) / 16);
    k.offset = p->output_offset;
    k.lo = hk_max_i32(p->act_min, -128);
    k.hi = hk_min_i32(p->act_max, 127);
    const bool wide = p->output_channels <= UI_CHUNK / 2;
    k.scale = wide ? 0 : p->input_offset;
    for (int32_t c0 = 0; c0 < p->output_channels; c0 += UI_CHUNK) {
        k.channels = hk_min_i32(p->output_channels - c0, UI_CHUNK);
        const int8_t *first = filter + (size_t)c0 * k.taps;
        ui_sums(first, bias != NULL ? bias + c0 : NULL, p->input_offset, k.taps, k.channels,
                terms.whole, wide ? NULL : terms.sums);
        k.filter = (uintptr_t)first - (uintptr_t)g->pad;
        /* Only the array's first filter has no bytes before it to read as its lead. */
        k.lead = c0 == 0 ? (mve_pred16_t)~vctp8q((uint32_t)g->pad) : (mve_pred16_t)0xFFFF;
        k.mult = p->output_multiplier + c0;
        k.shift = p->output_shift + c0;
        k.terms = wide ? terms.whole : bias + c0;
        k.sums = terms.sums;
        ui_walk_t w;
        w.image = (uintptr_t)g->input;
        w.b = 0;
        w.oy = 0;
        ui_row(g, &w);
        int8_t *out = output + c0;
        for (int32_t i = 0; i < pixels; i += 2, out += 2 * channels) {
            const bool both = i + 1 < pixels;
            if (w.rows_in && both && w.ix0 >= 0 && w.ix0 <= x_pair && w.ox + 1 < g->ow) {
                /* Both windows inside the image, side by side: their rows in one pass. */
                ui_rows2((const int8_t *)w.src, g->x_step, g->row_step, col_a, g->row, g->rows,
                         g->keep);
                ui_step(g, &w, 2);
            } else {
                ui_gather(g, w.image, w.iy0, w.ix0, col_a);
                ui_step(g, &w, 1);
                if (both) {
                    ui_gather(g, w.image, w.iy0, w.ix0, col_b);
                    ui_step(g, &w, 1);
                }
            }
            ui_groups(&k, general, cols, out, both ? out + channels : out);
        }
    }
}

/* ui_pixels with the requantization the call needs. */
HK_NOINLINE void ui_pass(const hk_conv_params_t *p, const ui_geometry_t *g, const int8_t *filter,
                         const int32_t *bias, bool general, int8_t *output)
{
    if (general) {
        ui_pixels(p, g, filter, bias, true, output);
    } else {
        ui_pixels(p, g, filter, bias, false, output);
    }
}

/*
 * Two pixels' dot products with four filters: v holds pixel A's cin bytes in lanes 0..cin-1 and
 * pixel B's in lanes cin..2 cin-1, each w_j filter j's bytes in both halves; *qa gets A's four
 * sums (the lanes of `low`), *qb B's (the others: the VPT block's else lanes).
 */
HK_INLINE void ui_halves4(int8x16_t v, int8x16_t w0, int8x16_t w1, int8x16_t w2, int8x16_t w3,
                          mve_pred16_t low, int32x4_t *qa, int32x4_t *qb)
{
    const mve_pred16_t high = (mve_pred16_t)~low;
    const int32_t a[4] = {vmladavq_p_s8(v, w0, low), vmladavq_p_s8(v, w1, low),
                          vmladavq_p_s8(v, w2, low), vmladavq_p_s8(v, w3, low)};
    const int32_t b[4] = {vmladavq_p_s8(v, w0, high), vmladavq_p_s8(v, w1, high),
                          vmladavq_p_s8(v, w2, high), vmladavq_p_s8(v, w3, high)};
    *qa = vld1q_s32(a);
    *qb = vld1q_s32(b);
}

#define UI_PW_CHUNK 16 /* output channels whose prepared groups the stack holds at once */

/* One group of four filters of a pointwise call, prepared once per chunk on the stack (128
 * bytes, the offsets ui_group reads): each filter's bytes in both halves (missing filters
 * repeat the first and are not stored), the group's bias + input_offset * the filters' sums,
 * multipliers, and each shift split into its left (>= 0) and right (<= 0) parts. */
typedef struct {
    int8x16_t w[4];
    int32x4_t whole, mult, left, right;
} ui_pw_group_t;

/* ui_pw_group_t's member `member` as the asm operand %[name], an immediate byte offset. */
#define UI_FIELD(name, member) [name] "i"(offsetof(ui_pw_group_t, member))

#if defined(__OPTIMIZE__)
/* One group against a pixel pair in assembly, the dot products, the requantization (as
 * hk_requant_pair_mve: `LEFT` holds the left shift of the general form) and the clamp, with
 * every constant read from the group's table entry: no vector spills between groups. A VPT
 * block leaves P0 inverted once per switch from then to else lanes: the first block (P0 = A's
 * lanes) ends with P0 on B's, so the second takes B first and hands P0 back as it found it. */
#define UI_GROUP_ASM(LEFT)                                                                     \
    "vmsr p0, %[low]\n\t"                                                                      \
    "vldrb.8 q0, [%[k], %[w0]]\n\t"                                                                   \
    "vldrb.8 q1, [%[k], %[w1]]\n\t"                                                              \
    "vpsttee\n\t"                                                                              \
    "vmladavt.s8 %[a0], %q[v], q0\n\t"                                                         \
    "vmladavt.s8 %[a1], %q[v], q1\n\t"                                                         \
    "vmladave.s8 %[b0], %q[v], q0\n\t"                                                         \
    "vmladave.s8 %[b1], %q[v], q1\n\t"                                                         \
    "vldrb.8 q0, [%[k], %[w2]]\n\t"                                                              \
    "vldrb.8 q1, [%[k], %[w3]]\n\t"                                                              \
    "vpsttee\n\t"                                                                              \
    "vmladavt.s8 %[b2], %q[v], q0\n\t"                                                         \
    "vmladavt.s8 %[b3], %q[v], q1\n\t"                                                         \
    "vmladave.s8 %[a2], %q[v], q0\n\t"                                                         \
    "vmladave.s8 %[a3], %q[v], q1\n\t"                                                         \
    "vmov %q[ya][2], %q[ya][0], %[a0], %[a2]\n\t"                                              \
    "vmov %q[ya][3], %q[ya][1], %[a1], %[a3]\n\t"                                              \
    "vmov %q[yb][2], %q[yb][0], %[b0], %[b2]\n\t"                                              \
    "vmov %q[yb][3], %q[yb][1], %[b1], %[b3]\n\t"                                              \
    "vldrw.32 q0, [%[k], %[whole]]\n\t"                                                             \
    "vadd.i32 %q[ya], %q[ya], q0\n\t"                                                          \
    "vadd.i32 %q[yb], %q[yb], q0\n\t" LEFT                                                     \
    "vldrw.32 q0, [%[k], %[mult]]\n\t"                                                             \
    "vqrdmulh.s32 %q[ya], %q[ya], q0\n\t"                                                      \
    "vqrdmulh.s32 %q[yb], %q[yb], q0\n\t"                                                      \
    "vldrw.32 q0, [%[k], %[right]]\n\t"                                                            \
    "vand q1, %q[ya], q0\n\t"                                                                  \
    "vshr.s32 q1, q1, #31\n\t"                                                                 \
    "vqadd.s32 %q[ya], %q[ya], q1\n\t"                                                         \
    "vand q1, %q[yb], q0\n\t"                                                                  \
    "vshr.s32 q1, q1, #31\n\t"                                                                 \
    "vqadd.s32 %q[yb], %q[yb], q1\n\t"                                                         \
    "vrshl.s32 %q[ya], %q[ya], q0\n\t"                                                         \
    "vrshl.s32 %q[yb], %q[yb], q0\n\t"                                                         \
    "vadd.i32 %q[ya], %q[ya], %[offset]\n\t"                                                   \
    "vadd.i32 %q[yb], %q[yb], %[offset]\n\t"                                                   \
    "vmax.s32 %q[ya], %q[ya], %q[lo]\n\t"                                                      \
    "vmax.s32 %q[yb], %q[yb], %q[lo]\n\t"                                                      \
    "vmin.s32 %q[ya], %q[ya], %q[hi]\n\t"                                                      \
    "vmin.s32 %q[yb], %q[yb], %q[hi]\n"
#define UI_LEFT                                                                                \
    "vldrw.32 q0, [%[k], %[left]]\n\t"                                                             \
    "vshl.s32 %q[ya], %q[ya], q0\n\t"                                                          \
    "vshl.s32 %q[yb], %q[yb], q0\n\t"
HK_INLINE void ui_group(const ui_pw_group_t *k, int8x16_t v, mve_pred16_t low, bool general,
                        int32_t offset, int32x4_t vlo, int32x4_t vhi, int32x4_t *qa,
                        int32x4_t *qb)
{
    HK_MVE_EVEN_SUMS;
    int32x4_t ya, yb;
#define UI_GROUP_OPERANDS                                                                      \
    : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [b0] "=&r"(b0),         \
      [b1] "=&r"(b1), [b2] "=&r"(b2), [b3] "=&r"(b3), [ya] "=&w"(ya), [yb] "=&w"(yb)          \
    : [k] "r"(k), [v] "w"(v), [low] "r"((uint32_t)low), [offset] "r"(offset), [lo] "w"(vlo), \
      [hi] "w"(vhi), "m"(*k), UI_FIELD(w0, w[0]), UI_FIELD(w1, w[1]), UI_FIELD(w2, w[2]),     \
      UI_FIELD(w3, w[3]), UI_FIELD(whole, whole), UI_FIELD(mult, mult), UI_FIELD(left, left),  \
      UI_FIELD(right, right)                                                                   \
    : "q0", "q1", "p0"
    if (general) {
        __asm__(UI_GROUP_ASM(UI_LEFT) UI_GROUP_OPERANDS);
    } else {
        __asm__(UI_GROUP_ASM("") UI_GROUP_OPERANDS);
    }
#undef UI_GROUP_OPERANDS
    *qa = ya;
    *qb = yb;
}
#else
HK_INLINE void ui_group(const ui_pw_group_t *k, int8x16_t v, mve_pred16_t low, bool general,
                        int32_t offset, int32x4_t vlo, int32x4_t vhi, int32x4_t *qa,
                        int32x4_t *qb)
{
    ui_halves4(v, k->w[0], k->w[1], k->w[2], k->w[3], low, qa, qb);
    hk_requant_pair_mve(qa, qb, k->whole, k->mult, vaddq_s32(k->left, k->right), general,
                        offset, vlo, vhi);
}
#endif

/*
 * An unpadded 1x1 filter whose windows lie in the image: each pair of pixels is read in place
 * into one vector (A in lanes 0..cin-1, B in lanes cin..2 cin-1: one load where B follows A),
 * against each filter's bytes loaded twice into one register, so each pixel meets its own copy.
 * Pixels outside, the groups of up to UI_PW_CHUNK channels inside, each group's copies, terms
 * and requantization read from the stack table built once per chunk (kernel stack, not in the
 * arena: 512 bytes), so a pixel pair is loaded once per chunk and nothing spills per group.
 */
HK_INLINE void ui_pointwise_loop(const hk_conv_params_t *p, const int8_t *input,
                                 const int8_t *filter, const int32_t *bias, bool general,
                                 int8_t *output)
{
    const int32_t cin = p->input_channels;
    const size_t channels = (size_t)p->output_channels;
    const mve_pred16_t low = vctp8q((uint32_t)cin);
    const mve_pred16_t high = (mve_pred16_t)(vctp8q((uint32_t)(2 * cin)) & ~low);
    const size_t x_col = (size_t)p->stride_width * (size_t)cin;
    const size_t x_line = (size_t)p->stride_height * (size_t)p->input_width * (size_t)cin;
    const size_t image = (size_t)p->input_height * (size_t)p->input_width * (size_t)cin;
    const int32_t ow = p->output_width, oh = p->output_height;
    const int32_t pixels = p->batches * oh * ow;
    const int32_t offset = p->output_offset;
    /* Every pixel right after the one before: the pixels are the input's, in order. */
    const bool flat = p->stride_width == 1 && ow == p->input_width &&
                      (oh == 1 || (p->stride_height == 1 && oh == p->input_height));
    const int32x4_t vlo = vdupq_n_s32(hk_max_i32(p->act_min, -128));
    const int32x4_t vhi = vdupq_n_s32(hk_min_i32(p->act_max, 127));
    ui_pw_group_t groups[UI_PW_CHUNK / 4] __attribute__((aligned(16)));
    for (int32_t c0 = 0; c0 < p->output_channels; c0 += UI_PW_CHUNK) {
        const int32_t chunk = hk_min_i32(p->output_channels - c0, UI_PW_CHUNK);
        const int32_t count = (chunk + 3) / 4;
        for (int32_t g = 0; g < count; ++g) {
            const int32_t oc = c0 + 4 * g;
            const int32_t n = hk_min_i32(chunk - 4 * g, 4);
            const mve_pred16_t real = vctp32q((uint32_t)n);
            int32_t sums[4];
            for (int32_t j = 0; j < 4; ++j) {
                const uintptr_t f =
                    (uintptr_t)(filter + (size_t)(oc + (j < n ? j : 0)) * (size_t)cin);
                groups[g].w[j] = vorrq_s8(vldrbq_z_s8((const int8_t *)f, low),
                                          vldrbq_z_s8((const int8_t *)(f - (uintptr_t)cin), high));
                sums[j] = vaddvq_p_s8(groups[g].w[j], low);
            }
            const int32x4_t b = bias != NULL ? vldrwq_z_s32(bias + oc, real) : vdupq_n_s32(0);
            groups[g].whole = vmlaq_n_s32(b, vld1q_s32(sums), p->input_offset);
            groups[g].mult = vldrwq_z_s32(p->output_multiplier + oc, real);
            const int32x4_t shift = vldrwq_z_s32(p->output_shift + oc, real);
            groups[g].left = vmaxq_s32(shift, vdupq_n_s32(0));
            groups[g].right = vminq_s32(shift, vdupq_n_s32(0));
        }
        /* The lanes of the chunk's last group to store. */
        const mve_pred16_t last = vctp32q((uint32_t)(chunk - 4 * (count - 1)));
        const int8_t *row = input, *x = input;
        int32_t ox = 0, oy = 0;
        int8_t *out = output + c0;
        for (int32_t i = 0; i < pixels; i += 2, out += 2 * channels) {
            const bool both = i + 1 < pixels;
            int8x16_t v;
            if (flat) {
                v = vldrbq_z_s8(x, both ? (mve_pred16_t)(low | high) : low);
                x += 2 * (size_t)cin;
            } else {
                v = vldrbq_z_s8(x, low);
                for (int32_t step = both ? 2 : 1; step > 0; --step) {
                    if (step == 1 && both) {
                        v = vorrq_s8(v, vldrbq_z_s8((const int8_t *)((uintptr_t)x - (uintptr_t)cin),
                                                    high));
                    }
                    x += x_col;
                    if (++ox == ow) {
                        ox = 0;
                        row += x_line;
                        if (++oy == oh) {
                            oy = 0;
                            row = row - (size_t)oh * x_line + image;
                        }
                        x = row;
                    }
                }
            }
            /* Pixel B's bytes: A's again for an odd last pixel (stored first, then A's). */
            int8_t *const out_b = both ? out + channels : out;
            const ui_pw_group_t *k = groups;
            for (int32_t g = 0; g < count; ++g, ++k) {
                int32x4_t ya, yb;
                ui_group(k, v, low, general, offset, vlo, vhi, &ya, &yb);
                const mve_pred16_t real = g + 1 < count ? (mve_pred16_t)0xFFFF : last;
                vstrbq_p_s32(out_b + 4 * g, yb, real);
                vstrbq_p_s32(out + 4 * g, ya, real);
            }
        }
    }
}

/* ui_pointwise_loop with the requantization the call needs. */
HK_NOINLINE void ui_pointwise(const hk_conv_params_t *p, const int8_t *input,
                              const int8_t *filter, const int32_t *bias, bool general,
                              int8_t *output)
{
    if (general) {
        ui_pointwise_loop(p, input, filter, bias, true, output);
    } else {
        ui_pointwise_loop(p, input, filter, bias, false, output);
    }
}

/* Whether the call is one this entry covers (see hk_conv_unfolded_im2col.h). */
static bool ui_applies(const hk_conv_params_t *p, const int8_t *input, const int8_t *filter,
                       const int32_t *bias, const int8_t *output, bool pointwise)
{
    return p != NULL && input != NULL && filter != NULL && output != NULL && p->batches >= 0 &&
           p->input_height >= 1 && p->input_width >= 1 && p->input_channels >= 1 &&
           p->input_channels <= 8 && p->filter_input_channels == p->input_channels &&
           p->filter_height >= 1 && p->filter_width >= 1 && p->output_height >= 0 &&
           p->output_width >= 0 && p->output_channels >= 1 && p->stride_height >= 1 &&
           p->stride_width >= 1 && p->dilation_height >= 1 && p->dilation_width == 1 &&
           p->output_multiplier != NULL && p->output_shift != NULL &&
           p->act_min <= p->act_max && p->input_offset >= -127 && p->input_offset <= 128 &&
           (pointwise || (p->filter_height * p->filter_width * p->input_channels <= UI_COLUMN &&
                          (bias != NULL || p->output_channels <= UI_CHUNK / 2)));
}

/* The entries below, each with the loops it may reach: `windows` (ui_pass, any covered call)
 * and `pointwise_loop` (ui_pointwise, for a pointwise call whose pixels lie in the image).
 * Inlined with constant flags, so an entry's code holds only its loops' calls. */
HK_INLINE int32_t ui_entry(const hk_conv_params_t *params, const int8_t *input,
                           const int8_t *filter, const int32_t *bias, int8_t *output,
                           bool windows, bool pointwise_loop)
{
    const hk_conv_params_t *p = params;
    const bool pointwise =
        pointwise_loop && p != NULL && p->filter_height == 1 && p->filter_width == 1 &&
        p->pad_top == 0 && p->pad_left == 0 &&
        (p->output_height - 1) * p->stride_height < p->input_height &&
        (p->output_width - 1) * p->stride_width < p->input_width;
    if ((!pointwise && !windows) || !ui_applies(p, input, filter, bias, output, pointwise)) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t channels = p->output_channels;
    const bool general =
        hk_requant_mode(p->output_multiplier, p->output_shift, channels) == HK_REQUANT_GENERAL;
    if (pointwise) {
        ui_pointwise(p, input, filter, bias, general, output);
        return HK_STATUS_OK;
    }
    const int32_t cin = p->input_channels;
    const size_t taps = (size_t)p->filter_height * (size_t)p->filter_width * (size_t)cin;
    ui_geometry_t g;
    g.input = input;
    g.line = (size_t)p->input_width * (size_t)cin;
    g.image = (size_t)p->input_height * g.line;
    g.row_step = (size_t)p->dilation_height * g.line;
    g.x_step = (size_t)p->stride_width * (size_t)cin;
    g.cin = cin;
    g.rows = p->filter_height;
    g.cols = p->filter_width;
    g.row = p->filter_width * cin;
    g.in_h = p->input_height;
    g.in_w = p->input_width;
    g.dil_h = p->dilation_height;
    g.y_last = p->input_height - 1 - (p->filter_height - 1) * p->dilation_height;
    g.x_last = p->input_width - p->filter_width;
    g.sh = p->stride_height;
    g.sw = p->stride_width;
    g.top = p->pad_top;
    g.left = p->pad_left;
    g.oh = p->output_height;
    g.ow = p->output_width;
    g.pad = (int32_t)((16 - taps % 16) % 16);
    g.fill = (int8_t)(-p->input_offset);
    g.keep = vctp8q((uint32_t)g.row);
    g.dense = g.row <= 16;
    ui_pass(p, &g, filter, bias, general, output);
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8); see the top of this file. */
int32_t hk_conv_s8_unfolded_im2col(const hk_conv_params_t *params, const int8_t *input,
                                   const int8_t *filter, const int32_t *bias, int8_t *output)
{
    return ui_entry(params, input, filter, bias, output, true, true);
}

/* As hk_conv_s8_unfolded_im2col, every covered call through the gathered windows. */
int32_t hk_conv_s8_unfolded_im2col_windows(const hk_conv_params_t *params, const int8_t *input,
                                           const int8_t *filter, const int32_t *bias,
                                           int8_t *output)
{
    return ui_entry(params, input, filter, bias, output, true, false);
}

/* As hk_conv_s8_unfolded_im2col, pointwise calls alone. */
int32_t hk_conv_s8_unfolded_im2col_pointwise(const hk_conv_params_t *params,
                                             const int8_t *input, const int8_t *filter,
                                             const int32_t *bias, int8_t *output)
{
    return ui_entry(params, input, filter, bias, output, false, true);
}

#endif /* HK_HAVE_MVE */
