## The lines module.type: nsx adds to <prefix>_platform.h (ModuleExporter.PLATFORM_HOOKS).

#ifndef ${PREFIX}_PUT_CODE_IN_ITCM
#define ${PREFIX}_PUT_CODE_IN_ITCM __attribute__((section(".itcm_text")))
#endif
