/*
 * helia-aot kernel library: the DSP-extension fast path of int8 CONV_2D (see hk_conv_paths.h).
 */
#include "hk_conv_paths.h"
#include "hk_conv_taps.h"

#if HK_HAVE_DSP

/* conv_gather_rows_s8 in a function of its own, so that conv_gather_s8's copy of a whole window
 * does not pay for its registers and stack frame. */
HK_NOINLINE void conv_gather_edge_s8(const hk_conv_params_t *p, const int8_t *image, int32_t iy0,
                                     int32_t ix0, int8_t fill, int8_t *patch)
{
    const int32_t c = p->input_channels;
    if (p->dilation_width != 1 || p->dilation_height != 1 || (c & 3) != 0) {
        conv_gather_rows_s8(p, image, iy0, ix0, fill, patch);
        return;
    }
    /* Whole words per pixel (the patch is word aligned, the rows a whole number of words):
     * the fill and the copies a word at a time, with no division. */
    const uint32_t word = 0x01010101u * (uint32_t)(uint8_t)fill;
    const int32_t fw = p->filter_width, words = fw * c / 4, pixel = c / 4;
    const int32_t fx0 = hk_min_i32(hk_max_i32(-ix0, 0), fw);
    const int32_t fx1 = hk_max_i32(hk_min_i32(p->input_width - ix0, fw), fx0);
    const size_t stride = (size_t)p->input_width * (size_t)c;
    uint32_t *dst = (uint32_t *)(void *)patch;
    for (int32_t fy = 0; fy < p->filter_height; ++fy, dst += words) {
        const int32_t iy = iy0 + fy;
        int32_t i = 0;
        if (iy >= 0 && iy < p->input_height && fx0 < fx1) {
            for (; i < fx0 * pixel; ++i) {
                dst[i] = word;
            }
            const int8_t *src = image + (size_t)iy * stride + (size_t)(ix0 + fx0) * (size_t)c;
            for (const int32_t end = fx1 * pixel; i < end; ++i, src += 4) {
                dst[i] = hk_load_u32(src);
            }
        }
        for (; i < words; ++i) {
            dst[i] = word;
        }
    }
}

/* The gather of this path, kept out of the pixel loop (HK_NOINLINE's reason). A window inside
 * the image without dilation is its filter_height rows of filter_width * channels bytes, copied
 * a word at a time with no bounds, fill or division; other windows take conv_gather_edge_s8. */
HK_NOINLINE void conv_gather_s8(const hk_conv_params_t *p, const int8_t *image, int32_t iy0,
                                int32_t ix0, int8_t fill, int8_t *patch)
{
    const int32_t fh = p->filter_height, row = p->filter_width * p->input_channels;
    if (p->dilation_width == 1 && p->dilation_height == 1 && iy0 >= 0 && ix0 >= 0 &&
        iy0 + fh <= p->input_height && ix0 + p->filter_width <= p->input_width) {
        const size_t stride = (size_t)p->input_width * (size_t)p->input_channels;
        const int8_t *src = image + (size_t)iy0 * stride + (size_t)ix0 * (size_t)p->input_channels;
        const int32_t words = row & ~3;
        for (int32_t fy = 0; fy < fh; ++fy, src += stride, patch += row) {
            int32_t i = 0;
            for (; i < words; i += 4) {
                hk_store_u32(patch + i, hk_load_u32(src + i));
            }
            if (row & 2) {
                patch[i] = src[i];
                patch[i + 1] = src[i + 1];
                i += 2;
            }
            if (row & 1) {
                patch[i] = src[i];
            }
        }
        return;
    }
    conv_gather_edge_s8(p, image, iy0, ix0, fill, patch);
}

/* Where a pixel's receptive field is read from: filter_height rows of filter_width *
 * input_channels bytes, `stride` bytes apart (in the image itself, or a gathered patch). */
typedef struct {
    const int8_t *x;
    size_t stride;
} conv_rows_t;

/* The receptive field of the pixel at `at` (then advanced): read in place, with no copy, when
 * the window lies inside the image without dilation or is the pixel itself of a `direct`
 * filter; other windows are gathered into `patch` (conv_gather_edge_s8), whose rows follow one
 * another. */
HK_INLINE conv_rows_t conv_rows_source(const hk_conv_params_t *p, const int8_t *input,
                                       bool direct, conv_pixel_t *at, int8_t *patch)
{
    const int32_t iy0 = at->oy * p->stride_height - p->pad_top;
    const int32_t ix0 = at->ox * p->stride_width - p->pad_left;
    const size_t stride = (size_t)p->input_width * (size_t)p->input_channels;
    const int8_t *image = input + (size_t)at->b * (size_t)p->input_height * stride;
    conv_rows_t r;
    if (direct || (p->dilation_width == 1 && p->dilation_height == 1 && iy0 >= 0 && ix0 >= 0 &&
                   iy0 + p->filter_height <= p->input_height &&
                   ix0 + p->filter_width <= p->input_width)) {
        r.x = image + (size_t)iy0 * stride + (size_t)ix0 * (size_t)p->input_channels;
        r.stride = stride;
    } else {
        conv_gather_edge_s8(p, image, iy0, ix0, (int8_t)(-p->input_offset), patch);
        r.x = patch;
        r.stride = (size_t)p->filter_width * (size_t)p->input_channels;
    }
    conv_advance(p, at);
    return r;
}

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

