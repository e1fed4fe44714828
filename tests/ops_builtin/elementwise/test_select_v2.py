"""SELECT_V2: picks from two inputs by a bool condition, all three broadcast.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference

CASES = {
    "float32": SingleOp(
        "SELECT_V2",
        [T((2, 1, 4), "bool"), T((1, 3, 4), "float32"), T((2, 3, 1), "float32")],
        [T((2, 3, 4), "float32")],
    ),
    "int32": SingleOp(
        "SELECT_V2", [T((2, 3, 4), "bool"), T((2, 3, 4), "int32"), T((4,), "int32")], [T((2, 3, 4), "int32")]
    ),
}
"""Case name -> its one-operator model."""


def test_select_v2_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
