/*
 * helia-aot kernel library: elementwise binary operators (see hk_binary.h), the portable
 * reference.
 *
 * Each operator is an element function plus one shared walk over the (possibly broadcast)
 * output, so the per-element arithmetic is written once and inlined into both the flat and the
 * broadcast loop. The rescaling uses hk_requant, which equals LiteRT's
 * MultiplyByQuantizedMultiplier with a 64-bit multiply instead of its nudge-and-divide.
 *
 * int8 ADD, SUB and MUL offer each run of outputs to their fast path first (hk_binary_paths.h:
 * hk_binary_mve.c on Helium, hk_binary_scalar.c elsewhere); the element loop here computes the
 * runs a fast path declines.
 */
#include "hk_binary.h"

#include "hk_binary_paths.h"
#include "hk_binary_wide.h"
#include "hk_requant.h"

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

/* The innermost rows of a broadcast walk: `a` and `b` are the element offsets in input 1 and
 * input 2 of the row's first element, `index` its position along the outer dimensions. */
typedef struct {
    int32_t index[HK_BINARY_MAX_RANK - 1];
    int32_t a;
    int32_t b;
} binary_row_t;

/* Steps to the next row, outer dimensions in row-major order; false after the last one. */
HK_INLINE bool binary_next_row(const hk_broadcast_t *g, binary_row_t *row)
{
    for (int32_t k = HK_BINARY_MAX_RANK - 2; k >= 0; --k) {
        row->a += g->strides1[k];
        row->b += g->strides2[k];
        if (++row->index[k] < g->shape[k]) {
            return true;
        }
        row->a -= g->shape[k] * g->strides1[k];
        row->b -= g->shape[k] * g->strides2[k];
        row->index[k] = 0;
    }
    return false;
}

/* An integer element function: the output value of the input values a and b. */
typedef int32_t (*binary_int_fn)(const hk_binary_quant_t *q, int32_t a, int32_t b);

/* A float element function. */
typedef float (*binary_float_fn)(const hk_binary_params_t *p, float a, float b);

/* A fast path's run (hk_binary_paths.h). */
typedef bool (*binary_run_fn)(const hk_binary_quant_t *q, const int8_t *a, int32_t sa,
                              const int8_t *b, int32_t sb, int8_t *out, int32_t n);

/*
 * The body of every integer kernel: validates, then applies `elem` to each output element in
 * order, flat when nothing broadcasts; int16 elements when `wide`, else int8. `wide` and `elem`
 * are constants at every call and the walk is always inlined, so each kernel gets its own loops
 * with its element function inlined into them.
 */
HK_INLINE int32_t binary_walk_int(const hk_binary_params_t *params, const void *input1,
                                  const void *input2, void *output, bool wide, binary_int_fn elem)
{
    const int32_t status = validate(params, input1, input2, output);
    if (status != HK_STATUS_OK || params->geometry.size == 0) {
        return status;
    }
    /* A local copy: the output stores cannot alias it, so its fields stay in registers. */
    const hk_binary_params_t local = *params;
    const hk_broadcast_t *g = &local.geometry;
    const int8_t *a8 = (const int8_t *)input1, *b8 = (const int8_t *)input2;
    const int16_t *a16 = (const int16_t *)input1, *b16 = (const int16_t *)input2;
    int8_t *out8 = (int8_t *)output;
    int16_t *out16 = (int16_t *)output;
    if (!g->broadcast) {
        for (int32_t i = 0; i < g->size; ++i) {
            if (wide) {
                out16[i] = (int16_t)elem(&local.quant, a16[i], b16[i]);
            } else {
                out8[i] = (int8_t)elem(&local.quant, a8[i], b8[i]);
            }
        }
        return HK_STATUS_OK;
    }
    const int32_t n4 = g->shape[4];
    const int32_t a4 = g->strides1[4];
    const int32_t b4 = g->strides2[4];
    binary_row_t row = {{0}, 0, 0};
    int32_t out = 0;
    do {
        for (int32_t i4 = 0; i4 < n4; ++i4) {
            const int32_t a = row.a + i4 * a4, b = row.b + i4 * b4;
            if (wide) {
                out16[out + i4] = (int16_t)elem(&local.quant, a16[a], b16[b]);
            } else {
                out8[out + i4] = (int8_t)elem(&local.quant, a8[a], b8[b]);
            }
        }
        out += n4;
    } while (binary_next_row(g, &row));
    return HK_STATUS_OK;
}