/* Two filters' accumulators for two pixels. */
typedef struct {
    int32_t a00, a10, a01, a11; /* filter 0 pixel 0, filter 0 pixel 1, filter 1 pixel 0, ... */
} conv_acc2x2_t;

/* Four taps of two filters (wa, wb) and two pixels (xw: four widened words, see
 * conv_widen2_s8); advances the three pointers. */
HK_INLINE void conv_step4_s8(conv_acc2x2_t *a, const int32_t **xw, const int8_t **wa,
                             const int8_t **wb)
{
    const int32_t *x = *xw;
    const int32_t p02 = x[0], p13 = x[1], q02 = x[2], q13 = x[3];
    uint32_t w = hk_load_u32(*wa);
    int32_t even = hk_sxtb16_even(w), odd = hk_sxtb16_odd(w);
    a->a00 = __smlad(even, p02, a->a00);
    a->a00 = __smlad(odd, p13, a->a00);
    a->a10 = __smlad(even, q02, a->a10);
    a->a10 = __smlad(odd, q13, a->a10);
    w = hk_load_u32(*wb);
    even = hk_sxtb16_even(w);
    odd = hk_sxtb16_odd(w);
    a->a01 = __smlad(even, p02, a->a01);
    a->a01 = __smlad(odd, p13, a->a01);
    a->a11 = __smlad(even, q02, a->a11);
    a->a11 = __smlad(odd, q13, a->a11);
    *xw = x + 4;
    *wa += 4;
    *wb += 4;
}

#if defined(__GNUC__) && defined(__OPTIMIZE__) && !defined(__clang__)
#define CONV_DSP_ASM 1
/* conv_step4_s8 in fifteen instructions: one LDM reads the four widened pixel words (five
 * cycles, against six for two LDRDs; scratch is word aligned) into r8 to r11, which each
 * block clobbers (GCC finds no allocation for the other operands with low registers fixed). */
#define CONV_DSP_STEP4_WITH(a00, a10, a01, a11, xw, wa, wb, w, e)                               \
    "ldmia " xw "!, {r8, r9, r10, r11}\n\t"                                                    \
    "ldr " w ", [" wa "], #4\n\t"                                                              \
    "sxtb16 " e ", " w "\n\t"                                                                  \
    "sxtb16 " w ", " w ", ror #8\n\t"                                                          \
    "smlad " a00 ", " e ", r8, " a00 "\n\t"                                                    \
    "smlad " a00 ", " w ", r9, " a00 "\n\t"                                                    \
    "smlad " a10 ", " e ", r10, " a10 "\n\t"                                                   \
    "smlad " a10 ", " w ", r11, " a10 "\n\t"                                                   \
    "ldr " w ", [" wb "], #4\n\t"                                                              \
    "sxtb16 " e ", " w "\n\t"                                                                  \
    "sxtb16 " w ", " w ", ror #8\n\t"                                                          \
    "smlad " a01 ", " e ", r8, " a01 "\n\t"                                                    \
    "smlad " a01 ", " w ", r9, " a01 "\n\t"                                                    \
    "smlad " a11 ", " e ", r10, " a11 "\n\t"                                                   \
    "smlad " a11 ", " w ", r11, " a11 "\n\t"
#define CONV_DSP_STEP4                                                                         \
    CONV_DSP_STEP4_WITH("%[a00]", "%[a10]", "%[a01]", "%[a11]", "%[xw]", "%[wa]", "%[wb]",     \
                        "%[w]", "%[e]")
#else
#define CONV_DSP_ASM 0
#endif

/*
 * acc0[c] = bias[c] + dot(x0, filter c) and acc1[c] likewise for x1, two filters and two
 * pixels at a time: each filter word is widened once for both pixels and each pixel word
 * (widened once for all filters by conv_widen2_s8) serves both filters, so four SMLADs share
 * two loads of each. Optimized GCC builds run sixteen taps per pass in assembly
 * (CONV_DSP_STEP4, fifteen instructions a step against the compiler's 20 to 22, which copies
 * accumulators between registers): nine operand registers beside r8-r11, so that a frame
 * pointer may keep r7, and the end pointer read from memory once per pass.
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
        conv_acc2x2_t a = {b0, b0, b1, b1};
        const int32_t *xw = (const int32_t *)(const void *)words;
        const int8_t *wa = w0, *wb = w1;
#if CONV_DSP_ASM
        if (whole & 4) {
            conv_step4_s8(&a, &xw, &wa, &wb);
        }
        int32_t w, e;
        if (whole & 8) {
            __asm__(CONV_DSP_STEP4 CONV_DSP_STEP4
                    : [a00] "+r"(a.a00), [a10] "+r"(a.a10), [a01] "+r"(a.a01),
                      [a11] "+r"(a.a11), [xw] "+r"(xw), [wa] "+r"(wa), [wb] "+r"(wb),
                      [w] "=&r"(w), [e] "=&r"(e)
                    :
                    : "r8", "r9", "r10", "r11", "memory");
        }
        if (whole >= 16) {
            /* Sixteen taps a pass: the end test (a load, a compare and a taken branch) once
             * per 64 multiply-accumulates. */
            const int8_t *const wa_end = w0 + whole;
            __asm__("1:\n\t" CONV_DSP_STEP4 CONV_DSP_STEP4 CONV_DSP_STEP4 CONV_DSP_STEP4
                    "ldr %[e], %[end]\n\t"
                    "cmp %[wa], %[e]\n\t"
                    "bne 1b"
                    : [a00] "+r"(a.a00), [a10] "+r"(a.a10), [a01] "+r"(a.a01),
                      [a11] "+r"(a.a11), [xw] "+r"(xw), [wa] "+r"(wa), [wb] "+r"(wb),
                      [w] "=&r"(w), [e] "=&r"(e)
                    : [end] "m"(wa_end)
                    : "r8", "r9", "r10", "r11", "cc", "memory");
        }
