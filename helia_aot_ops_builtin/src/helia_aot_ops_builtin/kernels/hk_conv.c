/*
 * helia-aot kernel library: CONV_2D (see hk_conv.h).
 */
#include "hk_conv.h"

#include "hk_requant.h"
#include "hk_simd.h"
#include "hk_window.h"

static bool conv_params_ok(const hk_conv_params_t *p)
{
    if (p == NULL || p->batches < 0 || p->input_height < 1 || p->input_width < 1 ||
        p->input_channels < 1 || p->filter_height < 1 || p->filter_width < 1 ||
        p->filter_input_channels < 1 || p->output_height < 0 || p->output_width < 0 ||
        p->output_channels < 1 || p->stride_height < 1 || p->stride_width < 1 ||
        p->dilation_height < 1 || p->dilation_width < 1) {
        return false;
    }
    if (p->input_channels % p->filter_input_channels != 0) {
        return false;
    }
    const int32_t groups = p->input_channels / p->filter_input_channels;
    return p->output_channels % groups == 0;
}

static bool conv_quant_params_ok(const hk_conv_params_t *p)
{
    return conv_params_ok(p) && p->output_multiplier != NULL && p->output_shift != NULL &&
           p->act_min <= p->act_max;
}

/*
 * The integer kernels differ only in element, bias and accumulator types and in the
 * requantization step, so one body serves all three. Integer sums are exact, so the loop order
 * is free; it keeps the reference's (taps, then input channels) anyway.
 */
