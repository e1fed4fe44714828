"""The GRU custom operator and the ``fuse_rolled_gru`` hook against the LiteRT reference.

The fused models are Keras GRU layers exported by TensorFlow as a WHILE loop
(``tests/data/recurrent``); the reference interpreter runs that loop, the module runs one GRU
operator. Builder-made custom GRU models have no reference kernel, so their golden is the same
GRU written with LiteRT builtin operators (one cell per step) run by the reference: a custom GRU
with a variable state over k runs of T steps equals the unrolled GRU over k * T steps from zero.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.converters.litert.reader import read_model
from helia_aot.litert import schema_py_generated as litert
from helia_aot.testing import run_module_test_case
from helia_aot_ops_builtin.recurrent.gru_fusion import fuse_rolled_gru

from ops_builtin.support.recurrent_models import (
    gru_custom_model,
    gru_unrolled_model,
    gru_weights,
    reference_outputs,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "recurrent"
TOLERANCE = 1e-6


def convert_and_run(model: Path, golden: Path, tmp_path: Path):
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "golden_data": str(golden), "tolerance": TOLERANCE},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"
    return result


@pytest.mark.parametrize("name", ["gru_while_seq_float32", "gru_while_last_float32"])
def test_keras_gru_while_loop_becomes_one_gru_operator(tmp_path, name):
    model = DATA / f"{name}.tflite"
    golden = np.load(DATA / f"{name}.npz")
    samples = [[x] for x in golden["input_0"]]
    # The committed golden is still what the reference gives for the WHILE model.
    for want, got in zip(golden["output_0"], reference_outputs(model, samples)):
        np.testing.assert_array_equal(want, got[0])
    result = convert_and_run(model, DATA / f"{name}.npz", tmp_path)
    plan = json.loads(next(Path(result.output).rglob("*_plan.json")).read_text())
    assert [(op["op_type"], op["source_indices"]) for op in plan["operators"]] == [("GRU", [0, 1, 2])]


def test_fusion_leaves_other_models_alone():
    model = read_model(DATA / "gru_while_seq_float32.tflite")
    body = model.subgraphs[2]
    body.operators = [
        op
        for op in body.operators
        if model.operatorCodes[op.opcodeIndex].builtinCode != litert.BuiltinOperator.TANH
    ]
    assert fuse_rolled_gru(model) is None
    assert len(model.subgraphs[0].operators) == 3


@pytest.mark.parametrize(
    ("steps", "inputs", "units", "sequence"), [(4, 3, 5, True), (1, 6, 2, True), (3, 2, 4, False)]
)
@pytest.mark.parametrize("state", ["none", "constant"])
def test_custom_gru_matches_unrolled_reference(tmp_path, steps, inputs, units, sequence, state):
    weights = gru_weights(inputs, units, seed=steps + units)
    model = gru_custom_model(
        tmp_path / "gru.tflite",
        steps=steps,
        inputs=inputs,
        units=units,
        weights=weights,
        state=state,
        sequence=sequence,
    )
    unrolled = gru_unrolled_model(
        tmp_path / "unrolled.tflite", steps=steps, inputs=inputs, units=units, weights=weights
    )
    rng = np.random.default_rng(2)
    samples = [[rng.uniform(-2, 2, (1, steps, inputs)).astype(np.float32)] for _ in range(3)]
    outputs = [o[0] if sequence else o[0][:, -1] for o in reference_outputs(unrolled, samples)]
    golden = tmp_path / "golden.npz"
    np.savez(golden, input_0=np.stack([s[0] for s in samples]), output_0=np.stack(outputs))
    convert_and_run(model, golden, tmp_path)


def test_custom_gru_with_variable_state_carries_it_across_runs(tmp_path):
    steps, inputs, units, runs = 3, 4, 5, 4
    weights = gru_weights(inputs, units, seed=9)
    model = gru_custom_model(
        tmp_path / "gru.tflite",
        steps=steps,
        inputs=inputs,
        units=units,
        weights=weights,
        state="variable",
        sequence=True,
    )
    unrolled = gru_unrolled_model(
        tmp_path / "unrolled.tflite", steps=steps * runs, inputs=inputs, units=units, weights=weights
    )
    rng = np.random.default_rng(4)
    whole = rng.uniform(-2, 2, (1, steps * runs, inputs)).astype(np.float32)
    (expected,) = reference_outputs(unrolled, [[whole]])[0]
    frames = np.split(whole, runs, axis=1)
    golden = tmp_path / "golden.npz"
    np.savez(golden, input_0=np.stack(frames), output_0=np.stack(np.split(expected, runs, axis=1)))
    fresh = reference_outputs(unrolled, [[np.concatenate([frames[1]] * runs, axis=1)]])[0][0][:, :steps]
    assert not np.allclose(fresh, expected[:, steps : 2 * steps]), "the carried state should matter"
    convert_and_run(model, golden, tmp_path)
