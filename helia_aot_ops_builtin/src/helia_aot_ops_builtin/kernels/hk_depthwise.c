/*
 * helia-aot kernel library: DEPTHWISE_CONV_2D (see hk_depthwise.h).
 */
#include "hk_depthwise.h"

#include "hk_depthwise_f32.h"
#include "hk_depthwise_s16.h"

#include "hk_isa.h"
#include "hk_requant.h"
#include "hk_simd.h"
#include "hk_window.h"

static bool depthwise_params_ok(const hk_depthwise_params_t *p)
{
    return p != NULL && p->batches >= 0 && p->input_height >= 1 && p->input_width >= 1 &&
           p->input_channels >= 1 && p->depth_multiplier >= 1 && p->filter_height >= 1 &&
           p->filter_width >= 1 && p->output_height >= 0 && p->output_width >= 0 &&
           p->stride_height >= 1 && p->stride_width >= 1 && p->dilation_height >= 1 &&
           p->dilation_width >= 1;
}

static bool depthwise_quant_params_ok(const hk_depthwise_params_t *p)
{
    return depthwise_params_ok(p) && p->output_multiplier != NULL &&
           p->output_shift != NULL && p->act_min <= p->act_max;
}

/* Which integer kernel depthwise_quant is: element, bias and accumulator types, requantization. */
typedef enum {
    DW_S8,  /* int8 input and output, int32 bias and accumulator, hk_requant */
    DW_S16, /* int16 input and output, int64 bias and accumulator, hk_mbqm_64 */
} dw_kind_t;

/*
 * The reference loop of the integer kernels, which differ only in types and requantization.
 * `kind` is a constant at every call and the body is always inlined, so each kernel keeps its
 * own loop with the other kind's code folded away.
 */
