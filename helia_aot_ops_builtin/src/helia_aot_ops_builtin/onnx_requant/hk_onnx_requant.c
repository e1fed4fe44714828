/*
 * helia-aot kernel library: the onnxruntime-requantization kernels (see hk_onnx_requant.h).
 *
 * The portable reference: every fast path (hk_onnx_requant_paths.h) computes the same int32
 * accumulators and requantizes them with the same float32 operations, so all give these bytes.
 * ADD, SUB and MUL divide by the output scale, which has no vector form, and run this scalar
 * loop on every path.
 */
#include "hk_onnx_requant_paths.h"

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

#define HK_ONNX_ROW 64 /* accumulators requantized per batch (a stack array) */

int32_t hk_onnx_conv_s8(const hk_onnx_conv_params_t *p, const int8_t *input, const int8_t *filter,
                        int8_t *output)
{
    const int32_t ic = p->input_channels, oc = p->output_channels;
    const int32_t taps = p->filter_height * p->filter_width * ic;
    int32_t acc[HK_ONNX_ROW];
    for (int32_t b = 0; b < p->batches; ++b) {
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t y0 = oy * p->stride_height - p->pad_top;
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                const int32_t x0 = ox * p->stride_width - p->pad_left;
                int8_t *out = output + (((int64_t)b * p->output_height + oy) * p->output_width + ox) * oc;
                for (int32_t c0 = 0; c0 < oc; c0 += HK_ONNX_ROW) {
                    const int32_t n = hk_min_i32(HK_ONNX_ROW, oc - c0);
                    for (int32_t j = 0; j < n; ++j) {
                        const int32_t c = c0 + j;
                        int32_t sum = p->bias != NULL ? p->bias[c] : 0;
                        for (int32_t ky = 0; ky < p->filter_height; ++ky) {
                            const int32_t y = y0 + ky * p->dilation_height;
                            if (y < 0 || y >= p->input_height) {
                                continue;
                            }
                            for (int32_t kx = 0; kx < p->filter_width; ++kx) {
                                const int32_t x = x0 + kx * p->dilation_width;
                                if (x < 0 || x >= p->input_width) {
                                    continue;
                                }
                                const int8_t *xp =
                                    input + (((int64_t)b * p->input_height + y) * p->input_width + x) * ic;
                                const int8_t *wp =
                                    filter + (int64_t)c * taps + ((int64_t)ky * p->filter_width + kx) * ic;
                                sum += hk_onnx_dot_s8(xp, wp, ic, p->input_offset);
                            }
                        }
                        acc[j] = sum;
                    }
                    onnx_requant_row(acc, p->multiplier + c0, n, p->output_offset, p->act_min,
                                     p->act_max, out + c0);
                }
            }
        }
    }
    return HK_STATUS_OK;
}

int32_t hk_onnx_depthwise_s8(const hk_onnx_conv_params_t *p, const int8_t *input,
                             const int8_t *filter, int8_t *output)
{
    const int32_t ic = p->input_channels, oc = p->output_channels, m = p->depth_multiplier;
    int32_t acc[HK_ONNX_ROW];
    for (int32_t b = 0; b < p->batches; ++b) {
        for (int32_t oy = 0; oy < p->output_height; ++oy) {
            const int32_t y0 = oy * p->stride_height - p->pad_top;
            for (int32_t ox = 0; ox < p->output_width; ++ox) {
                const int32_t x0 = ox * p->stride_width - p->pad_left;
                int8_t *out = output + (((int64_t)b * p->output_height + oy) * p->output_width + ox) * oc;
                for (int32_t c0 = 0; c0 < oc; c0 += HK_ONNX_ROW) {
                    const int32_t n = hk_min_i32(HK_ONNX_ROW, oc - c0);
                    int32_t j = 0;
#if HK_HAVE_MVE
                    if (m == 1) {
                        hk_onnx_depthwise_acc_mve(p, input, filter, b, y0, x0, c0, n, acc);
                        j = n;
                    }
#endif
                    for (; j < n; ++j) {
                        const int32_t c = c0 + j, in_c = c / m;
                        int32_t sum = p->bias != NULL ? p->bias[c] : 0;
                        for (int32_t ky = 0; ky < p->filter_height; ++ky) {
                            const int32_t y = y0 + ky * p->dilation_height;
                            if (y < 0 || y >= p->input_height) {
                                continue;
                            }
                            for (int32_t kx = 0; kx < p->filter_width; ++kx) {
                                const int32_t x = x0 + kx * p->dilation_width;
                                if (x < 0 || x >= p->input_width) {
                                    continue;
                                }
                                const int32_t xv =
                                    input[(((int64_t)b * p->input_height + y) * p->input_width + x) * ic + in_c];
                                const int32_t wv = filter[((int64_t)ky * p->filter_width + kx) * oc + c];
                                sum += (xv + p->input_offset) * wv;
                            }
                        }
                        acc[j] = sum;
                    }
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

/* Walk the broadcast output in order; op 0 adds, 1 multiplies, 2 subtracts the dequantized
 * operands. */
static int32_t onnx_binary(const hk_onnx_binary_params_t *p, const int8_t *a, const int8_t *b,
                           int8_t *output, int32_t op)
{
    int32_t index[HK_ONNX_MAX_DIMS] = {0};
    int64_t total = 1;
    for (int32_t d = 0; d < p->dims; ++d) {
        total *= p->shape[d];
    }
    int64_t ai = 0, bi = 0;
    for (int64_t o = 0; o < total; ++o) {
        const float va = p->a_scale * (float)((int32_t)a[ai] - p->a_zero_point);
        const float vb = p->b_scale * (float)((int32_t)b[bi] - p->b_zero_point);
        const float v = op == 0 ? va + vb : (op == 1 ? va * vb : va - vb);
        output[o] = (int8_t)hk_onnx_quantize(v / p->output_scale, p->output_zero_point, p->act_min,
                                             p->act_max);
        for (int32_t d = p->dims - 1; d >= 0; --d) {
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
                for (; c < ch; ++c) {
                    int32_t sum = -p->input_zero_point * count;
                    for (int32_t y = ylo; y < yhi; ++y) {
                        for (int32_t x = xlo; x < xhi; ++x) {
                            sum += input[(((int64_t)b * p->input_height + y) * p->input_width + x) * ch + c];
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
