<%inherit file="_operator.c.mako"/>\
static const ${k}exops_gain_clip_params_t ${stem}_params = {
    .input_offset = ${input_offset},
    .output_offset = ${output_offset},
    .gain = ${gain},
    .shift = ${shift},
    .clip_min = ${clip_min},
    .clip_max = ${clip_max},
};

${code_placement}int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
    const int8_t *input = (const int8_t *)ctx->tensor_ptrs[${input_enum}];
    int8_t *output = (int8_t *)ctx->tensor_ptrs[${output_enum}];
    const int32_t status = ${k}exops_gain_clip_s8(&${stem}_params, input, output, ${size});
    /* A kernel failure becomes a code of the range reserved for custom operators. */
    return status == 0 ? 0 : (int32_t)${prefix}_status_custom_first + status;
}
