/*
 * helia-aot kernel library: elementwise binary operators (see hk_binary.h).
 *
 * Each operator is an element function plus one shared walk over the (possibly broadcast)
 * output, so the per-element arithmetic is written once and inlined into both the flat and the
 * broadcast loop.
 */
#include "hk_binary.h"

static int32_t validate(const hk_binary_params_t *params, const void *input1, const void *input2,
                        const void *output)
{
    if (params == NULL || params->geometry.size < 0) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_broadcast_t *g = &params->geometry;
    if (g->size == 0) {
        return HK_STATUS_OK;
    }
    if (input1 == NULL || input2 == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    if (g->broadcast) {
        int64_t count = 1;
        for (int32_t k = 0; k < HK_BINARY_MAX_RANK; ++k) {
            if (g->shape[k] < 1 || g->strides1[k] < 0 || g->strides2[k] < 0) {
                return HK_STATUS_BAD_PARAM;
            }
            count *= g->shape[k];
        }
        if (count != g->size) {
            return HK_STATUS_BAD_PARAM;
        }
    }
    return HK_STATUS_OK;
}

/* The body of every kernel: validates, then applies ELEM(params, a, b) to each output element
 * in order, flat when nothing broadcasts. Expects `params`, `input1`, `input2` and `output` in
 * scope and returns from the enclosing function. */
#define BINARY_WALK(T, ELEM)                                                                   \
    do {                                                                                       \
        const int32_t status_ = validate(params, input1, input2, output);                      \
        if (status_ != HK_STATUS_OK || params->geometry.size == 0) {                           \
            return status_;                                                                    \
        }                                                                                      \
        const hk_broadcast_t *g_ = &params->geometry;                                          \
        if (!g_->broadcast) {                                                                  \
            for (int32_t i_ = 0; i_ < g_->size; ++i_) {                                        \
                output[i_] = ELEM(params, input1[i_], input2[i_]);                             \
            }                                                                                  \
            return HK_STATUS_OK;                                                               \
        }                                                                                      \
        T *out_ = output;                                                                      \
        const int32_t n4_ = g_->shape[4];                                                      \
        const int32_t a4_ = g_->strides1[4];                                                   \
        const int32_t b4_ = g_->strides2[4];                                                   \
        for (int32_t i0_ = 0; i0_ < g_->shape[0]; ++i0_) {                                     \
            const T *a0_ = input1 + i0_ * g_->strides1[0];                                     \
            const T *b0_ = input2 + i0_ * g_->strides2[0];                                     \
            for (int32_t i1_ = 0; i1_ < g_->shape[1]; ++i1_) {                                 \
                const T *a1_ = a0_ + i1_ * g_->strides1[1];                                    \
                const T *b1_ = b0_ + i1_ * g_->strides2[1];                                    \
                for (int32_t i2_ = 0; i2_ < g_->shape[2]; ++i2_) {                             \
                    const T *a2_ = a1_ + i2_ * g_->strides1[2];                                \
                    const T *b2_ = b1_ + i2_ * g_->strides2[2];                                \
                    for (int32_t i3_ = 0; i3_ < g_->shape[3]; ++i3_) {                         \
                        const T *a3_ = a2_ + i3_ * g_->strides1[3];                            \
                        const T *b3_ = b2_ + i3_ * g_->strides2[3];                            \
                        for (int32_t i4_ = 0; i4_ < n4_; ++i4_) {                              \
                            out_[i4_] = ELEM(params, a3_[i4_ * a4_], b3_[i4_ * b4_]);          \
                        }                                                                      \
                        out_ += n4_;                                                           \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        return HK_STATUS_OK;                                                                   \
    } while (0)

/* -- quantized element functions ---------------------------------------------------------- */

/* One input of ADD/SUB/SQUARED_DIFFERENCE moved to the shared fixed-point scale. */
static inline int32_t rescale_input(const hk_binary_quant_t *q, int32_t value, int32_t offset,
                                    int32_t multiplier, int32_t shift)
{
    return hk_mbqm_smaller_than_one((value + offset) * (1 << q->left_shift), multiplier, shift);
}

static inline int32_t add_sub_general(const hk_binary_quant_t *q, int32_t a, int32_t b,
                                      bool subtract)
{
    const int32_t sa = rescale_input(q, a, q->input1_offset, q->input1_multiplier,
                                     q->input1_shift);
    const int32_t sb = rescale_input(q, b, q->input2_offset, q->input2_multiplier,
                                     q->input2_shift);
    const int32_t raw = subtract ? sa - sb : sa + sb;
    const int32_t out = hk_mbqm_smaller_than_one(raw, q->output_multiplier, q->output_shift) +
                        q->output_offset;
    return hk_clamp_i32(out, q->activation_min, q->activation_max);
}

/* LiteRT's int16 power-of-two path: one input is rounded down to the other's (and the output's)
 * scale by a right shift, then the int16 sum or difference saturates. */
static inline int32_t add_sub_pot(const hk_binary_quant_t *q, int32_t a, int32_t b,
                                  bool subtract)
{
    const int32_t sa = q->input1_shift == 0 ? a : hk_rdbpot(a, -q->input1_shift);
    const int32_t sb = q->input1_shift == 0 ? hk_rdbpot(b, -q->input2_shift) : b;
    const int32_t raw = hk_clamp_i32(subtract ? sa - sb : sa + sb, -32768, 32767);
    return hk_clamp_i32(raw, q->activation_min, q->activation_max);
}

static inline int32_t mul_q(const hk_binary_quant_t *q, int32_t a, int32_t b)
{
    const int32_t product = (a + q->input1_offset) * (b + q->input2_offset);
    const int32_t out = hk_mbqm(product, q->output_multiplier, q->output_shift) +
                        q->output_offset;
    return hk_clamp_i32(out, q->activation_min, q->activation_max);
}

static inline int32_t squared_difference_q(const hk_binary_quant_t *q, int32_t a, int32_t b)
{
    const int32_t sa = rescale_input(q, a, q->input1_offset, q->input1_multiplier,
                                     q->input1_shift);
    const int32_t sb = rescale_input(q, b, q->input2_offset, q->input2_multiplier,
                                     q->input2_shift);
    const int32_t diff = sa - sb;
    const int32_t out = hk_mbqm_smaller_than_one(diff * diff, q->output_multiplier,
                                                 q->output_shift) +
                        q->output_offset;
    return hk_clamp_i32(out, q->activation_min, q->activation_max);
}

#define ADD_S8(p, a, b) ((int8_t)add_sub_general(&(p)->quant, (a), (b), false))
#define SUB_S8(p, a, b) ((int8_t)add_sub_general(&(p)->quant, (a), (b), true))
#define MUL_S8(p, a, b) ((int8_t)mul_q(&(p)->quant, (a), (b)))
#define SQDIFF_S8(p, a, b) ((int8_t)squared_difference_q(&(p)->quant, (a), (b)))
#define ADD_S16(p, a, b) ((int16_t)add_sub_general(&(p)->quant, (a), (b), false))
#define SUB_S16(p, a, b) ((int16_t)add_sub_general(&(p)->quant, (a), (b), true))
#define ADD_S16_POT(p, a, b) ((int16_t)add_sub_pot(&(p)->quant, (a), (b), false))
#define SUB_S16_POT(p, a, b) ((int16_t)add_sub_pot(&(p)->quant, (a), (b), true))
#define MUL_S16(p, a, b) ((int16_t)mul_q(&(p)->quant, (a), (b)))
/* LiteRT MaximumOp/MinimumOp: ties and unordered (NaN) comparisons return the second operand. */
#define MAXIMUM(p, a, b) ((void)(p), (a) > (b) ? (a) : (b))
#define MINIMUM(p, a, b) ((void)(p), (a) < (b) ? (a) : (b))

/* -- float element functions -------------------------------------------------------------- */

#define ADD_F32(p, a, b) hk_clamp_f32((a) + (b), (p)->float_min, (p)->float_max)
#define SUB_F32(p, a, b) hk_clamp_f32((a) - (b), (p)->float_min, (p)->float_max)
#define MUL_F32(p, a, b) hk_clamp_f32((a) * (b), (p)->float_min, (p)->float_max)

static inline float squared_difference_f32(float a, float b)
{
    const float diff = a - b;
    return diff * diff;
}

#define SQDIFF_F32(p, a, b) ((void)(p), squared_difference_f32((a), (b)))

/* -- int8 --------------------------------------------------------------------------------- */

/* Follows LiteRT reference_integer_ops::Add / BroadcastAdd6DSlow (int8). */
int32_t hk_add_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output)
{
    BINARY_WALK(int8_t, ADD_S8);
}

/* Follows LiteRT reference_ops::Sub / BroadcastQuantSubSlow (int8). */
int32_t hk_sub_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output)
{
    BINARY_WALK(int8_t, SUB_S8);
}

/* Follows LiteRT reference_integer_ops::Mul / BroadcastMul6DSlow (int8). */
int32_t hk_mul_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output)
{
    BINARY_WALK(int8_t, MUL_S8);
}

/* Follows LiteRT squared_difference.cc SquaredDifference(int8_t, int8_t, params). */
int32_t hk_squared_difference_s8(const hk_binary_params_t *params, const int8_t *input1,
                                 const int8_t *input2, int8_t *output)
{
    BINARY_WALK(int8_t, SQDIFF_S8);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MaximumOp (int8). */
int32_t hk_maximum_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                      int8_t *output)
{
    BINARY_WALK(int8_t, MAXIMUM);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MinimumOp (int8). */
int32_t hk_minimum_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                      int8_t *output)
{
    BINARY_WALK(int8_t, MINIMUM);
}

/* -- int16 -------------------------------------------------------------------------------- */

/* Follows LiteRT reference_ops::Add(int16, pot_scale) and BroadcastAdd6DSlow<int16_t>. */
int32_t hk_add_s16(const hk_binary_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output)
{
    if (params != NULL && params->quant.pot_scale) {
        BINARY_WALK(int16_t, ADD_S16_POT);
    }
    BINARY_WALK(int16_t, ADD_S16);
}

/* Follows LiteRT reference_ops::Sub / BroadcastQuantSubSlow (int16) and Sub16 (power of two). */
int32_t hk_sub_s16(const hk_binary_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output)
{
    if (params != NULL && params->quant.pot_scale) {
        BINARY_WALK(int16_t, SUB_S16_POT);
    }
    BINARY_WALK(int16_t, SUB_S16);
}

/* Follows LiteRT reference_integer_ops::Mul / BroadcastMul6DSlow (int16, zero points 0). */
int32_t hk_mul_s16(const hk_binary_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output)
{
    BINARY_WALK(int16_t, MUL_S16);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MaximumOp (int16). */
int32_t hk_maximum_s16(const hk_binary_params_t *params, const int16_t *input1,
                       const int16_t *input2, int16_t *output)
{
    BINARY_WALK(int16_t, MAXIMUM);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MinimumOp (int16). */
int32_t hk_minimum_s16(const hk_binary_params_t *params, const int16_t *input1,
                       const int16_t *input2, int16_t *output)
{
    BINARY_WALK(int16_t, MINIMUM);
}

/* -- float32 ------------------------------------------------------------------------------ */

/* Follows LiteRT reference_ops::Add / BroadcastAdd6DSlow (float, fused activation). */
int32_t hk_add_f32(const hk_binary_params_t *params, const float *input1, const float *input2,
                   float *output)
{
    BINARY_WALK(float, ADD_F32);
}

/* Follows LiteRT reference_ops::SubWithActivation / BroadcastSubSlow (float). */
int32_t hk_sub_f32(const hk_binary_params_t *params, const float *input1, const float *input2,
                   float *output)
{
    BINARY_WALK(float, SUB_F32);
}

/* Follows LiteRT reference_ops::Mul / BroadcastMul6DSlow (float, fused activation). */
int32_t hk_mul_f32(const hk_binary_params_t *params, const float *input1, const float *input2,
                   float *output)
{
    BINARY_WALK(float, MUL_F32);
}

/* Follows LiteRT squared_difference.cc SquaredDifference<float>: (a - b) * (a - b). */
int32_t hk_squared_difference_f32(const hk_binary_params_t *params, const float *input1,
                                  const float *input2, float *output)
{
    BINARY_WALK(float, SQDIFF_F32);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MaximumOp (float). */
int32_t hk_maximum_f32(const hk_binary_params_t *params, const float *input1,
                       const float *input2, float *output)
{
    BINARY_WALK(float, MAXIMUM);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MinimumOp (float). */
int32_t hk_minimum_f32(const hk_binary_params_t *params, const float *input1,
                       const float *input2, float *output)
{
    BINARY_WALK(float, MINIMUM);
}
