"""REDUCE_MAX, REDUCE_MIN and REDUCE_PROD end to end on models built here: converted, compiled under
ASan/UBSan and run against the LiteRT reference interpreter on random inputs (exact comparison).

The corpus has one model each (int8 REDUCE_MIN, float32 REDUCE_PROD, an int8 REDUCE_MAX inside a
conv model); these cover the other element types, several shapes, negative and repeated axes,
reductions over every axis and keep_dims both ways. Refusals name the broken restriction: unequal
quantization for MAX/MIN (LiteRT compares stored values) and a quantized PROD whose rescale LiteRT
cannot apply. Quantized PROD (LiteRT's QuantizedReduceProd, rescaled after every multiplication)
is checked on int8 and int16 with zero points on both sides; int32 and int64 SUM, PROD, MAX and
MIN over the whole integer range (sums and products wrap as the reference's do).
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

Q8 = (0.04, -6)
Q16 = (0.0008, 0)


def _build(path: Path, shape, dtype, q, cases, out_q=None) -> Path:
    """One input of `shape`; one reduction output per (kind, axes, keep_dims) case."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", shape, dtype, quantization=q)
    outputs = []
    for i, (kind, axes, keep) in enumerate(cases):
        axis = b.add_tensor(f"axes{i}", (len(axes),), "int32", data=np.asarray(axes, np.int32))
        y = b.add_tensor(f"y{i}", reduced_shape(shape, axes, keep), dtype, quantization=out_q or q)
        options = litert.ReducerOptionsT()
        options.keepDims = keep
        b.add_operator(kind, [x, axis], [y], options)
        outputs.append(y)
    b.set_inputs([x])
    b.set_outputs(outputs)
    return b.save(path)


def _convert(path: Path, tmp_path: Path):
    config = {
        "model": {"path": str(path)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "samples": 2, "tolerance": 0.0},
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert()


MINMAX = [
    ("REDUCE_MAX", [1, 2], True),
    ("REDUCE_MIN", [-1], False),
    ("REDUCE_MAX", [0, 1, 2, 3], False),
    ("REDUCE_MIN", [3, 0, -1], True),
]
PROD = [
    ("REDUCE_PROD", [1], False),
    ("REDUCE_PROD", [2, -1], True),
    ("REDUCE_PROD", [0, 1, 2, 3], False),
]

MODELS = {
    "minmax_int8": ((2, 3, 4, 5), "int8", Q8, MINMAX),
    "minmax_int16": ((2, 3, 4, 5), "int16", Q16, MINMAX),
    "minmax_float32": ((2, 3, 4, 5), "float32", None, MINMAX),
    "minmax_int8_rank2": ((7, 9), "int8", (0.1, 3), [("REDUCE_MAX", [0], True), ("REDUCE_MIN", [1], False)]),
    "prod_float32": ((2, 3, 4, 5), "float32", None, PROD),
    "prod_int8": ((2, 3, 4, 5), "int8", (1 / 64, 3), PROD, (0.05, -4)),
    "prod_int16": ((2, 3, 4, 5), "int16", (1 / 8192, 0), PROD, (0.002, 0)),
    "prod_int8_rank2": ((6, 2), "int8", (0.02, -7), [("REDUCE_PROD", [1], True)], (0.001, 10)),
    "int32": ((2, 3, 4, 5), "int32", None, MINMAX + PROD + [("SUM", [1, 3], False), ("SUM", [-1], True)]),
    "int64": (
        (3, 4, 5),
        "int64",
        None,
        [("REDUCE_MAX", [1], True), ("REDUCE_MIN", [0, 2], False)]
        + [("REDUCE_PROD", [2], False), ("SUM", [0, 1, 2], False)],
    ),
    "prod_float32_rank3": (
        (3, 1, 6),
        "float32",
        None,
        [("REDUCE_PROD", [-1], True), ("REDUCE_PROD", [0, 2], False)],
    ),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_reductions_match_reference(name, tmp_path):
    shape, dtype, q, cases, *out_q = MODELS[name]
    model = _build(tmp_path / "model.tflite", shape, dtype, q, cases, out_q=out_q[0] if out_q else None)
    result = _convert(model, tmp_path)
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


@pytest.mark.parametrize(
    "kind, dtype, q, out_q, message",
    [
        ("REDUCE_MAX", "int8", (0.04, -6), (0.05, -6), "needs them equal"),
        ("REDUCE_MIN", "int16", (0.0008, 0), (0.0009, 0), "needs them equal"),
        # input_scale / output_scale^(1/3) = 2^9: beyond the range of LiteRT's 64-bit rescale.
        ("REDUCE_PROD", "int8", (0.5, -6), (2.0**-30, 0), "outside"),
        # LiteRT's REDUCE_MAX/MIN prepare step requires int16 zero point 0 as well.
        ("REDUCE_MAX", "int16", (0.001, 7), (0.001, 7), "zero point 7"),
    ],
)
def test_unsupported_variants_are_refused_with_a_reason(kind, dtype, q, out_q, message, tmp_path):
    path = _build(tmp_path / "model.tflite", (2, 3), dtype, q, [(kind, [1], False)], out_q=out_q)
    with pytest.raises(UnsupportedModelError, match=message):
        _convert(path, tmp_path)
