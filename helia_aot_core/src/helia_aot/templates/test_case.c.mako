/* ${prefix}_test_case.c: ${num_samples} golden sample(s) for ${model_comment}, ${num_iterations} iteration(s) each,
 * tolerance ${tolerance_c}${'' if tolerance_ulp is None else f' ({tolerance_ulp} ULP for float outputs)'}. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "${prefix}_model.h"
#include "${prefix}_test_case.h"

#define ${PREFIX}_TEST_SAMPLES ${num_samples}
#define ${PREFIX}_TEST_ITERATIONS ${num_iterations}

/* [sample][frame][element]: one frame for the whole sample, or one per run (a stream: the input
 * of run k, the expected output after run k). */
% for arr in arrays:
static const ${arr.ctype} ${arr.symbol}[${PREFIX}_TEST_SAMPLES][${arr.frames}][${arr.size}] = {
% for sample in arr.samples:
    {
% for frame in sample:
        {${frame}},
% endfor
    },
% endfor
};
% endfor

/* 1 for inputs fed back from an output (test.state_feedback): they get the stimulus only on the
 * first iteration. */
static const uint8_t ${prefix}_test_fed_input[${prefix}_num_inputs] = {${", ".join("1" if i in fed_inputs else "0" for i in range(len(inputs)))}};
% if feedback:
static const int32_t ${prefix}_test_feedback[${len(feedback)}][2] = {${", ".join(f"{{{o}, {i}}}" for o, i in feedback)}};
% endif

static ${prefix}_model_context_t ${prefix}_test_ctx;
static int32_t ${prefix}_test_ready = 0;
% if not allocate_arenas:

/* The module leaves its arenas to the application (memory.allocate_arenas: false): the test binds
 * them as an application would, cold constants to a copy of the module's sidecar files. */
% for r in c_regions:
% if r.cold:
static const uint8_t ${prefix}_test_${r.blob}[${r.total_size}] ${PREFIX}_ALIGNED(${r.alignment}) = {
${test_blobs[r.blob]}
};
% else:
static uint8_t ${prefix}_test_${r.buffer}[${r.total_size}] ${PREFIX}_ALIGNED(${r.alignment}) ${PREFIX}_PUT_IN_${r.memory};
% endif
% endfor
% endif
% if tolerance_ulp is not None and any(out.is_float and not out.half for out in outputs_check):

/* A float's place on the number line as an integer: adjacent float32 values differ by 1, and
 * -0.0 and +0.0 map to the same place, so the distance between two values counts ULPs. */
static int64_t ${prefix}_float_place(float value)
{
    int32_t bits;
    memcpy(&bits, &value, sizeof(bits));
    return bits < 0 ? (int64_t)INT32_MIN - (int64_t)bits : (int64_t)bits;
}
% endif
% if any(out.half for out in outputs_check):

/* An IEEE binary16 bit pattern as a double, decoded in portable C (no _Float16 needed here). */
static double ${prefix}_half_value(uint16_t bits)
{
    const int32_t exponent = (int32_t)((bits >> 10) & 0x1Fu);
    const double mantissa = (double)(bits & 0x3FFu);
    double magnitude;
    if (exponent == 0) {
        magnitude = ldexp(mantissa, -24);
    } else if (exponent == 31) {
        magnitude = mantissa == 0.0 ? HUGE_VAL : NAN;
    } else {
        magnitude = ldexp(mantissa + 1024.0, exponent - 25);
    }
    return (bits & 0x8000u) != 0u ? -magnitude : magnitude;
}
% endif
% for out in outputs_check:

% if out.half:
/* float16 output: decoded and compared with the float32 golden within the relative bound. */
static int32_t ${prefix}_check_output_${out.index}(const uint16_t *actual, const float *expected, double *max_diff)
% elif out.is_float and tolerance_ulp is not None:
static int32_t ${prefix}_check_output_${out.index}(const ${out.ctype} *actual, const ${out.ctype} *expected, double *max_diff,
                                                   int64_t *max_ulp)
