"""FLOOR_MOD: the broadcast remainder with the divisor's sign (divisors non-zero).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import binary, check_against_reference

CASES = {
    "float32": binary("FLOOR_MOD", "float32", second=(0.5, 4.0)),
    "int8": binary("FLOOR_MOD", "int8", second=(1, 127)),
    "int16": binary("FLOOR_MOD", "int16", second=(1, 300)),
    "int32": binary("FLOOR_MOD", "int32", second=(1, 100)),
    "int64": binary("FLOOR_MOD", "int64", second=(1, 100)),
}
"""Case name -> its one-operator model."""


def test_floor_mod_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
