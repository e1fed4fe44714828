/*
 * helia-aot kernel library: unpacking int4 weights (see hk_int4.h).
 */
#include "hk_int4.h"

#include "hk_isa.h"

int32_t hk_unpack_s4(const uint8_t *packed, int8_t *out, int32_t count)
{
    if (count < 0 || (count > 0 && (packed == NULL || out == NULL))) {
        return HK_STATUS_BAD_PARAM;
    }
    int32_t i = 0;
#if HK_HAVE_MVE
    i = hk_unpack_s4_blocks(packed, out, count);
#endif
    for (; i + 2 <= count; i += 2) {
        const uint8_t byte = packed[i >> 1];
        out[i] = (int8_t)((int32_t)(byte & 0x0Fu) - (int32_t)((byte & 0x08u) << 1));
        out[i + 1] = (int8_t)((int32_t)(byte >> 4) - (int32_t)((byte & 0x80u) >> 3));
    }
    if (i < count) {
        out[i] = (int8_t)hk_s4_at(packed, i);
    }
    return HK_STATUS_OK;
}
