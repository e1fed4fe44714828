/* ${prefix}_tensors.h: tensor identifiers, arena regions, status codes and the model's I/O tables.
 * Names and values follow the C API 1.1 of the module (see docs/generated-module.md). */
#ifndef ${PREFIX}_TENSORS_H
#define ${PREFIX}_TENSORS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fingerprint of the arena layout: a loader that hard-codes region ids can compare it. */
#define ${PREFIX}_PLAN_HASH "${plan_hash}"

/* Tensor identifiers, indices into ctx->tensor_ptrs: ${prefix}_tensor_<id> where <id> is the model's
 * tensor index or <operator>_<role> for tensors an operator adds. The ${prefix}_t<N>_<name> names
 * (the module's own, from the model's tensor names) are the same values. */
typedef enum {
## A table row per tensor is one Python string, written once: a line of five expressions
## written one by one cost a call each, per tensor (tests/core/test_conversion_scaling.py).
${"".join([f"    {prefix}_tensor_{t.ident} = {i}, /* {t.comment} */\n" for i, t in enumerate(tensors)])}\
${"".join([f"    {prefix}_{t.name} = {i},\n" for i, t in enumerate(tensors)])}\
    ${prefix}_num_tensors = ${len(tensors)}
} ${prefix}_tensor_ident_t;

/* One model input or output. data is the tensor's first byte whatever its element type (cast it,
 * e.g. (float *)ctx->inputs[0].data); size counts bytes. Float tensors have zero_point 0, scale 1. */
typedef struct {
    ${prefix}_tensor_ident_t id;
    int8_t *data;
    size_t size;
    int32_t zero_point;
    float scale;
} ${prefix}_tensor_io_t;

/* Arena regions: scratch, then persistent, then constant, each by memory name. */
typedef enum {
% for r in c_regions:
    ${r.enum} = ${r.index}, /* ${r.role} in ${r.memory}${" (staged from " + r.source_memory + ")" if r.staged else ""} */
% endfor
    ${prefix}_num_arena_buffers = ${len(c_regions)}
} ${prefix}_arena_region_t;

/* Status codes. Hold a status in an int32_t: negative values are kernel failures, which this
 * enumeration does not name. 1..999 are the module's own, 1000..1999 come from custom operators. */
typedef enum {
    ${prefix}_status_ok = 0,
    ${prefix}_status_bind_unknown_region = 1,
    ${prefix}_status_bind_null_buffer = 2,
    ${prefix}_status_bind_undersized = 3,
    ${prefix}_status_bind_misaligned = 4,
    ${prefix}_status_context_arena_unbound = 10,
    ${prefix}_status_hydrate_uninited_context = 11,
    ${prefix}_status_hydrate_null_blob = 12,
    ${prefix}_status_null_context = 13,
    ${prefix}_status_not_initialized = 14,
% if bound_inputs:
    ${prefix}_status_input_unbound = 15,
% endif
% if bound_outputs:
    ${prefix}_status_output_unbound = 16,
% endif
    ${prefix}_status_bind_bulk_null_argument = 100,
    ${prefix}_status_bind_bulk_wrong_count = 101,
    ${prefix}_status_hydration_required = 200,
    ${prefix}_status_custom_first = 1000,
    ${prefix}_status_custom_last = 1999
} ${prefix}_status_t;

typedef enum {
    ${prefix}_tensor_type_constant,
    ${prefix}_tensor_type_persistent,
    ${prefix}_tensor_type_scratch
} ${prefix}_tensor_type_t;

/* Where a tensor lives: arena_buffers[region] + offset, size bytes. A tensor no operator reads or
 * writes has region ${prefix}_num_arena_buffers and a NULL tensor_ptrs entry. */
typedef struct {
    ${prefix}_tensor_type_t type;
    ${prefix}_arena_region_t region;
    size_t offset;
    size_t size;
} ${prefix}_tensor_descriptor_t;

/* Bytes and alignment of each region (for cold constant regions: the constant blob). */
% for r in c_regions:
#define ${r.enum}_size ${r.total_size}
#define ${r.enum}_alignment ${r.alignment}
% endfor

% for row in shared_scratch:
/* memory.shared_arena: bytes of the scratch buffer in ${row.memory.upper()} that every module of the
 * image shares (the largest need of the set, ${row.set_by}'s; this module needs ${row.own}). */
#define ${prefix}_shared_arena_${row.memory}_size ${row.size}
% endfor
% if shared_scratch:

