/* ${prefix}_context.c: wiring a context to the arenas${" and hydrating staged constants" if staged_regions else ""}. */
#include "${prefix}_common.h"

static const ${prefix}_tensor_io_t ${prefix}_input_table[${prefix}_num_inputs] = {
% for io in inputs:
    {${prefix}_${io.name}, NULL, ${prefix}_input_${loop.index}_nbytes, ${io.zero_point}, ${io.scale}},
% endfor
};

static const ${prefix}_tensor_io_t ${prefix}_output_table[${prefix}_num_outputs] = {
% for io in outputs:
    {${prefix}_${io.name}, NULL, ${prefix}_output_${loop.index}_nbytes, ${io.zero_point}, ${io.scale}},
% endfor
};
% if staged_regions:

/* Set once staged constants are in their arenas; cleared by every context_init. */
static bool ${prefix}_hydrated = false;

bool ${prefix}_is_hydrated(void)
{
    return ${prefix}_hydrated;
}

void ${prefix}_mark_hydrated(void)
{
    ${prefix}_hydrated = true;
}

void ${prefix}_clear_hydrated(void)
{
    ${prefix}_hydrated = false;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((weak))
#endif
int32_t ${prefix}_hydrate_constants(${prefix}_model_context_t *ctx)
{
    int32_t i;
    if (ctx == NULL) {
        return ${prefix}_status_null_context;
    }
    if (ctx->arena_buffers == NULL) {
        return ${prefix}_status_hydrate_uninited_context;
    }
    if (${prefix}_hydrated) {
        return ${prefix}_status_ok;
    }
    for (i = 0; i < ${prefix}_num_constant_blobs; ++i) {
        const ${prefix}_constant_blob_t *blob = &${prefix}_constant_blobs[i];
        if (blob->source == NULL || ctx->arena_buffers[blob->arena] == NULL) {
            return ${prefix}_status_hydrate_null_blob;
        }
        memcpy((void *)(uintptr_t)ctx->arena_buffers[blob->arena], blob->source, blob->size);
    }
    ${prefix}_mark_hydrated();
    return ${prefix}_status_ok;
}
% endif

int32_t ${prefix}_context_init(${prefix}_model_context_t *ctx)
{
    int32_t i;
    if (ctx == NULL) {
        return ${prefix}_status_null_context;
    }
    ctx->_lifecycle_state = 0u;
% if staged_regions:
    ${prefix}_clear_hydrated();
% endif
% if not bound_regions:
    ctx->arena_buffers = ${prefix}_arena_buffers;
% else:
    if (${prefix}_arena_buffers_table_any_unbound()) {
        return ${prefix}_status_context_arena_unbound;
    }
    ctx->arena_buffers = ${prefix}_arena_buffers_table_view();
% endif
    ctx->arena_sizes = ${prefix}_arena_sizes;
    for (i = 0; i < ${prefix}_num_tensors; ++i) {
% if c_regions:
        const ${prefix}_tensor_descriptor_t *d = &${prefix}_tensor_descriptors[i];
        ctx->tensor_ptrs[i] = (int64_t)d->region >= (int64_t)${prefix}_num_arena_buffers
                                  ? NULL
                                  : (int8_t *)(uintptr_t)ctx->arena_buffers[d->region] + d->offset;
% else:
        /* No arena at all (every tensor is the caller's: memory.bind_inputs and bind_outputs). */
        ctx->tensor_ptrs[i] = NULL;
% endif
    }
    for (i = 0; i < ${prefix}_num_inputs; ++i) {
        ctx->inputs[i] = ${prefix}_input_table[i];
        ctx->inputs[i].data = ctx->tensor_ptrs[${prefix}_input_table[i].id];
    }
    for (i = 0; i < ${prefix}_num_outputs; ++i) {
        ctx->outputs[i] = ${prefix}_output_table[i];
        ctx->outputs[i].data = ctx->tensor_ptrs[${prefix}_output_table[i].id];
    }
    return ${prefix}_status_ok;
}
