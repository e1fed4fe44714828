<%inherit file="_operator.c.mako"/>\
<% n = len(layers) %>\
/* Patch-based execution (optimization.goal: size): operators ${", ".join(stage.operators)} run band
 * by band over the ${stage.bands} bands of ${stage.rows_per_band} row(s) of the last one's output. Per band
 * and operator: first input row, input rows, top padding of that slice, output rows. Each
 * operator's output but the last lives in the patch buffer, a band's rows at a time; the rows
 * two bands both need (the halo) are computed by each. */
static const int32_t ${stem}_bands[${stage.bands}][${n}][4] = {
% for band in band_table:
    {${", ".join("{" + ", ".join(str(v) for v in call) + "}" for call in band)}},
% endfor
};

int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
% for j, layer in enumerate(layers):
    /* ${layer["op"].op.op_type} ${layer["op"].op.id} */
    const ${k}${layer["params_type"]} whole_${j} = {
% for name, value in layer["fields"]:
        .${name} = ${value},
% endfor
    };
% endfor
    for (int32_t b = 0; b < ${stage.bands}; ++b) {
% for j, layer in enumerate(layers):
        {
            ${k}${layer["params_type"]} part = whole_${j};
            part.input_height = ${stem}_bands[b][${j}][1];
            part.pad_top = ${stem}_bands[b][${j}][2];
            part.output_height = ${stem}_bands[b][${j}][3];
% if layer["first"]:
            const ${layer["op"].source.ctype} *const input = ${layer["input"]} + (size_t)${stem}_bands[b][0][0] * ${layer["in_elems"]}u;
% else:
            const ${layer["op"].source.ctype} *const input = ${layer["input"]};
% endif
% if layer["last"]:
            ${layer["op"].target.ctype} *const output = ${layer["output"]} + (size_t)b * ${stage.rows_per_band * layer["out_elems"]}u;
% else:
            ${layer["op"].target.ctype} *const output = ${layer["output"]};
% endif
            const int32_t status = ${k}${layer["function"]}(&part, input, ${layer["weights"]}, ${layer["bias"]}, output);
            if (status != 0) {
                return -(${status_base} + status);
            }
        }
% endfor
    }
    return 0;
}
