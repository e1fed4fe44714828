<%inherit file="_operator.c.mako"/>\
% for table in tables:
/* ${table.comment} */
static const ${table.ctype} ${stem}_${table.name}[${len(table.values)}] = {
    ${",\n    ".join(", ".join(table.values[i:i + 4]) for i in range(0, len(table.values), 4))}
};

% endfor
int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
    const ${k}${params_type} params = {
% for name, value in fields:
        .${name} = ${value},
% endfor
    };
    const int32_t status = ${k}${function}(&params, ${",\n        ".join(args)});
    return status == 0 ? 0 : -(${status_base} + status);
}
