"""SPACE_TO_DEPTH: blocks of the spatial dimensions moved into depth.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, options

CASES = {
    "float32": SingleOp(
        "SPACE_TO_DEPTH",
        [T((1, 4, 6, 3), "float32")],
        [T((1, 2, 3, 12), "float32")],
        options("SpaceToDepthOptionsT", blockSize=2),
    ),
    "int8": SingleOp(
        "SPACE_TO_DEPTH",
        [T((2, 3, 3, 2), "int8", (0.05, 3))],
        [T((2, 1, 1, 18), "int8", (0.05, 3))],
        options("SpaceToDepthOptionsT", blockSize=3),
    ),
}
"""Case name -> its one-operator model."""


def test_space_to_depth_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
