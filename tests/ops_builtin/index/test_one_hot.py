"""ONE_HOT: on and off values at the positions of indices (outside the depth: all off).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "ONE_HOT",
        [
            T((2, 3), "int32", low=-1, high=6),
            const((), "int32", 5),
            const((), "float32", 3.0),
            const((), "float32", -1.0),
        ],
        [T((2, 3, 5), "float32")],
        options("OneHotOptionsT", axis=-1),
    ),
    "int32": SingleOp(
        "ONE_HOT",
        [
            T((4,), "int64", low=0, high=4),
            const((), "int32", 5),
            const((), "int32", 7),
            const((), "int32", 0),
        ],
        [T((5, 4), "int32")],
        options("OneHotOptionsT", axis=0),
    ),
}
"""Case name -> its one-operator model."""


def test_one_hot_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
