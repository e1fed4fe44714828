"""COS: the cosine per element.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import check_against_reference, unary

CASES = {
    "float32": unary("COS", "float32"),
}
"""Case name -> its one-operator model."""


def test_cos_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
