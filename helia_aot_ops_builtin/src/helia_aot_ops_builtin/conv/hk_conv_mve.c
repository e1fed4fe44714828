/*
 * helia-aot kernel library: the Helium (MVE) fast path of int8 CONV_2D (see hk_conv_paths.h).
 */
#include "hk_conv_paths.h"

#include "hk_conv_dots4.h"

#if HK_HAVE_MVE

/*
 * Gathers the receptive field of the output pixel whose window starts at (iy0, ix0) into
 * patch[filter_height * filter_width * channels], in the filter's (fy, fx, c) order. Taps
 * outside the image hold `fill`, the input zero point: with the offset folded into the bias,
 * each contributes filter * (zero_point + input_offset) = 0, as a skipped tap does. Windows
 * that dilate along the width take the plain-C rows.
 */
HK_NOINLINE void conv_gather_s8(const hk_conv_params_t *p, const int8_t *image, int32_t iy0,
                                int32_t ix0, int8_t fill, int8_t *patch)
{
    const int32_t channels = p->input_channels;
    const int32_t row = p->filter_width * channels;
    int32_t fx0, fx1;
    hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width, &fx0, &fx1);
    const int32_t first = fx0 * channels, end = fx1 * channels;
    if (p->dilation_width == 1 && first == 0 && end == row && row <= 16) {
        /* The window is inside the image left to right and a row is at most one vector:
         * each row is one predicated load and store (a first layer's few channels). */
        const mve_pred16_t keep = vctp8q((uint32_t)row);
        const int8x16_t fills = vdupq_n_s8(fill);
        for (int32_t fy = 0; fy < p->filter_height; ++fy, patch += row) {
            const int32_t iy = iy0 + fy * p->dilation_height;
            int8x16_t v = fills;
            if (iy >= 0 && iy < p->input_height) {
                v = vldrbq_z_s8(image + ((size_t)iy * (size_t)p->input_width + (size_t)ix0) *
                                            (size_t)channels,
                                keep);
            }
            vstrbq_p_s8(patch, v, keep);
        }
        return;
    }
    if (p->dilation_width == 1 && first == 0 && end == row) {
        /* The window is inside the image left to right: whole rows are copied or filled. */
        for (int32_t fy = 0; fy < p->filter_height; ++fy, patch += row) {
            const int32_t iy = iy0 + fy * p->dilation_height;
            if (iy >= 0 && iy < p->input_height) {
                hk_copy_s8(patch, image + ((size_t)iy * (size_t)p->input_width + (size_t)ix0) *
                                              (size_t)channels,
                           row);
            } else {
                hk_fill_s8(patch, fill, row);
            }
        }
        return;
    }
    if (p->dilation_width == 1) {
        /* Each filter row is one run of the input row, taken 16 bytes at a time: lanes inside
         * the image are loaded (the others are not read at all) and the rest get the fill. */
        const int8x16_t fills = vdupq_n_s8(fill);
        for (int32_t fy = 0; fy < p->filter_height; ++fy, patch += row) {
            const int32_t iy = iy0 + fy * p->dilation_height;
            const bool inside = iy >= 0 && iy < p->input_height;
            /* Where the row's first tap would be; only lanes of in-image taps are read. */
            const uintptr_t run = (uintptr_t)image +
                                  (uintptr_t)(((intptr_t)iy * p->input_width + ix0) * channels);
            for (int32_t j = 0; j < row; j += 16) {
                const mve_pred16_t upto = vctp8q((uint32_t)hk_max_i32(end - j, 0));
                const mve_pred16_t before = vctp8q((uint32_t)hk_max_i32(first - j, 0));
                const mve_pred16_t in = inside ? (mve_pred16_t)(upto & ~before) : 0;
                const int8x16_t v = vldrbq_z_s8((const int8_t *)(run + (uintptr_t)j), in);
                vstrbq_p_s8(patch + j, vpselq_s8(v, fills, in), vctp8q((uint32_t)(row - j)));
            }
        }
        return;
    }
    conv_gather_rows_s8(p, image, iy0, ix0, fill, patch);
}

/*
 * acc[0..4 groups) += the dot products of n (1..4) vectors at x with four filter rows per
 * group, the rows `taps` apart from w; vector k of a row is at its byte 16 k, so a row whose
 * length is not a multiple of 16 is read on into the next row, which x's zeroed lanes cancel
 * (never for the filter's last row: conv_dots_s8 leaves that group to C). Written in assembly
 * because GCC 12 keeps this loop's four VMLADAV accumulators (which must be even registers)
 * and four row pointers only with spills and copies: here a group is its loads and
 * multiply-accumulates, two lane moves (VMOV puts its first register in the lower lane), the
 * accumulator update and four pointer steps, in a low-overhead DLS/LE loop. groups >= 1.
 */
#if defined(__OPTIMIZE__)
#define CONV_ROW1(w, a) "vldrb.8 q4, [%[" w "]]\n\tvmladav.s8 %[" a "], q0, q4\n\t"
#define CONV_ROW2(w, a) \
    CONV_ROW1(w, a) "vldrb.8 q4, [%[" w "], #16]\n\tvmladava.s8 %[" a "], q1, q4\n\t"
#define CONV_ROW3(w, a) \
    CONV_ROW2(w, a) "vldrb.8 q4, [%[" w "], #32]\n\tvmladava.s8 %[" a "], q2, q4\n\t"
#define CONV_ROW4(w, a) \
    CONV_ROW3(w, a) "vldrb.8 q4, [%[" w "], #48]\n\tvmladava.s8 %[" a "], q3, q4\n\t"
#define CONV_X1 "vldrb.8 q0, [%[x]]\n\t"
#define CONV_X2 CONV_X1 "vldrb.8 q1, [%[x], #16]\n\t"
#define CONV_X3 CONV_X2 "vldrb.8 q2, [%[x], #32]\n\t"
#define CONV_X4 CONV_X3 "vldrb.8 q3, [%[x], #48]\n\t"
/* One variant's loop: X loads the vectors of x, ROW multiplies one filter row by them. */
#define CONV_GROUPS_LOOP(X, ROW)                                                               \
    X "dls lr, lr\n"                                                                           \
      "1:\n\t" ROW("w0", "a0") ROW("w1", "a1") ROW("w2", "a2") ROW("w3", "a3")                  \
      "vmov q5[2], q5[0], %[a0], %[a2]\n\t"                                                     \
      "vmov q5[3], q5[1], %[a1], %[a3]\n\t"                                                     \
      "vldrw.32 q6, [%[acc]]\n\t"                                                               \
      "vadd.i32 q5, q5, q6\n\t"                                                                 \
      "vstrw.32 q5, [%[acc]], #16\n\t"                                                          \
      "add %[w0], %[step]\n\t"                                                                  \
      "add %[w1], %[step]\n\t"                                                                  \
      "add %[w2], %[step]\n\t"                                                                  \
      "add %[w3], %[step]\n\t"                                                                  \
      "le lr, 1b\n"
/* The operands every variant's loop shares (the names in CONV_GROUPS_LOOP). */
#define CONV_GROUPS_OPERANDS                                                                   \
    : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [acc] "+r"(acc),         \
      [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3), "+r"(count)                   \
    : [x] "r"(x), [step] "r"(step)                                                             \
    : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "memory"

/*
 * The groups of four filters against `vectors` (1..4) vectors of x, whose assembly loop is
 * chosen by `vectors` (each variant keeps x in its own number of Q registers). Always inlined
 * with `vectors` a constant into one function per variant below: a single function holding all
 * four loops is 96 bytes smaller on Cortex-M55 but saves and restores more registers per call,
 * which cost 0.3-0.7 % more instructions per inference in the MLPerf models.
 */
HK_INLINE void conv_groups_asm_mve(int32_t vectors, const int8_t *x, const int8_t *w,
                                     int32_t taps, int32_t groups, int32_t *acc)
{
    const int8_t *w0 = w, *w1 = w + taps, *w2 = w1 + taps, *w3 = w2 + taps;
    const int32_t step = 4 * taps;
    register int32_t a0 __asm__("r0");
    register int32_t a1 __asm__("r2");
    register int32_t a2 __asm__("r4");
    register int32_t a3 __asm__("r6");
    register int32_t count __asm__("lr") = groups;
    switch (vectors) {
    case 1:
        __asm__ volatile(CONV_GROUPS_LOOP(CONV_X1, CONV_ROW1) CONV_GROUPS_OPERANDS);
        break;
    case 2:
        __asm__ volatile(CONV_GROUPS_LOOP(CONV_X2, CONV_ROW2) CONV_GROUPS_OPERANDS);
        break;
    case 3:
        __asm__ volatile(CONV_GROUPS_LOOP(CONV_X3, CONV_ROW3) CONV_GROUPS_OPERANDS);
        break;
    default:
        __asm__ volatile(CONV_GROUPS_LOOP(CONV_X4, CONV_ROW4) CONV_GROUPS_OPERANDS);
        break;
    }
}

HK_NOINLINE void conv_groups1_mve(const int8_t *x, const int8_t *w, int32_t taps, int32_t groups,
                                  int32_t *acc)
{
    conv_groups_asm_mve(1, x, w, taps, groups, acc);
}

HK_NOINLINE void conv_groups2_mve(const int8_t *x, const int8_t *w, int32_t taps, int32_t groups,
                                  int32_t *acc)
{
    conv_groups_asm_mve(2, x, w, taps, groups, acc);
}

HK_NOINLINE void conv_groups3_mve(const int8_t *x, const int8_t *w, int32_t taps, int32_t groups,
                                  int32_t *acc)
{
    conv_groups_asm_mve(3, x, w, taps, groups, acc);
}

HK_NOINLINE void conv_groups4_mve(const int8_t *x, const int8_t *w, int32_t taps, int32_t groups,
                                  int32_t *acc)
{
    conv_groups_asm_mve(4, x, w, taps, groups, acc);
}
#endif

