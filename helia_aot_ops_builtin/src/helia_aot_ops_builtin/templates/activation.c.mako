<%inherit file="_operator.c.mako"/>\
% if needs_math:
#include <math.h>

% endif
% if params_init is not None:
/* ${params_comment} */
static const ${k}${params_type} ${stem}_params = ${params_init};

% endif
int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
    const int32_t status = ${k}${function}(${",\n        ".join(args)});
    return status == 0 ? 0 : -(${status_base} + status);
}
