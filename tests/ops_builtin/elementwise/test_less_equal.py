"""LESS_EQUAL: a <= b, broadcast, into bool (int8 inputs compared at a common scale).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import binary, check_against_reference

CASES = {
    "float32": binary("LESS_EQUAL", "float32", out_dtype="bool"),
    "int8": binary("LESS_EQUAL", "int8", quants=((0.05, 3), (0.03, -7), None), out_dtype="bool"),
    "int32": binary("LESS_EQUAL", "int32", second=(-3, 3), out_dtype="bool"),
}
"""Case name -> its one-operator model."""


def test_less_equal_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
