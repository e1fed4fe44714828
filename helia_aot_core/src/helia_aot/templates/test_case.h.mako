/* ${prefix}_test_case.h: golden-data self test of the module. */
#ifndef ${PREFIX}_TEST_CASE_H
#define ${PREFIX}_TEST_CASE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prepare the test's own context (binding its own arenas when the module leaves them to the
 * application) and initialize the model. Returns 0 or the failing module status. */
int32_t ${prefix}_test_case_init(void);

/* Run every stored sample ${num_iterations} time(s) in a row on the test's one context and compare the
 * outputs with the expected values: after every run for an output stored frame by frame (one
 * frame per run), after the sample's last run otherwise; ${prefix}_test_case_init runs first if
 * it has not. Prints through ${PREFIX}_PRINTF a line per run with values beyond their bound, then
 * per output the values compared, how many differ, the largest difference and the verdict
 * (bit-exact, within tolerance, mismatch), and a PASS/FAIL summary with the run's verdict.
 * Returns 0 when no value was beyond its bound, the number of mismatching comparisons (output and
 * run) otherwise, or the failing module status. */
int32_t ${prefix}_test_case_run(void);

#ifdef __cplusplus
}
#endif

#endif /* ${PREFIX}_TEST_CASE_H */
