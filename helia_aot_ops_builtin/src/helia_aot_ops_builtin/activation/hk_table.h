/*
 * helia-aot kernel library: elementwise lookup tables (GELU and ELU on int8 and int16).
 *
 * The converter fills the tables the way LiteRT's Prepare step does (LUTPopulate, in
 * activation_quantization.py), so a lookup here gives the reference interpreter's value bit for
 * bit. Every kernel reads element i before writing element i, so input and output may be the same
 * buffer.
 */
#ifndef HK_TABLE_H
#define HK_TABLE_H

#include "hk_common.h"

int32_t hk_table_s8(const int8_t *table, const int8_t *input, int8_t *output, size_t size);
int32_t hk_table_s16(const int16_t *table, const int16_t *input, int16_t *output, size_t size);

#endif /* HK_TABLE_H */