/* binary_walk_int for float32. */
HK_INLINE int32_t binary_walk_f32(const hk_binary_params_t *params, const float *input1,
                                  const float *input2, float *output, binary_float_fn elem)
{
    const int32_t status = validate(params, input1, input2, output);
    if (status != HK_STATUS_OK || params->geometry.size == 0) {
        return status;
    }
    const hk_binary_params_t local = *params;
    const hk_broadcast_t *g = &local.geometry;
    if (!g->broadcast) {
        for (int32_t i = 0; i < g->size; ++i) {
            output[i] = elem(&local, input1[i], input2[i]);
        }
        return HK_STATUS_OK;
    }
    const int32_t n4 = g->shape[4];
    const int32_t a4 = g->strides1[4];
    const int32_t b4 = g->strides2[4];
    binary_row_t row = {{0}, 0, 0};
    float *out = output;
    do {
        for (int32_t i4 = 0; i4 < n4; ++i4) {
            out[i4] = elem(&local, input1[row.a + i4 * a4], input2[row.b + i4 * b4]);
        }
        out += n4;
    } while (binary_next_row(g, &row));
    return HK_STATUS_OK;
}

/* The int8 kernels with a fast path: each run (the whole tensor when nothing broadcasts, else
 * each innermost row) goes to `run`, and element by element to `elem` where `run` declines. */
HK_INLINE int32_t binary_walk_runs_s8(const hk_binary_params_t *params, const int8_t *input1,
                                      const int8_t *input2, int8_t *output, binary_run_fn run,
                                      binary_int_fn elem)
{
    const int32_t status = validate(params, input1, input2, output);
    if (status != HK_STATUS_OK || params->geometry.size == 0) {
        return status;
    }
    const hk_binary_params_t local = *params;
    const hk_broadcast_t *g = &local.geometry;
    const hk_binary_quant_t *q = &local.quant;
    const bool flat = !g->broadcast;
    const int32_t n = flat ? g->size : g->shape[4];
    const int32_t sa = flat ? 1 : g->strides1[4];
    const int32_t sb = flat ? 1 : g->strides2[4];
    binary_row_t row = {{0}, 0, 0};
    int8_t *out = output;
    do {
        const int8_t *a = input1 + row.a, *b = input2 + row.b;
        if (!run(q, a, sa, b, sb, out, n)) {
            for (int32_t i = 0; i < n; ++i) {
                out[i] = (int8_t)elem(q, a[i * sa], b[i * sb]);
            }
        }
        out += n;
    } while (!flat && binary_next_row(g, &row));
    return HK_STATUS_OK;
}

#if HK_BINARY_WIDE_FAST || HK_BINARY_F32_FAST
/* The int16 and float32 kernels with a Helium run (hk_binary_wide.h): as binary_walk_runs_s8,
 * each run goes to the run function for `op`, element by element to `elem` where it declines.
 * `f32` selects float elements (then `felem`), else int16 (`ielem`). */
