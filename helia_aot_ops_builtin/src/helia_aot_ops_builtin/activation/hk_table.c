/*
 * helia-aot kernel library: elementwise lookup tables (see hk_table.h).
 */
#include "hk_table.h"

/* Follows LiteRT reference_integer_ops::LookupTable (int8): a 256-entry table indexed by the
 * input byte read as uint8. */
int32_t hk_table_s8(const int8_t *table, const int8_t *input, int8_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        output[i] = table[(uint8_t)input[i]];
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT LUTLookup (int16): 512 segments of 128 inputs, the top 9 bits pick a segment
 * and the low 7 bits interpolate linearly to the next entry, rounding half up. */
int32_t hk_table_s16(const int16_t *table, const int16_t *input, int16_t *output, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const int32_t value = input[i];
        const uint32_t index = (uint32_t)(256 + (value >> 7));
        const int32_t offset = value & 0x7f;
        const int32_t base = table[index];
        const int32_t slope = (int32_t)table[index + 1u] - base;
        output[i] = (int16_t)(base + ((slope * offset + 64) >> 7));
    }
    return HK_STATUS_OK;
}
