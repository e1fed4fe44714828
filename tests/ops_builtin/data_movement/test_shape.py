"""SHAPE: the input's shape as an int32 tensor.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, options

CASES = {
    "int32": SingleOp(
        "SHAPE", [T((2, 3, 5), "float32")], [T((3,), "int32")], options("ShapeOptionsT", outType=2)
    ),
}
"""Case name -> its one-operator model."""


def test_shape_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
