"""SVDF, UNIDIRECTIONAL_SEQUENCE_RNN and RNN models against the LiteRT reference, run after run.

Every model has a variable state tensor; the golden is one reference interpreter invoked once per
sample, and the module's self test runs the samples in order on one context, so each sample checks
the state the earlier ones left (and each test checks that the state changes the outputs). Integer
outputs are exact; float32 within 1e-6 (the kernels sum in LiteRT's order, the reference's
matrix-vector products may not). int8 SVDF with int8 state has no LiteRT reference (LiteRT's
kernel reads every integer state as int16), so its golden comes from the reference arithmetic in
``recurrent/test_svdf.py`` with the multipliers LiteRT's Prepare would compute.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.testing import run_module_test_case
from helia_aot_ops_builtin.common.quantization import quantize_multiplier
from helia_aot_ops_builtin.recurrent.svdf import float32_scale

from ops_builtin.recurrent.test_svdf import SvdfParams, reference_steps
from ops_builtin.support.recurrent_models import (
    random_inputs,
    rnn_model,
    state_matters,
    streamed_golden,
    svdf_model,
)

RUNS = 6


def convert_and_run(model: Path, golden: Path, tmp_path: Path, tolerance: float = 0.0) -> None:
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "golden_data": str(golden), "tolerance": tolerance},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def check_streamed(model: Path, tmp_path: Path, tolerance: float = 0.0, runs: int = RUNS) -> None:
    samples = random_inputs(model, runs, seed=11)
    assert state_matters(model, samples), "the state should change some output"
    convert_and_run(model, streamed_golden(model, samples, tmp_path / "golden.npz"), tmp_path, tolerance)


@pytest.mark.parametrize(
    ("batch", "inputs", "units", "rank", "memory", "bias"),
    [(1, 8, 4, 1, 4, True), (2, 5, 3, 2, 6, True), (3, 7, 2, 3, 2, False), (1, 1, 1, 1, 2, True)],
)
def test_int8_svdf_with_int16_state_matches_reference(tmp_path, batch, inputs, units, rank, memory, bias):
    model = svdf_model(
        tmp_path / "svdf.tflite",
        batch=batch,
        inputs=inputs,
        units=units,
        rank=rank,
        memory=memory,
        dtype="int8",
        activation="RELU",
        bias=bias,
        seed=batch * 10 + rank,
    )
    check_streamed(model, tmp_path, runs=memory + 4)


@pytest.mark.parametrize(
    ("activation", "rank", "bias"),
    [("NONE", 1, True), ("RELU", 2, False), ("TANH", 2, True), ("RELU6", 3, True), ("RELU_N1_TO_1", 1, True)],
)
def test_float32_svdf_matches_reference(tmp_path, activation, rank, bias):
    model = svdf_model(
        tmp_path / "svdf.tflite",
        batch=2,
        inputs=6,
        units=3,
        rank=rank,
        memory=4,
        dtype="float32",
        activation=activation,
        bias=bias,
    )
    check_streamed(model, tmp_path, tolerance=1e-6)


def test_int8_svdf_with_int8_state_matches_reference_arithmetic(tmp_path):
    scales = (0.05, 0.02, 0.06, 0.01, 0.03)
    model = svdf_model(
        tmp_path / "svdf.tflite",
        batch=2,
        inputs=6,
        units=3,
        rank=2,
        memory=4,
        dtype="int8",
        state_dtype="int8",
        activation="RELU",
        scales=scales,
        seed=4,
    )
    s_in, s_wf, s_state, s_wt, s_out = scales
    m1, sh1 = quantize_multiplier(float32_scale(s_in, s_wf, divide_by=s_state))
    m2, sh2 = quantize_multiplier(float32_scale(s_state, s_wt, divide_by=s_out))
    params = SvdfParams(
        batches=2,
        input_size=6,
        filters=6,
        rank=2,
        memory=4,
        input_offset=-5,
        output_offset=-7,
        feature_multiplier=m1,
        feature_shift=sh1,
        time_multiplier=m2,
        time_shift=sh2,
    )
    interpreter = Interpreter(model_path=str(model))
    tensors = {d["name"]: d["index"] for d in interpreter.get_tensor_details()}
    wf = interpreter.get_tensor(tensors["weights_feature"])
    wt = interpreter.get_tensor(tensors["weights_time"])
    bias = interpreter.get_tensor(tensors["bias"])
    samples = random_inputs(model, 8, seed=3)
    outputs = reference_steps([s[0] for s in samples], wf, wt, bias, params, np.int8)
    assert any(not np.array_equal(outputs[0], o) for o in outputs[1:])
    golden = tmp_path / "golden.npz"
    np.savez(golden, input_0=np.stack([s[0] for s in samples]), output_0=np.stack(outputs))
    convert_and_run(model, golden, tmp_path)


@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize(
    ("activation", "batch", "steps"), [("TANH", 2, 3), ("RELU", 1, 5), ("NONE", 3, 1), ("RELU_N1_TO_1", 2, 2)]
)
def test_sequence_rnn_matches_reference(tmp_path, time_major, activation, batch, steps):
    model = rnn_model(
        tmp_path / "rnn.tflite",
        batch=batch,
        steps=steps,
        inputs=4,
        units=5,
        time_major=time_major,
        activation=activation,
    )
    check_streamed(model, tmp_path, tolerance=1e-6)


def test_svdf_refusals_name_the_problem(tmp_path):
    """LiteRT refuses int8 SVDF without RELU; hybrid SVDF is not supported: typed errors, listed."""
    model = svdf_model(
        tmp_path / "none.tflite",
        batch=1,
        inputs=4,
        units=2,
        rank=1,
        memory=3,
        dtype="int8",
        activation="NONE",
    )
    config = {"model": {"path": str(model)}, "module": {"path": str(tmp_path / "out")}}
    with pytest.raises(UnsupportedModelError, match="RELU"):
        AotConverter(ConvertArgs.model_validate(config)).convert()