/* conv_groupsN_mve for N = vectors, 1..4. */
static void conv_groups_mve(int32_t vectors, const int8_t *x, const int8_t *w, int32_t taps,
                            int32_t groups, int32_t *acc)
{
#if !defined(__OPTIMIZE__)
    /* Unoptimized builds (-O0) cannot give the assembly its twelve registers: the same
     * arithmetic with intrinsics. */
    for (; groups > 0; --groups, w += 4 * taps, acc += 4) {
        for (int32_t j = 0; j < 4; ++j) {
            int32_t a = 0;
            for (int32_t k = 0; k < vectors; ++k) {
                a = vmladavaq_s8(a, vldrbq_s8(x + 16 * k), vldrbq_s8(w + j * taps + 16 * k));
            }
            acc[j] += a;
        }
    }
#else
    switch (vectors) {
    case 1:
        conv_groups1_mve(x, w, taps, groups, acc);
        break;
    case 2:
        conv_groups2_mve(x, w, taps, groups, acc);
        break;
    case 3:
        conv_groups3_mve(x, w, taps, groups, acc);
        break;
    default:
        conv_groups4_mve(x, w, taps, groups, acc);
        break;
    }
#endif
}

/*
 * acc[c] = bias[c] + dot(receptive field, filter c) for every filter. The receptive field is
 * `runs` runs of `len` bytes, x_step apart from x (one run: a gathered patch or an input pixel;
 * kh runs: the filter rows of a window inside the image, read in place); each run's bytes
 * from len to the next multiple of 16 must be zero (a gathered patch is padded; runs read in
 * place are whole vectors). bias is offset_bias, padded to whole vectors of four.
 *
 * x is taken up to four vectors at a time into registers while every group of four filters
 * passes over them (conv_groupsN_mve). What that cannot do without reading past the filter
 * is done here: a last group of one to three filters, and for runs of partial vectors the
 * group holding the last filter, whose last vector per run is loaded under a predicate.
 */
HK_NOINLINE void conv_dots_s8(const int8_t *x, size_t x_step, int32_t runs, int32_t len,
                              const int8_t *filter, int32_t channels, const int32_t *bias,
                              int32_t *acc)
{
    const int32_t taps = runs * len;
    /* Runs of whole vectors never read past a row, so only a partial group is left to C;
     * otherwise the group holding the last filter is, as its last row would be read past. */
    const int32_t groups = (len & 15) == 0 ? channels >> 2 : (channels - 1) >> 2;
    for (int32_t c = 0; c < channels; c += 4) {
        vstrwq_s32(acc + c, vldrwq_s32(bias + c));
    }
    if (groups > 0) {
        const int8_t *xr = x, *wr = filter;
        for (int32_t i = 0; i < runs; ++i, xr += x_step, wr += len) {
            for (int32_t done = 0; done < len; done += 64) {
                const int32_t vectors = hk_min_i32((len - done + 15) >> 4, 4);
                conv_groups_mve(vectors, xr + done, wr + done, taps, groups, acc);
            }
        }
    }
    /* The last one to four filters; missing rows repeat the first, and are not stored. */
    const int32_t first = 4 * groups, rest = channels - first;
    if (rest == 0) {
        return;
    }
    const int8_t *w0 = filter + (size_t)first * (size_t)taps;
    const int8_t *w1 = rest > 1 ? w0 + taps : w0;
    const int8_t *w2 = rest > 2 ? w0 + 2 * taps : w0;
    const int8_t *w3 = rest > 3 ? w0 + 3 * taps : w0;
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    const int32_t whole = len & ~15;
    const mve_pred16_t keep = vctp8q((uint32_t)(len - whole));
    for (int32_t i = 0; i < runs; ++i, x += x_step) {
        for (int32_t k = 0; k < whole; k += 16) {
            const int8x16_t xv = vldrbq_s8(x + k);
            a0 = vmladavaq_s8(a0, xv, vldrbq_s8(w0 + k));
            a1 = vmladavaq_s8(a1, xv, vldrbq_s8(w1 + k));
            a2 = vmladavaq_s8(a2, xv, vldrbq_s8(w2 + k));
            a3 = vmladavaq_s8(a3, xv, vldrbq_s8(w3 + k));
        }
        if (whole < len) {
            const int8x16_t xv = vldrbq_z_s8(x + whole, keep);
            a0 = vmladavaq_s8(a0, xv, vldrbq_z_s8(w0 + whole, keep));
            a1 = vmladavaq_s8(a1, xv, vldrbq_z_s8(w1 + whole, keep));
            a2 = vmladavaq_s8(a2, xv, vldrbq_z_s8(w2 + whole, keep));
            a3 = vmladavaq_s8(a3, xv, vldrbq_z_s8(w3 + whole, keep));
        }
        w0 += len;
        w1 += len;
        w2 += len;
        w3 += len;
    }
    int32x4_t dots = vsetq_lane_s32(a1, vdupq_n_s32(a0), 1);
    dots = vsetq_lane_s32(a3, vsetq_lane_s32(a2, dots, 2), 3);
    vstrwq_s32(acc + first, vaddq_s32(vldrwq_s32(acc + first), dots));
}

/* Zeroes a gathered receptive field's bytes from taps to the next multiple of 16. */
HK_INLINE void conv_pad_patch(int8_t *patch, int32_t taps)
{
    const int32_t rest = taps & 15;
    if (rest != 0) {
        int8_t *tail = patch + (taps & ~15);
        vstrbq_s8(tail, vpselq_s8(vldrbq_s8(tail), vdupq_n_s8(0), vctp8q((uint32_t)rest)));
    }
}

/* What conv_small_s8 needs per filter, copied out of the params once: the output is int8_t,
 * whose stores may alias anything, so GCC would otherwise reload every field per filter. */
typedef struct {
    const int32_t *bias, *mult, *shift;
    int32_t offset, lo, hi;
    bool general;
} conv_small_t;

/* One filter of conv_small_s8: its four dot products, requantized, clamped and scattered to
 * the four output pixels. */
HK_INLINE void conv_small_filter(const conv_small_t *k, int32_t oc, int8x16_t wv, int8x16_t x0,
                                 int8x16_t x1, int8x16_t x2, int8x16_t x3, uint32x4_t offsets,
                                 mve_pred16_t real, int8_t *out)
{
    int32x4_t acc = vdupq_n_s32(vmladavq_s8(x0, wv));
    acc = vsetq_lane_s32(vmladavq_s8(x1, wv), acc, 1);
    acc = vsetq_lane_s32(vmladavq_s8(x2, wv), acc, 2);
    acc = vsetq_lane_s32(vmladavq_s8(x3, wv), acc, 3);
    acc = vaddq_n_s32(acc, k->bias[oc]);
    const int32_t shift = k->shift[oc];
    if (k->general) {
        acc = hk_requant_mve(acc, vdupq_n_s32(k->mult[oc]), vdupq_n_s32(shift));
    } else {
        /* hk_requant_right_mve with scalar operands: the fixup only when shifting at all. */
        acc = vqrdmulhq_n_s32(acc, k->mult[oc]);
        if (shift < 0) {
            acc = vqaddq_s32(acc, vshrq_n_s32(acc, 31));
        }
        acc = vrshlq_n_s32(acc, shift);
    }
    acc = vaddq_n_s32(acc, k->offset);
    acc = vminq_s32(vmaxq_s32(acc, vdupq_n_s32(k->lo)), vdupq_n_s32(k->hi));
    vstrbq_scatter_offset_p_s32(out + oc, offsets, acc, real);
}

/*
 * Pointwise convolution with at most 16 input channels, four output pixels at a time: each
 * pixel's channels fit one vector, so the four stay in registers while every filter passes
 * (one filter load serves four dot products), and a filter's four results are requantized
 * with its scalar multiplier and stored with one scatter (output pixels are `channels` bytes
 * apart). `pixels` (1..4) are real; the others repeat x[0] and are not stored. Filter rows
 * are loaded whole (the lanes past the input channels meet zeroed x lanes) except the last,
 * which would run past the filter.
 */
HK_NOINLINE void conv_small_s8(const hk_conv_params_t *p, const int8_t *const *x,
                               int32_t pixels, const int8_t *filter, int32_t mode, int8_t *out)
{
    const int32_t taps = p->input_channels;
    const int32_t last = p->output_channels - 1;
    conv_small_t k;
    k.bias = p->offset_bias;
    k.mult = p->output_multiplier;
    k.shift = p->output_shift;
    k.offset = p->output_offset;
    k.lo = hk_max_i32(p->act_min, -128);
    k.hi = hk_min_i32(p->act_max, 127);
    k.general = mode == HK_REQUANT_GENERAL;
    const mve_pred16_t keep = vctp8q((uint32_t)taps);
    const int8x16_t x0 = vldrbq_z_s8(x[0], keep), x1 = vldrbq_z_s8(x[1], keep);
    const int8x16_t x2 = vldrbq_z_s8(x[2], keep), x3 = vldrbq_z_s8(x[3], keep);
    const uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)(last + 1));
    const mve_pred16_t real = vctp32q((uint32_t)pixels);
    const int8_t *w = filter;
    for (int32_t oc = 0; oc < last; ++oc, w += taps) {
        conv_small_filter(&k, oc, vldrbq_s8(w), x0, x1, x2, x3, offsets, real, out);
    }
    conv_small_filter(&k, last, vldrbq_z_s8(w, keep), x0, x1, x2, x3, offsets, real, out);
}

/*
 * Two output pixels against four filters: the dot products of the `vectors` (>= 1) whole
 * vectors of the pixels' receptive fields, which `xi` holds interleaved (pixel A's vector k at
 * byte 32 k, pixel B's at 32 k + 16), with the filter rows w0..w3, as two vectors of four
 * (*qa: pixel A's four filters, *qb: pixel B's). Each filter vector loaded serves both pixels
 * and all eight sums stay in registers for the whole receptive field.
 */
#if defined(__OPTIMIZE__)
/* Written in assembly because VMLADAV accumulates only into even registers: the eight sums
 * take r0, r2, ..., r12 and lr, which leaves the six odd registers for the five pointers and
 * the count, a budget GCC 12 does not meet on its own (it spills in the loop). VMOV then puts
 * the sums in lanes (its first register in the lower lane). */
