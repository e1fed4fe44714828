"""SCATTER_ND: updates summed into zeros of a constant shape at index vectors.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "SCATTER_ND",
        [
            const((5, 2), "int32", [[0, 1], [1, 2], [0, 1], [1, 0], [0, 0]]),
            T((5, 4), "float32"),
            const((3,), "int32", [2, 3, 4]),
        ],
        [T((2, 3, 4), "float32")],
    ),
    "int32": SingleOp(
        "SCATTER_ND",
        [
            const((2, 2, 1), "int32", [[[5], [0]], [[5], [2]]]),
            T((2, 2, 3), "int32"),
            const((2,), "int32", [6, 3]),
        ],
        [T((6, 3), "int32")],
    ),
}
"""Case name -> its one-operator model."""


def test_scatter_nd_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
