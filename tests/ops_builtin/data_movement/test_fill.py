"""FILL: a constant shape filled with a run-time value.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp("FILL", [const((2,), "int32", [3, 4]), T((), "float32")], [T((3, 4), "float32")]),
    "int32": SingleOp("FILL", [const((3,), "int32", [2, 1, 3]), T((), "int32")], [T((2, 1, 3), "int32")]),
}
"""Case name -> its one-operator model."""


def test_fill_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
