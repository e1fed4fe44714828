"""RESIZE_BILINEAR: bilinear resampling to a constant size (corner and half-pixel modes).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "RESIZE_BILINEAR",
        [T((1, 3, 4, 2), "float32"), const((2,), "int32", [5, 7])],
        [T((1, 5, 7, 2), "float32")],
        options("ResizeBilinearOptionsT", alignCorners=False, halfPixelCenters=True),
    ),
    "int8": SingleOp(
        "RESIZE_BILINEAR",
        [T((1, 4, 4, 3), "int8", (0.05, 3)), const((2,), "int32", [7, 6])],
        [T((1, 7, 6, 3), "int8", (0.05, 3))],
        options("ResizeBilinearOptionsT", alignCorners=True, halfPixelCenters=False),
    ),
}
"""Case name -> its one-operator model."""


def test_resize_bilinear_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
