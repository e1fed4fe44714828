/* ${prefix}_platform.h: logging, placement and alignment hooks for ${platform_name}.
 * Every hook defaults to nothing so the module builds anywhere; define them (for example with -D
 * in your build system) to print from the self-test or to put arenas or code in a memory, e.g.
 *   -D'${PREFIX}_PRINTF(...)=printf(__VA_ARGS__)'
 *   -D'${PREFIX}_PUT_IN_DTCM=__attribute__((section(".dtcm_data")))'
 *   -D'${PREFIX}_PUT_CODE_IN_ITCM=__attribute__((section(".itcm_text")))' */
#ifndef ${PREFIX}_PLATFORM_H
#define ${PREFIX}_PLATFORM_H
% if zephyr:

#if defined(__has_include)
#if __has_include(<zephyr/linker/section_tags.h>)
#include <zephyr/linker/section_tags.h>
#endif
#endif
#ifdef CONFIG_PRINTK
#include <zephyr/sys/printk.h>
#ifndef ${PREFIX}_PRINTF
#define ${PREFIX}_PRINTF(...) printk(__VA_ARGS__)
#endif
#endif
#if defined(__dtcm_bss_section) && !defined(${PREFIX}_PUT_IN_DTCM)
#define ${PREFIX}_PUT_IN_DTCM __dtcm_bss_section
#endif
#if defined(__dtcm_data_section) && !defined(${PREFIX}_PUT_IN_DTCM_INIT)
#define ${PREFIX}_PUT_IN_DTCM_INIT __dtcm_data_section
#endif
% endif
% if nsx:

#ifndef ${PREFIX}_PUT_CODE_IN_ITCM
#define ${PREFIX}_PUT_CODE_IN_ITCM __attribute__((section(".itcm_text")))
#endif
% endif

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
