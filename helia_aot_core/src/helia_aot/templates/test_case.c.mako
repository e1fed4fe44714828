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

/* The verdict words of the summary lines: 0 bit-exact (every value equal), 1 within tolerance
 * (some differ, none beyond the bound), 2 mismatch (some beyond), 3 nothing compared
 * (test.skip_verification). */
#define ${PREFIX}_TEST_VERDICT_NAME(verdict)                                                                    \
    ((verdict) == 0 ? "bit-exact"                                                                        \
                    : (verdict) == 1 ? "within tolerance" : (verdict) == 2 ? "mismatch" : "nothing compared")

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

% if inputs:
## A model without run-time inputs has none to feed (and C has no empty array).
/* 1 for inputs fed back from an output (test.state_feedback): they get the stimulus only on the
 * first iteration. */
static const uint8_t ${prefix}_test_fed_input[${prefix}_num_inputs] = {${", ".join("1" if i in fed_inputs else "0" for i in range(len(inputs)))}};
% endif
% if feedback:
static const int32_t ${prefix}_test_feedback[${len(feedback)}][2] = {${", ".join(f"{{{o}, {i}}}" for o, i in feedback)}};
% endif

static ${prefix}_model_context_t ${prefix}_test_ctx;
static int32_t ${prefix}_test_ready = 0;
% if bound_inputs:

/* memory.bind_inputs: the inputs live in the caller's buffers, here the test's own. */
% for t in inputs:
static uint8_t ${prefix}_test_bound_input_${loop.index}[${max(t.nbytes, 1)}] ${PREFIX}_ALIGNED(16);
% endfor
% endif
% if bound_outputs:

/* memory.bind_outputs: the outputs are written into the caller's buffers, here the test's own. */
% for i in bound_outputs:
static uint8_t ${prefix}_test_bound_output_${i}[${max(outputs[i].nbytes, 1)}] ${PREFIX}_ALIGNED(16);
% endfor
% endif
% if not allocate_arenas:

/* The module leaves its arenas to the application (memory.allocate_arenas: false): the test binds
 * them as an application would, cold constants to a copy of the module's sidecar files. */
% elif bound_regions:

/* The module leaves its scratch arenas to the application (memory.shared_arena): the test binds
 * a buffer of its own to each, where an application gives every module of its image the same one. */
% endif
% for r in bound_regions:
% if r.cold:
static const uint8_t ${prefix}_test_${r.blob}[${r.total_size}] ${PREFIX}_ALIGNED(${r.alignment}) = {
${test_blobs[r.blob]}
};
% else:
static uint8_t ${prefix}_test_${r.buffer}[${r.total_size}] ${PREFIX}_ALIGNED(${r.alignment}) ${PREFIX}_PUT_IN_${r.memory};
% endif
% endfor
% if any(out.kind == "ulp" for out in outputs_check):

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
% if outputs_check:

/* One output's comparison over every sample and run: what its summary line reports. A value
 * "differs" when it is not equal to the expected one; it is "beyond" when it is outside the
 * output's bound (for an output compared exactly, the same thing). */
typedef struct {
    uint32_t compared;
    uint32_t differ;
    uint32_t beyond;
    double max_diff;
    int64_t max_ulp;
} ${prefix}_test_stats_t;

static ${prefix}_test_stats_t ${prefix}_test_stats[${len(outputs_check)}];

/* Add one frame's counts to an output's totals. */
static void ${prefix}_test_add(${prefix}_test_stats_t *stats, uint32_t size, uint32_t differ, uint32_t beyond, double max_diff,
                             int64_t max_ulp)
{
    stats->compared += size;
    stats->differ += differ;
    stats->beyond += beyond;
    if (max_diff > stats->max_diff) {
        stats->max_diff = max_diff;
    }
    if (max_ulp > stats->max_ulp) {
        stats->max_ulp = max_ulp;
    }
}

/* Print an output's summary line and return its verdict: 0 bit-exact, 1 within tolerance,
 * 2 mismatch. The line is read by helia-aot test (helia_aot.testing.verdict parses it):
 * "<prefix>_test_case: output I DTYPE: N compared, K differ, max diff D[ (U ULP)]: VERDICT". */
