<%inherit file="_operator.c.mako"/>
/* {batch, outer, axis, inner, indices per batch, element bytes, index bytes} */
static const ${k}gather_params_t ${stem}_params = {${params}};

int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
    /* An index outside the gathered axis fails the run, as it fails LiteRT's invoke. */
    const int32_t status = ${k}gather(&${stem}_params, ${src}, ${indices}, ${dst});
    return status == 0 ? 0 : -(${status_base} + status);
}
