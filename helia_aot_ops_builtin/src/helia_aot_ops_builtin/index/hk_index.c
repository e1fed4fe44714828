/*
 * helia-aot kernel library: run-time index operators (see hk_index.h).
 */
#include "hk_index.h"

/* One index of 2, 4 or 8 bytes, read without assuming the buffer's alignment. */
static int64_t index_load(const void *indices, int32_t position, int32_t index_size)
{
    const uint8_t *at = (const uint8_t *)indices + (size_t)position * (size_t)index_size;
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

static bool valid_index_size(int32_t index_size, bool allow_int16)
{
    return index_size == 4 || index_size == 8 || (allow_int16 && index_size == 2);
}

static bool valid_nd_params(const hk_index_nd_params_t *p)
{
    if (p == NULL || p->count < 0 || p->depth < 0 || p->depth > HK_INDEX_MAX_RANK ||
        p->slice_size < 0 || p->elem_size < 1 || !valid_index_size(p->index_size, true)) {
        return false;
    }
    for (int32_t j = 0; j < p->depth; ++j) {
        if (p->dims[j] < 1) {
            return false;
        }
    }
    return true;
}

static int64_t nd_slice_count(const hk_index_nd_params_t *p)
{
    int64_t slices = 1;
    for (int32_t j = 0; j < p->depth; ++j) {
        slices *= p->dims[j];
    }
    return slices;
}

/* The slice number index vector v addresses, or -1 when it lies outside the tensor. LiteRT's
 * reference checks the flat position (a negative coordinate, or a slice past the end); checking
 * each partial sum against the slice count keeps the arithmetic far from overflow. */
static int64_t nd_slice(const hk_index_nd_params_t *p, const void *indices, int32_t v,
                        int64_t slices)
{
    int64_t flat = 0;
    for (int32_t j = 0; j < p->depth; ++j) {
        const int64_t coord = index_load(indices, v * p->depth + j, p->index_size);
        if (coord < 0 || coord >= slices) {
            return -1;
        }
        flat = flat * p->dims[j] + coord;
        if (flat >= slices) {
            return -1;
        }
    }
    return flat;
}

/* Follows LiteRT reference_ops::GatherNd: output slice v is the input slice at index vector v;
 * a negative or out-of-range vector fails (HK_STATUS_INDEX_RANGE) before anything is written. */
int32_t hk_gather_nd(const hk_index_nd_params_t *params, const void *input, const void *indices,
                     void *output)
{
    if (!valid_nd_params(params)) {
        return HK_STATUS_BAD_PARAM;
    }
    if (params->count == 0 || params->slice_size == 0) {
        return HK_STATUS_OK;
    }
    if (input == NULL || output == NULL || (params->depth > 0 && indices == NULL)) {
        return HK_STATUS_BAD_PARAM;
    }
    const int64_t slices = nd_slice_count(params);
    for (int32_t v = 0; v < params->count; ++v) {
        if (nd_slice(params, indices, v, slices) < 0) {
            return HK_STATUS_INDEX_RANGE;
        }
    }
    const size_t slice_bytes = (size_t)params->slice_size * (size_t)params->elem_size;
    const uint8_t *in = (const uint8_t *)input;
    uint8_t *out = (uint8_t *)output;
    for (int32_t v = 0; v < params->count; ++v) {
        const int64_t slice = nd_slice(params, indices, v, slices);
        memcpy(out + (size_t)v * slice_bytes, in + (size_t)slice * slice_bytes, slice_bytes);
    }
    return HK_STATUS_OK;
}

/* dst[i] += src[i] for n elements of one kind; integers wrap as LiteRT's two's complement
 * targets do (the sums go through unsigned arithmetic, so no overflow is undefined). */
static void scatter_add(uint8_t *dst, const uint8_t *src, int32_t n, int32_t kind)
{
    for (int32_t i = 0; i < n; ++i) {
        switch (kind) {
        case HK_INDEX_KIND_F32: {
            float a, b;
            memcpy(&a, dst + (size_t)i * 4u, 4);
            memcpy(&b, src + (size_t)i * 4u, 4);
            a += b;
            memcpy(dst + (size_t)i * 4u, &a, 4);
            break;
        }
        case HK_INDEX_KIND_I8:
        case HK_INDEX_KIND_U8:
            dst[i] = (uint8_t)(dst[i] + src[i]);
            break;
        case HK_INDEX_KIND_I32: {
            uint32_t a, b;
            memcpy(&a, dst + (size_t)i * 4u, 4);
            memcpy(&b, src + (size_t)i * 4u, 4);
            a += b;
            memcpy(dst + (size_t)i * 4u, &a, 4);
            break;
        }
        default: {
            uint64_t a, b;
            memcpy(&a, dst + (size_t)i * 8u, 8);
            memcpy(&b, src + (size_t)i * 8u, 8);
            a += b;
            memcpy(dst + (size_t)i * 8u, &a, 8);
            break;
        }
        }
    }
}

static int32_t kind_size(int32_t kind)
{
    switch (kind) {
    case HK_INDEX_KIND_F32:
    case HK_INDEX_KIND_I32:
        return 4;
    case HK_INDEX_KIND_I8:
    case HK_INDEX_KIND_U8:
        return 1;
    case HK_INDEX_KIND_I64:
        return 8;
    default:
        return 0;
    }
}

/* Follows LiteRT reference_ops::ScatterNd: the output starts at zero and each update slice is
 * added at its index vector (repeated vectors accumulate, in index order); an out-of-range
 * vector fails (HK_STATUS_INDEX_RANGE) before anything is written. */
int32_t hk_scatter_nd(const hk_index_nd_params_t *params, const void *indices,
                      const void *updates, void *output)
{
    if (!valid_nd_params(params) || kind_size(params->kind) != params->elem_size) {
        return HK_STATUS_BAD_PARAM;
    }
    const int64_t slices = nd_slice_count(params);
    const size_t slice_bytes = (size_t)params->slice_size * (size_t)params->elem_size;
    if (slices == 0 || slice_bytes == 0) {
        return HK_STATUS_OK;
    }
    if (output == NULL || (params->count > 0 && (updates == NULL || indices == NULL))) {
        return HK_STATUS_BAD_PARAM;
    }
    for (int32_t v = 0; v < params->count; ++v) {
        if (nd_slice(params, indices, v, slices) < 0) {
            return HK_STATUS_INDEX_RANGE;
        }
    }
    uint8_t *out = (uint8_t *)output;
    const uint8_t *from = (const uint8_t *)updates;
    memset(out, 0, (size_t)slices * slice_bytes);
    for (int32_t v = 0; v < params->count; ++v) {
        const int64_t slice = nd_slice(params, indices, v, slices);
        scatter_add(out + (size_t)slice * slice_bytes, from + (size_t)v * slice_bytes,
                    params->slice_size, params->kind);
    }
    return HK_STATUS_OK;
}

/* Contiguous strides (bytes) of a row-major tensor. */
static void byte_strides(const int32_t *dims, int32_t rank, int32_t elem_size, int32_t *strides)
{
    int32_t stride = elem_size;
    for (int32_t k = rank - 1; k >= 0; --k) {
        strides[k] = stride;
        stride *= dims[k];
    }
}

static int32_t element_count(const int32_t *dims, int32_t rank)
{
    int32_t n = 1;
    for (int32_t k = 0; k < rank; ++k) {
        n *= dims[k];
    }
    return n;
}

/* Follows LiteRT dynamic_update_slice (XLA semantics): the output is the operand with the update
 * written at the start indices, each clamped into [0, operand_dim - update_dim] (out-of-range
 * starts are moved, never refused, as in the reference). */
int32_t hk_dynamic_update_slice(const hk_update_slice_params_t *params, const void *operand,
                                const void *update, const void *start_indices, void *output)
{
    if (params == NULL || params->rank < 1 || params->rank > HK_INDEX_MAX_RANK ||
        params->elem_size < 1 || !valid_index_size(params->index_size, false)) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t rank = params->rank;
    for (int32_t k = 0; k < rank; ++k) {
        if (params->update_dims[k] < 1 || params->operand_dims[k] < params->update_dims[k]) {
            return HK_STATUS_BAD_PARAM;
        }
    }
    if (operand == NULL || update == NULL || start_indices == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t total = element_count(params->operand_dims, rank);
    if (total == element_count(params->update_dims, rank)) {
        memcpy(output, update, (size_t)total * (size_t)params->elem_size);
        return HK_STATUS_OK;
    }
    if (operand != output) {
        memcpy(output, operand, (size_t)total * (size_t)params->elem_size);
    }
    hk_strided_copy_params_t walk;
    memset(&walk, 0, sizeof walk);
    walk.rank = rank;
    walk.elem_size = params->elem_size;
    byte_strides(params->update_dims, rank, params->elem_size, walk.src_strides);
    byte_strides(params->operand_dims, rank, params->elem_size, walk.dst_strides);
    for (int32_t k = 0; k < rank; ++k) {
        int64_t start = index_load(start_indices, k, params->index_size);
        const int64_t limit = (int64_t)params->operand_dims[k] - params->update_dims[k];
        start = start < 0 ? 0 : (start > limit ? limit : start);
        walk.counts[k] = params->update_dims[k];
        walk.dst_offset += (int32_t)start * walk.dst_strides[k];
    }
    return hk_strided_copy(&walk, update, output);
}

/* Follows LiteRT reference_ops::ReverseSequence: in batch b the first seq_lengths[b] entries
 * along seq_dim come out reversed and the rest unchanged. A length outside [0, seq_dim's size]
 * fails (HK_STATUS_INDEX_RANGE) before anything is written (LiteRT checks only the first one). */
int32_t hk_reverse_sequence(const hk_reverse_sequence_params_t *params, const void *input,
                            const void *seq_lengths, void *output)
{
    if (params == NULL || params->rank < 2 || params->rank > HK_INDEX_MAX_RANK ||
        params->elem_size < 1 || !valid_index_size(params->index_size, false) ||
        params->seq_dim < 0 || params->seq_dim >= params->rank || params->batch_dim < 0 ||
        params->batch_dim >= params->rank || params->seq_dim == params->batch_dim) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t rank = params->rank;
    for (int32_t k = 0; k < rank; ++k) {
        if (params->dims[k] < 1) {
            return HK_STATUS_BAD_PARAM;
        }
    }
    if (input == NULL || seq_lengths == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t batches = params->dims[params->batch_dim];
    const int32_t seq_size = params->dims[params->seq_dim];
    for (int32_t b = 0; b < batches; ++b) {
        const int64_t length = index_load(seq_lengths, b, params->index_size);
        if (length < 0 || length > seq_size) {
            return HK_STATUS_INDEX_RANGE;
        }
    }
    const int32_t total = element_count(params->dims, rank);
    memcpy(output, input, (size_t)total * (size_t)params->elem_size);
    hk_strided_copy_params_t walk;
    memset(&walk, 0, sizeof walk);
    walk.rank = rank;
    walk.elem_size = params->elem_size;
    byte_strides(params->dims, rank, params->elem_size, walk.dst_strides);
    for (int32_t k = 0; k < rank; ++k) {
        walk.counts[k] = params->dims[k];
        walk.src_strides[k] = walk.dst_strides[k];
    }
    const int32_t seq_stride = walk.dst_strides[params->seq_dim];
    const int32_t batch_stride = walk.dst_strides[params->batch_dim];
    walk.counts[params->batch_dim] = 1;
    walk.src_strides[params->seq_dim] = -seq_stride;
    for (int32_t b = 0; b < batches; ++b) {
        const int32_t length = (int32_t)index_load(seq_lengths, b, params->index_size);
        if (length < 2) {
            continue;
        }
        walk.counts[params->seq_dim] = length;
        walk.dst_offset = b * batch_stride;
        walk.src_offset = b * batch_stride + (length - 1) * seq_stride;
        const int32_t status = hk_strided_copy(&walk, input, output);
        if (status != HK_STATUS_OK) {
            return status;
        }
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT one_hot: output[i][j][k] is on_value where (int)indices[i][k] == j, else
 * off_value; indices outside [0, depth) select no position (a row of off_value), as there. */
int32_t hk_one_hot(const hk_one_hot_params_t *params, const void *indices, const void *on_value,
                   const void *off_value, void *output)
{
    if (params == NULL || params->prefix < 0 || params->depth < 0 || params->suffix < 0 ||
        params->elem_size < 1 || !valid_index_size(params->index_size, false)) {
        return HK_STATUS_BAD_PARAM;
    }
    if (params->prefix == 0 || params->depth == 0 || params->suffix == 0) {
        return HK_STATUS_OK;
    }
    if (indices == NULL || on_value == NULL || off_value == NULL || output == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const size_t elem = (size_t)params->elem_size;
    uint8_t *out = (uint8_t *)output;
    for (int32_t i = 0; i < params->prefix; ++i) {
        for (int32_t j = 0; j < params->depth; ++j) {
            for (int32_t k = 0; k < params->suffix; ++k) {
                const int64_t wide = index_load(indices, i * params->suffix + k, params->index_size);
                /* LiteRT compares static_cast<int>(index): the low 32 bits, two's complement. */
                const uint32_t low = (uint32_t)((uint64_t)wide & 0xffffffffu);
                const bool hit = low == (uint32_t)j;
                memcpy(out, hit ? on_value : off_value, elem);
                out += elem;
            }
        }
    }
    return HK_STATUS_OK;
}
