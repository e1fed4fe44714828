/*
 * helia-aot kernel library: int8 CONV_2D from the model's own bias (see hk_conv_unfolded.h).
 */
#include "hk_conv_unfolded.h"
#include "hk_conv_unfolded_im2col.h"

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8): Helium's loop where it applies,
 * the general loop otherwise; both give the reference's integers. */
int32_t hk_conv_s8_unfolded(const hk_conv_params_t *params, const int8_t *input,
                            const int8_t *filter, const int32_t *bias, int8_t *output)
{
#if HK_HAVE_MVE
    /* At most 8 input channels (first layers): windows gathered into columns. */
    if (params != NULL && params->input_channels <= 8 &&
        hk_conv_s8_unfolded_im2col(params, input, filter, bias, output) == HK_STATUS_OK) {
        return HK_STATUS_OK;
    }
    const hk_conv_params_t *p = params;
    if (p != NULL && input != NULL && filter != NULL && output != NULL && p->batches >= 0 &&
        p->input_height >= 1 && p->input_width >= 1 && p->input_channels >= 1 &&
        p->filter_height >= 1 && p->filter_width >= 1 &&
        p->filter_input_channels == p->input_channels && p->output_height >= 0 &&
        p->output_width >= 0 && p->output_channels >= 1 && p->stride_height >= 1 &&
        p->stride_width >= 1 && p->dilation_height >= 1 && p->dilation_width == 1 &&
        p->output_multiplier != NULL && p->output_shift != NULL && p->act_min <= p->act_max) {
        hk_conv_s8_unfolded_mve(p, input, filter, bias, output);
        return HK_STATUS_OK;
    }
#endif
    return hk_conv_s8_generic(params, input, filter, bias, output);
}
