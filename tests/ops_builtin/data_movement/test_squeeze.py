"""SQUEEZE: size-1 dimensions dropped.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, options

CASES = {
    "float32": SingleOp(
        "SQUEEZE",
        [T((1, 3, 1, 4), "float32")],
        [T((3, 4), "float32")],
        options("SqueezeOptionsT", squeezeDims=[0, 2]),
    ),
    "int8": SingleOp("SQUEEZE", [T((2, 1, 5), "int8", (0.05, 3))], [T((2, 5), "int8", (0.05, 3))]),
}
"""Case name -> its one-operator model."""


def test_squeeze_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