HK_INLINE void conv_pair4_mve(const int8_t *xi, const int8_t *w_0, const int8_t *w_1,
                              const int8_t *w_2, const int8_t *w_3, int32_t vectors,
                              int32x4_t *qa, int32x4_t *qb)
{
    register int32_t a0 __asm__("r0") = 0;
    register int32_t a1 __asm__("r2") = 0;
    register int32_t a2 __asm__("r4") = 0;
    register int32_t a3 __asm__("r6") = 0;
    register int32_t b0 __asm__("r8") = 0;
    register int32_t b1 __asm__("r10") = 0;
    register int32_t b2 __asm__("r12") = 0;
    register int32_t b3 __asm__("lr") = 0;
    register const int8_t *x __asm__("r1") = xi;
    register const int8_t *w0 __asm__("r3") = w_0;
    register const int8_t *w1 __asm__("r5") = w_1;
    register const int8_t *w2 __asm__("r7") = w_2;
    register const int8_t *w3 __asm__("r9") = w_3;
    register int32_t n __asm__("r11") = vectors;
    int32x4_t ya, yb;
    __asm__ volatile("1:\n\t"
                     "vldrb.8 q1, [%[x], #16]\n\t"
                     "vldrb.8 q0, [%[x]], #32\n\t"
                     "vldrb.8 q2, [%[w0]], #16\n\t"
                     "vmladava.s8 %[a0], q0, q2\n\t"
                     "vmladava.s8 %[b0], q1, q2\n\t"
                     "vldrb.8 q3, [%[w1]], #16\n\t"
                     "vmladava.s8 %[a1], q0, q3\n\t"
                     "vmladava.s8 %[b1], q1, q3\n\t"
                     "vldrb.8 q2, [%[w2]], #16\n\t"
                     "vmladava.s8 %[a2], q0, q2\n\t"
                     "vmladava.s8 %[b2], q1, q2\n\t"
                     "vldrb.8 q3, [%[w3]], #16\n\t"
                     "vmladava.s8 %[a3], q0, q3\n\t"
                     "vmladava.s8 %[b3], q1, q3\n\t"
                     "subs %[n], %[n], #1\n\t"
                     "bne 1b\n\t"
                     "vmov %q[ya][2], %q[ya][0], %[a0], %[a2]\n\t"
                     "vmov %q[ya][3], %q[ya][1], %[a1], %[a3]\n\t"
                     "vmov %q[yb][2], %q[yb][0], %[b0], %[b2]\n\t"
                     "vmov %q[yb][3], %q[yb][1], %[b1], %[b3]\n"
                     : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3),
                       [b0] "+r"(b0), [b1] "+r"(b1), [b2] "+r"(b2), [b3] "+r"(b3), [x] "+r"(x),
                       [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3), [n] "+r"(n),
                       [ya] "=&w"(ya), [yb] "=&w"(yb)
                     :
                     : "q0", "q1", "q2", "q3", "cc", "memory");
    *qa = ya;
    *qb = yb;
}
#else
/* Unoptimized builds (-O0) cannot give the assembly its fourteen registers: the same
 * arithmetic with intrinsics. */
static void conv_pair4_mve(const int8_t *xi, const int8_t *w0, const int8_t *w1,
                           const int8_t *w2, const int8_t *w3, int32_t vectors, int32x4_t *qa,
                           int32x4_t *qb)
{
    const int8_t *w[4] = {w0, w1, w2, w3};
    int32_t a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
    for (int32_t k = 0; k < vectors; ++k) {
        const int8x16_t xa = vldrbq_s8(xi + 32 * k), xb = vldrbq_s8(xi + 32 * k + 16);
        for (int32_t j = 0; j < 4; ++j) {
            const int8x16_t wv = vldrbq_s8(w[j] + 16 * k);
            a[j] = vmladavaq_s8(a[j], xa, wv);
            b[j] = vmladavaq_s8(b[j], xb, wv);
        }
    }
    *qa = vsetq_lane_s32(a[3], vsetq_lane_s32(a[2], vsetq_lane_s32(a[1], vdupq_n_s32(a[0]), 1), 2), 3);
    *qb = vsetq_lane_s32(b[3], vsetq_lane_s32(b[2], vsetq_lane_s32(b[1], vdupq_n_s32(b[0]), 1), 2), 3);
}
#endif

/* The same eight dot products over `taps` bytes of xa and xb (not interleaved) with the last
 * vector loaded under a predicate, so nothing past a filter row is read: for the group that
 * holds the last filter when taps is not a multiple of 16. */
HK_NOINLINE void conv_pair4_tail_mve(const int8_t *xa, const int8_t *xb, const int8_t *w0,
                                     const int8_t *w1, const int8_t *w2, const int8_t *w3,
                                     int32_t taps, int32x4_t *qa, int32x4_t *qb)
{
    int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    for (int32_t k = 0; k < taps; k += 16) {
        const mve_pred16_t keep = vctp8q((uint32_t)(taps - k));
        const int8x16_t x0 = vldrbq_z_s8(xa + k, keep), x1 = vldrbq_z_s8(xb + k, keep);
        int8x16_t wv = vldrbq_z_s8(w0 + k, keep);
        a0 = vmladavaq_s8(a0, x0, wv);
        b0 = vmladavaq_s8(b0, x1, wv);
        wv = vldrbq_z_s8(w1 + k, keep);
        a1 = vmladavaq_s8(a1, x0, wv);
        b1 = vmladavaq_s8(b1, x1, wv);
        wv = vldrbq_z_s8(w2 + k, keep);
        a2 = vmladavaq_s8(a2, x0, wv);
        b2 = vmladavaq_s8(b2, x1, wv);
        wv = vldrbq_z_s8(w3 + k, keep);
        a3 = vmladavaq_s8(a3, x0, wv);
        b3 = vmladavaq_s8(b3, x1, wv);
    }
    *qa = vsetq_lane_s32(a3, vsetq_lane_s32(a2, vsetq_lane_s32(a1, vdupq_n_s32(a0), 1), 2), 3);
    *qb = vsetq_lane_s32(b3, vsetq_lane_s32(b2, vsetq_lane_s32(b1, vdupq_n_s32(b0), 1), 2), 3);
}

/* What conv_pairs_s8 needs per group of filters, copied out of the params once (the int8
 * output may alias anything, so GCC would otherwise reload every field per group). */
typedef struct {
    const int32_t *bias, *mult, *shift;
    const int8_t *filter;
    int32_t taps, channels, offset, lo, hi, vectors;
    bool general;
} conv_pairs_t;

/*
 * Every filter against two output pixels (xa, xb: their receptive fields, taps bytes each;
 * xi: their vectors interleaved, the last one zero padded), four filters at a time: the dot
 * products in registers, offset_bias added, the eight results requantized as two vectors and
 * stored four bytes per pixel. `both` false stores pixel A only (pixel B then repeats A). A
 * last group of fewer than four filters repeats the first and stores only the real ones; the
 * group holding the last filter reads its rows under a predicate when taps is not a multiple
 * of 16 (whole vectors would run past the filter).
 */
HK_NOINLINE void conv_pairs_s8(const conv_pairs_t *k, const int8_t *xa, const int8_t *xb,
                               const int8_t *xi, bool both, int8_t *out_a, int8_t *out_b)
{
    const int32_t taps = k->taps, channels = k->channels, vectors = k->vectors;
    const int32_t offset = k->offset;
    const int32_t *bias = k->bias, *mult = k->mult, *shift = k->shift;
    const bool general = k->general;
    const int32x4_t vlo = vdupq_n_s32(k->lo), vhi = vdupq_n_s32(k->hi);
    /* Groups whose whole vectors stay inside the filter. */
    const int32_t safe = (taps & 15) == 0 ? channels : (channels - 1) & ~3;
    const int8_t *f = k->filter;
    for (int32_t oc = 0; oc < channels; oc += 4, f += 4 * (size_t)taps) {
        const int32_t n = hk_min_i32(channels - oc, 4);
        const int8_t *w1 = n > 1 ? f + taps : f;
        const int8_t *w2 = n > 2 ? f + 2 * taps : f;
        const int8_t *w3 = n > 3 ? f + 3 * taps : f;
        int32x4_t ya, yb;
        if (oc < safe) {
            conv_pair4_mve(xi, f, w1, w2, w3, vectors, &ya, &yb);
        } else {
            conv_pair4_tail_mve(xa, xb, f, w1, w2, w3, taps, &ya, &yb);
        }
        const mve_pred16_t real = vctp32q((uint32_t)n);
        const int32x4_t b = vldrwq_s32(bias + oc);
        const int32x4_t m = vldrwq_z_s32(mult + oc, real);
        const int32x4_t s = vldrwq_z_s32(shift + oc, real);
        hk_requant_pair_mve(&ya, &yb, b, m, s, general, offset, vlo, vhi);
        vstrbq_p_s32(out_a + oc, ya, real);
        if (both) {
            vstrbq_p_s32(out_b + oc, yb, real);
        }
    }
}

/* dst gets the `taps` bytes of a and b as whole vectors interleaved (a's vector k at byte
 * 32 k, b's at 32 k + 16), the last one zero padded; nothing past taps is read. */
HK_INLINE void conv_interleave(const int8_t *a, const int8_t *b, int32_t taps, int8_t *dst)
{
    for (int32_t k = 0; k < taps; k += 16, a += 16, b += 16, dst += 32) {
        const mve_pred16_t keep = vctp8q((uint32_t)(taps - k));
        vstrbq_s8(dst, vldrbq_z_s8(a, keep));
        vstrbq_s8(dst + 16, vldrbq_z_s8(b, keep));
    }
}

/* dst gets `rows` runs of `row` bytes (a multiple of 16) from a and from b, row_step apart
 * in the image, as whole vectors interleaved (a's vector k at byte 32 k, b's at 32 k + 16). */
