"""Property tests of the SVDF kernels over several consecutive runs (the state carried).

The model follows LiteRT's integer SVDF in its other formulation: the feature product goes into
each filter's newest slot, the time products and the bias give the output, and afterwards every
filter's memory moves one step left with a zero coming in. The kernel ages the whole state first
instead; both give the same outputs run after run, which is what is compared (exactly for the
integer kernels, int16 and int8 state, with random multipliers, shifts and zero points).
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot_ops_builtin.common.quantization import quantize_multiplier
from helia_aot_ops_builtin.recurrent.svdf import float32_scale
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support import float16_cases
from ops_builtin.support.cbuild import build_kernels
from ops_builtin.support.recurrent_models import check_streamed, convert_and_run, random_inputs, svdf_model

I32 = ctypes.c_int32


class SvdfParams(ctypes.Structure):
    _fields_ = [
        (name, I32)
        for name in (
            "batches",
            "input_size",
            "filters",
            "rank",
            "memory",
            "activation",
            "input_offset",
            "output_offset",
            "feature_multiplier",
            "feature_shift",
            "time_multiplier",
            "time_shift",
        )
    ]


def reference_steps(inputs, wf, wt, bias, params: SvdfParams, state_dtype) -> list[np.ndarray]:
    """Outputs of LiteRT's integer SVDF for each input in turn, from a zero state."""
    info = np.iinfo(state_dtype)
    b, f, m, r = params.batches, params.filters, params.memory, params.rank
    state = np.zeros((b, f, m), np.int64)
    outputs = []
    for x in inputs:
        dot = (x.astype(np.int64) + params.input_offset) @ wf.astype(np.int64).T  # [b, f]
        feature = ref.mbqm(ref.wrap32(dot), params.feature_multiplier, params.feature_shift)
        state[:, :, m - 1] = np.clip(feature, info.min, info.max)
        time = ref.wrap32((state * wt.astype(np.int64)[None]).sum(axis=2))  # [b, f]
        acc = time.reshape(b, f // r, r).sum(axis=2) + (0 if bias is None else bias.astype(np.int64))
        y = ref.mbqm(ref.wrap32(acc), params.time_multiplier, params.time_shift) + params.output_offset
        outputs.append(np.clip(y, -128, 127).astype(np.int8))
        state = np.concatenate([state[:, :, 1:], np.zeros((b, f, 1), np.int64)], axis=2)
    return outputs


@st.composite
def problems(draw):
    rank = draw(st.integers(1, 3))
    units = draw(st.integers(1, 5))
    return (
        draw(st.integers(1, 3)),  # batches
        draw(st.integers(1, 9)),  # input size
        units * rank,
        rank,
        draw(st.integers(1, 6)),  # memory
        draw(st.sampled_from(["int16", "int8"])),
        draw(st.booleans()),  # bias
        draw(st.integers(0, 2**32 - 1)),
    )


@settings(max_examples=150, deadline=None)
@given(problems())
def test_integer_svdf_matches_reference_over_runs(case):
    batches, input_size, filters, rank, memory, state_name, with_bias, seed = case
    state_dtype = np.dtype(state_name)
    rng = np.random.default_rng(seed)
    info = np.iinfo(state_dtype)
    wf = rng.integers(-127, 128, (filters, input_size)).astype(np.int8)
    wt = rng.integers(info.min + 1, int(info.max) + 1, (filters, memory)).astype(state_dtype)
    bias = rng.integers(-(2**20), 2**20, filters // rank).astype(np.int32) if with_bias else None
    params = SvdfParams(
        batches=batches,
        input_size=input_size,
        filters=filters,
        rank=rank,
        memory=memory,
        input_offset=-int(rng.integers(-128, 128)),
        output_offset=int(rng.integers(-128, 128)),
        feature_multiplier=int(rng.integers(1 << 30, (1 << 31) - 1)),
        feature_shift=int(rng.integers(-14, 3)),
        time_multiplier=int(rng.integers(1 << 30, (1 << 31) - 1)),
        time_shift=int(rng.integers(-24, -4)),
    )
    inputs = [rng.integers(-128, 128, (batches, input_size)).astype(np.int8) for _ in range(memory + 3)]
    expected = reference_steps(inputs, wf, wt, bias, params, state_dtype)

    kernel = getattr(build_kernels("svdf"), "hk_svdf_s8_s16" if state_name == "int16" else "hk_svdf_s8_s8")
    state = np.zeros(batches * filters * memory, state_dtype)
    output = np.zeros((batches, filters // rank), np.int8)
    for x, want in zip(inputs, expected):
        status = kernel(
            ctypes.byref(params),
            x.ctypes.data_as(ctypes.c_void_p),
            wf.ctypes.data_as(ctypes.c_void_p),
            wt.ctypes.data_as(ctypes.c_void_p),
            None if bias is None else bias.ctypes.data_as(ctypes.c_void_p),
            state.ctypes.data_as(ctypes.c_void_p),
            output.ctypes.data_as(ctypes.c_void_p),
        )
        assert status == 0
        np.testing.assert_array_equal(output, want)


def test_svdf_kernels_refuse_bad_geometry():
    """A rank that does not divide the filters is a bad parameter, not a wrong answer."""
    lib = build_kernels("svdf")
    params = SvdfParams(batches=1, input_size=2, filters=3, rank=2, memory=2)
    buf = np.zeros(64, np.int32)
    ptr = buf.ctypes.data_as(ctypes.c_void_p)
    for name in ("hk_svdf_s8_s16", "hk_svdf_s8_s8", "hk_svdf_f32"):
        assert getattr(lib, name)(ctypes.byref(params), ptr, ptr, ptr, None, ptr, ptr) == 5


# SVDF models converted and run against the reference over consecutive runs (the state carried).


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


FLOAT16 = float16_cases.named("svdf_rank2")
"""The float16 cases (support/float16_cases.py): the float16 model against its float32 twin run by
the reference, within the bound docs/float16.md states."""


@pytest.mark.parametrize("case", FLOAT16, ids=[c.name for c in FLOAT16])
def test_svdf_float16_matches_its_float32_twin(case, tmp_path):
    float16_cases.check_on_host(case, tmp_path)
