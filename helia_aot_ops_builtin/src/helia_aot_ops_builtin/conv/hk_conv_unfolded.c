/*
 * helia-aot kernel library: int8 CONV_2D from the model's own bias (see hk_conv_unfolded.h).
 *
 * Four entries over the same loops: hk_conv_s8_unfolded chooses per call, the others leave out
 * the loops the converter knows their layer never takes, so a module links only what it runs.
 */
#include "hk_conv_unfolded.h"
#include "hk_conv_unfolded_im2col.h"

/* The signature every entry shares. */
typedef int32_t (*hk_conv_fn_t)(const hk_conv_params_t *, const int8_t *, const int8_t *,
                                const int32_t *, int8_t *);

#if HK_HAVE_MVE
#define UNF_COLUMNS(f) (f) /* the column entries exist on Helium only */
#else
#define UNF_COLUMNS(f) ((hk_conv_fn_t)0)
#endif

#if HK_HAVE_MVE
/* Whether Helium's in-place loop (hk_conv_s8_unfolded_mve) takes the call. */
HK_INLINE bool unfolded_mve_ok(const hk_conv_params_t *p, const int8_t *input,
                               const int8_t *filter, const int8_t *output)
{
    return p != NULL && input != NULL && filter != NULL && output != NULL && p->batches >= 0 &&
           p->input_height >= 1 && p->input_width >= 1 && p->input_channels >= 1 &&
           p->filter_height >= 1 && p->filter_width >= 1 &&
           p->filter_input_channels == p->input_channels && p->output_height >= 0 &&
           p->output_width >= 0 && p->output_channels >= 1 && p->stride_height >= 1 &&
           p->stride_width >= 1 && p->dilation_height >= 1 && p->dilation_width == 1 &&
           p->output_multiplier != NULL && p->output_shift != NULL && p->act_min <= p->act_max;
}
#endif

/* A call over at most 8 input channels through `columns` (a column entry of
 * hk_conv_unfolded_im2col.h) on Helium where it takes it, else hk_conv_s8_unfolded_in_place. */
HK_INLINE int32_t unfolded_columns_first(hk_conv_fn_t columns, const hk_conv_params_t *params,
                                         const int8_t *input, const int8_t *filter,
                                         const int32_t *bias, int8_t *output)
{
#if HK_HAVE_MVE
    if (params != NULL && params->input_channels <= 8 &&
        columns(params, input, filter, bias, output) == HK_STATUS_OK) {
        return HK_STATUS_OK;
    }
#else
    (void)columns;
#endif
    return hk_conv_s8_unfolded_in_place(params, input, filter, bias, output);
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8): Helium's loop where it applies,
 * the general loop otherwise; both give the reference's integers. */
int32_t hk_conv_s8_unfolded(const hk_conv_params_t *params, const int8_t *input,
                            const int8_t *filter, const int32_t *bias, int8_t *output)
{
    /* At most 8 input channels (first layers): windows gathered into columns. */
    return unfolded_columns_first(UNF_COLUMNS(hk_conv_s8_unfolded_im2col), params, input, filter,
                                  bias, output);
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8): Helium's in-place loop where it
 * applies, the general loop otherwise. */
int32_t hk_conv_s8_unfolded_in_place(const hk_conv_params_t *params, const int8_t *input,
                                     const int8_t *filter, const int32_t *bias, int8_t *output)
{
#if HK_HAVE_MVE
    if (unfolded_mve_ok(params, input, filter, output)) {
        hk_conv_s8_unfolded_mve(params, input, filter, bias, output);
        return HK_STATUS_OK;
    }
#endif
    return hk_conv_s8_generic(params, input, filter, bias, output);
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8): at most 8 input channels'
 * windows gathered into columns on Helium, else as hk_conv_s8_unfolded_in_place. */
int32_t hk_conv_s8_unfolded_columns(const hk_conv_params_t *params, const int8_t *input,
                                    const int8_t *filter, const int32_t *bias, int8_t *output)
{
    return unfolded_columns_first(UNF_COLUMNS(hk_conv_s8_unfolded_im2col_windows), params,
                                  input, filter, bias, output);
}

/* Follows LiteRT reference_integer_ops::ConvPerChannel (int8): a 1x1 filter over at most 8
 * input channels reads two pixels per vector on Helium, else as hk_conv_s8_unfolded_in_place. */
int32_t hk_conv_s8_unfolded_few_pointwise(const hk_conv_params_t *params, const int8_t *input,
                                          const int8_t *filter, const int32_t *bias,
                                          int8_t *output)
{
    return unfolded_columns_first(UNF_COLUMNS(hk_conv_s8_unfolded_im2col_pointwise), params,
                                  input, filter, bias, output);
}
