"""int32 and int64 ADD, SUB, MUL, MAXIMUM and MINIMUM (the arithmetic of shape expressions), and
int64 comparisons, against the LiteRT reference interpreter, exactly.

Inputs span the whole int32 range, so sums, differences and products overflow and must wrap as
the reference's two's-complement arithmetic does; the second input broadcasts, and ADD/SUB/MUL
carry each fused activation the reference clamps int32 results with.
"""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder

from ops_builtin.activation.test_activation_ops import golden
from ops_builtin.elementwise.test_cast_ops import convert_and_run

ACTIVATIONS = {"NONE": 0, "RELU": 1, "RELU6": 3, "RELU_N1_TO_1": 2}
OPTIONS = {"ADD": litert.AddOptionsT, "SUB": litert.SubOptionsT, "MUL": litert.MulOptionsT}


def build(path, activation: str, lhs_shape, rhs_shape, out_shape):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", lhs_shape, "int32")
    y = b.add_tensor("y", rhs_shape, "int32")
    outputs = []
    for op in ("ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM"):
        out = b.add_tensor(op.lower(), out_shape, "int32")
        options = None
        if op in OPTIONS:
            options = OPTIONS[op]()
            options.fusedActivationFunction = ACTIVATIONS[activation]
        b.add_operator(op, [x, y], [out], options)
        outputs.append(out)
    b.set_inputs([x, y])
    b.set_outputs(outputs)
    return b.save(path)


SHAPES = {
    "same": ((2, 3, 4), (2, 3, 4), (2, 3, 4)),
    "broadcast": ((2, 3, 4), (1, 3, 1), (2, 3, 4)),
    "scalar": ((5,), (), (5,)),
}


@pytest.mark.parametrize("activation", list(ACTIVATIONS))
@pytest.mark.parametrize("shapes", list(SHAPES))
def test_int32_arithmetic_matches_reference(activation, shapes, tmp_path):
    lhs, rhs, out = SHAPES[shapes]
    model = build(tmp_path / "m.tflite", activation, lhs, rhs, out)
    rng = np.random.default_rng(len(activation) * 7 + len(shapes))
    samples = []
    for wide in (True, False):
        bound = 2**31 if wide else 8
        samples.append([rng.integers(-bound, bound, s, dtype=np.int64).astype(np.int32) for s in (lhs, rhs)])
    convert_and_run(model, golden(model, samples, tmp_path / "g.npz"), tmp_path)


def test_int64_arithmetic_and_comparisons_match_reference(tmp_path):
    """int64 ADD/SUB/MUL/MAXIMUM/MINIMUM (wrapping, no activation) and the six comparisons."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (2, 3, 4), "int64")
    y = b.add_tensor("y", (1, 3, 1), "int64")
    outputs = []
    for op in ("ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM"):
        out = b.add_tensor(op.lower(), (2, 3, 4), "int64")
        b.add_operator(op, [x, y], [out], OPTIONS[op]() if op in OPTIONS else None)
        outputs.append(out)
    for op in ("EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL"):
        out = b.add_tensor(op.lower(), (2, 3, 4), "bool")
        b.add_operator(op, [x, y], [out])
        outputs.append(out)
    b.set_inputs([x, y])
    b.set_outputs(outputs)
    model = b.save(tmp_path / "m.tflite")
    rng = np.random.default_rng(64)
    samples = [
        [rng.integers(-(2**63), 2**63 - 1, s, dtype=np.int64, endpoint=True) for s in ((2, 3, 4), (1, 3, 1))],
        [rng.integers(-3, 4, s, dtype=np.int64) for s in ((2, 3, 4), (1, 3, 1))],
    ]
    convert_and_run(model, golden(model, samples, tmp_path / "g.npz"), tmp_path)
