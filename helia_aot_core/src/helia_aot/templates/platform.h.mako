/* ${prefix}_platform.h: placement and alignment macros for ${platform_name}.
 * Every macro defaults to nothing so the module builds anywhere; define them (for example in
 * your build system) to put arenas or code in a particular memory. */
#ifndef ${PREFIX}_PLATFORM_H
#define ${PREFIX}_PLATFORM_H

#if defined(__GNUC__) || defined(__clang__)
#define ${PREFIX}_ALIGNED(n) __attribute__((aligned(n)))
#else
#define ${PREFIX}_ALIGNED(n)
#endif

% for memory in memories:
#ifndef ${PREFIX}_PUT_IN_${memory}
#define ${PREFIX}_PUT_IN_${memory}
#endif
% endfor
#ifndef ${PREFIX}_PUT_CODE_IN_ITCM
#define ${PREFIX}_PUT_CODE_IN_ITCM
#endif

#endif /* ${PREFIX}_PLATFORM_H */
