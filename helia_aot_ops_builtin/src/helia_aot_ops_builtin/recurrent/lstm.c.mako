<%inherit file="_operator.c.mako"/>\
% for call in calls:
/* ${call["comment"]} */
static const ${k}${params_type} ${stem}_${call["name"]} = ${call["params"]};

% endfor
int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
    int32_t status = 0;
% for call in calls:
    if (status == 0) {
        const ${k}${weights_type} weights = ${call["weights"]};
        status = ${k}${function}(&${stem}_${call["name"]}, &weights, ${",\n            ".join(call["args"])});
    }
% endfor
    return status == 0 ? 0 : -(${status_base} + status);
}
