/* ${prefix}_model.h: public API of the ${model_comment} module. */
#ifndef ${PREFIX}_MODEL_H
#define ${PREFIX}_MODEL_H

#include "${prefix}_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ${PREFIX}_PLAN_HASH "${plan_hash}"

/* Arena regions: id (for ${prefix}_bind_arena), bytes and alignment a buffer for them needs.
% if allocate_arenas:
 * The module allocates every arena itself. */
% else:
 * The module was generated with memory.allocate_arenas: false: bind a buffer for every region
 * marked "bind" before ${prefix}_model_init (constant regions are the module's own). */
% endif
% for r in regions:
#define ${r.macro}_ID ${r.id} /* ${r.role} in ${r.memory}${" (staged from " + r.source_memory + ")" if r.staged else ""}${"" if r.cold or allocate_arenas else ": bind"} */
#define ${r.macro}_SIZE ${r.total_size}u
#define ${r.macro}_ALIGNMENT ${r.alignment}u
% endfor

/* One buffer for ${prefix}_bind_arenas. */
typedef struct {
    int32_t region_id;
    void *buffer;
    uint32_t size;
} ${prefix}_arena_binding_t;

/* Point every tensor at its arena, copy staged constants, and fill ctx->inputs / ctx->outputs.
 * Returns 0 on success, ${prefix}_status_arena_unbound when a region was not bound. */
int32_t ${prefix}_model_init(${prefix}_model_context_t *ctx);

/* Run one inference on ctx->inputs, writing ctx->outputs. Returns 0 on success. */
int32_t ${prefix}_model_run(${prefix}_model_context_t *ctx);

/* Give arena region_id the buffer it lives in (call before init). Returns
 * ${prefix}_status_bad_arena_id for an unknown or constant region, _arena_unbound for a NULL
 * buffer, _arena_too_small when size is below the region's size and _arena_misaligned when the
 * buffer is not aligned to the region's alignment. */
int32_t ${prefix}_bind_arena(${prefix}_model_context_t *ctx, int32_t region_id, void *buffer, uint32_t size);

/* Bind count buffers at once, stopping at the first that ${prefix}_bind_arena rejects (its status
 * is returned)${"." if allocate_arenas else "; then returns _arena_unbound if a region the module needs is still unbound."} */
int32_t ${prefix}_bind_arenas(${prefix}_model_context_t *ctx, const ${prefix}_arena_binding_t *bindings, int32_t count);

#ifdef __cplusplus
}
#endif

#endif /* ${PREFIX}_MODEL_H */
