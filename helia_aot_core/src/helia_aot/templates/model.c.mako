/* ${prefix}_model.c: arenas, tensor placement and the operator schedule of ${model_comment}. */
#include "${prefix}_model.h"
% for op in operators:
#include "${op.stem}.h"
% endfor

#define ${PREFIX}_INIT_MAGIC 0x48454c41u
#define ${PREFIX}_NOT_PLACED 0xffffu

% for r in regions:
% if r.cold:
extern const uint8_t ${r.symbol}[${r.total_size}];
% elif allocate_arenas:
static uint8_t ${r.symbol}[${r.total_size}] ${PREFIX}_ALIGNED(${r.alignment}) ${PREFIX}_PUT_IN_${r.memory};
% endif
% endfor

typedef struct {
    uint16_t region;
    uint32_t offset;
} ${prefix}_placement_t;

/* Region and byte offset of every tensor, in ${prefix}_tensor_id_t order. */
static const ${prefix}_placement_t ${prefix}_placements[${prefix}_num_tensors] = {
% for t in tensors:
    {${t.region_c}, ${t.offset}u}, /* ${t.name} */
% endfor
};

static const uint32_t ${prefix}_arena_sizes[${prefix}_num_arenas] = {${", ".join(f"{r.total_size}u" for r in regions)}};
static const uint32_t ${prefix}_arena_alignments[${prefix}_num_arenas] = {${", ".join(f"{r.alignment}u" for r in regions)}};
/* 1 for constant arenas the module stores itself (read in place); the others take a buffer. */
static const uint8_t ${prefix}_arena_is_constant[${prefix}_num_arenas] = {${", ".join("1" if r.cold else "0" for r in regions)}};

static const ${prefix}_tensor_io_t ${prefix}_input_table[${prefix}_num_inputs] = {
% for io in inputs:
    {${prefix}_${io.name}, NULL, ${io.nbytes}u, ${io.zero_point}, ${io.scale}},
% endfor
};

static const ${prefix}_tensor_io_t ${prefix}_output_table[${prefix}_num_outputs] = {
% for io in outputs:
    {${prefix}_${io.name}, NULL, ${io.nbytes}u, ${io.zero_point}, ${io.scale}},
% endfor
};
% if schedule == "table":

typedef int32_t (*${prefix}_op_fn_t)(${prefix}_model_context_t *ctx);

typedef struct {
    ${prefix}_op_fn_t init;
    ${prefix}_op_fn_t run;
} ${prefix}_op_entry_t;

/* The schedule: one entry per operator in execution order (a NULL init is skipped). */
static const ${prefix}_op_entry_t ${prefix}_schedule[${prefix}_num_operators] = {
% for op in operators:
    {${f"{op.stem}_init" if op.has_init else "NULL"}, ${op.stem}_run},
% endfor
};
% endif

int32_t ${prefix}_bind_arena(${prefix}_model_context_t *ctx, int32_t region_id, void *buffer, uint32_t size)
{
    if (ctx == NULL) {
        return ${prefix}_status_null_context;
    }
    if (region_id < 0 || region_id >= ${prefix}_num_arenas || ${prefix}_arena_is_constant[region_id]) {
        return ${prefix}_status_bad_arena_id;
    }
    if (buffer == NULL) {
        return ${prefix}_status_arena_unbound;
    }
    if (size < ${prefix}_arena_sizes[region_id]) {
        return ${prefix}_status_arena_too_small;
    }
    if (((uintptr_t)buffer % ${prefix}_arena_alignments[region_id]) != 0u) {
        return ${prefix}_status_arena_misaligned;
    }
    ctx->arenas[region_id] = (uint8_t *)buffer;
    return ${prefix}_status_ok;
}

