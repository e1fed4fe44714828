/* ${prefix}_model.h: public API of the ${model_comment} module.
 * Model: ${model_comment}, version ${model_version or "-"}, subgraph ${subgraph}.
 * Description: ${model_description or "-"} */
#ifndef ${PREFIX}_MODEL_H
#define ${PREFIX}_MODEL_H

#include <stdint.h>

#include "${prefix}_common.h"

/* Version of the module's C API (the declarations docs/generated-module.md marks public or advanced). */
#define ${PREFIX}_API_VERSION_MAJOR 1
#define ${PREFIX}_API_VERSION_MINOR 1
#define ${PREFIX}_API_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

/* Initialize ctx (${prefix}_context_init, constant hydration, every operator's init).
% if not allocate_arenas:
 * Bind every arena region first (${prefix}_bind_arena / ${prefix}_bind_arenas).
% elif bound_regions:
 * Bind every scratch region first (${prefix}_bind_arena): memory.shared_arena leaves them to the
 * application, which gives every module of the image the same buffer.
% endif
 * Returns 0, 13 for a NULL ctx, or the first failure of a step. */
int32_t ${prefix}_model_init(${prefix}_model_context_t *ctx);

/* Run one inference on ctx->inputs, writing ctx->outputs. Returns 0, 13 for a NULL ctx, 14 when
 * ${prefix}_model_init has not succeeded${", 200 when staged constants are not hydrated" if staged_regions else ""}, or an operator's failure. */
% if bound_inputs:
/* memory.bind_inputs: after ${prefix}_model_init, set ctx->inputs[i].data to each input's buffer
 * (ctx->inputs[i].size bytes); the run reads the inputs there and never writes them, and returns
 * 15 when one is NULL. */
% endif
% if bound_outputs:
/* memory.bind_outputs: after ${prefix}_model_init, set ctx->outputs[i].data to each output's buffer
 * (ctx->outputs[i].size bytes); the run writes the outputs there, and returns 16 when one is NULL. */
% endif
int32_t ${prefix}_model_run(${prefix}_model_context_t *ctx);

/* Put the model's state (every persistent tensor: resource variables, recurrent state) back to
 * the values model_init gives it, without re-initialising anything else: call it between two
 * independent streams. Returns 0, 13 for a NULL ctx, 14 when ${prefix}_model_init has not succeeded. */
int32_t ${prefix}_model_reset_state(${prefix}_model_context_t *ctx);

#ifdef __cplusplus
}
#endif

#endif /* ${PREFIX}_MODEL_H */
