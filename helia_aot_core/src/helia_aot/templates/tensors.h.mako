/* ${prefix}_tensors.h: tensor enumeration and model I/O sizes. */
#ifndef ${PREFIX}_TENSORS_H
#define ${PREFIX}_TENSORS_H

/* Indices into ctx->tensor_ptrs. */
typedef enum {
% for t in tensors:
    ${prefix}_${t.name} = ${loop.index}, /* ${t.comment} */
% endfor
    ${prefix}_num_tensors = ${len(tensors)}
} ${prefix}_tensor_id_t;

#define ${prefix}_num_inputs ${len(inputs)}
#define ${prefix}_num_outputs ${len(outputs)}
% for i, t in enumerate(inputs):
#define ${prefix}_input_${i}_size ${t.size}
#define ${prefix}_input_${i}_nbytes ${t.nbytes}
% endfor
% for i, t in enumerate(outputs):
#define ${prefix}_output_${i}_size ${t.size}
#define ${prefix}_output_${i}_nbytes ${t.nbytes}
% endfor

#define ${prefix}_num_operators ${num_operators}
#define ${prefix}_num_arenas ${len(regions)}

#endif /* ${PREFIX}_TENSORS_H */