HK_INLINE void conv_interleave_rows(const int8_t *a, const int8_t *b, int32_t rows, int32_t row,
                                    size_t row_step, int8_t *dst)
{
    for (int32_t r = 0; r < rows; ++r, a += row_step, b += row_step) {
        for (int32_t j = 0; j < row; j += 16, dst += 32) {
            vstrbq_s8(dst, vldrbq_s8(a + j));
            vstrbq_s8(dst + 16, vldrbq_s8(b + j));
        }
    }
}

/*
 * Four output pixels against two filters (the general path for receptive fields of whole
 * vectors): `xi` holds the four pixels' receptive fields interleaved by vector (pixel p's
 * vector k at byte 64 k + 16 p), w0 and w1 are two filter rows of `vectors` whole vectors.
 * *q0 gets filter 0's dot products with the four pixels, *q1 filter 1's. Each vector of a
 * filter loaded serves four pixels and each pixel vector two filters: six loads per eight
 * VMLADAVs, the eight sums in registers for the whole receptive field.
 */
#if defined(__OPTIMIZE__)
/* One vector step: VMLADAV (first) or VMLADAVA (the rest) of every pixel with both filters. */
#define CONV_QUAD_STEP(OP)                                                                     \
    "vldrb.8 q2, [%[w0]], #16\n\t"                                                             \
    "vldrb.8 q3, [%[w1]], #16\n\t"                                                             \
    "vldrb.8 q0, [%[x]], #16\n\t"                                                              \
    OP " %[a0], q0, q2\n\t" OP " %[b0], q0, q3\n\t"                                            \
    "vldrb.8 q1, [%[x]], #16\n\t"                                                              \
    OP " %[a1], q1, q2\n\t" OP " %[b1], q1, q3\n\t"                                            \
    "vldrb.8 q0, [%[x]], #16\n\t"                                                              \
    OP " %[a2], q0, q2\n\t" OP " %[b2], q0, q3\n\t"                                            \
    "vldrb.8 q1, [%[x]], #16\n\t"                                                              \
    OP " %[a3], q1, q2\n\t" OP " %[b3], q1, q3\n\t"
/* Written in assembly because VMLADAV accumulates only into even registers: the eight sums
 * take r0, r2, ..., r12 and lr, the three pointers and the count odd ones. The first vector
 * starts the sums (VMLADAV), the rest are taken two per iteration after an odd one is peeled,
 * so the loop's own cost is one instruction per two vectors. */
HK_INLINE void conv_quad2_mve(const int8_t *xi, const int8_t *w_0, const int8_t *w_1,
                              int32_t vectors, int32x4_t *q0, int32x4_t *q1)
{
    HK_MVE_EVEN_SUMS;
    const int8_t *x = xi, *w0 = w_0, *w1 = w_1;
    int32_t n = vectors;
    int32x4_t y0, y1;
    __asm__ volatile(CONV_QUAD_STEP("vmladav.s8")
                     "subs %[n], %[n], #1\n\t"
                     "beq 3f\n\t"
                     "lsrs %[n], %[n], #1\n\t"
                     "bcc 2f\n\t"
                     CONV_QUAD_STEP("vmladava.s8")
                     "beq 3f\n"
                     "2:\n\t"
                     CONV_QUAD_STEP("vmladava.s8")
                     CONV_QUAD_STEP("vmladava.s8")
                     "subs %[n], %[n], #1\n\t"
                     "bne 2b\n"
                     "3:\n\t"
                     "vmov %q[y0][2], %q[y0][0], %[a0], %[a2]\n\t"
                     "vmov %q[y0][3], %q[y0][1], %[a1], %[a3]\n\t"
                     "vmov %q[y1][2], %q[y1][0], %[b0], %[b2]\n\t"
                     "vmov %q[y1][3], %q[y1][1], %[b1], %[b3]\n"
                     : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),
                       [b0] "=&r"(b0), [b1] "=&r"(b1), [b2] "=&r"(b2), [b3] "=&r"(b3),
                       [x] "+r"(x), [w0] "+r"(w0), [w1] "+r"(w1), [n] "+r"(n),
                       [y0] "=&w"(y0), [y1] "=&w"(y1)
                     :
                     : "q0", "q1", "q2", "q3", "cc", "memory");
    *q0 = y0;
    *q1 = y1;
}
#else
/* Unoptimized builds (-O0) cannot give the assembly its twelve registers: the same
 * arithmetic with intrinsics. */
static void conv_quad2_mve(const int8_t *xi, const int8_t *w0, const int8_t *w1,
                           int32_t vectors, int32x4_t *q0, int32x4_t *q1)
{
    int32_t a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
    for (int32_t k = 0; k < vectors; ++k) {
        const int8x16_t v0 = vldrbq_s8(w0 + 16 * k), v1 = vldrbq_s8(w1 + 16 * k);
        for (int32_t p = 0; p < 4; ++p) {
            const int8x16_t xv = vldrbq_s8(xi + 64 * k + 16 * p);
            a[p] = vmladavaq_s8(a[p], xv, v0);
            b[p] = vmladavaq_s8(b[p], xv, v1);
        }
    }
    *q0 = vsetq_lane_s32(a[3], vsetq_lane_s32(a[2], vsetq_lane_s32(a[1], vdupq_n_s32(a[0]), 1), 2), 3);
    *q1 = vsetq_lane_s32(b[3], vsetq_lane_s32(b[2], vsetq_lane_s32(b[1], vdupq_n_s32(b[0]), 1), 2), 3);
}
#endif

/* What conv_quads_s8 needs, copied out of the params once (the int8 output may alias
 * anything, so GCC would otherwise reload every field per filter). */
typedef struct {
    const int32_t *bias, *mult, *shift;
    const int8_t *filter;
    int32_t taps, channels, offset, lo, hi, vectors, mode;
} conv_quads_t;

/* One filter's four sums (one per pixel) with its offset_bias b added, requantized with its
 * multiplier m and shift s in `mode` (a constant where inlined), clamped to [lo, hi] and
 * scattered to the pixels' outputs. */
HK_INLINE void conv_quad_store(int32_t mode, int32x4_t acc, int32_t b, int32_t m, int32_t s,
                               int32_t offset, int32x4_t vlo, int32x4_t vhi,
                               uint32x4_t offsets, mve_pred16_t real, int8_t *out)
{
    acc = vaddq_n_s32(acc, b);
    if (mode == HK_REQUANT_GENERAL) {
        acc = hk_requant_mve(acc, vdupq_n_s32(m), vdupq_n_s32(s));
    } else {
        /* hk_requant_right_mve with scalar operands: the fixup only when shifting at all,
         * which the narrow mode (every shift in [-23, -1]) always does. */
        acc = vqrdmulhq_n_s32(acc, m);
        if (mode == HK_REQUANT_NARROW || s < 0) {
            acc = vqaddq_s32(acc, vshrq_n_s32(acc, 31));
        }
        acc = vrshlq_n_s32(acc, s);
    }
    acc = vminq_s32(vmaxq_s32(vaddq_n_s32(acc, offset), vlo), vhi);
    vstrbq_scatter_offset_p_s32(out, offsets, acc, real);
}

/* conv_quads_s8 for one requantization mode (a constant where inlined). */
HK_INLINE void conv_quads_mode_s8(int32_t mode, const conv_quads_t *k, const int8_t *xi,
                                  int32_t pixels, int32_t from, int8_t *out)
{
    const int32_t taps = k->taps, channels = k->channels, vectors = k->vectors;
    const int32_t offset = k->offset;
    const int32_t *bias = k->bias + from, *mult = k->mult + from, *shift = k->shift + from;
    const int32x4_t vlo = vdupq_n_s32(k->lo), vhi = vdupq_n_s32(k->hi);
    const uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)channels);
    const mve_pred16_t real = vctp32q((uint32_t)pixels);
    const int8_t *w = k->filter + (size_t)from * (size_t)taps;
    const int8_t *end = out + channels;
    out += from;
    /* Pairs of filters; a last odd one runs paired with itself and is stored once. */
    for (; out < end; out += 2, bias += 2, mult += 2, shift += 2, w += 2 * (size_t)taps) {
        const bool pair = out + 1 < end;
        int32x4_t q0, q1;
        conv_quad2_mve(xi, w, pair ? w + taps : w, vectors, &q0, &q1);
        conv_quad_store(mode, q0, bias[0], mult[0], shift[0], offset, vlo, vhi, offsets, real,
                        out);
        if (pair) {
            conv_quad_store(mode, q1, bias[1], mult[1], shift[1], offset, vlo, vhi, offsets,
                            real, out + 1);
        }
    }
}

#if defined(__OPTIMIZE__)
/* What conv_quads_asm reads from memory (its registers all hold sums or pointers): the clamp,
 * the output offsets of a pair's eight bytes (filter 0 of pixel p in lane 2p, filter 1 in lane
 * 2p + 1) and the output zero point as 16-bit vectors, then per-call constants. */
typedef struct {
    int16_t lo[8], hi[8];
    uint16_t offsets[8];
    int16_t zero_point[8];
    const int8_t *xi;   /* the four pixels' fields, interleaved */
    int32_t rounds;     /* (vectors - 2) / 4, the step loop's iterations after the peel */
    int32_t taps;       /* bytes per filter */
    int32_t to_mult;    /* bytes from offset_bias to output_multiplier */
    int32_t to_shift;   /* bytes from offset_bias to output_shift */
    int8_t *out;        /* the next filter's output byte of pixel 0 */
    const int32_t *end; /* offset_bias past the last pair's filters */
} __attribute__((aligned(16))) conv_quads_asm_t;

/* conv_quads_asm_t's member as the asm operand %[member], an immediate byte offset. */
#define CQ_FIELD(member) [member] "i"(offsetof(conv_quads_asm_t, member))

/* The pair loop's vector steps are software-pipelined for the M55's beat overlap: a load (LS
 * pipe) and a VMLADAV (multiply pipe) next to each other overlap by a beat, two loads or two
 * VMLADAVs do not, so each step's last four dot products (pixels 2 and 3: q4, q5) run between
 * the next step's loads. q0/q1/q4/q5: pixel vectors 0-3, q2/q3: the two filters' vectors. The
 * first step (no dot products pending) starts the sums with VMLADAV. */
