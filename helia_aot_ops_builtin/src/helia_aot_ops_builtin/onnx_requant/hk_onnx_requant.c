/*
 * helia-aot kernel library: the onnxruntime-requantization kernels (see hk_onnx_requant.h).
 *
 * The portable reference: every fast path (hk_onnx_requant_paths.h) computes the same int32
 * accumulators and requantizes them with the same float32 operations, so all give these bytes.
 * ADD, SUB and MUL quantize by the output scale as QuantizeLinear divides by it, from a
 * multiply by its reciprocal wherever that provably gives the division's integer
 * (hk_onnx_quantize_by), four a vector on Helium.
 */
#include "hk_fc_dot.h"
#include "hk_onnx_requant_paths.h"
#include "hk_simd.h"
#include "hk_window.h"

#if defined(__GNUC__) && !defined(__clang__)
/* ADD, SUB and MUL compute a * b + c in float32 with two roundings, as onnxruntime does: no FMA. */
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Requantize one output pixel's accumulators (bias already added) into out[0..n). */
static void onnx_requant_row(const int32_t *acc, const float *multiplier, int32_t n,
                             int32_t zero_point, int32_t lo, int32_t hi, int8_t *out)
{
    int32_t i = 0;
#if HK_ONNX_MVE_F
    hk_onnx_requant_row_mve(acc, multiplier, n, zero_point, lo, hi, out);
    i = n;
#endif
    for (; i < n; ++i) {
        out[i] = hk_onnx_requant_s8(acc[i], multiplier[i], zero_point, lo, hi);
    }
}

int32_t hk_onnx_dot_s8(const int8_t *x, const int8_t *w, int32_t n, int32_t x_offset)
{
#if HK_HAVE_MVE || HK_HAVE_DSP
    return hk_onnx_dot_s8_fast(x, w, n, x_offset);
#else
    int32_t acc = 0;
    for (int32_t i = 0; i < n; ++i) {
        acc += ((int32_t)x[i] + x_offset) * (int32_t)w[i];
    }
    return acc;
#endif
}

#define HK_ONNX_ROW 64 /* accumulators requantized per batch (a stack array), a multiple of 8 */

int32_t hk_onnx_conv_patch_size(const hk_onnx_conv_params_t *p)
{
    /* Every window one pixel inside the image (a padded bottom or right edge would not be). */
    const bool in_place = p->filter_height == 1 && p->filter_width == 1 && p->pad_top == 0 &&
                          p->pad_left == 0 && (p->output_height - 1) * p->stride_height < p->input_height &&
                          (p->output_width - 1) * p->stride_width < p->input_width;
    return in_place ? 0 : p->filter_height * p->filter_width * p->input_channels;
}

/* The window whose tap (0, 0) lies at input (iy0, ix0) of `image`, in the filter's (fy, fx, c)
 * order, into patch; taps outside the image hold `fill` (the input zero point). */
static void onnx_gather(const hk_onnx_conv_params_t *p, const int8_t *image, int32_t iy0,
                        int32_t ix0, int8_t fill, int8_t *patch)
{
    const int32_t ic = p->input_channels, row = p->filter_width * ic;
    int32_t fy0, fy1, fx0, fx1;
    hk_onnx_window(p, iy0, ix0, &fy0, &fy1, &fx0, &fx1);
    if (fy0 == 0 && fy1 == p->filter_height && fx0 == 0 && fx1 == p->filter_width && p->dilation_width == 1) {
        /* Inside the image (most windows): one run of bytes a filter row, nothing to fill. */
        const size_t step = (size_t)p->dilation_height * (size_t)p->input_width * (size_t)ic;
        const int8_t *line = image + ((size_t)iy0 * (size_t)p->input_width + (size_t)ix0) * (size_t)ic;
        for (int32_t fy = 0; fy < p->filter_height; ++fy, patch += row, line += step) {
            hk_copy_s8(patch, line, row);
        }
        return;
    }
    for (int32_t fy = 0; fy < p->filter_height; ++fy, patch += row) {
        if (fy < fy0 || fy >= fy1 || fx0 >= fx1) {
            hk_fill_s8(patch, fill, row);
            continue;
        }
        const int8_t *line = image + (size_t)(iy0 + fy * p->dilation_height) * (size_t)p->input_width * (size_t)ic;
        hk_fill_s8(patch, fill, fx0 * ic);
        if (p->dilation_width == 1) {
            hk_copy_s8(patch + fx0 * ic, line + (size_t)(ix0 + fx0) * (size_t)ic, (fx1 - fx0) * ic);
        } else {
            for (int32_t fx = fx0; fx < fx1; ++fx) {
                hk_copy_s8(patch + fx * ic, line + (size_t)(ix0 + fx * p->dilation_width) * (size_t)ic, ic);
            }
        }
        hk_fill_s8(patch + fx1 * ic, fill, row - fx1 * ic);
    }
}

