/*
 * helia-aot kernel library: GATHER (see hk_gather.h).
 */
#include "hk_gather.h"

static int64_t gather_load_index(const uint8_t *indices, int32_t position,
                                 int32_t index_size)
{
    const uint8_t *at = indices + (size_t)position * (size_t)index_size;
    if (index_size == 2) {
        int16_t value;
        memcpy(&value, at, sizeof value);
        return value;
    }
    if (index_size == 4) {
        int32_t value;
        memcpy(&value, at, sizeof value);
        return value;
    }
    int64_t value;
    memcpy(&value, at, sizeof value);
    return value;
}

/* Follows LiteRT reference_ops::Gather (with batch_dims); any index outside [0, axis_size)
 * fails with HK_STATUS_GATHER_INDEX before the output is touched. */
int32_t hk_gather(const hk_gather_params_t *params, const void *input, const void *indices,
                  void *output)
{
    if (params == NULL || params->batch_size < 0 || params->outer_size < 0 ||
        params->axis_size < 0 || params->inner_size < 0 || params->coord_size < 0 ||
        params->elem_size < 1 ||
        (params->index_size != 2 && params->index_size != 4 && params->index_size != 8)) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t num_indices = params->batch_size * params->coord_size;
    const bool empty = num_indices == 0 || params->outer_size == 0 || params->inner_size == 0;
    if (empty) {
        return HK_STATUS_OK;
    }
    if (input == NULL || indices == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const uint8_t *index_bytes = (const uint8_t *)indices;
    for (int32_t i = 0; i < num_indices; ++i) {
        const int64_t coord = gather_load_index(index_bytes, i, params->index_size);
        if (coord < 0 || coord >= params->axis_size) {
            return HK_STATUS_GATHER_INDEX;
        }
    }
    const size_t slice_bytes = (size_t)params->inner_size * (size_t)params->elem_size;
    const uint8_t *in = (const uint8_t *)input;
    uint8_t *out = (uint8_t *)output;
    for (int32_t batch = 0; batch < params->batch_size; ++batch) {
        for (int32_t outer = 0; outer < params->outer_size; ++outer) {
            const size_t block = (size_t)batch * (size_t)params->outer_size + (size_t)outer;
            const uint8_t *from = in + block * (size_t)params->axis_size * slice_bytes;
            for (int32_t i = 0; i < params->coord_size; ++i) {
                const int64_t coord = gather_load_index(
                    index_bytes, batch * params->coord_size + i, params->index_size);
                memcpy(out, from + (size_t)coord * slice_bytes, slice_bytes);
                out += slice_bytes;
            }
        }
    }
    return HK_STATUS_OK;
}
