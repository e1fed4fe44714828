"""PADV2: padding with a given value.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "PADV2",
        [T((3, 6), "float32"), const((2, 2), "int32", [[0, 1], [1, 1]]), T((1,), "float32")],
        [T((4, 8), "float32")],
    ),
    "int8": SingleOp(
        "PADV2",
        [
            T((2, 5), "int8", (0.05, 3)),
            const((2, 2), "int32", [[1, 1], [0, 2]]),
            const((1,), "int8", [-20], (0.05, 3)),
        ],
        [T((4, 7), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_padv2_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