/* The `units` outputs of one window x (depth raw bytes): offset_bias plus its dot product with
 * each packed filter row (hk_fc_dot.h: eight units a pass on Helium, then whole groups of four,
 * then the row-major rest), each pass requantized as soon as its sums are done. */
static void onnx_units(const hk_onnx_conv_params_t *p, const int8_t *x, const int8_t *packed,
                       int32_t depth, const int32_t *offset_bias, int8_t *out)
{
    const int32_t units = p->output_channels, grouped = units & ~(HK_FC_PACK_ROWS - 1);
    const size_t group = hk_fc_packed_group_size(depth);
    /* Locals, not p's fields: the output bytes stored in the loops could alias them. */
    const float *const multiplier = p->multiplier;
    const int32_t zero_point = p->output_offset, lo = p->act_min, hi = p->act_max;
    const int8_t *w = packed;
    uint32_t acc[8];
    int32_t u = 0;
#if HK_HAVE_MVE
    for (; u + 8 <= grouped; u += 8, w += 2 * group) {
        memcpy(acc, offset_bias + u, sizeof acc);
        hk_fc_dot8_packed_s8(x, w, depth, acc);
#if HK_ONNX_MVE_F
        hk_onnx_requant_quads_mve((const int32_t *)acc, multiplier + u, 2, zero_point, lo, hi, out + u);
#else
        onnx_requant_row((const int32_t *)acc, multiplier + u, 8, zero_point, lo, hi, out + u);
#endif
    }
#endif
    for (; u < grouped; u += 4, w += group) {
        memcpy(acc, offset_bias + u, 4 * sizeof acc[0]);
        hk_fc_dot4_packed_s8(x, w, depth, acc);
#if HK_ONNX_MVE_F
        hk_onnx_requant_quads_mve((const int32_t *)acc, multiplier + u, 1, zero_point, lo, hi, out + u);
#else
        onnx_requant_row((const int32_t *)acc, multiplier + u, 4, zero_point, lo, hi, out + u);
#endif
    }
    for (; u < units; ++u, w += depth) {
        acc[0] = hk_fc_dot1_s8(x, w, depth, (uint32_t)offset_bias[u]);
        onnx_requant_row((const int32_t *)acc, multiplier + u, 1, zero_point, lo, hi, out + u);
    }
}

/* Where the next gathered byte of a window comes from: tap (fy, fx), channel c. */
typedef struct {
    int32_t fy, fx, c;
} onnx_tap_cursor_t;

/* The next n bytes of the window whose tap (0, 0) lies at input (iy0, ix0), in the filter's
 * (fy, fx, c) order from *at on, into chunk, advancing *at: a run of channels of one tap at a
 * time, copied from the image or `fill` where the tap lies outside it. */
static void onnx_gather_run(const hk_onnx_conv_params_t *p, const int8_t *image, int32_t iy0,
                            int32_t ix0, int8_t fill, onnx_tap_cursor_t *at, int32_t n, int8_t *chunk)
{
    const int32_t ic = p->input_channels;
    while (n > 0) {
        const int32_t take = hk_min_i32(ic - at->c, n);
        const int32_t iy = iy0 + at->fy * p->dilation_height, ix = ix0 + at->fx * p->dilation_width;
        if (iy >= 0 && iy < p->input_height && ix >= 0 && ix < p->input_width) {
            hk_copy_s8(chunk, image + ((size_t)iy * (size_t)p->input_width + (size_t)ix) * (size_t)ic + (size_t)at->c,
                       take);
        } else {
            hk_fill_s8(chunk, fill, take);
        }
        chunk += take;
        n -= take;
        at->c += take;
        if (at->c == ic) {
            at->c = 0;
            if (++at->fx == p->filter_width) {
                at->fx = 0;
                ++at->fy;
            }
        }
    }
}

