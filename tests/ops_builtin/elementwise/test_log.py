"""LOG: the natural logarithm of positive inputs (int8 and int16 through lookup tables).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import check_against_reference, unary

CASES = {
    "float32": unary("LOG", "float32", low=0.01, high=9.0),
    "int8": unary("LOG", "int8", quant=(0.05, 3), out_quant=(0.03, 40), low=4),
    "int16": unary("LOG", "int16", quant=(0.001, 0), out_quant=(0.0005, 0), low=1),
}
"""Case name -> its one-operator model."""


def test_log_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
