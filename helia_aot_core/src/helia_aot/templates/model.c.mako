/* ${prefix}_model.c: the operator schedule of ${model_comment}, model_init and model_run. */
#include "${prefix}_model.h"
% for op in operators:
#include "${op.stem}.h"
% endfor

/* _lifecycle_state once model_init succeeded. */
#define ${PREFIX}_LIFECYCLE_READY 1u
% if schedule == "table" or control_flow:

typedef int32_t (*${prefix}_op_fn_t)(${prefix}_model_context_t *ctx);

typedef struct {
    ${prefix}_op_fn_t init;
    ${prefix}_op_fn_t run;
% if control_flow:
    int32_t next; /* the next operator at this one's level: past its regions for IF/WHILE */
% endif
} ${prefix}_op_entry_t;

/* The schedule: one entry per operator in execution order (a NULL init is skipped). */
static const ${prefix}_op_entry_t ${prefix}_schedule[${max(len(operators), 1)}] = {
% for op in operators:
% if control_flow:
    {${f"{op.stem}_init" if op.has_init else "NULL"}, ${op.stem}_run, ${schedule_next[loop.index]}},
% else:
    {${f"{op.stem}_init" if op.has_init else "NULL"}, ${op.stem}_run},
% endif
% endfor
% if not operators:
    {NULL, NULL},
% endif
};
% endif
% if control_flow:

/* Runs the operators from first up to (not including) end at one level of the schedule: IF and
 * WHILE operators call it for their regions, whose operators follow them in the table. */
int32_t ${prefix}_run_range(${prefix}_model_context_t *ctx, int32_t first, int32_t end);

int32_t ${prefix}_run_range(${prefix}_model_context_t *ctx, int32_t first, int32_t end)
{
    int32_t status = ${prefix}_status_ok;
    for (int32_t i = first; i < end; i = ${prefix}_schedule[i].next) {
% if schedule == "table":
        if (ctx->callback != NULL) {
            ctx->callback(i, ${prefix}_op_state_run_started, ${prefix}_status_ok, ctx->user_data);
        }
% endif
        status = ${prefix}_schedule[i].run(ctx);
% if schedule == "table":
        if (ctx->callback != NULL) {
            ctx->callback(i, ${prefix}_op_state_run_finished, status, ctx->user_data);
        }
% endif
        if (status != ${prefix}_status_ok) {
            return status;
        }
    }
    return status;
}
% endif
% for init in state_inits:

/* Initial value of ${init.comment}. */
static const uint8_t ${init.symbol}[${init.nbytes}] = {
${init.data}
};
% endfor

/* Puts every persistent tensor back to the value it starts from: zero, then the initial values
 * (resource variables' CALL_ONCE values, variable tensors' buffers). */
static void ${prefix}_restore_state(${prefix}_model_context_t *ctx)
{
% for r in persistent_regions:
    memset((void *)(uintptr_t)ctx->arena_buffers[${r.enum}], 0, ${r.total_size}u);
% endfor
% for init in state_inits:
    memcpy((uint8_t *)(uintptr_t)ctx->arena_buffers[${init.region_enum}] + ${init.offset}u, ${init.symbol}, ${init.nbytes}u);
% endfor
% if not persistent_regions and not state_inits:
    (void)ctx;
% endif
}

int32_t ${prefix}_model_reset_state(${prefix}_model_context_t *ctx)
{
    if (ctx == NULL) {
        return ${prefix}_status_null_context;
    }
    if (ctx->_lifecycle_state != ${PREFIX}_LIFECYCLE_READY) {
        return ${prefix}_status_not_initialized;
    }
    ${prefix}_restore_state(ctx);
    return ${prefix}_status_ok;
}