/* onnx_units without a patch buffer, for the pixels that write the output's last bytes: the window is gathered one HK_FC_PACK_DEPTH chunk at a time into a few bytes of stack, each
 * chunk multiplied into up to HK_ONNX_ROW accumulators (a group of four units' weights for one
 * chunk is HK_FC_PACK_ROWS * HK_FC_PACK_DEPTH bytes at chunk * that; the row-major rest at
 * chunk * HK_FC_PACK_DEPTH), then requantized. The sums are the patch path's integers. */
static void onnx_units_chunked(const hk_onnx_conv_params_t *p, const int8_t *image, int32_t iy0,
                               int32_t ix0, int8_t fill, const int8_t *packed, int32_t depth,
                               const int32_t *offset_bias, int8_t *out)
{
    const int32_t units = p->output_channels, grouped = units & ~(HK_FC_PACK_ROWS - 1);
    const size_t group = hk_fc_packed_group_size(depth);
    const int8_t *rest = packed + (size_t)(grouped / HK_FC_PACK_ROWS) * group;
    uint32_t words[HK_FC_PACK_DEPTH / 4];
    int8_t *chunk = (int8_t *)words;
    uint32_t acc[HK_ONNX_ROW];
    for (int32_t u0 = 0; u0 < units; u0 += HK_ONNX_ROW) {
        const int32_t n = hk_min_i32(HK_ONNX_ROW, units - u0), g1 = hk_min_i32(u0 + n, grouped);
        memcpy(acc, offset_bias + u0, (size_t)n * sizeof acc[0]);
        onnx_tap_cursor_t at = {0, 0, 0};
        for (int32_t d0 = 0; d0 < depth; d0 += HK_FC_PACK_DEPTH) {
            const int32_t len = hk_min_i32(HK_FC_PACK_DEPTH, depth - d0);
            memset(words, 0, sizeof words); /* past the depth: packed weights there are zero */
            onnx_gather_run(p, image, iy0, ix0, fill, &at, len, chunk);
            const size_t k = (size_t)(d0 / HK_FC_PACK_DEPTH);
            for (int32_t u = u0; u < g1; u += HK_FC_PACK_ROWS) {
                const int8_t *w = packed + (size_t)(u / HK_FC_PACK_ROWS) * group +
                                  k * (size_t)(HK_FC_PACK_ROWS * HK_FC_PACK_DEPTH);
                hk_fc_dot4_packed_s8(chunk, w, HK_FC_PACK_DEPTH, acc + (u - u0));
            }
            for (int32_t u = hk_max_i32(u0, grouped); u < u0 + n; ++u) {
                acc[u - u0] = hk_fc_dot1_s8(chunk, rest + (size_t)(u - grouped) * (size_t)depth + (size_t)d0,
                                            len, acc[u - u0]);
            }
        }
        onnx_requant_row((const int32_t *)acc, p->multiplier + u0, n, p->output_offset, p->act_min,
                         p->act_max, out + u0);
    }
}

int32_t hk_onnx_conv_packed_s8(const hk_onnx_conv_params_t *p, const int8_t *input,
                               const int8_t *packed, const int32_t *offset_bias, int8_t *patch,
                               int8_t *output)
{
    const int32_t ic = p->input_channels, oc = p->output_channels;
    const int32_t depth = p->filter_height * p->filter_width * ic;
    const bool in_place = hk_onnx_conv_patch_size(p) == 0;
    const size_t image = (size_t)p->input_height * (size_t)p->input_width * (size_t)ic;
    const int8_t fill = (int8_t)(-p->input_offset);
    int8_t *out = output;
    /* No buffer of its own: the window is gathered into the output's last bytes, dead until
     * the pixels that write them, which gather a chunk at a time on the stack instead. */
    const size_t total = (size_t)p->batches * (size_t)p->output_height * (size_t)p->output_width * (size_t)oc;
    int8_t *const tail = patch == NULL && total >= (size_t)depth ? output + total - (size_t)depth : NULL;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *in = input + (size_t)b * image;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t iy0 = oy * p->stride_height - p->pad_top;
            for (int32_t ox = 0; ox < p->output_width; ++ox, out += oc) {
                const int32_t ix0 = ox * p->stride_width - p->pad_left;
                int8_t *gathered = patch != NULL ? patch : (tail != NULL && out + oc <= tail ? tail : NULL);
                const int8_t *x = gathered;
                if (in_place) {
                    x = in + ((size_t)iy0 * (size_t)p->input_width + (size_t)ix0) * (size_t)ic;
                } else if (gathered != NULL) {
                    onnx_gather(p, in, iy0, ix0, fill, gathered);
                } else {
                    onnx_units_chunked(p, in, iy0, ix0, fill, packed, depth, offset_bias, out);
                    continue;
                }
                onnx_units(p, x, packed, depth, offset_bias, out);
            }
        }
    }
    return HK_STATUS_OK;
}