#else
        for (int32_t k = 0; k < whole; k += 4) {
            conv_step4_s8(&a, &xw, &wa, &wb);
        }
#endif
        int32_t a00 = a.a00, a10 = a.a10, a01 = a.a01, a11 = a.a11;
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

/* hk_requant_row_q30_dsp's value of one accumulator, for the filter whose multiplier is m and
 * whose shift's complement is ns; `clamp` (a constant at every call)
 * applies [lo, hi] after the saturation to int8, which alone gives the int8 limits. */
HK_INLINE int8_t conv_requant_q30(int32_t acc, int32_t m, int32_t ns, int32_t offset,
                                  bool clamp, int32_t lo, int32_t hi)
{
    const int32_t y = hk_doubling_high_q30(acc, m);
    const int32_t q = __qadd((y + (y >> 31)) >> ns, 1);
    const int32_t v = hk_ssat8_dsp(offset + (q >> 1));
    return (int8_t)(clamp ? hk_clamp_i32(v, lo, hi) : v);
}

/*
 * conv_dots2_s8 for a call whose every filter requantizes in the Q30 form (hk_requant.h): each
 * filter pair's four sums are requantized in registers as soon as they are complete and stored
 * to the two output pixels out0 and out1 (the same pixel for a last odd one), so no accumulator
 * row is written and read back and no second loop runs. With `tail` the last taps % 4 run in
 * plain C; `clamp` and `tail` are constants at every call.
 */
HK_INLINE void conv_dots2_q30_body(const int8_t *x0, const int8_t *x1, int32_t taps,
                                   const int8_t *filter, int32_t channels, const int32_t *bias,
                                   const int32_t *mult, const int32_t *shift,
                                   int32_t offset, int32_t lo, int32_t hi, uint8_t *words,
                                   int8_t *out0, int8_t *out1, bool clamp, bool tail)
{
    const int32_t whole = tail ? taps & ~3 : taps;
    conv_widen2_s8(x0, x1, taps, words);
    for (int32_t oc = 0; oc < channels; oc += 2) {
        /* An odd last filter is computed twice and stored once. */
        const bool pair = oc + 1 < channels;
        const int8_t *w0 = filter + (size_t)oc * (size_t)taps;
        const int8_t *w1 = pair ? w0 + taps : w0;
        const int32_t b0 = bias[oc], b1 = pair ? bias[oc + 1] : b0;
        conv_acc2x2_t a = {b0, b0, b1, b1};
        const int32_t *xw = (const int32_t *)(const void *)words;
        const int8_t *wa = w0, *wb = w1;
#if CONV_DSP_ASM
        if (whole & 4) {
            conv_step4_s8(&a, &xw, &wa, &wb);
        }
        int32_t w, e;
        if (whole & 8) {
            __asm__(CONV_DSP_STEP4 CONV_DSP_STEP4
                    : [a00] "+r"(a.a00), [a10] "+r"(a.a10), [a01] "+r"(a.a01),
                      [a11] "+r"(a.a11), [xw] "+r"(xw), [wa] "+r"(wa), [wb] "+r"(wb),
                      [w] "=&r"(w), [e] "=&r"(e)
                    :
                    : "r8", "r9", "r10", "r11", "memory");
        }
        if (whole >= 16) {
            /* Sixteen taps a pass: the end test once per 64 multiply-accumulates. */
            const int8_t *const wa_end = w0 + whole;
            __asm__("1:\n\t" CONV_DSP_STEP4 CONV_DSP_STEP4 CONV_DSP_STEP4 CONV_DSP_STEP4
                    "ldr %[e], %[end]\n\t"
                    "cmp %[wa], %[e]\n\t"
                    "bne 1b"
                    : [a00] "+r"(a.a00), [a10] "+r"(a.a10), [a01] "+r"(a.a01),
                      [a11] "+r"(a.a11), [xw] "+r"(xw), [wa] "+r"(wa), [wb] "+r"(wb),
                      [w] "=&r"(w), [e] "=&r"(e)
                    : [end] "m"(wa_end)
                    : "r8", "r9", "r10", "r11", "cc", "memory");
        }
#else
        for (int32_t k = 0; k < whole; k += 4) {
            conv_step4_s8(&a, &xw, &wa, &wb);
        }
#endif
        for (int32_t k = whole; tail && k < taps; ++k) {
            a.a00 += x0[k] * w0[k];
            a.a10 += x1[k] * w0[k];
            a.a01 += x0[k] * w1[k];
            a.a11 += x1[k] * w1[k];
        }
        const int32_t m0 = mult[oc], n0 = ~shift[oc];
        out0[oc] = conv_requant_q30(a.a00, m0, n0, offset, clamp, lo, hi);
        out1[oc] = conv_requant_q30(a.a10, m0, n0, offset, clamp, lo, hi);
        if (pair) {
            const int32_t m1 = mult[oc + 1], n1 = ~shift[oc + 1];
            out0[oc + 1] = conv_requant_q30(a.a01, m1, n1, offset, clamp, lo, hi);
            out1[oc + 1] = conv_requant_q30(a.a11, m1, n1, offset, clamp, lo, hi);
        }
    }
}

