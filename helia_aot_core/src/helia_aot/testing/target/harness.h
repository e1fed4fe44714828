/*
 * harness.h: what a program built by helia_aot.testing.cross may call besides standard C.
 *
 *   harness_region_begin();
 *   ...code whose instructions are counted...
 *   harness_region_end();
 *
 * Under run_qemu(count=True) a QEMU plugin watches both markers and records, for each region,
 * the guest instructions executed after harness_region_begin() returns and before
 * harness_region_end() is called (an empty region counts 0). Regions may repeat but not nest.
 * Output goes through semihosting (printf works), and main's return value or exit()'s status
 * becomes QEMU's exit status.
 */
#ifndef HARNESS_H
#define HARNESS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Defined in startup.S as a single BX LR each, in their own section: never inlined. */
void harness_region_begin(void);
void harness_region_end(void);

#ifdef __cplusplus
}
#endif

#endif /* HARNESS_H */
