"""CUMSUM: running sums along a constant axis (exclusive and reversed too).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "CUMSUM",
        [T((2, 3, 4), "float32"), const((), "int32", 1)],
        [T((2, 3, 4), "float32")],
        options("CumsumOptionsT"),
    ),
    "int32_exclusive_reverse": SingleOp(
        "CUMSUM",
        [T((2, 3, 4), "int32"), const((), "int32", -1)],
        [T((2, 3, 4), "int32")],
        options("CumsumOptionsT", exclusive=True, reverse=True),
    ),
}
"""Case name -> its one-operator model."""


def test_cumsum_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
