"""LOCAL_RESPONSE_NORMALIZATION: each value divided by a power of its neighbourhood's squares.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import check_against_reference, options, unary

CASES = {
    "float32": unary(
        "LOCAL_RESPONSE_NORMALIZATION",
        "float32",
        shape=(1, 2, 3, 9),
        opts=options("LocalResponseNormalizationOptionsT", radius=2, bias=1.0, alpha=0.5, beta=0.75),
    ),
}
"""Case name -> its one-operator model."""


def test_local_response_normalization_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
