"""DYNAMIC_UPDATE_SLICE: an update written into the input at run-time starts (clamped into range).

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, const

CASES = {
    "float32": SingleOp(
        "DYNAMIC_UPDATE_SLICE",
        [T((3, 4, 5), "float32"), T((2, 2, 3), "float32"), T((3,), "int32", low=-2, high=6)],
        [T((3, 4, 5), "float32")],
    ),
    "int8": SingleOp(
        "DYNAMIC_UPDATE_SLICE",
        [T((3, 4, 5), "int8", (0.05, 3)), T((2, 2, 3), "int8", (0.05, 3)), const((3,), "int32", [1, 9, -4])],
        [T((3, 4, 5), "int8", (0.05, 3))],
    ),
}
"""Case name -> its one-operator model."""


def test_dynamic_update_slice_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
