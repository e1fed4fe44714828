"""ADD_N: the sum of three same-shape inputs.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference

CASES = {
    "float32": SingleOp("ADD_N", [T((2, 5), "float32")] * 3, [T((2, 5), "float32")]),
    "int32": SingleOp("ADD_N", [T((2, 5), "int32")] * 3, [T((2, 5), "int32")]),
}
"""Case name -> its one-operator model."""


def test_add_n_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
