"""SPLIT: one input split into equal parts along a constant axis.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "SPLIT",
        [const((), "int32", 1), T((2, 6, 3), "float32")],
        [T((2, 3, 3), "float32")] * 2,
        options("SplitOptionsT", numSplits=2),
    ),
    "int8": SingleOp(
        "SPLIT",
        [const((), "int32", -1), T((4, 9), "int8", (0.05, 3))],
        [T((4, 3), "int8", (0.05, 3))] * 3,
        options("SplitOptionsT", numSplits=3),
    ),
}
"""Case name -> its one-operator model."""


def test_split_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
