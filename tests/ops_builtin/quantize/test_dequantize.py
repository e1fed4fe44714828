"""DEQUANTIZE: int8/int16 to float32.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference

CASES = {
    "int8": SingleOp("DEQUANTIZE", [T((2, 9), "int8", (0.05, 3))], [T((2, 9), "float32")]),
    "int16": SingleOp("DEQUANTIZE", [T((3, 4), "int16", (0.001, 0))], [T((3, 4), "float32")]),
}
"""Case name -> its one-operator model."""


def test_dequantize_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