#define CONV_QUADS_HEAD                                                                        \
    "vldrb.8 q0, [r1], #16\n\t"                                                                \
    "vldrb.8 q2, [r3], #16\n\t"                                                                \
    "vldrb.8 q1, [r1], #16\n\t"                                                                \
    "vldrb.8 q3, [r5], #16\n\t"                                                                \
    "vldrb.8 q4, [r1], #16\n\t"                                                                \
    "vmladav.s8 r0, q0, q2\n\t"                                                                \
    "vldrb.8 q5, [r1], #16\n\t"                                                                \
    "vmladav.s8 r8, q0, q3\n\t"                                                                \
    "vmladav.s8 r2, q1, q2\n\t"                                                                \
    "vmladav.s8 r10, q1, q3\n\t"
/* A later step; TAIL (VMLADAV after the first step, else VMLADAVA) finishes the step before. */
#define CONV_QUADS_STEP(TAIL)                                                                  \
    "vldrb.8 q0, [r1], #16\n\t"                                                                \
    TAIL " r4, q4, q2\n\t"                                                                     \
    "vldrb.8 q1, [r1], #16\n\t"                                                                \
    TAIL " r12, q4, q3\n\t"                                                                    \
    "vldrb.8 q4, [r1], #16\n\t"                                                                \
    TAIL " r6, q5, q2\n\t"                                                                     \
    "vldrb.8 q2, [r3], #16\n\t"                                                                \
    TAIL " lr, q5, q3\n\t"                                                                     \
    "vldrb.8 q3, [r5], #16\n\t"                                                                \
    "vmladava.s8 r0, q0, q2\n\t"                                                               \
    "vldrb.8 q5, [r1], #16\n\t"                                                                \
    "vmladava.s8 r8, q0, q3\n\t"                                                               \
    "vmladava.s8 r2, q1, q2\n\t"                                                               \
    "vmladava.s8 r10, q1, q3\n\t"
/* The last step's pending dot products, with the requantization's offsets (q4) and output
 * zero point (q5) loaded between them once their registers are free. */
#define CONV_QUADS_TAIL(TAIL)                                                                  \
    TAIL " r4, q4, q2\n\t"                                                                     \
    TAIL " r12, q4, q3\n\t"                                                                    \
    "vldrw.u32 q4, [r9, %[offsets]]\n\t"                                                       \
    TAIL " r6, q5, q2\n\t"                                                                     \
    TAIL " lr, q5, q3\n\t"                                                                     \
    "vldrw.u32 q5, [r9, %[zero_point]]\n\t"
/* The pair's two filters' four sums (q0, q1: the pixels'), requantized in the narrow mode
 * (every shift in [-23, -1]: hk_requant_right_mve, whose fixup then always applies), the two
 * chains interleaved; r0/r2 the byte distances from offset_bias (r11) to the multiplier and
 * shift. Both then narrow into one 16-bit vector (filter 0 even lanes, filter 1 odd ones),
 * saturating: a sum beyond int16 stays beyond the clamp after the zero point (q5) is added
 * (saturating too), so one add, one clamp (q6, q7) and one scatter (offsets q4) serve both.
 * STEP (the next pair's filter pointers, scalar) runs in the narrowing's latency, where the
 * zero-point add would otherwise wait. */
#define CONV_QUADS_CONSTANTS                                                                   \
    "ldr r8, [r11, r0]\n\t"                                                                    \
    "ldr r10, [r11, r2]\n\t"                                                                   \
    "ldr r12, [r11], #4\n\t"                                                                   \
    "ldr r4, [r11, r0]\n\t"                                                                    \
    "ldr lr, [r11, r2]\n\t"                                                                    \
    "ldr r7, [r11], #4\n\t"
#define CONV_QUADS_STEP_FILTERS                                                                \
    "ldr r0, [r9, %[taps]]\n\t"                                                                \
    "mov r3, r5\n\t"                                                                           \
    "add r5, r3, r0\n\t"
#define CONV_QUADS_NARROW_STORE                                                                \
    "vqmovnb.s32 q0, q0\n\t"                                                                   \
    "vqmovnt.s32 q0, q1\n\t"                                                                   \
    CONV_QUADS_STEP_FILTERS                                                                    \
    "vqadd.s16 q0, q0, q5\n\t"                                                                 \
    "vmax.s16 q0, q0, q6\n\t"                                                                  \
    "vmin.s16 q0, q0, q7\n\t"                                                                  \
    "vstrb.16 q0, [r6, q4]\n\t"
#define CONV_QUADS_REQUANT                                                                     \
    CONV_QUADS_CONSTANTS                                                                       \
    "vadd.i32 q0, q0, r12\n\t"                                                                 \
    "vadd.i32 q1, q1, r7\n\t"                                                                  \
    "vqrdmulh.s32 q0, q0, r8\n\t"                                                              \
    "vqrdmulh.s32 q1, q1, r4\n\t"                                                              \
    "vshr.s32 q2, q0, #31\n\t"                                                                 \
    "vshr.s32 q3, q1, #31\n\t"                                                                 \
    "vqadd.s32 q0, q0, q2\n\t"                                                                 \
    "vqadd.s32 q1, q1, q3\n\t"                                                                 \
    "vrshl.s32 q0, r10\n\t"                                                                    \
    "vrshl.s32 q1, lr\n\t"                                                                     \
    CONV_QUADS_NARROW_STORE
/* CONV_QUADS_REQUANT where the activation's lower bound is at or above the output zero point
 * (a ReLU): the fixup (negative values lowered by one before the rounding shift) changes only
 * values that round to zero or below, which the clamp takes to the lower bound either way, so
 * it is left out; the adds and multiplies alternate between the integer and multiply pipes. */
#define CONV_QUADS_REQUANT_RELU                                                                \
    CONV_QUADS_CONSTANTS                                                                       \
    "vadd.i32 q0, q0, r12\n\t"                                                                 \
    "vqrdmulh.s32 q0, q0, r8\n\t"                                                              \
    "vadd.i32 q1, q1, r7\n\t"                                                                  \
    "vqrdmulh.s32 q1, q1, r4\n\t"                                                              \
    "vrshl.s32 q0, r10\n\t"                                                                    \
    "vrshl.s32 q1, lr\n\t"                                                                     \
    CONV_QUADS_NARROW_STORE
/* The dot products for two or more vectors: the head, the second step (which finishes the
 * head's sums with VMLADAV), PEEL (0 to 3 more steps: (vectors - 2) % 4) and LOOP (the rest,
 * four steps per iteration: a taken branch costs as much as three steps' overlap, so the
 * iterations are few) or nothing when vectors < 6. */
#define CONV_QUADS_ACC CONV_QUADS_STEP("vmladava.s8")
#define CONV_QUADS_DOTS(PEEL, LOOP)                                                            \
    CONV_QUADS_HEAD                                                                            \
    CONV_QUADS_STEP("vmladav.s8")                                                              \
    PEEL                                                                                       \
    LOOP                                                                                       \
    CONV_QUADS_TAIL("vmladava.s8")
#define CONV_QUADS_ROUNDS                                                                      \
    "cmp r7, #0\n\t"                                                                          \
    "beq 3f\n"                                                                                 \
    "2:\n\t"                                                                                   \
    CONV_QUADS_ACC CONV_QUADS_ACC CONV_QUADS_ACC CONV_QUADS_ACC                                \
    "subs r7, r7, #1\n\t"                                                                      \
    "bne 2b\n"                                                                                 \
    "3:\n\t"
/* Per pair of filters: the dot products DOTS, then the lane moves, both filters'
 * requantization REQUANT and the step to the next pair; ROUNDS loads the step loop's count
 * (empty for the forms without that loop). */
#define CONV_QUADS_LOOP(DOTS, REQUANT, ROUNDS)                                                 \
    "vldrw.u32 q6, [r9, %[lo]]\n\t"                                                            \
    "vldrw.u32 q7, [r9, %[hi]]\n"                                                               \
    "4:\n\t"                                                                                   \
    "ldr r1, [r9, %[xi]]\n\t"                                                                  \
    ROUNDS                                                                                     \
    DOTS                                                                                       \
    "vmov q0[2], q0[0], r0, r4\n\t"                                                            \
    "vmov q0[3], q0[1], r2, r6\n\t"                                                            \
    "vmov q1[2], q1[0], r8, r12\n\t"                                                           \
    "vmov q1[3], q1[1], r10, lr\n\t"                                                           \
    "ldr r0, [r9, %[to_mult]]\n\t"                                                             \
    "ldr r2, [r9, %[to_shift]]\n\t"                                                            \
    "ldr r6, [r9, %[out]]\n\t"                                                                 \
    REQUANT                                                                                    \
    "adds r6, r6, #2\n\t"                                                                      \
    "str r6, [r9, %[out]]\n\t"                                                                 \
    "ldr r0, [r9, %[end]]\n\t"                                                                 \
    "cmp r11, r0\n\t"                                                                          \
    "bne 4b\n"
#define CONV_QUADS_COUNT "ldr r7, [r9, %[rounds]]\n\t"

/*
 * conv_quads_s8 for four real pixels, an even number of filters (>= 2) and the narrow
 * requantization: the whole pair loop in assembly, because the eight sums (even registers,
 * as VMLADAV requires) and the three pointers and count of the dot products leave GCC two
 * registers for everything else, which it spends on spills. Here each pair's loop state
 * lives in `st` (r9) and the per-filter constants are read through one pointer (r11, at
 * offset_bias; the multiplier and shift at fixed distances from it): per pair, the dot
 * products (14 instructions per vector, software-pipelined: CONV_QUADS_STEP), four lane
 * moves, two filters' requantization and about a dozen instructions of loop. `vectors` (a
 * constant in each caller: 1, 2, 4, or 6 to 9 for the looped forms, conv_quads_pairs_asm)
 * picks the form.
 */
