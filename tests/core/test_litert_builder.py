"""The LiteRT model builder: files the reference interpreter runs, and faithful round trips."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.converters.litert import schema_access as sa
from helia_aot.converters.litert.reader import buffer_data, parse_model, quantization_of, read_model
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import (
    DATA_ALIGNMENT,
    LiteRTModelBuilder,
    builtin_code,
    options_union,
    pack_model,
)

DATA_DIR = Path(__file__).resolve().parents[1] / "data"


def run_reference(content: bytes, *inputs: np.ndarray) -> list[np.ndarray]:
    interpreter = Interpreter(model_content=content, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    for detail, value in zip(interpreter.get_input_details(), inputs):
        interpreter.set_tensor(detail["index"], value)
    interpreter.invoke()
    return [interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()]


def test_float_add_runs_in_the_reference_interpreter(tmp_path):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (2, 3), "float32")
    c = b.add_tensor("c", (2, 3), np.float32, data=np.arange(6, dtype=np.float32) / 4)
    y = b.add_tensor("y", (2, 3), "float32")
    options = litert.AddOptionsT()
    options.fusedActivationFunction = litert.ActivationFunctionType.RELU
    b.add_operator("ADD", [x, c], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    value = np.array([[-1, 0.5, 2], [-3, 4, -0.25]], dtype=np.float32)
    (out,) = run_reference(b.to_bytes(), value)
    np.testing.assert_array_equal(
        out, np.maximum(value + np.arange(6, dtype=np.float32).reshape(2, 3) / 4, 0)
    )

    path = b.save(tmp_path / "add.tflite")
    model = read_model(path)
    subgraph = sa.subgraph_at(model, 0)
    assert sa.op_key(model, sa.operator_at(subgraph, 0)) == "ADD"
    np.testing.assert_array_equal(
        buffer_data(model, sa.tensor_at(subgraph, c)), np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    )


def _quantize_multiplier(real: float) -> tuple[int, int]:
    fraction, shift = math.frexp(real)
    q = int(math.floor(fraction * (1 << 31) + 0.5))
    if q == 1 << 31:
        q, shift = q // 2, shift + 1
    return q, shift


def _multiply_by_quantized_multiplier(x: int, multiplier: int, shift: int) -> int:
    """LiteRT's double-rounding requantization on Python ints."""
    x *= 1 << max(shift, 0)
    product = x * multiplier
    nudge = (1 << 30) if product >= 0 else 1 - (1 << 30)
    high = abs(product + nudge) >> 31
    high = high if product + nudge >= 0 else -high
    right = max(-shift, 0)
    mask = (1 << right) - 1
    remainder = high & mask
    threshold = (mask >> 1) + (1 if high < 0 else 0)
    return (high >> right) + (1 if remainder > threshold else 0)


