/* ${prefix}_platform.h: placement and alignment macros for ${platform_name}.
 * Every placement macro defaults to nothing so the module builds anywhere; define them (for
 * example with -D in your build system) to put arenas or code in a particular memory, e.g.
 *   -D'${PREFIX}_PUT_IN_DTCM=__attribute__((section(".dtcm_data")))'
 *   -D'${PREFIX}_PUT_CODE_IN_ITCM=__attribute__((section(".itcm_text")))' */
#ifndef ${PREFIX}_PLATFORM_H
#define ${PREFIX}_PLATFORM_H

#if defined(__GNUC__) || defined(__clang__)
#define ${PREFIX}_ALIGNED(n) __attribute__((aligned(n)))
#else
#define ${PREFIX}_ALIGNED(n)
#endif

/* Data placement: the arenas of each memory carry that memory's macro. */
% for memory in memories:
#ifndef ${PREFIX}_PUT_IN_${memory}
#define ${PREFIX}_PUT_IN_${memory}
#endif
% endfor

/* Code placement: run functions of operators with code_placement: ITCM carry this macro. */
#ifndef ${PREFIX}_PUT_CODE_IN_ITCM
#define ${PREFIX}_PUT_CODE_IN_ITCM
#endif

#endif /* ${PREFIX}_PLATFORM_H */