HK_INLINE int32_t depthwise_quant(const hk_depthwise_params_t *params, const void *input,
                                  const int8_t *filter, const void *bias, void *output,
                                  dw_kind_t kind)
{
    if (!depthwise_quant_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const bool wide = kind == DW_S16;
    const int8_t *input8 = (const int8_t *)input;
    const int16_t *input16 = (const int16_t *)input;
    const int32_t *bias32 = (const int32_t *)bias;
    const int64_t *bias64 = (const int64_t *)bias;
    int8_t *out8 = (int8_t *)output;
    int16_t *out16 = (int16_t *)output;
    const hk_depthwise_params_t *p = params;
    const int32_t in_c = p->input_channels;
    const int32_t dm = p->depth_multiplier;
    const size_t out_c = (size_t)in_c * (size_t)dm;
    const int32_t in_offset = p->input_offset;
    const int32_t act_min = hk_max_i32(p->act_min, wide ? -32768 : -128);
    const int32_t act_max = hk_min_i32(p->act_max, wide ? 32767 : 127);
    for (int32_t b = 0; b < p->batches; ++b) {
        const size_t image =
            (size_t)b * (size_t)p->input_height * (size_t)p->input_width * (size_t)in_c;
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
                for (int32_t ic = 0; ic < in_c; ++ic) {
                    for (int32_t m = 0; m < dm; ++m) {
                        const size_t oc = (size_t)ic * (size_t)dm + (size_t)m;
                        int32_t acc32 = 0;
                        int64_t acc64 = 0;
                        for (int32_t fy = fy0; fy < fy1; ++fy) {
                            const int32_t iy = iy0 + fy * p->dilation_height;
                            for (int32_t fx = fx0; fx < fx1; ++fx) {
                                const int32_t ix = ix0 + fx * p->dilation_width;
                                const size_t at =
                                    image + ((size_t)iy * (size_t)p->input_width + (size_t)ix) *
                                                (size_t)in_c +
                                    (size_t)ic;
                                const int32_t x = wide ? (int32_t)input16[at] : (int32_t)input8[at];
                                const int32_t w =
                                    filter[((size_t)fy * (size_t)p->filter_width + (size_t)fx) *
                                               out_c +
                                           oc];
                                if (wide) {
                                    acc64 += (int64_t)(w * (x + in_offset));
                                } else {
                                    acc32 += (int32_t)(w * (x + in_offset));
                                }
                            }
                        }
                        int32_t value;
                        if (wide) {
                            if (bias64 != NULL) {
                                acc64 += bias64[oc];
                            }
                            value = hk_mbqm_64(acc64, p->output_multiplier[oc], p->output_shift[oc]);
                        } else {
                            if (bias32 != NULL) {
                                acc32 += bias32[oc];
                            }
                            value = hk_requant(acc32, p->output_multiplier[oc], p->output_shift[oc]);
                        }
                        value += p->output_offset;
                        value = hk_clamp_i32(value, act_min, act_max);
                        if (wide) {
                            *out16++ = (int16_t)value;
                        } else {
                            *out8++ = (int8_t)value;
                        }
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* The int8 fallback for what the fast paths do not cover (depth multipliers above 1). */
static int32_t depthwise_s8_generic(const hk_depthwise_params_t *params, const int8_t *input,
                                    const int8_t *filter, const int32_t *bias, int8_t *output)
{
    return depthwise_quant(params, input, filter, bias, output, DW_S8);
}

/* Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int16 x int8, int64 bias). */
int32_t hk_depthwise_s16(const hk_depthwise_params_t *params, const int16_t *input,
                         const int8_t *filter, const int64_t *bias, int16_t *output)
{
#if HK_DW_S16_FAST
    if (depthwise_quant_params_ok(params) && input != NULL && filter != NULL && output != NULL &&
        params->depth_multiplier == 1 && params->input_offset == 0 &&
        params->filter_height * params->filter_width <= HK_DW_S16_MAX_TAPS) {
        hk_depthwise_s16_fast(params, input, filter, bias, output);
        return HK_STATUS_OK;
    }
#endif
    return depthwise_quant(params, input, filter, bias, output, DW_S16);
}

/* ---- int8, depth multiplier 1 ------------------------------------------------------------- */

/*
 * A window wholly inside the image starts from offset_bias (the bias plus input_offset times
 * the sum of the filter taps) and multiplies raw inputs, which saves an add per multiply. A
 * window cut by the image edge starts from the plain bias and adds input_offset to each input,
 * as the reference does, over the taps inside the image only.
 */

/* What is fixed for one kernel call. */
typedef struct {
    const hk_depthwise_params_t *p;
    const int32_t *bias;  /* may be NULL */
    size_t x_row, w_row;  /* from one filter row to the next: input and filter */
    int32_t x_col;        /* from one tap to the next in a row: input (the filter's: channels) */
    int32_t lo, hi;       /* the activation clamp within int8 */
    int32_t mode;         /* hk_requant_mode over the channels */
} dw_call_t;

/* One output pixel's taps inside the image, from the first one's input and filter bytes. */
typedef struct {
    const int8_t *x;
    const int8_t *w;
    int32_t rows, cols;
    bool whole; /* the window lies wholly inside the image */
} dw_taps_t;

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

/* Channels c..c+7, accumulated as even (0, 2, 4, 6) and odd lanes, requantized (every shift a
 * right shift: see dw_pixel_s8) and stored in channel order. Saturating to int16 before the
 * output offset and the clamp gives the same bytes as clamping the int32 results (both bounds
 * lie well inside int16) at half the work. */
HK_INLINE void dw_store8_ms_mve(const dw_call_t *k, int32_t c, int32x4_t even, int32x4_t odd,
                                int32x4x2_t m, int32x4x2_t s, int16x8_t lo, int16x8_t hi,
                                int8_t *out)
{
    even = hk_requant_right_mve(even, m.val[0], s.val[0]);
    odd = hk_requant_right_mve(odd, m.val[1], s.val[1]);
    /* Narrowing into `lo` overwrites every lane: it only saves materializing a vector. */
    int16x8_t y = vqmovntq_s32(vqmovnbq_s32(lo, even), odd);
    y = vqaddq_n_s16(y, (int16_t)k->p->output_offset);
    vstrbq_s16(out + c, vminq_s16(vmaxq_s16(y, lo), hi));
}

/* dw_store8_ms_mve with channel c's multipliers and shifts loaded here. */
HK_INLINE void dw_store8_mve(const dw_call_t *k, int32_t c, int32x4_t even, int32x4_t odd,
                             int16x8_t lo, int16x8_t hi, int8_t *out)
{
    dw_store8_ms_mve(k, c, even, odd, vld2q_s32(k->p->output_multiplier + c),
                     vld2q_s32(k->p->output_shift + c), lo, hi, out);
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
            dw_store8_mve(k, c, a.e0, a.o0, lo16, hi16, out);
            dw_store8_mve(k, c + 8, a.e1, a.o1, lo16, hi16, out);
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

/* DW_TAP8 for two output pixels at once (inputs x and y, one filter load for both): q4 / q5 =
 * the two pixels' inputs, q6 = w, q7 their products. */
#define DW_TAP8X2                                                                              \
    "vldrb.s16 q6, [%[w]]\n\t"                                                                 \
    "vldrb.s16 q4, [%[x]]\n\t"                                                                 \
    "vldrb.s16 q5, [%[y]]\n\t"                                                                 \
    "vmullb.s16 q7, q4, q6\n\t"                                                                \
    "vadd.i32 %q[e0], %q[e0], q7\n\t"                                                          \
    "vmullt.s16 q7, q4, q6\n\t"                                                                \
    "vadd.i32 %q[o0], %q[o0], q7\n\t"                                                          \
    "vmullb.s16 q7, q5, q6\n\t"                                                                \
    "vadd.i32 %q[e1], %q[e1], q7\n\t"                                                          \
    "vmullt.s16 q7, q5, q6\n\t"                                                                \
    "vadd.i32 %q[o1], %q[o1], q7\n\t"
#define DW_NEXT_COL2 "add %[x], %[x], %[c]\n\tadd %[y], %[y], %[c]\n\tadd %[w], %[w], %[c]\n\t"
#define DW_NEXT_ROW2 "add %[x], %[x], %[r]\n\tadd %[y], %[y], %[r]\n\tadd %[w], %[w], %[c]\n\t"

/* dw_taps3x3_mve for the pixels whose windows start at x and y: the filter loads once per tap
 * for both, 14 instructions per tap for two pixels instead of 16. */
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

HK_NOINLINE void dw_row3x3_s8(const dw_call_t *k, const int8_t *x, const int8_t *filter,
                              int32_t count, int8_t *out)
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
            dw_taps3x3_pair_mve(x + c, x + step + c, filter + c, channels, next_row, &even0,
                                &odd0, &even1, &odd1);
            /* One load of the channels' multipliers and shifts for both pixels. */
            const int32x4x2_t m = vld2q_s32(p->output_multiplier + c);
            const int32x4x2_t sh = vld2q_s32(p->output_shift + c);
            dw_store8_ms_mve(k, c, even0, odd0, m, sh, lo16, hi16, out);
            dw_store8_ms_mve(k, c, even1, odd1, m, sh, lo16, hi16, out + channels);
        }
    }
    for (; count > 0; --count, x += step, out += channels) {
        for (int32_t c = 0; c < channels; c += 8) {
            const int32x4x2_t b = vld2q_s32(p->offset_bias + c);
            int32x4_t even = b.val[0], odd = b.val[1];
            dw_taps3x3_mve(x + c, filter + c, channels, next_row, &even, &odd);
            dw_store8_mve(k, c, even, odd, lo16, hi16, out);
        }
    }
}

/* One tap of a window cut by the image edge: as DW_TAP8, the input offset added to x first. */
#define DW_TAP8_OFFSET                                                                         \
    "vldrb.s16 q6, [%[x]]\n\t"                                                                 \
    "vadd.i16 q6, q6, %[off]\n\t"                                                              \
    "vldrb.s16 q7, [%[w]]\n\t"                                                                 \
    "vmullb.s16 q5, q6, q7\n\t"                                                                \
    "vadd.i32 %q[e], %q[e], q5\n\t"                                                            \
    "vmullt.s16 q5, q6, q7\n\t"                                                                \
    "vadd.i32 %q[o], %q[o], q5\n\t"
#define DW_EDGE_COL "add %[x], %[x], %[c]\n\tadd %[w], %[w], %[c]\n\t"
#define DW_EDGE_ROW "add %[x], %[x], %[xr]\n\tadd %[w], %[w], %[wr]\n\t"
#define DW_EDGE_COLS2 DW_TAP8_OFFSET DW_EDGE_COL DW_TAP8_OFFSET
#define DW_EDGE_COLS3 DW_TAP8_OFFSET DW_EDGE_COL DW_TAP8_OFFSET DW_EDGE_COL DW_TAP8_OFFSET
#define DW_EDGE_OPERANDS                                                                       \
    : [e] "+w"(e), [o] "+w"(o), [x] "+l"(x), [w] "+l"(w)                                       \
    : [c] "r"(channels), [xr] "r"(x_row), [wr] "r"(w_row), [off] "r"(offset)                    \
    : "q5", "q6", "q7", "memory"

/* The taps of a 3x3 window cut by the image edge to rows x cols (2 or 3 each) for eight
 * channels, as the reference takes them: (input + offset) * filter over the taps inside the
 * image. x_row and w_row step from a row's last tap to the next row's first. */
HK_INLINE void dw_edge_taps_mve(int32_t rows, int32_t cols, const int8_t *x, const int8_t *w,
                                int32_t channels, int32_t x_row, int32_t w_row, int32_t offset,
                                int32x4_t *even, int32x4_t *odd)
{
    int32x4_t e = *even, o = *odd;
    if (rows == 2 && cols == 2) {
        __asm__ volatile(DW_EDGE_COLS2 DW_EDGE_ROW DW_EDGE_COLS2 DW_EDGE_OPERANDS);
    } else if (rows == 2) {
        __asm__ volatile(DW_EDGE_COLS3 DW_EDGE_ROW DW_EDGE_COLS3 DW_EDGE_OPERANDS);
    } else if (cols == 2) {
        __asm__ volatile(DW_EDGE_COLS2 DW_EDGE_ROW DW_EDGE_COLS2 DW_EDGE_ROW DW_EDGE_COLS2
                             DW_EDGE_OPERANDS);
    } else {
        __asm__ volatile(DW_EDGE_COLS3 DW_EDGE_ROW DW_EDGE_COLS3 DW_EDGE_ROW DW_EDGE_COLS3
                             DW_EDGE_OPERANDS);
    }
    *even = e;
    *odd = o;
}

/* Every channel of one 3x3 window cut by the image edge to 2 or 3 rows and columns, eight
 * channels at a time from the plain bias (dw_edge_taps_mve). */
HK_NOINLINE void dw_edge3x3_s8(const dw_call_t *k, const dw_taps_t *t, int8_t *out)
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
        dw_store8_mve(k, c, even, odd, lo16, hi16, out);
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
HK_NOINLINE void dw_row3x3_unfolded_s8(const dw_call_t *k, const int8_t *x, const int8_t *filter,
                                       int32_t count, int8_t *out)
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
            dw_taps3x3_pair_mve(xc, xc + step, filter + c, channels, next_row, &even0, &odd0,
                                &even1, &odd1);
            const int32x4x2_t m = vld2q_s32(p->output_multiplier + c);
            const int32x4x2_t sh = vld2q_s32(p->output_shift + c);
            dw_store8_ms_mve(k, c, even0, odd0, m, sh, lo16, hi16, o);
            dw_store8_ms_mve(k, c, even1, odd1, m, sh, lo16, hi16, o + channels);
        }
        if (n > 0) {
            int32x4_t even = b.val[0], odd = b.val[1];
            dw_taps3x3_mve(xc, filter + c, channels, next_row, &even, &odd);
            dw_store8_mve(k, c, even, odd, lo16, hi16, o);
        }
    }
}

