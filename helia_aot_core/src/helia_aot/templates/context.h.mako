/* ${prefix}_context.h: the model context an application owns and passes to every call. */
#ifndef ${PREFIX}_CONTEXT_H
#define ${PREFIX}_CONTEXT_H

#include <stdint.h>

#include "${prefix}_tensors.h"

/* One model input or output: write inputs to data before run, read outputs after it.
 * size is in bytes; zero_point and scale describe quantized tensors (0 and 0.0f otherwise). */
typedef struct {
    int32_t id;
    uint8_t *data;
    uint32_t size;
    int32_t zero_point;
    float scale;
} ${prefix}_tensor_io_t;

typedef enum {
    ${prefix}_run_started = 0,
    ${prefix}_run_finished = 1
} ${prefix}_callback_event_t;

/* Called around each operator when ctx->callback is set (module.schedule: table);
 * layer_index is the operator's position in execution order. */
typedef void (*${prefix}_operator_callback_t)(int32_t layer_index, ${prefix}_callback_event_t event,
                                              void *user_data);

typedef struct ${prefix}_model_context {
    ${prefix}_tensor_io_t inputs[${prefix}_num_inputs];
    ${prefix}_tensor_io_t outputs[${prefix}_num_outputs];
    void *tensor_ptrs[${prefix}_num_tensors];
    uint8_t *arenas[${prefix}_num_arenas];
    ${prefix}_operator_callback_t callback;
    void *user_data;
    uint32_t initialized;
} ${prefix}_model_context_t;

#endif /* ${PREFIX}_CONTEXT_H */
