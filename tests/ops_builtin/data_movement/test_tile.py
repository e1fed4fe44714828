"""TILE: the input repeated a constant number of times along each dimension.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp("TILE", [T((2, 3), "float32"), const((2,), "int32", [2, 3])], [T((4, 9), "float32")]),
    "int8": SingleOp(
        "TILE",
        [T((1, 2, 3), "int8", (0.05, 3)), const((3,), "int32", [3, 1, 2])],
        [T((3, 2, 6), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_tile_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
