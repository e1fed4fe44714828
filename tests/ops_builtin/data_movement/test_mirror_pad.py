"""MIRROR_PAD: padding by reflection (REFLECT) or symmetry (SYMMETRIC).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "reflect": SingleOp(
        "MIRROR_PAD",
        [T((3, 5), "float32"), const((2, 2), "int32", [[1, 2], [2, 1]])],
        [T((6, 8), "float32")],
        options("MirrorPadOptionsT", mode=0),
    ),
    "symmetric_int8": SingleOp(
        "MIRROR_PAD",
        [T((1, 3, 4, 2), "int8", (0.05, 3)), const((4, 2), "int32", [[0, 0], [3, 1], [1, 4], [0, 0]])],
        [T((1, 7, 9, 2), "int8", (0.05, 3))],
        options("MirrorPadOptionsT", mode=1),
    ),
}
"""Case name -> its one-operator model."""


def test_mirror_pad_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
