/*
 * helia-aot kernel library: int8 CONV_2D with its scratch in dead bytes (see hk_conv_reuse.h).
 *
 * Follows LiteRT reference_integer_ops::ConvPerChannel (int8) through hk_conv_s8: a band of
 * output rows [oy0, oy1) is the same convolution over an input that starts at the band's first
 * window row, with the top padding that is left, so each band gives the reference's integers.
 */
#include "hk_conv_reuse.h"

#include "hk_conv_paths.h"

/* One band of output rows and where its scratch goes (NULL: nowhere fits). */
typedef struct {
    int32_t end;   /* one past the band's last output row */
    uint8_t *scratch;
} conv_band_t;

/* The input row the windows of output rows >= oy start at (may be negative: padding). */
static int32_t conv_first_row(const hk_conv_params_t *p, int32_t oy)
{
    return oy * p->stride_height - p->pad_top;
}

/*
 * The band starting at output row oy of image b: all remaining rows when the input's consumed
 * rows (earlier images and rows above the band's first window row) hold `need` bytes;
 * otherwise as many rows as leave `need` bytes (aligned to 16) of unwritten output after
 * them; otherwise one row without scratch. `input` NULL: the input is not consumable.
 */
static conv_band_t conv_band(const hk_conv_params_t *p, int8_t *input, int8_t *output,
                             int32_t b, int32_t oy, int32_t need)
{
    const size_t row_in = (size_t)p->input_width * (size_t)p->input_channels;
    const size_t row_out = (size_t)p->output_width * (size_t)p->output_channels;
    const size_t image_out = (size_t)p->output_height * row_out;
    conv_band_t band = {oy + 1, NULL};
    if (input != NULL) {
        const int32_t first = hk_max_i32(conv_first_row(p, oy), 0);
        const size_t dead = ((size_t)b * (size_t)p->input_height + (size_t)first) * row_in;
        if (dead >= (size_t)need) {
            band.end = p->output_height;
            band.scratch = (uint8_t *)input;
            return band;
        }
    }
    const uintptr_t limit = (uintptr_t)(output + (size_t)p->batches * image_out);
    for (int32_t end = p->output_height; end > oy; --end) {
        const uintptr_t start = (uintptr_t)(output + (size_t)b * image_out + (size_t)end * row_out);
        const uintptr_t aligned = (start + 15u) & ~(uintptr_t)15u;
        if (aligned <= limit && limit - aligned >= (uintptr_t)need) {
            band.end = end;
            band.scratch = (uint8_t *)aligned;
            return band;
        }
    }
    return band;
}

/* hk_conv_s8 over output rows [oy, band.end) of image b. */
static int32_t conv_run_band(const hk_conv_params_t *p, const int8_t *input,
                             const int8_t *filter, const int32_t *bias, int8_t *output,
                             int32_t b, int32_t oy, conv_band_t band, int32_t need)
{
    const size_t row_in = (size_t)p->input_width * (size_t)p->input_channels;
    const size_t row_out = (size_t)p->output_width * (size_t)p->output_channels;
    const int32_t first = conv_first_row(p, oy);
    const int32_t skip = hk_min_i32(hk_max_i32(first, 0), p->input_height - 1);
    hk_conv_params_t c = *p;
    c.batches = 1;
    c.input_height = p->input_height - skip;
    c.pad_top = skip - first;
    c.output_height = band.end - oy;
    c.scratch = band.scratch;
    c.scratch_size = band.scratch != NULL ? need : 0;
    const int8_t *image = input + ((size_t)b * (size_t)p->input_height + (size_t)skip) * row_in;
    int8_t *out = output + ((size_t)b * (size_t)p->output_height + (size_t)oy) * row_out;
    if (band.scratch == NULL) {
        return hk_conv_s8(&c, image, filter, bias, out);
    }
    /* hk_conv_s8 would take its fast path (hk_conv_s8_reuse checked why): go there directly. */
    hk_conv_s8_fast(&c, image, filter, out);
    return HK_STATUS_OK;
}

int32_t hk_conv_s8_reuse(const hk_conv_params_t *params, int8_t *input, const int8_t *filter,
                         const int32_t *bias, int8_t *output)
{
    /* What hk_conv_s8 checks before its fast path; anything else is its business. */
    const int32_t need = params != NULL ? hk_conv_s8_scratch_size(params) : 0;
    if (need <= 0 || input == NULL || filter == NULL || output == NULL ||
        params->offset_bias == NULL || params->input_offset < -127 || params->input_offset > 128 ||
        params->batches < 1 || params->output_height < 1 || params->output_width < 1 ||
        params->input_height < 1 || params->input_width < 1 || params->output_channels < 1 ||
        params->output_multiplier == NULL || params->output_shift == NULL ||
        params->act_min > params->act_max || params->filter_height < 1 ||
        params->filter_width < 1 || params->stride_height < 1 || params->stride_width < 1 ||
        params->dilation_height < 1 || params->dilation_width < 1) {
        return hk_conv_s8(params, input, filter, bias, output);
    }
    for (int32_t b = 0; b < params->batches; ++b) {
        for (int32_t oy = 0; oy < params->output_height;) {
            const conv_band_t band = conv_band(params, input, output, b, oy, need);
            const int32_t status =
                conv_run_band(params, input, filter, bias, output, b, oy, band, need);
            if (status != HK_STATUS_OK) {
                return status;
            }
            oy = band.end;
        }
    }
    return HK_STATUS_OK;
}