HK_NOINLINE void conv_dots2_q30_s8(const int8_t *x0, const int8_t *x1, int32_t taps,
                                   const int8_t *filter, int32_t channels, const int32_t *bias,
                                   const int32_t *mult, const int32_t *shift,
                                   int32_t offset, int32_t lo, int32_t hi, uint8_t *words,
                                   int8_t *out0, int8_t *out1)
{
    /* One copy per constant pair (clamp, tail): a tail loop or a clamp the call does not need
     * would cost the pair loop registers. */
    const bool clamp = lo > -128 || hi < 127, tail = (taps & 3) != 0;
    if (clamp && tail) {
        conv_dots2_q30_body(x0, x1, taps, filter, channels, bias, mult, shift, offset, lo,
                            hi, words, out0, out1, true, true);
    } else if (clamp) {
        conv_dots2_q30_body(x0, x1, taps, filter, channels, bias, mult, shift, offset, lo,
                            hi, words, out0, out1, true, false);
    } else if (tail) {
        conv_dots2_q30_body(x0, x1, taps, filter, channels, bias, mult, shift, offset, lo,
                            hi, words, out0, out1, false, true);
    } else {
        conv_dots2_q30_body(x0, x1, taps, filter, channels, bias, mult, shift, offset, lo,
                            hi, words, out0, out1, false, false);
    }
}

#if CONV_DSP_ASM
/*
 * conv_dots2_q30_s8 without a clamp for a whole number of filter pairs and taps a multiple of
 * eight, every filter pair in one assembly block: the per-pair work the compiler spreads over
 * stack reloads and branches (bias, the filter pointers, the end tests, the requantization
 * and the stores) is a fixed run of about fifty instructions. The loop state lives in this
 * struct on the stack, which the block addresses through sp; the requantization constants
 * come from `table` (conv_q30_table: each filter's multiplier doubled and shift inverted).
 */
typedef struct {
    const uint8_t *words_end;  /* the widened pixel words end */
    const uint8_t *words;      /* the widened pixel words (conv_widen2_s8) */
    const int8_t *filter;      /* the first filter of the first pair */
    const int32_t *bias;       /* advances by a pair */
    const int32_t *table;      /* advances by a pair: m0 * 2, ~s0, m1 * 2, ~s1 */
    int8_t *out0;              /* advances by a pair */
    int8_t *out0_end;          /* out0 after the last pair */
    int32_t out1_minus_out0;   /* bytes from the first pixel's outputs to the second's */
    int32_t taps;
    int32_t offset2;           /* 1 + 2 * the output offset (see CONV_Q30_PAIR_TAIL) */
} conv_q30_run_t;

/* One pair's sums from bias (ldrd r0/r2 from [r8]), then `steps`: the eight-tap prefix and/or
 * the sixteen-tap loop; then the requantization of r0..r3 and two halfword stores. */
#define CONV_Q30_PAIR_HEAD                                                                 \
    "0:\n\t"                                                                               \
    "ldr r8, %[bias]\n\t"                                                                  \
    "ldr r4, %[words]\n\t"                                                                 \
    "ldrd r0, r2, [r8], #8\n\t"                                                            \
    "str r8, %[bias]\n\t"                                                                  \
    "mov r1, r0\n\t"                                                                       \
    "mov r3, r2\n\t"
#define CONV_Q30_LOOP16                                                                        \
    "1:\n\t" CONV_Q30_STEP8 CONV_Q30_STEP8                                                 \
    "ldr lr, %[words_end]\n\t"                                                                 \
    "cmp r4, lr\n\t"                                                                           \
    "bne 1b\n\t"
/* Thirty-two taps a pass (the end test once per 128 multiply-accumulates), for a pair loop of
 * an even number of sixteen-tap runs; an odd number above one runs CONV_Q30_STEP16 first. */
#define CONV_Q30_STEP16 CONV_Q30_STEP8 CONV_Q30_STEP8
#define CONV_Q30_LOOP32                                                                        \
    "1:\n\t" CONV_Q30_STEP16 CONV_Q30_STEP16                                                 \
    "ldr lr, %[words_end]\n\t"                                                                 \
    "cmp r4, lr\n\t"                                                                           \
    "bne 1b\n\t"
/* Sixty-four taps a pass (the end test once per 256 multiply-accumulates) for the tap counts
 * of ResNet-like 3x3 layers: 16 x 4n taps (64 channels: 576), 16 + 64n (16 channels: 144) and
 * 32 + 64n (32 channels: 288), the prefix run before the loop. */
#define CONV_Q30_LOOP64                                                                        \
    "1:\n\t" CONV_Q30_STEP16 CONV_Q30_STEP16 CONV_Q30_STEP16 CONV_Q30_STEP16                  \
    "ldr lr, %[words_end]\n\t"                                                                 \
    "cmp r4, lr\n\t"                                                                           \
    "bne 1b\n\t"
