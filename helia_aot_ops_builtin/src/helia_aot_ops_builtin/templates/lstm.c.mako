<%inherit file="_operator.c.mako"/>\
/* ${params_comment} */
static const ${k}${params_type} ${stem}_params = ${params};

int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
    const ${k}${weights_type} weights = ${weights};
    const int32_t status = ${k}${function}(&${stem}_params, &weights, ${",\n        ".join(args)});
    return status == 0 ? 0 : -(${status_base} + status);
}