#define CONV_QUANT_KERNEL(STORAGE, NAME, IN_T, BIAS_T, ACC_T, REQUANT, LO, HI)                 \
    STORAGE int32_t NAME(const hk_conv_params_t *params, const IN_T *input, const int8_t *filter,      \
                 const BIAS_T *bias, IN_T *output)                                             \
    {                                                                                          \
        if (!conv_quant_params_ok(params) || input == NULL || filter == NULL ||                \
            output == NULL) {                                                                  \
            return HK_STATUS_BAD_PARAM;                                                        \
        }                                                                                      \
        const hk_conv_params_t *p = params;                                                    \
        const int32_t fic = p->filter_input_channels;                                          \
        const int32_t per_group = p->output_channels / (p->input_channels / fic);              \
        const int32_t in_offset = p->input_offset;                                             \
        const int32_t act_min = hk_max_i32(p->act_min, LO);                                    \
        const int32_t act_max = hk_min_i32(p->act_max, HI);                                    \
        IN_T *out = output;                                                                    \
        for (int32_t b = 0; b < p->batches; ++b) {                                             \
            const IN_T *image = input + (size_t)b * (size_t)p->input_height *                  \
                                            (size_t)p->input_width * (size_t)p->input_channels;\
            for (int32_t oy = 0; oy < p->output_height; ++oy) {                                \
                const int32_t iy0 = oy * p->stride_height - p->pad_top;                        \
                int32_t fy0, fy1;                                                              \
                hk_window_taps(iy0, p->dilation_height, p->filter_height, p->input_height,     \
                               &fy0, &fy1);                                                    \
                for (int32_t ox = 0; ox < p->output_width; ++ox) {                             \
                    const int32_t ix0 = ox * p->stride_width - p->pad_left;                    \
                    int32_t fx0, fx1;                                                          \
                    hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width,    \
                                   &fx0, &fx1);                                                \
                    for (int32_t oc = 0; oc < p->output_channels; ++oc) {                      \
                        const int32_t channel0 = (oc / per_group) * fic;                       \
                        const int8_t *taps = filter + (size_t)oc * (size_t)p->filter_height *  \
                                                          (size_t)p->filter_width *            \
                                                          (size_t)fic;                         \
                        ACC_T acc = 0;                                                         \
                        for (int32_t fy = fy0; fy < fy1; ++fy) {                               \
                            const int32_t iy = iy0 + fy * p->dilation_height;                  \
                            for (int32_t fx = fx0; fx < fx1; ++fx) {                           \
                                const int32_t ix = ix0 + fx * p->dilation_width;               \
                                const IN_T *x = image + ((size_t)iy * (size_t)p->input_width + \
                                                         (size_t)ix) *                         \
                                                            (size_t)p->input_channels +        \
                                                channel0;                                      \
                                const int8_t *w =                                              \
                                    taps + ((size_t)fy * (size_t)p->filter_width +             \
                                            (size_t)fx) * (size_t)fic;                         \
                                for (int32_t ic = 0; ic < fic; ++ic) {                         \
                                    acc += (ACC_T)((int32_t)w[ic] *                            \
                                                   ((int32_t)x[ic] + in_offset));              \
                                }                                                              \
                            }                                                                  \
                        }                                                                      \
                        if (bias != NULL) {                                                    \
                            acc += bias[oc];                                                   \
                        }                                                                      \
                        int32_t value =                                                        \
                            REQUANT(acc, p->output_multiplier[oc], p->output_shift[oc]);       \
                        value += p->output_offset;                                             \
                        *out++ = (IN_T)hk_clamp_i32(value, act_min, act_max);                  \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        return HK_STATUS_OK;                                                                   \
    }

/* The int8 fallback for what the fast paths do not cover (grouped filters, no offset_bias). */
CONV_QUANT_KERNEL(HK_NOINLINE, conv_s8_generic, int8_t, int32_t, int32_t, hk_requant, -128, 127)

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int16 x int8, int64 bias). */
CONV_QUANT_KERNEL(, hk_conv_s16, int16_t, int64_t, int64_t, hk_mbqm_64, -32768, 32767)

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int16 x int8, int32 bias). */
CONV_QUANT_KERNEL(, hk_conv_s16_b32, int16_t, int32_t, int32_t, hk_requant, -32768, 32767)

/* ---- int8 fast paths ------------------------------------------------------------------------ */

/*
 * Scratch layout (every path sizes it the same; each uses what it needs):
 *   words   round16(4 * round4(taps))  two pixels' receptive fields widened to int16 (DSP)
 *   patch0  round16(taps)               a gathered receptive field
 *   patch1  round16(taps)               the second pixel's (DSP)
 *   acc0    4 * round4(channels)        a pixel's int32 accumulators, requantized as a row
 *   acc1    4 * round4(channels)        the second pixel's (DSP)
 */
typedef struct {
    uint8_t *words;
    int8_t *patch0, *patch1;
    int32_t *acc0, *acc1;
} conv_scratch_t;

static int32_t conv_round16(int32_t n) { return (n + 15) & ~15; }

static int32_t conv_scratch_layout(int32_t taps, int32_t channels, uint8_t *base,
                                   conv_scratch_t *layout)
{
    const int32_t words = conv_round16(4 * ((taps + 3) & ~3));
    const int32_t patch = conv_round16(taps);
    const int32_t acc = 4 * ((channels + 3) & ~3);
    if (layout != NULL) {
        layout->words = base;
        layout->patch0 = (int8_t *)(base + words);
        layout->patch1 = (int8_t *)(base + words + patch);
        layout->acc0 = (int32_t *)(void *)(base + words + 2 * patch);
        layout->acc1 = (int32_t *)(void *)(base + words + 2 * patch + acc);
    }
    return words + 2 * patch + 2 * acc;
}

int32_t hk_conv_s8_scratch_size(const hk_conv_params_t *params)
{
    if (params == NULL || params->filter_input_channels != params->input_channels) {
        return 0;
    }
    const int32_t taps = params->filter_height * params->filter_width * params->input_channels;
    return conv_scratch_layout(taps, params->output_channels, NULL, NULL);
}

/*
 * Gathers the receptive field of the output pixel whose window starts at (iy0, ix0) into
 * patch[filter_height * filter_width * channels], in the filter's (fy, fx, c) order. Taps
 * outside the image hold `fill`, the input zero point: with the offset folded into the bias,
 * each contributes filter * (zero_point + input_offset) = 0, as a skipped tap does.
 */
HK_NOINLINE void conv_gather_s8(const hk_conv_params_t *p, const int8_t *image, int32_t iy0,
                           int32_t ix0, int8_t fill, int8_t *patch)
{
    const int32_t channels = p->input_channels;
    const int32_t row = p->filter_width * channels;
    int32_t fx0, fx1;
    hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width, &fx0, &fx1);
#if HK_HAVE_MVE
    const int32_t first = fx0 * channels, end = fx1 * channels;
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
#endif
    for (int32_t fy = 0; fy < p->filter_height; ++fy, patch += row) {
        const int32_t iy = iy0 + fy * p->dilation_height;
        if (iy < 0 || iy >= p->input_height || fx0 >= fx1) {
            hk_fill_s8(patch, fill, row);
            continue;
        }
        const int8_t *line = image + (size_t)iy * (size_t)p->input_width * (size_t)channels;
        hk_fill_s8(patch, fill, fx0 * channels);
        if (p->dilation_width == 1) {
            hk_copy_s8(patch + fx0 * channels, line + (size_t)(ix0 + fx0) * (size_t)channels,
                       (fx1 - fx0) * channels);
        } else {
            for (int32_t fx = fx0; fx < fx1; ++fx) {
                hk_copy_s8(patch + fx * channels,
                           line + (size_t)(ix0 + fx * p->dilation_width) * (size_t)channels,
                           channels);
            }
        }
        hk_fill_s8(patch + fx1 * channels, fill, (p->filter_width - fx1) * channels);
    }
}

