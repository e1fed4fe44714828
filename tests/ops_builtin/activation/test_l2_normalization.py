"""L2_NORMALIZATION: each row divided by its Euclidean norm.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import check_against_reference, unary

CASES = {
    "float32": unary("L2_NORMALIZATION", "float32", shape=(2, 3, 8)),
    "int8": unary("L2_NORMALIZATION", "int8", shape=(2, 3, 8), quant=(0.05, 3), out_quant=(1 / 128, 0)),
}
"""Case name -> its one-operator model."""


def test_l2_normalization_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
