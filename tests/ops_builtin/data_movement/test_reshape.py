"""RESHAPE: the same elements under a new shape (from a constant shape tensor).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "RESHAPE",
        [T((2, 3, 4), "float32"), const((2,), "int32", [4, 6])],
        [T((4, 6), "float32")],
        options("ReshapeOptionsT", newShape=[4, 6]),
    ),
    "int8": SingleOp(
        "RESHAPE",
        [T((2, 12), "int8", (0.05, 3)), const((3,), "int32", [3, -1, 2])],
        [T((3, 4, 2), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_reshape_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