HK_INLINE void conv_quads_asm(int32_t vectors, bool relu, conv_quads_asm_t *state, const int8_t *filter,
                              const int32_t *bias)
{
    register int32_t r0 __asm__("r0");
    register int32_t r2 __asm__("r2");
    register int32_t r4 __asm__("r4");
    register int32_t r6 __asm__("r6");
    register int32_t r8 __asm__("r8");
    register int32_t r10 __asm__("r10");
    register int32_t r12 __asm__("r12");
    register int32_t lr __asm__("lr");
    register const int8_t *x __asm__("r1");
    register const int8_t *w0 __asm__("r3") = filter;
    register const int8_t *w1 __asm__("r5") = filter + state->taps;
    register int32_t n __asm__("r7");
    register conv_quads_asm_t *st __asm__("r9") = state;
    register const int32_t *c __asm__("r11") = bias;
#define CONV_QUADS_OPERANDS                                                                    \
    : "=&r"(r0), "=&r"(r2), "=&r"(r4), "=&r"(r6), "=&r"(r8), "=&r"(r10), "=&r"(r12),          \
      "=&r"(lr), "=&r"(x), "+r"(w0), "+r"(w1), "=&r"(n), "+r"(c)                               \
    : "r"(st), CQ_FIELD(lo), CQ_FIELD(hi), CQ_FIELD(offsets), CQ_FIELD(zero_point),          \
      CQ_FIELD(xi), CQ_FIELD(rounds), CQ_FIELD(taps), CQ_FIELD(to_mult), CQ_FIELD(to_shift),     \
      CQ_FIELD(out), CQ_FIELD(end)                                                             \
    : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "cc", "memory"
#define CONV_QUADS_FORMS(REQ)                                                                  \
    if (vectors == 1) {                                                                        \
        __asm__ volatile(CONV_QUADS_LOOP(CONV_QUADS_HEAD CONV_QUADS_TAIL("vmladav.s8"), REQ, "")   \
                             CONV_QUADS_OPERANDS);                                             \
    } else if (vectors == 2) {                                                                 \
        __asm__ volatile(CONV_QUADS_LOOP(CONV_QUADS_DOTS("", ""), REQ, "") CONV_QUADS_OPERANDS); \
    } else if (vectors == 4) {                                                                 \
        __asm__ volatile(CONV_QUADS_LOOP(CONV_QUADS_DOTS(CONV_QUADS_ACC CONV_QUADS_ACC, ""),    \
                                         REQ, "") CONV_QUADS_OPERANDS);                          \
    } else if (vectors == 6) { /* (vectors - 2) % 4 == 0 */                                    \
        __asm__ volatile(CONV_QUADS_LOOP(CONV_QUADS_DOTS("", CONV_QUADS_ROUNDS), REQ,           \
                                         CONV_QUADS_COUNT) CONV_QUADS_OPERANDS);               \
    } else if (vectors == 7) {                                                                 \
        __asm__ volatile(CONV_QUADS_LOOP(CONV_QUADS_DOTS(CONV_QUADS_ACC, CONV_QUADS_ROUNDS),    \
                                         REQ, CONV_QUADS_COUNT) CONV_QUADS_OPERANDS);          \
    } else if (vectors == 8) {                                                                 \
        __asm__ volatile(CONV_QUADS_LOOP(CONV_QUADS_DOTS(CONV_QUADS_ACC CONV_QUADS_ACC,         \
                                                         CONV_QUADS_ROUNDS),                   \
                                         REQ, CONV_QUADS_COUNT) CONV_QUADS_OPERANDS);          \
    } else {                                                                                   \
        __asm__ volatile(CONV_QUADS_LOOP(CONV_QUADS_DOTS(CONV_QUADS_ACC CONV_QUADS_ACC          \
                                                             CONV_QUADS_ACC,                   \
                                                         CONV_QUADS_ROUNDS),                   \
                                         REQ, CONV_QUADS_COUNT) CONV_QUADS_OPERANDS);          \
    }
    if (relu) {
        CONV_QUADS_FORMS(CONV_QUADS_REQUANT_RELU)
    } else {
        CONV_QUADS_FORMS(CONV_QUADS_REQUANT)
    }
#undef CONV_QUADS_FORMS
#undef CONV_QUADS_OPERANDS
}

/* One function per form of the loop: 1, 2 and 4 vectors straight (KWS's pointwise is 4), and
 * the looped forms by (vectors - 2) % 4 (6: none peeled, 7: one, 8: two, 9: three); each in
 * the narrow requantization and in its ReLU form (CONV_QUADS_REQUANT_RELU). */
#define CONV_QUADS_FORM(V)                                                                     \
    HK_NOINLINE void conv_quads_##V##_asm(conv_quads_asm_t *state, const int8_t *filter,      \
                                         const int32_t *bias)                                 \
    {                                                                                         \
        conv_quads_asm(V, false, state, filter, bias);                                        \
    }                                                                                         \
    HK_NOINLINE void conv_quads_##V##_relu_asm(conv_quads_asm_t *state, const int8_t *filter, \
                                              const int32_t *bias)                            \
    {                                                                                         \
        conv_quads_asm(V, true, state, filter, bias);                                         \
    }
CONV_QUADS_FORM(1)
CONV_QUADS_FORM(2)
CONV_QUADS_FORM(4)
CONV_QUADS_FORM(6)
CONV_QUADS_FORM(7)
CONV_QUADS_FORM(8)
CONV_QUADS_FORM(9)
#undef CONV_QUADS_FORM

/* The pair loop of `vectors` (>= 1) vectors: its form's function, the ReLU form when `relu`
 * (the activation's lower bound at or above the output zero point). */
HK_INLINE void conv_quads_pairs_asm(int32_t vectors, bool relu, conv_quads_asm_t *state,
                                    const int8_t *filter, const int32_t *bias)
{
    int32_t form = vectors;
    if (vectors > 4 || vectors == 3) {
        form = 6 + ((vectors - 2) & 3);
    }
#define CONV_QUADS_CALL(V)                                                                     \
    if (relu) {                                                                                \
        conv_quads_##V##_relu_asm(state, filter, bias);                                        \
    } else {                                                                                   \
        conv_quads_##V##_asm(state, filter, bias);                                             \
    }
    switch (form) {
    case 1:
        CONV_QUADS_CALL(1)
        break;
    case 2:
        CONV_QUADS_CALL(2)
        break;
    case 4:
        CONV_QUADS_CALL(4)
        break;
    case 6:
        CONV_QUADS_CALL(6)
        break;
    case 7:
        CONV_QUADS_CALL(7)
        break;
    case 8:
        CONV_QUADS_CALL(8)
        break;
    default:
        CONV_QUADS_CALL(9)
        break;
    }
#undef CONV_QUADS_CALL
}
#endif

/*
 * Filters [from, channels) against four output pixels whose receptive fields `xi` holds
 * interleaved (conv_quad2_mve), two filters at a time; `pixels` (1..4) are real and stored,
 * the others' lanes are ignored. One loop per requantization mode, so none decides it per
 * filter. (Four real pixels in the narrow mode take conv_quads_asm for the pairs.)
 */
HK_NOINLINE void conv_quads_s8(const conv_quads_t *k, const int8_t *xi, int32_t pixels,
                               int32_t from, int8_t *out)
{
    if (k->mode == HK_REQUANT_NARROW) {
        conv_quads_mode_s8(HK_REQUANT_NARROW, k, xi, pixels, from, out);
    } else if (k->mode == HK_REQUANT_RIGHT) {
        conv_quads_mode_s8(HK_REQUANT_RIGHT, k, xi, pixels, from, out);
    } else {
        conv_quads_mode_s8(HK_REQUANT_GENERAL, k, xi, pixels, from, out);
    }
}

/* dst (pixel p's slot of an interleaved block: vector k at 64 k) gets `runs` runs of `len`
 * bytes (whole vectors), `step` apart from src. */
HK_INLINE void conv_quad_put(const int8_t *src, int32_t runs, int32_t len, size_t step,
                             int8_t *dst)
{
    for (int32_t r = 0; r < runs; ++r, src += step) {
        for (int32_t j = 0; j < len; j += 16, dst += 64) {
            vstrbq_s8(dst, vldrbq_s8(src + j));
        }
    }
}

/* The interleaved block (conv_quad_put's layout) of four windows `sx` bytes apart from src,
 * each `runs` runs of `len` bytes (whole vectors) `step` apart: one pass for the four. */
HK_INLINE void conv_quad_put4(const int8_t *src, size_t sx, int32_t runs, int32_t len,
                              size_t step, int8_t *dst)
{
    for (int32_t r = 0; r < runs; ++r, src += step) {
        const int8_t *a0 = src, *a1 = src + sx, *a2 = src + 2 * sx, *a3 = src + 3 * sx;
        for (int32_t j = 0; j < len; j += 16) {
            const int8x16_t v0 = vldrbq_s8(a0), v1 = vldrbq_s8(a1);
            const int8x16_t v2 = vldrbq_s8(a2), v3 = vldrbq_s8(a3);
            a0 += 16;
            a1 += 16;
            a2 += 16;
            a3 += 16;
            vstrbq_s8(dst, v0);
            dst += 16;
            vstrbq_s8(dst, v1);
            dst += 16;
            vstrbq_s8(dst, v2);
            dst += 16;
            vstrbq_s8(dst, v3);
            dst += 16;
        }
    }
}

/* The receptive field of the pixel whose window starts at (iy0, ix0), for channels a multiple
 * of 16, into pixel p's slot of an interleaved block (vector k at 64 k): each tap is whole
 * vectors, copied from the image or, outside it, `fill` (the input zero point, which adds
 * nothing once the offset is folded into the bias). */
HK_INLINE void conv_quad_gather(const hk_conv_params_t *p, const int8_t *image, int32_t iy0,
                                int32_t ix0, int8x16_t fill, int8_t *dst)
{
    const int32_t channels = p->input_channels;
    for (int32_t fy = 0; fy < p->filter_height; ++fy) {
        const int32_t iy = iy0 + fy * p->dilation_height;
        const bool row_in = iy >= 0 && iy < p->input_height;
        for (int32_t fx = 0; fx < p->filter_width; ++fx) {
            const int32_t ix = ix0 + fx * p->dilation_width;
            if (row_in && ix >= 0 && ix < p->input_width) {
                const int8_t *src =
                    image + ((size_t)iy * (size_t)p->input_width + (size_t)ix) * (size_t)channels;
                for (int32_t c = 0; c < channels; c += 16, dst += 64) {
                    vstrbq_s8(dst, vldrbq_s8(src + c));
                }
            } else {
                for (int32_t c = 0; c < channels; c += 16, dst += 64) {
                    vstrbq_s8(dst, fill);
                }
            }
        }
    }
}

