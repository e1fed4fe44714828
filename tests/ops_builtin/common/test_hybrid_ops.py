"""Hybrid (dynamic-range quantized) FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D, BATCH_MATMUL,
UNIDIRECTIONAL_SEQUENCE_RNN, RNN and SVDF against LiteRT.

float32 activations with int8 weights: each module quantizes its float input at run time as the
reference does (per row for FULLY_CONNECTED, BATCH_MATMUL and the recurrent cells, per image for
the convolutions; symmetric or asymmetric) and must give the reference interpreter's float outputs
bit for bit on the host (built with ASan and UBSan): the kernels repeat LiteRT's float operations
in its order. The one exception is the TANH activation, where the host's tanhf and the reference's
differ by a few units in the last place (HOST_TANH_ULP, RNN_TANH_ULP). Each group of models is
linked into one host program (linked_host.py); the recurrent goldens carry their state from sample
to sample (one reference interpreter).
"""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder, pack_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_builtin.support.hybrid_models import (
    bmm_hybrid_model,
    conv_hybrid_model,
    fc_hybrid_model,
    hybrid_samples,
    reference_golden,
    rnn_hybrid_model,
    svdf_hybrid_model,
)
from ops_builtin.support.linked_host import run_linked

HOST_TANH_ULP = 8
"""Bound for the TANH activation on the host: LiteRT's vectorised tanh is not glibc's tanhf (worst
measured: 5 ULP over 30 random 64 x 64 outputs, 122,880 values)."""

RNN_TANH_ULP = 16
"""Bound for hybrid RNNs with TANH on the host: tanhf against LiteRT's tanh, carried through the
hidden state (worst measured: 4 ULP over 5 runs of 4 steps)."""


def check_group(builder, cases, tmp_path, *, seed: int, tanh_ulp: int = HOST_TANH_ULP) -> None:
    """Every case of the group matches its reference golden; bit-exact unless it uses TANH."""
    linked = {}
    for name, params in cases.items():
        model = builder(tmp_path / f"{name}.tflite", seed=seed, **params)
        golden = reference_golden(model, hybrid_samples(model, 5, seed), tmp_path / f"{name}.npz")
        linked[name] = (model, golden, tanh_ulp if params.get("activation") == "TANH" else 0)
    sections = run_linked(linked, tmp_path / "linked")
    for name, params in cases.items():
        if params.get("activation") != "TANH":
            assert "bit-exact" in sections[name], sections[name]


FC_CASES = {
    "symmetric_per_tensor": dict(batches=1, depth=20, units=7),
    "asymmetric_per_tensor_batches": dict(batches=3, depth=33, units=5, asymmetric=True),
    "symmetric_per_unit_relu": dict(batches=2, depth=16, units=6, per_channel=True, activation="RELU"),
    "asymmetric_per_unit_no_bias": dict(
        batches=5, depth=40, units=9, per_channel=True, asymmetric=True, activation="RELU6", bias=False
    ),
    "tanh": dict(batches=2, depth=24, units=5, activation="TANH"),
}


def test_fully_connected_hybrid_matches_the_reference(tmp_path):
    check_group(fc_hybrid_model, FC_CASES, tmp_path, seed=7)


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    batches=st.integers(1, 4),
    depth=st.integers(1, 70),
    units=st.integers(1, 12),
    per_channel=st.booleans(),
    asymmetric=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_fully_connected_hybrid_random_geometry(
    tmp_path_factory, batches, depth, units, per_channel, asymmetric, seed
):
    case = dict(
        batches=batches,
        depth=depth,
        units=units,
        per_channel=per_channel and units > 1,
        asymmetric=asymmetric,
    )
    check_group(fc_hybrid_model, {"fc": case}, tmp_path_factory.mktemp("fc"), seed=seed)


CONV_CASES = {
    "conv_per_channel_same": dict(),
    "conv_per_tensor_relu6": dict(per_channel=False, activation="RELU6"),
    "conv_strided_dilated_valid_batches": dict(
        batches=2, stride=(2, 1), padding="VALID", dilation=(1, 2), width=7
    ),
    "conv_pointwise_per_tensor": dict(channels=4, out_channels=6, per_channel=False, kernel=(1, 1)),
    "depthwise_multiplier_2": dict(depthwise=True, out_channels=6),
    "depthwise_strided_relu_batches": dict(
        depthwise=True, out_channels=3, batches=2, stride=(2, 2), activation="RELU", bias=False
    ),
}


