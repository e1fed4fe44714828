<%inherit file="_operator.c.mako"/>\
<% K = k.upper() %>\
/* Helium: the receptive fields gathered into columns, filters packed at conversion
 * (hk_conv_s8_im2col). Other cores: the call this convolution makes without it. */
int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
% for src, dst, count in int4_unpacks:
    (void)${k}unpack_s4(${src}, ${dst}, ${count});
% endfor
#if ${K}HAVE_MVE
    const ${k}${params_type} params = {
${"".join([f"        .{name} = {value},\n" for name, value in fields])}\
    };
    const int32_t status = ${k}${function}(&params, ${",\n        ".join(args)});
#else
    const ${k}${fallback["params_type"]} params = {
${"".join([f"        .{name} = {value},\n" for name, value in fallback["fields"]])}\
    };
    const int32_t status = ${k}${fallback["function"]}(&params, ${",\n        ".join(fallback["args"])});
#endif
    return status == 0 ? 0 : -(${status_base} + status);
}
