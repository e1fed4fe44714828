"""TANH: the hyperbolic tangent (int8/int16 outputs at LiteRT's fixed scales).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import check_against_reference, unary

CASES = {
    "float32": unary("TANH", "float32"),
    "int8": unary("TANH", "int8", quant=(0.05, 3), out_quant=(1 / 128, 0)),
    "int16": unary("TANH", "int16", quant=(0.0005, 0), out_quant=(1 / 32768, 0)),
}
"""Case name -> its one-operator model."""


def test_tanh_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
