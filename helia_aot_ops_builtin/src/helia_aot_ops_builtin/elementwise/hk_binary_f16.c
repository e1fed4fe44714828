/*
 * helia-aot kernel library: float16 elementwise binary operators (see hk_binary_f16.h).
 */
#include "hk_binary_f16.h"

typedef enum {
    F16_ADD,
    F16_SUB,
    F16_MUL,
    F16_MAXIMUM,
    F16_MINIMUM,
    F16_DIV,
    F16_SQUARED_DIFFERENCE
} f16_binary_kind_t;

/* DIV and SQUARED_DIFFERENCE have no single-rounding Helium form (MVE has no divide, and a float16
 * difference squared rounds twice): they take the float element path on every core. */
HK_INLINE bool f16_has_lanes(f16_binary_kind_t kind)
{
    return kind != F16_DIV && kind != F16_SQUARED_DIFFERENCE;
}

/* One element in float (exact for these operations on float16 operands), clamped for the
 * arithmetic operators and rounded once to float16. MAXIMUM/MINIMUM compare like the reference
 * (a > b ? a : b), so a NaN in input 1 picks input 2. */
HK_INLINE hk_f16_t f16_element(f16_binary_kind_t kind, const hk_binary_f16_params_t *p, hk_f16_t a,
                               hk_f16_t b)
{
    const float x = (float)a;
    const float y = (float)b;
    switch (kind) {
    case F16_ADD:
        return hk_f16_clamp(x + y, p->float_min, p->float_max);
    case F16_SUB:
        return hk_f16_clamp(x - y, p->float_min, p->float_max);
    case F16_MUL:
        return hk_f16_clamp(x * y, p->float_min, p->float_max);
    case F16_DIV:
        return hk_f16_clamp(x / y, p->float_min, p->float_max);
    case F16_SQUARED_DIFFERENCE:
        return hk_f16_round((x - y) * (x - y));
    case F16_MAXIMUM:
        return x > y ? a : b;
    default:
        return x < y ? a : b;
    }
}

#if HK_HAVE_MVE_F16
/* A contiguous run of `n` elements on Helium (hk_binary_f16_mve.c); kind has lanes. */
HK_INLINE void f16_run_mve(f16_binary_kind_t kind, const hk_binary_f16_params_t *p,
                           const hk_f16_t *a, const hk_f16_t *b, hk_f16_t *out, int32_t n)
{
    switch (kind) {
    case F16_ADD:
        hk_add_f16_run_mve(p, a, b, out, n);
        break;
    case F16_SUB:
        hk_sub_f16_run_mve(p, a, b, out, n);
        break;
    case F16_MUL:
        hk_mul_f16_run_mve(p, a, b, out, n);
        break;
    case F16_MAXIMUM:
        hk_maximum_f16_run_mve(p, a, b, out, n);
        break;
    default:
        hk_minimum_f16_run_mve(p, a, b, out, n);
        break;
    }
}
#endif

/* Follows LiteRT reference_ops::BroadcastBinaryFunction6DSlow's walk for float operators: every
 * output element reads its two (possibly repeated) input elements. */
HK_INLINE int32_t f16_binary(f16_binary_kind_t kind, const hk_binary_f16_params_t *params,
                             const uint16_t *input1, const uint16_t *input2, uint16_t *output)
{
    if (params == NULL || input1 == NULL || input2 == NULL || output == NULL || params->geometry.size < 0) {
        return HK_STATUS_BAD_PARAM;
    }
    const hk_binary_f16_params_t p = *params;
    const hk_binary_f16_geometry_t *g = &p.geometry;
    const hk_f16_t *a = (const hk_f16_t *)(const void *)input1;
    const hk_f16_t *b = (const hk_f16_t *)(const void *)input2;
    hk_f16_t *out = (hk_f16_t *)(void *)output;
    if (!g->broadcast) {
#if HK_HAVE_MVE_F16
        if (f16_has_lanes(kind)) {
            f16_run_mve(kind, &p, a, b, out, g->size);
            return HK_STATUS_OK;
        }
#endif
        for (int32_t i = 0; i < g->size; ++i) {
            out[i] = f16_element(kind, &p, a[i], b[i]);
        }
        return HK_STATUS_OK;
    }
    int32_t o = 0;
    for (int32_t i0 = 0; i0 < g->shape[0]; ++i0) {
        for (int32_t i1 = 0; i1 < g->shape[1]; ++i1) {
            for (int32_t i2 = 0; i2 < g->shape[2]; ++i2) {
                for (int32_t i3 = 0; i3 < g->shape[3]; ++i3) {
                    const int32_t ra = i0 * g->strides1[0] + i1 * g->strides1[1] + i2 * g->strides1[2] +
                                       i3 * g->strides1[3];
                    const int32_t rb = i0 * g->strides2[0] + i1 * g->strides2[1] + i2 * g->strides2[2] +
                                       i3 * g->strides2[3];
                    const int32_t n = g->shape[4];
#if HK_HAVE_MVE_F16
                    if (f16_has_lanes(kind) && g->strides1[4] == 1 && g->strides2[4] == 1) {
                        f16_run_mve(kind, &p, a + ra, b + rb, out + o, n);
                        o += n;
                        continue;
                    }
#endif
                    for (int32_t i4 = 0; i4 < n; ++i4) {
                        out[o++] = f16_element(kind, &p, a[ra + i4 * g->strides1[4]], b[rb + i4 * g->strides2[4]]);
                    }
                }
            }
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Add (float): a + b, then the fused activation clamp. */
int32_t hk_add_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                   const uint16_t *input2, uint16_t *output)
{
    return f16_binary(F16_ADD, params, input1, input2, output);
}

/* Follows LiteRT reference_ops::Sub (float): a - b, then the fused activation clamp. */
int32_t hk_sub_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                   const uint16_t *input2, uint16_t *output)
{
    return f16_binary(F16_SUB, params, input1, input2, output);
}

/* Follows LiteRT reference_ops::Mul (float): a * b, then the fused activation clamp. */
int32_t hk_mul_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                   const uint16_t *input2, uint16_t *output)
{
    return f16_binary(F16_MUL, params, input1, input2, output);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MaximumOp (a > b ? a : b). */
int32_t hk_maximum_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                       const uint16_t *input2, uint16_t *output)
{
    return f16_binary(F16_MAXIMUM, params, input1, input2, output);
}

/* Follows LiteRT reference_ops::MaximumMinimumBroadcastSlow with MinimumOp (a < b ? a : b). */
int32_t hk_minimum_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                       const uint16_t *input2, uint16_t *output)
{
    return f16_binary(F16_MINIMUM, params, input1, input2, output);
}

/* Follows LiteRT reference_ops::Div (float): a / b, then the fused activation clamp. */
int32_t hk_div_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                   const uint16_t *input2, uint16_t *output)
{
    return f16_binary(F16_DIV, params, input1, input2, output);
}

/* Follows LiteRT's float SQUARED_DIFFERENCE: (a - b) * (a - b). */
int32_t hk_squared_difference_f16(const hk_binary_f16_params_t *params, const uint16_t *input1,
                                  const uint16_t *input2, uint16_t *output)
{
    return f16_binary(F16_SQUARED_DIFFERENCE, params, input1, input2, output);
}
