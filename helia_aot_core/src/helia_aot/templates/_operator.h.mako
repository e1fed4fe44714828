/* ${comment} */
#ifndef ${stem.upper()}_H
#define ${stem.upper()}_H

#include "${prefix}_common.h"

#ifdef __cplusplus
extern "C" {
#endif

% if has_init:
int32_t ${stem}_init(${prefix}_model_context_t *ctx);
% endif
int32_t ${stem}_run(${prefix}_model_context_t *ctx);

#ifdef __cplusplus
}
#endif

#endif /* ${stem.upper()}_H */
