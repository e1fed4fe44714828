"""SPACE_TO_BATCH_ND: spatial blocks moved into the batch, with padding.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "SPACE_TO_BATCH_ND",
        [T((1, 4, 5, 2), "float32"), const((2,), "int32", [2, 2]), const((2, 2), "int32", [[0, 0], [0, 1]])],
        [T((4, 2, 3, 2), "float32")],
    ),
    "int8": SingleOp(
        "SPACE_TO_BATCH_ND",
        [
            T((2, 6, 3, 1), "int8", (0.05, 3)),
            const((2,), "int32", [3, 1]),
            const((2, 2), "int32", [[0, 0], [1, 0]]),
        ],
        [T((6, 2, 4, 1), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_space_to_batch_nd_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
