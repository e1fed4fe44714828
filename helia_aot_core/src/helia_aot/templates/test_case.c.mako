/* ${prefix}_test_case.c: ${num_samples} golden sample(s) for ${model_comment}, tolerance ${tolerance_c}${'' if tolerance_ulp is None else f' ({tolerance_ulp} ULP for float outputs)'}. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "${prefix}_model.h"
#include "${prefix}_test_case.h"

#define ${PREFIX}_TEST_SAMPLES ${num_samples}

% for arr in arrays:
static const ${arr.ctype} ${arr.symbol}[${PREFIX}_TEST_SAMPLES][${arr.size}] = {
% for sample in arr.samples:
    {${sample}},
% endfor
};
% endfor

% if not allocate_arenas:
/* The module leaves its arenas to the application (memory.allocate_arenas: false): the test
 * provides them as the application would. */
% for r in regions:
% if not r.cold:
static uint8_t ${prefix}_test_arena_${r.id}[${r.macro}_SIZE] ${PREFIX}_ALIGNED(${r.alignment}) ${PREFIX}_PUT_IN_${r.memory};
% endif
% endfor

% endif
% if tolerance_ulp is not None and any(out.is_float for out in outputs_check):
/* A float's place on the number line as an integer: adjacent float32 values differ by 1, and
 * -0.0 and +0.0 map to the same place, so the distance between two values counts ULPs. */
static int64_t ${prefix}_float_place(float value)
{
    int32_t bits;
    memcpy(&bits, &value, sizeof(bits));
    return bits < 0 ? (int64_t)INT32_MIN - (int64_t)bits : (int64_t)bits;
}

% endif
% for out in outputs_check:
% if out.is_float and tolerance_ulp is not None:
static int32_t ${prefix}_check_output_${out.index}(const ${out.ctype} *actual, const ${out.ctype} *expected, double *max_diff,
                                                   int64_t *max_ulp)
% else:
static int32_t ${prefix}_check_output_${out.index}(const ${out.ctype} *actual, const ${out.ctype} *expected, double *max_diff)
% endif
{
    int32_t mismatches = 0;
    int32_t i;
    *max_diff = 0.0;
% if out.is_float and tolerance_ulp is not None:
    *max_ulp = 0;
% endif
    for (i = 0; i < ${out.size}; ++i) {
% if out.is_float and tolerance_ulp is not None:
        const double diff = fabs((double)actual[i] - (double)expected[i]);
        const int64_t places = ${prefix}_float_place(actual[i]) - ${prefix}_float_place(expected[i]);
        const int64_t ulps = places < 0 ? -places : places;
        if (ulps > *max_ulp) {
            *max_ulp = ulps;
        }
        if (isnan(actual[i]) || isnan(expected[i]) || ulps > ${tolerance_ulp}) {
% elif out.is_float:
        const double diff = fabs((double)actual[i] - (double)expected[i]);
        const double bound = ${tolerance_c} * (fabs((double)expected[i]) > 1.0 ? fabs((double)expected[i]) : 1.0);
        if (!(diff <= bound)) {
% else:
        const double diff = fabs((double)actual[i] - (double)expected[i]);
        if (diff > ${tolerance_c}) {
% endif
            ++mismatches;
        }
        if (diff > *max_diff) {
            *max_diff = diff;
        }
    }
    return mismatches;
}

% endfor
int32_t ${prefix}_test_case_run(int32_t verbose)
{
    ${prefix}_model_context_t ctx;
    int32_t failed = 0;
    int32_t sample;
    int32_t status;
    memset(&ctx, 0, sizeof(ctx));
% if not allocate_arenas:
    {
        const ${prefix}_arena_binding_t bindings[] = {
% for r in regions:
% if not r.cold:
            {${r.macro}_ID, ${prefix}_test_arena_${r.id}, ${r.macro}_SIZE},
% endif
% endfor
        };
        status = ${prefix}_bind_arenas(&ctx, bindings, (int32_t)(sizeof(bindings) / sizeof(bindings[0])));
        if (status != 0) {
            printf("${prefix}_test_case: binding the arenas failed with status %ld\n", (long)status);
            return -status;
        }
    }
% endif
    status = ${prefix}_model_init(&ctx);
    if (status != 0) {
        printf("${prefix}_test_case: init failed with status %ld\n", (long)status);
        return -status;
    }
    for (sample = 0; sample < ${PREFIX}_TEST_SAMPLES; ++sample) {
% for arr in arrays:
% if arr.role == "input":
        memcpy(ctx.inputs[${arr.index}].data, ${arr.symbol}[sample], ${arr.nbytes}u);
% endif
% endfor
        status = ${prefix}_model_run(&ctx);
        if (status != 0) {
            printf("${prefix}_test_case: run failed with status %ld\n", (long)status);
            return -status;
        }
% for out in outputs_check:
        {
            double max_diff;
% if out.is_float and tolerance_ulp is not None:
            int64_t max_ulp;
            const int32_t bad = ${prefix}_check_output_${out.index}((const ${out.ctype} *)ctx.outputs[${out.index}].data,
                                                   ${out.symbol}[sample], &max_diff, &max_ulp);
% else:
            const int32_t bad = ${prefix}_check_output_${out.index}((const ${out.ctype} *)ctx.outputs[${out.index}].data,
                                                   ${out.symbol}[sample], &max_diff);
% endif
            if (bad != 0) {
                ++failed;
            }
            if (verbose || bad != 0) {
% if out.is_float and tolerance_ulp is not None:
                printf("sample %ld output ${out.index}: %ld of ${out.size} mismatched (max diff %g, %ld ULP)\n",
                       (long)sample, (long)bad, max_diff, (long)(max_ulp > INT32_MAX ? INT32_MAX : max_ulp));
% else:
                printf("sample %ld output ${out.index}: %ld of ${out.size} mismatched (max diff %g)\n",
                       (long)sample, (long)bad, max_diff);
% endif
            }
        }
% endfor
    }
    printf("${prefix}_test_case: %s (%d sample(s), ${len(outputs_check)} output(s))\n", failed == 0 ? "PASS" : "FAIL",
           ${PREFIX}_TEST_SAMPLES);
    return failed;
}
