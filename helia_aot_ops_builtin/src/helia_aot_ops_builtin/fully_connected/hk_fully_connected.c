/*
 * helia-aot kernel library: FULLY_CONNECTED (see hk_fully_connected.h).
 *
 * The quantized kernels sum plain products w * x (hk_fc_dot.h, one implementation per
 * instruction set) and add the offsets' contribution per unit and per input row afterwards;
 * hk_fc_requant (hk_fc_requant.h) then reproduces LiteRT's double rounding exactly. Both are
 * exact on every path, so every path gives the same outputs.
 */
#include "hk_fully_connected.h"

#include "hk_fully_connected_f32.h"
#include "hk_fully_connected_paths.h"
#include "hk_fully_connected_s16.h"

#include "hk_fc_dot.h"
#include "hk_fc_requant.h"

static bool fc_params_ok(const hk_fully_connected_params_t *p)
{
    return p != NULL && p->batches >= 0 && p->input_features >= 0 && p->output_features >= 0;
}

static bool fc_quant_params_ok(const hk_fully_connected_params_t *p)
{
    return fc_params_ok(p) && p->output_scale != NULL && p->act_min <= p->act_max;
}

/* -- int8 ------------------------------------------------------------------------------------ */

#if !HK_FC_S8_FAST
/* The packed groups in plain C: four units per pass of the input row. */
static void fc_groups_s8(const fc_s8_t *k, const int8_t *x, uint32_t row, int8_t *out)
{
    const size_t group_size = hk_fc_packed_group_size(k->depth);
    const int8_t *w = k->filter;
    const int32_t *c = k->folded;
    const double *s = k->scale;
    const int32_t step = k->per_channel;
    for (int32_t g = k->units / HK_FC_PACK_ROWS; g > 0; --g) {
        FC_GROUP_ACC(acc, c, row);
        hk_fc_dot4_packed_s8(x, w, k->depth, acc);
        for (int32_t j = 0; j < HK_FC_PACK_ROWS; ++j) {
            out[j] = fc_output_s8(k, acc[j], s[j * step]);
        }
        w += group_size;
        c += 4;
        s += 4 * step;
        out += 4;
    }
}

FC_NOINLINE static void fc_general_s8(const hk_fully_connected_params_t *p, const int8_t *input,
                                      const int8_t *filter, const int32_t *bias, int8_t *output)
{
    fc_general_walk(p, input, filter, bias, output, fc_groups_s8);
}
#endif

int32_t hk_fully_connected_s8(const hk_fully_connected_params_t *params, const int8_t *input,
                              const int8_t *filter, const int32_t *bias, int8_t *output)
{
    if (!fc_quant_params_ok(params) || input == NULL || filter == NULL || output == NULL ||
        (params->packed_filter && params->folded_bias == NULL)) {
        return HK_STATUS_BAD_PARAM;
    }
#if HK_FC_S8_FAST
    return hk_fully_connected_s8_fast(params, input, filter, bias, output);
#else
    fc_general_s8(params, input, filter, bias, output);
    return HK_STATUS_OK;
#endif
}

/* -- int16 x int8 ---------------------------------------------------------------------------- */

static int64_t fc_sum_s16(const int16_t *x, int32_t depth)
{
    int64_t total = 0;
    for (int32_t d = 0; d < depth; ++d) {
        total += x[d];
    }
    return total;
}

/*
 * The int16 kernels: sum(w * x) + filter_offset * sum(x) + bias (the input offset of int16 is
 * 0), then the double requantization. `wide` selects 64-bit accumulation and an int64 bias (else
 * int32); it is a constant at every call and the body is always inlined, so each kernel keeps
 * its own loop.
 */
HK_INLINE int32_t fc_s16(const hk_fully_connected_params_t *params, const int16_t *input,
                         const int8_t *filter, const void *bias, int16_t *output, bool wide)
{
    if (!fc_quant_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
#if HK_FC_S16_FAST
    if (params->filter_offset == 0) {
        hk_fully_connected_s16_fast(params, input, filter, bias, output, wide ? 1 : 0);
        return HK_STATUS_OK;
    }
#endif
    const int32_t *bias32 = (const int32_t *)bias;
    const int64_t *bias64 = (const int64_t *)bias;
    const hk_fully_connected_params_t *p = params;
    const int32_t depth = p->input_features;
    const int32_t act_min = hk_max_i32(p->act_min, -32768);
    const int32_t act_max = hk_min_i32(p->act_max, 32767);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int16_t *x = input + (size_t)b * (size_t)depth;
        int16_t *out = output + (size_t)b * (size_t)p->output_features;
        const int64_t row =
            p->filter_offset != 0 ? (int64_t)p->filter_offset * fc_sum_s16(x, depth) : 0;
        for (int32_t o = 0; o < p->output_features; ++o) {
            const int8_t *w = filter + (size_t)o * (size_t)depth;
            const double scale = p->output_scale[p->per_channel ? o : 0];
            int32_t value;
            if (wide) {
                const int64_t acc = hk_fc_dot_s16_64(x, w, depth) + row +
                                    (bias64 != NULL ? (int64_t)bias64[o] : 0);
                value = hk_fc_requant64(acc, scale);
            } else {
                const uint32_t acc = hk_fc_dot_s16_32(x, w, depth) + (uint32_t)row +
                                     (bias32 != NULL ? (uint32_t)bias32[o] : 0u);
                value = hk_fc_requant((int32_t)acc, scale);
            }
            value = (int32_t)((uint32_t)value + (uint32_t)p->output_offset);
            out[o] = (int16_t)hk_clamp_i32(value, act_min, act_max);
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_integer_ops::FullyConnected / FullyConnectedPerChannel with float
 * scales (int16 x int8, int64 bias). */
int32_t hk_fully_connected_s16(const hk_fully_connected_params_t *params, const int16_t *input,
                               const int8_t *filter, const int64_t *bias, int16_t *output)
{
    return fc_s16(params, input, filter, bias, output, true);
}

/* Follows LiteRT reference_integer_ops::FullyConnected / FullyConnectedPerChannel with float
 * scales (int16 x int8, int32 bias). */
int32_t hk_fully_connected_s16_b32(const hk_fully_connected_params_t *params,
                                   const int16_t *input, const int8_t *filter,
                                   const int32_t *bias, int16_t *output)
{
    return fc_s16(params, input, filter, bias, output, false);
}

/* -- float32 --------------------------------------------------------------------------------- */

/* Follows LiteRT reference_ops::FullyConnected (float): sums in input order, then the bias. */
int32_t hk_fully_connected_f32(const hk_fully_connected_params_t *params, const float *input,
                               const float *filter, const float *bias, float *output)
{
    if (!fc_params_ok(params) || input == NULL || filter == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
#if HK_F32_MVE
    hk_fully_connected_f32_mve(params, input, filter, bias, output);
    return HK_STATUS_OK;
#endif
    const hk_fully_connected_params_t *p = params;
    const size_t depth = (size_t)p->input_features;
    for (int32_t b = 0; b < p->batches; ++b) {
        const float *x = input + (size_t)b * depth;
        float *out = output + (size_t)b * (size_t)p->output_features;
        for (int32_t o = 0; o < p->output_features; ++o) {
            const float *w = filter + (size_t)o * depth;
            float total = 0.0f;
            for (size_t d = 0; d < depth; ++d) {
                total += x[d] * w[d];
            }
            const float bias_value = bias != NULL ? bias[o] : 0.0f;
            out[o] = hk_clamp_f32(total + bias_value, p->act_min_f32, p->act_max_f32);
        }
    }
    return HK_STATUS_OK;
}
