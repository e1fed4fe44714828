/* ${comment} */
#ifndef ${STEM}_H
#define ${STEM}_H

#include "${prefix}_common.h"

#ifdef __cplusplus
extern "C" {
#endif

int32_t ${stem}_run(${prefix}_model_context_t *ctx);

#ifdef __cplusplus
}
#endif

#endif /* ${STEM}_H */