#if HK_HAVE_MVE

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
#define CONV_GROUPS_MVE(N)                                                                     \
    HK_NOINLINE void conv_groups##N##_mve(const int8_t *x, const int8_t *w, int32_t taps,      \
                                         int32_t groups, int32_t *acc)                         \
    {                                                                                          \
        const int8_t *w0 = w, *w1 = w + taps, *w2 = w1 + taps, *w3 = w2 + taps;                \
        const int32_t step = 4 * taps;                                                         \
        register int32_t a0 __asm__("r0");                                                     \
        register int32_t a1 __asm__("r2");                                                     \
        register int32_t a2 __asm__("r4");                                                     \
        register int32_t a3 __asm__("r6");                                                     \
        register int32_t count __asm__("lr") = groups;                                         \
        __asm__ volatile(CONV_X##N "dls lr, lr\n"                                              \
                         "1:\n\t" CONV_ROW##N("w0", "a0") CONV_ROW##N("w1", "a1")              \
                             CONV_ROW##N("w2", "a2") CONV_ROW##N("w3", "a3")                   \
                         "vmov q5[2], q5[0], %[a0], %[a2]\n\t"                                 \
                         "vmov q5[3], q5[1], %[a1], %[a3]\n\t"                                 \
                         "vldrw.32 q6, [%[acc]]\n\t"                                           \
                         "vadd.i32 q5, q5, q6\n\t"                                             \
                         "vstrw.32 q5, [%[acc]], #16\n\t"                                      \
                         "add %[w0], %[step]\n\t"                                              \
                         "add %[w1], %[step]\n\t"                                              \
                         "add %[w2], %[step]\n\t"                                              \
                         "add %[w3], %[step]\n\t"                                              \
                         "le lr, 1b\n"                                                         \
                         : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),     \
                           [acc] "+r"(acc), [w0] "+r"(w0), [w1] "+r"(w1), [w2] "+r"(w2),       \
                           [w3] "+r"(w3), "+r"(count)                                          \
                         : [x] "r"(x), [step] "r"(step)                                        \
                         : "q0", "q1", "q2", "q3", "q4", "q5", "q6", "memory");                \
    }
CONV_GROUPS_MVE(1)
CONV_GROUPS_MVE(2)
CONV_GROUPS_MVE(3)
CONV_GROUPS_MVE(4)
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

#elif HK_HAVE_DSP