static int32_t ${prefix}_test_report(int32_t output, const char *dtype, const ${prefix}_test_stats_t *stats, int32_t ulp,
                                   const char *bound)
{
    const int32_t verdict = stats->beyond != 0u ? 2 : (stats->differ != 0u ? 1 : 0);
    ${PREFIX}_PRINTF("${prefix}_test_case: output %ld %s: %lu compared, %lu differ, max diff %g", (long)output, dtype,
                     (unsigned long)stats->compared, (unsigned long)stats->differ, stats->max_diff);
    if (ulp) {
        ${PREFIX}_PRINTF(" (%ld ULP)", (long)(stats->max_ulp > INT32_MAX ? INT32_MAX : stats->max_ulp));
    }
    if (verdict == 0) {
        ${PREFIX}_PRINTF(": bit-exact\n");
    } else if (verdict == 1) {
        ${PREFIX}_PRINTF(": within tolerance (%s)\n", bound);
    } else {
        ${PREFIX}_PRINTF(": mismatch (%s; %lu beyond)\n", bound, (unsigned long)stats->beyond);
    }
    (void)output;
    (void)dtype;
    (void)bound;
    return verdict;
}
% endif
% if any(out.kind == "ulp" for out in outputs_check):

/* The largest ULP distance of the frame compared last (the per-run line of a float32 output). */
static int64_t ${prefix}_test_last_ulp = 0;
% endif
% for k, out in enumerate(outputs_check):

/* Output ${out.index} (${out.dtype}): ${out.bound_text}. Compares one frame, adds it to the totals and returns how
 * many values are beyond the bound (\p max_diff: this frame's largest difference). */
% if out.half:
static int32_t ${prefix}_check_output_${out.index}(const uint16_t *actual, const float *expected, double *max_diff)
% else:
static int32_t ${prefix}_check_output_${out.index}(const ${out.ctype} *actual, const ${out.ctype} *expected, double *max_diff)
% endif
{
    uint32_t differ = 0u;
    uint32_t beyond = 0u;
    int64_t max_ulp = 0;
    int32_t i;
    *max_diff = 0.0;
    for (i = 0; i < ${out.size}; ++i) {
% if out.kind == "exact":
        const double diff = fabs((double)actual[i] - (double)expected[i]);
        const int32_t differs = actual[i] != expected[i];
        const int32_t out_of_bound = differs;
% elif out.kind == "absolute":
        const double diff = fabs((double)actual[i] - (double)expected[i]);
        const int32_t differs = actual[i] != expected[i];
        const int32_t out_of_bound = diff > ${out.bound};
% elif out.kind == "ulp":
        const int32_t is_nan = isnan(actual[i]) || isnan(expected[i]);
        const double diff = is_nan ? HUGE_VAL : fabs((double)actual[i] - (double)expected[i]);
        const int64_t places = ${prefix}_float_place(actual[i]) - ${prefix}_float_place(expected[i]);
        const int64_t ulps = places < 0 ? -places : places;
        const int32_t differs = is_nan || actual[i] != expected[i];
        const int32_t out_of_bound = is_nan || ulps > ${out.bound};
        if (!is_nan && ulps > max_ulp) {
            max_ulp = ulps;
        }
% else:
% if out.half:
        const double value = ${prefix}_half_value(actual[i]);
% else:
        const double value = (double)actual[i];
% endif
        const int32_t is_nan = isnan(value) || isnan(expected[i]);
        const double diff = is_nan ? HUGE_VAL : fabs(value - (double)expected[i]);
        const int32_t differs = is_nan || value != (double)expected[i];
        const int32_t out_of_bound = is_nan || !(diff <= ${out.bound});
% endif
        if (differs) {
            ++differ;
        }
        if (out_of_bound) {
            ++beyond;
        }
        if (diff > *max_diff) {
            *max_diff = diff;
        }
    }
    ${prefix}_test_add(&${prefix}_test_stats[${k}], ${out.size}u, differ, beyond, *max_diff, max_ulp);
% if out.kind == "ulp":
    ${prefix}_test_last_ulp = max_ulp;
% endif
    return (int32_t)beyond;
}
% endfor

% for out in outputs_check:

/* Compare output ${out.index} after run \p run of \p sample with its expected frame; print a line when
 * values are beyond the bound${" (a float16 or ULP-checked output: every run, with its largest distance)" if out.half or out.kind == "ulp" else ""}. Returns 1 on a mismatch, 0 otherwise. */
