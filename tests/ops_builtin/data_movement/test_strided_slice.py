"""STRIDED_SLICE: a strided box of the input, masks and negative strides included.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const, options

CASES = {
    "float32": SingleOp(
        "STRIDED_SLICE",
        [
            T((4, 6, 5), "float32"),
            const((3,), "int32", [1, 0, 4]),
            const((3,), "int32", [4, 6, 0]),
            const((3,), "int32", [2, 2, -1]),
        ],
        [T((2, 3, 4), "float32")],
        options("StridedSliceOptionsT", beginMask=2, endMask=2),
    ),
    "int8": SingleOp(
        "STRIDED_SLICE",
        [
            T((5, 8), "int8", (0.05, 3)),
            const((2,), "int32", [1, 0]),
            const((2,), "int32", [2, 8]),
            const((2,), "int32", [1, 3]),
        ],
        [T((3,), "int8", (0.05, 3))],
        options("StridedSliceOptionsT", shrinkAxisMask=1),
    ),
}
"""Case name -> its one-operator model."""


def test_strided_slice_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