/* Two pixels' receptive fields x0, x1 [0..taps) widened for SMLAD (hk_widen_s8x4) and
 * interleaved per four taps: x0's (0, 2) and (1, 3) lanes, then x1's. The last taps % 4 stay
 * bytes in x0 and x1. */
static void conv_widen2_s8(const int8_t *x0, const int8_t *x1, int32_t taps, uint8_t *words)
{
    for (int32_t i = 0; i + 4 <= taps; i += 4, words += 16) {
        uint32_t pair[2];
        hk_widen_s8x4(hk_load_u32(x0 + i), pair);
        hk_store_u32(words, pair[0]);
        hk_store_u32(words + 4, pair[1]);
        hk_widen_s8x4(hk_load_u32(x1 + i), pair);
        hk_store_u32(words + 8, pair[0]);
        hk_store_u32(words + 12, pair[1]);
    }
}

/*
 * acc0[c] = bias[c] + dot(x0, filter c) and acc1[c] likewise for x1, two filters and two
 * pixels at a time: each filter word is widened once for both pixels and each pixel word
 * (widened once for all filters by conv_widen2_s8) serves both filters, so four SMLADs share
 * two loads of each.
 */
HK_NOINLINE void conv_dots2_s8(const int8_t *x0, const int8_t *x1, int32_t taps,
                               const int8_t *filter, int32_t channels, const int32_t *bias,
                               uint8_t *words, int32_t *acc0, int32_t *acc1)
{
    const int32_t whole = taps & ~3;
    conv_widen2_s8(x0, x1, taps, words);
    int32_t oc = 0;
    for (; oc < channels; oc += 2) {
        /* An odd last filter is computed twice and stored once. */
        const int8_t *w0 = filter + (size_t)oc * (size_t)taps;
        const int8_t *w1 = oc + 1 < channels ? w0 + taps : w0;
        const int32_t b0 = bias[oc], b1 = oc + 1 < channels ? bias[oc + 1] : b0;
        int32_t a00 = b0, a10 = b0, a01 = b1, a11 = b1;
        const uint8_t *xw = words;
        for (int32_t k = 0; k < whole; k += 4, xw += 16) {
            const int32_t p02 = (int32_t)hk_load_u32(xw), p13 = (int32_t)hk_load_u32(xw + 4);
            const int32_t q02 = (int32_t)hk_load_u32(xw + 8), q13 = (int32_t)hk_load_u32(xw + 12);
            uint32_t w = hk_load_u32(w0 + k);
            int32_t even = hk_sxtb16_even(w), odd = hk_sxtb16_odd(w);
            a00 = __smlad(even, p02, a00);
            a00 = __smlad(odd, p13, a00);
            a10 = __smlad(even, q02, a10);
            a10 = __smlad(odd, q13, a10);
            w = hk_load_u32(w1 + k);
            even = hk_sxtb16_even(w);
            odd = hk_sxtb16_odd(w);
            a01 = __smlad(even, p02, a01);
            a01 = __smlad(odd, p13, a01);
            a11 = __smlad(even, q02, a11);
            a11 = __smlad(odd, q13, a11);
        }
        for (int32_t k = whole; k < taps; ++k) {
            a00 += x0[k] * w0[k];
            a10 += x1[k] * w0[k];
            a01 += x0[k] * w1[k];
            a11 += x1[k] * w1[k];
        }
        acc0[oc] = a00;
        acc1[oc] = a10;
        if (oc + 1 < channels) {
            acc0[oc + 1] = a01;
            acc1[oc + 1] = a11;
        }
    }
}

#else /* portable: four filters per pass over x */

