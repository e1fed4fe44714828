"""SIGN: -1, 0 or 1 per element.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import check_against_reference, unary

CASES = {
    "float32": unary("SIGN", "float32"),
    "int32": unary("SIGN", "int32", low=-3, high=3),
}
"""Case name -> its one-operator model."""


def test_sign_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
