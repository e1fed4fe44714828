/* ${prefix}_constants_${memory.lower()}.c: constant bytes of ${model_comment} stored in ${memory}. */
#include "${prefix}_common.h"

% for r, symbol, size, data in items:
/* ${"Cold constants of " + r.enum + ", read in place" if r.cold else "Source of staged region " + r.enum + ", copied into it by " + prefix + "_hydrate_constants"}. */
extern const uint8_t ${symbol}[${size}];
${PREFIX}_PUT_IN_${memory}_INIT const uint8_t ${symbol}[${size}] ${PREFIX}_ALIGNED(${r.alignment}) = {
${data}
};

% endfor
