<%inherit file="_operator.c.mako"/>
% if copies:
/* Each entry walks one N-d box of elements: {rank, element bytes, source offset, destination
 * offset, counts, source strides, destination strides}, offsets and strides in bytes. */
static const ${k}strided_copy_params_t ${stem}_copies[${len(copies)}] = {
% for c in copies:
    ${c["init"]}, /* ${c["comment"]} */
% endfor
};
% endif
% if fill is not None and fill["literal"] is not None:

static const ${fill["ctype"]} ${stem}_pad_value = ${fill["literal"]};
% endif

int32_t ${stem}_run(${prefix}_model_context_t *ctx)
{
    int32_t status = 0;
% if not copies and fill is None:
    (void)ctx; /* every copy is empty */
% endif
% if fill is not None:
    status = ${k}fill_pattern(${fill["dst"]}, ${fill["count"]},
        ${fill["pattern"] if fill["pattern"] is not None else "&" + stem + "_pad_value"}, ${fill["elem_size"]});
    if (status != 0) {
        return -(${status_base} + status);
    }
% endif
% for i, c in enumerate(copies):
    status = ${k}strided_copy(&${stem}_copies[${i}], ${c["src"]}, ${c["dst"]});
    if (status != 0) {
        return -(${status_base} + status);
    }
% endfor
    return status;
}