/* The four sums requantized as conv_requant_q30, the output offset inside the saturating
 * add: QADD(x, 1 + 2 * offset) then SSAT of it halved (ASR #1) gives ssat8(offset +
 * (QADD(x, 1) >> 1)) for every x: without saturation (x + 1 + 2 * offset) >> 1 is
 * ((x + 1) >> 1) + offset, the even 2 * offset passing the halving; either add saturates only
 * for |x| above 2^31 - 2^9, where both results are the same int8 limit. */
#define CONV_Q30_PAIR_TAIL                                                                 \
    "ldr r8, %[table]\n\t"                                                                 \
    "ldr r7, %[offset2]\n\t"                                                                \
    "ldr r4, %[out0]\n\t"                                                                  \
    "ldr lr, %[delta]\n\t"                                                                 \
    "ldmia r8!, {r9, r10, r11, r12}\n\t"                                                   \
    "str r8, %[table]\n\t"                                                                 \
    "smmlar r0, r0, r9, r0\n\t"                                                            \
    "smmlar r1, r1, r9, r1\n\t"                                                            \
    "smmlar r2, r2, r11, r2\n\t"                                                           \
    "smmlar r3, r3, r11, r3\n\t"                                                           \
    "add r0, r0, r0, asr #31\n\t"                                                          \
    "add r1, r1, r1, asr #31\n\t"                                                          \
    "add r2, r2, r2, asr #31\n\t"                                                          \
    "add r3, r3, r3, asr #31\n\t"                                                          \
    "asr r0, r0, r10\n\t"                                                                  \
    "asr r1, r1, r10\n\t"                                                                  \
    "asr r2, r2, r12\n\t"                                                                  \
    "asr r3, r3, r12\n\t"                                                                  \
    "qadd r0, r0, r7\n\t"                                                                  \
    "qadd r1, r1, r7\n\t"                                                                  \
    "qadd r2, r2, r7\n\t"                                                                  \
    "qadd r3, r3, r7\n\t"                                                                  \
    "ssat r0, #8, r0, asr #1\n\t"                                                          \
    "ssat r1, #8, r1, asr #1\n\t"                                                          \
    "ssat r2, #8, r2, asr #1\n\t"                                                          \
    "ssat r3, #8, r3, asr #1\n\t"                                                          \
    "bfi r0, r2, #8, #8\n\t"                                                               \
    "bfi r1, r3, #8, #8\n\t"                                                               \
    "strh r1, [r4, lr]\n\t"                                                                \
    "strh r0, [r4], #2\n\t"                                                                \
    "str r4, %[out0]\n\t"                                                                  \
    "ldr r9, %[out0_end]\n\t"                                                              \
    "rsb r8, r5, r6, lsl #1\n\t"                                                           \
    "mov r5, r6\n\t"                                                                       \
    "mov r6, r8\n\t"                                                                       \
    "cmp r4, r9\n\t"                                                                       \
    "bne 0b\n\t"
#define CONV_Q30_OPERANDS                                                                      \
    : [bias] "+m"(r->bias), [table] "+m"(r->table), [out0] "+m"(r->out0)                     \
    : [words] "m"(r->words), [words_end] "m"(r->words_end), [taps] "m"(r->taps),             \
      [offset2] "m"(r->offset2), [delta] "m"(r->out1_minus_out0), [out0_end] "m"(r->out0_end),  \
      [filter] "m"(r->filter)                                                                  \
    : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "lr",  \
      "cc", "memory"
#define CONV_Q30_START                                                                         \
    "ldr r5, %[filter]\n\t"                                                                    \
    "ldr lr, %[taps]\n\t"                                                                      \
    "add r6, r5, lr\n\t"

/* CONV_DSP_STEP4 on the block's registers (sums r0..r3, pixel words r4, filters r5 and r6),
 * with r7 as a third temporary: both filter words are loaded back to back, so the second load
 * pipelines behind the first (one cycle on the M4 instead of two). */
#define CONV_Q30_STEP4                                                                         \
    "ldmia r4!, {r8, r9, r10, r11}\n\t"                                                        \
    "ldr r12, [r5], #4\n\t"                                                                   \
    "ldr lr, [r6], #4\n\t"                                                                    \
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
#define CONV_Q30_STEP8 CONV_Q30_STEP4 CONV_Q30_STEP4
/* The last three taps: their pixel words are widened with a zero fourth lane
 * (conv_widen_tail2_s8), and each filter's three bytes are read one by one (nothing past the
 * filter), the first and third packed into one word (PKHBT) and the second left sign-extended,
 * whose upper lane meets the zero lane. */
#define CONV_Q30_TAIL3_FILTER(wp, a, b)                                                        \
    "ldrsb lr, [" wp ", #2]\n\t"                                                               \
    "ldrsb r12, [" wp "]\n\t"                                                                  \
    "pkhbt lr, r12, lr, lsl #16\n\t"                                                           \
    "ldrsb r12, [" wp ", #1]\n\t"                                                              \
    "add " wp ", " wp ", #3\n\t"                                                               \
    "smlad " a ", lr, r8, " a "\n\t"                                                           \
    "smlad " a ", r12, r9, " a "\n\t"                                                          \
    "smlad " b ", lr, r10, " b "\n\t"                                                          \
    "smlad " b ", r12, r11, " b "\n\t"
