/*
 * helia-aot kernel library: which instruction set the fast kernels may use.
 *
 * The one place that reads the compiler's ACLE feature macros, so that every kernel agrees on
 * the path and one generated module builds for every core:
 *   HK_HAVE_MVE  Helium (M-profile vector extension, integer): Cortex-M55 (Apollo5/510).
 *   HK_HAVE_DSP  the 32-bit SIMD / DSP extension: Cortex-M4F (Apollo3/4), Cortex-M55 +nomve.
 *   neither      portable C99, the reference every other path must match bit for bit.
 * Both macros are always defined (0 or 1), so kernels test them with #if; at most one is 1 (a
 * Helium core also has the DSP extension, but its kernels take the Helium path). The intrinsics
 * header of the chosen set is included here. HK_ISA_PATH names the path as a string, which the
 * tests print to prove that they exercised the path they meant to.
 */
#ifndef HK_ISA_H
#define HK_ISA_H

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define HK_HAVE_MVE 1
#define HK_HAVE_DSP 0
#define HK_ISA_PATH "mve"
#include <arm_mve.h>
#elif defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP && defined(__ARM_FEATURE_SIMD32)
#define HK_HAVE_MVE 0
#define HK_HAVE_DSP 1
#define HK_ISA_PATH "dsp"
#include <arm_acle.h>
#else
#define HK_HAVE_MVE 0
#define HK_HAVE_DSP 0
#define HK_ISA_PATH "portable"
#endif

#endif /* HK_ISA_H */
