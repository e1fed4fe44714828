"""IF and WHILE end to end: builder-made models converted, compiled under ASan/UBSan and run
against the LiteRT reference interpreter on inputs that take different branches and trip counts
(exact comparison, int8 and float32), plus the planner's guarantees around regions.

The models (``control_flow_models.py``) cover a loop whose trip count depends on the input, an
int8 loop carrying a constant-initialised counter, an int8 IF whose else branch returns its input
unchanged, and two nested loops with an IF inside the outer body.
"""

from __future__ import annotations

import subprocess
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.air import AirTensorKind, region_layout
from helia_aot.errors import UnsupportedModelError
from helia_aot.interpreters import create_interpreter
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.memory import compute_lifetimes
from helia_aot.pipeline.load import load_model
from helia_aot.pipeline.operator_ids import plan_operator_ids
from helia_aot.pipeline.plan import plan_memory
from helia_aot.pipeline.resolve import resolve_operators
from helia_aot.platforms.lookup import resolve_platform
from helia_aot.testing import build_module, run_module_test_case

from ops_builtin.support import control_flow_models as cfm

SAMPLES = cfm.SAMPLES


def _config(path: Path, tmp_path: Path, **test: object) -> ConvertArgs:
    return ConvertArgs.model_validate(
        {
            "model": {"path": str(path)},
            "module": {"path": str(tmp_path / "out"), "name": "module"},
            "test": {"enabled": True, "tolerance": 0.0, **test},
        }
    )


def test_the_static_schedule_runs_regions_too(tmp_path):
    path = cfm.nested_while_float32(tmp_path / "nested.tflite")
    golden, _ = cfm.write_golden(path, seed=3, samples=SAMPLES)
    config = _config(path, tmp_path, golden_data=str(golden))
    config.module.schedule = "static"
    result = AotConverter(config).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def _planned(path: Path, tmp_path: Path):
    converter = AotConverter(_config(path, tmp_path))
    config, context = converter.config, converter.registry_context
    platform = resolve_platform(config.platform, context)
    model = load_model(path, 0, context)
    operators = resolve_operators(model, platform, config, context)
    return model, plan_memory(model, operators, platform, config, context)


@pytest.mark.parametrize("name", ["while_float32", "while_int8", "nested_while_float32", "if_int8"])
def test_loop_tensors_never_share_bytes(name, tmp_path):
    """Every tensor a loop's operators touch, and the loop's own values, keep their bytes for the
    whole loop: no two of them overlap. Checked from the layout alone, not from the lifetimes the
    planner used."""
    model, plan = _planned(cfm.MODELS[name](tmp_path / "m.tflite"), tmp_path)
    layout = region_layout(model)
    checked = 0
    for owner, end in layout.owners.items():
        op = model.operators[owner]
        touched = {*op.input_ids, *op.output_ids}
        for region in op.options.regions:
            touched |= {*model.regions[region].inputs, *model.regions[region].outputs}
        if owner in layout.loop_owners:
            for inner in model.operators[owner + 1 : end]:
                touched |= {*inner.input_ids, *inner.output_ids}
        roots = {plan.alias_of.get(t, t) for t in touched if t}
        placed = [
            (t, plan.placements[t])
            for t in sorted(roots)
            if t in plan.placements and model.tensors[t].kind is AirTensorKind.SCRATCH
        ]
        for (a, pa), (b, pb) in combinations(placed, 2):
            if pa.region == pb.region:
                assert pa.offset + pa.size <= pb.offset or pb.offset + pb.size <= pa.offset, (a, b)
                checked += 1
    assert checked > 0


def test_if_branches_may_share_bytes(tmp_path):
    """Only one branch runs, so the planner may overlap the two branches' own tensors: their
    lifetimes do not meet."""
    model, _ = _planned(cfm.if_int8(tmp_path / "m.tflite"), tmp_path)
    layout = region_layout(model)
    lifetimes = compute_lifetimes(model)
    (then_first, then_end), (else_first, else_end) = (layout.regions[r] for r in ("r1", "r2"))
    inside_then = [t for t, (a, b) in lifetimes.items() if then_first <= a and b < then_end]
    inside_else = [t for t, (a, b) in lifetimes.items() if else_first <= a and b < else_end]
    assert inside_then and inside_else


