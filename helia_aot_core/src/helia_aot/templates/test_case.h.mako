/* ${prefix}_test_case.h: golden-data self test of the module. */
#ifndef ${PREFIX}_TEST_CASE_H
#define ${PREFIX}_TEST_CASE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Run every stored sample and compare each output with its expected values.
 * Prints one line per output and sample when verbose, and a PASS/FAIL summary.
 * Returns 0 when everything matched, the number of mismatching outputs otherwise,
 * or a negative module status when init or run failed. */
int32_t ${prefix}_test_case_run(int32_t verbose);

#ifdef __cplusplus
}
#endif

#endif /* ${PREFIX}_TEST_CASE_H */
