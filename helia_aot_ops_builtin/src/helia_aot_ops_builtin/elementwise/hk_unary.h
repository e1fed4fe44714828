/*
 * helia-aot kernel library: unary elementwise math (ABS, NEG, SQRT, RSQRT, SQUARE, EXP, LOG,
 * FLOOR, CEIL, ROUND, SIGN, SIN, COS) and LOGICAL_NOT.
 *
 * float32 kernels apply the C library function the LiteRT reference kernel calls (sqrtf, expf,
 * ...), so on one C library they give the reference's bits. int32 kernels follow the reference's
 * integer expressions. Every int8 kernel is a 256-entry table the converter fills with the
 * reference kernel's arithmetic for each possible input byte (quantized ABS, SQRT, RSQRT, EXP and
 * LOG), looked up here; int16 RSQRT, EXP and LOG use LiteRT's interpolated 513-anchor table, int16
 * ABS and SQRT compute per element as the reference does. Each kernel reads element i before writing it, so the output may reuse
 * the input's storage.
 */
#ifndef HK_UNARY_H
#define HK_UNARY_H

#include "hk_common.h"

typedef struct {
    int8_t table[256]; /* output for input byte b at table[(uint8_t)b] */
} hk_unary_lut_s8_params_t;

int32_t hk_unary_lut_s8(const hk_unary_lut_s8_params_t *params, const int8_t *input,
                        int8_t *output, size_t size);

/* int16 RSQRT, EXP and LOG: LiteRT's 513-anchor table, interpolated per input. */
typedef struct {
    int16_t table[513];
} hk_unary_lut_s16_params_t;

int32_t hk_unary_lut_s16(const hk_unary_lut_s16_params_t *params, const int16_t *input,
                         int16_t *output, size_t size);

/* int16 ABS: quantized (|q - zp_in| rescaled, saturated) or, without quantization, |x| wrapped
 * to int16 as the reference's non-quantized path does. */
typedef struct {
    int32_t input_offset;
    int32_t output_offset;
    int32_t multiplier;
    int32_t shift;
    bool needs_rescale;
    bool quantized;
} hk_abs_s16_params_t;

int32_t hk_abs_s16(const hk_abs_s16_params_t *params, const int16_t *input, int16_t *output,
                   size_t size);

/* int16 SQRT: float32 dequantize, sqrtf, divide, truncate (LiteRT's SqrtEvalQuantized). */
typedef struct {
    float input_scale;
    int32_t input_zero_point;
    float output_scale;
    int32_t output_zero_point;
} hk_sqrt_s16_params_t;

int32_t hk_sqrt_s16(const hk_sqrt_s16_params_t *params, const int16_t *input, int16_t *output,
                    size_t size);

int32_t hk_abs_f32(const float *input, float *output, size_t size);
int32_t hk_neg_f32(const float *input, float *output, size_t size);
int32_t hk_sqrt_f32(const float *input, float *output, size_t size);
int32_t hk_rsqrt_f32(const float *input, float *output, size_t size);
int32_t hk_square_f32(const float *input, float *output, size_t size);
int32_t hk_exp_f32(const float *input, float *output, size_t size);
int32_t hk_log_f32(const float *input, float *output, size_t size);
int32_t hk_floor_f32(const float *input, float *output, size_t size);
int32_t hk_ceil_f32(const float *input, float *output, size_t size);
int32_t hk_round_f32(const float *input, float *output, size_t size);
int32_t hk_sign_f32(const float *input, float *output, size_t size);
int32_t hk_sin_f32(const float *input, float *output, size_t size);
int32_t hk_cos_f32(const float *input, float *output, size_t size);

int32_t hk_abs_s32(const int32_t *input, int32_t *output, size_t size);
int32_t hk_neg_s32(const int32_t *input, int32_t *output, size_t size);
int32_t hk_sign_s32(const int32_t *input, int32_t *output, size_t size);

int32_t hk_logical_not_b(const bool *input, bool *output, size_t size);

#endif /* HK_UNARY_H */
