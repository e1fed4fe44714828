"""POW: a^b, broadcast, over positive bases.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference

CASES = {
    "float32": SingleOp(
        "POW",
        [T((2, 3, 5), "float32", low=0.1, high=3.0), T((1, 3, 5), "float32", low=-2.0, high=2.0)],
        [T((2, 3, 5), "float32")],
    ),
}
"""Case name -> its one-operator model."""


def test_pow_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
