"""EXP: e^x per element (int8 and int16 through lookup tables).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import check_against_reference, unary

CASES = {
    "float32": unary("EXP", "float32"),
    "int8": unary("EXP", "int8", quant=(0.02, 3), out_quant=(0.05, -128)),
    "int16": unary("EXP", "int16", quant=(0.0001, 0), out_quant=(0.0002, 0)),
}
"""Case name -> its one-operator model."""


def test_exp_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