% else:
static int32_t ${prefix}_check_output_${out.index}(const ${out.ctype} *actual, const ${out.ctype} *expected, double *max_diff)
% endif
{
    int32_t mismatches = 0;
    int32_t i;
    *max_diff = 0.0;
% if out.is_float and not out.half and tolerance_ulp is not None:
    *max_ulp = 0;
% endif
    for (i = 0; i < ${out.size}; ++i) {
% if out.half:
        const double diff = fabs(${prefix}_half_value(actual[i]) - (double)expected[i]);
        const double bound = ${tolerance_c} * (fabs((double)expected[i]) > 1.0 ? fabs((double)expected[i]) : 1.0);
        if (!(diff <= bound)) {
% elif out.is_float and tolerance_ulp is not None:
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

% for out in outputs_check:

/* Compare output ${out.index} after run \p run of \p sample with its expected frame; print a line when
 * it mismatches${" (and every float output's largest distance)" if out.is_float and tolerance_ulp is not None else ""}. Returns 1 on a mismatch, 0 otherwise. */
static int32_t ${prefix}_test_compare_${out.index}(const ${prefix}_model_context_t *ctx, int32_t sample, int32_t run,
                                                  const ${"float" if out.half else out.ctype} *expected)
{
    double max_diff;
% if out.half:
    const int32_t bad = ${prefix}_check_output_${out.index}((const uint16_t *)(const void *)ctx->outputs[${out.index}].data,
                                               expected, &max_diff);
    /* The largest distance of every float16 output, passing or not. */
    ${PREFIX}_PRINTF("sample %ld run %ld output ${out.index}: %ld of ${out.size} mismatched (max diff %g)\n",
                     (long)sample, (long)run, (long)bad, max_diff);
% elif out.is_float and tolerance_ulp is not None:
    int64_t max_ulp;
    const int32_t bad = ${prefix}_check_output_${out.index}((const ${out.ctype} *)(const void *)ctx->outputs[${out.index}].data,
                                               expected, &max_diff, &max_ulp);
    /* The largest distance of every float output, passing or not: a bound is chosen from it. */
    ${PREFIX}_PRINTF("sample %ld run %ld output ${out.index}: %ld of ${out.size} mismatched (max diff %g, %ld ULP)\n",
                     (long)sample, (long)run, (long)bad, max_diff, (long)(max_ulp > INT32_MAX ? INT32_MAX : max_ulp));
% else:
    const int32_t bad = ${prefix}_check_output_${out.index}((const ${out.ctype} *)(const void *)ctx->outputs[${out.index}].data,
                                               expected, &max_diff);
    if (bad != 0) {
        ${PREFIX}_PRINTF("sample %ld run %ld output ${out.index}: %ld of ${out.size} mismatched (max diff %g)\n",
                         (long)sample, (long)run, (long)bad, max_diff);
    }
% endif
    (void)sample;
    (void)run;
    return bad != 0 ? 1 : 0;
}
% endfor

int32_t ${prefix}_test_case_init(void)
{
    int32_t status;
    memset(&${prefix}_test_ctx, 0, sizeof(${prefix}_test_ctx));
    ${prefix}_test_ready = 0;
% if not allocate_arenas:
% for r in c_regions:
    status = ${prefix}_bind_arena(${r.enum}, ${"(void *)(uintptr_t)" if r.cold else ""}${prefix}_test_${r.blob if r.cold else r.buffer}, ${r.total_size}u);
    if (status != ${prefix}_status_ok) {
        ${PREFIX}_PRINTF("${prefix}_test_case: binding ${r.enum} failed with status %ld\n", (long)status);
        return status;
    }
% endfor
% endif
    status = ${prefix}_model_init(&${prefix}_test_ctx);
    if (status != ${prefix}_status_ok) {
        ${PREFIX}_PRINTF("${prefix}_test_case: init failed with status %ld\n", (long)status);
        return status;
    }
    ${prefix}_test_ready = 1;
    return ${prefix}_status_ok;
}

int32_t ${prefix}_test_case_run(void)
{
    ${prefix}_model_context_t *ctx = &${prefix}_test_ctx;
    int32_t failed = 0;
    int32_t sample;
    int32_t iteration;
    int32_t status;
    if (!${prefix}_test_ready) {
        status = ${prefix}_test_case_init();
        if (status != ${prefix}_status_ok) {
            return status;
        }
    }
    for (sample = 0; sample < ${PREFIX}_TEST_SAMPLES; ++sample) {
        for (iteration = 0; iteration < ${PREFIX}_TEST_ITERATIONS; ++iteration) {
% for arr in arrays:
% if arr.role == "input":
            if (iteration == 0 || !${prefix}_test_fed_input[${arr.index}]) {
                memcpy(ctx->inputs[${arr.index}].data, ${arr.symbol}[sample][${"iteration" if arr.frames > 1 else "0"}], ${arr.nbytes}u);
            }
% endif
% endfor
            status = ${prefix}_model_run(ctx);
            if (status != ${prefix}_status_ok) {
                ${PREFIX}_PRINTF("${prefix}_test_case: run failed with status %ld\n", (long)status);
                return status;
            }
% for out in outputs_check:
% if out.frames > 1:
            failed += ${prefix}_test_compare_${out.index}(ctx, sample, iteration, ${out.symbol}[sample][iteration]);
% endif
% endfor
% if feedback:
            if (iteration + 1 < ${PREFIX}_TEST_ITERATIONS) {
                int32_t pair;
                for (pair = 0; pair < ${len(feedback)}; ++pair) {
                    const ${prefix}_tensor_io_t *from = &ctx->outputs[${prefix}_test_feedback[pair][0]];
                    memmove(ctx->inputs[${prefix}_test_feedback[pair][1]].data, from->data, from->size);
                }
            }
% endif
        }
% for out in outputs_check:
% if out.frames == 1:
        failed += ${prefix}_test_compare_${out.index}(ctx, sample, ${PREFIX}_TEST_ITERATIONS - 1, ${out.symbol}[sample][0]);
% endif
% endfor
    }
% if num_iterations > 1:
    ${PREFIX}_PRINTF("${prefix}_test_case: %s (%d sample(s), %d run(s) each, ${len(outputs_check)} output(s))\n",
                     failed == 0 ? "PASS" : "FAIL", ${PREFIX}_TEST_SAMPLES, ${PREFIX}_TEST_ITERATIONS);
% else:
    ${PREFIX}_PRINTF("${prefix}_test_case: %s (%d sample(s), ${len(outputs_check)} output(s))\n", failed == 0 ? "PASS" : "FAIL",
                     ${PREFIX}_TEST_SAMPLES);
% endif
    return failed;
}