#define CONV_Q30_TAIL3                                                                         \
    "ldmia r4!, {r8, r9, r10, r11}\n\t" CONV_Q30_TAIL3_FILTER("r5", "r0", "r1")                \
        CONV_Q30_TAIL3_FILTER("r6", "r2", "r3")
/* The last taps % 4 (one to three) of x0 and x1 widened as conv_widen2_s8 widens four, the
 * missing lanes zero, after conv_widen2_s8's words. */
static void conv_widen_tail2_s8(const int8_t *x0, const int8_t *x1, int32_t taps, uint8_t *words)
{
    const int32_t whole = taps & ~3;
    uint32_t b0 = 0u, b1 = 0u;
    for (int32_t k = whole; k < taps; ++k) {
        b0 |= (uint32_t)(uint8_t)x0[k] << (8 * (k - whole));
        b1 |= (uint32_t)(uint8_t)x1[k] << (8 * (k - whole));
    }
    uint32_t pair[2];
    words += 4 * whole;
    hk_widen_s8x4(b0, pair);
    hk_store_u32(words, pair[0]);
    hk_store_u32(words + 4, pair[1]);
    hk_widen_s8x4(b1, pair);
    hk_store_u32(words + 8, pair[0]);
    hk_store_u32(words + 12, pair[1]);
}

/* Four taps of both pixels widened and stored (the words of conv_widen2_s8): two loads, four
 * SXTB16s and one STM of r8-r11 (fixed registers, so that the STM's list is in order). */
#define CONV_WIDEN2_STEP                                                                       \
    "ldr r8, [%[pa]], #4\n\t"                                                                  \
    "ldr r10, [%[pb]], #4\n\t"                                                                 \
    "sxtb16 r9, r8, ror #8\n\t"                                                               \
    "sxtb16 r8, r8\n\t"                                                                       \
    "sxtb16 r11, r10, ror #8\n\t"                                                             \
    "sxtb16 r10, r10\n\t"                                                                     \
    "stmia %[w]!, {r8, r9, r10, r11}\n\t"

/* conv_widen2_s8 of two receptive fields read row by row where they lie (conv_rows_source):
 * `rows` rows of `row` bytes each, `row` a multiple of four, so every group of four taps lies in
 * one row; eight taps a pass where `row` is a multiple of eight (every 3x3 window of at least
 * eight channels, every pointwise one of at least eight). */
HK_NOINLINE void conv_widen2_rows_s8(const conv_rows_t *a, const conv_rows_t *b, int32_t rows,
                                     int32_t row, uint8_t *words)
{
    uint8_t *w = words;
    const int8_t *xa = a->x, *xb = b->x;
    const size_t sa = a->stride, sb = b->stride;
    for (int32_t fy = 0; fy < rows; ++fy, xa += sa, xb += sb) {
        const int8_t *pa = xa, *pb = xb;
        const int8_t *const end = xa + row;
        if ((row & 4) != 0) {
            __asm__(CONV_WIDEN2_STEP
                    : [pa] "+r"(pa), [pb] "+r"(pb), [w] "+r"(w)
                    :
                    : "r8", "r9", "r10", "r11", "memory");
        }
        if (pa != end) {
            __asm__("1:\n\t" CONV_WIDEN2_STEP CONV_WIDEN2_STEP
                    "cmp %[pa], %[end]\n\t"
                    "bne 1b"
                    : [pa] "+r"(pa), [pb] "+r"(pb), [w] "+r"(w)
                    : [end] "r"(end)
                    : "r8", "r9", "r10", "r11", "cc", "memory");
        }
    }
}

/* Built without a frame pointer whatever the build's flags: the block's tap step takes r7. */
HK_NOINLINE void conv_pairs_q30_asm(const conv_q30_run_t *run)
    __attribute__((optimize("omit-frame-pointer")));
