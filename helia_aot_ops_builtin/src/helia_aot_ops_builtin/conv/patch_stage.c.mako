<%inherit file="_operator.c.mako"/>\
<% n = len(layers) %>\
#include <string.h>

/* Patch-based execution (optimization.goal: size): operators ${", ".join(stage.operators)} run band
 * by band over the ${stage.bands} bands of ${stage.rows_per_band} row(s) of the last one's output, ${"each band keeping\n * the rows the next one reads again (streaming: nothing is computed twice)" if stage.mode == "stream" else "each band\n * computing the rows two bands both need (the halo) again"}. Each operator's output but
 * the last lives in the patch buffer, a band's rows at a time. Per band and operator: first
 * input row (in the stage input, or in the previous operator's buffer), input rows, top padding
 * of that slice, output rows, where they go (row in the stage output, or in the buffer), and
 * the rows kept from the previous band with how far they move up to the buffer's start. */
static const int32_t ${stem}_bands[${stage.bands}][${n}][7] = {
% for band in band_table:
    {${", ".join("{" + ", ".join(str(v) for v in call) + "}" for call in band)}},
% endfor
};

int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
% for j, layer in enumerate(layers):
    /* ${layer["op"].op.op_type} ${layer["op"].op.id} */
    const ${k}${layer["params_type"]} whole_${j} = {
${"".join([f"        .{name} = {value},\n" for name, value in layer["fields"]])}\
    };
% endfor
    for (int32_t b = 0; b < ${stage.bands}; ++b) {
% for j, layer in enumerate(layers):
        {
            const int32_t *const call = ${stem}_bands[b][${j}];
% if not layer["last"]:
            ${layer["op"].target.ctype} *const buffer = ${layer["output"]};
            if (call[5] > 0 && call[6] > 0) {
                memmove(buffer, buffer + (size_t)call[6] * ${layer["out_elems"]}u,
                    (size_t)call[5] * ${layer["out_elems"] * layer["op"].target.dtype.itemsize}u);
            }
% endif
            if (call[3] > 0) {
                ${k}${layer["params_type"]} part = whole_${j};
                part.input_height = call[1];
                part.pad_top = call[2];
                part.output_height = call[3];
                const int32_t status = ${k}${layer["function"]}(&part,
                    ${layer["input"]} + (size_t)call[0] * ${layer["in_elems"]}u,
                    ${layer["weights"]},
                    ${layer["bias"]},
                    ${"buffer" if not layer["last"] else layer["output"]} + (size_t)call[4] * ${layer["out_elems"]}u);
                if (status != 0) {
                    return -(${status_base} + status);
                }
            }
        }
% endfor
    }
    return 0;
}