/* acc[0..n) = bias plus the sums of channels c0.. over the in-image taps of window t, channel c
 * reading input channel c / depth_multiplier. */
static void onnx_dw_sums(const hk_onnx_dw_window_t *t, int32_t c0, int32_t n, int32_t *acc)
{
    int32_t j = 0;
#if HK_HAVE_MVE || HK_HAVE_DSP
    if (t->depth_multiplier == 1) {
        hk_onnx_dw_sums_fast(t, c0, n, acc);
        return;
    }
#endif
    for (; j < n; ++j) {
        const int32_t c = c0 + j, in_c = c / t->depth_multiplier;
        int32_t sum = t->bias != NULL ? t->bias[c] : 0;
        const int8_t *xr = t->x + in_c, *wr = t->w + c;
        for (int32_t r = 0; r < t->rows; ++r, xr += t->x_row, wr += t->w_row) {
            for (int32_t k = 0; k < t->cols; ++k) {
                sum += ((int32_t)xr[(size_t)k * t->x_col] + t->offset) * (int32_t)wr[(size_t)k * t->w_col];
            }
        }
        acc[j] = sum;
    }
}

int32_t hk_onnx_depthwise_s8(const hk_onnx_conv_params_t *params, const int8_t *input,
                             const int8_t *filter, int8_t *output)
{
    /* A local copy: every output byte stored could alias *params, whose fields would then be
     * read again for every pixel. */
    const hk_onnx_conv_params_t copy = *params, *p = &copy;
#if HK_ONNX_MVE_F
    if (p->depth_multiplier == 1) {
        hk_onnx_depthwise_m1_mve(p, input, filter, output);
        return HK_STATUS_OK;
    }
#endif
    const int32_t ic = p->input_channels, oc = p->output_channels;
    const size_t x_col = (size_t)p->dilation_width * (size_t)ic;
    const size_t x_row = (size_t)p->dilation_height * (size_t)p->input_width * (size_t)ic;
    const size_t image = (size_t)p->input_height * (size_t)p->input_width * (size_t)ic;
    hk_onnx_dw_window_t t = {NULL, NULL, 0, 0, x_row, x_col, (size_t)p->filter_width * (size_t)oc,
                             (size_t)oc, p->input_offset, p->depth_multiplier, p->bias};
    int32_t acc[HK_ONNX_ROW];
    int8_t *out = output;
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *in = input + (size_t)b * image;
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t iy0 = oy * p->stride_height - p->pad_top;
            for (int32_t ox = 0; ox < p->output_width; ++ox, out += oc) {
                const int32_t ix0 = ox * p->stride_width - p->pad_left;
                int32_t fy0, fy1, fx0, fx1;
                hk_onnx_window(p, iy0, ix0, &fy0, &fy1, &fx0, &fx1);
                t.rows = fy1 - fy0;
                t.cols = fx1 - fx0;
                t.x = in + (size_t)(iy0 + fy0 * p->dilation_height) * (size_t)p->input_width * (size_t)ic +
                      (size_t)(ix0 + fx0 * p->dilation_width) * (size_t)ic;
                t.w = filter + ((size_t)fy0 * (size_t)p->filter_width + (size_t)fx0) * (size_t)oc;
                if (t.rows <= 0 || t.cols <= 0) {
                    t.rows = t.cols = 0;
                    t.x = in;
                    t.w = filter;
                }
                for (int32_t c0 = 0; c0 < oc; c0 += HK_ONNX_ROW) {
                    const int32_t n = hk_min_i32(HK_ONNX_ROW, oc - c0);
                    onnx_dw_sums(&t, c0, n, acc);
                    onnx_requant_row(acc, p->multiplier + c0, n, p->output_offset, p->act_min,
                                     p->act_max, out + c0);
                }
            }
        }
    }
    return HK_STATUS_OK;
}

