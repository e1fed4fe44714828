/* ${prefix}_model.h: public API of the ${model_comment} module. */
#ifndef ${PREFIX}_MODEL_H
#define ${PREFIX}_MODEL_H

#include "${prefix}_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ${PREFIX}_PLAN_HASH "${plan_hash}"

/* Point every tensor at its arena and fill ctx->inputs / ctx->outputs. Returns 0 on success. */
int32_t ${prefix}_model_init(${prefix}_model_context_t *ctx);

/* Run one inference on ctx->inputs, writing ctx->outputs. Returns 0 on success. */
int32_t ${prefix}_model_run(${prefix}_model_context_t *ctx);

% if not allocate_arenas:
/* Arena region ids and sizes for ${prefix}_bind_arena (module built with allocate_arenas: false). */
% for r in regions:
#define ${PREFIX}_ARENA_${r.role.upper()}_${r.memory}_ID ${r.id}
#define ${PREFIX}_ARENA_${r.role.upper()}_${r.memory}_SIZE ${r.total_size}
#define ${PREFIX}_ARENA_${r.role.upper()}_${r.memory}_ALIGNMENT ${r.alignment}
% endfor
% endif
/* Bind the buffer of arena region_id (required before init when the module does not allocate
 * its own arenas). Returns ${prefix}_status_bad_arena_id, _arena_too_small or _arena_misaligned. */
int32_t ${prefix}_bind_arena(${prefix}_model_context_t *ctx, int32_t region_id, void *buffer, uint32_t size);

#ifdef __cplusplus
}
#endif

#endif /* ${PREFIX}_MODEL_H */
