"""EXPAND_DIMS: a size-1 dimension inserted at a constant axis.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "EXPAND_DIMS", [T((3, 4), "float32"), const((), "int32", -1)], [T((3, 4, 1), "float32")]
    ),
    "int16": SingleOp(
        "EXPAND_DIMS",
        [T((3, 4), "int16", (0.001, 0)), const((), "int32", 0)],
        [T((1, 3, 4), "int16", (0.001, 0))],
    ),
}
"""Case name -> its one-operator model."""


def test_expand_dims_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
