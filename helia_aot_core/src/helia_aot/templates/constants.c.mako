/* ${prefix}_constants.c: constant arena of ${model_comment} (${nbytes} bytes, read in place). */
#include "${prefix}_common.h"

extern const uint8_t ${symbol}[${total_size}];
const uint8_t ${symbol}[${total_size}] ${PREFIX}_ALIGNED(${alignment}) ${PREFIX}_PUT_IN_${memory} = {
${data}
};
