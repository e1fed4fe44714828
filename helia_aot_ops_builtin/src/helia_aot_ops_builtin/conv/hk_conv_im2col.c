/*
 * helia-aot kernel library: int8 CONV_2D over few input channels (see hk_conv_im2col.h).
 *
 * The dispatch: the Helium path (hk_conv_im2col_mve.c) where it applies, hk_conv_s8 (the conv
 * family's reference and fast paths) everywhere else.
 */
#include "hk_conv_im2col.h"

#include "hk_isa.h"

#if HK_HAVE_MVE
/* The Helium path (hk_conv_im2col_mve.c); hk_conv_s8_im2col has checked what it needs. */
void hk_conv_s8_im2col_mve(const hk_conv_im2col_params_t *q, const int8_t *input,
                           int8_t *output);

/* Whether the Helium path covers the call: ungrouped, offset folded, packed filters, scratch
 * for two columns (hk_conv_s8_scratch_size always has that room; none for an unpadded 1x1
 * filter with half columns), the input offset representable as a fill byte. */
static bool im2col_applies(const hk_conv_im2col_params_t *q, const int8_t *input,
                           const int8_t *filter, const int8_t *output)
{
    const hk_conv_params_t *p = &q->conv;
    const int32_t taps = p->filter_height * p->filter_width * p->input_channels;
    const bool direct = p->filter_height == 1 && p->filter_width == 1 && p->pad_top == 0 &&
                        p->pad_left == 0 &&
                        (p->output_height - 1) * p->stride_height < p->input_height &&
                        (p->output_width - 1) * p->stride_width < p->input_width;
    return input != NULL && filter != NULL && output != NULL && p->batches >= 0 &&
           p->input_height > 0 && p->input_width > 0 && p->input_channels > 0 &&
           p->filter_height > 0 && p->filter_width > 0 && p->output_height >= 0 &&
           p->output_width >= 0 && p->output_channels > 0 && p->stride_height > 0 &&
           p->stride_width > 0 && p->dilation_height > 0 && p->dilation_width > 0 &&
           p->filter_input_channels == p->input_channels && p->offset_bias != NULL &&
           p->output_multiplier != NULL && p->output_shift != NULL && p->act_min <= p->act_max &&
           p->input_offset >= -127 && p->input_offset <= 128 && q->packed != NULL && q->quant != NULL &&
           q->column == (q->half ? 16 : ((taps + 15) & ~15)) && (!q->half || taps <= 8) &&
           ((q->half && direct) || (p->scratch != NULL && p->scratch_size >= 2 * q->column));
}
#endif

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8), as hk_conv_s8. */
int32_t hk_conv_s8_im2col(const hk_conv_im2col_params_t *params, const int8_t *input,
                          const int8_t *filter, const int32_t *bias, int8_t *output)
{
    if (params == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
#if HK_HAVE_MVE
    if (im2col_applies(params, input, filter, output)) {
        hk_conv_s8_im2col_mve(params, input, output);
        return HK_STATUS_OK;
    }
#endif
    return hk_conv_s8(&params->conv, input, filter, bias, output);
}
