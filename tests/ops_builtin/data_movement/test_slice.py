"""SLICE: a box of the input from constant begins and sizes (-1: to the end).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "SLICE",
        [
            T((2, 3, 4, 5), "float32"),
            const((4,), "int32", [1, 0, 1, 2]),
            const((4,), "int32", [-1, 2, -1, 3]),
        ],
        [T((1, 2, 3, 3), "float32")],
    ),
    "int8": SingleOp(
        "SLICE",
        [T((6, 7), "int8", (0.05, 3)), const((2,), "int32", [2, 1]), const((2,), "int32", [3, 5])],
        [T((3, 5), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_slice_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
