/* ${prefix}_context.h: the model context an application owns and passes to every call. */
#ifndef ${PREFIX}_CONTEXT_H
#define ${PREFIX}_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "${prefix}_tensors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the operator callback reports. */
typedef enum {
    ${prefix}_op_state_init_started = 0,
    ${prefix}_op_state_init_finished,
    ${prefix}_op_state_run_started,
    ${prefix}_op_state_run_finished
} ${prefix}_operator_state_t;

/* Called, when ctx->callback is set and module.schedule is table, before and after each operator's
 * init (by ${prefix}_model_init) and run (by ${prefix}_model_run). op is the operator's layer
 * index in execution order; status is 0 for *_started and the operator's result for *_finished. */
typedef void (*${prefix}_operator_callback)(int32_t op, ${prefix}_operator_state_t state, int32_t status,
                                           void *user_data);

typedef struct {
    /* Public: set before ${prefix}_model_init (zero them to go without). */
    ${prefix}_operator_callback callback;
    void *user_data;

    /* Advanced: the region table and sizes ${prefix}_context_init installs. */
    const void * const *arena_buffers;
    const size_t *arena_sizes;

    /* Internal. */
    uint32_t _lifecycle_state;
    int8_t *tensor_ptrs[${prefix}_num_tensors];

    /* Public: filled by ${prefix}_model_init; write inputs before a run, read outputs after. */
    ${prefix}_tensor_io_t inputs[${prefix}_num_inputs];
    ${prefix}_tensor_io_t outputs[${prefix}_num_outputs];
} ${prefix}_model_context_t;

/* Wire ctx to the arenas: tensor pointers, inputs and outputs. ${prefix}_model_init calls it;
 * calling it again afterwards requires ${prefix}_model_init before the next run. Returns 13 for a
 * NULL ctx, 10 when a region is unbound (memory.allocate_arenas: false). Not thread-safe. */
int32_t ${prefix}_context_init(${prefix}_model_context_t *ctx);
% if staged_regions:

/* Copy every staged constant blob into its arena. ${prefix}_model_init calls it after
 * ${prefix}_context_init. Defined weak: an application may replace it (DMA, say) and then calls
 * ${prefix}_mark_hydrated when its copy is done. Returns 13 for a NULL ctx, 11 before
 * ${prefix}_context_init, 12 for a blob without source. */
int32_t ${prefix}_hydrate_constants(${prefix}_model_context_t *ctx);
bool ${prefix}_is_hydrated(void);
void ${prefix}_mark_hydrated(void);
void ${prefix}_clear_hydrated(void);
% endif

#ifdef __cplusplus
}
#endif

#endif /* ${PREFIX}_CONTEXT_H */
