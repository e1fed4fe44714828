"""Every kind of malformed model ends in a typed error, with its exit code, naming what is wrong.

Each case edits a small valid model (built with LiteRTModelBuilder, or a corpus model) in one way
and runs a whole conversion; the error class, exit code and a message naming the offending table,
operator or tensor are checked, and so is the time it took (no hang).
"""

from __future__ import annotations

import re
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import InvalidConfigError, ModelLoadError, UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder, pack_model
from helia_aot.registry import build_default_registry_context

from .mutation_apply import pack_any

CORPUS = Path(__file__).resolve().parents[1] / "data" / "models"
KWS = (CORPUS / "mlperf_kws_dscnn_int8.tflite").read_bytes()
TIME_LIMIT_S = 5.0


@pytest.fixture(scope="module")
def context():
    return build_default_registry_context()


def base_builder() -> LiteRTModelBuilder:
    """x -> ADD(x, w) -> y -> RELU -> z, float32, one constant."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    w = b.add_tensor("w", (1, 4), "float32", data=np.arange(4, dtype=np.float32))
    y = b.add_tensor("y", (1, 4), "float32")
    z = b.add_tensor("z", (1, 4), "float32")
    b.add_operator("ADD", [x, w], [y], litert.AddOptionsT())
    b.add_operator("RELU", [y], [z])
    b.set_inputs([x])
    b.set_outputs([z])
    return b


def edited(edit) -> bytes:
    """The base model after ``edit(model)`` on its object tree."""
    model = base_builder().build()
    edit(model)
    return pack_model(model)


def convert_bytes(data: bytes, tmp_path: Path, context, **config) -> BaseException | None:
    path = tmp_path / "model.tflite"
    path.write_bytes(data)
    cfg = ConvertArgs.model_validate(
        {"model": {"path": str(path), **config}, "module": {"path": str(tmp_path / "out"), "name": "m"}}
    )
    start = time.perf_counter()
    try:
        AotConverter(cfg, context).convert()
    except Exception as exc:  # the test inspects whatever was raised
        assert time.perf_counter() - start < TIME_LIMIT_S
        return exc
    return None


def expect(data: bytes, tmp_path: Path, context, error: type, pattern: str, **config) -> None:
    exc = convert_bytes(data, tmp_path, context, **config)
    assert type(exc) is error, f"{type(exc).__name__}: {exc}"
    assert exc.exit_code == error.exit_code
    assert re.search(pattern, str(exc)), str(exc)


def tensor(model, index):
    return model.subgraphs[0].tensors[index]


def op(model, index):
    return model.subgraphs[0].operators[index]


def set_attr(obj, **values):
    for key, value in values.items():
        setattr(obj, key, value)


CASES = {
    # Wrong identifier, version, or bytes that are no model at all.
    "wrong_identifier": (lambda: KWS[:4] + b"TFL2" + KWS[8:], ModelLoadError, r"not a LiteRT model.*TFL2"),
    "random_bytes": (
        lambda: bytes(np.random.default_rng(1).integers(0, 256, 4096, dtype=np.uint8)),
        ModelLoadError,
        r"not a LiteRT model",
    ),
    "random_after_identifier": (
        lambda: (
            b"\x10\x00\x00\x00TFL3" + bytes(np.random.default_rng(2).integers(0, 256, 900, dtype=np.uint8))
        ),
        ModelLoadError,
        r"reading Model\.",
    ),
    "schema_version": (lambda: edited(lambda m: set_attr(m, version=2)), ModelLoadError, r"schema version 2"),
    "root_offset_past_end": (
        lambda: b"\xff\xff\x00\x00" + KWS[4:],
        ModelLoadError,
        r"root table offset 65535",
    ),
    # Offsets and indices out of range.
    "tensor_offset_past_end": (lambda: KWS[:-64], ModelLoadError, r"reading Model\.\w+"),
    "buffer_index": (
        lambda: edited(lambda m: set_attr(tensor(m, 1), buffer=99)),
        ModelLoadError,
        r"Model\.buffers index 99 is out of range",
    ),
    "opcode_index": (
        lambda: edited(lambda m: set_attr(op(m, 0), opcodeIndex=7)),
        ModelLoadError,
        r"Model\.operatorCodes index 7",
    ),
    "operator_input_missing_tensor": (
        lambda: edited(lambda m: set_attr(op(m, 0), inputs=np.int32([0, 57]))),
        ModelLoadError,
        r"operator #0 \(ADD\) input 1 refers to tensor 57, but the subgraph has 4 tensors",
    ),
    "operator_input_negative": (
        lambda: edited(lambda m: set_attr(op(m, 1), inputs=np.int32([-5]))),
        ModelLoadError,
        r"operator #1 \(RELU\) input 0 refers to tensor -5",
    ),
    "operator_output_missing_tensor": (
        lambda: edited(lambda m: set_attr(op(m, 1), outputs=np.int32([9]))),
        ModelLoadError,
        r"operator #1 \(RELU\) output 0 refers to tensor 9",
    ),
    "subgraph_output_index": (
        lambda: edited(lambda m: set_attr(m.subgraphs[0], outputs=np.int32([42]))),
        ModelLoadError,
        r"SubGraph\.tensors index 42",
    ),
    "subgraph_index_in_options": (
        lambda: edited(
            lambda m: (
                set_attr(
                    op(m, 0),
                    builtinOptions=litert.IfOptionsT(),
                    builtinOptionsType=litert.BuiltinOptions.IfOptions,
                )
                or set_attr(
                    m.operatorCodes[0],
                    builtinCode=litert.BuiltinOperator.IF,
                    deprecatedBuiltinCode=litert.BuiltinOperator.IF,
                )
                or set_attr(op(m, 0).builtinOptions, thenSubgraphIndex=5)
            )
        ),
        ModelLoadError,
        r"operator #0 \(IF\) option thenSubgraphIndex refers to subgraph 5, but the "
        r"model has 1 subgraphs",
    ),
    "buffer_offset_past_file": (
        lambda: _with_file_offset(),
        ModelLoadError,
        r"buffer 1 lies at bytes 4096\.\.4112 but the file",
    ),
    # Dimensions.
    "negative_dimension": (
        lambda: edited(lambda m: set_attr(tensor(m, 2), shape=np.int32([1, -3]))),
        UnsupportedModelError,
        r"tensor 2 \('y'\) has an unknown dimension",
    ),
    "enormous_dimensions": (
        lambda: edited(lambda m: set_attr(tensor(m, 2), shape=np.int32([65536, 65536]))),
        UnsupportedModelError,
        r"tensor 2 \('y'\) has shape \[65536, 65536\]: too many elements",
    ),
    "enormous_bytes": (
        lambda: edited(lambda m: set_attr(tensor(m, 3), shape=np.int32([1 << 29, 2]))),
        UnsupportedModelError,
        r"tensor 3 \('z'\) needs 4294967296 bytes",
    ),
    "zero_times_enormous": (
        lambda: edited(lambda m: set_attr(tensor(m, 1), shape=np.int32([0, 1 << 30, 1 << 30]))),
        UnsupportedModelError,
        r"tensor 1 \('w'\) has shape \[0, 1073741824, 1073741824\]",
    ),
    "empty_operator_tensor": (
        lambda: edited(lambda m: set_attr(tensor(m, 2), shape=np.int32([1, 0]))),
        UnsupportedModelError,
        r"operator #0 \(ADD\) output 0 \(tensor 2\) has no elements",
    ),
    # Buffers shorter than their tensor.
    "short_buffer": (
        lambda: edited(lambda m: set_attr(m.buffers[1], data=np.zeros(7, np.uint8))),
        ModelLoadError,
        r"buffer 1 of tensor 'w' holds 7 bytes, shorter than the 16 bytes",
    ),
    # Graph structure.
    "cycle": (lambda: _cycle(), ModelLoadError, r"reads tensor '\d' before it is written"),
    "self_loop": (
        lambda: edited(lambda m: set_attr(op(m, 1), inputs=np.int32([3]))),
        ModelLoadError,
        r"operator #1 \(RELU\) writes tensor 3, which it also reads \(a cycle\)",
    ),
    "writes_model_input": (
        lambda: edited(lambda m: set_attr(op(m, 1), outputs=np.int32([0]))),
        ModelLoadError,
        r"operator #1 \(RELU\) writes the model input 0",
    ),
    "two_writers": (
        lambda: edited(lambda m: set_attr(op(m, 1), outputs=np.int32([2]))),
        ModelLoadError,
        r"tensor '2' is written by operators 0 and 1|writes tensor 2, which it also reads",
    ),
    "no_subgraphs": (
        lambda: edited(lambda m: set_attr(m, subgraphs=[])),
        UnsupportedModelError,
        r"has no subgraphs",
    ),
    "empty_subgraph": (
        lambda: edited(lambda m: set_attr(m.subgraphs[0], operators=[])),
        UnsupportedModelError,
        r"subgraph 0 of model\.tflite has no operators",
    ),
    # Operators.
    "too_few_inputs": (
        lambda: edited(lambda m: set_attr(op(m, 0), inputs=np.int32([0]))),
        ModelLoadError,
        r"operator #0 \(ADD\) has 1 inputs; ADD takes 2 inputs",
    ),
    "absent_required_input": (
        lambda: edited(lambda m: set_attr(op(m, 0), inputs=np.int32([0, -1]))),
        ModelLoadError,
        r"operator #0 \(ADD\) input 1 is absent",
    ),
    "options_of_another_operator": (
        lambda: edited(
            lambda m: set_attr(
                op(m, 0),
                builtinOptions=litert.Conv2DOptionsT(),
                builtinOptionsType=litert.BuiltinOptions.Conv2DOptions,
            )
        ),
        ModelLoadError,
        r"operator #0 \(ADD\) carries Conv2DOptions, but ADD takes AddOptions",
    ),
    "nan_option": (
        lambda: _softmax_beta(float("nan")),
        ModelLoadError,
        r"operator #0 \(SOFTMAX\) option beta is nan",
    ),
    "unknown_builtin_code": (
        lambda: edited(lambda m: set_attr(m.operatorCodes[1], builtinCode=999, deprecatedBuiltinCode=127)),
        UnsupportedModelError,
        r"#1 BUILTIN_999",
    ),
    "custom_without_code": (
        lambda: edited(
            lambda m: set_attr(
                m.operatorCodes[1],
                builtinCode=litert.BuiltinOperator.CUSTOM,
                deprecatedBuiltinCode=litert.BuiltinOperator.CUSTOM,
            )
        ),
        ModelLoadError,
        r"operator code 1 is CUSTOM but has no custom code",
    ),
    # Tensors and quantization.
    "unknown_tensor_type": (
        lambda: edited(lambda m: set_attr(tensor(m, 2), type=99)),
        UnsupportedModelError,
        r"tensor 2 \('y'\): tensor type TYPE_99",
    ),
    "nan_scale": (
        lambda: _int8_relu(scale=float("nan")),
        ModelLoadError,
        r"tensor 'x' has quantization scale nan",
    ),
    "negative_scale": (
        lambda: _int8_relu(scale=-0.5),
        ModelLoadError,
        r"tensor 'x' has quantization scale -0\.5",
    ),
    "zero_activation_scale": (
        lambda: _int8_relu(scale=0.0),
        ModelLoadError,
        r"tensor 0 \('x'\) has quantization scale 0",
    ),
    "zero_point_out_of_range": (
        lambda: _int8_relu(zero_point=300),
        ModelLoadError,
        r"tensor 'x' has zero point 300, outside the INT8 range -128\.\.127",
    ),
    "quantized_dimension": (
        lambda: _int8_relu(axis=4),
        ModelLoadError,
        r"tensor 'x' has quantized dimension 4 but rank 2",
    ),
}


def _with_file_offset() -> bytes:
    """The base model whose constant claims data after the flatbuffer, past the end of the file."""
    model = base_builder().build()
    set_attr(model.buffers[1], data=None, offset=4096, size=16)
    return pack_any(model)


def _cycle() -> bytes:
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (4,), "float32")
    s = b.add_tensor("s", (4,), "float32")
    y = b.add_tensor("y", (4,), "float32")
    z = b.add_tensor("z", (4,), "float32")
    b.add_operator("ADD", [x, z], [y], litert.AddOptionsT())  # z is written only by the next one
    b.add_operator("RELU", [y], [z])
    b.add_operator("RELU", [y], [s])
    b.set_inputs([x])
    b.set_outputs([s])
    return b.to_bytes()


def _softmax_beta(beta: float) -> bytes:
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "float32")
    y = b.add_tensor("y", (1, 4), "float32")
    b.add_operator("SOFTMAX", [x], [y], litert.SoftmaxOptionsT(beta=beta))
    b.set_inputs([x])
    b.set_outputs([y])
    return b.to_bytes()


def _int8_relu(scale: float = 0.5, zero_point: int = 0, axis: int = 0) -> bytes:
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 4), "int8", quantization=([0.5], [0], 0))
    y = b.add_tensor("y", (1, 4), "int8", quantization=([0.5], [0], 0))
    b.add_operator("RELU", [x], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    model = b.build()
    q = model.subgraphs[0].tensors[0].quantization
    q.scale = np.float32([scale])
    q.zeroPoint = np.int64([zero_point])
    q.quantizedDimension = axis
    return pack_model(model)


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_model_ends_in_a_typed_error(case, tmp_path, context):
    make, error, pattern = CASES[case]
    expect(make(), tmp_path, context, error, pattern)


@pytest.mark.parametrize("cut", [0, 7, 8, 12, 100, 1000, len(KWS) // 2, len(KWS) - 17, len(KWS) - 1])
def test_truncated_corpus_model_names_where_it_ends(cut, tmp_path, context):
    exc = convert_bytes(KWS[:cut], tmp_path, context)
    assert isinstance(exc, ModelLoadError) and exc.exit_code == 2
    assert re.search(r"too short|root table offset|reading Model\.\w+", str(exc)), str(exc)


def test_subgraph_index_out_of_range_is_a_configuration_error(tmp_path, context):
    expect(
        base_builder().to_bytes(),
        tmp_path,
        context,
        InvalidConfigError,
        r"subgraph index 3 is out of range: model\.tflite has 1 subgraph",
        subgraph=3,
    )


def test_sizes_are_checked_before_anything_is_allocated(tmp_path, context):
    """A constant claiming 2**30 elements with a 16-byte buffer fails without allocating them."""
    data = edited(lambda m: set_attr(tensor(m, 1), shape=np.int32([1 << 28, 4]), type=litert.TensorType.INT8))
    tracemalloc.start()
    try:
        exc = convert_bytes(data, tmp_path, context)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(exc, ModelLoadError) and "shorter than the 1073741824 bytes" in str(exc)
    assert peak < 64 * 2**20, f"peak {peak / 2**20:.1f} MiB"
