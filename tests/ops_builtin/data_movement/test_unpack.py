"""UNPACK: one input split along an axis into outputs without it.

The operator's own cases: one single-operator model per element type (or variant), its
inputs seeded, compared with LiteRT's reference kernels on the host
(tests/ops_builtin/support/single_op.py; all cases of this file in one linked build).
"""

from __future__ import annotations

from ops_builtin.support.single_op import SingleOp, T, check_against_reference, options

CASES = {
    "float32": SingleOp(
        "UNPACK",
        [T((3, 2, 4), "float32")],
        [T((3, 4), "float32"), T((3, 4), "float32")],
        options("UnpackOptionsT", num=2, axis=1),
    ),
    "int8": SingleOp(
        "UNPACK",
        [T((3, 5), "int8", (0.05, 3))],
        [T((5,), "int8", (0.05, 3))] * 3,
        options("UnpackOptionsT", num=3, axis=0),
    ),
}
"""Case name -> its one-operator model."""


def test_unpack_matches_the_reference(tmp_path):
    check_against_reference(CASES, tmp_path)