/* Whether dw_row3x3_s8 (with offset_bias) or dw_row3x3_unfolded_s8 serves this call's whole
 * windows. */
static bool dw_row3x3_ok(const dw_call_t *k)
{
    const hk_depthwise_params_t *p = k->p;
    return p->filter_height == 3 && p->filter_width == 3 && p->dilation_height == 1 &&
           p->dilation_width == 1 && p->input_channels % 8 == 0 &&
           k->mode != HK_REQUANT_GENERAL;
}

#define DW_HAVE_ROW3X3 1

#else /* DSP and portable */

/* Channels are requantized as one row after their taps (a separate pass keeps the accumulating
 * loop's registers), this many at a time in a stack buffer. */
#define DW_ROW 64

/* acc[0..4) = start[c..c+4) (0 without start) plus (input + offset) * filter over the taps for
 * the four channels from c, in int16 lanes on the DSP path: SXTAB16 adds the offset while it
 * widens two input bytes, and SMLABB / SMLATT multiply-accumulate each lane on its own. */
HK_INLINE void dw_taps4(const dw_call_t *k, const dw_taps_t *t, int32_t c, const int32_t *start,
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
#if HK_HAVE_DSP
    const int32_t offsets = hk_dup_s16x2(offset);
#endif
    const int8_t *xr = t->x + c, *wr = t->w + c;
    for (int32_t r = t->rows; r > 0; --r, xr += k->x_row, wr += k->w_row) {
        const int8_t *x = xr, *w = wr;
        for (int32_t n = t->cols; n > 0; --n) {
#if HK_HAVE_DSP
            const uint32_t xb = hk_load_u32(x), wb = hk_load_u32(w);
            const int32_t x02 = hk_sxtab16_even(offsets, xb);
            const int32_t x13 = hk_sxtab16_odd(offsets, xb);
            const int32_t w02 = hk_sxtb16_even(wb), w13 = hk_sxtb16_odd(wb);
            a0 = __smlabb(x02, w02, a0);
            a2 = __smlatt(x02, w02, a2);
            a1 = __smlabb(x13, w13, a1);
            a3 = __smlatt(x13, w13, a3);
#else
            a0 += (x[0] + offset) * w[0];
            a1 += (x[1] + offset) * w[1];
            a2 += (x[2] + offset) * w[2];
            a3 += (x[3] + offset) * w[3];
#endif
            x += k->x_col;
            w += channels;
        }
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* Every channel of one output pixel, four at a time, then requantized a row at a time. A whole
 * window starts from offset_bias and multiplies raw inputs (offset 0). */
HK_NOINLINE void dw_pixel_s8(const dw_call_t *k, const dw_taps_t *t, int8_t *out)
{
    const hk_depthwise_params_t *p = k->p;
    const int32_t channels = p->input_channels;
    const int32_t *start = t->whole ? p->offset_bias : k->bias;
    const int32_t offset = t->whole ? 0 : p->input_offset;
    int32_t acc[DW_ROW];
    for (int32_t c0 = 0; c0 < channels; c0 += DW_ROW) {
        const int32_t end = hk_min_i32(channels, c0 + DW_ROW);
        int32_t c = c0;
        for (; c + 4 <= end; c += 4) {
            dw_taps4(k, t, c, start, offset, acc + (c - c0));
        }
        for (; c < end; ++c) {
            int32_t a = start != NULL ? start[c] : 0;
            const int8_t *xr = t->x + c, *wr = t->w + c;
            for (int32_t r = t->rows; r > 0; --r, xr += k->x_row, wr += k->w_row) {
                for (int32_t n = 0; n < t->cols; ++n) {
                    a += (xr[(size_t)n * (size_t)k->x_col] + offset) *
                         wr[(size_t)n * (size_t)channels];
                }
            }
            acc[c - c0] = a;
        }
        hk_requant_row_s8(acc, p->output_multiplier + c0, p->output_shift + c0, end - c0,
                          p->output_offset, k->lo, k->hi, k->mode, out + c0);
    }
}

#endif /* HK_HAVE_MVE / HK_HAVE_DSP */

#ifndef DW_HAVE_ROW3X3
#define DW_HAVE_ROW3X3 0
#endif
#if HK_HAVE_DSP

/* The DSP path with offset_bias takes windows of at most this many taps (a 5x5 filter). */
#define DW_MAX_TAPS 25

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
 * Depth multiplier 1 with offset_bias on the DSP extension: every window, cut by the image edge
 * or not, starts from offset_bias and multiplies raw inputs. A tap outside the image reads the
 * input zero point, whose product with the weight, -input_offset * w, cancels that tap's share
 * of the folded offset exactly (int32 sums wrap the same either way), so the result is the
 * reference's sum over the taps inside. Channels go DW_ROW at a time (the zero-point bytes and
 * the accumulator row on the stack), each row requantized after its taps.
 */
static void dw_s8_taps_dsp(const hk_depthwise_params_t *p, const int8_t *input,
                           const int8_t *filter, int8_t *output)
{
    const int32_t channels = p->input_channels;
    const int32_t ntaps = p->filter_height * p->filter_width;
    const size_t image_size =
        (size_t)p->input_height * (size_t)p->input_width * (size_t)channels;
    const int32_t lo = hk_max_i32(p->act_min, -128), hi = hk_min_i32(p->act_max, 127);
    const int32_t mode = hk_requant_mode(p->output_multiplier, p->output_shift, channels);
    int8_t zero_point[DW_ROW];
    hk_fill_s8(zero_point, (int8_t)(-p->input_offset), DW_ROW);
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
    const int32_t span_y = tap_y[ntaps - 1], span_x = tap_x[ntaps - 1];
    const int8_t *row[DW_MAX_TAPS]; /* each tap's input at the row's first channel */
    int8_t *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + (size_t)b * image_size;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t iy0 = oy * p->stride_height - p->pad_top;
            const bool rows_inside = iy0 >= 0 && iy0 + span_y < p->input_height;
            for (int32_t ox = 0; ox < p->output_width; ++ox, out += channels) {
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

#endif /* HK_HAVE_DSP */

/* Depth multiplier 1: output channel c reads input channel c only. */
static void dw_s8_fast(const hk_depthwise_params_t *p, const int8_t *input,
                       const int8_t *filter, const int32_t *bias, int8_t *output)
{
    const int32_t channels = p->input_channels;
    const size_t image_size =
        (size_t)p->input_height * (size_t)p->input_width * (size_t)channels;
    dw_call_t k;
    k.p = p;
    k.bias = bias;
    k.x_row = (size_t)p->dilation_height * (size_t)p->input_width * (size_t)channels;
    k.w_row = (size_t)p->filter_width * (size_t)channels;
    k.x_col = p->dilation_width * channels;
    k.lo = hk_max_i32(p->act_min, -128);
    k.hi = hk_min_i32(p->act_max, 127);
    k.mode = hk_requant_mode(p->output_multiplier, p->output_shift, channels);
#if DW_HAVE_ROW3X3
    const bool row3x3 = dw_row3x3_ok(&k);
#endif
    int8_t *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *image = input + (size_t)b * image_size;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t iy0 = oy * p->stride_height - p->pad_top;
            int32_t fy0, fy1;
            hk_window_taps(iy0, p->dilation_height, p->filter_height, p->input_height, &fy0,
                           &fy1);
#if DW_HAVE_ROW3X3
            int32_t ox_lo = p->output_width, ox_hi = p->output_width; /* whole windows */
            if (row3x3 && fy0 == 0 && fy1 == 3) {
                /* The whole windows of a row: ox * stride - pad_left in [0, width - 3]. */
                ox_lo = (p->pad_left + p->stride_width - 1) / p->stride_width;
                const int32_t last = p->input_width - 3 + p->pad_left;
                ox_hi = last < 0 ? 0 : hk_min_i32(p->output_width, last / p->stride_width + 1);
                if (ox_hi <= ox_lo) {
                    ox_lo = ox_hi = p->output_width;
                }
            }
#endif
            for (int32_t ox = 0; ox < p->output_width; ++ox, out += channels) {
                const int32_t ix0 = ox * p->stride_width - p->pad_left;
#if DW_HAVE_ROW3X3
                if (ox == ox_lo) {
                    const int8_t *x = image + ((size_t)iy0 * (size_t)p->input_width + (size_t)ix0) *
                                                  (size_t)channels;
                    if (p->offset_bias != NULL) {
                        dw_row3x3_s8(&k, x, filter, ox_hi - ox_lo, out);
                    } else {
                        dw_row3x3_unfolded_s8(&k, x, filter, ox_hi - ox_lo, out);
                    }
                    out += (size_t)(ox_hi - ox_lo - 1) * (size_t)channels;
                    ox = ox_hi - 1;
                    continue;
                }
#endif
                int32_t fx0, fx1;
                hk_window_taps(ix0, p->dilation_width, p->filter_width, p->input_width, &fx0,
                               &fx1);
                dw_taps_t t;
                t.rows = fy1 - fy0;
                t.cols = fx1 - fx0;
                /* Without offset_bias every window takes the per-input offset. */
                t.whole = t.rows == p->filter_height && t.cols == p->filter_width &&
                          p->offset_bias != NULL;
                t.w = filter + ((size_t)fy0 * (size_t)p->filter_width + (size_t)fx0) *
                                   (size_t)channels;
                t.x = image;
                if (t.rows > 0 && t.cols > 0) {
                    const int32_t iy = iy0 + fy0 * p->dilation_height;
                    const int32_t ix = ix0 + fx0 * p->dilation_width;
                    t.x = image + ((size_t)iy * (size_t)p->input_width + (size_t)ix) *
                                      (size_t)channels;
                } else {
                    t.rows = 0; /* no tap inside: the bias alone */
                }
#if DW_HAVE_ROW3X3
                if (row3x3 && !t.whole && t.rows >= 2 && t.cols >= 2) {
                    dw_edge3x3_s8(&k, &t, out);
                    continue;
                }
#endif
                dw_pixel_s8(&k, &t, out);
            }
        }
    }
}

/* The fold of hk_depthwise_s8_offset_bias: Sum((x + off) * w) + b = Sum(x * w) + (b + off *
 * Sum(w)) in wrapping int32, which the LiteRT reference's sums equal whenever no tap is cut. On
 * Helium four channels per step (a layer pays this once). */
int32_t hk_depthwise_s8_offset_bias(const hk_depthwise_params_t *params, const int8_t *filter,
                                    const int32_t *bias, int32_t *offset_bias)
{
    if (!depthwise_params_ok(params) || filter == NULL || offset_bias == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t channels = params->input_channels * params->depth_multiplier;
    const int32_t taps = params->filter_height * params->filter_width;
    const int32_t offset = params->input_offset;
    int32_t c = 0;
#if HK_HAVE_MVE
    for (; c + 4 <= channels; c += 4) {
        int32x4_t sum = vdupq_n_s32(0);
        const int8_t *w = filter + c;
        for (int32_t t = 0; t < taps; ++t, w += channels) {
            sum = vaddq_s32(sum, vldrbq_s32(w));
        }
        const int32x4_t start = bias != NULL ? vldrwq_s32(bias + c) : vdupq_n_s32(0);
        vstrwq_s32(offset_bias + c, vmlaq_n_s32(start, sum, offset));
    }
#endif
    for (; c < channels; ++c) {
        uint32_t sum = 0;
        for (int32_t t = 0; t < taps; ++t) {
            sum += (uint32_t)(int32_t)filter[(size_t)t * (size_t)channels + (size_t)c];
        }
        const uint32_t start = bias != NULL ? (uint32_t)bias[c] : 0u;
        offset_bias[c] = (int32_t)(start + sum * (uint32_t)offset);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_integer_ops::DepthwiseConvPerChannel (int8). */
int32_t hk_depthwise_s8(const hk_depthwise_params_t *params, const int8_t *input,
                        const int8_t *filter, const int32_t *bias, int8_t *output)
{
    if (!depthwise_quant_params_ok(params) || input == NULL || filter == NULL ||
        output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    /* The fast paths add the input offset in int16 lanes: it must be an int8 zero point's. */
    if (params->depth_multiplier == 1 && params->input_offset >= -127 &&
        params->input_offset <= 128) {
#if HK_HAVE_DSP
        if (params->offset_bias != NULL &&
            params->filter_height * params->filter_width <= DW_MAX_TAPS) {
            dw_s8_taps_dsp(params, input, filter, output);
            return HK_STATUS_OK;
        }
#endif
        dw_s8_fast(params, input, filter, bias, output);
        return HK_STATUS_OK;
    }
    return depthwise_s8_generic(params, input, filter, bias, output);
}

/* Follows LiteRT reference_ops::DepthwiseConv (float): each sum runs over the taps in order. */
int32_t hk_depthwise_f32(const hk_depthwise_params_t *params, const float *input,
                         const float *filter, const float *bias, float *output)
{
    if (!depthwise_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
#if HK_F32_MVE
    if (params->depth_multiplier == 1) {
        hk_depthwise_f32_mve(params, input, filter, bias, output);
        return HK_STATUS_OK;
    }
#endif
    const hk_depthwise_params_t *p = params;
    const int32_t in_c = p->input_channels;
    const int32_t dm = p->depth_multiplier;
    const size_t out_c = (size_t)in_c * (size_t)dm;
    float *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *image =
            input + (size_t)b * (size_t)p->input_height * (size_t)p->input_width * (size_t)in_c;
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
                for (int32_t ic = 0; ic < in_c; ++ic) {
                    for (int32_t m = 0; m < dm; ++m) {
                        const size_t oc = (size_t)ic * (size_t)dm + (size_t)m;
                        float total = 0.0f;
                        for (int32_t fy = fy0; fy < fy1; ++fy) {
                            const int32_t iy = iy0 + fy * p->dilation_height;
                            for (int32_t fx = fx0; fx < fx1; ++fx) {
                                const int32_t ix = ix0 + fx * p->dilation_width;
                                total += image[((size_t)iy * (size_t)p->input_width +
                                                (size_t)ix) * (size_t)in_c + (size_t)ic] *
                                         filter[((size_t)fy * (size_t)p->filter_width +
                                                 (size_t)fx) * out_c + oc];
                            }
                        }
                        /* Always adding the bias term (0 when absent) matches the reference's
                         * sign of zero. */
                        const float bias_value = bias != NULL ? bias[oc] : 0.0f;
                        *out++ = hk_clamp_f32(total + bias_value, p->act_min_f32,
                                              p->act_max_f32);
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}