/*
 * The four-pixel path of hk_conv_s8_fast (receptive fields of whole vectors): four output
 * pixels at a time, their fields interleaved into the scratch's first region (4 taps bytes:
 * the DSP path's widened words), then every filter two at a time. Four pixels of one output
 * row whose windows lie inside the image are copied in one pass from the input (an unpadded
 * 1x1 filter's pixels, or the filter rows of windows when `in_rows`); any other pixel is
 * copied alone, from its pixel, its rows, its taps (channels a multiple of 16: each tap whole
 * vectors) or its field gathered into patch0.
 */
HK_NOINLINE void conv_quads_run(const hk_conv_params_t *p, const int8_t *input,
                                const int8_t *filter, const conv_scratch_t *s, int32_t mode,
                                int32_t lo, int32_t hi, bool direct, bool in_rows,
                                int32_t pixels, int8_t *out)
{
    const int32_t taps = p->filter_height * p->filter_width * p->input_channels;
    const int32_t channels = p->output_channels;
    const int32_t row = p->filter_width * p->input_channels;
    const size_t row_step =
        (size_t)p->dilation_height * (size_t)p->input_width * (size_t)p->input_channels;
    const int32_t y_room = p->input_height - (p->filter_height - 1) * p->dilation_height;
    const int32_t x_room = p->input_width - p->filter_width + 1;
    const size_t sx = (size_t)p->stride_width * (size_t)p->input_channels;
    const int32_t runs = direct ? 1 : p->filter_height, len = direct ? taps : row;
    const size_t image_size =
        (size_t)p->input_height * (size_t)p->input_width * (size_t)p->input_channels;
    conv_quads_t k;
    k.bias = p->offset_bias;
    k.mult = p->output_multiplier;
    k.shift = p->output_shift;
    k.filter = filter;
    k.taps = taps;
    k.channels = channels;
    k.offset = p->output_offset;
    k.lo = lo;
    k.hi = hi;
    k.vectors = taps >> 4;
    k.mode = mode;
    int8_t *xi = (int8_t *)s->words;
#if defined(__OPTIMIZE__)
    /* (the pair's byte offsets are 16-bit: up to 3 channels + 1) */
    const bool fast = mode == HK_REQUANT_NARROW && channels >= 2 && channels <= 16384;
    const int32_t pairs = channels >> 1;
    conv_quads_asm_t st;
    /* lane 2p: pixel p's byte of the pair's filter 0, lane 2p + 1: of filter 1 */
    const uint16x8_t lanes = vidupq_n_u16(0u, 1);
    const uint16x8_t pixel = vshrq_n_u16(lanes, 1), filter1 = vandq_u16(lanes, vdupq_n_u16(1));
    vstrhq_s16(st.lo, vdupq_n_s16((int16_t)lo));
    vstrhq_s16(st.hi, vdupq_n_s16((int16_t)hi));
    vstrhq_u16(st.offsets, vmlaq_n_u16(filter1, pixel, (uint16_t)channels));
    vstrhq_s16(st.zero_point, vdupq_n_s16((int16_t)k.offset));
    st.xi = xi;
    st.rounds = k.vectors > 1 ? (k.vectors - 2) >> 2 : 0;
    st.taps = taps;
    st.to_mult = (int32_t)((const uint8_t *)k.mult - (const uint8_t *)k.bias);
    st.to_shift = (int32_t)((const uint8_t *)k.shift - (const uint8_t *)k.bias);
    st.end = k.bias + 2 * pairs;
#endif
    const int8x16_t fill = vdupq_n_s8((int8_t)(-p->input_offset));
    conv_pixel_t at = {0, 0, 0};
    const int32_t whole = pixels & ~3;
    for (int32_t i = 0; i < whole; i += 4, out += 4 * channels) {
        const int32_t n = 4;
        const int32_t iy0 = at.oy * p->stride_height - p->pad_top;
        const int32_t ix0 = at.ox * p->stride_width - p->pad_left;
        const int8_t *image = input + (size_t)at.b * image_size;
        if (n == 4 && at.ox + 3 < p->output_width &&
            (direct || (in_rows && iy0 >= 0 && iy0 < y_room && ix0 >= 0 &&
                        ix0 + 3 * p->stride_width < x_room))) {
            conv_quad_put4(image + ((size_t)iy0 * (size_t)p->input_width + (size_t)ix0) *
                                       (size_t)p->input_channels,
                           sx, runs, len, row_step, xi);
            at.ox += 3;
            conv_advance(p, &at);
        } else {
            for (int32_t j = 0; j < n; ++j) {
                const int32_t y = at.oy * p->stride_height - p->pad_top;
                const int32_t x = at.ox * p->stride_width - p->pad_left;
                const int8_t *img = input + (size_t)at.b * image_size;
                const int8_t *start = img + ((size_t)y * (size_t)p->input_width + (size_t)x) *
                                                (size_t)p->input_channels;
                if (direct) {
                    conv_quad_put(start, 1, taps, 0, xi + 16 * j);
                } else if (in_rows && y >= 0 && y < y_room && x >= 0 && x < x_room) {
                    conv_quad_put(start, p->filter_height, row, row_step, xi + 16 * j);
                } else if ((p->input_channels & 15) == 0) {
                    conv_quad_gather(p, img, y, x, fill, xi + 16 * j);
                } else {
                    conv_gather_s8(p, img, y, x, (int8_t)(-p->input_offset), s->patch0);
                    conv_quad_put(s->patch0, 1, taps, 0, xi + 16 * j);
                }
                conv_advance(p, &at);
            }
        }
#if defined(__OPTIMIZE__)
        if (fast) {
            st.out = out;
            conv_quads_pairs_asm(k.vectors, lo >= k.offset, &st, filter, k.bias);
            if ((channels & 1) != 0) {
                conv_quads_s8(&k, xi, n, 2 * pairs, out);
            }
            continue;
        }
#endif
        conv_quads_s8(&k, xi, n, 0, out);
    }
    /* One to three pixels left over (a small image, or a band of hk_conv_reuse.c): one at a
     * time against four filters per pass (conv_dots_s8), which costs less than a block of
     * four with lanes wasted, and a row requantization. */
    for (int32_t i = whole; i < pixels; ++i, out += channels) {
        const int32_t y = at.oy * p->stride_height - p->pad_top;
        const int32_t x = at.ox * p->stride_width - p->pad_left;
        const int8_t *img = input + (size_t)at.b * image_size;
        const int8_t *start =
            img + ((size_t)y * (size_t)p->input_width + (size_t)x) * (size_t)p->input_channels;
        if (direct) {
            conv_dots_s8(start, 0, 1, taps, filter, channels, k.bias, s->acc0);
        } else if (in_rows && y >= 0 && y < y_room && x >= 0 && x < x_room) {
            conv_dots_s8(start, row_step, p->filter_height, row, filter, channels, k.bias,
                         s->acc0);
        } else {
            conv_gather_s8(p, img, y, x, (int8_t)(-p->input_offset), s->patch0);
            conv_dots_s8(s->patch0, 0, 1, taps, filter, channels, k.bias, s->acc0);
        }
        hk_requant_row_s8(s->acc0, k.mult, k.shift, channels, k.offset, lo, hi, mode, out);
        conv_advance(p, &at);
    }
}

/* The first input byte of the pixel's window when `in_rows` and the window lies inside the
 * image (its filter rows can then be read in place), else NULL. */
HK_INLINE const int8_t *conv_rows_in_place(const hk_conv_params_t *p, const int8_t *input,
                                           bool in_rows, conv_pixel_t at)
{
    const int32_t iy0 = at.oy * p->stride_height - p->pad_top;
    const int32_t ix0 = at.ox * p->stride_width - p->pad_left;
    if (!in_rows || iy0 < 0 || ix0 < 0 ||
        iy0 + (p->filter_height - 1) * p->dilation_height >= p->input_height ||
        ix0 + p->filter_width > p->input_width) {
        return NULL;
    }
    return input + (((size_t)at.b * (size_t)p->input_height + (size_t)iy0) *
                        (size_t)p->input_width + (size_t)ix0) *
                       (size_t)p->input_channels;
}

/* Steps back to the previous output pixel (conv_advance undone). */
HK_INLINE void conv_retreat(const hk_conv_params_t *p, conv_pixel_t *at)
{
    if (at->ox-- == 0) {
        at->ox = p->output_width - 1;
        if (at->oy-- == 0) {
            at->oy = p->output_height - 1;
            --at->b;
        }
    }
}