def test_int8_fully_connected_matches_integer_arithmetic():
    rng = np.random.default_rng(3)
    in_scale, in_zp, w_scale, out_scale, out_zp = 0.05, -3, 0.02, 0.2, 5
    weights = rng.integers(-127, 128, size=(5, 8), dtype=np.int8)
    bias = rng.integers(-300, 300, size=5).astype(np.int32)
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (2, 8), "int8", quantization=([in_scale], [in_zp]))
    w = b.add_tensor("w", (5, 8), "int8", data=weights, quantization=([w_scale], [0]))
    bb = b.add_tensor(
        "b", (5,), "int32", data=bias, quantization=([np.float32(in_scale) * np.float32(w_scale)], [0])
    )
    y = b.add_tensor("y", (2, 5), "int8", quantization=([out_scale], [out_zp]))
    b.add_operator("FULLY_CONNECTED", [x, w, bb], [y], litert.FullyConnectedOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    value = rng.integers(-128, 128, size=(2, 8), dtype=np.int8)
    (out,) = run_reference(b.to_bytes(), value)

    real = float(np.float32(in_scale)) * float(np.float32(w_scale)) / float(np.float32(out_scale))
    multiplier, shift = _quantize_multiplier(real)
    expected = np.empty((2, 5), dtype=np.int8)
    for i in range(2):
        for o in range(5):
            acc = int(np.dot(value[i].astype(np.int64) - in_zp, weights[o].astype(np.int64)))
            acc = _multiply_by_quantized_multiplier(acc + int(bias[o]), multiplier, shift) + out_zp
            expected[i, o] = min(127, max(-128, acc))
    np.testing.assert_array_equal(out, expected)
    assert len(set(expected.ravel().tolist())) > 3  # the test data exercises the range

    model = parse_model(b.to_bytes())
    q = quantization_of(sa.tensor_at(sa.subgraph_at(model, 0), x))
    assert q.scale.tolist() == [np.float32(in_scale)] and q.zero_point.tolist() == [in_zp]


def test_buffer_data_is_16_byte_aligned():
    b = LiteRTModelBuilder(description="")
    x = b.add_tensor("x", (3,), "int8")
    first = b.add_tensor("a", (3,), "int8", data=np.int8([1, 2, 3]))
    second = b.add_tensor("b", (3,), "int8", data=np.int8([4, 5, 6]))
    y = b.add_tensor("y", (3,), "int8")
    b.add_operator("ADD", [x, first], [y], litert.AddOptionsT())
    b.add_operator("ADD", [y, second], [b.add_tensor("z", (3,), "int8")], litert.AddOptionsT())
    content = b.to_bytes()
    root = litert.Model.GetRootAs(content, 0)
    starts = []
    for i in range(1, root.BuffersLength()):
        table = root.Buffers(i)._tab
        starts.append(table.Vector(table.Offset(4)))
    assert len(starts) == 2 and all(start % DATA_ALIGNMENT == 0 for start in starts)
    assert [content[s : s + 3] for s in starts] in (
        [b"\x01\x02\x03", b"\x04\x05\x06"],
        [b"\x04\x05\x06", b"\x01\x02\x03"],
    )


def test_corpus_model_round_trips_through_pack_model():
    path = DATA_DIR / "models" / "mlperf_kws_dscnn_int8.tflite"
    golden = np.load(DATA_DIR / "golden" / "mlperf_kws_dscnn_int8.npz")
    repacked = pack_model(read_model(path))
    again = parse_model(repacked)
    assert len(sa.operators_of(sa.subgraph_at(again, 0))) == 12
    (out,) = run_reference(repacked, golden["in_0"][0])
    np.testing.assert_array_equal(out, golden["ref_out_0"][0])


def test_custom_operator_and_large_builtin_codes():
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (2,), "float32")
    y = b.add_tensor("y", (2,), "float32")
    z = b.add_tensor("z", (4, 2), "float32")
    shape = b.add_tensor("shape", (2,), "int32", data=np.int32([4, 2]))
    b.add_custom_operator("MyOp", [x], [y], b"\x10\x20", version=3)
    b.add_operator("BROADCAST_TO", [y, shape], [z])
    b.set_inputs([x])
    b.set_outputs([z])
    model = parse_model(b.to_bytes())
    subgraph = sa.subgraph_at(model, 0)
    custom, broadcast = sa.operators_of(subgraph)
    assert sa.op_key(model, custom) == "MYOP" and sa.custom_options_of(custom) == b"\x10\x20"
    assert sa.opcode_of(model, custom).version == 3
    opcode = sa.opcode_of(model, broadcast)
    assert opcode.deprecatedBuiltinCode == litert.BuiltinOperator.PLACEHOLDER_FOR_GREATER_OP_CODES
    assert sa.op_key(model, broadcast) == "BROADCAST_TO"


def test_operator_codes_are_shared():
    b = LiteRTModelBuilder()
    t = [b.add_tensor(f"t{i}", (2,), "float32") for i in range(3)]
    b.add_operator("RELU", [t[0]], [t[1]])
    b.add_operator("RELU", [t[1]], [t[2]])
    model = b.build()
    assert len(model.operatorCodes) == 1
    assert [op.opcodeIndex for op in model.subgraphs[0].operators] == [0, 0]


def test_builder_rejects_mistakes():
    b = LiteRTModelBuilder()
    with pytest.raises(ValueError, match="3 values for shape"):
        b.add_tensor("w", (2, 2), "int8", data=np.int8([1, 2, 3]))
    with pytest.raises(ValueError, match="not a LiteRT builtin"):
        b.add_operator("NOT_AN_OP", [], [])
    with pytest.raises(TypeError, match="not a LiteRT builtin options class"):
        b.add_operator("ADD", [], [], options=object())
    assert builtin_code("CONV_2D") == litert.BuiltinOperator.CONV_2D
    assert options_union(litert.Conv2DOptionsT()) == ("builtinOptions", litert.BuiltinOptions.Conv2DOptions)
    assert options_union(litert.StablehloConcatenateOptionsT())[0] == "builtinOptions2"
