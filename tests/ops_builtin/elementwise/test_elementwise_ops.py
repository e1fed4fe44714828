"""The elementwise operators end to end on models built here: converted, compiled under ASan/UBSan and
run against the LiteRT reference interpreter on random inputs (exact comparison throughout).

The models cover what the corpus lacks: int16 ADD/SUB on both LiteRT paths (general rescale and
power-of-two scales), int16 MUL/MAXIMUM/MINIMUM, int8 SQUARED_DIFFERENCE with broadcasting, chains
whose intermediates die at the next elementwise operator (so outputs take over their storage),
five-dimensional float broadcasting, every QUANTIZE/DEQUANTIZE type pair including float16
weights, and MEAN/SUM over assorted axes with and without keep_dims. Refusals name the broken
restriction.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import run_module_test_case
from helia_aot_ops_builtin.elementwise.broadcast_geometry import reduced_shape

ACT = litert.ActivationFunctionType


def _options(cls, **fields):
    options = cls()
    for key, value in fields.items():
        setattr(options, key, value)
    return options


class _Model:
    def __init__(self):
        self.b = LiteRTModelBuilder()
        self.inputs: list[int] = []
        self.outputs: list[int] = []

    def input(self, name, shape, dtype, q=None):
        self.inputs.append(self.b.add_tensor(name, shape, dtype, quantization=q))
        return self.inputs[-1]

    def const(self, name, data, dtype, q=None):
        return self.b.add_tensor(name, np.shape(data), dtype, data=np.asarray(data), quantization=q)

    def op(self, kind, inputs, shape, dtype, q=None, options=None, output=True):
        y = self.b.add_tensor(f"t{len(self.b.tensors)}", shape, dtype, quantization=q)
        self.b.add_operator(kind, inputs, [y], options)
        if output:
            self.outputs.append(y)
        return y

    def save(self, path: Path) -> Path:
        self.b.set_inputs(self.inputs)
        self.b.set_outputs(self.outputs)
        return self.b.save(path)


def binary_int8() -> _Model:
    m = _Model()
    x = m.input("x", (1, 4, 5, 6), "int8", (0.05, 3))
    y = m.input("y", (1, 1, 5, 1), "int8", (0.02, -7))
    rng = np.random.default_rng(11)  # this model's own generator: weights independent of test order
    c = m.const("c", rng.integers(-128, 128, 6), "int8", (0.03, 1))
    a = m.op(
        "ADD",
        [x, y],
        (1, 4, 5, 6),
        "int8",
        (0.06, -2),
        _options(litert.AddOptionsT, fusedActivationFunction=ACT.RELU),
        output=False,
    )
    s = m.op("SUB", [a, c], (1, 4, 5, 6), "int8", (0.08, 5), _options(litert.SubOptionsT), output=False)
    p = m.op(
        "MUL",
        [s, y],
        (1, 4, 5, 6),
        "int8",
        (0.01, -10),
        _options(litert.MulOptionsT, fusedActivationFunction=ACT.RELU6),
    )
    d = m.op("SQUARED_DIFFERENCE", [y, x], (1, 4, 5, 6), "int8", (0.02, -128))
    m.op("MAXIMUM", [p, d], (1, 4, 5, 6), "int8", (0.01, -10))
    m.op("MINIMUM", [x, c], (1, 4, 5, 6), "int8", (0.05, 3))
    return m


def binary_int16() -> _Model:
    m = _Model()
    x = m.input("x", (2, 3, 8), "int16", (2.0**-10, 0))
    y = m.input("y", (2, 3, 8), "int16", (2.0**-12, 0))
    z = m.input("z", (3, 1), "int16", (0.0007, 0))
    general = _options(litert.AddOptionsT, potScaleInt16=False, fusedActivationFunction=ACT.RELU)
    m.op("ADD", [x, z], (2, 3, 8), "int16", (0.0011, 0), general)
    m.op("ADD", [x, y], (2, 3, 8), "int16", (2.0**-10, 0), _options(litert.AddOptionsT))
    m.op("SUB", [y, x], (2, 3, 8), "int16", (2.0**-10, 0), _options(litert.SubOptionsT))
    m.op("SUB", [z, y], (2, 3, 8), "int16", (0.0009, 0), _options(litert.SubOptionsT, potScaleInt16=False))
    m.op(
        "MUL",
        [x, z],
        (2, 3, 8),
        "int16",
        (0.0003, 0),
        _options(litert.MulOptionsT, fusedActivationFunction=ACT.RELU_N1_TO_1),
    )
    m.op("MAXIMUM", [x, z], (2, 3, 8), "int16", (2.0**-10, 0))
    m.op("MINIMUM", [y, x], (2, 3, 8), "int16", (2.0**-12, 0))
    return m


def binary_float() -> _Model:
    m = _Model()
    x = m.input("x", (2, 3, 1, 4, 5), "float32")
    y = m.input("y", (3, 2, 1, 5), "float32")
    rng = np.random.default_rng(12)  # this model's own generator: weights independent of test order
    w = m.const("w", rng.standard_normal((4, 5)).astype(np.float16), "float16")
    out = (2, 3, 2, 4, 5)
    wd = m.op("DEQUANTIZE", [w], (4, 5), "float32", output=False)
    a = m.op("ADD", [x, y], out, "float32", None, _options(litert.AddOptionsT), output=False)
    b = m.op(
        "ADD",
        [a, wd],
        out,
        "float32",
        None,
        _options(litert.AddOptionsT, fusedActivationFunction=ACT.RELU),
        output=False,
    )
    s = m.op(
        "SUB",
        [b, y],
        out,
        "float32",
        None,
        _options(litert.SubOptionsT, fusedActivationFunction=ACT.RELU_N1_TO_1),
    )
    p = m.op(
        "MUL", [x, y], out, "float32", None, _options(litert.MulOptionsT, fusedActivationFunction=ACT.RELU6)
    )
    m.op("SQUARED_DIFFERENCE", [p, s], out, "float32")
    m.op("MAXIMUM", [x, wd], (2, 3, 1, 4, 5), "float32")
    m.op("MINIMUM", [y, x], out, "float32")
    return m


def quantize_chain() -> _Model:
    m = _Model()
    x = m.input("x", (2, 3, 4), "float32")
    shape = (2, 3, 4)
    q8 = m.op("QUANTIZE", [x], shape, "int8", (0.02, 5))
    r8 = m.op("QUANTIZE", [q8], shape, "int8", (0.05, -3))
    r16 = m.op("QUANTIZE", [r8], shape, "int16", (0.001, 0))
    s16 = m.op("QUANTIZE", [r16], shape, "int16", (0.0005, 0))
    m.op("QUANTIZE", [s16], shape, "int8", (0.03, 7))
    m.op("QUANTIZE", [x], shape, "int16", (0.0004, 0))
    m.op("DEQUANTIZE", [r8], shape, "float32")
    m.op("DEQUANTIZE", [s16], shape, "float32")
    return m


def reductions() -> _Model:
    m = _Model()
    cases = []
    x8 = m.input("x8", (2, 3, 4, 5), "int8", (0.04, -6))
    x16 = m.input("x16", (2, 3, 4, 5), "int16", (0.0008, 0))
    xf = m.input("xf", (2, 3, 4, 5), "float32")
    cases += [
        ("MEAN", x8, [1, 2], True, "int8", (0.03, 4)),
        ("MEAN", x8, [-1], False, "int8", (0.05, -2)),
        ("MEAN", x8, [0, 1, 2, 3], False, "int8", (0.04, -6)),
        ("MEAN", x16, [0, 3], True, "int16", (0.0005, 0)),
        ("SUM", xf, [1, 3], True, "float32", None),
        ("MEAN", xf, [2, 0], False, "float32", None),
        ("SUM", xf, [3, -1], False, "float32", None),
    ]
    for i, (kind, src, axes, keep, dtype, q) in enumerate(cases):
        axis = m.const(f"axes{i}", np.asarray(axes, np.int32), "int32")
        m.op(
            kind,
            [src, axis],
            reduced_shape((2, 3, 4, 5), axes, keep),
            dtype,
            q,
            _options(litert.ReducerOptionsT, keepDims=keep),
        )
    return m


def _convert(path: Path, tmp_path: Path):
    config = {
        "model": {"path": str(path)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "samples": 2, "tolerance": 0.0},
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert()


MODELS = [binary_int8, binary_int16, binary_float, quantize_chain, reductions]


@pytest.mark.parametrize("make", MODELS, ids=[m.__name__ for m in MODELS])
def test_elementwise_operators_match_reference(make, tmp_path):
    result = _convert(make().save(tmp_path / "model.tflite"), tmp_path)
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def _single(tmp_path, kind, inputs, out, options=None):
    """One operator; inputs are (shape, dtype, quantization, constant data or None)."""
    m = _Model()
    ids = [
        m.const(f"c{i}", data, dtype, q) if data is not None else m.input(f"x{i}", shape, dtype, q)
        for i, (shape, dtype, q, data) in enumerate(inputs)
    ]
    m.op(kind, ids, *out, options=options)
    return _convert(m.save(tmp_path / "model.tflite"), tmp_path)


@pytest.mark.parametrize(
    "case, message",
    [
        ("sub_output_scale_too_small", "output rescale factor"),
        ("add_tanh", "fused activation TANH"),
        ("add_int16_pot_broadcast", "one shape"),
        ("mul_int16_zero_point", "zero point 5"),
        ("mean_runtime_axes", "constant axes"),
    ],
)
def test_unsupported_variants_are_refused_with_a_reason(case, message, tmp_path):
    if case == "sub_output_scale_too_small":
        args = (
            "SUB",
            [((4,), "int8", (1.0, 0), None), ((4,), "int8", (1.0, 0), None)],
            ((4,), "int8", (1e-7, 0)),
            litert.SubOptionsT(),
        )
    elif case == "add_tanh":
        args = (
            "ADD",
            [((4,), "float32", None, None), ((4,), "float32", None, None)],
            ((4,), "float32", None),
            _options(litert.AddOptionsT, fusedActivationFunction=ACT.TANH),
        )
    elif case == "add_int16_pot_broadcast":
        args = (
            "ADD",
            [((2, 4), "int16", (2.0**-8, 0), None), ((4,), "int16", (2.0**-8, 0), None)],
            ((2, 4), "int16", (2.0**-8, 0)),
            litert.AddOptionsT(),
        )
    elif case == "mul_int16_zero_point":
        args = (
            "MUL",
            [((4,), "int16", (0.01, 5), None), ((4,), "int16", (0.01, 0), None)],
            ((4,), "int16", (0.01, 0)),
            litert.MulOptionsT(),
        )
    else:  # mean_runtime_axes (per-channel DEQUANTIZE, once refused here, converts: int4 weights)
        args = (
            "MEAN",
            [((2, 4), "float32", None, None), ((1,), "int32", None, None)],
            ((2,), "float32", None),
            litert.ReducerOptionsT(),
        )
    with pytest.raises(UnsupportedModelError, match=message):
        _single(tmp_path, *args)
