/* ${prefix}_constants_${region.memory.lower()}.c: constants of ${model_comment} stored in ${region.memory}
 * (${region.used} bytes; read in place unless listed as staged below). */
#include "${prefix}_common.h"
% for r in staged:
/* Bytes ${r.source_offset}..${r.source_offset + r.used} are copied at init into ${r.symbol} (${r.memory}). */
% endfor

extern const uint8_t ${region.symbol}[${region.total_size}];
const uint8_t ${region.symbol}[${region.total_size}] ${PREFIX}_ALIGNED(${region.alignment}) ${PREFIX}_PUT_IN_${region.memory} = {
${data}
};
