"""BROADCAST_TO: the input broadcast to a constant shape.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "BROADCAST_TO",
        [T((3, 1), "float32"), const((3,), "int32", [2, 3, 4])],
        [T((2, 3, 4), "float32")],
        version=2,
    ),
    "int32": SingleOp(
        "BROADCAST_TO", [T((1, 5), "int32"), const((2,), "int32", [3, 5])], [T((3, 5), "int32")], version=2
    ),
}
"""Case name -> its one-operator model."""


def test_broadcast_to_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
