/* ${prefix}_tensors.c: arena storage or binding, and the tables of ${prefix}_tensors.h. */
#include "${prefix}_common.h"

% if not bound_regions:
% for r in c_regions:
% if r.cold:
extern const uint8_t ${r.blob}[${r.total_size}];
% else:
static ${PREFIX}_PUT_IN_${r.memory} uint8_t ${r.buffer}[${r.total_size}] ${PREFIX}_ALIGNED(${r.alignment});
% endif
% endfor

const void * const ${prefix}_arena_buffers[${prefix}_num_arena_buffers] = {
% for r in c_regions:
    [${r.enum}] = ${r.blob if r.cold else r.buffer},
% endfor
};
% else:
% for r in c_regions:
% if not r.bound:
% if r.cold:
extern const uint8_t ${r.blob}[${r.total_size}];
% else:
static ${PREFIX}_PUT_IN_${r.memory} uint8_t ${r.buffer}[${r.total_size}] ${PREFIX}_ALIGNED(${r.alignment});
% endif
% endif
% endfor
% if len(bound_regions) < len(c_regions):

% endif
/* Module-global binding table: ${prefix}_context_init installs it in every context. */
% if len(bound_regions) < len(c_regions):
static const void *${prefix}_arena_table[${prefix}_num_arena_buffers] = {
% for r in c_regions:
% if not r.bound:
    [${r.enum}] = ${r.blob if r.cold else r.buffer},
% endif
% endfor
};
% else:
static const void *${prefix}_arena_table[${prefix}_num_arena_buffers];
% endif

int32_t ${prefix}_bind_arena(${prefix}_arena_region_t region, void *buffer, size_t size)
{
    const int64_t index = (int64_t)region;
    if (index < 0 || index >= (int64_t)${prefix}_num_arena_buffers) {
        return ${prefix}_status_bind_unknown_region;
    }
    if (buffer == NULL) {
        return ${prefix}_status_bind_null_buffer;
    }
    if (size < ${prefix}_arena_sizes[index]) {
        return ${prefix}_status_bind_undersized;
    }
    if (((uintptr_t)buffer % ${prefix}_arena_alignments[index]) != 0u) {
        return ${prefix}_status_bind_misaligned;
    }
    ${prefix}_arena_table[index] = buffer;
    return ${prefix}_status_ok;
}

int32_t ${prefix}_bind_arenas(void * const *buffers, const size_t *sizes, size_t n)
{
    size_t i;
    if (buffers == NULL || sizes == NULL) {
        return ${prefix}_status_bind_bulk_null_argument;
    }
    if (n != (size_t)${prefix}_num_arena_buffers) {
        return ${prefix}_status_bind_bulk_wrong_count;
    }
    for (i = 0; i < n; ++i) {
        const int32_t status = ${prefix}_bind_arena((${prefix}_arena_region_t)i, buffers[i], sizes[i]);
        if (status != ${prefix}_status_ok) {
            return status;
        }
    }
    return ${prefix}_status_ok;
}

const void * const *${prefix}_arena_buffers_table_view(void)
{
    return ${prefix}_arena_table;
}

int8_t ${prefix}_arena_buffers_table_any_unbound(void)
{
    int32_t i;
    for (i = 0; i < (int32_t)${prefix}_num_arena_buffers; ++i) {
        if (${prefix}_arena_table[i] == NULL) {
            return 1;
        }
    }
    return 0;
}
% endif

const size_t ${prefix}_arena_sizes[${prefix}_num_arena_buffers] = {
% for r in c_regions:
    [${r.enum}] = ${r.total_size}u,
% endfor
};

const size_t ${prefix}_arena_alignments[${prefix}_num_arena_buffers] = {
% for r in c_regions:
    [${r.enum}] = ${r.alignment}u,
% endfor
};

const ${prefix}_tensor_ident_t ${prefix}_inputs_id[${prefix}_num_inputs] = {${", ".join(f"{prefix}_{io.name}" for io in inputs)}};
const int32_t ${prefix}_inputs_len[${prefix}_num_inputs] = {${", ".join(str(io.length) for io in inputs)}};
const int32_t ${prefix}_inputs_zero_point[${prefix}_num_inputs] = {${", ".join(str(io.zero_point) for io in inputs)}};
const float ${prefix}_inputs_scale[${prefix}_num_inputs] = {${", ".join(io.scale for io in inputs)}};
const ${prefix}_tensor_ident_t ${prefix}_outputs_id[${prefix}_num_outputs] = {${", ".join(f"{prefix}_{io.name}" for io in outputs)}};
const int32_t ${prefix}_outputs_len[${prefix}_num_outputs] = {${", ".join(str(io.length) for io in outputs)}};
const int32_t ${prefix}_outputs_zero_point[${prefix}_num_outputs] = {${", ".join(str(io.zero_point) for io in outputs)}};
const float ${prefix}_outputs_scale[${prefix}_num_outputs] = {${", ".join(io.scale for io in outputs)}};

const ${prefix}_tensor_descriptor_t ${prefix}_tensor_descriptors[${prefix}_num_tensors] = {
## One Python string per row, written once (see tensors.h.mako).
${"".join([f"    {{{prefix}_tensor_type_{t.kind}, {c_regions[t.region].enum if t.region is not None else prefix + '_num_arena_buffers'}, {t.offset}u, {t.size}u}}, /* {prefix}_tensor_{t.ident} */\n" for t in tensors])}\
};
% if staged_regions:

% for r in staged_regions:
extern const uint8_t ${r.source}[${r.used}];
% endfor

const ${prefix}_constant_blob_t ${prefix}_constant_blobs[${prefix}_num_constant_blobs] = {
% for r in staged_regions:
    {${r.enum}, ${r.source}, ${r.used}u},
% endfor
};
% endif