/* acc[c] = bias[c] + dot(x[0..taps), filter c) for every filter. */
HK_NOINLINE void conv_dots_s8(const int8_t *x, int32_t taps, const int8_t *filter,
                              int32_t channels, const int32_t *bias, int32_t *acc)
{
    int32_t oc = 0;
    for (; oc + 4 <= channels; oc += 4) {
        const int8_t *w0 = filter + (size_t)oc * (size_t)taps;
        const int8_t *w1 = w0 + taps;
        const int8_t *w2 = w1 + taps;
        const int8_t *w3 = w2 + taps;
        int32_t a0 = bias[oc], a1 = bias[oc + 1], a2 = bias[oc + 2], a3 = bias[oc + 3];
        for (int32_t k = 0; k < taps; ++k) {
            const int32_t v = x[k];
            a0 += v * w0[k];
            a1 += v * w1[k];
            a2 += v * w2[k];
            a3 += v * w3[k];
        }
        acc[oc] = a0;
        acc[oc + 1] = a1;
        acc[oc + 2] = a2;
        acc[oc + 3] = a3;
    }
    for (; oc < channels; ++oc) {
        const int8_t *w = filter + (size_t)oc * (size_t)taps;
        int32_t a = bias[oc];
        for (int32_t k = 0; k < taps; ++k) {
            a += x[k] * w[k];
        }
        acc[oc] = a;
    }
}

#endif /* HK_HAVE_MVE / HK_HAVE_DSP */

/* An output pixel of the fast path, walked in output order. */
typedef struct {
    int32_t b, oy, ox;
} conv_pixel_t;

/* Steps to the next output pixel. */
static void conv_advance(const hk_conv_params_t *p, conv_pixel_t *at)
{
    if (++at->ox == p->output_width) {
        at->ox = 0;
        if (++at->oy == p->output_height) {
            at->oy = 0;
            ++at->b;
        }
    }
}

/* The pixel's receptive field: the input pixel itself for a `direct` (unpadded 1x1) filter,
 * else gathered into `patch`. Then steps to the next pixel. */
static const int8_t *conv_source(const hk_conv_params_t *p, const int8_t *input, bool direct,
                                 conv_pixel_t *at, int8_t *patch)
{
    const int32_t iy0 = at->oy * p->stride_height - p->pad_top;
    const int32_t ix0 = at->ox * p->stride_width - p->pad_left;
    const int8_t *image = input + (size_t)at->b * (size_t)p->input_height *
                                      (size_t)p->input_width * (size_t)p->input_channels;
    const int8_t *x = patch;
    if (direct) {
        x = image + ((size_t)iy0 * (size_t)p->input_width + (size_t)ix0) *
                        (size_t)p->input_channels;
    } else {
        conv_gather_s8(p, image, iy0, ix0, (int8_t)(-p->input_offset), patch);
    }
    conv_advance(p, at);
    return x;
}

/*
 * Ungrouped int8 convolution with the input offset folded into offset_bias: per output pixel
 * (two at a time on the DSP path) the receptive field, its dot product with every filter, and
 * the row of accumulators requantized.
 */