def _recursive_model(path: Path) -> Path:
    """A WHILE whose body runs the same WHILE again (subgraph 2 runs subgraph 2)."""
    b = LiteRTModelBuilder()
    x, y = b.add_tensor("x", (1,), "float32"), b.add_tensor("y", (1,), "float32")
    cond, body = b.add_subgraph("cond"), b.add_subgraph("body")
    cx, go = cond.add_tensor("x", (1,), "float32"), cond.add_tensor("go", (1,), "bool")
    cond.add_operator("LESS", [cx, cond.add_tensor("k", (1,), "float32", data=np.ones(1))], [go])
    cond.set_inputs([cx])
    cond.set_outputs([go])
    bx, by = body.add_tensor("x", (1,), "float32"), body.add_tensor("y", (1,), "float32")
    options = litert.WhileOptionsT()
    options.condSubgraphIndex, options.bodySubgraphIndex = 1, 2
    body.add_operator("WHILE", [bx], [by], options)
    body.set_inputs([bx])
    body.set_outputs([by])
    b.add_operator("WHILE", [x], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def test_recursion_is_refused_with_a_reason(tmp_path):
    with pytest.raises(UnsupportedModelError, match="recursion is not supported"):
        AotConverter(_config(_recursive_model(tmp_path / "m.tflite"), tmp_path)).convert()


def test_a_loop_value_that_changes_shape_is_refused(tmp_path):
    """LiteRT resizes a WHILE's values when the body returns another shape; the module cannot."""
    b = LiteRTModelBuilder()
    x, y = b.add_tensor("x", (1, 4), "float32"), b.add_tensor("y", (1, 4), "float32")
    cond, body = b.add_subgraph("cond"), b.add_subgraph("body")
    cx, go = cond.add_tensor("x", (1, 4), "float32"), cond.add_tensor("go", (), "bool")
    cond.add_operator("LOGICAL_NOT", [cond.add_tensor("t", (), "bool", data=np.ones((), bool))], [go])
    cond.set_inputs([cx])
    cond.set_outputs([go])
    bx, by = body.add_tensor("x", (1, 4), "float32"), body.add_tensor("y", (1, 2), "float32")
    body.add_operator(
        "SLICE",
        [
            bx,
            body.add_tensor("begin", (2,), "int32", data=np.zeros(2)),
            body.add_tensor("size", (2,), "int32", data=np.asarray([1, 2])),
        ],
        [by],
    )
    body.set_inputs([bx])
    body.set_outputs([by])
    options = litert.WhileOptionsT()
    options.condSubgraphIndex, options.bodySubgraphIndex = cond.index, body.index
    b.add_operator("WHILE", [x], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    path = b.save(tmp_path / "m.tflite")
    with pytest.raises(UnsupportedModelError, match="dynamic shapes are not supported"):
        AotConverter(_config(path, tmp_path)).convert()


CALLBACK_MAIN = """
#include <stdio.h>
#include <string.h>
#include "cf_model.h"

static int32_t started[cf_num_operators];
static int32_t finished[cf_num_operators];

static void observe(int32_t op, cf_operator_state_t state, int32_t status, void *user)
{
    (void)status;
    (void)user;
    if (state == cf_op_state_run_started) {
        started[op]++;
    } else if (state == cf_op_state_run_finished) {
        finished[op]++;
    }
}

int main(void)
{
    static cf_model_context_t ctx;
    const float x[4] = {%s};
    memset(&ctx, 0, sizeof ctx);
    ctx.callback = observe;
    if (cf_model_init(&ctx) != 0) {
        return 1;
    }
    memcpy(ctx.inputs[0].data, x, sizeof x);
    if (cf_model_run(&ctx) != 0) {
        return 2;
    }
    printf("iterations %%d\\n", (int)((const float *)ctx.outputs[1].data)[0]);
    for (int32_t i = 0; i < cf_num_operators; ++i) {
        printf("op %%d %%d %%d\\n", (int)i, (int)started[i], (int)finished[i]);
    }
    return 0;
}
"""


@pytest.mark.parametrize("start", [0.9, -0.6])
def test_the_observer_sees_every_operator_that_runs(start, tmp_path):
    """The callback reports each region operator once per time it runs: the cond operators one
    more time than the loop's iterations, the body operators once per iteration, the rest once."""
    path = cfm.while_float32(tmp_path / "m.tflite")
    x = np.full((1, 4), start, np.float32)
    (_, iterations) = create_interpreter(path).run([x])
    config = ConvertArgs.model_validate(
        {"model": {"path": str(path)}, "module": {"path": str(tmp_path / "out"), "prefix": "cf"}}
    )
    result = AotConverter(config).convert()
    source = CALLBACK_MAIN % ", ".join(f"{float(v)!r}f" for v in x.ravel())
    exe = build_module(result.output, tmp_path / "build", prefix="cf", main_source=source)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True)
    lines = run.stdout.splitlines()
    count = int(iterations.ravel()[0])
    assert count > 1 and lines[0] == f"iterations {count}"
    calls = {int(i): (int(s), int(f)) for _, i, s, f in (line.split() for line in lines[1:])}
    model = load_model(path, 0, AotConverter(config).registry_context)
    layout = region_layout(model)
    (cond_first, cond_end), (body_first, body_end) = layout.regions["r1"], layout.regions["r2"]
    for index in range(len(model.operators)):
        if cond_first <= index < cond_end:
            expected = count + 1
        elif body_first <= index < body_end:
            expected = count
        else:
            expected = 1
        assert calls[index] == (expected, expected), (index, model.operators[index].op_type)


def test_region_operators_are_named_in_their_own_subgraph(tmp_path):
    """Plan ids (``<subgraph>:<first output name>``) of region operators use the subgraph the
    operator came from, so an ``operators[]`` rule can name them as they appear in the file."""
    path = Path(__file__).resolve().parents[2] / "data" / "models" / "if_cond_float32.tflite"
    model = load_model(path, 0, AotConverter(_config(path, tmp_path)).registry_context)
    ids = plan_operator_ids(model)
    by_type = {model.operator(op_id).op_type: plan_id for op_id, plan_id in ids.items()}
    assert by_type["BATCH_MATMUL"] == "2:cond/then/_0/cond/MatMul"
    assert by_type["SUB"] == "1:cond/else/_1/cond/sub"
    assert by_type["IF"] == "0:Identity"