% endif
% if not bound_regions:
/* The module's own storage of every region, by region. */
extern const void * const ${prefix}_arena_buffers[${prefix}_num_arena_buffers];
% else:
% if allocate_arenas:
/* memory.shared_arena - the application binds every scratch region before ${prefix}_model_init to
 * writable memory of at least ${prefix}_arena_sizes[region] bytes aligned to
 * ${prefix}_arena_alignments[region]: one buffer for every module of the image, which run one after
 * another. The module defines its other regions itself. Binding is
% else:
/* memory.allocate_arenas: false - the application binds every region before ${prefix}_model_init:
 * scratch, persistent and staged-constant regions to writable memory of at least
 * ${prefix}_arena_sizes[region] bytes aligned to ${prefix}_arena_alignments[region], cold-constant
 * regions to the bytes of ${prefix}_arena_const_<memory>__blob.bin shipped with the module. Binding is
% endif
 * module-global (no context) and rebinding a region replaces the earlier buffer.
 * Returns 1 for an unknown region, 2 for a NULL buffer, 3 when size is too small, 4 when the
 * buffer is misaligned. */
int32_t ${prefix}_bind_arena(${prefix}_arena_region_t region, void *buffer, size_t size);

/* Bind all ${prefix}_num_arena_buffers regions at once, buffers[i] and sizes[i] for region i.
 * Returns 100 when buffers or sizes is NULL, 101 when n is not ${prefix}_num_arena_buffers, else
 * the first failure of ${prefix}_bind_arena. */
int32_t ${prefix}_bind_arenas(void * const *buffers, const size_t *sizes, size_t n);

/* Internal, not part of the stable API: the binding table, and whether a region is still unbound. */
const void * const *${prefix}_arena_buffers_table_view(void);
int8_t ${prefix}_arena_buffers_table_any_unbound(void);
% endif
extern const size_t ${prefix}_arena_sizes[${prefix}_num_arena_buffers];
extern const size_t ${prefix}_arena_alignments[${prefix}_num_arena_buffers];

#define ${prefix}_num_inputs ${len(inputs)}
#define ${prefix}_num_outputs ${len(outputs)}
/* _size counts elements, _nbytes bytes. */
% for i, t in enumerate(inputs):
#define ${prefix}_input_${i}_size (${t.size})
#define ${prefix}_input_${i}_nbytes (${t.nbytes})
% endfor
% for i, t in enumerate(outputs):
#define ${prefix}_output_${i}_size (${t.size})
#define ${prefix}_output_${i}_nbytes (${t.nbytes})
% endfor

/* Per input and per output: tensor, element count, zero point and scale. */
extern const ${prefix}_tensor_ident_t ${prefix}_inputs_id[${prefix}_num_inputs];
extern const ${prefix}_tensor_ident_t ${prefix}_outputs_id[${prefix}_num_outputs];
extern const int32_t ${prefix}_inputs_len[${prefix}_num_inputs];
extern const int32_t ${prefix}_inputs_zero_point[${prefix}_num_inputs];
extern const float ${prefix}_inputs_scale[${prefix}_num_inputs];
extern const int32_t ${prefix}_outputs_len[${prefix}_num_outputs];
extern const int32_t ${prefix}_outputs_zero_point[${prefix}_num_outputs];
extern const float ${prefix}_outputs_scale[${prefix}_num_outputs];

extern const ${prefix}_tensor_descriptor_t ${prefix}_tensor_descriptors[${prefix}_num_tensors];
% if staged_regions:

/* Staged constants: ${prefix}_hydrate_constants copies each blob's source into its arena. */
typedef struct {
    ${prefix}_arena_region_t arena;
    const void *source;
    size_t size;
} ${prefix}_constant_blob_t;

#define ${prefix}_num_constant_blobs ${len(staged_regions)}
extern const ${prefix}_constant_blob_t ${prefix}_constant_blobs[${prefix}_num_constant_blobs];
% endif

/* The module's own additions: operator count, region count under its earlier name, and one
 * <PREFIX>_ARENA_<ROLE>_<MEMORY>_{ID,SIZE,ALIGNMENT} triple per region. */
#define ${prefix}_num_operators ${num_operators}
#define ${prefix}_num_arenas ${prefix}_num_arena_buffers
% for r in c_regions:
#define ${r.macro}_ID ${r.index}
#define ${r.macro}_SIZE ${r.total_size}u
#define ${r.macro}_ALIGNMENT ${r.alignment}u
% endfor

#ifdef __cplusplus
}
#endif

#endif /* ${PREFIX}_TENSORS_H */
