"""REVERSE_V2: the input reversed along constant axes.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "REVERSE_V2", [T((2, 3, 4), "float32"), const((1,), "int32", [1])], [T((2, 3, 4), "float32")]
    ),
    "int8": SingleOp(
        "REVERSE_V2",
        [T((3, 5), "int8", (0.05, 3)), const((2,), "int32", [0, 1])],
        [T((3, 5), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_reverse_v2_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
