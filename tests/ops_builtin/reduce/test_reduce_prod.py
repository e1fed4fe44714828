"""REDUCE_PROD: the product over constant axes.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "REDUCE_PROD",
        [T((2, 3, 4), "float32", low=0.5, high=1.5), const((1,), "int32", [1])],
        [T((2, 4), "float32")],
        options("ReducerOptionsT", keepDims=False),
    ),
    "int32": SingleOp(
        "REDUCE_PROD",
        [T((3, 4), "int32", low=-3, high=3), const((1,), "int32", [1])],
        [T((3, 1), "int32")],
        options("ReducerOptionsT", keepDims=True),
    ),
}
"""Case name -> its one-operator model."""


def test_reduce_prod_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