HK_INLINE int32_t binary_walk_runs_wide(const hk_binary_params_t *params, const void *input1,
                                        const void *input2, void *output, int32_t op, bool f32,
                                        binary_int_fn ielem, binary_float_fn felem)
{
    (void)ielem; /* one of the two is unused where only one kind of run is compiled */
    (void)felem;
    const int32_t status = validate(params, input1, input2, output);
    if (status != HK_STATUS_OK || params->geometry.size == 0) {
        return status;
    }
    const hk_binary_params_t local = *params;
    const hk_broadcast_t *g = &local.geometry;
    const bool flat = !g->broadcast;
    const int32_t n = flat ? g->size : g->shape[4];
    const int32_t sa = flat ? 1 : g->strides1[4];
    const int32_t sb = flat ? 1 : g->strides2[4];
    binary_row_t row = {{0}, 0, 0};
    int32_t done = 0;
    do {
        if (f32) {
#if HK_BINARY_F32_FAST
            const float *a = (const float *)input1 + row.a, *b = (const float *)input2 + row.b;
            float *out = (float *)output + done;
            if (!hk_binary_run_f32(op, &local, a, sa, b, sb, out, n)) {
                for (int32_t i = 0; i < n; ++i) {
                    out[i] = felem(&local, a[i * sa], b[i * sb]);
                }
            }
#endif
        } else {
#if HK_BINARY_WIDE_FAST
            const int16_t *a = (const int16_t *)input1 + row.a;
            const int16_t *b = (const int16_t *)input2 + row.b;
            int16_t *out = (int16_t *)output + done;
            if (!hk_binary_run_s16(op, &local.quant, a, sa, b, sb, out, n)) {
                for (int32_t i = 0; i < n; ++i) {
                    out[i] = (int16_t)ielem(&local.quant, a[i * sa], b[i * sb]);
                }
            }
#endif
        }
        done += n;
    } while (!flat && binary_next_row(g, &row));
    return HK_STATUS_OK;
}
#endif

/* -- quantized element functions ---------------------------------------------------------- */

/* One input of ADD/SUB/SQUARED_DIFFERENCE moved to the shared fixed-point scale. Their shifts
 * only ever shift right (LiteRT's MultiplyByQuantizedMultiplierSmallerThanOneExp). */
HK_INLINE int32_t rescale_input(const hk_binary_quant_t *q, int32_t value, int32_t offset,
                                    int32_t multiplier, int32_t shift)
{
    return hk_requant((value + offset) * (1 << q->left_shift), multiplier, hk_min_i32(shift, 0));
}

HK_INLINE int32_t add_sub_general(const hk_binary_quant_t *q, int32_t a, int32_t b,
                                      bool subtract)
{
    const int32_t sa = rescale_input(q, a, q->input1_offset, q->input1_multiplier,
                                     q->input1_shift);
    const int32_t sb = rescale_input(q, b, q->input2_offset, q->input2_multiplier,
                                     q->input2_shift);
    const int32_t raw = subtract ? sa - sb : sa + sb;
    const int32_t out =
        hk_requant(raw, q->output_multiplier, hk_min_i32(q->output_shift, 0)) + q->output_offset;
    return hk_clamp_i32(out, q->activation_min, q->activation_max);
}

/* LiteRT's int16 power-of-two path: one input is rounded down to the other's (and the output's)
 * scale by a right shift, then the int16 sum or difference saturates. */
HK_INLINE int32_t add_sub_pot(const hk_binary_quant_t *q, int32_t a, int32_t b,
                                  bool subtract)
{
    const int32_t sa = q->input1_shift == 0 ? a : hk_rdbpot(a, -q->input1_shift);
    const int32_t sb = q->input1_shift == 0 ? hk_rdbpot(b, -q->input2_shift) : b;
    const int32_t raw = hk_clamp_i32(subtract ? sa - sb : sa + sb, -32768, 32767);
    return hk_clamp_i32(raw, q->activation_min, q->activation_max);
}

HK_INLINE int32_t mul_q(const hk_binary_quant_t *q, int32_t a, int32_t b)
{
    const int32_t product = (a + q->input1_offset) * (b + q->input2_offset);
    const int32_t out = hk_requant(product, q->output_multiplier, q->output_shift) +
                        q->output_offset;
    return hk_clamp_i32(out, q->activation_min, q->activation_max);
}

HK_INLINE int32_t squared_difference_q(const hk_binary_quant_t *q, int32_t a, int32_t b)
{
    const int32_t sa = rescale_input(q, a, q->input1_offset, q->input1_multiplier,
                                     q->input1_shift);
    const int32_t sb = rescale_input(q, b, q->input2_offset, q->input2_multiplier,
                                     q->input2_shift);
    const int32_t diff = sa - sb;
    const int32_t out =
        hk_requant(diff * diff, q->output_multiplier, hk_min_i32(q->output_shift, 0)) +
        q->output_offset;
    return hk_clamp_i32(out, q->activation_min, q->activation_max);
}