static int32_t ${prefix}_test_compare_${out.index}(const ${prefix}_model_context_t *ctx, int32_t sample, int32_t run,
                                                  const ${"float" if out.half else out.ctype} *expected)
{
    double max_diff;
    const int32_t bad = ${prefix}_check_output_${out.index}((const ${"uint16_t" if out.half else out.ctype} *)(const void *)ctx->outputs[${out.index}].data,
                                               expected, &max_diff);
% if out.kind == "ulp":
    ${PREFIX}_PRINTF("sample %ld run %ld output ${out.index}: %ld of ${out.size} mismatched (max diff %g, %ld ULP)\n",
                     (long)sample, (long)run, (long)bad, max_diff,
                     (long)(${prefix}_test_last_ulp > INT32_MAX ? INT32_MAX : ${prefix}_test_last_ulp));
% elif out.half:
    ${PREFIX}_PRINTF("sample %ld run %ld output ${out.index}: %ld of ${out.size} mismatched (max diff %g)\n",
                     (long)sample, (long)run, (long)bad, max_diff);
% else:
    if (bad != 0) {
        ${PREFIX}_PRINTF("sample %ld run %ld output ${out.index}: %ld of ${out.size} mismatched (max diff %g)\n",
                         (long)sample, (long)run, (long)bad, max_diff);
    }
% endif
    (void)sample;
    (void)run;
    (void)max_diff;
    return bad != 0 ? 1 : 0;
}
% endfor

int32_t ${prefix}_test_case_init(void)
{
    int32_t status;
    memset(&${prefix}_test_ctx, 0, sizeof(${prefix}_test_ctx));
    ${prefix}_test_ready = 0;
% for r in bound_regions:
    status = ${prefix}_bind_arena(${r.enum}, ${"(void *)(uintptr_t)" if r.cold else ""}${prefix}_test_${r.blob if r.cold else r.buffer}, ${r.total_size}u);
    if (status != ${prefix}_status_ok) {
        ${PREFIX}_PRINTF("${prefix}_test_case: binding ${r.enum} failed with status %ld\n", (long)status);
        return status;
    }
% endfor
    status = ${prefix}_model_init(&${prefix}_test_ctx);
    if (status != ${prefix}_status_ok) {
        ${PREFIX}_PRINTF("${prefix}_test_case: init failed with status %ld\n", (long)status);
        return status;
    }
% for t in (inputs if bound_inputs else []):
    ${prefix}_test_ctx.inputs[${loop.index}].data = (int8_t *)${prefix}_test_bound_input_${loop.index};
% endfor
% for i in bound_outputs:
    ${prefix}_test_ctx.outputs[${i}].data = (int8_t *)${prefix}_test_bound_output_${i};
% endfor
    ${prefix}_test_ready = 1;
    return ${prefix}_status_ok;
}

int32_t ${prefix}_test_case_run(void)
{
    ${prefix}_model_context_t *ctx = &${prefix}_test_ctx;
    int32_t failed = 0;
    int32_t verdict = ${"0" if outputs_check else "3"};
    int32_t sample;
    int32_t iteration;
    int32_t status;
    if (!${prefix}_test_ready) {
        status = ${prefix}_test_case_init();
        if (status != ${prefix}_status_ok) {
            return status;
        }
    }
% if outputs_check:
    memset(${prefix}_test_stats, 0, sizeof(${prefix}_test_stats));
% endif
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
% if outputs_check:
    /* One summary line per output, then the run's verdict: the worst of the outputs'. */
% for k, out in enumerate(outputs_check):
    status = ${prefix}_test_report(${out.index}, "${out.dtype}", &${prefix}_test_stats[${k}], ${1 if out.kind == "ulp" else 0}, "${out.bound_text}");
    verdict = status > verdict ? status : verdict;
% endfor
% endif
% if num_iterations > 1:
    ${PREFIX}_PRINTF("${prefix}_test_case: %s (%d sample(s), %d run(s) each, ${len(outputs_check)} output(s)): %s\n",
                     failed == 0 ? "PASS" : "FAIL", ${PREFIX}_TEST_SAMPLES, ${PREFIX}_TEST_ITERATIONS, ${PREFIX}_TEST_VERDICT_NAME(verdict));
% else:
    ${PREFIX}_PRINTF("${prefix}_test_case: %s (%d sample(s), ${len(outputs_check)} output(s)): %s\n", failed == 0 ? "PASS" : "FAIL",
                     ${PREFIX}_TEST_SAMPLES, ${PREFIX}_TEST_VERDICT_NAME(verdict));
% endif
    (void)verdict;
    return failed;
}
