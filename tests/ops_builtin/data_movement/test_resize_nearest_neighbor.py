"""RESIZE_NEAREST_NEIGHBOR: nearest-neighbour resampling to a constant size.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "RESIZE_NEAREST_NEIGHBOR",
        [T((1, 3, 4, 2), "float32"), const((2,), "int32", [6, 8])],
        [T((1, 6, 8, 2), "float32")],
        options("ResizeNearestNeighborOptionsT", alignCorners=False, halfPixelCenters=True),
    ),
    "int8": SingleOp(
        "RESIZE_NEAREST_NEIGHBOR",
        [T((2, 5, 3, 1), "int8", (0.05, 3)), const((2,), "int32", [3, 4])],
        [T((2, 3, 4, 1), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_resize_nearest_neighbor_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