HK_INLINE int32_t add_q(const hk_binary_quant_t *q, int32_t a, int32_t b)
{
    return add_sub_general(q, a, b, false);
}

HK_INLINE int32_t sub_q(const hk_binary_quant_t *q, int32_t a, int32_t b)
{
    return add_sub_general(q, a, b, true);
}

HK_INLINE int32_t add_pot_q(const hk_binary_quant_t *q, int32_t a, int32_t b)
{
    return add_sub_pot(q, a, b, false);
}

HK_INLINE int32_t sub_pot_q(const hk_binary_quant_t *q, int32_t a, int32_t b)
{
    return add_sub_pot(q, a, b, true);
}

/* LiteRT MaximumOp/MinimumOp: ties and unordered (NaN) comparisons return the second operand. */
HK_INLINE int32_t maximum_q(const hk_binary_quant_t *q, int32_t a, int32_t b)
{
    (void)q;
    return a > b ? a : b;
}

HK_INLINE int32_t minimum_q(const hk_binary_quant_t *q, int32_t a, int32_t b)
{
    (void)q;
    return a < b ? a : b;
}

/* -- float element functions -------------------------------------------------------------- */

HK_INLINE float add_f32(const hk_binary_params_t *p, float a, float b)
{
    return hk_clamp_f32(a + b, p->float_min, p->float_max);
}

HK_INLINE float sub_f32(const hk_binary_params_t *p, float a, float b)
{
    return hk_clamp_f32(a - b, p->float_min, p->float_max);
}

HK_INLINE float mul_f32(const hk_binary_params_t *p, float a, float b)
{
    return hk_clamp_f32(a * b, p->float_min, p->float_max);
}

HK_INLINE float squared_difference_f32(const hk_binary_params_t *p, float a, float b)
{
    (void)p;
    const float diff = a - b;
    return diff * diff;
}

HK_INLINE float maximum_f32(const hk_binary_params_t *p, float a, float b)
{
    (void)p;
    return a > b ? a : b;
}

HK_INLINE float minimum_f32(const hk_binary_params_t *p, float a, float b)
{
    (void)p;
    return a < b ? a : b;
}

/* -- int8 --------------------------------------------------------------------------------- */

/* Follows LiteRT reference_integer_ops::Add / BroadcastAdd6DSlow (int8). */
int32_t hk_add_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output)
{
    return binary_walk_runs_s8(params, input1, input2, output, hk_add_run_s8, add_q);
}

/* Follows LiteRT reference_ops::Sub / BroadcastQuantSubSlow (int8). */
int32_t hk_sub_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output)
{
    return binary_walk_runs_s8(params, input1, input2, output, hk_sub_run_s8, sub_q);
}

/* Follows LiteRT reference_integer_ops::Mul / BroadcastMul6DSlow (int8). */
int32_t hk_mul_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                  int8_t *output)
{
    return binary_walk_runs_s8(params, input1, input2, output, hk_mul_run_s8, mul_q);
}

