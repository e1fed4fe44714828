/* ${comment} */
#include "${prefix}_common.h"
#include "${stem}.h"
% for header in kernel_headers:
#include "${header}"
% endfor

${next.body()}
