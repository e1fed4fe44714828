"""SELECT: picks from two same-shape inputs by a bool condition.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference

CASES = {
    "float32": SingleOp(
        "SELECT", [T((2, 6), "bool"), T((2, 6), "float32"), T((2, 6), "float32")], [T((2, 6), "float32")]
    ),
    "int8": SingleOp(
        "SELECT",
        [T((2, 6), "bool"), T((2, 6), "int8", (0.05, 3)), T((2, 6), "int8", (0.05, 3))],
        [T((2, 6), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_select_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
