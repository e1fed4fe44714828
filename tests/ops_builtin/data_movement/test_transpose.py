"""TRANSPOSE: the dimensions permuted by a constant permutation.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "TRANSPOSE",
        [T((2, 3, 4, 5), "float32"), const((4,), "int32", [0, 2, 3, 1])],
        [T((2, 4, 5, 3), "float32")],
    ),
    "int8": SingleOp(
        "TRANSPOSE",
        [T((3, 7), "int8", (0.05, 3)), const((2,), "int32", [1, 0])],
        [T((7, 3), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_transpose_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