HK_NOINLINE void conv_pairs_q30_asm(const conv_q30_run_t *run)
{
    /* A copy on the stack, so the block reads it through sp and every other register is its. */
    conv_q30_run_t copy = *run;
    conv_q30_run_t *r = &copy;
    /* The shapes of the tap loop: sixty-four taps a pass after 0, 16 or 32; thirty-two a pass
     * after 0, 8, 16 or 24; eight taps, sixteen a pass and three more (an RGB 3x3 window's 27);
     * eight then sixteen a pass; eight only; sixteen a pass. */
    const int32_t runs = r->taps >> 4; /* sixteen-tap runs after the eight-tap prefix */
    if ((r->taps & 15) == 0 && runs >= 4 && (runs & 3) != 3) {
        /* Sixty-four taps a pass after none, one or two sixteen-tap runs. */
        if ((runs & 3) == 0) {
            __asm__ volatile(CONV_Q30_START CONV_Q30_PAIR_HEAD CONV_Q30_LOOP64 CONV_Q30_PAIR_TAIL
                                 CONV_Q30_OPERANDS);
        } else if ((runs & 3) == 1) {
            __asm__ volatile(CONV_Q30_START CONV_Q30_PAIR_HEAD CONV_Q30_STEP16 CONV_Q30_LOOP64
                                 CONV_Q30_PAIR_TAIL CONV_Q30_OPERANDS);
        } else {
            __asm__ volatile(CONV_Q30_START CONV_Q30_PAIR_HEAD CONV_Q30_STEP16 CONV_Q30_STEP16
                                 CONV_Q30_LOOP64 CONV_Q30_PAIR_TAIL CONV_Q30_OPERANDS);
        }
    } else if ((r->taps & 3) == 0 && runs >= 2) {
        /* Thirty-two taps a pass: an eight-tap prefix or not, an odd run first or not. */
        if ((r->taps & 8) != 0 && (runs & 1) != 0) {
            __asm__ volatile(CONV_Q30_START CONV_Q30_PAIR_HEAD CONV_Q30_STEP8 CONV_Q30_STEP16
                                 CONV_Q30_LOOP32 CONV_Q30_PAIR_TAIL CONV_Q30_OPERANDS);
        } else if ((r->taps & 8) != 0) {
            __asm__ volatile(CONV_Q30_START CONV_Q30_PAIR_HEAD CONV_Q30_STEP8 CONV_Q30_LOOP32
                                 CONV_Q30_PAIR_TAIL CONV_Q30_OPERANDS);
        } else if ((runs & 1) != 0) {
            __asm__ volatile(CONV_Q30_START CONV_Q30_PAIR_HEAD CONV_Q30_STEP16 CONV_Q30_LOOP32
                                 CONV_Q30_PAIR_TAIL CONV_Q30_OPERANDS);
        } else {
            __asm__ volatile(CONV_Q30_START CONV_Q30_PAIR_HEAD CONV_Q30_LOOP32 CONV_Q30_PAIR_TAIL
                                 CONV_Q30_OPERANDS);
        }
    } else if ((r->taps & 3) != 0) {
        __asm__ volatile(CONV_Q30_START CONV_Q30_PAIR_HEAD CONV_Q30_STEP8 CONV_Q30_LOOP16
                             CONV_Q30_TAIL3 CONV_Q30_PAIR_TAIL CONV_Q30_OPERANDS);
    } else if ((r->taps & 8) != 0 && r->taps > 8) {
        __asm__ volatile(CONV_Q30_START CONV_Q30_PAIR_HEAD CONV_Q30_STEP8 CONV_Q30_LOOP16
                             CONV_Q30_PAIR_TAIL CONV_Q30_OPERANDS);
    } else if ((r->taps & 8) != 0) {
        __asm__ volatile(CONV_Q30_START CONV_Q30_PAIR_HEAD CONV_Q30_STEP8 CONV_Q30_PAIR_TAIL
                             CONV_Q30_OPERANDS);
    } else {
        __asm__ volatile(CONV_Q30_START CONV_Q30_PAIR_HEAD CONV_Q30_LOOP16 CONV_Q30_PAIR_TAIL
                             CONV_Q30_OPERANDS);
    }
}
#endif

#if HK_CONV_TAPS_ASM
/* The pixel pairs of conv_taps_pixels_s8 for T taps: each pair's fields widened, then every
 * filter pair in HK_CONV_TAPS_PAIRS's block. */
#define CONV_TAPS_PIXELS(T)                                                                  \
    for (int32_t i = 0; i < pixels; i += 2, out += 2 * channels) {                           \
        /* Two pixels at a time; a last odd one is computed twice and stored once. */        \
        const int8_t *x0 = conv_source(p, input, direct, &at, s->patch0, conv_gather_s8);   \
        const bool two = i + 1 < pixels;                                                     \
        const int8_t *x1 =                                                                   \
            two ? conv_source(p, input, direct, &at, s->patch1, conv_gather_s8) : x0;       \
        conv_widen2_s8(x0, x1, T, s->words);                                                 \
        st->out0 = out;                                                                      \
        st->out0_end = out + channels;                                                       \
        st->delta = two ? channels : 0;                                                      \
        HK_CONV_TAPS_PAIRS(T, st);                                                           \
    }

/*
 * hk_conv_s8_fast's Q30 loop without a clamp for a tap count hk_conv_taps.h has a block for:
 * the block's state is a local here, set once a call, so a pixel pair costs its fields'
 * gather and widening, four stores and the block (no call, no copy). Built without a frame
 * pointer whatever the build's flags: the block takes r7.
 */
HK_NOINLINE void conv_taps_pixels_s8(const hk_conv_params_t *p, const int8_t *input,
                                     const int8_t *filter, int8_t *output,
                                     const conv_scratch_t *s, const int32_t *table, bool direct)
    __attribute__((optimize("omit-frame-pointer")));
