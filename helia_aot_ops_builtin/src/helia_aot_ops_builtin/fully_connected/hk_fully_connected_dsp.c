/*
 * helia-aot kernel library: the DSP-extension path of int8 FULLY_CONNECTED with the integer
 * requantization (see hk_fully_connected_paths.h): the input row widened once for every group,
 * one scale decoded once per call, or the integer requantization where the converter proved it.
 */
#include "hk_fully_connected_paths.h"

#if HK_HAVE_DSP && defined(HK_FC_REQUANT_PATH_INTEGER)
/* hk_fc_requant_decoded, then the output offset and the clamp: the DSP path's form of
 * fc_output_s8, the scale decoded by the caller. */
HK_INLINE int8_t fc_output_decoded_s8(const fc_s8_t *k, uint32_t acc, const hk_fc_scale_t *s)
{
    const int32_t value = hk_fc_requant_decoded((int32_t)acc, s);
    const int32_t shifted = (int32_t)((uint32_t)value + (uint32_t)k->offset);
    return (int8_t)hk_clamp_i32(shifted, k->act_min, k->act_max);
}

/*
 * The integer requantization the converter proved equal to the double one for this layer
 * (requant_multiplier, fc_integer_requant.py), one output in a dozen instructions instead of
 * the exact double emulation: u = sat32(acc << left); t = floor((2 u m + 2^31) / 2^32), which
 * SMULL computes as floor((u m + 2^30) / 2^31) and which never leaves int32 (0 < m < 2^31);
 * r = floor((t + 2^(right - 1)) / 2^right), taken as (t >> right) plus the bit below, which
 * cannot overflow; then the offset and the clamp.
 */
HK_INLINE int8_t fc_output_int_s8(int32_t a, int32_t m, int32_t left, int32_t right,
                                  int32_t offset, int32_t lo, int32_t hi)
{
    int32_t u = (int32_t)((uint32_t)a << left);
    if ((u >> left) != a) { /* acc << left leaves int32: saturate */
        u = a < 0 ? INT32_MIN : INT32_MAX;
    }
#if defined(__GNUC__)
    int32_t below, above;
    __asm__("smull %0, %1, %2, %3\n\t"
            "adds %0, %0, #0x40000000\n\t"
            "adc %1, %1, #0"
            : "=&r"(below), "=&r"(above)
            : "r"(u), "r"(m)
            : "cc");
    const int32_t t = (int32_t)(((uint32_t)above << 1) | ((uint32_t)below >> 31));
#else
    const int32_t t = (int32_t)(((int64_t)u * m + (INT64_C(1) << 30)) >> 31);
#endif
    const int32_t r = (t >> right) + ((t >> (right - 1)) & 1);
    return (int8_t)hk_clamp_i32(r + offset, lo, hi);
}

/* Inputs of at most this many features are widened once per row on the stack (twice their
 * bytes), for every group to read (hk_fc_dot4_widened_s8). */
#define FC_WIDEN_MAX 256

/* One group's dot products, from the widened row when there is one. */
HK_INLINE void fc_dot4_dsp(const fc_s8_t *k, const int8_t *x, const int32_t *xw,
                           const int8_t *w, uint32_t *acc)
{
#if defined(HK_FC_ASM)
    if (xw != NULL) {
        hk_fc_dot4_widened_s8(x, xw, w, k->depth, acc);
        return;
    }
#else
    (void)xw;
#endif
    hk_fc_dot4_packed_s8(x, w, k->depth, acc);
}

/* The packed groups on the DSP extension (no double FPU): a row of at most FC_WIDEN_MAX
 * features is widened once for all groups, and one scale for every unit is decoded once per
 * call instead of once per output (hk_fc_scale_decode). */
/* Built without a frame pointer whatever the build's flags: the widened loop's four-load
 * step (hk_fc_dot.h) takes fourteen registers. */
static void fc_groups_s8(const fc_s8_t *k, const int8_t *x, uint32_t row, int8_t *out)
    __attribute__((optimize("omit-frame-pointer")));
static void fc_groups_s8(const fc_s8_t *k, const int8_t *x, uint32_t row, int8_t *out)
{
    const size_t group_size = hk_fc_packed_group_size(k->depth);
    const int8_t *w = k->filter;
    const int32_t *c = k->folded;
    const double *s = k->scale;
    int32_t widened[FC_WIDEN_MAX / 2];
    const int32_t *xw = NULL;
#if defined(HK_FC_ASM)
    if (k->depth >= 16 && k->depth <= FC_WIDEN_MAX) {
        hk_fc_widen_s8(x, k->depth, widened);
        xw = widened;
    }
#else
    (void)widened;
#endif
    if (k->mult != NULL) {
        const int32_t *m = k->mult;
        const int32_t left = k->left, right = k->right, offset = k->offset;
        const int32_t lo = k->act_min, hi = k->act_max;
        for (int32_t g = k->units / HK_FC_PACK_ROWS; g > 0; --g) {
            FC_GROUP_ACC(acc, c, row);
            fc_dot4_dsp(k, x, xw, w, acc);
            for (int32_t j = 0; j < HK_FC_PACK_ROWS; ++j) {
                out[j] = fc_output_int_s8((int32_t)acc[j], m[j], left, right, offset, lo, hi);
            }
            w += group_size;
            c += 4;
            m += 4;
            out += 4;
        }
        return;
    }
    if (!k->per_channel) {
        const hk_fc_scale_t scale = hk_fc_scale_decode(s[0]);
        for (int32_t g = k->units / HK_FC_PACK_ROWS; g > 0; --g) {
            FC_GROUP_ACC(acc, c, row);
            fc_dot4_dsp(k, x, xw, w, acc);
            for (int32_t j = 0; j < HK_FC_PACK_ROWS; ++j) {
                out[j] = fc_output_decoded_s8(k, acc[j], &scale);
            }
            w += group_size;
            c += 4;
            out += 4;
        }
        return;
    }
    for (int32_t g = k->units / HK_FC_PACK_ROWS; g > 0; --g) {
        FC_GROUP_ACC(acc, c, row);
        fc_dot4_dsp(k, x, xw, w, acc);
        for (int32_t j = 0; j < HK_FC_PACK_ROWS; ++j) {
            const hk_fc_scale_t scale = hk_fc_scale_decode(s[j]);
            out[j] = fc_output_decoded_s8(k, acc[j], &scale);
        }
        w += group_size;
        c += 4;
        s += 4;
        out += 4;
    }
}

int32_t hk_fully_connected_s8_fast(const hk_fully_connected_params_t *params, const int8_t *input,
                                   const int8_t *filter, const int32_t *bias, int8_t *output)
{
    fc_general_walk(params, input, filter, bias, output, fc_groups_s8);
    return HK_STATUS_OK;
}

#endif /* HK_HAVE_DSP && HK_FC_REQUANT_PATH_INTEGER */
