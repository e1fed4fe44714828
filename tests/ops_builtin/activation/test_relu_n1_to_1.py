"""RELU_N1_TO_1: x clamped to [-1, 1].

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import check_against_reference, unary

CASES = {
    "float32": unary("RELU_N1_TO_1", "float32", low=-2.0, high=2.0),
    "int8": unary("RELU_N1_TO_1", "int8", quant=(0.02, 3), out_quant=(2 / 255, 0)),
}
"""Case name -> its one-operator model."""


def test_relu_n1_to_1_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