void hk_conv_s8_fast(const hk_conv_params_t *p, const int8_t *input, const int8_t *filter,
                     int8_t *output)
{
    const int32_t taps = p->filter_height * p->filter_width * p->input_channels;
    const int32_t channels = p->output_channels;
    /* A 1x1 filter whose every window lies in the image reads its pixel in place. */
    const bool direct = p->filter_height == 1 && p->filter_width == 1 && p->pad_top == 0 &&
                        p->pad_left == 0 &&
                        (p->output_height - 1) * p->stride_height < p->input_height &&
                        (p->output_width - 1) * p->stride_width < p->input_width;
    conv_scratch_t s;
    conv_scratch_layout(taps, channels, (uint8_t *)p->scratch, &s);
    const int32_t lo = hk_max_i32(p->act_min, -128), hi = hk_min_i32(p->act_max, 127);
    const int32_t mode = hk_requant_mode(p->output_multiplier, p->output_shift, channels);
    const int32_t pixels = p->batches * p->output_height * p->output_width;
    conv_pixel_t at = {0, 0, 0};
    int8_t *out = output;
    /* Reading in place needs whole vectors (the assembly reads up to the next multiple of 16):
     * an unpadded 1x1 filter's pixel, or the filter rows of a window inside the image. */
    const bool in_place = direct && (taps & 15) == 0;
    const int32_t row = p->filter_width * p->input_channels;
    const bool in_rows = !direct && p->dilation_width == 1 && p->filter_height > 1 &&
                         (row & 15) == 0;
    const size_t row_step =
        (size_t)p->dilation_height * (size_t)p->input_width * (size_t)p->input_channels;
    const int32_t y_room = p->input_height - (p->filter_height - 1) * p->dilation_height;
    const int32_t x_room = p->input_width - p->filter_width + 1;
    if ((taps & 15) == 0) {
        /* Receptive fields of whole vectors: four pixels against two filters at a time. */
        conv_quads_run(p, input, filter, &s, mode, lo, hi, direct, in_rows, pixels, out);
        return;
    }
    if (direct && p->input_channels <= 16) {
        for (int32_t i = 0; i < pixels; i += 4, out += 4 * channels) {
            const int8_t *x[4];
            const int32_t n = hk_min_i32(pixels - i, 4);
            for (int32_t j = 0; j < 4; ++j) {
                x[j] = j < n ? conv_source(p, input, true, &at, NULL, conv_gather_s8) : x[0];
            }
            conv_small_s8(p, x, n, filter, mode, out);
        }
        return;
    }
    /* The interleaved vectors take the scratch's first region (the DSP path's widened words),
     * which holds them once taps > 4. */
    /* Two pixels per filter load pays (measured on the MLPerf models) where windows are read
     * in place by rows, and for a few filters (where the loop below spends most on each
     * pixel's setup); elsewhere, a direct 1x1 filter or many filters over gathered windows,
     * the per-pixel loop below costs less around its dot products. */
    if (taps > 4 && !direct && (in_rows || channels <= 8)) {
        /* Two pixels at a time: their windows read in place or gathered, their vectors
         * interleaved into the scratch's first region, then every filter in conv_pairs_s8. */
        conv_pairs_t k;
        k.bias = p->offset_bias;
        k.mult = p->output_multiplier;
        k.shift = p->output_shift;
        k.filter = filter;
        k.taps = taps;
        k.channels = channels;
        k.offset = p->output_offset;
        k.lo = lo;
        k.hi = hi;
        k.vectors = (taps + 15) >> 4;
        k.general = mode == HK_REQUANT_GENERAL;
        int8_t *xi = (int8_t *)s.words;
        for (int32_t i = 0; i < pixels; i += 2, out += 2 * channels) {
            const bool both = i + 1 < pixels;
            const int8_t *ra = conv_rows_in_place(p, input, in_rows, at);
            if (ra != NULL) {
                conv_advance(p, &at);
                const int8_t *rb = both ? conv_rows_in_place(p, input, in_rows, at) : ra;
                if (rb != NULL) {
                    /* Both windows lie inside the image: their rows are interleaved straight
                     * from it (the patches are only needed for the last group's predicated
                     * reads, which whole rows never take). */
                    if (both) {
                        conv_advance(p, &at);
                    }
                    conv_interleave_rows(ra, rb, p->filter_height, row, row_step, xi);
                    conv_pairs_s8(&k, ra, rb, xi, both, out, out + channels);
                    continue;
                }
                /* Pixel B is clipped: step back and gather both. */
                conv_retreat(p, &at);
            }
            const int8_t *xa = conv_source(p, input, direct, &at, s.patch0, conv_gather_s8);
            const int8_t *xb = both ? conv_source(p, input, direct, &at, s.patch1, conv_gather_s8)
                                    : xa;
            conv_interleave(xa, xb, taps, xi);
            conv_pairs_s8(&k, xa, xb, xi, both, out, out + channels);
        }
        return;
    }
    for (int32_t i = 0; i < pixels; ++i, out += channels) {
        const int32_t iy0 = at.oy * p->stride_height - p->pad_top;
        const int32_t ix0 = at.ox * p->stride_width - p->pad_left;
        if (in_rows && iy0 >= 0 && iy0 < y_room && ix0 >= 0 && ix0 < x_room) {
            const int8_t *x = input + (((size_t)at.b * (size_t)p->input_height + (size_t)iy0) *
                                           (size_t)p->input_width + (size_t)ix0) *
                                          (size_t)p->input_channels;
            conv_dots_s8(x, row_step, p->filter_height, row, filter, channels, p->offset_bias,
                         s.acc0);
            conv_advance(p, &at);
        } else {
            const int8_t *x = conv_source(p, input, in_place, &at, s.patch0, conv_gather_s8);
            if (!in_place) {
                conv_pad_patch(s.patch0, taps);
            }
            conv_dots_s8(x, 0, 1, taps, filter, channels, p->offset_bias, s.acc0);
        }
        const int32_t *acc = s.acc0;
        hk_requant_row_s8(acc, p->output_multiplier, p->output_shift, channels,
                          p->output_offset, lo, hi, mode, out);
    }
}

/*
 * The scratch-free variant of hk_conv_s8_fast (params->scratch NULL; dilation_width 1): the
 * converter takes it where a scratch buffer would raise the arena above what the tensors need.
 * Same integers as the reference (LiteRT reference_integer_ops::ConvPerChannel, input offset
 * folded into offset_bias): a window inside the image starts from offset_bias, one clipped at
 * an edge from the bias plus the offset times its in-image filter taps (the taps the reference
 * skips), four filters' accumulators stay in registers and
 * are requantized and stored four bytes at a time. A pointwise filter over at most 16 channels
 * takes conv_small_s8, which needs no scratch either.
 */
void hk_conv_s8_lean(const hk_conv_params_t *p, const int8_t *input, const int8_t *filter,
                     const int32_t *bias, int8_t *output)
{
    const int32_t cin = p->input_channels;
    const int32_t row = p->filter_width * cin;
    const int32_t taps = p->filter_height * row;
    const int32_t channels = p->output_channels;
    const int32_t mode = hk_requant_mode(p->output_multiplier, p->output_shift, channels);
    const int32_t pixels = p->batches * p->output_height * p->output_width;
    const bool direct = p->filter_height == 1 && p->filter_width == 1 && p->pad_top == 0 &&
                        p->pad_left == 0 &&
                        (p->output_height - 1) * p->stride_height < p->input_height &&
                        (p->output_width - 1) * p->stride_width < p->input_width;
    conv_pixel_t at = {0, 0, 0};
    int8_t *out = output;
    if (direct && cin <= 16) {
        for (int32_t i = 0; i < pixels; i += 4, out += 4 * channels) {
            const int8_t *x[4];
            const int32_t n = hk_min_i32(pixels - i, 4);
            for (int32_t j = 0; j < 4; ++j) {
                x[j] = j < n ? conv_source(p, input, true, &at, NULL, conv_gather_s8) : x[0];
            }
            conv_small_s8(p, x, n, filter, mode, out);
        }
        return;
    }
    const int32x4_t vlo = vdupq_n_s32(hk_max_i32(p->act_min, -128));
    const int32x4_t vhi = vdupq_n_s32(hk_min_i32(p->act_max, 127));
    const size_t x_step =
        (size_t)p->dilation_height * (size_t)p->input_width * (size_t)cin;
    for (int32_t i = 0; i < pixels; ++i, out += channels) {
        const int32_t iy0 = at.oy * p->stride_height - p->pad_top;
        const int32_t ix0 = at.ox * p->stride_width - p->pad_left;
        int32_t fy0, fy1, fx0, fx1;
        hk_window_taps(iy0, p->dilation_height, p->filter_height, p->input_height, &fy0, &fy1);
        hk_window_taps(ix0, 1, p->filter_width, p->input_width, &fx0, &fx1);
        const int32_t runs = fx1 > fx0 ? fy1 - fy0 : 0;
        const bool clipped = fy1 - fy0 != p->filter_height || fx1 - fx0 != p->filter_width;
        const int32_t len = (fx1 - fx0) * cin;
        const int8_t *x =
            input + (((size_t)at.b * (size_t)p->input_height +
                      (size_t)(iy0 + fy0 * p->dilation_height)) *
                         (size_t)p->input_width +
                     (size_t)(ix0 + fx0)) *
                        (size_t)cin;
        const int8_t *w = filter + (size_t)(fy0 * row + fx0 * cin);
        for (int32_t oc = 0; oc < channels; oc += 4, w += 4 * (size_t)taps) {
            const int32_t n = hk_min_i32(channels - oc, 4);
            /* Missing filters repeat the first and are not stored. */
            const int8_t *w1 = n > 1 ? w + taps : w;
            const int8_t *w2 = n > 2 ? w + 2 * taps : w;
            const int8_t *w3 = n > 3 ? w + 3 * taps : w;
            const mve_pred16_t real = vctp32q((uint32_t)n);
            int32x4_t acc;
            if (clipped) {
                /* offset_bias counts the offset of every tap; a clipped window adds its own:
                 * bias + dot + input_offset * (sum of the filter over the taps inside). */
                int32x4_t sums;
                acc = hk_conv_dots4_mve(x, x_step, runs, len, w, w1, w2, w3, row, &sums);
                acc = vmlaq_n_s32(acc, sums, p->input_offset);
                if (bias != NULL) {
                    acc = vaddq_s32(acc, vldrwq_z_s32(bias + oc, real));
                }
            } else {
                acc = hk_conv_dots4_mve(x, x_step, runs, len, w, w1, w2, w3, row, NULL);
                acc = vaddq_s32(acc, vldrwq_s32(p->offset_bias + oc));
            }
            const int32x4_t mult = vldrwq_z_s32(p->output_multiplier + oc, real);
            const int32x4_t shift = vldrwq_z_s32(p->output_shift + oc, real);
            acc = mode == HK_REQUANT_GENERAL ? hk_requant_mve(acc, mult, shift)
                                             : hk_requant_right_mve(acc, mult, shift);
            acc = vminq_s32(vmaxq_s32(vaddq_n_s32(acc, p->output_offset), vlo), vhi);
            vstrbq_p_s32(out + oc, acc, real);
        }
        conv_advance(p, &at);
    }
}

#endif /* HK_HAVE_MVE */