int32_t ${prefix}_model_init(${prefix}_model_context_t *ctx)
{
    int32_t status;
    if (ctx == NULL) {
        return ${prefix}_status_null_context;
    }
    status = ${prefix}_context_init(ctx);
    if (status != ${prefix}_status_ok) {
        return status;
    }
% if staged_regions:
    status = ${prefix}_hydrate_constants(ctx);
    if (status != ${prefix}_status_ok) {
        return status;
    }
% endif
    ${prefix}_restore_state(ctx);
% if schedule == "table":
    for (int32_t i = 0; i < ${prefix}_num_operators; ++i) {
        if (${prefix}_schedule[i].init == NULL) {
            continue;
        }
        if (ctx->callback != NULL) {
            ctx->callback(i, ${prefix}_op_state_init_started, ${prefix}_status_ok, ctx->user_data);
        }
        status = ${prefix}_schedule[i].init(ctx);
        if (ctx->callback != NULL) {
            ctx->callback(i, ${prefix}_op_state_init_finished, status, ctx->user_data);
        }
        if (status != ${prefix}_status_ok) {
            return status;
        }
    }
% else:
% for op in operators:
% if op.has_init:
    status = ${op.stem}_init(ctx);
    if (status != ${prefix}_status_ok) {
        return status;
    }
% endif
% endfor
% endif
    ctx->_lifecycle_state = ${PREFIX}_LIFECYCLE_READY;
    return ${prefix}_status_ok;
}

int32_t ${prefix}_model_run(${prefix}_model_context_t *ctx)
{
    int32_t status = ${prefix}_status_ok;
    if (ctx == NULL) {
        return ${prefix}_status_null_context;
    }
    if (ctx->_lifecycle_state != ${PREFIX}_LIFECYCLE_READY) {
        return ${prefix}_status_not_initialized;
    }
% if staged_regions:
    if (!${prefix}_is_hydrated()) {
        return ${prefix}_status_hydration_required;
    }
% endif
% if bound_inputs:
    /* memory.bind_inputs: every input is read where the caller put it. */
    for (int32_t i = 0; i < ${prefix}_num_inputs; ++i) {
        if (ctx->inputs[i].data == NULL) {
            return ${prefix}_status_input_unbound;
        }
        ctx->tensor_ptrs[ctx->inputs[i].id] = ctx->inputs[i].data;
    }
% endif
% if bound_outputs:
    /* memory.bind_outputs: every output is written where the caller put it. */
% for i in bound_outputs:
    if (ctx->outputs[${i}].data == NULL) {
        return ${prefix}_status_output_unbound;
    }
    ctx->tensor_ptrs[ctx->outputs[${i}].id] = ctx->outputs[${i}].data;
% endfor
% endif
% if control_flow:
    status = ${prefix}_run_range(ctx, 0, ${prefix}_num_operators);
% elif schedule == "table":
    if (ctx->callback == NULL) {
        /* No observer: the schedule alone, so a run costs nothing per operator beyond the call. */
        for (int32_t i = 0; i < ${prefix}_num_operators; ++i) {
            status = ${prefix}_schedule[i].run(ctx);
            if (status != ${prefix}_status_ok) {
                return status;
            }
        }
        return status;
    }
    for (int32_t i = 0; i < ${prefix}_num_operators; ++i) {
        /* Checked at each call: an observer may remove itself. */
        if (ctx->callback != NULL) {
            ctx->callback(i, ${prefix}_op_state_run_started, ${prefix}_status_ok, ctx->user_data);
        }
        status = ${prefix}_schedule[i].run(ctx);
        if (ctx->callback != NULL) {
            ctx->callback(i, ${prefix}_op_state_run_finished, status, ctx->user_data);
        }
        if (status != ${prefix}_status_ok) {
            return status;
        }
    }
% else:
    /* module.schedule: static - straight-line calls; ctx->callback is not used. */
% for op in operators:
    status = ${op.stem}_run(ctx);
    if (status != ${prefix}_status_ok) {
        return status;
    }
% endfor
% endif
    return status;
}
