<%inherit file="_operator.c.mako"/>\
% for header in includes:
#include <${header}>

% endfor
% for table in tables:
/* ${table.comment} */
static const ${table.ctype} ${stem}_${table.name}[${len(table.values)}] = {
    ${",\n    ".join(", ".join(table.values[i:i + 4]) for i in range(0, len(table.values), 4))}
};

% endfor
% if params is not None:
/* ${params_comment} */
static const ${k}${params_type} ${stem}_params = ${params};

% endif
int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
% for src, dst, count in int4_unpacks:
    (void)${k}unpack_s4(${src}, ${dst}, ${count});
% endfor
% if fields is not None:
    const ${k}${params_type} params = {
${"".join([f"        .{name} = {value},\n" for name, value in fields])}\
    };
    const int32_t status = ${k}${function}(&params, ${",\n        ".join(args)});
% else:
    const int32_t status = ${k}${function}(${",\n        ".join(([f"&{stem}_params"] if params is not None else []) + args)});
% endif
    return status == 0 ? 0 : -(${status_base} + status);
}