def test_convolution_hybrid_is_bit_exact(tmp_path):
    check_group(conv_hybrid_model, CONV_CASES, tmp_path, seed=11)


INT4_CASES = {
    "fc_asymmetric_per_unit_no_bias": (
        fc_hybrid_model,
        dict(batches=3, depth=40, units=9, per_channel=True, asymmetric=True, bias=False),
    ),
    "conv_per_tensor_strided": (
        conv_hybrid_model,
        dict(stride=(2, 1), activation="RELU6", per_channel=False),
    ),
}
"""Hybrid layers with int4 weights where LiteRT's reference runs them (its CONV_2D needs a bias,
and so does the converter's hybrid one; its hybrid DEPTHWISE_CONV_2D refuses int4, and so does
the converter, tests/e2e/test_int4_models.py)."""


def test_hybrid_with_int4_weights_is_bit_exact(tmp_path):
    """Int4 weights unpacked once into int8 scratch, then the hybrid kernels: the reference's
    per-batch input quantization and float outputs, bit for bit."""
    linked = {}
    for name, (builder, params) in INT4_CASES.items():
        model = builder(tmp_path / f"{name}.tflite", seed=13, int4=True, **params)
        golden = reference_golden(model, hybrid_samples(model, 5, 13), tmp_path / f"{name}.npz")
        linked[name] = (model, golden, 0)
    sections = run_linked(linked, tmp_path / "linked")
    for name in INT4_CASES:
        assert "bit-exact" in sections[name], sections[name]


def test_depthwise_hybrid_with_one_filter_scale_is_refused(tmp_path):
    model = conv_hybrid_model(tmp_path / "dw.tflite", depthwise=True, out_channels=3, per_channel=False)
    config = {"model": {"path": str(model)}, "module": {"path": str(tmp_path / "out"), "name": "module"}}
    with pytest.raises(UnsupportedModelError, match="needs 3 filter scales"):
        AotConverter(ConvertArgs.model_validate(config)).convert()


