## The lines module.type: zephyr adds to <prefix>_platform.h (ModuleExporter.PLATFORM_HOOKS).

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
