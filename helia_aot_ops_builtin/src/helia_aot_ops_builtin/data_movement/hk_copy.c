/*
 * helia-aot kernel library: dtype-agnostic data movement (see hk_copy.h).
 */
#include "hk_copy.h"

/* Follows LiteRT reference Reshape: the output is the input's bytes unchanged. */
int32_t hk_copy_bytes(void *dst, const void *src, int32_t n)
{
    if (n < 0 || (n > 0 && (dst == NULL || src == NULL))) {
        return HK_STATUS_BAD_PARAM;
    }
    if (n > 0 && dst != src) {
        memmove(dst, src, (size_t)n);
    }
    return HK_STATUS_OK;
}

/* Copies one innermost row whose elements are not adjacent on at least one side. A constant
 * memcpy size lets the compiler turn the common element sizes into single loads and stores. */
static void copy_row_strided(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src,
                             ptrdiff_t src_stride, int32_t count, int32_t elem_size)
{
    int32_t i;
    switch (elem_size) {
    case 1:
        for (i = 0; i < count; ++i) {
            dst[i * dst_stride] = src[i * src_stride];
        }
        break;
    case 2:
        for (i = 0; i < count; ++i) {
            memcpy(dst + i * dst_stride, src + i * src_stride, 2);
        }
        break;
    case 4:
        for (i = 0; i < count; ++i) {
            memcpy(dst + i * dst_stride, src + i * src_stride, 4);
        }
        break;
    case 8:
        for (i = 0; i < count; ++i) {
            memcpy(dst + i * dst_stride, src + i * src_stride, 8);
        }
        break;
    default:
        for (i = 0; i < count; ++i) {
            memcpy(dst + i * dst_stride, src + i * src_stride, (size_t)elem_size);
        }
        break;
    }
}

/* Follows LiteRT reference StridedSlice/Transpose/Concatenation element order (an N-d walk). */
int32_t hk_strided_copy(const hk_strided_copy_params_t *params, const void *src, void *dst)
{
    if (params == NULL || params->rank < 1 || params->rank > HK_COPY_MAX_RANK ||
        params->elem_size < 1) {
        return HK_STATUS_BAD_PARAM;
    }
    const int32_t rank = params->rank;
    const int32_t last = rank - 1;
    const int32_t elem_size = params->elem_size;
    for (int32_t k = 0; k < rank; ++k) {
        if (params->counts[k] < 0) {
            return HK_STATUS_BAD_PARAM;
        }
        if (params->counts[k] == 0) {
            return HK_STATUS_OK;
        }
    }
    if (src == NULL || dst == NULL) {
        return HK_STATUS_BAD_PARAM;
    }
    const uint8_t *src_base = (const uint8_t *)src;
    uint8_t *dst_base = (uint8_t *)dst;
    const int32_t row = params->counts[last];
    const ptrdiff_t row_src_stride = params->src_strides[last];
    const ptrdiff_t row_dst_stride = params->dst_strides[last];
    const bool contiguous = row_src_stride == elem_size && row_dst_stride == elem_size;
    const size_t row_bytes = (size_t)row * (size_t)elem_size;

    /* Offsets are kept as integers and only turned into pointers for in-bounds rows, so walking
     * past the end of a dimension never forms an out-of-object pointer. */
    ptrdiff_t src_pos = params->src_offset;
    ptrdiff_t dst_pos = params->dst_offset;
    int32_t index[HK_COPY_MAX_RANK] = {0};
    for (;;) {
        if (contiguous) {
            memcpy(dst_base + dst_pos, src_base + src_pos, row_bytes);
        } else {
            copy_row_strided(dst_base + dst_pos, row_dst_stride, src_base + src_pos,
                             row_src_stride, row, elem_size);
        }
        int32_t k = last - 1;
        while (k >= 0) {
            index[k] += 1;
            src_pos += params->src_strides[k];
            dst_pos += params->dst_strides[k];
            if (index[k] < params->counts[k]) {
                break;
            }
            src_pos -= (ptrdiff_t)params->src_strides[k] * params->counts[k];
            dst_pos -= (ptrdiff_t)params->dst_strides[k] * params->counts[k];
            index[k] = 0;
            --k;
        }
        if (k < 0) {
            return HK_STATUS_OK;
        }
    }
}

/* Follows LiteRT reference Pad's fill of the border with the (quantized) pad value. */
int32_t hk_fill_pattern(void *dst, int32_t count, const void *pattern, int32_t elem_size)
{
    if (count < 0 || elem_size < 1 || (count > 0 && (dst == NULL || pattern == NULL))) {
        return HK_STATUS_BAD_PARAM;
    }
    if (count == 0) {
        return HK_STATUS_OK;
    }
    uint8_t *out = (uint8_t *)dst;
    const size_t total = (size_t)count * (size_t)elem_size;
    if (elem_size == 1) {
        memset(out, *(const uint8_t *)pattern, total);
        return HK_STATUS_OK;
    }
    /* Doubling copies of the already written prefix fill the buffer in log2(count) calls. */
    memcpy(out, pattern, (size_t)elem_size);
    size_t done = (size_t)elem_size;
    while (done < total) {
        const size_t chunk = done < total - done ? done : total - done;
        memcpy(out + done, out, chunk);
        done += chunk;
    }
    return HK_STATUS_OK;
}
