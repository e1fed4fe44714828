<%inherit file="_operator.c.mako"/>
/* {batches, input height, input width, depth, output height, output width, element bytes,
 *  align_corners, half_pixel_centers} */
static const ${k}resize_params_t ${stem}_params = {${params}};

int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
    const int32_t status = ${k}${function}(&${stem}_params, ${src}, ${dst});
    return status == 0 ? 0 : -(${status_base} + status);
}
