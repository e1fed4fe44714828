/* dscnn_psoc6_driver.c: the five distinct CMSIS-NN calls of the DS-CNN Small benchmark measured on a
 * PSoC6 Cortex-M4 (Karthik-Swaminathan98/arm-riscv-benchmark-results, section 3.2), each once in a
 * harness region, at the shapes and parameters that benchmark states, against its prebuilt
 * libcmsis-nn.a (bench/cycle_model_check.py --dscnn links it from a checkout; none of it is here).
 * The types below are the CMSIS-NN 6 argument structures, written out so no header is needed. */
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"

typedef struct { int32_t n, h, w, c; } dims_t;
typedef struct { void *buf; int32_t size; } context_t;
typedef struct { int32_t w, h; } tile_t;
typedef struct { int32_t min, max; } activation_t;
typedef struct { int32_t input_offset, output_offset; tile_t stride, padding, dilation; activation_t act; } conv_params_t;
typedef struct {
    int32_t input_offset, output_offset, ch_mult;
    tile_t stride, padding, dilation;
    activation_t act;
} dw_params_t;
typedef struct { tile_t stride, padding; activation_t act; } pool_params_t;
typedef struct { int32_t input_offset, filter_offset, output_offset; activation_t act; } fc_params_t;
typedef struct { int32_t *multiplier, *shift; } channel_quant_t;
typedef struct { int32_t multiplier, shift; } tensor_quant_t;

int32_t arm_depthwise_conv_wrapper_s8_get_buffer_size(const dw_params_t *, const dims_t *, const dims_t *,
                                                      const dims_t *);
int arm_depthwise_conv_wrapper_s8(const context_t *, const dw_params_t *, const channel_quant_t *, const dims_t *,
                                  const int8_t *, const dims_t *, const int8_t *, const dims_t *, const int32_t *,
                                  const dims_t *, int8_t *);
int32_t arm_convolve_wrapper_s8_get_buffer_size(const conv_params_t *, const dims_t *, const dims_t *,
                                                const dims_t *);
int arm_convolve_wrapper_s8(const context_t *, const conv_params_t *, const channel_quant_t *, const dims_t *,
                            const int8_t *, const dims_t *, const int8_t *, const dims_t *, const int32_t *,
                            const dims_t *, int8_t *);
int32_t arm_avgpool_s8_get_buffer_size(int dim_dst_width, int ch_src);
int arm_avgpool_s8(const context_t *, const pool_params_t *, const dims_t *, const int8_t *, const dims_t *,
                   const dims_t *, int8_t *);
int arm_fully_connected_s8(const context_t *, const fc_params_t *, const tensor_quant_t *, const dims_t *,
                           const int8_t *, const dims_t *, const int8_t *, const dims_t *, const int32_t *,
                           const dims_t *, int8_t *);

/* Buffers for the largest call (weights 3x3x64x64, images 58x13 and 25x5x64); all in RAM, as measured. */
static int8_t input[25 * 5 * 64], weights[3 * 3 * 64 * 64], output[25 * 5 * 64 * 64];
static int32_t bias[64], mult[64], shift[64];
static int8_t scratch[16 * 1024];

static void fill(int n_input, int n_weights, int n_bias)
{
    for (int i = 0; i < n_input; i++) {
        input[i] = (int8_t)(rand() % 255 - 128);
    }
    for (int i = 0; i < n_weights; i++) {
        weights[i] = (int8_t)(rand() % 255 - 128);
    }
    for (int i = 0; i < n_bias; i++) {
        bias[i] = rand() % 32768 - 16384;
        mult[i] = 0x40000000;
        shift[i] = 0;
    }
}

static int depthwise(int in_h, int in_w, int in_c, int k_h, int k_w, int out_h, int out_w, int stride, int pad)
{
    const dims_t in = {1, in_h, in_w, in_c}, filt = {1, k_h, k_w, 64}, b = {0, 0, 0, 0}, out = {1, out_h, out_w, 64};
    const dw_params_t p = {0, 0, 64, {stride, stride}, {pad, pad}, {1, 1}, {-128, 127}};
    const channel_quant_t q = {mult, shift};
    fill(in_h * in_w * in_c, k_h * k_w * in_c * 64, 64);
    const context_t ctx = {scratch, arm_depthwise_conv_wrapper_s8_get_buffer_size(&p, &in, &filt, &out)};
    if (ctx.size > (int32_t)sizeof(scratch)) {
        return 2;
    }
    harness_region_begin();
    const int status = arm_depthwise_conv_wrapper_s8(&ctx, &p, &q, &in, input, &filt, weights, &b, bias, &out, output);
    harness_region_end();
    return status;
}

static int pointwise(void)
{
    const dims_t in = {1, 25, 5, 64}, filt = {64, 1, 1, 64}, b = {0, 0, 0, 0}, out = {1, 25, 5, 64};
    const conv_params_t p = {0, 0, {1, 1}, {1, 1}, {1, 1}, {-128, 127}};
    const channel_quant_t q = {mult, shift};
    fill(25 * 5 * 64, 64 * 64, 64);
    const context_t ctx = {scratch, arm_convolve_wrapper_s8_get_buffer_size(&p, &in, &filt, &out)};
    if (ctx.size > (int32_t)sizeof(scratch)) {
        return 2;
    }
    harness_region_begin();
    const int status = arm_convolve_wrapper_s8(&ctx, &p, &q, &in, input, &filt, weights, &b, bias, &out, output);
    harness_region_end();
    return status;
}

static int pool(void)
{
    const dims_t in = {1, 25, 5, 64}, filt = {1, 25, 5, 1}, out = {1, 1, 1, 64};
    const pool_params_t p = {{5, 25}, {1, 1}, {-128, 127}};
    fill(25 * 5 * 64, 0, 0);
    const context_t ctx = {scratch, arm_avgpool_s8_get_buffer_size(1, 64)};
    harness_region_begin();
    const int status = arm_avgpool_s8(&ctx, &p, &in, input, &filt, &out, output);
    harness_region_end();
    return status;
}

static int fully_connected(void)
{
    const dims_t in = {1, 1, 1, 64}, filt = {64, 1, 1, 12}, b = {0, 0, 0, 0}, out = {1, 1, 1, 12};
    const fc_params_t p = {0, 0, 0, {-128, 127}};
    const tensor_quant_t q = {1342580370, -9};
    const context_t ctx = {0, 0};
    fill(64, 64 * 12, 12);
    harness_region_begin();
    const int status = arm_fully_connected_s8(&ctx, &p, &q, &in, input, &filt, weights, &b, bias, &out, output);
    harness_region_end();
    return status;
}

int main(void)
{
    int failed = 0;
    failed |= depthwise(58, 13, 1, 10, 4, 25, 5, 2, 1); /* layer 1 */
    failed |= depthwise(25, 5, 64, 3, 3, 25, 5, 1, 0);  /* layers 2, 4, 6, 8, 10 */
    failed |= pointwise();                              /* layers 3, 5, 7, 9, 11 */
    failed |= pool();                                   /* layer 12 */
    failed |= fully_connected();                        /* layer 13 */
    return failed != 0;
}
