/*
 * helia-aot kernel library: ELU on float32 (int8 ELU is a table, see hk_table.h).
 *
 * Every kernel reads element i before writing element i, so input and output may be the same
 * buffer.
 */
#ifndef HK_ELU_H
#define HK_ELU_H

#include "hk_common.h"

int32_t hk_elu_f32(const float *input, float *output, size_t size);

#endif /* HK_ELU_H */
