"""PAD: constant padding (the zero point for quantized types) before and after each dimension.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "PAD", [T((3, 6), "float32"), const((2, 2), "int32", [[1, 0], [2, 3]])], [T((4, 11), "float32")]
    ),
    "int8": SingleOp(
        "PAD",
        [T((1, 3, 4, 2), "int8", (0.05, 3)), const((4, 2), "int32", [[0, 0], [1, 1], [2, 0], [0, 0]])],
        [T((1, 5, 6, 2), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_pad_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