static void conv_s8_fast(const hk_conv_params_t *p, const int8_t *input, const int8_t *filter,
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
#if HK_HAVE_MVE
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
    if (direct && p->input_channels <= 16) {
        for (int32_t i = 0; i < pixels; i += 4, out += 4 * channels) {
            const int8_t *x[4];
            const int32_t n = hk_min_i32(pixels - i, 4);
            for (int32_t j = 0; j < 4; ++j) {
                x[j] = j < n ? conv_source(p, input, true, &at, NULL) : x[0];
            }
            conv_small_s8(p, x, n, filter, mode, out);
        }
        return;
    }
#endif
    for (int32_t i = 0; i < pixels; ++i, out += channels) {
#if HK_HAVE_DSP
        /* Two pixels at a time; a last odd one is computed twice and stored once. */
        const int8_t *x0 = conv_source(p, input, direct, &at, s.patch0);
        const int8_t *x1 = i + 1 < pixels ? conv_source(p, input, direct, &at, s.patch1) : x0;
        conv_dots2_s8(x0, x1, taps, filter, channels, p->offset_bias, s.words, s.acc0, s.acc1);
        if (i + 1 < pixels) {
            hk_requant_row_s8(s.acc0, p->output_multiplier, p->output_shift, channels,
                              p->output_offset, lo, hi, mode, out);
            ++i;
            out += channels;
        }
        const int32_t *acc = s.acc1;
#elif HK_HAVE_MVE
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
            const int8_t *x = conv_source(p, input, in_place, &at, s.patch0);
            if (!in_place) {
                conv_pad_patch(s.patch0, taps);
            }
            conv_dots_s8(x, 0, 1, taps, filter, channels, p->offset_bias, s.acc0);
        }
        const int32_t *acc = s.acc0;
#else
        const int8_t *x = conv_source(p, input, direct, &at, s.patch0);
        conv_dots_s8(x, taps, filter, channels, p->offset_bias, s.acc0);
        const int32_t *acc = s.acc0;
#endif
        hk_requant_row_s8(acc, p->output_multiplier, p->output_shift, channels,
                          p->output_offset, lo, hi, mode, out);
    }
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8). */
int32_t hk_conv_s8(const hk_conv_params_t *params, const int8_t *input, const int8_t *filter,
                   const int32_t *bias, int8_t *output)
{
    if (!conv_quant_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t need = hk_conv_s8_scratch_size(params);
    /* The input offset must make the zero point representable: -input_offset in [-128, 127]. */
    if (params->offset_bias != NULL && need > 0 && params->scratch != NULL &&
        params->scratch_size >= need && params->input_offset >= -127 &&
        params->input_offset <= 128) {
        conv_s8_fast(params, input, filter, output);
        return HK_STATUS_OK;
    }
    return conv_s8_generic(params, input, filter, bias, output);
}

/* Follows LiteRT reference_ops::Conv (float): each sum runs over taps then channels, as there. */
int32_t hk_conv_f32(const hk_conv_params_t *params, const float *input, const float *filter,
                    const float *bias, float *output)
{
    if (!conv_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_conv_params_t *p = params;
    const int32_t fic = p->filter_input_channels;
    const int32_t per_group = p->output_channels / (p->input_channels / fic);
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *image = input + (size_t)b * (size_t)p->input_height *
                                         (size_t)p->input_width * (size_t)p->input_channels;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t iy0 = oy * p->stride_height - p->pad_top;
            int32_t fy0, fy1;
            hk_window_taps(iy0, p->dilation_height, p->filter_height, p->input_height, &fy0,
                           &fy1);
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                const int32_t ix0 = ox * p->stride_width - p->pad_left;
                int32_t fx0, fx1;
                hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width, &fx0,
                               &fx1);
                for (int32_t oc = 0; oc < p->output_channels; ++oc) {
                    const int32_t channel0 = (oc / per_group) * fic;
                    const float *taps = filter + (size_t)oc * (size_t)p->filter_height *
                                                     (size_t)p->filter_width * (size_t)fic;
                    float total = 0.0f;
                    for (int32_t fy = fy0; fy < fy1; ++fy) {
                        const int32_t iy = iy0 + fy * p->dilation_height;
                        for (int32_t fx = fx0; fx < fx1; ++fx) {
                            const int32_t ix = ix0 + fx * p->dilation_width;
                            const float *x =
                                image +
                                ((size_t)iy * (size_t)p->input_width + (size_t)ix) *
                                    (size_t)p->input_channels +
                                channel0;
                            const float *w =
                                taps + ((size_t)fy * (size_t)p->filter_width + (size_t)fx) *
                                           (size_t)fic;
                            for (int32_t ic = 0; ic < fic; ++ic) {
                                total += x[ic] * w[ic];
                            }
                        }
                    }
                    /* The reference always adds a bias term (0 when absent), which turns a
                     * -0.0f sum into +0.0f; adding 0.0f here keeps that. */
                    const float bias_value = bias != NULL ? bias[oc] : 0.0f;
                    *out++ = hk_clamp_f32(total + bias_value, p->act_min_f32, p->act_max_f32);
                }
            }
        }
    }
    return HK_STATUS_OK;
}
