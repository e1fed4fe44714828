<%inherit file="_operator.c.mako"/>\
<% g = rows["geometry"] %>\
#include <string.h>
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif

<% land_vectors = g.output_row_bytes // 16 %>\
/* Lands one ${g.output_row_bytes}-byte output row from the ring: on Helium one 16-byte vector per step (a
 * small loop: the C library's memcpy moves a word per load/store pair, and every row pays it). */
static inline void ${stem}_land(void *dst, const void *src)
{
% if land_vectors > 0:
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    for (int32_t i = 0; i < ${land_vectors}; ++i, d += 16, s += 16) {
        vstrbq_u8(d, vldrbq_u8(s));
    }
% if g.output_row_bytes % 16:
    memcpy(d, s, ${g.output_row_bytes % 16}u);
% endif
#else
    memcpy(dst, src, ${g.output_row_bytes}u);
#endif
% else:
    memcpy(dst, src, ${g.output_row_bytes}u);
% endif
}

/* In place, row by row (optimization.goal: size): the output overwrites the input. Each output
 * row is computed from the input rows its window reads into a ring of ${rows["ring"]} row(s), and
 * lands in the output once no later row reads the input bytes under it${" (last row first: the output\n * is larger than the input and runs on past its end)" if rows["backward"] else ""}. */
int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
% for src, dst, count in int4_unpacks:
    (void)${k}unpack_s4(${src}, ${dst}, ${count});
% endfor
    const ${k}${params_type} whole = {
${"".join([f"        .{name} = {value},\n" for name, value in fields])}\
    };
    ${k}${params_type} row = whole;
% if rows.get("fold_channels"):
    /* The input offset folded into the bias once per layer (goal size stores no offset_bias
     * constant): ${4 * rows["fold_channels"]} bytes of this function's stack, not in the arena. */
    int32_t offset_bias[${rows["fold_channels"]}];
    const int32_t folded = ${k}depthwise_s8_offset_bias(&whole, ${args[1]}, ${args[2]}, offset_bias);
    if (folded != 0) {
        return -(${status_base} + folded);
    }
    row.offset_bias = offset_bias;
% endif
    const ${rows["in_ctype"]} *const input = ${args[0]};
    ${rows["out_ctype"]} *const output = ${args[3]};
    ${rows["out_ctype"]} *const ring = ${rows["ring_ptr"]};
% if rows["backward"]:
    int32_t lowest = ${g.output_height}; /* rows lowest .. ${g.output_height - 1} have landed */
    for (int32_t r = ${g.output_height - 1}; r >= 0; --r) {
        const int32_t top = r * ${g.stride} - ${g.pad_top};
        const int32_t y0 = top > 0 ? top : 0;
        const int32_t y1 = top + ${g.window_rows} < ${g.input_height} ? top + ${g.window_rows} : ${g.input_height};
        const int32_t reach = (r - 1) * ${g.stride} - ${g.pad_top} + ${g.window_rows};
        const int32_t busy_rows = r == 0 ? 0 : (reach < 0 ? 0 : (reach > ${g.input_height} ? ${g.input_height} : reach));
        row.input_height = y1 - y0;
        row.pad_top = y0 - top;
        row.output_height = 1;
        const int32_t status = ${k}${function}(&row, input + (size_t)y0 * ${rows["in_elems"]}u,
            ${args[1]},
            ${args[2]},
            ring + (size_t)(r % ${rows["ring"]}) * ${rows["out_elems"]}u);
        if (status != 0) {
            return -(${status_base} + status);
        }
        while (lowest > r && (lowest - 1) * ${g.output_row_bytes} >= busy_rows * ${g.input_row_bytes}) {
            --lowest;
            ${stem}_land(output + (size_t)lowest * ${rows["out_elems"]}u,
                ring + (size_t)(lowest % ${rows["ring"]}) * ${rows["out_elems"]}u);
        }
    }
% elif rows["block"] > 1:
    /* ${rows["block"]} output rows per call (the kernel's per-call work paid once per block). */
    int32_t landed = 0;
    for (int32_t r = 0; r < ${g.output_height}; r += ${rows["block"]}) {
        const int32_t n = r + ${rows["block"]} < ${g.output_height} ? ${rows["block"]} : ${g.output_height} - r;
        const int32_t top = r * ${g.stride} - ${g.pad_top};
        const int32_t y0 = top > 0 ? top : 0;
        const int32_t reach = top + (n - 1) * ${g.stride} + ${g.window_rows};
        const int32_t y1 = reach < ${g.input_height} ? reach : ${g.input_height};
        const int32_t next = (r + n) * ${g.stride} - ${g.pad_top};
        const int32_t free_rows = r + n < ${g.output_height} ? (next > 0 ? next : 0) : ${g.input_height};
        row.input_height = y1 - y0;
        row.pad_top = y0 - top;
        row.output_height = n;
        const int32_t status = ${k}${function}(&row, input + (size_t)y0 * ${rows["in_elems"]}u,
            ${args[1]},
            ${args[2]},
            ring + (size_t)(r % ${rows["ring"]}) * ${rows["out_elems"]}u);
        if (status != 0) {
            return -(${status_base} + status);
        }
        while (landed < r + n && (landed + 1) * ${g.output_row_bytes} <= free_rows * ${g.input_row_bytes}) {
            ${stem}_land(output + (size_t)landed * ${rows["out_elems"]}u,
                ring + (size_t)(landed % ${rows["ring"]}) * ${rows["out_elems"]}u);
            ++landed;
        }
    }
% else:
    int32_t landed = 0;
    for (int32_t r = 0; r < ${g.output_height}; ++r) {
        const int32_t top = r * ${g.stride} - ${g.pad_top};
        const int32_t y0 = top > 0 ? top : 0;
        const int32_t y1 = top + ${g.window_rows} < ${g.input_height} ? top + ${g.window_rows} : ${g.input_height};
        const int32_t next = (r + 1) * ${g.stride} - ${g.pad_top};
        const int32_t free_rows = r + 1 < ${g.output_height} ? (next > 0 ? next : 0) : ${g.input_height};
        row.input_height = y1 - y0;
        row.pad_top = y0 - top;
        row.output_height = 1;
        const int32_t status = ${k}${function}(&row, input + (size_t)y0 * ${rows["in_elems"]}u,
            ${args[1]},
            ${args[2]},
            ring + (size_t)(r % ${rows["ring"]}) * ${rows["out_elems"]}u);
        if (status != 0) {
            return -(${status_base} + status);
        }
        while (landed <= r && (landed + 1) * ${g.output_row_bytes} <= free_rows * ${g.input_row_bytes}) {
            ${stem}_land(output + (size_t)landed * ${rows["out_elems"]}u,
                ring + (size_t)(landed % ${rows["ring"]}) * ${rows["out_elems"]}u);
            ++landed;
        }
    }
% endif
    return 0;
}