int32_t ${prefix}_bind_arenas(${prefix}_model_context_t *ctx, const ${prefix}_arena_binding_t *bindings, int32_t count)
{
    int32_t i;
    if (ctx == NULL) {
        return ${prefix}_status_null_context;
    }
    if (bindings == NULL && count > 0) {
        return ${prefix}_status_arena_unbound;
    }
    for (i = 0; i < count; ++i) {
        const int32_t status = ${prefix}_bind_arena(ctx, bindings[i].region_id, bindings[i].buffer, bindings[i].size);
        if (status != ${prefix}_status_ok) {
            return status;
        }
    }
% if not allocate_arenas:
    for (i = 0; i < ${prefix}_num_arenas; ++i) {
        if (!${prefix}_arena_is_constant[i] && ctx->arenas[i] == NULL) {
            return ${prefix}_status_arena_unbound;
        }
    }
% endif
    return ${prefix}_status_ok;
}

int32_t ${prefix}_model_init(${prefix}_model_context_t *ctx)
{
    int32_t i;
    if (ctx == NULL) {
        return ${prefix}_status_null_context;
    }
    ctx->initialized = 0u;
% for r in regions:
% if r.cold:
    ctx->arenas[${r.id}] = (uint8_t *)(uintptr_t)${r.symbol};
% elif allocate_arenas:
    ctx->arenas[${r.id}] = ${r.symbol};
% else:
    if (ctx->arenas[${r.id}] == NULL) {
        return ${prefix}_status_arena_unbound;
    }
% endif
% endfor
% for r in regions:
% if r.staged:
    /* Staged constants: ${r.used} bytes from ${r.source_memory} into ${r.memory}. */
    memcpy(ctx->arenas[${r.id}], ${r.source_symbol} + ${r.source_offset}u, ${r.used}u);
% elif r.role == "persistent":
    /* Persistent state starts from zero at every init. */
    memset(ctx->arenas[${r.id}], 0, ${r.total_size}u);
% endif
% endfor
    for (i = 0; i < ${prefix}_num_tensors; ++i) {
        const ${prefix}_placement_t *p = &${prefix}_placements[i];
        ctx->tensor_ptrs[i] = p->region == ${PREFIX}_NOT_PLACED ? NULL : (void *)(ctx->arenas[p->region] + p->offset);
    }
    for (i = 0; i < ${prefix}_num_inputs; ++i) {
        ctx->inputs[i] = ${prefix}_input_table[i];
        ctx->inputs[i].data = (uint8_t *)ctx->tensor_ptrs[${prefix}_input_table[i].id];
    }
    for (i = 0; i < ${prefix}_num_outputs; ++i) {
        ctx->outputs[i] = ${prefix}_output_table[i];
        ctx->outputs[i].data = (uint8_t *)ctx->tensor_ptrs[${prefix}_output_table[i].id];
    }
% if schedule == "table":
    for (i = 0; i < ${prefix}_num_operators; ++i) {
        if (${prefix}_schedule[i].init != NULL) {
            const int32_t status = ${prefix}_schedule[i].init(ctx);
            if (status != ${prefix}_status_ok) {
                return status;
            }
        }
    }
% else:
% for op in operators:
% if op.has_init:
    {
        const int32_t status = ${op.stem}_init(ctx);
        if (status != ${prefix}_status_ok) {
            return status;
        }
    }
% endif
% endfor
% endif
    ctx->initialized = ${PREFIX}_INIT_MAGIC;
    return ${prefix}_status_ok;
}

int32_t ${prefix}_model_run(${prefix}_model_context_t *ctx)
{
    if (ctx == NULL) {
        return ${prefix}_status_null_context;
    }
    if (ctx->initialized != ${PREFIX}_INIT_MAGIC) {
        return ${prefix}_status_not_initialized;
    }
% if schedule == "table":
    for (int32_t i = 0; i < ${prefix}_num_operators; ++i) {
        int32_t status;
        if (ctx->callback != NULL) {
            ctx->callback(i, ${prefix}_run_started, ctx->user_data);
        }
        status = ${prefix}_schedule[i].run(ctx);
        if (status != ${prefix}_status_ok) {
            return status;
        }
        if (ctx->callback != NULL) {
            ctx->callback(i, ${prefix}_run_finished, ctx->user_data);
        }
    }
% else:
    /* module.schedule: static - straight-line calls; ctx->callback is not used. */
% for op in operators:
    {
        const int32_t status = ${op.stem}_run(ctx);
        if (status != ${prefix}_status_ok) {
            return status;
        }
    }
% endfor
% endif
    return ${prefix}_status_ok;
}
