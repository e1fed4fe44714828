"""DILATE: the input spread out by constant dilations, the gaps filled with a run-time value.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "DILATE",
        [T((3, 4, 5), "float32"), const((3,), "int32", [2, 1, 3]), T((), "float32")],
        [T((5, 4, 13), "float32")],
    ),
    "int8": SingleOp(
        "DILATE",
        [T((2, 3), "int8", (0.05, 3)), const((2,), "int32", [3, 2]), T((), "int8", (0.05, 3))],
        [T((4, 5), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_dilate_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
