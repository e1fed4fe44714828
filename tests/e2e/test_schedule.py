"""module.schedule: the dispatch table reports every operator in order; static calls run the same.

Both variants of the bundled KWS probe model (12 operators, each one's output also a model output)
run one inference on the same input; the table build records its callback events, the static build
must never call the callback, and both must produce the same bytes in every output. The probe is
used because the plain model's class scores are the same for every input (untrained weights), so
comparing them alone would not notice an operator the static schedule skipped or ran out of order.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import build_module

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "kws"

MAIN = """#include <stdio.h>
#include <string.h>
#include "kws_model.h"

static kws_model_context_t ctx;
static int32_t events[2 * kws_num_operators + 2][2];
static int32_t count;

static void on_operator(int32_t layer, kws_operator_state_t event, int32_t status, void *user_data)
{
    if (status != kws_status_ok) {
        count = 1000;
        return;
    }
    if (user_data != (void *)&ctx || count >= 2 * kws_num_operators + 2) {
        count = 1000;
        return;
    }
    events[count][0] = layer;
    events[count][1] = (int32_t)event;
    ++count;
}

int main(void)
{
    uint32_t i;
    int32_t o;
    if (kws_model_init(&ctx) != kws_status_ok) {
        return 2;
    }
    for (i = 0; i < ctx.inputs[0].size; ++i) {
        ctx.inputs[0].data[i] = (int8_t)(uint8_t)(i * 7u + 3u);
    }
    ctx.callback = on_operator;
    ctx.user_data = &ctx;
    if (kws_model_run(&ctx) != kws_status_ok) {
        return 3;
    }
    printf("operators %d\\nevents %ld\\n", kws_num_operators, (long)count);
    for (i = 0; i < (uint32_t)count; ++i) {
        printf("event %ld %ld\\n", (long)events[i][0], (long)events[i][1]);
    }
    for (o = 0; o < kws_num_outputs; ++o) {
        printf("output %ld:", (long)o);
        for (i = 0; i < ctx.outputs[o].size; ++i) {
            printf(" %u", (unsigned)(uint8_t)ctx.outputs[o].data[i]);
        }
        printf("\\n");
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The program's output for each schedule, with the conversion result."""
    outputs = {}
    for schedule in ("table", "static"):
        work = tmp_path_factory.mktemp(schedule)
        result = AotConverter(
            ConvertArgs.model_validate(
                {
                    "model": {"path": str(EXAMPLE / "kws_int8_probe.tflite")},
                    "module": {
                        "path": str(work / "out"),
                        "name": "kws",
                        "prefix": "kws",
                        "schedule": schedule,
                    },
                }
            )
        ).convert()
        exe = build_module(
            result.output,
            work / "build",
            prefix="kws",
            main_source=MAIN,
            sanitize=False,
            extra_cflags=("-O0",),
        )
        proc = subprocess.run([str(exe)], check=False, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        outputs[schedule] = (proc.stdout, result)
    return outputs


def test_table_callback_fires_for_every_operator_in_order(runs):
    stdout, result = runs["table"]
    lines = stdout.splitlines()
    operators = int(lines[0].split()[1])
    assert operators == len(result.plan.operators) == 12
    events = [tuple(int(v) for v in line.split()[1:]) for line in lines if line.startswith("event ")]
    expected = [(layer, event) for layer in range(operators) for event in (2, 3)]  # run_started, run_finished
    assert events == expected
    # The layer index the callback reports is the operator's index in the plan.
    assert [op.index for op in result.plan.operators] == list(range(operators))


def test_static_schedule_calls_no_callback_and_computes_the_same(runs):
    table, _ = runs["table"]
    static, result = runs["static"]
    assert "events 0" in static.splitlines()
    output = [line for line in static.splitlines() if line.startswith("output")]
    assert len(output) == 12
    assert output == [line for line in table.splitlines() if line.startswith("output")]
    model_c = (result.output / "src" / "kws_model.c").read_text()
    assert "kws_schedule[" not in model_c and "ctx->callback(" not in model_c
    assert model_c.count("_run(ctx);") == 12
