/*
 * helia-aot kernel library: what the int8 FULLY_CONNECTED paths share (internal to the
 * fully_connected family).
 *
 * hk_fully_connected.c is the portable reference. Where hk_isa.h chose Helium, or the DSP
 * extension with the integer requantization, it hands every checked int8 call to
 * hk_fully_connected_s8_fast, which hk_fully_connected_mve.c or hk_fully_connected_dsp.c
 * defines (the other compiles to nothing): each path runs fc_general_walk, below, with its own
 * packed groups, so nothing on it crosses a file boundary.
 */
#ifndef HK_FULLY_CONNECTED_PATHS_H
#define HK_FULLY_CONNECTED_PATHS_H

#include "hk_fully_connected.h"

#include "hk_fc_dot.h"
#include "hk_fc_requant.h"
#include "hk_isa.h"

#if HK_HAVE_MVE || (HK_HAVE_DSP && defined(HK_FC_REQUANT_PATH_INTEGER))
#define HK_FC_S8_FAST 1
/* params checked (packed weights with folded_bias); returns HK_STATUS_OK. */
int32_t hk_fully_connected_s8_fast(const hk_fully_connected_params_t *params, const int8_t *input,
                                   const int8_t *filter, const int32_t *bias, int8_t *output);
#else
#define HK_FC_S8_FAST 0
#endif

/* Kept out of line so that a call the short paths take does not pay the prologue (registers,
 * stack frame) of the general loops it never runs. */
#if defined(__GNUC__)
#define FC_NOINLINE __attribute__((noinline))
#else
#define FC_NOINLINE
#endif

/* One input row against every unit. The fields are copied out of the params because the int8
 * stores may alias anything, which would make the compiler reload them for every output. */
typedef struct {
    const int8_t *filter;
    const int32_t *bias;
    const int32_t *folded; /* folded_bias, or NULL */
    const double *scale;
    int32_t depth;
    int32_t units;
    int32_t per_channel;
    int32_t input_offset;
    int32_t filter_offset;
    int32_t offset;
    int32_t act_min;
    int32_t act_max;
    const int32_t *mult; /* requant_multiplier, or NULL */
    int32_t left;
    int32_t right;
} fc_s8_t;

/* Not forced inline: with the integer requantization of cores without a double FPU it is
 * sizeable, and it runs once per output, not per multiply (`inline` only keeps a file that does
 * not call it free of an unused-function warning). */
static inline int8_t fc_output_s8(const fc_s8_t *k, uint32_t acc, double scale)
{
    const int32_t value = hk_fc_requant_bounded((int32_t)acc, scale);
    const int32_t shifted = (int32_t)((uint32_t)value + (uint32_t)k->offset);
    return (int8_t)hk_clamp_i32(shifted, k->act_min, k->act_max);
}

/* The packed groups of four units (a path's fc_groups_fn) and their accumulators' starting values. */
#define FC_GROUP_ACC(acc, c, row)                                                             \
    uint32_t acc[4] = {(uint32_t)(c)[0] + (row), (uint32_t)(c)[1] + (row),                    \
                       (uint32_t)(c)[2] + (row), (uint32_t)(c)[3] + (row)}

/* A path's packed groups: every full group of four units of one input row (`row`: the filter
 * offset's share of each sum). */
typedef void (*fc_groups_fn)(const fc_s8_t *k, const int8_t *x, uint32_t row, int8_t *out);

/* folded_bias[o], computed when the converter did not: bias + input_offset * (sum of the
 * unit's weights + depth * filter_offset), modulo 2^32. */
static inline uint32_t fc_fold_bias(const fc_s8_t *k, const int8_t *w, int32_t o)
{
    if (k->folded != NULL) {
        return (uint32_t)k->folded[o];
    }
    uint32_t weights = (uint32_t)k->depth * (uint32_t)k->filter_offset;
    for (int32_t d = 0; d < k->depth; ++d) {
        weights += (uint32_t)(int32_t)w[d];
    }
    return (k->bias != NULL ? (uint32_t)k->bias[o] : 0u) + (uint32_t)k->input_offset * weights;
}

static inline int32_t fc_sum_s8(const int8_t *x, int32_t depth)
{
    int32_t total = 0;
    for (int32_t d = 0; d < depth; ++d) {
        total += x[d];
    }
    return total;
}

/* Follows LiteRT reference_integer_ops::FullyConnected / FullyConnectedPerChannel with float
 * scales (int8, double-precision requantization): packed groups through the path's `groups`,
 * then row-major units. Always inlined with a constant `groups`, so each path compiles to the
 * loop it would have written out. */
HK_INLINE void fc_general_walk(const hk_fully_connected_params_t *p, const int8_t *input,
                               const int8_t *filter, const int32_t *bias, int8_t *output,
                               fc_groups_fn groups)
{
    const fc_s8_t k = {filter, bias, p->folded_bias, p->output_scale, p->input_features,
                       p->output_features, p->per_channel ? 1 : 0, p->input_offset,
                       p->filter_offset, p->output_offset, hk_max_i32(p->act_min, -128),
                       hk_min_i32(p->act_max, 127), p->requant_multiplier, p->requant_left,
                       p->requant_right};
    /* Packed weights: the full groups first, then the other units row-major. */
    const int32_t grouped = p->packed_filter ? k.units / HK_FC_PACK_ROWS * HK_FC_PACK_ROWS : 0;
    const int8_t *rest =
        filter + (size_t)(grouped / HK_FC_PACK_ROWS) * hk_fc_packed_group_size(k.depth);
    for (int32_t b = 0; b < p->batches; ++b) {
        const int8_t *x = input + (size_t)b * (size_t)k.depth;
        int8_t *out = output + (size_t)b * (size_t)k.units;
        const uint32_t row = k.filter_offset != 0
                                 ? (uint32_t)k.filter_offset * (uint32_t)fc_sum_s8(x, k.depth)
                                 : 0u;
        if (grouped > 0) {
            groups(&k, x, row, out);
        }
        for (int32_t o = grouped; o < k.units; ++o) {
            const int8_t *w = rest + (size_t)(o - grouped) * (size_t)k.depth;
            const uint32_t acc = hk_fc_dot1_s8(x, w, k.depth, fc_fold_bias(&k, w, o) + row);
            out[o] = fc_output_s8(&k, acc, k.scale[k.per_channel ? o : 0]);
        }
    }
}

#endif /* HK_FULLY_CONNECTED_PATHS_H */
