"""ATAN2: the angle of (x, y) (same shapes: LiteRT's ATAN2 does not broadcast).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import binary, check_against_reference

CASES = {
    "float32": binary("ATAN2", "float32", shapes=((2, 3, 5), (2, 3, 5), (2, 3, 5))),
}
"""Case name -> its one-operator model."""


def test_atan2_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