int32_t hk_onnx_matmul_s8(const hk_onnx_matmul_params_t *p, const int8_t *a, const int8_t *b,
                          int8_t *output)
{
    const int32_t n_cols = p->cols, k = p->depth;
    /* The fast inner product needs both operands contiguous along depth and b centred. */
    const bool contiguous = p->a_depth_stride == 1 && p->b_depth_stride == 1 && p->b_offset == 0;
    int32_t acc[HK_ONNX_ROW];
    float one[HK_ONNX_ROW];
    for (int32_t i = 0; i < HK_ONNX_ROW; ++i) {
        one[i] = p->multiplier[0];
    }
    for (int32_t bt = 0; bt < p->batches; ++bt) {
        const int8_t *ab = a + (int64_t)bt * p->a_batch_stride;
        const int8_t *bb = b + (int64_t)bt * p->b_batch_stride;
        for (int32_t r = 0; r < p->rows; ++r) {
            const int8_t *ar = ab + (int64_t)r * p->a_row_stride;
            int8_t *out = output + ((int64_t)bt * p->rows + r) * n_cols;
            for (int32_t c0 = 0; c0 < n_cols; c0 += HK_ONNX_ROW) {
                const int32_t n = hk_min_i32(HK_ONNX_ROW, n_cols - c0);
                for (int32_t j = 0; j < n; ++j) {
                    const int32_t c = c0 + j;
                    const int8_t *bc = bb + (int64_t)c * p->b_col_stride;
                    int32_t sum = p->bias != NULL ? p->bias[c] : 0;
                    if (contiguous) {
                        sum += hk_onnx_dot_s8(ar, bc, k, p->a_offset);
                    } else {
                        for (int32_t d = 0; d < k; ++d) {
                            sum += ((int32_t)ar[(int64_t)d * p->a_depth_stride] + p->a_offset) *
                                   ((int32_t)bc[(int64_t)d * p->b_depth_stride] + p->b_offset);
                        }
                    }
                    acc[j] = sum;
                }
                onnx_requant_row(acc, p->per_channel ? p->multiplier + c0 : one, n,
                                 p->output_offset, p->act_min, p->act_max, out + c0);
            }
        }
    }
    return HK_STATUS_OK;
}

/* One run of n outputs along the last dimension, a and b stepping a_step and b_step. */
static void onnx_binary_run(const hk_onnx_binary_params_t *p, const int8_t *a, int32_t a_step,
                            const int8_t *b, int32_t b_step, int32_t n, float reciprocal,
                            int32_t op, int8_t *out)
{
    int32_t i = 0;
#if HK_ONNX_MVE_F
    if (a_step == 1 && (b_step == 1 || b_step == 0)) {
        hk_onnx_binary_run_mve(p, a, b, b_step, n, reciprocal, op, out);
        i = n;
    }
#endif
    for (; i < n; ++i) {
        const float v = hk_onnx_binary_value(p, a[(size_t)i * (size_t)a_step], b[(size_t)i * (size_t)b_step], op);
        out[i] = (int8_t)hk_onnx_quantize_by(v, p->output_scale, reciprocal, p->output_zero_point,
                                             p->act_min, p->act_max);
    }
}

/* Walk the broadcast output in order, a run along the last dimension at a time; op 0 adds, 1
 * multiplies, 2 subtracts the dequantized operands. */
static int32_t onnx_binary(const hk_onnx_binary_params_t *p, const int8_t *a, const int8_t *b,
                           int8_t *output, int32_t op)
{
    if (p->dims < 1 || p->dims > HK_ONNX_MAX_DIMS) {
        return HK_STATUS_BAD_PARAM;
    }
    /* The run: the last dimension and every one before it that steps both operands as if
     * the two were one dimension (contiguous, or both broadcast). */
    int32_t last = p->dims - 1, n = p->shape[last];
    const int32_t a_step = p->a_strides[p->dims - 1], b_step = p->b_strides[p->dims - 1];
    while (last > 0 && p->a_strides[last - 1] == a_step * n && p->b_strides[last - 1] == b_step * n) {
        n *= p->shape[--last];
    }
    const float reciprocal = 1.0f / p->output_scale;
    int32_t index[HK_ONNX_MAX_DIMS] = {0};
    int64_t runs = 1;
    for (int32_t d = 0; d < last; ++d) {
        runs *= p->shape[d];
    }
    int64_t ai = 0, bi = 0;
    int8_t *out = output;
    for (int64_t r = 0; r < runs; ++r, out += n) {
        onnx_binary_run(p, a + ai, a_step, b + bi, b_step, n, reciprocal, op, out);
        for (int32_t d = last - 1; d >= 0; --d) {
            ai += p->a_strides[d];
            bi += p->b_strides[d];
            if (++index[d] < p->shape[d]) {
                break;
            }
            ai -= (int64_t)p->a_strides[d] * p->shape[d];
            bi -= (int64_t)p->b_strides[d] * p->shape[d];
            index[d] = 0;
        }
    }
    return HK_STATUS_OK;
}