HK_NOINLINE void conv_taps_pixels_s8(const hk_conv_params_t *p, const int8_t *input,
                                     const int8_t *filter, int8_t *output,
                                     const conv_scratch_t *s, const int32_t *table, bool direct)
{
    const int32_t taps = p->filter_height * p->filter_width * p->input_channels;
    const int32_t channels = p->output_channels;
    const int32_t pixels = p->batches * p->output_height * p->output_width;
    hk_conv_taps_state_t state;
    hk_conv_taps_state_t *st = &state;
    state.words = s->words;
    state.words_end = s->words + 4 * taps;
    state.filter = filter;
    state.table = table;
    state.bias_from_table =
        (uint32_t)(uintptr_t)p->offset_bias - ((uint32_t)(uintptr_t)table >> 1);
    state.round = 1 + 2 * p->output_offset;
    conv_pixel_t at = {0, 0, 0};
    int8_t *out = output;
    switch (taps) {
    case 8:
        CONV_TAPS_PIXELS(8)
        break;
    case 16:
        CONV_TAPS_PIXELS(16)
        break;
    case 32:
        CONV_TAPS_PIXELS(32)
        break;
    case 40:
        CONV_TAPS_PIXELS(40)
        break;
    case 64:
        CONV_TAPS_PIXELS(64)
        break;
    case 128:
        CONV_TAPS_PIXELS(128)
        break;
    default:
        CONV_TAPS_PIXELS(256)
        break;
    }
}
#endif

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
#if CONV_DSP_ASM
    if (mode == HK_REQUANT_Q30 && lo == -128 && hi == 127 && (channels & 1) == 0 &&
        ((taps & 7) == 0 || ((taps & 15) == 11 && taps > 16))) {
        /* Each filter's doubled multiplier and inverted shift, once per call, in the
         * accumulator rows this loop does not use (two words per filter). */
        int32_t *table = s.acc0;
        for (int32_t c = 0; c < channels; ++c) {
            table[2 * c] = (int32_t)((uint32_t)p->output_multiplier[c] << 1);
            table[2 * c + 1] = ~p->output_shift[c];
        }
#if HK_CONV_TAPS_ASM
        if (hk_conv_taps_known(taps)) {
            /* A tap count with a loop of its own (hk_conv_taps.h). */
            conv_taps_pixels_s8(p, input, filter, output, &s, table, direct);
            return;
        }
#endif
        conv_q30_run_t run;
        run.words = s.words;
        run.words_end = s.words + 4 * (taps & ~3); /* the sixteen-tap loop's end */
        run.filter = filter;
        run.taps = taps;
        run.offset2 = 1 + 2 * p->output_offset;
        const int32_t row = p->filter_width * p->input_channels;
        if ((row & 3) == 0) {
            /* Whole words per window row: windows inside the image are widened where they
             * lie, with no gather; the others from their patch. */
            for (int32_t i = 0; i < pixels; i += 2, out += 2 * channels) {
                /* Two pixels at a time; a last odd one is computed twice and stored once. */
                const conv_rows_t x0 = conv_rows_source(p, input, direct, &at, s.patch0);
                const bool two = i + 1 < pixels;
                const conv_rows_t x1 = two ? conv_rows_source(p, input, direct, &at, s.patch1) : x0;
                conv_widen2_rows_s8(&x0, &x1, p->filter_height, row, s.words);
                run.bias = p->offset_bias;
                run.table = table;
                run.out0 = out;
                run.out0_end = out + channels;
                run.out1_minus_out0 = two ? channels : 0;
                conv_pairs_q30_asm(&run);
            }
            return;
        }
        for (int32_t i = 0; i < pixels; i += 2, out += 2 * channels) {
            /* Two pixels at a time; a last odd one is computed twice and stored once. */
            const int8_t *x0 = conv_source(p, input, direct, &at, s.patch0, conv_gather_s8);
            const bool two = i + 1 < pixels;
            const int8_t *x1 =
                two ? conv_source(p, input, direct, &at, s.patch1, conv_gather_s8) : x0;
            conv_widen2_s8(x0, x1, taps, s.words);
            if ((taps & 3) != 0) {
                conv_widen_tail2_s8(x0, x1, taps, s.words);
            }
            run.bias = p->offset_bias;
            run.table = table;
            run.out0 = out;
            run.out0_end = out + channels;
            run.out1_minus_out0 = two ? channels : 0;
            conv_pairs_q30_asm(&run);
        }
        return;
    }
#endif
    if (mode == HK_REQUANT_Q30) {
        for (int32_t i = 0; i < pixels; i += 2, out += 2 * channels) {
            /* Two pixels at a time; a last odd one is computed twice and stored once. */
            const int8_t *x0 = conv_source(p, input, direct, &at, s.patch0, conv_gather_s8);
            const bool two = i + 1 < pixels;
            const int8_t *x1 =
                two ? conv_source(p, input, direct, &at, s.patch1, conv_gather_s8) : x0;
            conv_dots2_q30_s8(x0, x1, taps, filter, channels, p->offset_bias,
                              p->output_multiplier, p->output_shift, p->output_offset, lo, hi,
                              s.words, out,
                              two ? out + channels : out);
        }
        return;
    }
    for (int32_t i = 0; i < pixels; ++i, out += channels) {
        /* Two pixels at a time; a last odd one is computed twice and stored once. */
        const int8_t *x0 = conv_source(p, input, direct, &at, s.patch0, conv_gather_s8);
        const int8_t *x1 = i + 1 < pixels ? conv_source(p, input, direct, &at, s.patch1, conv_gather_s8) : x0;
        conv_dots2_s8(x0, x1, taps, filter, channels, p->offset_bias, s.words, s.acc0, s.acc1);
        if (i + 1 < pixels) {
            hk_requant_row_s8(s.acc0, p->output_multiplier, p->output_shift, channels,
                              p->output_offset, lo, hi, mode, out);
            ++i;
            out += channels;
        }
        const int32_t *acc = s.acc1;
        hk_requant_row_s8(acc, p->output_multiplier, p->output_shift, channels,
                          p->output_offset, lo, hi, mode, out);
    }
}

#endif /* HK_HAVE_DSP */
