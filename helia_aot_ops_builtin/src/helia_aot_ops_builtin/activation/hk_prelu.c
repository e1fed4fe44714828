/*
 * helia-aot kernel library: PRELU (see hk_prelu.h).
 */
#include "hk_prelu.h"

static bool prelu_shape_ok(const hk_prelu_shape_t *shape, size_t *total)
{
    if (shape->rank < 1 || shape->rank > HK_PRELU_MAX_DIMS) {
        return false;
    }
    size_t n = 1;
    for (int32_t d = 0; d < shape->rank; ++d) {
        if (shape->dims[d] < 0 || shape->alpha_strides[d] < 0) {
            return false;
        }
        n *= (size_t)shape->dims[d];
    }
    *total = n;
    return true;
}

/* Advances the outer (all but innermost) index by one row; returns the new alpha row offset. */
static size_t prelu_next_row(const hk_prelu_shape_t *shape, int32_t *index, size_t alpha_offset)
{
    for (int32_t d = shape->rank - 2; d >= 0; --d) {
        const size_t stride = (size_t)shape->alpha_strides[d];
        ++index[d];
        alpha_offset += stride;
        if (index[d] < shape->dims[d]) {
            break;
        }
        alpha_offset -= stride * (size_t)shape->dims[d];
        index[d] = 0;
    }
    return alpha_offset;
}

/* Follows LiteRT reference_ops::BroadcastPrelu4DSlow / Prelu (int8 input and alpha). */
int32_t hk_prelu_s8(const hk_prelu_params_t *params, const int8_t *input, const int8_t *alpha,
                    int8_t *output)
{
    const hk_prelu_shape_t *shape = &params->shape;
    size_t total = 0;
    if (!prelu_shape_ok(shape, &total)) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t inner = (size_t)shape->dims[shape->rank - 1];
    const size_t inner_stride = (size_t)shape->alpha_strides[shape->rank - 1];
    int32_t index[HK_PRELU_MAX_DIMS] = {0};
    size_t alpha_row = 0;
    for (size_t row = 0; row < total; row += inner) {
        for (size_t j = 0; j < inner; ++j) {
            const int32_t x = (int32_t)input[row + j] - params->input_zero_point;
            int32_t v;
            if (x >= 0) {
                v = hk_mbqm(x, params->identity_multiplier, params->identity_shift);
            } else {
                const int32_t a = (int32_t)alpha[alpha_row + j * inner_stride] -
                                  params->alpha_zero_point;
                v = hk_mbqm(x * a, params->alpha_multiplier, params->alpha_shift);
            }
            output[row + j] = hk_sat_s8(v + params->output_zero_point);
        }
        alpha_row = prelu_next_row(shape, index, alpha_row);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::BroadcastPrelu4DSlow / Prelu for int16 input with int8 alpha (the
 * 16x8 scheme): the int8 arithmetic with the int16 clamp. */
int32_t hk_prelu_s16(const hk_prelu_params_t *params, const int16_t *input, const int8_t *alpha,
                     int16_t *output)
{
    const hk_prelu_shape_t *shape = &params->shape;
    size_t total = 0;
    if (!prelu_shape_ok(shape, &total)) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t inner = (size_t)shape->dims[shape->rank - 1];
    const size_t inner_stride = (size_t)shape->alpha_strides[shape->rank - 1];
    int32_t index[HK_PRELU_MAX_DIMS] = {0};
    size_t alpha_row = 0;
    for (size_t row = 0; row < total; row += inner) {
        for (size_t j = 0; j < inner; ++j) {
            const int32_t x = (int32_t)input[row + j] - params->input_zero_point;
            int32_t v;
            if (x >= 0) {
                v = hk_mbqm(x, params->identity_multiplier, params->identity_shift);
            } else {
                const int32_t a = (int32_t)alpha[alpha_row + j * inner_stride] -
                                  params->alpha_zero_point;
                /* The int16 input zero point is 0 (checked at conversion): |x * a| < 2^24. */
                v = hk_mbqm(x * a, params->alpha_multiplier, params->alpha_shift);
            }
            output[row + j] = hk_sat_s16(v + params->output_zero_point);
        }
        alpha_row = prelu_next_row(shape, index, alpha_row);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::BroadcastBinaryFunction4DSlow with ApplyPrelu (float). */
int32_t hk_prelu_f32(const hk_prelu_shape_t *shape, const float *input, const float *alpha,
                     float *output)
{
    size_t total = 0;
    if (!prelu_shape_ok(shape, &total)) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t inner = (size_t)shape->dims[shape->rank - 1];
    const size_t inner_stride = (size_t)shape->alpha_strides[shape->rank - 1];
    int32_t index[HK_PRELU_MAX_DIMS] = {0};
    size_t alpha_row = 0;
    for (size_t row = 0; row < total; row += inner) {
        for (size_t j = 0; j < inner; ++j) {
            const float x = input[row + j];
            output[row + j] = x >= 0.0f ? x : x * alpha[alpha_row + j * inner_stride];
        }
        alpha_row = prelu_next_row(shape, index, alpha_row);
    }
    return HK_STATUS_OK;
}
