"""GATHER_ND: slices of the input at index vectors.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "GATHER_ND",
        [
            T((3, 4, 5), "float32"),
            const((2, 3, 2), "int32", [[[0, 1], [2, 3], [1, 0]], [[2, 2], [0, 0], [1, 3]]]),
        ],
        [T((2, 3, 5), "float32")],
    ),
    "int8": SingleOp(
        "GATHER_ND",
        [T((3, 4, 5), "int8", (0.05, 3)), const((2, 1), "int64", [[2], [0]])],
        [T((2, 4, 5), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_gather_nd_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
