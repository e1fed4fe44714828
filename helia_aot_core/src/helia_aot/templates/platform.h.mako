/* ${prefix}_platform.h: logging, placement and alignment hooks for ${platform_name}.
 * Every hook defaults to nothing so the module builds anywhere; define them (for example with -D
 * in your build system) to print from the self-test or to put arenas or code in a memory, e.g.
 *   -D'${PREFIX}_PRINTF(...)=printf(__VA_ARGS__)'
 *   -D'${PREFIX}_PUT_IN_DTCM=__attribute__((section(".dtcm_data")))'
 *   -D'${PREFIX}_PUT_CODE_IN_ITCM=__attribute__((section(".itcm_text")))' */
#ifndef ${PREFIX}_PLATFORM_H
#define ${PREFIX}_PLATFORM_H
${platform_hooks}\

/* Self-test output (quiet unless defined). */
#ifndef ${PREFIX}_PRINTF
#define ${PREFIX}_PRINTF(...) ((void)0)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define ${PREFIX}_ALIGNED(n) __attribute__((aligned(n)))
#else
#define ${PREFIX}_ALIGNED(n)
#endif

/* Data placement: zero-initialized arenas carry <MEMORY>, initialized data <MEMORY>_INIT. */
% for memory in memories:
#ifndef ${PREFIX}_PUT_IN_${memory}
#define ${PREFIX}_PUT_IN_${memory}
#endif
#ifndef ${PREFIX}_PUT_IN_${memory}_INIT
#define ${PREFIX}_PUT_IN_${memory}_INIT
#endif
% endfor

/* Code placement: run functions of operators with code_placement: ITCM carry this macro. */
#ifndef ${PREFIX}_PUT_CODE_IN_ITCM
#define ${PREFIX}_PUT_CODE_IN_ITCM
#endif

#endif /* ${PREFIX}_PLATFORM_H */
