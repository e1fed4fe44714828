/* An application written against the module C API 1.1 as the product documents it (prefix "app"):
 * version macros, the context's public and advanced fields, the operator callback and its four
 * states, the I/O tables, the status numbers, external arenas (APP_EXTERNAL_ARENAS: every region
 * bound without a context, cold constant regions to the bytes of their __blob.bin sidecar), and
 * the self-test. Each check prints what failed; main returns the number of failures. */
#include <stdio.h>
#include <string.h>

#include "app_model.h"
#include "app_test_case.h"

#if APP_API_VERSION_MAJOR != 1 || APP_API_VERSION_MINOR < 1
#error "this application needs C API 1.1"
#endif

static int failures = 0;

#define CHECK(cond)                                                    \
    do {                                                               \
        if (!(cond)) {                                                 \
            printf("check failed (line %d): %s\n", __LINE__, #cond);   \
            ++failures;                                                \
        }                                                              \
    } while (0)

typedef struct {
    int32_t counts[4];
    int32_t last_op[4];
    int32_t bad_order;
    int32_t bad_status;
} callback_log_t;

static void on_operator(int32_t op, app_operator_state_t state, int32_t status, void *user_data)
{
    callback_log_t *log = (callback_log_t *)user_data;
    const int32_t s = (int32_t)state;
    if (s < 0 || s > 3) {
        log->bad_order++;
        return;
    }
    if (status != app_status_ok) {
        log->bad_status++;
    }
    /* Started and finished of one operator come in pairs, operators in layer order. */
    if ((s == app_op_state_init_finished || s == app_op_state_run_finished) && log->last_op[s - 1] != op) {
        log->bad_order++;
    }
    log->counts[s]++;
    log->last_op[s] = op;
}

static void check_status_numbers(void)
{
    const int32_t expected[][2] = {
        {app_status_ok, 0},
        {app_status_bind_unknown_region, 1},
        {app_status_bind_null_buffer, 2},
        {app_status_bind_undersized, 3},
        {app_status_bind_misaligned, 4},
        {app_status_context_arena_unbound, 10},
        {app_status_hydrate_uninited_context, 11},
        {app_status_hydrate_null_blob, 12},
        {app_status_null_context, 13},
        {app_status_not_initialized, 14},
        {app_status_bind_bulk_null_argument, 100},
        {app_status_bind_bulk_wrong_count, 101},
        {app_status_hydration_required, 200},
        {app_status_custom_first, 1000},
        {app_status_custom_last, 1999},
    };
    size_t i;
    for (i = 0; i < sizeof(expected) / sizeof(expected[0]); ++i) {
        CHECK(expected[i][0] == expected[i][1]);
    }
    CHECK((int32_t)app_op_state_init_started == 0 && (int32_t)app_op_state_init_finished == 1);
    CHECK((int32_t)app_op_state_run_started == 2 && (int32_t)app_op_state_run_finished == 3);
}

static void check_tables(const app_model_context_t *ctx)
{
    int32_t i;
    for (i = 0; i < app_num_inputs; ++i) {
        const app_tensor_descriptor_t *d = &app_tensor_descriptors[app_inputs_id[i]];
        CHECK(ctx->inputs[i].id == app_inputs_id[i]);
        CHECK(ctx->inputs[i].zero_point == app_inputs_zero_point[i]);
        CHECK(ctx->inputs[i].scale == app_inputs_scale[i]);
        CHECK(ctx->inputs[i].size == d->size);
        CHECK(ctx->inputs[i].data == ctx->tensor_ptrs[app_inputs_id[i]]);
        CHECK(ctx->inputs[i].data == (int8_t *)(uintptr_t)ctx->arena_buffers[d->region] + d->offset);
        CHECK(d->offset + d->size <= ctx->arena_sizes[d->region]);
        CHECK(app_inputs_len[i] > 0);
    }
    CHECK(app_inputs_len[0] == app_input_0_size);
    CHECK((size_t)app_input_0_nbytes == ctx->inputs[0].size);
    for (i = 0; i < app_num_outputs; ++i) {
        CHECK(ctx->outputs[i].id == app_outputs_id[i]);
        CHECK(ctx->outputs[i].zero_point == app_outputs_zero_point[i]);
        CHECK(ctx->outputs[i].scale == app_outputs_scale[i]);
        CHECK(ctx->outputs[i].size == app_tensor_descriptors[app_outputs_id[i]].size);
    }
    CHECK(app_outputs_len[0] == app_output_0_size);
    for (i = 0; i < app_num_arena_buffers; ++i) {
        CHECK(ctx->arena_sizes[i] == app_arena_sizes[i]);
        CHECK(app_arena_alignments[i] > 0u && (app_arena_alignments[i] & (app_arena_alignments[i] - 1u)) == 0u);
        CHECK(((uintptr_t)ctx->arena_buffers[i] % app_arena_alignments[i]) == 0u);
    }
    CHECK(sizeof(APP_PLAN_HASH) == 17u);
}

#ifdef APP_EXTERNAL_ARENAS
#include "app_cold_blob.h" /* app_cold_region, app_cold_bytes: the sidecar the test linked in */

static uint8_t scratch[app_arena_dtcm_size + 64] __attribute__((aligned(64)));

static void bind_arenas(void)
{
    void *buffers[app_num_arena_buffers];
    size_t sizes[app_num_arena_buffers];
    CHECK(app_bind_arena((app_arena_region_t)app_num_arena_buffers, scratch, sizeof(scratch)) ==
          app_status_bind_unknown_region);
    CHECK(app_bind_arena(app_arena_dtcm, NULL, sizeof(scratch)) == app_status_bind_null_buffer);
    CHECK(app_bind_arena(app_arena_dtcm, scratch, app_arena_sizes[app_arena_dtcm] - 1u) ==
          app_status_bind_undersized);
    CHECK(app_bind_arena(app_arena_dtcm, scratch + 1, app_arena_sizes[app_arena_dtcm]) ==
          app_status_bind_misaligned);
    CHECK(app_bind_arenas(NULL, sizes, app_num_arena_buffers) == app_status_bind_bulk_null_argument);
    buffers[app_arena_dtcm] = scratch;
    sizes[app_arena_dtcm] = sizeof(scratch);
    buffers[app_cold_region] = (void *)(uintptr_t)app_cold_bytes;
    sizes[app_cold_region] = sizeof(app_cold_bytes);
    CHECK(app_bind_arenas(buffers, sizes, app_num_arena_buffers + 1u) == app_status_bind_bulk_wrong_count);
    CHECK(app_bind_arenas(buffers, sizes, app_num_arena_buffers) == app_status_ok);
}
#endif

int main(void)
{
    static app_model_context_t ctx = {0};
    callback_log_t log;
    int32_t status;
    int32_t i;
    memset(&log, 0, sizeof(log));
    log.last_op[0] = log.last_op[2] = -1;
    check_status_numbers();

    CHECK(app_model_init(NULL) == app_status_null_context);
    CHECK(app_model_run(NULL) == app_status_null_context);
    CHECK(app_context_init(NULL) == app_status_null_context);
    CHECK(app_model_run(&ctx) == app_status_not_initialized);
#ifdef APP_EXTERNAL_ARENAS
    CHECK(app_model_init(&ctx) == app_status_context_arena_unbound);
    bind_arenas();
#endif

    ctx.callback = on_operator;
    ctx.user_data = &log;
    status = app_model_init(&ctx);
    CHECK(status == app_status_ok);
    if (status != app_status_ok) {
        return 1;
    }
    check_tables(&ctx);
    for (i = 0; i < app_num_inputs; ++i) {
        memset(ctx.inputs[i].data, 0, ctx.inputs[i].size);
    }
    CHECK(app_model_run(&ctx) == app_status_ok);
    CHECK(app_model_run(&ctx) == app_status_ok);
    CHECK(log.counts[app_op_state_init_started] == log.counts[app_op_state_init_finished]);
    CHECK(log.counts[app_op_state_run_started] == 2 * APP_EXPECTED_OPERATORS);
    CHECK(log.counts[app_op_state_run_finished] == 2 * APP_EXPECTED_OPERATORS);
    CHECK(log.counts[app_op_state_init_started] >= APP_EXPECTED_INITS);
    CHECK(log.bad_order == 0 && log.bad_status == 0);

    /* Without a callback the module runs the same; context_init again requires model_init. */
    ctx.callback = NULL;
    CHECK(app_context_init(&ctx) == app_status_ok);
    CHECK(app_model_run(&ctx) == app_status_not_initialized);

    CHECK(app_test_case_init() == 0);
    CHECK(app_test_case_run() == 0);
    printf("%s: %d failed check(s)\n", failures == 0 ? "APP PASS" : "APP FAIL", failures);
    return failures;
}
