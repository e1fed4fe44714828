/*
 * helia-aot kernel library: MEAN and SUM over constant axes (see hk_reduce.h).
 */
#include "hk_reduce.h"

static int32_t validate(const hk_reduce_params_t *params, const void *input, const void *output)
{
    if (params == NULL || input == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    int64_t count = 1;
    for (int32_t k = 0; k < HK_REDUCE_MAX_DIMS; ++k) {
        if (params->kept_extents[k] < 1 || params->reduced_extents[k] < 1 ||
            params->kept_strides[k] < 0 || params->reduced_strides[k] < 0) {
            return HK_STATUS_BAD_PARAM;
        }
        count *= params->reduced_extents[k];
    }
    return count == params->count ? HK_STATUS_OK : HK_STATUS_BAD_PARAM;
}

/* The body of every kernel: for each output in order, ACC acc = 0; acc = ADD(acc, x) over its
 * inputs in row-major order; output = FINISH(params, acc). Expects `params`, `input` and
 * `output` in scope and returns from the enclosing function. */
#define REDUCE_WALK(T, ACC, ADD, FINISH)                                                       \
    do {                                                                                       \
        const int32_t status_ = validate(params, input, output);                               \
        if (status_ != HK_STATUS_OK) {                                                         \
            return status_;                                                                    \
        }                                                                                      \
        const int32_t *ke_ = params->kept_extents;                                             \
        const int32_t *ks_ = params->kept_strides;                                             \
        const int32_t *re_ = params->reduced_extents;                                          \
        const int32_t *rs_ = params->reduced_strides;                                          \
        int32_t o_ = 0;                                                                        \
        for (int32_t k0_ = 0; k0_ < ke_[0]; ++k0_) {                                           \
            for (int32_t k1_ = 0; k1_ < ke_[1]; ++k1_) {                                       \
                for (int32_t k2_ = 0; k2_ < ke_[2]; ++k2_) {                                   \
                    for (int32_t k3_ = 0; k3_ < ke_[3]; ++k3_) {                               \
                        const T *base_ = input + k0_ * ks_[0] + k1_ * ks_[1] + k2_ * ks_[2] +  \
                                         k3_ * ks_[3];                                         \
                        ACC acc_ = 0;                                                          \
                        for (int32_t r0_ = 0; r0_ < re_[0]; ++r0_) {                           \
                            const T *p0_ = base_ + r0_ * rs_[0];                               \
                            for (int32_t r1_ = 0; r1_ < re_[1]; ++r1_) {                       \
                                const T *p1_ = p0_ + r1_ * rs_[1];                             \
                                for (int32_t r2_ = 0; r2_ < re_[2]; ++r2_) {                   \
                                    const T *p2_ = p1_ + r2_ * rs_[2];                         \
                                    for (int32_t r3_ = 0; r3_ < re_[3]; ++r3_) {               \
                                        acc_ = ADD(acc_, p2_[r3_ * rs_[3]]);                   \
                                    }                                                          \
                                }                                                              \
                            }                                                                  \
                        }                                                                      \
                        output[o_++] = FINISH(params, acc_);                                   \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        return HK_STATUS_OK;                                                                   \
    } while (0)

#define ADD_F32(acc, x) ((acc) + (x))
/* LiteRT accumulates quantized sums in int32 and lets them wrap. */
#define ADD_I32(acc, x) ((int32_t)((uint32_t)(acc) + (uint32_t)(int32_t)(x)))

#define SUM_F32(p, acc) ((void)(p), (acc))
#define MEAN_F32(p, acc) ((acc) / (float)(p)->count)

/* LiteRT QuantizedMeanOrSum's epilogue: the zero-point correction is formed in 64 bits and
 * truncated to the int32 accumulator type before rescaling. */
static inline int32_t finish_quantized(const hk_reduce_params_t *p, int32_t sum, int32_t lo,
                                       int32_t hi)
{
    const int64_t corrected = (int64_t)sum - (int64_t)p->input_zero_point * p->count;
    const int32_t shifted = (int32_t)(uint32_t)(uint64_t)corrected;
    const int32_t scaled = hk_mbqm(shifted, p->multiplier, p->shift);
    return hk_clamp_i32((int32_t)((uint32_t)scaled + (uint32_t)p->output_zero_point), lo, hi);
}

#define FINISH_S8(p, acc) ((int8_t)finish_quantized((p), (acc), -128, 127))
#define FINISH_S16(p, acc) ((int16_t)finish_quantized((p), (acc), -32768, 32767))

/* Follows LiteRT reference_ops::ReduceGeneric with the kSum reducer (float). */
int32_t hk_reduce_sum_f32(const hk_reduce_params_t *params, const float *input, float *output)
{
    REDUCE_WALK(float, float, ADD_F32, SUM_F32);
}

/* Follows LiteRT reference_ops::Mean<float, float>: a float sum divided by the element count. */
int32_t hk_reduce_mean_f32(const hk_reduce_params_t *params, const float *input, float *output)
{
    REDUCE_WALK(float, float, ADD_F32, MEAN_F32);
}

/* Follows LiteRT reference_ops::QuantizedMeanOrSum<int8_t, int32_t>. */
int32_t hk_reduce_sum_mean_s8(const hk_reduce_params_t *params, const int8_t *input,
                              int8_t *output)
{
    REDUCE_WALK(int8_t, int32_t, ADD_I32, FINISH_S8);
}

/* Follows LiteRT reference_ops::QuantizedMeanOrSum<int16_t, int32_t> (zero points 0). */
int32_t hk_reduce_sum_mean_s16(const hk_reduce_params_t *params, const int16_t *input,
                               int16_t *output)
{
    REDUCE_WALK(int16_t, int32_t, ADD_I32, FINISH_S16);
}
