/* dscnn_psoc6_driver.c: the distinct CMSIS-NN calls of the DS-CNN Small (five) and, built with
 * -DDSCNN_MEDIUM=1, DS-CNN Medium (six) benchmarks measured on a PSoC6 Cortex-M4
 * (Karthik-Swaminathan98/arm-riscv-benchmark-results, sections 3.2 and 3.3), each once in a harness
 * region, at the shapes and parameters those benchmarks state, against their prebuilt libcmsis-nn.a
 * (bench/cycle_model_check.py --dscnn links it from a checkout; none of it is here). Both benchmarks
 * pass the depthwise kernels a channel multiplier equal to the channel count, so those calls read
 * and write channels x multiplier values: the buffers below are sized for that.
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

#ifndef DSCNN_MEDIUM
#define DSCNN_MEDIUM 0
#endif
#if DSCNN_MEDIUM
#define CH 172 /* channels (and channel multiplier) of DS-CNN Medium */
#define MAX_INPUT (27 * 12 * CH)
#define MAX_OUTPUT (13 * 5 * CH * CH)
#else
#define CH 64 /* of DS-CNN Small */
#define MAX_INPUT (25 * 5 * CH)
#define MAX_OUTPUT (25 * 5 * CH * CH)
#endif

/* Buffers for the largest call (depthwise 3x3 weights of CH x CH, its CH x CH outputs per pixel); all
 * in RAM, as measured. */
static int8_t input[MAX_INPUT], weights[3 * 3 * CH * CH], output[MAX_OUTPUT];
static int32_t bias[CH], mult[CH], shift[CH];
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

static int depthwise(int in_h, int in_w, int in_c, int k_h, int k_w, int out_h, int out_w, int stride_h,
                     int stride_w, int pad)
{
    const dims_t in = {1, in_h, in_w, in_c}, filt = {1, k_h, k_w, CH}, b = {0, 0, 0, 0}, out = {1, out_h, out_w, CH};
    const dw_params_t p = {0, 0, CH, {stride_w, stride_h}, {pad, pad}, {1, 1}, {-128, 127}};
    const channel_quant_t q = {mult, shift};
    fill(in_h * in_w * in_c, k_h * k_w * in_c * CH, CH);
    const context_t ctx = {scratch, arm_depthwise_conv_wrapper_s8_get_buffer_size(&p, &in, &filt, &out)};
    if (ctx.size > (int32_t)sizeof(scratch)) {
        return 2;
    }
    harness_region_begin();
    const int status = arm_depthwise_conv_wrapper_s8(&ctx, &p, &q, &in, input, &filt, weights, &b, bias, &out, output);
    harness_region_end();
    return status;
}

static int pointwise(int h, int w)
{
    const dims_t in = {1, h, w, CH}, filt = {CH, 1, 1, CH}, b = {0, 0, 0, 0}, out = {1, h, w, CH};
    const conv_params_t p = {0, 0, {1, 1}, {1, 1}, {1, 1}, {-128, 127}};
    const channel_quant_t q = {mult, shift};
    fill(h * w * CH, CH * CH, CH);
    const context_t ctx = {scratch, arm_convolve_wrapper_s8_get_buffer_size(&p, &in, &filt, &out)};
    if (ctx.size > (int32_t)sizeof(scratch)) {
        return 2;
    }
    harness_region_begin();
    const int status = arm_convolve_wrapper_s8(&ctx, &p, &q, &in, input, &filt, weights, &b, bias, &out, output);
    harness_region_end();
    return status;
}

static int pool(int h, int w)
{
    const dims_t in = {1, h, w, CH}, filt = {1, h, w, 1}, out = {1, 1, 1, CH};
    const pool_params_t p = {{w, h}, {1, 1}, {-128, 127}};
    fill(h * w * CH, 0, 0);
    const context_t ctx = {scratch, arm_avgpool_s8_get_buffer_size(1, CH)};
    harness_region_begin();
    const int status = arm_avgpool_s8(&ctx, &p, &in, input, &filt, &out, output);
    harness_region_end();
    return status;
}

static int fully_connected(int in_c)
{
    const dims_t in = {1, 1, 1, in_c}, filt = {CH, 1, 1, 12}, b = {0, 0, 0, 0}, out = {1, 1, 1, 12};
    const fc_params_t p = {0, 0, 0, {-128, 127}};
    const tensor_quant_t q = {1342580370, -9};
    const context_t ctx = {0, 0};
    fill(CH, CH * 12, 12);
    harness_region_begin();
    const int status = arm_fully_connected_s8(&ctx, &p, &q, &in, input, &filt, weights, &b, bias, &out, output);
    harness_region_end();
    return status;
}

int main(void)
{
    int failed = 0;
#if DSCNN_MEDIUM
    /* in the benchmark's order: layer 1, layer 2, the convolution, the other depthwise layers */
    failed |= depthwise(49, 10, 1, 10, 4, 25, 10, 2, 1, 0); /* layer 1 */
    failed |= depthwise(27, 12, CH, 3, 3, 13, 5, 2, 2, 1);  /* layer 2 */
    failed |= pointwise(13, 5);                             /* layers 3, 5, 7, 9, 11 */
    failed |= depthwise(13, 5, CH, 3, 3, 13, 5, 1, 1, 0);   /* layers 4, 6, 8, 10 */
    failed |= pool(13, 5);                                  /* layer 12 */
    failed |= fully_connected(1);                           /* layer 13 (its input dims say 1 channel) */
#else
    failed |= depthwise(58, 13, 1, 10, 4, 25, 5, 2, 2, 1); /* layer 1 */
    failed |= depthwise(25, 5, CH, 3, 3, 25, 5, 1, 1, 0);  /* layers 2, 4, 6, 8, 10 */
    failed |= pointwise(25, 5);                            /* layers 3, 5, 7, 9, 11 */
    failed |= pool(25, 5);                                 /* layer 12 */
    failed |= fully_connected(CH);                         /* layer 13 */
#endif
    return failed != 0;
}
