/*
 * helia-aot kernel library: hybrid FULLY_CONNECTED (see hk_fully_connected_hybrid.h).
 *
 * Follows LiteRT's EvalHybridDense: output rows start at the bias; an input that is zero
 * everywhere leaves them there; otherwise each row is quantized on its own and every unit adds
 * float(dot - row_sum * offset) * scale, with scale = row_scale * weight_scale computed in
 * float32 as the reference does (per tensor: once per row; per unit: once per unit).
 */
#include "hk_fully_connected_hybrid.h"

#include "hk_act_f32.h"
#include "hk_hybrid_quant.h"

static int32_t hybrid_dot(const int8_t *w, const int8_t *q, size_t depth)
{
    int32_t total = 0;
    for (size_t d = 0; d < depth; ++d) {
        total += (int32_t)w[d] * (int32_t)q[d];
    }
    return total;
}

int32_t hk_fully_connected_hybrid(const hk_fully_connected_hybrid_params_t *params,
                                  const float *input, const int8_t *filter, const float *bias,
                                  int8_t *scratch, float *output)
{
    const hk_fully_connected_hybrid_params_t *p = params;
    if (p == NULL || p->batches < 0 || p->input_features < 1 || p->output_features < 0 ||
        input == NULL || filter == NULL || scratch == NULL || output == NULL ||
        !hk_act_f32_known(p->activation) || (p->asymmetric && p->row_sums == NULL)) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t depth = (size_t)p->input_features;
    const size_t units = (size_t)p->output_features;
    const size_t rows = (size_t)p->batches;
    for (size_t b = 0; b < rows; ++b) {
        for (size_t o = 0; o < units; ++o) {
            output[b * units + o] = bias != NULL ? bias[o] : 0.0f;
        }
    }
    if (!hk_hybrid_all_zero(input, rows * depth)) {
        for (size_t b = 0; b < rows; ++b) {
            int32_t offset;
            float row_scale = hk_hybrid_quantize_row(input + b * depth, depth, scratch,
                                                     p->asymmetric != 0, &offset);
            if (p->channel_scale == NULL) {
                row_scale *= p->filter_scale;
            }
            float *out = output + b * units;
            for (size_t o = 0; o < units; ++o) {
                int32_t dot = hybrid_dot(filter + o * depth, scratch, depth);
                if (p->asymmetric) {
                    dot = (int32_t)((uint32_t)dot - (uint32_t)p->row_sums[o] * (uint32_t)offset);
                }
                float scale = row_scale;
                if (p->channel_scale != NULL) {
                    scale *= p->channel_scale[o];
                }
                out[o] += (float)dot * scale;
            }
        }
    }
    for (size_t i = 0; i < rows * units; ++i) {
        output[i] = hk_act_f32(output[i], p->activation);
    }
    return HK_STATUS_OK;
}
