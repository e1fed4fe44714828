/* An application written for the product's default KWS module on the Apollo510 (prefix "aot"): it
 * names the regions that module has, the scratch arena aot_arena_dtcm and the constants read in
 * place from DTCM, aot_arena_const_dtcm, and sizes its buffers with their _size macros. With
 * APP_EXTERNAL_ARENAS (memory.allocate_arenas: false) it binds both, the constant region to the
 * bytes of aot_arena_const_dtcm__blob.bin, which the build links in as aot_const_dtcm_bytes.
 * Then it runs the module's self-test. main returns the number of failed checks. */
#include <stdint.h>
#include <stdio.h>

#include "aot_model.h"
#include "aot_test_case.h"

/* The product's default KWS module has two regions (a compile-time check: -Werror build). */
typedef char aot_two_regions[(aot_num_arena_buffers == 2) ? 1 : -1];

static int failures = 0;

#define CHECK(cond)                                                  \
    do {                                                             \
        if (!(cond)) {                                               \
            printf("check failed (line %d): %s\n", __LINE__, #cond); \
            ++failures;                                              \
        }                                                            \
    } while (0)

#ifdef APP_EXTERNAL_ARENAS
#include "aot_const_dtcm_blob.h" /* aot_const_dtcm_bytes: the sidecar, as the application links it */

static uint8_t scratch[aot_arena_dtcm_size] __attribute__((aligned(16)));
#endif

int main(void)
{
    CHECK(aot_arena_dtcm != aot_arena_const_dtcm);
    CHECK(aot_arena_sizes[aot_arena_dtcm] == aot_arena_dtcm_size);
    CHECK(aot_arena_sizes[aot_arena_const_dtcm] == aot_arena_const_dtcm_size);
#ifdef APP_EXTERNAL_ARENAS
    CHECK(sizeof(aot_const_dtcm_bytes) == aot_arena_const_dtcm_size);
    CHECK(aot_bind_arena(aot_arena_dtcm, scratch, sizeof(scratch)) == aot_status_ok);
    CHECK(aot_bind_arena(aot_arena_const_dtcm, (void *)(uintptr_t)aot_const_dtcm_bytes,
                         sizeof(aot_const_dtcm_bytes)) == aot_status_ok);
#endif
    CHECK(aot_test_case_init() == 0);
    CHECK(aot_test_case_run() == 0);
    printf("APP PASS: %d failed\n", failures);
    return failures;
}