@pytest.mark.parametrize("int4", [False, True], ids=["int8", "int4"])
@pytest.mark.parametrize("bias", ["absent", "optional"])
def test_hybrid_conv_without_a_bias_is_refused_as_litert_does(int4, bias, tmp_path):
    """LiteRT's CONV_2D Prepare requires a bias operand (its hybrid depthwise does not): a hybrid
    CONV_2D with two inputs, or with the bias left out as -1, is a typed error naming the
    operator and why, never a module with nothing to match."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    path = conv_hybrid_model(tmp_path / "conv.tflite", bias=False, int4=int4)
    if bias == "optional":  # the optional-operand form: a third input of -1
        model = litert.ModelT.InitFromPackedBuf(path.read_bytes(), 0)
        model.subgraphs[0].operators[0].inputs = [*model.subgraphs[0].operators[0].inputs, -1]
        path.write_bytes(pack_model(model))
    # Should a LiteRT release accept it, this fails and the refusal must go.
    interpreter = Interpreter(str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    with pytest.raises(RuntimeError, match="has_bias was not true|optional but was expected"):
        interpreter.allocate_tensors()
    config = {"model": {"path": str(path)}, "module": {"path": str(tmp_path / "out"), "name": "module"}}
    with pytest.raises(UnsupportedModelError, match=r"CONV_2D.*hybrid CONV_2D .* needs a bias"):
        AotConverter(ConvertArgs.model_validate(config)).convert()


def test_hybrid_transpose_conv_is_refused_by_name(tmp_path):
    """LiteRT has a hybrid TRANSPOSE_CONV; it is not converted yet, and Resolve says so."""
    b = LiteRTModelBuilder()
    shape = b.add_tensor("output_shape", (4,), "int32", data=np.int32([1, 8, 8, 4]))
    scale = (np.array([0.01], np.float32), np.array([0], np.int64), 0)
    w = b.add_tensor("w", (4, 3, 3, 2), "int8", data=np.ones((4, 3, 3, 2), np.int8), quantization=scale)
    x, y = b.add_tensor("x", (1, 4, 4, 2), "float32"), b.add_tensor("y", (1, 8, 8, 4), "float32")
    options = litert.TransposeConvOptionsT()
    options.padding, options.strideW, options.strideH = litert.Padding.SAME, 2, 2
    b.add_operator("TRANSPOSE_CONV", [shape, w, x], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    config = {"model": {"path": str(b.save(tmp_path / "tc.tflite"))}, "module": {"path": str(tmp_path / "o")}}
    with pytest.raises(UnsupportedModelError, match="hybrid TRANSPOSE_CONV.*not converted yet"):
        AotConverter(ConvertArgs.model_validate(config)).convert()


def tie_rows(shape: tuple[int, ...], offset: int, exponent: int, seed: int) -> np.ndarray:
    """Rows (the first axis) whose asymmetric quantization has scale 2**exponent and zero point
    offset - 128 exactly, every other value a tie: x / scale = k + 0.5 in [-offset, 255 - offset]."""
    rng = np.random.default_rng(seed)
    halves = rng.integers(-offset, 255 - offset, shape).astype(np.float64) + 0.5
    flat = halves.reshape(shape[0], -1)
    flat[:, 0] = -offset
    flat[:, 1] = 255 - offset
    return (flat.reshape(shape) * 2.0**exponent).astype(np.float32)


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(offset=st.integers(0, 255), exponent=st.integers(-8, 4), seed=st.integers(0, 2**16))
def test_asymmetric_ties_round_before_the_zero_point_is_added(tmp_path_factory, offset, exponent, seed):
    """The reference rounds x / scale and then adds the zero point: a tie such as 7.5 with zero
    point -128 gives -120 (not round(-120.5) = -121). Every value here is such a tie, for a
    fully connected layer and a depthwise convolution (the BlazeFace hybrid model's case)."""
    tmp_path = tmp_path_factory.mktemp("ties")
    cases = {
        "fc": (fc_hybrid_model, dict(batches=2, depth=24, units=5, asymmetric=True), (2, 24)),
        "depthwise": (conv_hybrid_model, dict(depthwise=True, out_channels=3), (1, 6, 5, 3)),
    }
    linked = {}
    for name, (builder, params, shape) in cases.items():
        model = builder(tmp_path / f"{name}.tflite", seed=seed, **params)
        samples = [[tie_rows(shape, offset, exponent, seed + k)] for k in range(2)]
        linked[name] = (model, reference_golden(model, samples, tmp_path / f"{name}.npz"), 0)
    sections = run_linked(linked, tmp_path / "linked")
    for name in cases:
        assert "bit-exact" in sections[name], sections[name]


BMM_CASES = {
    "per_tensor": dict(lhs_shape=(3, 10), rhs_shape=(10, 4)),
    "asymmetric_batched_lhs": dict(lhs_shape=(2, 3, 10), rhs_shape=(10, 5), asymmetric=True),
    "adjoint_per_column": dict(
        lhs_shape=(2, 10, 3), rhs_shape=(2, 6, 10), adj_x=True, adj_y=True, per_channel=True
    ),
    "broadcast_lhs_asymmetric_per_column": dict(
        lhs_shape=(1, 4, 7), rhs_shape=(3, 7, 5), per_channel=True, asymmetric=True
    ),
}


def test_batch_matmul_hybrid_is_bit_exact(tmp_path):
    check_group(bmm_hybrid_model, BMM_CASES, tmp_path, seed=5)


RNN_CASES = {
    "sequence_batch_major_relu": dict(batch=2, steps=3, inputs=5, units=4, activation="RELU"),
    "sequence_time_major_asymmetric_relu6": dict(
        batch=2, steps=3, inputs=5, units=4, time_major=True, asymmetric=True, activation="RELU6"
    ),
    "rnn_one_step": dict(batch=2, steps=1, inputs=6, units=3, sequence=False, activation="NONE"),
    "sequence_tanh_asymmetric": dict(batch=1, steps=4, inputs=5, units=4, asymmetric=True, activation="TANH"),
}


def test_rnn_hybrid_matches_the_reference_run_after_run(tmp_path):
    """The hidden state carries across the golden's samples (one reference interpreter)."""
    check_group(rnn_hybrid_model, RNN_CASES, tmp_path, seed=2, tanh_ulp=RNN_TANH_ULP)


SVDF_CASES = {
    "rank1_batches": dict(batch=2, inputs=6, units=3, rank=1, memory=4),
    "rank2_asymmetric_relu": dict(
        batch=2, inputs=7, units=3, rank=2, memory=3, asymmetric=True, activation="RELU"
    ),
    "no_bias_relu6": dict(batch=1, inputs=10, units=4, rank=1, memory=5, bias=False, activation="RELU6"),
}


def test_svdf_hybrid_is_bit_exact_run_after_run(tmp_path):
    """The state ages across the golden's samples (one reference interpreter)."""
    check_group(svdf_hybrid_model, SVDF_CASES, tmp_path, seed=4)
