<%inherit file="_operator.c.mako"/>
/* {outer, axis, inner, is ARG_MAX, int64 output} */
static const ${k}argminmax_params_t ${stem}_params = {${params}};

int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
    const int32_t status = ${k}argminmax_${suffix}(&${stem}_params, ${src}, ${dst});
    return status == 0 ? 0 : -(${status_base} + status);
}