/* Follows LiteRT squared_difference.cc SquaredDifference(int8_t, int8_t, params). */
int32_t hk_squared_difference_s8(const hk_binary_params_t *params, const int8_t *input1,
                                 const int8_t *input2, int8_t *output)
{
    return binary_walk_int(params, input1, input2, output, false, squared_difference_q);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MaximumOp (int8). */
int32_t hk_maximum_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                      int8_t *output)
{
    return binary_walk_int(params, input1, input2, output, false, maximum_q);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MinimumOp (int8). */
int32_t hk_minimum_s8(const hk_binary_params_t *params, const int8_t *input1, const int8_t *input2,
                      int8_t *output)
{
    return binary_walk_int(params, input1, input2, output, false, minimum_q);
}

/* -- int16 -------------------------------------------------------------------------------- */

/* Follows LiteRT reference_ops::Add(int16, pot_scale) and BroadcastAdd6DSlow<int16_t>. */
int32_t hk_add_s16(const hk_binary_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output)
{
    if (params != NULL && params->quant.pot_scale) {
        return binary_walk_int(params, input1, input2, output, true, add_pot_q);
    }
#if HK_BINARY_WIDE_FAST
    return binary_walk_runs_wide(params, input1, input2, output, HK_BINARY_ADD, false, add_q,
                                 add_f32);
#else
    return binary_walk_int(params, input1, input2, output, true, add_q);
#endif
}

/* Follows LiteRT reference_ops::Sub / BroadcastQuantSubSlow (int16) and Sub16 (power of two). */
int32_t hk_sub_s16(const hk_binary_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output)
{
    if (params != NULL && params->quant.pot_scale) {
        return binary_walk_int(params, input1, input2, output, true, sub_pot_q);
    }
    return binary_walk_int(params, input1, input2, output, true, sub_q);
}

/* Follows LiteRT reference_integer_ops::Mul / BroadcastMul6DSlow (int16, zero points 0). */
int32_t hk_mul_s16(const hk_binary_params_t *params, const int16_t *input1,
                   const int16_t *input2, int16_t *output)
{
#if HK_BINARY_WIDE_FAST
    return binary_walk_runs_wide(params, input1, input2, output, HK_BINARY_MUL, false, mul_q,
                                 mul_f32);
#else
    return binary_walk_int(params, input1, input2, output, true, mul_q);
#endif
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MaximumOp (int16). */
int32_t hk_maximum_s16(const hk_binary_params_t *params, const int16_t *input1,
                       const int16_t *input2, int16_t *output)
{
    return binary_walk_int(params, input1, input2, output, true, maximum_q);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MinimumOp (int16). */
int32_t hk_minimum_s16(const hk_binary_params_t *params, const int16_t *input1,
                       const int16_t *input2, int16_t *output)
{
    return binary_walk_int(params, input1, input2, output, true, minimum_q);
}

/* -- float32 ------------------------------------------------------------------------------ */

/* Follows LiteRT reference_ops::Add / BroadcastAdd6DSlow (float, fused activation). */
int32_t hk_add_f32(const hk_binary_params_t *params, const float *input1, const float *input2,
                   float *output)
{
#if HK_BINARY_F32_FAST
    return binary_walk_runs_wide(params, input1, input2, output, HK_BINARY_ADD, true, add_q,
                                 add_f32);
#else
    return binary_walk_f32(params, input1, input2, output, add_f32);
#endif
}

/* Follows LiteRT reference_ops::SubWithActivation / BroadcastSubSlow (float). */
int32_t hk_sub_f32(const hk_binary_params_t *params, const float *input1, const float *input2,
                   float *output)
{
#if HK_BINARY_F32_FAST
    return binary_walk_runs_wide(params, input1, input2, output, HK_BINARY_SUB, true, sub_q,
                                 sub_f32);
#else
    return binary_walk_f32(params, input1, input2, output, sub_f32);
#endif
}

/* Follows LiteRT reference_ops::Mul / BroadcastMul6DSlow (float, fused activation). */
int32_t hk_mul_f32(const hk_binary_params_t *params, const float *input1, const float *input2,
                   float *output)
{
#if HK_BINARY_F32_FAST
    return binary_walk_runs_wide(params, input1, input2, output, HK_BINARY_MUL, true, mul_q,
                                 mul_f32);
#else
    return binary_walk_f32(params, input1, input2, output, mul_f32);
#endif
}

/* Follows LiteRT squared_difference.cc SquaredDifference<float>: (a - b) * (a - b). */
int32_t hk_squared_difference_f32(const hk_binary_params_t *params, const float *input1,
                                  const float *input2, float *output)
{
    return binary_walk_f32(params, input1, input2, output, squared_difference_f32);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MaximumOp (float). */
int32_t hk_maximum_f32(const hk_binary_params_t *params, const float *input1,
                       const float *input2, float *output)
{
    return binary_walk_f32(params, input1, input2, output, maximum_f32);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MinimumOp (float). */
int32_t hk_minimum_f32(const hk_binary_params_t *params, const float *input1,
                       const float *input2, float *output)
{
    return binary_walk_f32(params, input1, input2, output, minimum_f32);
}
