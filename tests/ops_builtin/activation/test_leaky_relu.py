"""LEAKY_RELU: x for x >= 0, alpha * x otherwise.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import check_against_reference, options, unary

CASES = {
    "float32": unary("LEAKY_RELU", "float32", opts=options("LeakyReluOptionsT", alpha=0.2)),
    "int8": unary(
        "LEAKY_RELU",
        "int8",
        quant=(0.05, 3),
        out_quant=(0.04, -10),
        opts=options("LeakyReluOptionsT", alpha=0.2),
    ),
    "int16": unary(
        "LEAKY_RELU",
        "int16",
        quant=(0.001, 0),
        out_quant=(0.001, 0),
        opts=options("LeakyReluOptionsT", alpha=0.2),
    ),
}
"""Case name -> its one-operator model."""


def test_leaky_relu_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