int32_t hk_onnx_add_s8(const hk_onnx_binary_params_t *p, const int8_t *a, const int8_t *b,
                       int8_t *output)
{
    return onnx_binary(p, a, b, output, 0);
}

int32_t hk_onnx_mul_s8(const hk_onnx_binary_params_t *p, const int8_t *a, const int8_t *b,
                       int8_t *output)
{
    return onnx_binary(p, a, b, output, 1);
}

int32_t hk_onnx_sub_s8(const hk_onnx_binary_params_t *p, const int8_t *a, const int8_t *b,
                       int8_t *output)
{
    return onnx_binary(p, a, b, output, 2);
}

/* onnxruntime's average multiplier for `count` taps: input scale / (output scale * count). */
static float onnx_average_multiplier(float input_scale, float output_scale, int32_t count)
{
    return input_scale / (output_scale * (float)count);
}

int32_t hk_onnx_avg_pool_s8(const hk_onnx_pool_params_t *p, const int8_t *input, int8_t *output)
{
    const int32_t ch = p->channels;
    for (int32_t b = 0; b < p->batches; ++b) {
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t y0 = oy * p->stride_height - p->pad_top;
            const int32_t ylo = hk_max_i32(y0, 0), yhi = hk_min_i32(y0 + p->filter_height, p->input_height);
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                const int32_t x0 = ox * p->stride_width - p->pad_left;
                const int32_t xlo = hk_max_i32(x0, 0), xhi = hk_min_i32(x0 + p->filter_width, p->input_width);
                const int32_t count = (yhi - ylo) * (xhi - xlo);
                int8_t *out = output + (((int64_t)b * p->output_height + oy) * p->output_width + ox) * ch;
                if (count <= 0) {
                    for (int32_t c = 0; c < ch; ++c) {
                        out[c] = (int8_t)hk_clamp_i32(p->output_zero_point, p->act_min, p->act_max);
                    }
                    continue;
                }
                const float m = onnx_average_multiplier(p->input_scale, p->output_scale, count);
                int32_t c = 0;
#if HK_ONNX_MVE_F
                hk_onnx_avg_pool_pixel_mve(p, input, b, ylo, yhi, xlo, xhi, count, m, out);
                c = ch;
#endif
                const int8_t *corner = input + (((size_t)b * (size_t)p->input_height + (size_t)ylo) *
                                                    (size_t)p->input_width + (size_t)xlo) * (size_t)ch;
                for (; c < ch; ++c) {
                    int32_t sum = -p->input_zero_point * count;
                    const int8_t *row = corner + c;
                    for (int32_t y = ylo; y < yhi; ++y, row += (size_t)p->input_width * (size_t)ch) {
                        for (int32_t x = 0; x < xhi - xlo; ++x) {
                            sum += row[(size_t)x * (size_t)ch];
                        }
                    }
                    out[c] = hk_onnx_requant_s8(sum, m, p->output_zero_point, p->act_min, p->act_max);
                }
            }
        }
    }
    return HK_STATUS_OK;
}

int32_t hk_onnx_mean_s8(const hk_onnx_mean_params_t *p, const int8_t *input, int8_t *output)
{
    if (p->reduce <= 0) {
        return HK_STATUS_BAD_PARAM;
    }
    const float m = onnx_average_multiplier(p->input_scale, p->output_scale, p->reduce);
    for (int32_t o = 0; o < p->outer; ++o) {
        int32_t i = 0;
#if HK_ONNX_MVE_F
        hk_onnx_mean_row_mve(p, input + (int64_t)o * p->reduce * p->inner, m, output + (int64_t)o * p->inner);
        i = p->inner;
#endif
        for (; i < p->inner; ++i) {
            const int8_t *x = input + (int64_t)o * p->reduce * p->inner + i;
            int32_t sum = -p->input_zero_point * p->reduce;
            for (int32_t r = 0; r < p->reduce; ++r) {
                sum += x[(int64_t)r * p->inner];
            }
            output[(int64_t)o * p->inner + i] = hk_onnx_requant_s8(sum, m, p->output_zero_point, -128, 127);
        }
    }
    return HK_STATUS_OK;
}
