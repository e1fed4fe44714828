/* units.c: runs each unit of units.S once, in a fixed order (one harness region each). */
#include <stdint.h>

void unit_load_chain(void *p);
void unit_load_burst(void *p);
void unit_branch_loop(void *p);
void unit_one_load(const void *p);
void unit_dual_issue(void *p);
void unit_low_overhead_loop(void *p);
void unit_mve_same_pipe(void *p);
void unit_mve_other_pipe(void *p);
void unit_mve_dependent(void *p);
void unit_mve_store_load(void *p);
void unit_mve_load(const void *p);

static void *chain[4];                       /* .data: DTCM */
static int32_t words[16] = {1, 2, 3, 4};      /* .data: DTCM */
static const int32_t constants[4] __attribute__((aligned(16))) = {5, 6, 7, 8}; /* .rodata: MRAM */
#if defined(__ARM_FEATURE_MVE) && __ARM_FEATURE_MVE
/* .rodata too, in a 32-byte line of its own: a data-cache line no other unit touches */
static const int32_t line_constants[8] __attribute__((aligned(32))) = {9, 10, 11, 12};
#endif

int main(void)
{
    chain[0] = chain;
    unit_load_chain(chain);
    unit_load_burst(words);
    unit_branch_loop(0);
    unit_one_load(words);
    unit_one_load(constants);
    unit_dual_issue(0);
#if defined(__ARM_FEATURE_MVE) && __ARM_FEATURE_MVE
    unit_low_overhead_loop(0);
    unit_mve_same_pipe(0);
    unit_mve_other_pipe(0);
    unit_mve_dependent(0);
    unit_mve_store_load(words + 8);
    unit_mve_load(words);
    unit_mve_load(line_constants); /* a data-cache miss: the line is filled */
    unit_mve_load(line_constants); /* the same line again: a hit */
#endif
    unit_one_load(constants); /* MRAM again: on the M55 the line is cached since the first load */
    return chain[0] == chain && words[0] == 1 ? 0 : 1;
}
