"""SPLIT_V: one input split into parts of given sizes (one of them -1) along an axis.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "SPLIT_V",
        [T((8, 15), "float32"), const((3,), "int32", [4, -1, 6]), const((), "int32", 1)],
        [T((8, 4), "float32"), T((8, 5), "float32"), T((8, 6), "float32")],
        options("SplitVOptionsT", numSplits=3),
    ),
}
"""Case name -> its one-operator model."""


def test_split_v_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
